// Synthetic stress generator: determinism for a seed, the bank each pattern aims at, valid
// traces for SBUF, PSUM and Q7 clients, and streaming (10 million records in flat memory).
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <fstream>
#include <sstream>
#include <streambuf>
#include <string>

#include "sbufsim/config/config.h"
#include "shipped.h"
#include "sbufsim/trace/trace.h"
#include "sbufsim/trace/trace_check.h"
#include "sbufsim/workload/workload.h"

namespace sbufsim {
namespace {

using test::cayman;

std::string generate(const Params& p, const RandomOptions& o, TraceFormat f = TraceFormat::text,
                     RandomStats* stats = nullptr) {
    std::ostringstream out;
    TraceWriter w(out, f, TraceHeader{1, p.generation});
    TraceWriterSink sink(w);
    RandomStats st = generate_random(p, o, sink);
    w.finish();
    if (stats) *stats = st;
    return out.str();
}

// Every access's ECC bank(s), decoded from the trace; check problems into `problems`.
std::vector<std::uint32_t> banks_of(const Params& p, const std::string& text, std::string& problems) {
    std::istringstream in(text);
    TraceReader reader(in, "r.trc");
    TraceChecker checker(p, "r.trc");
    const AddressMap map(p);
    std::vector<TraceError> errors;
    std::vector<std::uint32_t> banks;
    Record r;
    while (reader.next(r)) {
        checker.check(r, errors);
        const Decoded d = map.decode(r.address);
        const std::uint32_t mask = d.region == Region::psum
                                       ? map.psum_bank_mask(d.partition, r.partitions, d.offset, r.bytes)
                                       : map.sbuf_bank_mask(d.partition, r.partitions, d.offset, r.bytes);
        EXPECT_EQ(std::popcount(mask), 1) << "each access touches exactly one ECC bank";
        banks.push_back(static_cast<std::uint32_t>(std::countr_zero(mask)));
    }
    checker.finish(errors);
    for (const auto& e : errors) problems += e.to_string() + "\n";
    return banks;
}

TEST(Workload_random, Same_seed_same_bytes_other_seed_other_bytes) {
    const Params p = cayman();
    RandomOptions o;
    o.records = 20000;
    o.seed = 42;
    const std::string a = generate(p, o, TraceFormat::binary), b = generate(p, o, TraceFormat::binary);
    EXPECT_EQ(a, b);
    o.seed = 43;
    EXPECT_NE(a, generate(p, o, TraceFormat::binary));
}

TEST(Workload_random, Splitmix64_matches_the_reference_sequence) {
    // Reference values of splitmix64 seeded with 0 (Vigna's splitmix64.c).
    SplitMix64 r(0);
    EXPECT_EQ(r.next(), 0xe220a8397b1dcdafull);
    EXPECT_EQ(r.next(), 0x6e789e6aa1b965f4ull);
    SplitMix64 b(7);
    for (int i = 0; i < 1000; ++i) EXPECT_LT(b.below(10), 10u);
}

TEST(Workload_random, Uniform_traffic_passes_check_and_spreads_over_the_banks) {
    const Params p = cayman();
    RandomOptions o;
    o.clients = {"pe_client_0", "act_rd", "act_wr", "pool_wr", "dve_rd", "dma_0", "dma_3"};
    o.records = 16000;
    std::string problems;
    const auto banks = banks_of(p, generate(p, o), problems);
    EXPECT_TRUE(problems.empty()) << problems;
    std::vector<int> per(16, 0);
    for (auto b : banks) ++per[b];
    // 16000 accesses over 16 banks: 1000 each on average; a uniform draw stays within ±20 %.
    for (int b = 0; b < 16; ++b) EXPECT_NEAR(per[b], 1000, 200) << "bank " << b;
}

TEST(Workload_random, Hotspot_sends_the_hot_fraction_to_the_first_bank) {
    const Params p = cayman();
    RandomOptions o;
    o.pattern = StressPattern::hotspot;
    o.banks = {5, 0, 1, 2, 3};
    o.hot_fraction = 0.8;
    o.records = 10000;
    std::string problems;
    const auto banks = banks_of(p, generate(p, o), problems);
    EXPECT_TRUE(problems.empty()) << problems;
    // Hot share: 0.8 + 0.2 x 1/5 = 0.84 of the accesses go to bank 5.
    const auto hot = std::count(banks.begin(), banks.end(), 5u);
    EXPECT_NEAR(static_cast<double>(hot) / banks.size(), 0.84, 0.02);
}

TEST(Workload_random, Strided_walks_the_bank_list) {
    const Params p = cayman();
    RandomOptions o;
    o.pattern = StressPattern::strided;
    o.clients = {"act_rd"};
    o.banks = {0, 2, 4, 6};
    o.stride = 1;
    o.rate = 1.0;
    o.records = 8;
    std::string problems;
    const auto banks = banks_of(p, generate(p, o), problems);
    EXPECT_TRUE(problems.empty()) << problems;
    EXPECT_EQ(banks, (std::vector<std::uint32_t>{0, 2, 4, 6, 0, 2, 4, 6}));
}

TEST(Workload_random, Psum_and_q7_clients_stay_in_their_reach) {
    const Params p = cayman();
    RandomOptions o;
    o.clients = {"pe_wr", "act_psum_rd", "q7_3", "q7_7"};
    o.psum_banks = {0, 9, 31};
    o.records = 4000;
    std::string problems;
    const auto banks = banks_of(p, generate(p, o), problems);
    EXPECT_TRUE(problems.empty()) << problems;
    // q7_c reaches its own 16 partitions = SBUF cluster c = banks 2c, 2c+1 (seed 000 §7.5).
    o.clients = {"q7_3"};
    o.banks = {0, 1};
    EXPECT_THROW(generate(p, o), WorkloadError);
    o.clients = {"no_such_client"};
    EXPECT_THROW(generate(p, o), WorkloadError);
}

// Counts bytes and throws them away: the trace is produced, not stored.
struct NullBuf : std::streambuf {
    std::uint64_t bytes = 0;
    int_type overflow(int_type c) override {
        ++bytes;
        return c;
    }
    std::streamsize xsputn(const char*, std::streamsize n) override {
        bytes += static_cast<std::uint64_t>(n);
        return n;
    }
};

long vm_kib(const char* key) {
    std::ifstream s("/proc/self/status");
    std::string line;
    while (std::getline(s, line))
        if (line.rfind(key, 0) == 0) return std::stol(line.substr(std::string(key).size()));
    return -1;
}

TEST(Workload_random, Ten_million_records_stream_in_flat_memory) {
    const Params p = cayman();
    RandomOptions o;
    o.clients = {"pe_client_0", "act_rd", "act_wr", "dma_0", "dma_1", "pe_wr"};
    NullBuf buf;
    std::ostream out(&buf);
    // Warm up (allocator, name table), then measure the growth over 10 million records.
    {
        TraceWriter w(out, TraceFormat::binary, TraceHeader{1, p.generation});
        TraceWriterSink sink(w);
        o.records = 100000;
        generate_random(p, o, sink);
    }
    const long before = vm_kib("VmRSS:");
    TraceWriter w(out, TraceFormat::binary, TraceHeader{1, p.generation});
    TraceWriterSink sink(w);
    o.records = 10'000'000;
    const RandomStats st = generate_random(p, o, sink);
    w.finish();
    const long after = vm_kib("VmRSS:");
    EXPECT_EQ(st.records, 10'000'000u);
    EXPECT_EQ(w.records_written(), 10'000'000u);
    // 24-byte access records (docs/trace-format.md) + name records + headers.
    EXPECT_GE(buf.bytes, 240'000'000u);
    // Holding the records would take >= 240 MB; streaming keeps the growth under 4 MiB.
    EXPECT_LT(after - before, 4096) << "RSS grew from " << before << " to " << after << " KiB";
    RecordProperty("rss_growth_kib", static_cast<int>(after - before));
}

}  // namespace
}  // namespace sbufsim
