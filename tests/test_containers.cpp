// The small containers a run keeps per client and per queue: the latency histogram
// (stats/stats.h), whose table grows with the latencies it sees, and the engines' FIFO ring
// (types/ring.h), which takes no memory until its first entry.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "sbufsim/stats/stats.h"
#include "sbufsim/types/ring.h"

namespace sbufsim {
namespace {

TEST(LatencyHistogram, Percentiles_are_their_buckets_upper_bounds_clamped_to_the_exact_maximum) {
    LatencyHistogram h;
    for (std::uint64_t v = 1; v <= 100; ++v) h.add(v);
    EXPECT_EQ(h.count(), 100u);
    EXPECT_EQ(h.sum(), 5050u);
    EXPECT_EQ(h.max(), 100u);
    EXPECT_EQ(h.percentile(0.10), 10u);   // below 16: exact
    EXPECT_EQ(h.percentile(0.50), 51u);   // 50 is in [48, 51]
    EXPECT_EQ(h.percentile(0.64), 71u);   // [64, 71]: the first bucket past the first room grown
    EXPECT_EQ(h.percentile(0.99), 100u);  // [96, 103], clamped to the maximum
    EXPECT_EQ(LatencyHistogram::bucket(64), LatencyHistogram::kGrowth);
}

TEST(LatencyHistogram, The_largest_latency_lands_in_the_last_bucket) {
    LatencyHistogram h;
    h.add(3);
    const std::uint64_t huge = ~std::uint64_t{0};
    h.add(huge);
    EXPECT_EQ(LatencyHistogram::bucket(huge), LatencyHistogram::kBuckets - 1);
    EXPECT_EQ(h.percentile(0.5), 3u);
    EXPECT_EQ(h.percentile(1.0), huge);
}

TEST(LatencyHistogram, Equal_when_the_counts_are_equal_however_the_values_came) {
    LatencyHistogram a, b, c;
    for (std::uint64_t v : {1, 3, 3, 200}) a.add(v);
    for (std::uint64_t v : {200, 3, 1, 3}) b.add(v);
    for (std::uint64_t v : {2, 2, 3, 200}) c.add(v);  // the same count, sum and maximum as a
    EXPECT_EQ(a, b);
    EXPECT_FALSE(a == c);
    LatencyHistogram copy = a;
    EXPECT_EQ(copy, a);
    copy.add(1);
    EXPECT_FALSE(copy == a);
    EXPECT_EQ(LatencyHistogram{}, LatencyHistogram{});
}

TEST(Ring, Keeps_first_in_first_out_order_from_empty_across_each_growth) {
    Ring<std::string> r;
    EXPECT_TRUE(r.empty());
    std::uint64_t pushed = 0, popped = 0;
    // Pushes two for each pop, so the ring grows past its first allocation several times with its
    // head in the middle of the buffer.
    for (int round = 0; round < 40; ++round) {
        r.push(std::to_string(pushed++));
        r.push(std::to_string(pushed++));
        ASSERT_EQ(r.front(), std::to_string(popped));
        ASSERT_EQ(r.at(r.size() - 1), std::to_string(pushed - 1));
        r.pop();
        ++popped;
    }
    EXPECT_EQ(r.size(), 40u);
    while (!r.empty()) {
        ASSERT_EQ(r.front(), std::to_string(popped++));
        r.pop();
    }
    EXPECT_EQ(popped, pushed);
}

}  // namespace
}  // namespace sbufsim
