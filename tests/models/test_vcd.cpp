// The clocked scheduler's waveforms (sbufsim run --vcd): the VCD parses, names the signals the
// docs promise, and integrated over time its signals give back the run's statistics: per bank
// the grants counter and the cycles busy and contended, per client the cycles stalled by each
// cause and the beats moved, and the cycles of the TDM slots that give the DMA class precedence.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "../shipped.h"
#include "../temp_files.h"
#include "models/replay/clocked_replay.h"
#include "models/top/tpb.h"

using namespace sbufsim;
using namespace sbufsim::models;

namespace {

// A minimal VCD reader: scopes, $var declarations, #time stamps, scalar and vector changes.
struct Vcd {
    std::string timescale;
    std::map<std::string, std::string> id_of;                            // full name -> id
    std::map<std::string, std::vector<std::pair<std::uint64_t, std::uint64_t>>> changes;  // id -> (time, value)

    explicit Vcd(std::istream& in) {
        std::vector<std::string> scope;
        std::string tok;
        std::uint64_t now = 0;
        bool in_timescale = false;
        while (in >> tok) {
            if (tok == "$comment" || tok == "$date" || tok == "$version") {
                while (in >> tok && tok != "$end") {
                }
            } else if (tok == "$timescale") {
                in_timescale = true;
            } else if (in_timescale) {
                if (tok == "$end") in_timescale = false;
                else timescale += tok;
            } else if (tok == "$scope") {
                std::string kind, name;
                in >> kind >> name;
                scope.push_back(name);
            } else if (tok == "$upscope") {
                scope.pop_back();
            } else if (tok == "$var") {
                std::string type, width, id, name;
                in >> type >> width >> id >> name;
                std::string full;
                for (std::size_t i = 1; i < scope.size(); ++i) full += scope[i] + ".";  // drop "SystemC"
                id_of[full + name] = id;
            } else if (tok[0] == '#') {
                now = std::stoull(tok.substr(1));
            } else if (tok[0] == 'b') {
                std::string id;
                in >> id;
                changes[id].emplace_back(now, std::stoull(tok.substr(1), nullptr, 2));
            } else if ((tok[0] == '0' || tok[0] == '1') && tok.size() > 1) {
                changes[tok.substr(1)].emplace_back(now, tok[0] == '1');
            }
        }
    }

    const std::vector<std::pair<std::uint64_t, std::uint64_t>>& of(const std::string& name) const {
        const auto id = id_of.find(name);
        if (id == id_of.end()) throw std::runtime_error("no signal " + name + " in the VCD");
        static const std::vector<std::pair<std::uint64_t, std::uint64_t>> none;
        const auto c = changes.find(id->second);
        return c == changes.end() ? none : c->second;
    }
    std::uint64_t last(const std::string& name) const {
        const auto& c = of(name);
        return c.empty() ? 0 : c.back().second;
    }
    // Clock cycles (of `period` ps) during which `pred(value)` held, up to time `end`.
    template <class Pred>
    double time_where(const std::string& name, double period, std::uint64_t end, Pred pred) const {
        // Edges fall on whole picoseconds: a half period of 208.5 ps lands on 208 or 209, so each
        // interval is a whole number of cycles give or take a picosecond.
        const auto& c = of(name);
        double cycles = 0;
        for (std::size_t i = 0; i < c.size(); ++i) {
            const std::uint64_t until = i + 1 < c.size() ? c[i + 1].first : end;
            if (pred(c[i].second)) cycles += std::round(static_cast<double>(until - c[i].first) / period);
        }
        return cycles;
    }
};

struct Traced {
    ClockedRun run;
    Vcd vcd;
    double period = 0;
    std::uint64_t end = 0;  // ps: the falling edge after the last arbitrated cycle
};

Traced trace_run(const std::string& trace,
                 const std::vector<std::pair<std::string, std::string>>& overrides = {},
                 std::vector<CsrWrite> writes = {}) {
    LoadRequest r;
    r.generation = "cayman";
    for (const auto& [k, v] : overrides) r.overrides.push_back(Setting{k, v, Origin{}, ""});
    const Params p = load_config(r).params;
    const std::string path = test::temp("run.vcd");
    ClockedOptions o;
    o.vcd = path;
    o.csr_writes = std::move(writes);
    ClockedRun run = replay_clocked_trace(p, test::shipped(trace), {}, o);
    std::ifstream in(path);
    Vcd vcd(in);
    std::filesystem::remove(path);
    // The simulation stops at the falling clock edge after the last arbitrated cycle; the VCD's
    // last clock change is the rising edge before it (the stop comes before that time is dumped).
    const auto& clk = vcd.of("top.clk");
    const std::uint64_t end = clk.back().first + static_cast<std::uint64_t>(run.clock_period_ps / 2);
    const double period = run.clock_period_ps;
    return Traced{std::move(run), std::move(vcd), period, end};
}

void expect_signals_match_stats(const Traced& t) {
    const Stats& s = t.run.result.kernel;
    ASSERT_EQ(t.vcd.timescale, "1ps");
    ASSERT_EQ(s.banks.size(), 48u);
    std::uint64_t busy_total = 0;
    for (std::size_t b = 0; b < s.banks.size(); ++b) {
        // Bank b of the kernel's order: SBUF cluster c half h, then PSUM cluster c bank k.
        const std::string name = b < 16 ? "top.tpb.sbuf_cluster_" + std::to_string(b / 2) + "_" + std::to_string(b % 2)
                                        : "top.tpb.psum_cluster" + std::to_string((b - 16) / 8) + "_bank" +
                                              std::to_string((b - 16) % 8);
        EXPECT_EQ(t.vcd.last(name + ".grants"), s.banks[b].busy) << name;
        EXPECT_DOUBLE_EQ(t.vcd.time_where(name + ".busy", t.period, t.end, [](auto v) { return v == 1; }),
                         static_cast<double>(s.banks[b].busy))
            << name;
        EXPECT_DOUBLE_EQ(t.vcd.time_where(name + ".conflict", t.period, t.end, [](auto v) { return v == 1; }),
                         static_cast<double>(s.banks[b].conflict_cycles))
            << name;
        busy_total += s.banks[b].busy;
    }
    EXPECT_GT(busy_total, 0u);
    for (const ClientStats& c : s.clients) {
        const std::string base = "top.arbiter." + c.name;
        for (std::size_t k = 0; k < kStallCauses; ++k)
            EXPECT_DOUBLE_EQ(t.vcd.time_where(base + "_stall", t.period, t.end, [k](auto v) { return v == k + 1; }),
                             static_cast<double>(c.stalls[k]))
                << c.name << " " << to_string(static_cast<StallCause>(k));
        EXPECT_DOUBLE_EQ(t.vcd.time_where(base + "_grant", t.period, t.end, [](auto v) { return v == 1; }),
                         static_cast<double>(c.beats))
            << c.name;
    }
}

}  // namespace

TEST(Vcd, Bank_and_client_signals_add_up_to_the_statistics_of_a_conflict_trace) {
    // One 8-byte word per beat in one burst per request: the reading under which this trace conflicts.
    const Traced t = trace_run("act_vs_matmul_collide.trc", {{"width.engine_bytes", "8"}, {"width.psum_bytes", "8"}, {"width.stream_chunks", "1"}});
    std::uint64_t conflicts = 0;
    for (const auto& b : t.run.result.kernel.banks) conflicts += b.conflict_cycles;
    ASSERT_GT(conflicts, 0u) << "the trace is chosen for its conflicts";
    expect_signals_match_stats(t);
}

TEST(Vcd, Tdm_slot_signals_follow_the_configured_period) {
    const Traced t = trace_run("dma_vs_compute.trc", {{"tdm.max_slots", "8"}, {"tdm.dma_slots", "2"}});
    expect_signals_match_stats(t);
    const Stats& s = t.run.result.kernel;
    ASSERT_EQ(s.tdm_slots.size(), 8u);
    const double dma_slot_cycles = static_cast<double>(s.tdm_slots[0].cycles + s.tdm_slots[1].cycles);
    EXPECT_DOUBLE_EQ(
        t.vcd.time_where("top.tpb.tdm.dma_precedence", t.period, t.end, [](auto v) { return v == 1; }),
        dma_slot_cycles);
    EXPECT_DOUBLE_EQ(t.vcd.time_where("top.tpb.tdm.slot", t.period, t.end, [](auto v) { return v == 7; }),
                     static_cast<double>(s.tdm_slots[7].cycles));
}

TEST(Vcd, A_tdm_cfg_written_over_tlm_shows_from_the_next_cycle) {
    const std::uint64_t n = 50;
    const std::uint64_t cfg = (4u << 16) | 8u;  // 4 DMA slots of 8
    const Traced t =
        trace_run("dma_vs_compute.trc", {}, {{n, Tpb::kSbufClusterBase + models::Tdm::kBlockOffset, cfg}});
    expect_signals_match_stats(t);
    const auto& written = t.vcd.of("top.tpb.tdm.tdm_cfg");
    ASSERT_FALSE(written.empty());
    EXPECT_EQ(written.back().second, cfg);
    EXPECT_EQ(std::llround(static_cast<double>(written.back().first) / t.period), static_cast<long long>(n))
        << "written at the rising edge of cycle n";
    const Cycle cycles = t.run.result.kernel.cycles;
    ASSERT_GT(cycles, 2 * n);
    double dma = 0;
    for (Cycle c = 0; c < cycles; ++c) dma += (c % 8) < (c <= n ? 1u : 4u);
    EXPECT_DOUBLE_EQ(
        t.vcd.time_where("top.tpb.tdm.dma_precedence", t.period, t.end, [](auto v) { return v == 1; }), dma)
        << "one DMA slot of 8 through cycle n, four from n + 1";
}

// arr_seq_top.queue_cfg written over TLM: the register's signal changes at the rising edge of the
// write's cycle, and the statistics are those of the write acting from the next cycle.
TEST(Vcd, An_arr_seq_queue_cfg_written_over_tlm_shows_in_the_register_signal) {
    const std::uint64_t n = 40;
    const std::uint32_t cfg = ArrSeqTopCsr::kQueueCfgReset | (1u << 8);  // disable_dependency_check
    const Traced t = trace_run("matmul_kloop.trc", {}, {{n, Tpb::kArrSeqTopBase + ArrSeqTopCsr::kQueueCfg, cfg}});
    const auto& written = t.vcd.of("top.tpb.arr_seq.queue_cfg");
    ASSERT_FALSE(written.empty());
    EXPECT_EQ(written.front().second, ArrSeqTopCsr::kQueueCfgReset) << "the configuration's value at time 0";
    EXPECT_EQ(written.back().second, cfg);
    EXPECT_EQ(std::llround(static_cast<double>(written.back().first) / t.period), static_cast<long long>(n));
    EXPECT_EQ(t.vcd.last("top.tpb.arr_seq.arr_cluster_cfg"), ArrSeqClusterCsr::kArrClusterCfgReset);
    ClockedOptions o;
    o.csr_writes = {{n, Tpb::kArrSeqTopBase + ArrSeqTopCsr::kQueueCfg, cfg}};
    EXPECT_EQ(t.run.result.total_cycles,
              replay_clocked_trace(test::cayman(), test::shipped("matmul_kloop.trc"), {}, o).result.total_cycles)
        << "a waveform changes nothing";
}

// An act_rd throttle enabled over TLM in cycle n: act_throttler.rd_tokens reads 0 (disabled)
// through cycle n and shows the bucket from cycle n + 1.
TEST(Vcd, An_act_rd_throttle_written_over_tlm_shows_in_the_token_signal) {
    const std::uint64_t n = 30;
    const std::uint64_t act = Tpb::kPoolActBase + models::Throttler::kBlockStride;
    const Traced t = trace_run("act_vs_matmul_collide.trc", {},
                               {{n, act + models::Throttler::kRdCfg1, (2u << 16) | 16u}, {n, act + models::Throttler::kRdCfg0, 0}});
    const auto& tokens = t.vcd.of("top.tpb.act_throttler.rd_tokens");
    ASSERT_FALSE(tokens.empty());
    std::uint64_t first_nonzero = 0;
    for (const auto& [time, v] : tokens)
        if (v != 0) {
            first_nonzero = time;
            break;
        }
    ASSERT_GT(first_nonzero, 0u) << "the bucket must show";
    // Driven at the falling edge of each arbitrated cycle: cycle n + 1's falling edge.
    EXPECT_EQ(std::llround((static_cast<double>(first_nonzero) - t.period / 2) / t.period),
              static_cast<long long>(n + 1));
    EXPECT_LE(t.vcd.last("top.tpb.act_throttler.rd_tokens"), 2u);
}

TEST(Vcd, Engine_busy_and_the_clock_are_recorded) {
    const Traced t = trace_run("matmul_kloop.trc");
    EXPECT_GT(t.vcd.of("top.clk").size(), 2 * t.run.result.kernel.cycles - 2) << "one rise and one fall per cycle";
    EXPECT_GT(t.vcd.time_where("top.tpb.arr_seq.busy", t.period, t.end, [](auto v) { return v == 1; }), 0.0);
    EXPECT_NO_THROW(t.vcd.of("top.act.busy"));
}

TEST(Vcd, An_unwritable_path_is_refused_before_the_run) {
    EXPECT_THROW(replay_clocked_trace(test::cayman(), test::shipped("matmul_kloop.trc"), {},
                                      ClockedOptions{"/nonexistent-dir/w.vcd"}),
                 std::runtime_error);
}
