// PE tiles and background transposes (arr_seq.h; docs/engines.md "PE tiles and background
// transposes"): which matmuls stream at the same time. Each case replays a small trace and reads
// the instructions' start cycles from the timeline.
#include <gtest/gtest.h>

#include <sstream>

#include "sbufsim/replay/replay.h"
#include "sbufsim/trace/trace.h"
#include "shipped.h"

namespace sbufsim {
namespace {

ReplayResult run(const Params& p, const std::string& body) {
    std::istringstream in("sbufsim-trace 1\n" + body);
    TraceReader reader(in, "tiles.trc");
    ReplayOptions o;
    o.record_timeline = true;
    return replay(p, reader, o);
}

// The timeline event of trace line `line` (the header is line 1).
InstrEvent event(const ReplayResult& r, std::uint64_t line) {
    for (const InstrEvent& e : r.timeline)
        if (e.line == line) return e;
    ADD_FAILURE() << "no timeline event for line " << line;
    return {};
}

std::string hex(std::uint64_t v) {
    char b[24];
    std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
    return b;
}
std::string sbuf(std::uint32_t partition, std::uint32_t offset) { return hex(std::uint64_t{partition} * 0x40000 + offset); }
std::string psum_bank(std::uint32_t bank) { return hex(0x2000000 + std::uint64_t{bank} * 2048); }

// A stationary of rows x cols loaded from partition `first`, and a matmul streaming N = 512
// moving columns from there into PSUM bank `bank`; `tile` is "" or the tile fields.
std::string ldweights(std::uint32_t first, std::uint32_t rows, std::uint32_t cols, const std::string& tile) {
    return "ldweights queue=qPE0 src=bf16@" + sbuf(first, 0) + "[1][" + std::to_string(cols) + "] rows=" + std::to_string(rows) +
           " cols=" + std::to_string(cols) + tile + "\n";
}
std::string matmul(std::uint32_t first, std::uint32_t rows, std::uint32_t cols, std::uint32_t bank, const std::string& tile,
                   std::uint32_t n = 512) {
    const std::string grp = rows == 128 ? "0xf" : first == 0 ? "0x3" : "0xc";
    return "matmul queue=qPE0 src=bf16@" + sbuf(first, 0x8000) + "[1][" + std::to_string(n) + "] dst=fp32@" + psum_bank(bank) +
           "[1][" + std::to_string(n) + "] num_active_rows=" + std::to_string(rows) + " num_active_cols=" + std::to_string(cols) +
           " row_grp=" + grp + tile + "\n";
}
std::string row_tile(std::uint32_t row) { return " tile_position=" + std::to_string(row) + ",0 tile_size=64,128"; }

// Lines 2..5: LdWeights and a K = 64 matmul on row tile (0,0), then on `second`'s tile.
std::string two_row_tiles(const std::string& first_tile, const std::string& second_tile) {
    return ldweights(0, 64, 128, first_tile) + matmul(0, 64, 128, 0, first_tile) + ldweights(64, 64, 128, second_tile) +
           matmul(64, 64, 128, 1, second_tile);
}

TEST(PeTiles, Matmuls_on_disjoint_row_tiles_stream_at_the_same_time) {
    const Params p = test::no_ramp(test::cayman());  // exact matmul cycles: the ramp off
    const ReplayResult r = run(p, two_row_tiles(row_tile(0), row_tile(64)));
    const InstrEvent mm0 = event(r, 3), ldw1 = event(r, 4), mm1 = event(r, 5);
    // Tile 1's LdWeights starts as tile 0's matmul latches its weights; its matmul follows the
    // LdWeights (128 columns / 4), while tile 0's is still streaming its 512 columns.
    EXPECT_EQ(ldw1.start, mm0.start);
    EXPECT_EQ(mm1.start, mm0.start + 32);
    EXPECT_LT(mm1.start, mm0.end);
    // The array streamed for 512 array-equivalent cycles: two half-array matmuls of 512.
    EXPECT_EQ(r.arr_seq.pe_stream, 512u);
    // Without tile fields each matmul takes the whole array: the second waits for the first.
    const ReplayResult whole = run(p, two_row_tiles("", ""));
    EXPECT_GE(event(whole, 5).start, event(whole, 3).start + 512);
    EXPECT_EQ(whole.arr_seq.pe_stream, 1024u);
}

TEST(PeTiles, Matmuls_on_one_tile_or_overlapping_tiles_run_one_after_the_other) {
    const Params p = test::cayman();
    const ReplayResult same = run(p, two_row_tiles(row_tile(64), row_tile(64)));
    EXPECT_GE(event(same, 5).start, event(same, 3).start + 512);
    // The whole array overlaps the row tile at row 64.
    const ReplayResult overlap = run(p, two_row_tiles(" tile_position=0,0 tile_size=128,128", row_tile(64)));
    EXPECT_GE(event(overlap, 5).start, event(overlap, 3).start + 512);
}

TEST(PeTiles, Column_tiles_stream_at_the_same_time) {
    const Params p = test::cayman();
    const std::string left = " tile_position=0,0 tile_size=128,64", right = " tile_position=0,64 tile_size=128,64";
    const ReplayResult r = run(p, ldweights(0, 128, 64, left) + matmul(0, 128, 64, 0, left) + ldweights(0, 128, 64, right) +
                                      matmul(0, 128, 64, 1, right));
    EXPECT_LT(event(r, 5).start, event(r, 3).start + 512);
}

TEST(PeTiles, A_matmul_waits_only_for_the_ldweights_of_its_own_tile) {
    const Params p = test::cayman();
    // Both stationaries first, then tile 0's matmul: it starts while tile 1's weights load.
    const std::string body = ldweights(0, 64, 128, row_tile(0)) + ldweights(64, 64, 128, row_tile(64)) +
                             matmul(0, 64, 128, 0, row_tile(0));
    const ReplayResult r = run(p, body);
    EXPECT_EQ(event(r, 4).start, event(r, 3).start);
    EXPECT_LT(event(r, 4).start, event(r, 3).end);
    // Tile 1's matmul waits for tile 1's weights.
    const ReplayResult own = run(p, ldweights(0, 64, 128, row_tile(0)) + ldweights(64, 64, 128, row_tile(64)) +
                                        matmul(64, 64, 128, 1, row_tile(64)));
    EXPECT_GE(event(own, 4).start, event(own, 3).end);
}

// 128 x 128 bf16 PE transposes (lines 3, 5, 7 with their LdWeights on 2, 4, 6), or matmuls.
std::string chain(int n, bool transpose) {
    std::string t;
    for (int i = 0; i < n; ++i)
        t += ldweights(0, 128, 128, "") + matmul(0, 128, 128, static_cast<std::uint32_t>(i % 8), transpose ? " transpose=1" : "", 128);
    return t;
}

TEST(BackgroundTranspose, A_transpose_streams_beside_the_one_before_on_nc_v4_only) {
    // exact transpose cycles: the ramp off (test::no_ramp)
    const ReplayResult m = run(test::no_ramp(test::shipped_params("mariana")), chain(3, true));
    // The second transpose starts once its weights are in, while the first still streams; the
    // third waits for the first: at most two streams per block.
    EXPECT_LT(event(m, 5).start, event(m, 3).start + 128);
    EXPECT_GE(event(m, 7).start, event(m, 3).start + 128);
    EXPECT_LT(event(m, 7).start, event(m, 5).start + 128);
    const ReplayResult c = run(test::no_ramp(test::cayman()), chain(3, true));
    EXPECT_GE(event(c, 5).start, event(c, 3).start + 128);
    // pe.background_transpose with the sequencer's disable_bg_xpose clear runs them on cayman as
    // mariana does; with the CSR set (its reset value) mariana runs them one after the other.
    Params bg = test::no_ramp(test::cayman());
    bg.pe.background_transpose = true;
    bg.arr_seq.disable_bg_xpose = false;
    const ReplayResult b = run(bg, chain(3, true));
    EXPECT_EQ(event(b, 5).start - event(b, 3).start, event(m, 5).start - event(m, 3).start);
    const ReplayResult off =
        run(test::no_ramp(test::shipped_params("mariana", {{"arr_seq.disable_bg_xpose", "true"}})), chain(3, true));
    EXPECT_GE(event(off, 5).start, event(off, 3).start + 128);
}

TEST(BackgroundTranspose, Two_matmuls_that_are_not_transposes_never_overlap) {
    const ReplayResult m = run(test::shipped_params("mariana"), chain(2, false));
    EXPECT_GE(event(m, 5).start, event(m, 3).start + 128);
    // A transpose beside a matmul does.
    const ReplayResult mixed = run(test::shipped_params("mariana"), ldweights(0, 128, 128, "") +
                                                                          matmul(0, 128, 128, 0, "", 128) + chain(1, true));
    EXPECT_LT(event(mixed, 5).start, event(mixed, 3).start + 128);
}


// fp32 PE transposes (lines 3 and 5, their LdWeights on 2 and 4): the transpose mode halves the
// fp32 rate's x4 (timing.transpose_fp32_factor = 2 from NC-v3); an fp32 matmul keeps x4, and
// NC-v2 has no transpose mode.
std::string fp32_pair(bool transpose) {
    std::string t;
    for (int i = 0; i < 2; ++i)
        t += "ldweights queue=qPE0 src=fp32@" + sbuf(0, 0) + "[1][128] rows=128 cols=128\n" + "matmul queue=qPE0 src=fp32@" +
             sbuf(0, 0x8000) + "[1][128] dst=fp32@" + psum_bank(static_cast<std::uint32_t>(i)) +
             "[1][128] num_active_rows=128 num_active_cols=128" + (transpose ? " transpose=1" : "") + "\n";
    return t;
}

TEST(TransposeMode, An_fp32_transpose_streams_at_twice_the_fp32_matmul_rate_from_nc_v3) {
    auto interval = [](const Params& p, bool transpose) {
        const ReplayResult r = run(p, fp32_pair(transpose));
        return event(r, 5).start - event(r, 3).start;
    };
    // exact matmul cycles: the ramp off (test::no_ramp)
    EXPECT_EQ(interval(test::no_ramp(test::cayman()), true), 128u * 2);
    EXPECT_EQ(interval(test::no_ramp(test::cayman()), false), 128u * 4);
    EXPECT_EQ(interval(test::shipped_params("sunda"), true), 128u * 4);
    EXPECT_EQ(test::shipped_params("mariana").timing.transpose_fp32_factor, 2u);
}

}  // namespace
}  // namespace sbufsim
