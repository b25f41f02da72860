// Speed of the fast replay (`sbufsim run` without the report): items/s = trace records replayed
// per second, reading, checking, submitting and simulating included. The traces are what
// `sbufsim gen random` writes (generate_random, the same code), made once into a fresh
// temporary folder that is removed at exit:
//   mixed:  the default clients pe_client_0, act_rd, act_wr, dma_0 with 64-byte accesses
//           (2 beats per record for the compute clients, one per partition for dma_0);
//   1beat:  pe_client_0, act_rd, act_wr, pool_rd with 32-byte accesses (one beat per record).
// Each in the binary (.sbt) and the text (.trc) form. docs/performance.md keeps the figures.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "sbufsim/config/config.h"
#include "sbufsim/replay/replay.h"
#include "sbufsim/trace/trace.h"
#include "sbufsim/workload/workload.h"

namespace sbufsim {
namespace {

constexpr std::uint64_t kRecords = 500'000;

const Params& params() {
    static const Params p = load_config(LoadRequest{}).params;
    return p;
}

// The folder the traces are written to: made here, so removing it at exit removes only what
// this program wrote.
class Scratch {
public:
    Scratch() {
        std::string tmpl = (std::filesystem::temp_directory_path() / "sbufsim-bench-XXXXXX").string();
        if (!mkdtemp(tmpl.data())) throw std::runtime_error("cannot make a temporary folder from " + tmpl);
        dir_ = tmpl;
    }
    ~Scratch() {
        std::error_code ec;
        std::filesystem::remove_all(dir_, ec);
    }
    const std::filesystem::path& dir() const { return dir_; }

private:
    std::filesystem::path dir_;
};

const Scratch& scratch() {
    static const Scratch s;
    return s;
}

// `sbufsim gen random --clients ... --bytes B --records kRecords -o <scratch>/<name>`, once.
std::string trace(const std::string& name, bool one_beat, TraceFormat format) {
    const std::string path = (scratch().dir() / (name + (format == TraceFormat::binary ? ".sbt" : ".trc"))).string();
    if (std::filesystem::exists(path)) return path;
    RandomOptions o;
    if (one_beat) {
        o.clients = {"pe_client_0", "act_rd", "act_wr", "pool_rd"};
        o.bytes = params().width.engine_bytes;
    }
    o.records = kRecords;
    std::ofstream out(path, std::ios::binary);
    TraceWriter writer(out, format, TraceHeader{kTraceFormatVersion, params().generation});
    TraceWriterSink sink(writer);
    generate_random(params(), o, sink);
    writer.finish();
    if (!out) throw std::runtime_error("cannot write " + path);
    return path;
}

void replay_bench(benchmark::State& state, const std::string& name, bool one_beat, TraceFormat format) {
    const std::string path = trace(name, one_beat, format);
    std::uint64_t records = 0, beats = 0;
    for (auto _ : state) {
        const ReplayResult r = replay_trace(params(), path);
        records += r.records;
        state.PauseTiming();
        for (const auto& c : r.kernel.clients) beats += c.beats;
        state.ResumeTiming();
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(records));
    state.counters["beats/record"] = records ? static_cast<double>(beats) / static_cast<double>(records) : 0;
}

void BM_ReplayBinaryMixed(benchmark::State& s) { replay_bench(s, "mixed", false, TraceFormat::binary); }
void BM_ReplayBinary1Beat(benchmark::State& s) { replay_bench(s, "1beat", true, TraceFormat::binary); }
void BM_ReplayTextMixed(benchmark::State& s) { replay_bench(s, "mixed", false, TraceFormat::text); }
void BM_ReplayText1Beat(benchmark::State& s) { replay_bench(s, "1beat", true, TraceFormat::text); }

BENCHMARK(BM_ReplayBinaryMixed)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime();
BENCHMARK(BM_ReplayBinary1Beat)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime();
BENCHMARK(BM_ReplayTextMixed)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime();
BENCHMARK(BM_ReplayText1Beat)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime();

}  // namespace
}  // namespace sbufsim

BENCHMARK_MAIN();
