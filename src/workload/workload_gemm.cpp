// The tiled GEMM generator (include/sbufsim/workload/workload.h, docs/generators.md).
//
// Program order of one GEMM, as an NKI kernel issues it (C = A·B, A: M×K, B: K×N):
//
//   for nb in n-blocks (block_n n-tiles of 128 columns)
//     for mb in m-blocks (block_m m-tiles of 512 free elements)
//       for kt in k-tiles (128 partitions)                      ← one "k-step"
//         DMA  B[kt, nb] → stationary ring   (once per nb when resident)
//         DMA  A[kt, mb] → moving ring
//         for nt in nb:  LdWeights B[kt, nt]
//                        for mt in mb:  Matmul A[kt, mt] → PSUM bank of (nt, mt)  BEGIN/mid/END
//       for (nt, mt) in block: ACT PSUM → SBUF result slot;  DMA result slot → HBM
//
// The loads of step s are written `bufs - 1` steps ahead of its compute, so that the file order
// already is the software-pipelined order a double-buffered kernel runs in. Semaphores are plain
// counters (docs/trace-format.md) and every wait carries its explicit value, computed from the
// counts: each instruction that must be waited for is the n-th signal of its semaphore, and the
// producers of one semaphore complete in order (one DMA queue, the in-order PE queue, ACT, DVE).
#include <algorithm>
#include <array>
#include <bit>
#include <cctype>
#include <initializer_list>
#include <string>

#include "sbufsim/trace/completion_order.h"
#include "sbufsim/workload/workload.h"

namespace sbufsim {

namespace {

constexpr std::string_view kPeQueue = "qPE0";
constexpr std::string_view kActQueue = "qAct0";
constexpr std::string_view kDveQueue = "qDVE0";
constexpr std::uint32_t kAlign = 64;  // slot alignment: a whole number of 8-byte SBUF words (seed 000 §1.1)

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }
std::uint32_t align_up(std::uint64_t v) { return static_cast<std::uint32_t>(ceil_div(v, kAlign) * kAlign); }

// Size of tile i of `total` split into tiles of `tile` (the last one is ragged).
std::uint32_t extent(std::uint64_t total, std::uint64_t tile, std::uint64_t i) {
    return static_cast<std::uint32_t>(std::min<std::uint64_t>(tile, total - i * tile));
}

Operand onchip(Dtype t, std::uint32_t addr, std::uint32_t elems) {
    Operand o;
    o.kind = Operand::Kind::onchip;
    o.dtype = t;
    o.dims = 1;
    o.addr = addr;
    o.steps = {1, 0, 0};
    o.sizes = {elems, 0, 0};
    return o;
}

Operand hbm() {
    Operand o;
    o.kind = Operand::Kind::hbm;
    return o;
}

void add_wait(Record& r, std::uint32_t sem, std::uint64_t value) {
    if (value == 0) return;  // a count of 0 is always reached: no wait needed
    r.waits[r.num_waits++] = SemWait{static_cast<std::uint16_t>(sem), static_cast<std::uint32_t>(value)};
}

void add_signal(Record& r, std::uint32_t sem) {
    r.signals[r.num_signals++] = static_cast<std::uint16_t>(sem);
}

// First partition and quadrant mask of a tile of `count` partitions placed in `quadrant`, following
// the start-partition rule (PUBLIC_FACTS "Start partitions") and the row_grp/col_grp table of
// seed 000 §5.2: >64 partitions start at 0 (0xf); 33-64 at 0 (0x3) or 64 (0xc); ≤32 in any
// quadrant (0x1, 0x2, 0x4, 0x8).
struct Placement {
    std::uint32_t partition = 0;
    std::uint8_t group = 0xf;
};
Placement place(std::uint32_t count, std::uint32_t quadrant) {
    if (count > 64) return {0, 0xf};
    if (count > 32) return quadrant >= 2 ? Placement{64, 0xc} : Placement{0, 0x3};
    return {32 * quadrant, static_cast<std::uint8_t>(1u << quadrant)};
}

bool matmul_input(Dtype t) {
    switch (t) {
        case Dtype::fp32:
        case Dtype::fp16:
        case Dtype::bf16:
        case Dtype::fp8e3:
        case Dtype::fp8e4:
        case Dtype::fp8e5:
            return true;
        default:
            return false;
    }
}

}  // namespace

// Where a loaded slice sits and the signal its consumer waits for. Outside the anonymous
// namespace: GemmEmitter::State, a member of a named class, holds it.
namespace gemm_emit {
struct LoadRef {
    std::uint32_t queue = 0;   // the semaphore it signals (dma_semaphore())
    std::uint64_t count = 0;   // that semaphore's value once the load completed
    std::uint32_t offset = 0;  // slot byte offset in the partition
};
}  // namespace gemm_emit

namespace {

using gemm_emit::LoadRef;

// One GEMM's tiling and the loads written ahead of the PE (GemmEmitter::State::run). Steps run
// over n-blocks, m-blocks inside them, k-tiles innermost: step s = (nb * MBLK + mb) * KT + kt.
struct GemmPass {
    explicit GemmPass(const GemmShape& s) : shape(s) {}
    const GemmShape& shape;
    std::uint64_t MT = 0, NT = 0, KT = 0, NBLK = 0, MBLK = 0, steps = 0;
    bool resident = false;      // stationary slices kept for every m-block of an n-block
    std::uint64_t pe_base = 0;  // S_PE value when this GEMM starts
    std::vector<LoadRef> moving, stationary;
    std::vector<bool> stationary_fresh;  // loaded, not yet waited for
};

// The tiles of one k-step.
struct KStep {
    std::uint64_t nb = 0, mb = 0, kt = 0;
    std::uint32_t rows = 0;          // K rows of this k-tile
    Placement pr;                    // where those rows sit
    std::uint64_t nt0 = 0, mt0 = 0;  // the block's first n / m tile
    std::uint64_t nbc = 0, mbc = 0;  // n / m tiles in the block
};

}  // namespace

void GemmStats::add(const GemmStats& o) {
    tile_m = o.tile_m;
    tile_n = o.tile_n;
    tile_k = o.tile_k;
    block_m = o.block_m;
    block_n = o.block_n;
    m_tiles += o.m_tiles;
    n_tiles += o.n_tiles;
    k_tiles += o.k_tiles;
    residency.insert(residency.end(), o.residency.begin(), o.residency.end());
    matmuls += o.matmuls;
    ldweights += o.ldweights;
    psum_groups += o.psum_groups;
    act += o.act;
    dve += o.dve;
    dma_loads += o.dma_loads;
    dma_stores += o.dma_stores;
    stationary_bytes += o.stationary_bytes;
    moving_bytes += o.moving_bytes;
    store_bytes += o.store_bytes;
    round_trip_bytes += o.round_trip_bytes;
    if (queue_bytes.size() < o.queue_bytes.size()) {
        queue_bytes.resize(o.queue_bytes.size());
        queue_descriptors.resize(o.queue_descriptors.size());
    }
    for (std::size_t q = 0; q < o.queue_bytes.size(); ++q) {
        queue_bytes[q] += o.queue_bytes[q];
        queue_descriptors[q] += o.queue_descriptors[q];
    }
    pe_cycles += o.pe_cycles;
    records += o.records;
}

// ---- emitter state --------------------------------------------------------------------------------

struct GemmEmitter::State {
    Params params;
    AddressMap map;
    RecordSink& sink;
    GemmOptions opt;
    GemmLayout layout;
    GemmStats totals;

    std::uint32_t tile_m = 0, tile_n = 0, tile_k = 0;
    std::uint32_t tile_banks = 1;  // PSUM banks one result tile spans (1 below mariana)
    std::uint8_t zero_region = 0;  // log2(tile_banks): SIZE2048.. (seed 000 §5.3)
    std::uint32_t psum_slots = 0;  // result tiles in the PSUM rotation
    Dtype out_dtype = Dtype::bf16;
    std::uint32_t ds = 2, out_ds = 2;

    // Semaphore ids: 0..Q-1 DMA queue q, then PE k-step, matmul END, ACT, DVE.
    std::uint32_t queues = 1, sem_pe = 0, sem_end = 0, sem_act = 0, sem_dve = 0;
    std::vector<std::string> queue_names;

    // Signals written so far per semaphore (= the value a wait for the latest one needs).
    std::vector<std::uint64_t> dma_count;
    // A queue's transfers complete in order only on each DMA engine (docs/trace-format.md,
    // "Completion order"), so the n-th signal of one semaphore is the n-th transfer only among
    // transfers on the same engines: a queue signals semaphore q for the engines of its first
    // transfer, and one more (from Q + 4 on) per other set of engines.
    CompletionRules rules{params};
    std::vector<std::vector<std::pair<std::uint64_t, std::uint32_t>>>
        dma_sems;  // per queue: (engines, semaphore)
    std::uint32_t next_sem = 0;
    std::uint32_t dma_semaphore(std::uint32_t q, const Record& r);
    std::uint64_t pe_steps = 0, groups = 0, dve_count = 0;
    // Round robin over the queues, per role. The roles start on different queues (moving at Q/2,
    // stores at Q/4) so that the two loads of one k-step and a store do not queue on one engine.
    std::uint64_t st_rr = 0, mv_rr = 0, store_rr = 0;
    std::vector<LoadRef> out_store;  // per result slot: the store that last read it (count 0 = none)

    GemmStats cur;  // the GEMM being written
    Record rec;

    // Source sites (trace.h `loc=`) of the GEMM being written: "<name>:<step>[indices]", the name
    // the GEMM's (or "gemm"). Each record names the step of the loop nest above that wrote it.
    enum Step : std::uint8_t {
        load_B,
        load_A,
        ldweights,
        matmul,
        row_max,
        evacuate,
        row_sum,
        store_C,
        kSteps
    };
    std::array<std::string, kSteps> sites;
    std::uint64_t at_m = 0, at_n = 0;  // the output tile evacuate_group() writes
    void name_sites(const std::string& gemm);
    void locate(Record& r, Step step, std::initializer_list<std::uint64_t> indices) const {
        r.site = sites[step];
        r.num_indices = 0;
        for (std::uint64_t v : indices)
            r.indices[r.num_indices++] = static_cast<std::uint32_t>(std::min<std::uint64_t>(v, 0xffffffffu));
    }

    State(const Params& p, RecordSink& s, const GemmOptions& o) : params(p), map(p), sink(s), opt(o) {}

    void fail(const std::string& msg) const { throw WorkloadError(msg); }
    void validate_options(const GemmShape& bounds);
    void plan_layout(std::uint64_t max_k);

    Record& begin(RecordKind kind, std::string_view queue) {
        rec.clear();
        rec.kind = kind;
        rec.queue = queue;
        return rec;
    }
    void emit() {
        sink.write(rec);
        ++cur.records;
    }

    std::uint32_t sbuf(std::uint32_t partition, std::uint32_t off) const {
        return map.sbuf_addr(partition, off);
    }

    LoadRef load(std::uint64_t& rr, std::uint32_t rows, std::uint32_t partition, std::uint32_t offset,
                 std::uint32_t elems, std::uint64_t wait_pe, std::uint64_t& role_bytes);
    // The load's location, set by write_loads() before each load().
    Step load_step = load_A;
    std::uint64_t load_block = 0, load_kt = 0;
    void store(std::uint32_t rows, std::uint32_t addr, std::uint32_t elems, std::uint32_t slot,
               std::uint32_t after_sem, std::uint64_t after_count);
    GemmStats run(const GemmShape& shape, Epilogue epi);

    // The steps of run(), in order.
    GemmPass plan_pass(const GemmShape& shape);
    std::string not_resident_because(const GemmPass& p, const GemmShape& shape) const;
    KStep kstep(const GemmPass& p, std::uint64_t s) const;
    std::uint64_t ring_free(const GemmPass& p, std::uint64_t s) const;
    void write_loads(GemmPass& p, std::uint64_t s);
    void emit_matmuls(GemmPass& p, const KStep& k, std::uint64_t s, std::uint64_t block_groups);
    void evacuate_block(const GemmPass& p, const KStep& k, Epilogue epi, std::uint64_t block_groups);
    void evacuate_group(std::uint32_t cols, const Placement& pc, std::uint32_t m_elems, std::uint64_t g,
                        Epilogue epi);
};

void GemmEmitter::State::validate_options(const GemmShape& bounds) {
    const Params& p = params;
    auto check_psum_rotation = [&](const Params& pp, std::uint32_t bufs) {
        // One mistake at a time, with the bound it breaks (seed 000 §4: the PSUM banks; §5.5: a
        // result tile of several banks starts on a multiple of its size).
        const std::uint32_t first = opt.psum_first_bank, banks = pp.psum.banks;
        const std::string tile = "a result tile of --tile-m " + std::to_string(tile_m) + " spans " +
                                 std::to_string(tile_banks) + " PSUM bank(s)";
        if (first >= banks)
            fail("--psum-first-bank " + std::to_string(first) + ": " + pp.generation + " has " +
                 std::to_string(banks) + " PSUM banks, 0.." + std::to_string(banks - 1) + " (seed 000 §4)");
        if (first % tile_banks != 0)
            fail("--psum-first-bank " + std::to_string(first) + ": " + tile +
                 ", so the rotation starts on a multiple of " + std::to_string(tile_banks) +
                 " (seed 000 §5.5)");
        if (bufs < tile_banks)
            fail("--psum-bufs " + std::to_string(bufs) + ": " + tile + "; give at least " +
                 std::to_string(tile_banks));
        if (first + bufs > banks)
            fail("--psum-bufs " + std::to_string(bufs) + " from bank " + std::to_string(first) +
                 " runs past the " + std::to_string(banks) + " PSUM banks: give at most " +
                 std::to_string(banks - first) + " (seed 000 §4)");
    };
    if (!p.has_psum())
        fail("generation " + p.generation +
             " has no PSUM (psum.region_size = 0, seed 000 §1): a GEMM cannot accumulate");
    if (!matmul_input(opt.dtype))
        fail("--dtype " + std::string(to_string(opt.dtype)) +
             ": the matmul input is fp32, fp16, bf16 or fp8 (in_dtype, seed 000 §5)");
    ds = dtype_size(opt.dtype);
    // fp8 results are evacuated as bf16; 2- and 4-byte inputs keep their dtype.
    out_dtype = ds == 1 ? Dtype::bf16 : opt.dtype;
    out_ds = dtype_size(out_dtype);

    tile_k = p.pe.rows;
    tile_n = p.pe.cols;
    const std::uint32_t bank_fp32 = static_cast<std::uint32_t>(p.psum.bank_size / 4);
    tile_m = opt.tile_m ? opt.tile_m : bank_fp32;
    tile_banks = std::bit_ceil(static_cast<std::uint32_t>(ceil_div(tile_m, bank_fp32)));
    zero_region = static_cast<std::uint8_t>(std::countr_zero(tile_banks));
    if (zero_region > p.isa.matmul_zero_region_max)
        fail("--tile-m " + std::to_string(tile_m) + ": a result tile of " + std::to_string(tile_banks) +
             " PSUM banks needs MATMUL_ZERO_REGION " + std::to_string(zero_region) + ", but " + p.generation +
             " only has up to " + std::to_string(p.isa.matmul_zero_region_max) + " (one " +
             std::to_string(p.psum.bank_size) + "-byte bank = " + std::to_string(bank_fp32) +
             " fp32; seed 000 §5.3, PUBLIC_FACTS \"Matmul\")");
    // By default the rotation takes every bank from the first one on: 8 on NC-v2/v3, 4 on NC-v1.
    const std::uint32_t psum_bufs =
        opt.psum_bufs ? opt.psum_bufs : p.psum.banks - std::min(opt.psum_first_bank, p.psum.banks);
    check_psum_rotation(p, psum_bufs);
    psum_slots = psum_bufs / tile_banks;
    if (opt.block_n == 0 || opt.block_m == 0) fail("--block-n and --block-m must be at least 1");
    // A block is at most the tiles a GEMM has: the rest of a wider one would stay empty, yet size
    // the PSUM rotation's check and the SBUF slots (plan_layout).
    const GemmOptions asked = opt;
    opt.block_m = static_cast<std::uint32_t>(
        std::min<std::uint64_t>(opt.block_m, std::max<std::uint64_t>(1, ceil_div(bounds.m, tile_m))));
    opt.block_n = static_cast<std::uint32_t>(
        std::min<std::uint64_t>(opt.block_n, std::max<std::uint64_t>(1, ceil_div(bounds.n, tile_n))));
    const auto block_arg = [](const char* name, std::uint32_t given, std::uint32_t used, const char* axis) {
        std::string s = std::string("--") + name + " " + std::to_string(given);
        if (used != given)
            s += " (" + std::to_string(used) + ": the GEMMs have at most " + std::to_string(used) + " " +
                 axis + ")";
        return s;
    };
    if (std::uint64_t{opt.block_n} * opt.block_m > psum_slots) {
        // The largest block that fits, keeping --block-m where it can.
        const std::uint32_t m_fit = std::min<std::uint32_t>(opt.block_m, psum_slots);
        const std::uint32_t n_fit = std::max<std::uint32_t>(1, psum_slots / m_fit);
        fail(
            block_arg("block-n", asked.block_n, opt.block_n, "n-tiles") + " x " +
            block_arg("block-m", asked.block_m, opt.block_m, "m-tiles") +
            ": every output tile of a block accumulates at the same time, each in its own PSUM slot, and the "
            "rotation holds " +
            std::to_string(psum_slots) + ": " + std::to_string(psum_bufs) + " banks (" +
            (opt.psum_bufs ? "--psum-bufs" : "every bank from --psum-first-bank on") + ") of " +
            std::to_string(tile_banks) + " bank(s) per result tile (--tile-m " + std::to_string(tile_m) +
            "); give --block-n " + std::to_string(n_fit) + " --block-m " + std::to_string(m_fit) +
            // A result tile of one bank is the least a group takes: a smaller --tile-m frees none.
            (tile_banks > 1 ? ", or a smaller --tile-m" : "") + " (at most " +
            std::to_string(p.arr_seq.max_groups) + " accumulation groups)");
    }
    if (opt.bufs == 0 || opt.out_bufs == 0) fail("--bufs and --out-bufs must be at least 1");
    const std::uint32_t max_queues = std::min<std::uint32_t>(64, p.isa.num_semaphores - 4);
    if (opt.dma_queues == 0 || opt.dma_queues > max_queues)
        fail("--dma-queues " + std::to_string(opt.dma_queues) + ": 1.." + std::to_string(max_queues) +
             " (one semaphore per queue plus 4 of isa.num_semaphores)");
    if (opt.row_quadrant > 3) fail("--row-quadrant must be 0..3");
    if (opt.psum_quadrant > 2)
        fail("--psum-quadrant " + std::to_string(opt.psum_quadrant) +
             ": use 0..2; PSUM quadrant 3 alone (col_grp 0x8) has no valid xbus_sel, a hardware limit, so "
             "n-tiles of 32 columns or fewer go to quadrants 0-2");

    queues = opt.dma_queues;
    sem_pe = queues;
    sem_end = queues + 1;
    sem_act = queues + 2;
    sem_dve = queues + 3;
    for (std::uint32_t q = 0; q < queues; ++q) queue_names.push_back("qSyncIO" + std::to_string(q));
    dma_count.assign(p.isa.num_semaphores, 0);
    dma_sems.assign(queues, {});
    next_sem = queues + 4;
    mv_rr = queues / 2;
    store_rr = queues / 4;
    out_store.assign(opt.out_bufs, LoadRef{});
}

// Stationary ring, moving ring, result slots and softmax statistics, packed from sbuf_base unless
// an offset is given. Slots are shape-independent so that GEMMs of one trace share them.
void GemmEmitter::State::plan_layout(std::uint64_t max_k) {
    GemmLayout& l = layout;
    l.stationary_slot = align_up(std::uint64_t{opt.block_n} * tile_n * ds);
    l.moving_slot = align_up(std::uint64_t{opt.block_m} * tile_m * ds);
    l.out_slot = align_up(std::uint64_t{tile_m} * out_ds);
    l.moving_slots = opt.bufs;
    l.out_slots = opt.out_bufs;
    const std::uint64_t active = params.sbuf.partition_active;
    const std::uint64_t k_tiles = ceil_div(std::max<std::uint64_t>(max_k, 1), tile_k);
    const std::uint64_t rest = std::uint64_t{l.moving_slot} * l.moving_slots +
                               std::uint64_t{l.out_slot} * l.out_slots + 8ull * l.out_slots +
                               opt.sbuf_base.value_or(0);
    // Resident stationary: two n-blocks' k-slices (the current one and the prefetched next one).
    const std::uint64_t resident_slots = std::max<std::uint64_t>(opt.bufs, 2 * k_tiles);
    const bool fits = resident_slots * l.stationary_slot + rest <= active;
    if (opt.stationary == Residency::on && !fits)
        fail("--stationary resident: 2 x " + std::to_string(k_tiles) + " k-slices of " +
             std::to_string(l.stationary_slot) + " B do not fit the " + std::to_string(active) +
             " B of an SBUF partition next to the other buffers (on " + params.generation +
             " a partition holds " + std::to_string(active) +
             " B); use --stationary auto or stream, or a smaller --block-n (seed 000 §1)");
    l.stationary_slots =
        static_cast<std::uint32_t>(opt.stationary != Residency::off && fits ? resident_slots : opt.bufs);

    std::uint64_t cursor = opt.sbuf_base.value_or(0);
    auto region = [&](const std::optional<std::uint32_t>& given, std::uint64_t bytes) {
        const std::uint64_t start = given ? *given : align_up(cursor);
        cursor = start + bytes;
        return static_cast<std::uint32_t>(start);
    };
    l.stationary_offset =
        region(opt.stationary_offset, std::uint64_t{l.stationary_slot} * l.stationary_slots);
    l.moving_offset = region(opt.moving_offset, std::uint64_t{l.moving_slot} * l.moving_slots);
    l.out_offset = region(opt.out_offset, std::uint64_t{l.out_slot} * l.out_slots);
    l.stats_offset = region(std::nullopt, 8ull * l.out_slots);
    struct Span {
        const char* name;
        std::uint64_t lo, hi;
    };
    const Span spans[] = {
        {"stationary", l.stationary_offset,
         l.stationary_offset + std::uint64_t{l.stationary_slot} * l.stationary_slots},
        {"moving", l.moving_offset, l.moving_offset + std::uint64_t{l.moving_slot} * l.moving_slots},
        {"out", l.out_offset, l.out_offset + std::uint64_t{l.out_slot} * l.out_slots},
        {"stats", l.stats_offset, l.stats_offset + 8ull * l.out_slots},
    };
    std::uint64_t end = 0;
    for (const Span& a : spans) {
        if (a.lo % dtype_size(Dtype::fp32) != 0)
            fail(std::string("--") + a.name + "-offset " + std::to_string(a.lo) +
                 " is not 4-byte aligned (seed 000 §1.1)");
        if (a.hi > active)
            fail(std::string("the ") + a.name + " buffers [" + std::to_string(a.lo) + ", " +
                 std::to_string(a.hi) + ") do not fit an SBUF partition: on " + params.generation +
                 " it holds " + std::to_string(active) +
                 " B; lower --bufs/--out-bufs/--block-n/--block-m or the offsets (seed 000 §1)");
        for (const Span& b : spans)
            if (&a < &b && a.lo < b.hi && b.lo < a.hi)
                fail(std::string("the ") + a.name + " and " + b.name + " buffers overlap: [" +
                     std::to_string(a.lo) + ", " + std::to_string(a.hi) + ") and [" + std::to_string(b.lo) +
                     ", " + std::to_string(b.hi) + ")");
        end = std::max(end, a.hi);
    }
    l.end = static_cast<std::uint32_t>(end);
}

// One HBM → SBUF DMA of `rows` partitions × `elems` elements; waits until the PE finished the
// k-step `wait_pe` (the slot's previous occupant was consumed: the buffer-reuse back-edge).
LoadRef GemmEmitter::State::load(std::uint64_t& rr, std::uint32_t rows, std::uint32_t partition,
                                 std::uint32_t offset, std::uint32_t elems, std::uint64_t wait_pe,
                                 std::uint64_t& role_bytes) {
    const std::uint32_t q = static_cast<std::uint32_t>(rr++ % queues);
    Record& r = begin(RecordKind::dma, queue_names[q]);
    r.src = hbm();
    r.dst = onchip(opt.dtype, sbuf(partition, offset), elems);
    r.partitions = static_cast<std::uint16_t>(rows);
    r.bytes = elems * ds;
    add_wait(r, sem_pe, wait_pe);
    const std::uint32_t sem = dma_semaphore(q, r);
    add_signal(r, sem);
    locate(r, load_step, {load_block, load_kt});
    emit();
    const std::uint64_t bytes = std::uint64_t{rows} * r.bytes;
    role_bytes += bytes;
    cur.queue_bytes[q] += bytes;
    ++cur.queue_descriptors[q];
    ++cur.dma_loads;
    return LoadRef{sem, ++dma_count[sem], offset};
}

// The result slot → HBM DMA, after the last instruction that reads or writes the slot before it
// (`after_sem` >= `after_count`): the next tile in the slot waits for this store, so every reader
// of the slot must be ordered before it.
void GemmEmitter::State::store(std::uint32_t rows, std::uint32_t addr, std::uint32_t elems,
                               std::uint32_t slot, std::uint32_t after_sem, std::uint64_t after_count) {
    const std::uint32_t q = static_cast<std::uint32_t>(store_rr++ % queues);
    Record& r = begin(RecordKind::dma, queue_names[q]);
    r.src = onchip(out_dtype, addr, elems);
    r.dst = hbm();
    r.partitions = static_cast<std::uint16_t>(rows);
    r.bytes = elems * out_ds;
    add_wait(r, after_sem, after_count);
    const std::uint32_t sem = dma_semaphore(q, r);
    add_signal(r, sem);
    locate(r, store_C, {at_m, at_n});
    emit();
    const std::uint64_t bytes = std::uint64_t{rows} * r.bytes;
    cur.store_bytes += bytes;
    cur.queue_bytes[q] += bytes;
    ++cur.queue_descriptors[q];
    ++cur.dma_stores;
    out_store[slot] = LoadRef{sem, ++dma_count[sem], 0};
}

std::uint32_t GemmEmitter::State::dma_semaphore(std::uint32_t q, const Record& r) {
    const std::uint64_t engines = rules.shape(r).mask;
    auto& sems = dma_sems[q];
    for (const auto& [mask, sem] : sems)
        if (mask == engines) return sem;
    if (sems.empty()) {
        sems.emplace_back(engines, q);
        return q;
    }
    if (next_sem >= params.isa.num_semaphores)
        fail(
            "the DMA queues' transfers run on more sets of DMA engines than there are semaphores for (one "
            "per "
            "queue and set, isa.num_semaphores = " +
            std::to_string(params.isa.num_semaphores) + "); give fewer --dma-queues");
    sems.emplace_back(engines, next_sem);
    return next_sem++;
}

// Why a stationary that several m-blocks reuse cannot stay resident, and the fix.
std::string GemmEmitter::State::not_resident_because(const GemmPass& p, const GemmShape& shape) const {
    if (2 * p.KT > layout.stationary_slots)
        return "K = " + std::to_string(shape.k) + (shape.name.empty() ? "" : " of " + shape.name) +
               " needs " + std::to_string(2 * p.KT) + " stationary slots, the layout has " +
               std::to_string(layout.stationary_slots) +
               " (two n-blocks' k-slices do not fit an SBUF partition beside the other buffers)";
    return "--bufs " + std::to_string(opt.bufs) + " loads further ahead than the " +
           std::to_string(p.MBLK * p.KT) + " k-steps of an n-block (" + std::to_string(p.MBLK) +
           " m-blocks x " + std::to_string(p.KT) + (p.KT == 1 ? " k-tile" : " k-tiles") +
           (shape.name.empty() ? "" : " of " + shape.name) +
           "), past the next n-block's stationary; use --bufs " + std::to_string(p.MBLK * p.KT) +
           " or fewer, or a smaller --block-m";
}

// The GEMM's tiling, checked: tile counts, blocks, whether the stationary slices stay resident.
GemmPass GemmEmitter::State::plan_pass(const GemmShape& shape) {
    if (shape.m == 0 || shape.n == 0 || shape.k == 0)
        fail("GEMM " + (shape.name.empty() ? std::string("shape") : shape.name) + " " +
             std::to_string(shape.m) + "x" + std::to_string(shape.n) + "x" + std::to_string(shape.k) +
             ": M, N and K must be at least 1");
    cur = GemmStats{};
    name_sites(shape.name);
    cur.queue_bytes.assign(queues, 0);
    cur.queue_descriptors.assign(queues, 0);
    cur.tile_m = tile_m;
    cur.tile_n = tile_n;
    cur.tile_k = tile_k;
    cur.block_m = opt.block_m;
    cur.block_n = opt.block_n;
    GemmPass p(shape);
    p.MT = ceil_div(shape.m, tile_m);
    p.NT = ceil_div(shape.n, tile_n);
    p.KT = ceil_div(shape.k, tile_k);
    cur.m_tiles = p.MT;
    cur.n_tiles = p.NT;
    cur.k_tiles = p.KT;
    p.NBLK = ceil_div(p.NT, opt.block_n);
    p.MBLK = ceil_div(p.MT, opt.block_m);
    // Resident stationary only pays when several m-blocks reuse it, and needs two n-blocks' slices.
    // (bufs <= MBLK·KT: the loads written ahead never reach two n-blocks further on.)
    const bool worth_keeping = opt.stationary != Residency::off && p.MBLK > 1;
    p.resident = worth_keeping && 2 * p.KT <= layout.stationary_slots && opt.bufs <= p.MBLK * p.KT;
    const std::string why = worth_keeping && !p.resident ? not_resident_because(p, shape) : std::string();
    if (opt.stationary == Residency::on && !why.empty()) fail("--stationary resident: " + why);
    cur.residency = {{shape.name, p.resident, why}};
    p.steps = p.NBLK * p.MBLK * p.KT;
    p.pe_base = pe_steps;
    p.moving.resize(opt.bufs);
    p.stationary.resize(p.resident ? 2 * p.KT : opt.bufs);
    p.stationary_fresh.assign(p.stationary.size(), false);
    return p;
}

KStep GemmEmitter::State::kstep(const GemmPass& p, std::uint64_t s) const {
    KStep k;
    k.nb = s / (p.MBLK * p.KT);
    k.mb = (s / p.KT) % p.MBLK;
    k.kt = s % p.KT;
    k.rows = extent(p.shape.k, tile_k, k.kt);
    k.pr = place(k.rows, opt.row_quadrant);
    k.nt0 = k.nb * opt.block_n;
    k.mt0 = k.mb * opt.block_m;
    k.nbc = std::min<std::uint64_t>(opt.block_n, p.NT - k.nt0);
    k.mbc = std::min<std::uint64_t>(opt.block_m, p.MT - k.mt0);
    return k;
}

// S_PE value that frees the ring slot step s overwrites: the k-step `bufs` earlier, or, when
// that belonged to an earlier GEMM of the trace, all of that GEMM.
std::uint64_t GemmEmitter::State::ring_free(const GemmPass& p, std::uint64_t s) const {
    return s >= opt.bufs ? p.pe_base + (s - opt.bufs) + 1 : p.pe_base;
}

// The DMA loads step s reads: its moving slice, and its stationary slice unless a resident one
// is reused.
void GemmEmitter::State::write_loads(GemmPass& p, std::uint64_t s) {
    const KStep k = kstep(p, s);
    const std::uint32_t bufs = opt.bufs;
    const std::uint64_t n_lo = k.nb * opt.block_n * tile_n, m_lo = k.mb * opt.block_m * tile_m;
    const std::uint32_t n_width = static_cast<std::uint32_t>(
        std::min<std::uint64_t>(opt.block_n * std::uint64_t{tile_n}, p.shape.n - n_lo));
    const std::uint32_t m_width = static_cast<std::uint32_t>(
        std::min<std::uint64_t>(opt.block_m * std::uint64_t{tile_m}, p.shape.m - m_lo));
    if (!p.resident || k.mb == 0) {
        std::size_t pos;
        std::uint64_t wait;
        if (p.resident) {
            pos = (k.nb % 2) * p.KT + k.kt;
            // The slot's previous slice served n-block nb - 2; its last reader is that block's
            // last m-block at this k-tile.
            wait = k.nb >= 2 ? p.pe_base + ((k.nb - 2) * p.MBLK + p.MBLK - 1) * p.KT + k.kt + 1 : p.pe_base;
        } else {
            pos = s % bufs;
            wait = ring_free(p, s);
        }
        const std::uint32_t off =
            layout.stationary_offset + static_cast<std::uint32_t>(pos) * layout.stationary_slot;
        load_step = load_B, load_block = k.nb, load_kt = k.kt;
        p.stationary[pos] = load(st_rr, k.rows, k.pr.partition, off, n_width, wait, cur.stationary_bytes);
        p.stationary_fresh[pos] = true;
    }
    const std::uint32_t off =
        layout.moving_offset + static_cast<std::uint32_t>(s % bufs) * layout.moving_slot;
    load_step = load_A, load_block = k.mb, load_kt = k.kt;
    p.moving[s % bufs] = load(mv_rr, k.rows, k.pr.partition, off, m_width, ring_free(p, s), cur.moving_bytes);
}

// Step s on the PE: per n-tile of the block one LoadStationary, then one matmul per m-tile.
void GemmEmitter::State::emit_matmuls(GemmPass& p, const KStep& k, std::uint64_t s,
                                      std::uint64_t block_groups) {
    const bool fp32 = ds == 4;
    const std::uint64_t KT = p.KT, kt = k.kt;
    const std::size_t spos = p.resident ? (k.nb % 2) * KT + kt : s % opt.bufs;
    const LoadRef& st = p.stationary[spos];
    const LoadRef& mv = p.moving[s % opt.bufs];
    const std::uint8_t flags = KT == 1 ? 3 : kt == 0 ? 1 : kt == KT - 1 ? 2 : 0;  // seed 000 §5.4
    for (std::uint64_t j = 0; j < k.nbc; ++j) {
        const std::uint32_t cols = extent(p.shape.n, tile_n, k.nt0 + j);
        const Placement pc = place(cols, opt.psum_quadrant);
        Record& lw = begin(RecordKind::ldweights, kPeQueue);
        lw.src = onchip(opt.dtype,
                        sbuf(k.pr.partition, st.offset + static_cast<std::uint32_t>(j) * tile_n * ds), cols);
        lw.rows = static_cast<std::uint16_t>(k.rows);
        lw.cols = static_cast<std::uint16_t>(cols);
        if (j == 0 && p.stationary_fresh[spos]) add_wait(lw, st.queue, st.count);
        locate(lw, ldweights, {k.nt0 + j, kt});
        emit();
        ++cur.ldweights;
        for (std::uint64_t i = 0; i < k.mbc; ++i) {
            const std::uint32_t m_elems = extent(p.shape.m, tile_m, k.mt0 + i);
            const std::uint64_t g = block_groups + j * k.mbc + i;
            const std::uint32_t bank =
                opt.psum_first_bank + static_cast<std::uint32_t>(g % psum_slots) * tile_banks;
            Record& mm = begin(RecordKind::matmul, kPeQueue);
            mm.src = onchip(opt.dtype,
                            sbuf(k.pr.partition, mv.offset + static_cast<std::uint32_t>(i) * tile_m * ds),
                            m_elems);
            mm.dst =
                onchip(Dtype::fp32,
                       map.psum_addr(pc.partition, static_cast<std::uint32_t>(bank * params.psum.bank_size)),
                       m_elems);
            mm.num_active_rows = static_cast<std::uint8_t>(k.rows);
            mm.num_active_cols = static_cast<std::uint8_t>(cols);
            mm.row_grp = k.pr.group;
            mm.col_grp = pc.group;
            mm.xbus_sel = static_cast<std::uint8_t>(mm_xbus_sel_for(pc.group).value_or(0));
            mm.acc_flags = flags;
            mm.zero_region = zero_region;
            if (j == 0 && i == 0) add_wait(mm, mv.queue, mv.count);
            // BEGIN reuses a PSUM bank: the group that held it must have been evacuated.
            if (kt == 0 && g >= psum_slots) add_wait(mm, sem_act, g - psum_slots + 1);
            if (kt == KT - 1) add_signal(mm, sem_end);
            if (j + 1 == k.nbc && i + 1 == k.mbc) add_signal(mm, sem_pe);  // the k-step's last reader
            locate(mm, matmul, {k.mt0 + i, k.nt0 + j, kt});
            emit();
            ++cur.matmuls;
            // The replay's initiation interval (nki.isa nc_matmul cost, docs/engines.md): the
            // floor is min(64, the stationary's columns), so a narrow n-tile streams faster.
            const std::uint64_t floor = std::min<std::uint64_t>(params.timing.matmul_min_ii, cols);
            cur.pe_cycles +=
                std::max<std::uint64_t>(m_elems, floor) * (fp32 ? params.timing.matmul_fp32_factor : 1);
        }
    }
    p.stationary_fresh[spos] = false;
}

// The block's groups all ended in its last k-step: evacuate and store them, in END order.
void GemmEmitter::State::evacuate_block(const GemmPass& p, const KStep& k, Epilogue epi,
                                        std::uint64_t block_groups) {
    for (std::uint64_t j = 0; j < k.nbc; ++j) {
        const std::uint32_t cols = extent(p.shape.n, tile_n, k.nt0 + j);
        const Placement pc = place(cols, opt.psum_quadrant);
        for (std::uint64_t i = 0; i < k.mbc; ++i) {
            at_m = k.mt0 + i;
            at_n = k.nt0 + j;
            evacuate_group(cols, pc, extent(p.shape.m, tile_m, k.mt0 + i), block_groups + j * k.mbc + i, epi);
        }
    }
}

// PSUM group g → its SBUF result slot (ACT; with softmax a DVE row max before and a row sum
// after), then the slot → HBM.
void GemmEmitter::State::evacuate_group(std::uint32_t cols, const Placement& pc, std::uint32_t m_elems,
                                        std::uint64_t g, Epilogue epi) {
    const std::uint32_t bank = opt.psum_first_bank + static_cast<std::uint32_t>(g % psum_slots) * tile_banks;
    const std::uint32_t psum =
        map.psum_addr(pc.partition, static_cast<std::uint32_t>(bank * params.psum.bank_size));
    const std::uint32_t slot = static_cast<std::uint32_t>(g % layout.out_slots);
    const std::uint32_t out = sbuf(pc.partition, layout.out_offset + slot * layout.out_slot);
    const std::uint32_t stats = sbuf(pc.partition, layout.stats_offset + slot * 8);
    const LoadRef prev_store = out_store[slot];
    std::uint64_t act_after = 0;  // DVE count the ACT waits for (softmax)
    if (epi == Epilogue::softmax) {
        Record& mx = begin(RecordKind::dve, kDveQueue);  // row max, read from PSUM
        mx.src = onchip(Dtype::fp32, psum, m_elems);
        mx.dst = onchip(Dtype::fp32, stats, 1);
        mx.partitions = static_cast<std::uint16_t>(cols);
        mx.fn = "max";
        add_wait(mx, sem_end, g + 1);
        add_signal(mx, sem_dve);
        locate(mx, row_max, {at_m, at_n});
        emit();
        ++cur.dve;
        act_after = ++dve_count;
    }
    Record& a = begin(RecordKind::act, kActQueue);
    a.src = onchip(Dtype::fp32, psum, m_elems);
    a.dst = onchip(out_dtype, out, m_elems);
    a.partitions = static_cast<std::uint16_t>(cols);
    a.fn = epi == Epilogue::softmax ? "exp" : "copy";
    if (epi == Epilogue::softmax)
        add_wait(a, sem_dve, act_after);
    else
        add_wait(a, sem_end, g + 1);
    // The result slot's previous tile must have left for HBM.
    if (prev_store.count) add_wait(a, prev_store.queue, prev_store.count);
    add_signal(a, sem_act);
    locate(a, evacuate, {at_m, at_n});
    emit();
    ++cur.act;
    if (epi == Epilogue::softmax) {
        Record& sum = begin(RecordKind::dve, kDveQueue);  // row sum of the probabilities
        sum.src = onchip(out_dtype, out, m_elems);
        sum.dst = onchip(Dtype::fp32, stats + 4, 1);
        sum.partitions = static_cast<std::uint16_t>(cols);
        sum.fn = "sum";
        add_wait(sum, sem_act, g + 1);
        add_signal(sum, sem_dve);
        locate(sum, row_sum, {at_m, at_n});
        emit();
        ++cur.dve;
        // The row sum reads the slot too: the store goes after it.
        store(cols, out, m_elems, slot, sem_dve, ++dve_count);
        return;
    }
    store(cols, out, m_elems, slot, sem_act, g + 1);
}

// One GEMM: the loads run up to `bufs` steps ahead of the PE; each block's last k-step is
// followed by its evacuation.
GemmStats GemmEmitter::State::run(const GemmShape& shape, Epilogue epi) {
    GemmPass p = plan_pass(shape);
    std::uint64_t block_groups = groups;  // global index of the block's first group
    std::uint64_t next_load = 0;
    for (std::uint64_t s = 0; s < p.steps; ++s) {
        while (next_load < p.steps && next_load < s + opt.bufs) write_loads(p, next_load++);
        const KStep k = kstep(p, s);
        emit_matmuls(p, k, s, block_groups);
        ++pe_steps;
        if (k.kt + 1 < p.KT) continue;
        evacuate_block(p, k, epi, block_groups);
        block_groups += k.nbc * k.mbc;
    }
    cur.psum_groups = block_groups - groups;
    groups = block_groups;
    totals.add(cur);
    return cur;
}

void GemmEmitter::State::name_sites(const std::string& gemm) {
    std::string prefix = gemm.empty() ? "gemm" : gemm;
    // A layer name of a topology file may hold characters a site does not: '_' for them.
    for (char& c : prefix)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.' && c != '-') c = '_';
    if (prefix.size() > 64) prefix.resize(64);
    static constexpr std::array<const char*, kSteps> kSteps_{
        "load_B[n,k]",  "load_A[m,k]",   "ldweights[n,k]", "matmul[m,n,k]",
        "row_max[m,n]", "evacuate[m,n]", "row_sum[m,n]",   "store_C[m,n]"};
    for (std::size_t i = 0; i < kSteps; ++i) sites[i] = prefix + ":" + kSteps_[i];
}

// ---- public interface --------------------------------------------------------------------------------

GemmEmitter::GemmEmitter(const Params& params, RecordSink& sink, const GemmOptions& options,
                         const GemmShape& bounds)
    : s_(std::make_unique<State>(params, sink, options)) {
    s_->validate_options(bounds);
    s_->plan_layout(bounds.k);
    s_->totals.queue_bytes.assign(s_->queues, 0);
    s_->totals.queue_descriptors.assign(s_->queues, 0);
    s_->totals.block_m = s_->opt.block_m;
    s_->totals.block_n = s_->opt.block_n;
}

GemmEmitter::~GemmEmitter() = default;

GemmStats GemmEmitter::gemm(const GemmShape& shape) { return s_->run(shape, s_->opt.epilogue); }
GemmStats GemmEmitter::gemm(const GemmShape& shape, Epilogue epilogue) { return s_->run(shape, epilogue); }
const GemmLayout& GemmEmitter::layout() const { return s_->layout; }
const GemmStats& GemmEmitter::totals() const { return s_->totals; }

GemmShape gemm_bounds(const std::vector<GemmShape>& shapes) {
    GemmShape b;
    for (const GemmShape& s : shapes) {
        b.m = std::max(b.m, s.m);
        b.n = std::max(b.n, s.n);
        b.k = std::max(b.k, s.k);
    }
    return b;
}

GemmStats generate_gemm(const Params& params, const GemmShape& shape, const GemmOptions& options,
                        RecordSink& sink) {
    GemmEmitter emitter(params, sink, options, shape);
    return emitter.gemm(shape);
}

}  // namespace sbufsim
