// The engine front-end interface and the machinery the front-ends share.
//
// FrontEnd is what the replay driver (replay.h) or a SystemC shell drives. SerialEngine is the
// common core of the engines that run one instruction at a time (compute engines, Q7 cores, DMA
// engines): the instruction in flight, its bank requests, retirement (signals, statistics,
// timeline) and the wake-up cycle. InOrderEngine adds the single in-order queue the compute
// engines and Q7 cores have; each engine keeps only its cost model and how it starts an
// instruction. The pieces they share have their own headers: semaphores.h (the semaphore file,
// wait/signal sets), clock_domain.h, engine_stats.h, instr_event.h, request_set.h,
// tensor_access.h and types/ring.h (the in-order queue); the timing constants are Params
// (config/params.h, keys timing.*).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "sbufsim/address/address.h"
#include "sbufsim/config/params.h"
#include "sbufsim/engines/axi_traffic.h"
#include "sbufsim/engines/clock_domain.h"
#include "sbufsim/engines/critical_path.h"
#include "sbufsim/engines/engine_stats.h"
#include "sbufsim/engines/instr_event.h"
#include "sbufsim/engines/pacing.h"
#include "sbufsim/engines/request_set.h"
#include "sbufsim/engines/semaphores.h"
#include "sbufsim/engines/shared_ports.h"
#include "sbufsim/engines/site_profile.h"
#include "sbufsim/engines/tensor_access.h"
#include "sbufsim/kernel/kernel.h"
#include "sbufsim/types/ring.h"

namespace sbufsim {

// When an engine next needs a step without outside news: at cycle `at`, or as soon as the kernel
// completes a request of a client in `watch` (bit = client index). The fast scheduler runs the
// kernel up to `at` and stops it early at a watched completion (Kernel::run_until), so an engine
// waiting for its bank requests costs nothing per cycle.
struct Wake {
    Cycle at = kNever;
    std::uint64_t watch = 0;
    void merge(const Wake& o) {
        at = std::min(at, o.at);
        watch |= o.watch;
    }
    bool never() const { return at == kNever && !watch; }
};

// What a blocked queue head waits for (deadlock reports).
struct BlockedHead {
    std::uint64_t line = 0;
    std::string queue;
    std::uint16_t sem = 0;
    std::uint32_t want = 0;
    std::uint64_t have = 0;
};

// Every engine front-end, as the replay driver (replay.h) or a SystemC shell drives it. Engines
// are stepped in a fixed order at event cycles; between events the kernel runs.
class FrontEnd {
public:
    virtual ~FrontEnd() = default;
    // At cycle `now` (the kernel has simulated every cycle before it): retire instructions whose
    // time and bank requests are done (firing their signals), then start every instruction that
    // can start. Returns true when anything changed (a signal may unblock another engine).
    virtual bool step(Cycle now) = 0;
    // When this engine next needs a step() without outside news (a signal or a new
    // instruction): at a cycle, or once the kernel completes a request of a watched client.
    virtual Wake wake(Cycle now) const = 0;
    // Nothing queued and nothing in flight.
    virtual bool idle() const = 0;
    // Instructions queued and not yet started.
    virtual std::size_t queued() const = 0;
    // The head blocked on a semaphore, if any (for deadlock reports).
    virtual bool blocked(BlockedHead& out) const = 0;
    // Every queue head blocked on a semaphore (an engine with several queues has one per queue).
    virtual void blocked_heads(std::vector<BlockedHead>& out) const {
        BlockedHead b;
        if (blocked(b)) out.push_back(std::move(b));
    }
    virtual const EngineStats& stats() const = 0;
    // Engine-wide totals only the replay's end knows (e.g. busy time still open).
    virtual void finish(Cycle /*end*/) {}
};

// The wake-up of an engine that waits for its bank requests: the kernel's next completion of one
// of their clients. A set already complete (the engine retires at its next step) is due at once.
inline Wake requests_wake(Cycle now, const Kernel& k, const RequestSet& waiting) {
    const std::uint64_t watch = waiting.pending_clients(k);
    return watch ? Wake{kNever, watch} : Wake{now + 1, 0};
}

// The kernel client `name`; throws std::invalid_argument ("<who>: the kernel has no client
// <name>") when the kernel lacks it.
ClientId need_client(const Kernel& k, const std::string& name, const std::string& who);

// An engine with at most one instruction in flight. An instruction starts (begin()), issues its
// bank requests into reqs_, sets compute_end_ (its cost-model end) and retires once both that
// time has passed and its requests are done (retire()).
class SerialEngine : public FrontEnd {
public:
    const EngineStats& stats() const override { return stats_; }
    // Takes part in NC-v2's shared ports (shared_ports.h) on `side`; returns its participant id.
    std::uint8_t join_ports(SharedPorts& ports, PortSide side) {
        ports_ = &ports;
        port_id_ = ports.join(side);
        return port_id_;
    }
    // Tells `sink` the SBUF side of every instruction that retires from now on (axi_traffic.h);
    // only the AXI masters (DMA engines, Q7 cores) fill it in. Null detaches.
    void set_axi_sink(AxiTrafficSink* sink) { axi_ = sink; }

protected:
    SerialEngine(Kernel& kernel, Semaphores& sems, const EngineTiming& t, std::vector<InstrEvent>* timeline,
                 std::uint16_t index)
        : kernel_(kernel), sems_(sems), timing_(t), timeline_(timeline), index_(index) {}

    // The instruction (its sync set and trace line) starts at `now`; its requests follow.
    // `wait_delay`: the fixed time from its waits being met to its earliest start (CriticalPath::pick).
    void begin(const SyncSet& sync, std::uint64_t line, Cycle now, Cycle wait_delay = 0) {
        active_ = true;
        start_ = now;
        sync_ = sync;
        line_ = line;
        signal_at_ = 0;
        reqs_.clear();
        out_reqs_.clear();
        if (stats_.first_start == kNever) stats_.first_start = now;
        if (CriticalPath* cp = sems_.path()) {
            path_from_ =
                cp->pick({path_last_.ref, path_last_.at, CriticalPath::Edge::queue}, sync, wait_delay);
            cp->retain(path_from_.ref);
        }
    }
    // Retires the instruction in flight if its time and requests are done: statistics, then its
    // signals and timeline entry, at once or, when start() set a later signal_at_, deferred to
    // then. Returns true when it retired (start_ still holds its start cycle).
    bool retire(Cycle now);
    // Fires the deferred signals that are due; true when any fired.
    bool fire_deferred(Cycle now);
    // No instruction in flight and no signal pending.
    bool quiet() const { return !active_ && deferred_.empty(); }
    // wake() of the instruction in flight (its cost-model end, then its requests' completion)
    // and of the deferred signals.
    Wake busy_wake(Cycle now) const {
        Wake w;
        if (active_) w = now < compute_end_ ? Wake{compute_end_, 0} : requests_wake(now, kernel_, reqs_);
        for (const Deferred& d : deferred_) w.merge(now < d.at ? Wake{d.at, 0} : requests_wake(now, kernel_, d.reqs));
        return w;
    }
    // Fills `out` when the head (sync, line) of `queue` waits for an unmet semaphore.
    bool head_blocked(const SyncSet& sync, std::uint64_t line, const std::string& queue, BlockedHead& out) const;

    Kernel& kernel_;
    Semaphores& sems_;
    EngineTiming timing_;
    std::vector<InstrEvent>* timeline_;
    std::uint16_t index_;
    EngineGroup group_ = EngineGroup::dma;  // the per-site profile's busy column (set by each engine)

    // The instruction in flight. signal_at_: its signals fire no earlier than this (a compute
    // engine's dependent turnaround outlasts its initiation interval; 0 = at retirement).
    bool active_ = false;
    Cycle start_ = 0, compute_end_ = 0, signal_at_ = 0;
    RequestSet reqs_;       // gate the retirement (the engine is free once they are granted)
    RequestSet out_reqs_;   // gate only the signals (output writes draining behind the stream)
    SyncSet sync_;
    std::uint64_t line_ = 0;
    EngineStats stats_;
    // Shared ports (null: the engine takes no part); the instruction in flight holds them.
    SharedPorts* ports_ = nullptr;
    std::uint8_t port_id_ = 0;
    std::uint8_t held_ports_ = 0;  // the ports the instruction in flight took (SharedPorts::start)
    // Critical path (critical_path.h): what the instruction in flight waited for last, and the
    // path of this engine's last retired instruction.
    CriticalPath::Point path_from_, path_last_;
    // The data path (null: none) and what the instruction in flight moves through axi2sram; an
    // AXI master fills axi_flight_ at start() when axi_ is set (axi_moves_ = it has an SBUF side)
    // and retire() hands it over with the cycle the kernel granted axi_client_'s last beat.
    AxiTrafficSink* axi_ = nullptr;
    AxiTransfer axi_flight_;
    bool axi_moves_ = false;
    ClientId axi_client_{};

private:
    // Signals, critical path and timeline of an instruction retired at `retired` whose path up to
    // then is `path`; the cycles from `retired` to `now` are its drain on the path.
    void complete(const SyncSet& sync, std::uint64_t line, Cycle start, Cycle retired, CriticalPath::Ref path, Cycle now);
    // Retired instructions whose signals are not due yet (a few at most: one per initiation
    // interval within a turnaround).
    struct Deferred {
        SyncSet sync;
        RequestSet reqs;
        std::uint64_t line = 0;
        Cycle start = 0, at = 0, retired = 0;
        CriticalPath::Ref path = CriticalPath::kNone;
        std::uint8_t ports = 0;  // shared ports it holds until then (timing.shared_ports_until_signal)
    };
    std::vector<Deferred> deferred_;
};

// A SerialEngine fed by one in-order queue of `Instr` (each with `sync` and `line`): the head
// starts as soon as its waits are met and the engine is free. The engine supplies start().
template <class Instr>
class InOrderEngine : public SerialEngine {
public:
    void push(const Instr& i) { queue_.push(i); }
    void set_queue_name(std::string q) { queue_name_ = std::move(q); }

    bool step(Cycle now) override {
        bool changed = retire(now);
        changed |= fire_deferred(now);
        if (!active_ && !queue_.empty()) {
            const Instr& h = queue_.front();
            data_ready_ = sems_.ready(h.sync) ? ready_at(h) : 0;
            if (sems_.ready(h.sync) && data_ready_ <= now && ports_granted(h, now)) {
                if (blocked_since_ != kNever) {
                    stats_.sem_wait += now - blocked_since_;
                    if (SiteProfile* sp = sems_.profile())
                        sp->at(h.sync.site).sem_wait += now - blocked_since_;
                }
                blocked_since_ = kNever;
                begin(h.sync, h.line, now);
                take_ports(now);
                start(h, now);
                queue_.pop();
                changed = true;
            } else if (!sems_.ready(h.sync) && blocked_since_ == kNever) {
                blocked_since_ = now;
            }
        }
        return changed;
    }
    Wake wake(Cycle now) const override {
        Wake w = busy_wake(now);
        if (!active_ && !queue_.empty() && data_ready_ > now) w.at = std::min(w.at, data_ready_);
        // Granted by SharedPorts::resolve() at the end of this cycle: start at the next.
        if (port_since_ != kNever && ports_->granted(port_id_)) w.at = std::min(w.at, now + 1);
        return w;
    }
    bool idle() const override { return quiet() && queue_.empty(); }
    std::size_t queued() const override { return queue_.size(); }
    bool blocked(BlockedHead& out) const override {
        if (active_ || queue_.empty()) return false;
        return head_blocked(queue_.front().sync, queue_.front().line, queue_name_, out);
    }

protected:
    InOrderEngine(const std::string& name, Kernel& kernel, Semaphores& sems, const EngineTiming& t,
                  std::vector<InstrEvent>* timeline, std::uint16_t index)
        : SerialEngine(kernel, sems, t, timeline, index), queue_name_(name) {
        stats_.name = name;
    }
    // Issues the requests of `i` (begin() has run) and sets compute_end_ (and signal_at_).
    virtual void start(const Instr& i, Cycle now) = 0;
    // The earliest cycle `i` may start for its data (a same-engine read after write); 0 = any.
    virtual Cycle ready_at(const Instr& /*i*/) const { return 0; }
    // The shared ports `i` needs (SharedPorts::bit mask; only enabled ports count).
    virtual std::uint8_t ports_needed(const Instr& /*i*/) const { return 0; }

private:
    // True when the head may start as far as the shared ports go; otherwise it claims them
    // (granted at the end of the cycle, shared_ports.h).
    bool ports_granted(const Instr& h, Cycle now) {
        if (!ports_) return true;
        const std::uint8_t need = ports_needed(h) & ports_->enabled();
        if (!need) return true;
        ports_->claim(port_id_, need);
        if (ports_->granted(port_id_)) return true;
        if (port_since_ == kNever) port_since_ = now;
        return false;
    }
    void take_ports(Cycle now) {
        if (!ports_) return;
        held_ports_ = ports_->start(port_id_);
        // The cycle of arbitration every claim takes is not a wait for the other side.
        if (port_since_ != kNever) stats_.port_wait += now - port_since_ - 1;
        port_since_ = kNever;
    }

    std::string queue_name_;
    Ring<Instr> queue_;
    Cycle blocked_since_ = kNever;
    Cycle data_ready_ = 0;   // the head's ready_at() when its waits were met
    Cycle port_since_ = kNever;   // the head has claimed shared ports since then
};

}  // namespace sbufsim
