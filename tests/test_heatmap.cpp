// Per-window statistics (rows add up to the run totals, folding and rebinning keep the sums) and
// the heatmap SVG (well-formed XML, exactly one cell per bank per bin in each panel).
#include <gtest/gtest.h>

#include <array>
#include <boost/property_tree/ptree.hpp>
#include <boost/property_tree/xml_parser.hpp>
#include <fstream>
#include <functional>
#include <regex>
#include <set>
#include <sstream>

#include "sbufsim/config/config.h"
#include "shipped.h"
#include "sbufsim/output/heatmap.h"
#include "sbufsim/output/progress.h"
#include "sbufsim/replay/replay.h"
#include "sbufsim/output/svg.h"
#include "temp_files.h"

namespace sbufsim {
namespace {

namespace pt = boost::property_tree;

using test::cayman;
using test::shipped;

ReplayResult run(const Params& p, ActivityProbe& probe, const std::string& trace = "act_vs_matmul_collide.trc") {
    ReplayOptions o;
    o.probe = &probe;
    return replay_trace(p, shipped(trace), o);
}

ActivityProbe probe_for(const Params& p, ProbeOptions o) {
    return ActivityProbe(ClientSet(p).size(), p.sbuf.ecc_banks + p.psum.ecc_banks, o);
}

// Every per-window column summed over the rows equals the run's counter; the rows' cycles add up
// to the run's only when every window has a row (`all_windows`: a folding probe or a grid).
void expect_rows_sum_to_totals(const WindowSeries& w, const ReplayResult& r, bool all_windows = true) {
    const Stats& k = r.kernel;
    Cycle cycles = 0;
    std::uint64_t compute = 0, dma = 0;
    std::array<std::uint64_t, kStallCauses> stalled{}, charged{};
    std::vector<std::uint64_t> busy(w.banks.size()), conf(w.banks.size()), stalls(w.banks.size()), bytes(w.clients.size());
    for (const auto& row : w.rows) {
        cycles += row.cycles;
        compute += row.tdm_compute;
        dma += row.tdm_dma;
        for (std::size_t b = 0; b < busy.size(); ++b) {
            busy[b] += row.busy[b];
            conf[b] += row.conflicts[b];
            stalls[b] += row.stalls[b];
        }
        for (std::size_t c = 0; c < bytes.size(); ++c) bytes[c] += row.bytes[c];
        for (std::size_t i = 0; i < kStallCauses; ++i) stalled[i] += row.stalled[i];
    }
    for (const auto& c : k.clients)
        for (std::size_t i = 0; i < kStallCauses; ++i) charged[i] += c.stalls[i];
    for (std::size_t i = 0; i < kStallCauses; ++i)
        EXPECT_EQ(stalled[i], charged[i]) << to_string(static_cast<StallCause>(i));
    if (all_windows) {
        EXPECT_EQ(cycles, r.total_cycles);
    } else {
        EXPECT_LE(cycles, r.total_cycles);
    }
    for (std::size_t b = 0; b < busy.size(); ++b) {
        EXPECT_EQ(busy[b], k.banks[b].busy) << w.banks[b];
        EXPECT_EQ(conf[b], k.banks[b].conflict_cycles) << w.banks[b];
        EXPECT_EQ(stalls[b], k.banks[b].stalls) << w.banks[b];
    }
    for (std::size_t c = 0; c < bytes.size(); ++c) EXPECT_EQ(bytes[c], k.clients[c].bytes) << w.clients[c];
    std::uint64_t slot_compute = 0, slot_dma = 0;
    for (const auto& s : k.tdm_slots) slot_compute += s.compute_used, slot_dma += s.dma_used;
    EXPECT_EQ(compute, slot_compute);
    EXPECT_EQ(dma, slot_dma);
}

TEST(WindowStats, Rows_sum_to_the_run_totals) {
    const Params p = test::cayman_word_beats();
    ActivityProbe probe = probe_for(p, ProbeOptions{100, true, 0, false});
    const ReplayResult r = run(p, probe);
    const WindowSeries w = make_windows(probe, r.kernel, r.total_cycles, 100);
    // Only windows in which something happened have a row, in time order, on 100-cycle bounds.
    ASSERT_FALSE(w.rows.empty());
    EXPECT_LE(w.rows.size(), (r.total_cycles + 99) / 100);
    EXPECT_EQ(w.rows.front().cycles, 100u);
    for (std::size_t i = 0; i < w.rows.size(); ++i) {
        EXPECT_EQ(w.rows[i].start % 100, 0u);
        if (i) {
            EXPECT_GT(w.rows[i].start, w.rows[i - 1].start);
        }
    }
    std::uint64_t any_conflict = 0;
    for (const auto& b : r.kernel.banks) any_conflict += b.conflict_cycles;
    EXPECT_GT(any_conflict, 0u);
    expect_rows_sum_to_totals(w, r, false);
    // Merging rows onto a grid keeps every sum.
    const WindowSeries coarse = rebin(w, 7);
    EXPECT_LE(coarse.rows.size(), 7u);
    expect_rows_sum_to_totals(coarse, r, false);
}

TEST(WindowStats, Folding_probe_keeps_the_totals) {
    const Params p = test::cayman_word_beats();
    // 8 bins at most: a run of thousands of cycles folds many times.
    ActivityProbe probe = probe_for(p, ProbeOptions{1, false, 8, false});
    const ReplayResult r = run(p, probe);
    EXPECT_GT(probe.bin_width(), 256u);
    EXPECT_LE(probe.bins(), 9u);
    expect_rows_sum_to_totals(make_windows(probe, r.kernel, r.total_cycles, probe.bin_width()), r);
}

std::uint64_t charged(const Stats& k, StallCause cause) {
    std::uint64_t n = 0;
    for (const auto& c : k.clients) n += c.stalls[static_cast<std::size_t>(cause)];
    return n;
}

// The gates' stalls (strict TDM, a throttler) are charged many cycles at a time
// while the kernel skips; each window still gets the ones of its own cycles, and the sums stay
// those of the run, in exact windows and in a probe that folds.
TEST(WindowStats, Gate_stalls_land_in_their_windows_and_sum_to_the_run_totals) {
    Params p = cayman();
    p.tdm.strict = true;
    p.throttler.act_wr = {true, 64, 1};
    for (const ProbeOptions o : {ProbeOptions{100, true, 0, false}, ProbeOptions{1, false, 8, false}}) {
        ActivityProbe probe = probe_for(p, o);
        const ReplayResult r = run(p, probe, "resnet50_head.trc");
        for (StallCause c : {StallCause::tdm, StallCause::throttle})
            EXPECT_GT(charged(r.kernel, c), 0u) << to_string(c);
        const WindowSeries w = make_windows(probe, r.kernel, r.total_cycles, probe.bin_width());
        expect_rows_sum_to_totals(w, r, !o.fixed_width);
    }
}

TEST(WindowStats, A_long_stall_is_split_at_the_window_edges) {
    ActivityProbe probe(2, 16, ProbeOptions{64, true, 0, false});
    probe.stall(1, StallCause::tdm, 50, 200);  // cycles 50..249: 14 + 64 + 64 + 58
    probe.stall(0, StallCause::throttle, 60, 1);
    ASSERT_EQ(probe.bins(), 4u);
    const std::uint64_t want[] = {14, 64, 64, 58};
    for (std::size_t b = 0; b < 4; ++b) {
        EXPECT_EQ(probe.bin_start(b), 64 * b);
        EXPECT_EQ(probe.stalled(b, StallCause::tdm), want[b]) << b;
        EXPECT_EQ(probe.stalled(b, StallCause::throttle), b == 0 ? 1u : 0u) << b;
    }
}

TEST(WindowStats, Idle_windows_cost_nothing_in_a_fixed_width_probe) {
    // Two bursts 2^31 cycles apart in 1-cycle windows: two stored bins, two rows.
    ActivityProbe probe(4, 16, ProbeOptions{1, true, 0, false});
    const Cycle far = Cycle{1} << 31;
    probe.grant(1, 0, 0b11, 64, 5);
    probe.grant(2, 0, 0b100, 32, far);
    probe.conflict(2, far);
    EXPECT_EQ(probe.bins(), 2u);
    Stats s;
    s.banks.resize(16);
    s.clients.resize(4);
    s.sbuf_banks = 16;
    const WindowSeries w = make_windows(probe, s, far + 10, 1);
    ASSERT_EQ(w.rows.size(), 2u);
    EXPECT_EQ(w.rows[0].start, 5u);
    EXPECT_EQ(w.rows[0].busy[0] + w.rows[0].busy[1], 2u);
    EXPECT_EQ(w.rows[1].start, far);
    EXPECT_EQ(w.rows[1].conflicts[2], 1u);
    EXPECT_EQ(w.rows[1].bytes[2], 32u);
    // Drawn on a regular grid of at most 100 columns, idle ones zero; the sums stay.
    const WindowSeries grid = rebin(w, 100);
    EXPECT_LE(grid.rows.size(), 100u);
    std::uint64_t busy = 0, bytes = 0;
    for (const auto& r : grid.rows) busy += r.busy[0] + r.busy[1] + r.busy[2], bytes += r.bytes[1] + r.bytes[2];
    EXPECT_EQ(busy, 3u);
    EXPECT_EQ(bytes, 96u);
    EXPECT_EQ(grid.rows.back().start + grid.rows.back().cycles, far + 1);
}

TEST(Heatmap, A_fixed_width_series_is_drawn_where_its_windows_lie_after_an_idle_start) {
    // --window-stats 1000 keeps only windows with activity: here the first is at cycle 50,000.
    ActivityProbe probe(4, 16, ProbeOptions{1000, true, 0, false});
    probe.grant(1, 0, 0b1, 32, 50'000);
    probe.conflict(0, 50'000);
    probe.grant(2, 0, 0b10, 32, 90'005);
    Stats s;
    s.banks.resize(16);
    s.clients.resize(4);
    s.sbuf_banks = 16;
    const WindowSeries w = make_windows(probe, s, 90'012, 1000);
    ASSERT_EQ(w.rows.front().start, 50'000u);
    EXPECT_EQ(rebin(w, 200, 0).rows.front().start, 0u);  // the picture's grid starts at cycle 0
    const std::string svg =
        render_heatmap(w, BlockMatrix{}, HeatmapInfo{"late", "cayman", "", 2.4, 90'012, true});
    // A cell's x and width, from its tooltip's cycle range (the cause panel has tooltips).
    auto cell = [&](const std::string& cycles) {
        const std::size_t at = svg.rfind("<rect", svg.find("in cycles " + cycles + "<"));
        std::smatch m;
        const std::string tag = svg.substr(at, svg.find('>', at) - at);
        EXPECT_TRUE(
            std::regex_search(tag, m, std::regex("x=\"([0-9.]+)\" y=\"[0-9.]+\" width=\"([0-9.]+)\"")))
            << tag;
        return std::pair{std::stod(m[1]), std::stod(m[2])};
    };
    const auto [x0, w0] = cell("0-1000");
    const auto [x50, w50] = cell("50000-51000");
    const auto [x90, w90] = cell("90000-90012");
    const double plot = x90 + w90 - x0;  // the last bin ends at the run's end, the axis's right edge
    EXPECT_NEAR((x50 - x0) / plot, 50'000.0 / 90'012, 1e-4);
    EXPECT_NEAR(w0 / plot, 1000.0 / 90'012, 1e-3);
    EXPECT_NEAR(w90 / plot, 12.0 / 90'012, 1e-3);  // a short last bin is drawn short
}

TEST(WindowStats, Fixed_width_probe_stops_at_its_cap_and_says_so) {
    ProbeOptions o{10, true, 0, false};
    o.max_active_bins = 3;
    ActivityProbe probe(2, 16, o);
    for (Cycle t : {0, 10, 20}) probe.grant(0, 0, 1, 8, t);
    EXPECT_FALSE(probe.overflowed());
    probe.grant(0, 0, 1, 8, 25);   // an existing bin: still fine
    EXPECT_FALSE(probe.overflowed());
    probe.grant(0, 0, 1, 8, 30);
    EXPECT_TRUE(probe.overflowed());
    EXPECT_EQ(probe.bins(), 3u);
    EXPECT_EQ(probe.busy(2, 0), 2u);
}

TEST(WindowStats, Bins_met_out_of_time_order_land_in_their_window) {
    ActivityProbe probe(2, 16, ProbeOptions{10, true, 0, false});
    probe.grant(0, 0, 1, 8, 100);
    probe.stall(1, StallCause::tdm, 101, 2);
    probe.grant(1, 0, 2, 16, 20);
    probe.grant(0, 0, 1, 8, 105);
    ASSERT_EQ(probe.bins(), 2u);
    EXPECT_EQ(probe.bin_start(0), 20u);
    EXPECT_EQ(probe.bytes(0, 1), 16u);
    EXPECT_EQ(probe.bin_start(1), 100u);
    EXPECT_EQ(probe.bytes(1, 0), 16u);
    EXPECT_EQ(probe.stalled(0, StallCause::tdm), 0u);
    EXPECT_EQ(probe.stalled(1, StallCause::tdm), 2u);
}

// The rects of class `cls`; with `cells`, each one's (row, bin) pair, the row named by `row_attr`.
std::size_t count_class(const pt::ptree& node, const std::string& cls, std::set<std::pair<int, int>>* cells,
                        const std::string& row_attr = "data-bank") {
    std::size_t n = 0;
    for (const auto& [tag, child] : node) {
        if (tag == "rect" && child.get<std::string>("<xmlattr>.class", "") == cls) {
            ++n;
            if (cells) {
                EXPECT_TRUE(cells
                                ->emplace(child.get<int>("<xmlattr>." + row_attr),
                                          child.get<int>("<xmlattr>.data-bin"))
                                .second);
            }
        }
        n += count_class(child, cls, cells, row_attr);
    }
    return n;
}

pt::ptree parse_svg(const std::string& svg) {
    std::istringstream in(svg);
    pt::ptree doc;
    pt::read_xml(in, doc);  // throws on malformed XML
    return doc;
}

TEST(Heatmap, Svg_is_well_formed_with_one_cell_per_bank_per_bin) {
    const Params p = test::cayman_word_beats();
    ActivityProbe probe = probe_for(p, ProbeOptions{1, false, 4096, false});
    const ReplayResult r = run(p, probe);
    const WindowSeries w = make_windows(probe, r.kernel, r.total_cycles, probe.bin_width());
    const std::string svg =
        render_heatmap(w, block_matrix(r.kernel),
                       HeatmapInfo{"collide & <co>", "cayman", "x=1", 2.4, r.total_cycles, true}, 50);
    const pt::ptree doc = parse_svg(svg);
    const std::size_t bins = rebin(w, 50).rows.size();
    ASSERT_GT(bins, 1u);
    ASSERT_LE(bins, 50u);
    std::set<std::pair<int, int>> util, stall, cause;
    EXPECT_EQ(count_class(doc, "util", &util), 48 * bins);
    // The PSUM rows of the stall panel only when a PSUM bank lost a beat (not in this run).
    for (const WindowRow& row : w.rows)
        for (std::size_t b = w.sbuf_banks; b < row.stalls.size(); ++b) ASSERT_EQ(row.stalls[b], 0u);
    EXPECT_EQ(count_class(doc, "stall", &stall), 16 * bins);
    EXPECT_EQ(util.size(), 48 * bins);
    // One row per stall cause, the gates' included.
    EXPECT_EQ(count_class(doc, "cause", &cause, "data-cause"), kStallCauses * bins);
    EXPECT_EQ(cause.rbegin()->first, static_cast<int>(kStallCauses) - 1);
    // A row per client that lost beats to another, a column per client that took them.
    const BlockMatrix bm = block_matrix(r.kernel);
    const std::size_t n = bm.clients.size();
    std::size_t victims = 0, blockers = 0;
    for (std::size_t c = 0; c < n; ++c) {
        std::uint64_t row = 0, col = 0;
        for (std::size_t o = 0; o < n; ++o) row += bm.cycles[c * n + o], col += bm.cycles[o * n + c];
        victims += row != 0;
        blockers += col != 0;
    }
    ASSERT_GT(victims, 0u);
    ASSERT_LT(victims, n);
    EXPECT_EQ(count_class(doc, "blocked", nullptr), victims * blockers);
    EXPECT_NE(svg.find("collide &amp; &lt;co&gt;"), std::string::npos);  // title escaped
}

// A stall panel of 48 rows whose 32 PSUM rows are empty tells nothing: they are drawn only when a
// PSUM bank lost a beat somewhere in the run, and the title says when they are left out.
TEST(Heatmap, Psum_stall_rows_only_when_a_psum_bank_lost_a_beat) {
    WindowSeries w;
    w.width = 10;
    w.sbuf_banks = 16;
    for (int b = 0; b < 16; ++b) w.banks.push_back("sbuf_" + std::to_string(b));
    for (int b = 0; b < 32; ++b) w.banks.push_back("psum_" + std::to_string(b));
    for (int i = 0; i < 5; ++i) {
        WindowRow row;
        row.start = 10 * static_cast<Cycle>(i);
        row.cycles = 10;
        row.busy.assign(48, 1);
        row.conflicts.assign(48, 0);
        row.stalls.assign(48, 0);
        row.stalls[3] = 2;
        w.rows.push_back(row);
    }
    const auto render = [&] {
        return render_heatmap(w, BlockMatrix{}, HeatmapInfo{"t", "cayman", "", 0, 50, true});
    };
    const std::string sbuf_only = render();
    EXPECT_EQ(count_class(parse_svg(sbuf_only), "util", nullptr), 48u * 5);
    EXPECT_EQ(count_class(parse_svg(sbuf_only), "stall", nullptr), 16u * 5);
    EXPECT_NE(sbuf_only.find("stalls per SBUF bank (PSUM: none): "), std::string::npos);
    w.rows[4].stalls[16 + 31] = 1;  // psum_31, in the last bin
    const std::string both = render();
    EXPECT_EQ(count_class(parse_svg(both), "stall", nullptr), 48u * 5);
    EXPECT_EQ(both.find("PSUM: none"), std::string::npos);
    EXPECT_NE(both.find("stalls per bank: "), std::string::npos);
}

TEST(Heatmap, No_psum_rows_without_a_psum_region) {
    WindowSeries w;
    w.width = 10;
    w.sbuf_banks = 16;
    for (int b = 0; b < 16; ++b) w.banks.push_back("sbuf_" + std::to_string(b));
    for (int i = 0; i < 5; ++i) {
        WindowRow row;
        row.start = 10 * static_cast<Cycle>(i);
        row.cycles = 10;
        row.busy.assign(16, static_cast<std::uint64_t>(i));
        row.conflicts.assign(16, 0);
        row.stalls.assign(16, 1);
        w.rows.push_back(row);
    }
    const pt::ptree doc =
        parse_svg(render_heatmap(w, BlockMatrix{}, HeatmapInfo{"t", "maverick", "", 0, 50, true}));
    EXPECT_EQ(count_class(doc, "util", nullptr), 16u * 5);
    EXPECT_EQ(count_class(doc, "stall", nullptr), 16u * 5);
}

// The fill of the stall cell of `bank` in `bin` (the panels' cells carry data-bank and data-bin).
std::string stall_fill(const pt::ptree& node, int bank, int bin) {
    for (const auto& [tag, child] : node) {
        if (tag == "rect" && child.get<std::string>("<xmlattr>.class", "") == "stall" &&
            child.get<int>("<xmlattr>.data-bank") == bank && child.get<int>("<xmlattr>.data-bin") == bin)
            return child.get<std::string>("<xmlattr>.fill");
        if (std::string f = stall_fill(child, bank, bin); !f.empty()) return f;
    }
    return "";
}

// A stall panel's darkest colour stands for at least one stalled beat-cycle per cycle: a run
// whose worst bin loses one beat in 40 cycles is drawn pale, as the same share of a busier run
// would be, not in the colour of a bank that loses a beat every cycle.
TEST(Heatmap, Stall_colours_are_against_one_stall_per_cycle_at_least) {
    const auto series = [](std::uint64_t worst) {
        WindowSeries w;
        w.width = 40;
        w.sbuf_banks = 1;
        w.banks = {"sbuf_0"};
        for (const std::uint64_t stalls : {worst, std::uint64_t{0}}) {
            WindowRow row;
            row.start = 40 * w.rows.size();
            row.cycles = 40;
            row.busy = {40};
            row.conflicts = {stalls};
            row.stalls = {stalls};
            w.rows.push_back(row);
        }
        return parse_svg(render_heatmap(w, BlockMatrix{}, HeatmapInfo{"t", "cayman", "", 0, 80, true}));
    };
    EXPECT_EQ(stall_fill(series(1), 0, 0), svg::ramp_red(svg::log_scale(1.0 / 40, 1)));
    EXPECT_NE(stall_fill(series(1), 0, 0), svg::ramp_red(1));
    // Above one per cycle the scale follows the data: the worst bin is the darkest.
    EXPECT_EQ(stall_fill(series(160), 0, 0), svg::ramp_red(1));
    EXPECT_EQ(stall_fill(series(160), 0, 1), svg::ramp_red(0));
}

// The who-blocked-whom matrix likewise: its darkest colour is at least a tenth of the run, so 265
// stall cycles in a run of a million are pale, and the note under it says both figures.
TEST(Heatmap, Matrix_colours_are_against_a_tenth_of_the_run_at_least) {
    BlockMatrix m;
    m.clients = {"dma_0", "pe_client_0"};
    m.cycles = {0, 265, 0, 0};  // dma_0 blocked by pe_client_0
    const auto fill_of = [&](Cycle run) {
        const pt::ptree doc =
            parse_svg(render_heatmap(WindowSeries{}, m, HeatmapInfo{"t", "cayman", "", 2.4, run, true}));
        std::string fill;
        std::function<void(const pt::ptree&)> walk = [&](const pt::ptree& node) {
            for (const auto& [tag, child] : node) {
                if (tag == "rect" && child.get<std::string>("<xmlattr>.class", "") == "blocked" &&
                    child.get<std::string>("title", "").find(": 265 cycles") != std::string::npos)
                    fill = child.get<std::string>("<xmlattr>.fill");
                walk(child);
            }
        };
        walk(doc);
        return fill;
    };
    EXPECT_EQ(fill_of(1'000'000), svg::ramp_red(svg::log_scale(265, 100'000)));
    EXPECT_EQ(fill_of(2000), svg::ramp_red(1));  // 265 is more than a tenth of 2000 cycles
    const std::string svg =
        render_heatmap(WindowSeries{}, m, HeatmapInfo{"t", "cayman", "", 2.4, 1'000'000, true});
    EXPECT_NE(svg.find("darkest = 100k cycles (a tenth of the run; the largest cell is 265)"),
              std::string::npos);
}

// Victims that lost beats alike (every count of their rows equal, as DMA queues an engine's reads
// block in turn) share one row labelled "(each)"; the cells shrink to their counts.
TEST(Heatmap, Blocked_by_matrix_merges_victims_that_lost_alike) {
    BlockMatrix m;
    m.clients = {"pe_client_0", "dma_0", "dma_1", "dma_2", "dma_3", "dma_4", "act_wr", "pool_wr"};
    const std::size_t n = m.clients.size();
    m.cycles.assign(n * n, 0);
    for (std::size_t v = 1; v <= 4; ++v) m.cycles[v * n + 0] = 40;  // dma_0..3 alike
    m.cycles[5 * n + 0] = 41;                                        // dma_4 not quite
    m.cycles[6 * n + 0] = m.cycles[7 * n + 0] = 7;                   // two names, no common stem
    const std::string svg = render_heatmap(WindowSeries{}, m, HeatmapInfo{"t", "cayman", "", 2.4, 100, true});
    const pt::ptree doc = parse_svg(svg);
    EXPECT_EQ(count_class(doc, "blocked", nullptr), 3u);  // dma_0..3, dma_4, act_wr +1: one column
    EXPECT_NE(svg.find(">dma_0..3 (each)<"), std::string::npos) << svg;
    EXPECT_NE(svg.find(">dma_4<"), std::string::npos);
    EXPECT_NE(svg.find(">act_wr +1 (each)<"), std::string::npos);
    EXPECT_NE(svg.find("dma_0..3 (each) blocked by pe_client_0: 40 cycles"), std::string::npos);
    EXPECT_NE(svg.find("a row of several clients (each) is one they lost alike"), std::string::npos);
    // Two-digit counts: 22-pixel cells, not the 34 that a "55.4k" needs.
    EXPECT_NE(svg.find("class=\"blocked\""), std::string::npos);
    const std::size_t cell = svg.rfind("<rect", svg.find("class=\"blocked\""));
    EXPECT_NE(svg.substr(cell, 120).find("width=\"22\""), std::string::npos) << svg.substr(cell, 200);
}

// A real workload's matrix: 30 clients, one pair 1000x the rest. Victims are the rows and
// blockers the columns, each only where it lost or took beats; the columns that do not fit go
// by their totals, counts read in k/M, and the colour is logarithmic so the small pairs are not
// white next to the large one.
TEST(Heatmap, Blocked_by_matrix_shows_the_top_clients_in_k_units_on_a_log_scale) {
    BlockMatrix m;
    const std::size_t n = 30;
    for (std::size_t c = 0; c < n; ++c) m.clients.push_back("dma_" + std::to_string(c));
    m.cycles.assign(n * n, 0);
    m.cycles[0 * n + 1] = 55400;                                       // dma_0 blocked by dma_1
    for (std::size_t v = 2; v < n; ++v) m.cycles[v * n + (v + 1) % n] = 50 + v;  // small pairs
    // dma_29 blocks many clients, each less than dma_1 blocks dma_0: both columns are shown.
    for (std::size_t v = 2; v < n - 1; ++v) m.cycles[v * n + n - 1] = 1000;
    const std::string svg = render_heatmap(WindowSeries{}, m, HeatmapInfo{"t", "cayman", "", 2.4, 100, true});
    const pt::ptree doc = parse_svg(svg);
    EXPECT_NE(svg.find(">55.4k<"), std::string::npos);                    // not 5.54e+04
    EXPECT_EQ(svg.find("e+0"), std::string::npos);
    // Rows: the 29 clients that lost beats (dma_1 lost none). Columns: 22 of the 29 that took
    // beats, dma_1 and dma_29 and then by their totals: dma_0 (79, from dma_29), dma_28 .. dma_10
    // (77 .. 59); dma_3 .. dma_9 (52 .. 58) are left out and named.
    EXPECT_EQ(count_class(doc, "blocked", nullptr), 29u * 22u);
    EXPECT_NE(
        svg.find(
            "not shown for room: 7 blocker column(s) (dma_3, dma_4, dma_5, dma_6, dma_7, dma_8, dma_9)<"),
        std::string::npos)
        << svg;
    EXPECT_NE(svg.find("their cells hold 385 stall cycles, the largest 58 (every pair"), std::string::npos)
        << svg;
    EXPECT_NE(svg.find("dma_0 blocked by dma_1: 55400 cycles"), std::string::npos);  // exact in the tooltip
    EXPECT_NE(svg.find("dma_4 blocked by dma_29: 1000 cycles"), std::string::npos);
    EXPECT_EQ(svg.find("dma_2 blocked by dma_3:"), std::string::npos);  // a column left out
    EXPECT_EQ(svg.find("dma_1 blocked by"), std::string::npos);         // no row: it lost nothing
    // Log colour: a pair 1000x smaller than the largest is still visibly tinted (linear: white).
    EXPECT_GT(svg::log_scale(55, 55400), 0.09);
    EXPECT_LT(svg::log_scale(55, 55400), 0.2);
    EXPECT_DOUBLE_EQ(svg::log_scale(55400, 55400), 1.0);
    EXPECT_EQ(svg::log_scale(0, 55400), 0.0);
    EXPECT_EQ(svg::compact(208), "208");
    EXPECT_EQ(svg::compact(55400), "55.4k");
    EXPECT_EQ(svg::compact(1234567), "1.23M");
    EXPECT_EQ(svg::compact(999999), "1M");
    // Nobody blocked: no matrix, a line saying so.
    BlockMatrix quiet;
    quiet.clients = {"act_rd", "dma_0"};
    quiet.cycles.assign(4, 0);
    EXPECT_NE(render_heatmap(WindowSeries{}, quiet, HeatmapInfo{"t", "cayman", "", 2.4, 100, true})
                  .find("(no client lost a beat to another client)"),
              std::string::npos);
}

TEST(Heatmap, Settings_line_names_the_changed_keys_and_the_config_hash) {
    EXPECT_EQ(heatmap_settings({"tdm.strict=true", "tdm.dma_slots=2"}, "00ff"),
              "tdm.strict=true tdm.dma_slots=2 (config 00ff)");
    EXPECT_EQ(heatmap_settings({}, "00ff"), "generation defaults (config 00ff)");
}

// The line under the settings bounds what the stalls cost the run: the critical path's bank
// waits. None when the run has no such path or its access records' own traffic is 1 % of the run
// or more (there the stalls lengthen the run directly).
TEST(Heatmap, The_critical_path_line_bounds_what_the_stalls_cost) {
    const auto group = [](const char* name, Cycle compute, Cycle bank_wait) {
        PathGroup g{name, {}, 1};
        g.cycles[static_cast<std::size_t>(PathCause::compute)] = compute;
        g.cycles[static_cast<std::size_t>(PathCause::bank_wait)] = bank_wait;
        return g;
    };
    const auto path =
        heatmap_path({group("DMA", 700, 150), group("ACT", 100, 50), group("kernel", 9, 0)}, 1000);
    ASSERT_TRUE(path.has_value());
    EXPECT_EQ(path->bound_by, "DMA");
    EXPECT_EQ(path->bank_wait, 200u);
    EXPECT_FALSE(heatmap_path({group("DMA", 700, 0), group("kernel", 10, 0)}, 1000).has_value());
    EXPECT_FALSE(heatmap_path({}, 1000).has_value());

    HeatmapInfo info{"t", "cayman", "", 2.4, 1000, true};
    info.path = path;
    const std::string svg = render_heatmap(WindowSeries{}, BlockMatrix{}, info);
    EXPECT_NE(
        svg.find("critical path: bound by DMA; its instructions waited 200 cycles for SBUF/PSUM access (20 % "
                 "of the run): the stalls below lengthen this run by at most that"),
        std::string::npos)
        << svg;
    // No bank wait on the path: said as such, not as "at most that" of 0 %.
    info.path = heatmap_path({group("ACT", 700, 0), group("DMA", 100, 0)}, 1000);
    ASSERT_TRUE(info.path.has_value());
    EXPECT_NE(
        render_heatmap(WindowSeries{}, BlockMatrix{}, info)
            .find("critical path: bound by ACT; its instructions waited no cycle for SBUF/PSUM access: the "
                  "stalls below did not lengthen this run"),
        std::string::npos);
    info.path.reset();
    EXPECT_EQ(render_heatmap(WindowSeries{}, BlockMatrix{}, info).find("critical path"), std::string::npos);
}

TEST(Svg, Escapes_markup) {
    EXPECT_EQ(svg::escape("a<b & \"c\" 'd'>"), "a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt;");
    EXPECT_EQ(svg::ramp_blue(0), "#ffffff");
    EXPECT_EQ(svg::ramp_red(1), "#a50f15");
}

TEST(Progress, Renders_rate_percentage_and_eta) {
    const std::string s = Progress::render("x.trc", 500000, 1000000, 2.0);
    EXPECT_NE(s.find(" 50%"), std::string::npos) << s;
    EXPECT_NE(s.find("500.00k rec"), std::string::npos) << s;
    EXPECT_NE(s.find("250.00k rec/s"), std::string::npos) << s;
    EXPECT_NE(s.find("ETA 0:02"), std::string::npos) << s;
    EXPECT_EQ(Progress::render("x", 10, 0, 1.0).find("ETA"), std::string::npos);  // unknown total
    // A sweep's points: its own unit, and a slow rate keeps a decimal.
    const std::string pts = Progress::render("sweep", 5, 20, 2.0, "pt");
    EXPECT_NE(pts.find(" 25%"), std::string::npos) << pts;
    EXPECT_NE(pts.find("5 pt  2.5 pt/s"), std::string::npos) << pts;
    EXPECT_NE(pts.find("ETA 0:06"), std::string::npos) << pts;
    std::ostringstream os;
    Progress off(os, false, 10, "x");
    off.update(5);
    off.finish();
    EXPECT_TRUE(os.str().empty());
    EXPECT_GT(Progress::estimate_records(shipped("matmul_kloop.trc")), 70u);
    const std::string bin = sbufsim::test::temp("fake.sbt");
    { std::ofstream(bin, std::ios::binary) << std::string("SBT\0\0\0\n\n", 8); }
    EXPECT_EQ(Progress::estimate_records(bin), 0u);  // binary: unknown
}

}  // namespace
}  // namespace sbufsim
