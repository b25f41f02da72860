// Engine synchronisation and the pieces every engine front-end shares: the semaphore file, the
// resolved wait/signal set of one instruction, the engine timing constants, clock-domain
// conversion, per-engine statistics and the in-order instruction queue.
//
// Semaphores (docs/trace-format.md): `wait=S[:v]` blocks an instruction's start until semaphore
// S >= v; `signal=S` adds 1 to S when the instruction completes. Values only grow, so a wait
// that is satisfied stays satisfied (the order of evaluation between engines in one cycle cannot
// change the outcome: the replay is deterministic).
//
// Plain C++: no SystemC. The engine front-end interface and the shared engine core are in
// engine.h; the engine classes (arr_seq.h, compute_engine.h, dma_engine.h, q7_core.h) keep
// their own state in their own headers; scheduling lives in replay.h, so a
// SystemC module can wrap the same classes as a thin shell.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "sbufsim/address/address.h"
#include "sbufsim/kernel/kernel.h"
#include "sbufsim/config/params.h"

namespace sbufsim {

// ---- timing constants ---------------------------------------------------------------------------

// EngineTiming (the engines' timing constants) is part of Params: params.h, keys timing.*.


// Converts engine cycles to kernel cycles. Kernel cycle = one SBUF arbitration slot, taken as one
// PE clock cycle (INFERRED: the seeds give no SBUF clock; docs/engines.md).
class ClockDomain {
public:
    ClockDomain() = default;
    ClockDomain(double engine_ghz, double kernel_ghz)
        : ratio_(engine_ghz > 0 ? kernel_ghz / engine_ghz : 1.0) {}
    // Kernel cycles covering `engine_cycles` of this clock (rounded up: an engine never finishes
    // early).
    Cycle to_kernel(double engine_cycles) const {
        return static_cast<Cycle>(std::ceil(engine_cycles * ratio_ - 1e-9));
    }
    double ratio() const { return ratio_; }

private:
    double ratio_ = 1.0;
};

// ---- semaphores ---------------------------------------------------------------------------------

inline constexpr std::uint32_t kMaxInstrWaits = 2;
inline constexpr std::uint32_t kMaxInstrSignals = 2;

// One instruction's waits (values already resolved, trace.h WaitResolver) and signals.
struct SyncSet {
    std::array<std::uint16_t, kMaxInstrWaits> wait_sem{};
    std::array<std::uint32_t, kMaxInstrWaits> wait_value{};
    std::uint8_t waits = 0;
    std::array<std::uint16_t, kMaxInstrSignals> signal_sem{};
    std::uint8_t signals = 0;
};

class Semaphores {
public:
    explicit Semaphores(std::uint32_t count = 256) : value_(count, 0), last_signal_(count, 0) {}

    std::uint32_t size() const { return static_cast<std::uint32_t>(value_.size()); }
    std::uint64_t value(std::uint16_t s) const { return value_[s]; }
    // Cycle of the latest signal on s (0 when never signalled).
    Cycle last_signal(std::uint16_t s) const { return last_signal_[s]; }

    // True when every wait of `sync` is met.
    bool ready(const SyncSet& sync) const {
        for (std::uint32_t i = 0; i < sync.waits; ++i)
            if (value_[sync.wait_sem[i]] < sync.wait_value[i]) return false;
        return true;
    }
    // The first unmet wait (index into sync), or -1.
    int first_unmet(const SyncSet& sync) const {
        for (std::uint32_t i = 0; i < sync.waits; ++i)
            if (value_[sync.wait_sem[i]] < sync.wait_value[i]) return static_cast<int>(i);
        return -1;
    }
    void signal(const SyncSet& sync, Cycle at) {
        for (std::uint32_t i = 0; i < sync.signals; ++i) {
            ++value_[sync.signal_sem[i]];
            last_signal_[sync.signal_sem[i]] = at;
        }
        ++generation_;
    }
    // Bumped by every signal: the scheduler re-examines blocked queues only when it moved.
    std::uint64_t generation() const { return generation_; }

private:
    std::vector<std::uint64_t> value_;
    std::vector<Cycle> last_signal_;
    std::uint64_t generation_ = 0;
};

// ---- per-engine statistics ------------------------------------------------------------------------

struct EngineStats {
    std::string name;                 // "arr_seq", "act", "pool", "dve", "dma_3", "q7_5"
    std::uint64_t instructions = 0;   // completed
    Cycle busy = 0;                   // kernel cycles with an instruction in progress
    Cycle sem_wait = 0;               // cycles the engine was free but its head waited a semaphore
    Cycle bank_stall = 0;             // cycles an instruction outlived its cost-model time because
                                      // its bank requests were still queued in the kernel
    std::uint64_t bytes_read = 0;     // SBUF/PSUM bytes requested (per partition x partitions)
    std::uint64_t bytes_written = 0;
    Cycle first_start = kNever;
    Cycle last_end = 0;
    bool operator==(const EngineStats&) const = default;
};

// One completed instruction, kept only when ReplayOptions::record_timeline is set.
struct InstrEvent {
    std::uint64_t line = 0;
    std::uint16_t engine = 0;     // index into ReplayResult::engines
    Cycle start = 0;              // cycle the instruction started (its waits were met)
    Cycle end = 0;                // cycle it completed (its signals fired)
};

// ---- in-order instruction queue -----------------------------------------------------------------

// A FIFO ring that only grows (by doubling, outside steady state): the engines' queues hold the
// replay's bounded look-ahead without an allocation per instruction.
template <class T>
class Ring {
public:
    Ring() : buf_(8) {}
    bool empty() const { return head_ == tail_; }
    std::size_t size() const { return static_cast<std::size_t>(tail_ - head_); }
    T& front() { return buf_[head_ & (buf_.size() - 1)]; }
    const T& front() const { return buf_[head_ & (buf_.size() - 1)]; }
    // The i-th entry from the front (i < size()).
    T& at(std::size_t i) { return buf_[(head_ + i) & (buf_.size() - 1)]; }
    void pop() { ++head_; }
    void push(const T& v) {
        if (size() == buf_.size()) grow();
        buf_[tail_ & (buf_.size() - 1)] = v;
        ++tail_;
    }

private:
    void grow() {
        std::vector<T> bigger(buf_.size() * 2);
        for (std::size_t i = 0; i < size(); ++i) bigger[i] = buf_[(head_ + i) & (buf_.size() - 1)];
        tail_ = size();
        head_ = 0;
        buf_.swap(bigger);
    }
    std::vector<T> buf_;
    std::uint64_t head_ = 0, tail_ = 0;
};

// The kernel requests one instruction is waiting for (at most one per client it used; requests of
// one client complete in order, so the last one per client is enough).
struct RequestSet {
    std::array<RequestId, 6> ids{};
    std::uint8_t n = 0;
    // Submits `r` and remembers it.
    void submit(Kernel& k, const Request& r) { add(k.submit(r)); }
    void add(RequestId id) {
        for (std::uint8_t i = 0; i < n; ++i)
            if (request_client(ids[i]) == request_client(id)) {
                ids[i] = id;
                return;
            }
        ids[n++] = id;
    }
    bool complete(const Kernel& k) const {
        for (std::uint8_t i = 0; i < n; ++i)
            if (!k.is_complete(ids[i])) return false;
        return true;
    }
    // The clients (bit = index) of the requests not complete yet.
    std::uint64_t pending_clients(const Kernel& k) const {
        std::uint64_t m = 0;
        for (std::uint8_t i = 0; i < n; ++i)
            if (!k.is_complete(ids[i])) m |= std::uint64_t{1} << index(request_client(ids[i]));
        return m;
    }
    void clear() { n = 0; }
};

// ---- operands -----------------------------------------------------------------------------------

// One on-chip tensor operand reduced to what the kernel needs: region, partition span, byte
// range inside each partition, and what the cost model needs (elements, innermost stride).
struct TensorAccess {
    Region region = Region::none;
    std::uint16_t first = 0;       // first partition
    std::uint16_t parts = 0;       // partitions
    std::uint32_t offset = 0;      // byte offset inside each partition
    std::uint32_t bytes = 0;       // bytes moved per partition (elements x dtype size, clamped)
    std::uint64_t elems = 0;       // elements per partition
    std::uint32_t elem_bytes = 4;
    bool strided = false;          // innermost stride over EngineTiming::stride_penalty_bytes
    bool contiguous = true;        // innermost step of one element (VectorE performance mode)
    bool present() const { return region != Region::none && parts != 0 && bytes != 0; }
    std::uint64_t total_bytes() const { return std::uint64_t{bytes} * parts; }
};

// The request moving `a` over `client` (op rd/wr/raw), issued at `issue`.
inline Request make_request(ClientId client, Op op, const TensorAccess& a, Cycle issue) {
    Request r;
    r.client = client;
    r.op = op;
    r.region = a.region;
    r.first_partition = a.first;
    r.partitions = a.parts;
    r.offset = a.offset;
    r.bytes = a.bytes;
    r.issue = issue;
    return r;
}

// How an instruction's operand reaches the kernel: as up to `chunks` evenly spaced bursts over
// `span` cycles from `issue`, each at least `min_bytes` per partition (one beat), so that an
// engine streams at its interface rate instead of taking every beat at once (width.stream_chunks;
// docs/engines.md "SBUF ports"). chunks <= 1 or span 0: one request.
struct Pacing {
    Cycle span = 0;
    std::uint32_t chunks = 1;
    std::uint32_t min_bytes = 1;
};

inline void submit_paced(Kernel& k, RequestSet& into, ClientId client, Op op, const TensorAccess& a, Cycle issue,
                         const Pacing& pace) {
    const std::uint32_t unit = std::max<std::uint32_t>(1, pace.min_bytes);
    const std::uint32_t most = (a.bytes + unit - 1) / unit;
    const std::uint32_t n = pace.span ? std::max<std::uint32_t>(1, std::min(pace.chunks, most)) : 1;
    const std::uint32_t chunk = (a.bytes / n + unit - 1) / unit * unit;
    TensorAccess part = a;
    for (std::uint32_t i = 0, done = 0; i < n && done < a.bytes; ++i) {
        part.offset = a.offset + done;
        part.bytes = i + 1 == n ? a.bytes - done : std::min(chunk, a.bytes - done);
        into.submit(k, make_request(client, op, part, issue + pace.span * i / n));
        done += part.bytes;
    }
}

}  // namespace sbufsim
