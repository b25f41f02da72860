// Readers stream: a ~1M-record trace is read (text and binary) and checked in flat memory.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "sbufsim/output/report.h"
#include "sbufsim/trace/trace.h"
#include "sbufsim/trace/trace_check.h"
#include "shipped.h"
#include "temp_files.h"

using namespace sbufsim;

namespace {

// Resident set size in KiB from /proc/self/status (VmRSS).
long rss_kib() {
    std::ifstream s("/proc/self/status");
    std::string line;
    while (std::getline(s, line))
        if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
    return -1;
}

constexpr std::uint64_t kRecords = 1'000'000;

// Writes `n` records cycling through access and instruction kinds, without holding them.
void write_trace(const std::string& path, TraceFormat f, std::uint64_t n) {
    std::ofstream out(path, std::ios::binary);
    TraceWriter w(out, f, TraceHeader{1, "cayman"});
    Record acc;
    acc.kind = RecordKind::access;
    acc.client = "dma_0";
    acc.partitions = 1;
    acc.bytes = 64;
    Record mm;
    mm.kind = RecordKind::act;
    mm.queue = "qAct0";
    mm.partitions = 32;
    mm.src.kind = mm.dst.kind = Operand::Kind::onchip;
    mm.src.dtype = mm.dst.dtype = Dtype::bf16;
    mm.src.dims = mm.dst.dims = 1;
    mm.src.steps[0] = mm.dst.steps[0] = 1;
    mm.src.sizes[0] = mm.dst.sizes[0] = 64;
    mm.dst.addr = 0x1000;
    for (std::uint64_t i = 0; i < n; ++i) {
        if (i % 4 == 3) {
            w.write(mm);
        } else {
            acc.cycle = i;
            acc.address = static_cast<std::uint32_t>((i % 128) * 0x40000);
            w.write(acc);
        }
    }
    w.finish();
}

struct Stream : ::testing::TestWithParam<TraceFormat> {};

}  // namespace

TEST_P(Stream, Reading_and_checking_a_million_records_keeps_memory_flat) {
    const std::string path = test::temp("stream_" + std::string(to_string(GetParam())) +
                             std::string(GetParam() == TraceFormat::binary ? kBinaryExtension : kTextExtension));
    write_trace(path, GetParam(), kRecords);
    TraceReader reader(path);
    TraceChecker checker(test::shipped_params("cayman"), path);
    std::vector<TraceError> errors;
    Record rec;
    std::uint64_t n = 0;
    long rss_after_warmup = 0;
    while (reader.next(rec)) {
        checker.check(rec, errors);
        if (++n == 10'000) rss_after_warmup = rss_kib();
    }
    const long rss_end = rss_kib();
    std::remove(path.c_str());
    EXPECT_EQ(n, kRecords);
    EXPECT_TRUE(errors.empty()) << errors.front().to_string();
    ASSERT_GT(rss_after_warmup, 0);
    // The trace is 30-60 MB; a reader that kept records would grow by at least that much.
    EXPECT_LT(rss_end - rss_after_warmup, 4 * 1024) << "RSS grew from " << rss_after_warmup << " KiB to " << rss_end
                                                   << " KiB while streaming";
}

// The run report's trace_digest comes from the reader, which hashes the bytes as it reads them:
// it must be file_digest()'s value for a file of several read chunks, and only once the end is read.
TEST_P(Stream, The_reader_hashes_the_file_while_reading_it) {
    const std::string path = test::temp("digest_" + std::string(to_string(GetParam())) +
                             std::string(GetParam() == TraceFormat::binary ? kBinaryExtension : kTextExtension));
    write_trace(path, GetParam(), 150'000);  // more than 3 MB: several 1 MB reads
    const std::string want = file_digest(path);
    {
        TraceReader reader(path, TraceReader::Digest::yes);
        Record rec;
        ASSERT_TRUE(reader.next(rec));
        EXPECT_FALSE(reader.digest()) << "a digest before the end of the file";
        while (reader.next(rec)) {
        }
        ASSERT_TRUE(reader.digest());
        EXPECT_EQ(hex16(*reader.digest()), want);
    }
    {
        std::ifstream in(path, std::ios::binary);
        TraceReader reader(in, path);
        Record rec;
        while (reader.next(rec)) {
        }
        EXPECT_FALSE(reader.digest()) << "a stream handed in need not start at the file's beginning";
    }
    {
        TraceReader reader(path);  // not asked to hash
        Record rec;
        while (reader.next(rec)) {
        }
        EXPECT_FALSE(reader.digest());
    }
    std::remove(path.c_str());
}

INSTANTIATE_TEST_SUITE_P(TraceStream, Stream, ::testing::Values(TraceFormat::text, TraceFormat::binary),
                         [](const auto& info) { return std::string(to_string(info.param)); });
