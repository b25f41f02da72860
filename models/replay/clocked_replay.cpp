#include "models/replay/clocked_replay.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <vector>

#include <systemc>
#include <tlm_utils/simple_initiator_socket.h>

#include "models/engines/engine_shell.h"
#include "models/replay/hierarchy.h"
#include "models/engines/queue_feed.h"
#include "models/replay/sbuf_arbiter.h"
#include "sbufsim/engines/arr_seq.h"
#include "sbufsim/engines/dma_engine.h"
#include "sbufsim/engines/q7_core.h"
#include "sbufsim/output/output_file.h"
#include "sbufsim/replay/replay_session.h"
#include "models/top/tpb.h"

namespace sbufsim::models {

namespace {

// The top of one clocked replay: clock, feed, tpb (with the PE-array sequencer), the other
// engine shells, arbiter, the host's CSR initiator and the cycle controller. The processes are
// created in the engines' order (feed, arr_seq, act, ...), as the fast scheduler steps them.
class ClockedTop : public sc_core::sc_module {
public:
    SC_HAS_PROCESS(ClockedTop);
    ClockedTop(const sc_core::sc_module_name& name, const Params& p, ReplaySession& session,
               const ActivityProbe* probe, const sc_core::sc_time& period, std::vector<CsrWrite> writes,
               bool skip_idle, bool keep_data)
        : sc_core::sc_module(name),
          period_(period),
          high_(period * 0.5),
          session_(session),
          writes_(std::move(writes)),
          skip_idle_(skip_idle) {
        SC_METHOD(drive_clock);
        std::stable_sort(writes_.begin(), writes_.end(),
                         [](const CsrWrite& a, const CsrWrite& b) { return a.cycle < b.cycle; });
        feed_ = std::make_unique<QueueFeed>("queue_feed", session_, link_);
        feed_->clk(clk_);
        SequencerBinding seq{nullptr, &session_.kernel(), &link_};
        for (FrontEnd* e : session_.engines())
            if (auto* a = dynamic_cast<sbufsim::ArrSeq*>(e)) seq.engine = a;
        TpbOptions tpb_options;
        tpb_options.banks.functional = keep_data;
        tpb_ = std::make_unique<Tpb>("tpb", p, tpb_options, seq);
        tpb_->arr_seq().clk(clk_);
        if (!writes_.empty()) csr_.bind(tpb_->csr_socket);
        for (FrontEnd* e : session_.engines()) {
            if (e == static_cast<FrontEnd*>(seq.engine)) continue;
            SerialEngine* axi = axi_master(e);
            shells_.push_back(std::make_unique<EngineShell>(e->stats().name.c_str(), *e, session_.kernel(),
                                                            link_, axi, &p));
            shells_.back()->clk(clk_);
            if (axi) shells_.back()->axi()->socket.bind(tpb_->axi_socket);
        }
        arbiter_ = std::make_unique<SbufArbiter>("arbiter", session_.kernel(), *tpb_, link_, probe);
        SC_METHOD(end_of_cycle);
        sensitive << clk_.negedge_event();
        dont_initialize();
        if (!writes_.empty()) {
            SC_METHOD(host_writes);
            sensitive << clk_.posedge_event();
            dont_initialize();
        }
    }

    void trace(sc_core::sc_trace_file* f) {
        skip_idle_ = false;  // a waveform has a value for every cycle
        sc_core::sc_trace(f, clk_, clk_.name());
        arbiter_->trace(f);
        tpb_->arr_seq().set_traced(true);
        ArrSeq& seq = tpb_->arr_seq();
        sc_core::sc_trace(f, seq.busy, seq.busy.name());
        sc_core::sc_trace(f, seq.queue_cfg, seq.queue_cfg.name());
        sc_core::sc_trace(f, seq.arr_cluster_cfg, seq.arr_cluster_cfg.name());
        for (auto& s : shells_) {
            s->set_traced(true);
            sc_core::sc_trace(f, s->busy, s->busy.name());
        }
    }

    // The AXI masters' traffic, summed over the DMA engines and Q7 cores.
    AxiTraffic axi_traffic() const {
        AxiTraffic a;
        for (const auto& s : shells_) {
            const AxiMaster* m = s->axi();
            if (!m) continue;
            const AxiMasterCounters& c = m->counters();
            a.instructions += c.instructions;
            a.transactions += c.transactions;
            a.bytes_read += c.bytes_read;
            a.bytes_written += c.bytes_written;
            a.errors += c.errors;
            if (a.first_error.empty()) a.first_error = m->first_error();
        }
        return a;
    }

    ClockedLink& link() { return link_; }
    Tpb& tpb() { return *tpb_; }
    bool done() const { return traced_out_; }
    Cycle stop_cycle() const { return stop_cycle_; }
    std::uint64_t arbitrated() const { return arbiter_->cycles(); }
    std::uint64_t skipped() const { return skipped_; }
    std::uint64_t activations() const {
        std::uint64_t n = tpb_->arr_seq().activations();
        for (const auto& s : shells_) n += s->activations();
        return n;
    }

private:
    // The engines that are AXI masters (seed 000 §7.3): the DMA engines and the Q7 cores.
    static SerialEngine* axi_master(FrontEnd* e) {
        if (auto* d = dynamic_cast<DmaEngine*>(e)) return d;
        if (auto* q = dynamic_cast<Q7Core*>(e)) return q;
        return nullptr;
    }

    // The PE clock: rising edge of cycle c at c × period, falling edge half a period later (as
    // an sc_clock), except that at the next rising edge it jumps on to the rising edge of
    // resume_ when the controller has skipped the idle cycles before it. A method, not a thread:
    // no process runs on a coroutine stack of its own, so an exception a process throws unwinds
    // the one stack (and AddressSanitizer follows it).
    void drive_clock() {
        switch (phase_) {
            case ClockPhase::rise:
                break;
            case ClockPhase::fall:
                clk_.write(false);
                phase_ = ClockPhase::decide;
                next_trigger(period_ - high_);
                return;
            case ClockPhase::decide: {
                const Cycle next = std::max(cycle_ + 1, resume_);
                const Cycle skipped = next - cycle_ - 1;
                cycle_ = next;
                if (skipped) {
                    phase_ = ClockPhase::rise;
                    next_trigger(period_ * static_cast<double>(skipped));
                    return;
                }
                break;
            }
        }
        clk_.write(true);
        phase_ = ClockPhase::fall;
        next_trigger(high_);
    }
    enum class ClockPhase : std::uint8_t { rise, fall, decide };
    ClockPhase phase_ = ClockPhase::rise;
    Cycle cycle_ = 0;

    // Cycles t.. in which no queued beat can move (Kernel::next_ready) and no engine, access
    // record or host write needs attention: the kernel runs them at once (it only counts them)
    // and the clock resumes at the first cycle where something happens, as the fast scheduler's
    // kernel().run_until(ev.at) skips them. Returns false when cycle t must be arbitrated.
    bool skip_idle(Cycle t, const Wake& ev) {
        if (!skip_idle_ || traced_out_ || tpb_->reprogram_pending()) return false;
        Cycle to = std::min(ev.at, session_.kernel().next_ready());
        if (next_write_ < writes_.size()) to = std::min(to, std::max(writes_[next_write_].cycle, t + 1));
        if (to == kNever || to <= t + 1) return false;
        session_.kernel().run_until(to);
        skipped_ += to - t;
        resume_ = to;
        return true;
    }

    // Rising edge of cycle t: the host's writes due by now, through the csr_socket.
    void host_writes() {
        const Cycle t = session_.kernel().now();
        try {
            for (; next_write_ < writes_.size() && writes_[next_write_].cycle <= t; ++next_write_)
                issue(writes_[next_write_]);
        } catch (...) {
            link_.fail();
        }
    }

    void issue(const CsrWrite& w) {
        tlm::tlm_generic_payload pl;
        std::uint32_t v = w.value;
        pl.set_command(tlm::TLM_WRITE_COMMAND);
        pl.set_address(w.address);
        pl.set_data_ptr(reinterpret_cast<unsigned char*>(&v));
        pl.set_data_length(4);
        pl.set_streaming_width(4);
        pl.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
        csr_->b_transport(pl, delay);
        if (!pl.is_response_ok())
            throw std::invalid_argument("CSR write of " + hex(w.value) + " at " + hex(w.address) +
                                        " in cycle " + std::to_string(w.cycle) + ": " +
                                        pl.get_response_string() +
                                        " (the register map is in docs/models.md)");
    }

    // Falling edge of cycle t = kernel.now(): the fast scheduler's decision after settle(t), made
    // once the rising-edge processes have stopped changing anything.
    void end_of_cycle() {
        // Rising-edge work left at this time (a refill's delta): decide once it has settled.
        if (sc_core::sc_pending_activity_at_current_time()) {
            next_trigger(sc_core::SC_ZERO_TIME);
            return;
        }
        try {
            const Cycle t = session_.kernel().now();
            // The cycle's DMA claims, served as settle() serves them; an engine they make due
            // steps again in this cycle.
            if (!traced_out_ && session_.resolve_dma_claims(t)) {
                link_.activity.notify(sc_core::SC_ZERO_TIME);
                next_trigger(sc_core::SC_ZERO_TIME);
                return;
            }
            const Wake ev = traced_out_ ? Wake{} : session_.next_event(t);
            if (!traced_out_ && ev.never()) {
                if (!session_.eof()) {  // every engine waits: the signal may be further on
                    session_.refill(t, true);
                    link_.activity.notify(sc_core::SC_ZERO_TIME);
                    next_trigger(sc_core::SC_ZERO_TIME);
                    return;
                }
                if (!session_.engines_idle()) session_.deadlock(t);
                // The trace is done: the fast scheduler's end cycle. Access records may still be
                // queued in the kernel; it keeps arbitrating them cycle by cycle.
                traced_out_ = true;
                stop_cycle_ = t;
            }
            if (traced_out_ && session_.kernel().idle()) {
                sc_core::sc_stop();
                return;
            }
            if (skip_idle(t, ev)) return;
            arbiter_->go.notify(sc_core::SC_ZERO_TIME);
        } catch (...) {
            link_.fail();
        }
    }

    sc_core::sc_signal<bool> clk_{"clk"};
    sc_core::sc_time period_, high_;
    Cycle resume_ = 0;  // the cycle whose rising edge follows a skip
    std::uint64_t skipped_ = 0;
    ReplaySession& session_;
    ClockedLink link_;
    std::unique_ptr<Tpb> tpb_;
    // The host's register initiator (ClockedOptions::csr_writes; bound only when there are
    // writes, so a platform's own register master may take the csr_socket).
    tlm_utils::simple_initiator_socket_optional<ClockedTop> csr_{"csr"};
    std::vector<CsrWrite> writes_;
    std::size_t next_write_ = 0;
    bool skip_idle_;
    std::unique_ptr<QueueFeed> feed_;
    std::vector<std::unique_ptr<EngineShell>> shells_;
    std::unique_ptr<SbufArbiter> arbiter_;
    bool traced_out_ = false;  // the trace and every engine are done
    Cycle stop_cycle_ = 0;     // the cycle that happened (the fast scheduler's end)
};

// A simulation context of its own for one replay: SystemC allows one elaboration and one
// sc_start per context. Deleted (and the previous one restored) when the replay is over, so a
// process may run any number of clocked replays one after another.
class SimulationContext {
public:
    SimulationContext() : previous_(sc_core::sc_curr_simcontext) {
        quiet_reports();
        own_ = new sc_core::sc_simcontext();
        sc_core::sc_curr_simcontext = own_;
        sc_core::sc_default_global_context = own_;
    }
    ~SimulationContext() {
        delete own_;
        sc_core::sc_curr_simcontext = previous_;
        sc_core::sc_default_global_context = previous_;
    }
    SimulationContext(const SimulationContext&) = delete;
    SimulationContext& operator=(const SimulationContext&) = delete;

private:
    static void quiet_reports();
    sc_core::sc_simcontext* previous_;
    sc_core::sc_simcontext* own_;
};

void SimulationContext::quiet_reports() {
    // The banner would land on stdout, in the middle of a JSON report.
    setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
    // sc_stop() is how a replay ends, not news ("Info: /OSCI/SystemC: Simulation stopped by user").
    // Neither is the trace file's "tracing timescale unit set": SystemC's info reports stay quiet.
    sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
    sc_core::sc_report_handler::set_actions("tracing timescale unit set", sc_core::SC_DO_NOTHING);
    // A run that fails before its first cycle says why itself; SystemC's W715 about the VCD it
    // then never wrote (the caller removes it) would only stand beside that message.
    sc_core::sc_report_handler::set_actions(
        "trace file closed before any cycles were traced, file not written", sc_core::SC_DO_NOTHING);
}

sc_core::sc_time clock_period(const Params& p) {
    if (!(p.pe.clock_ghz > 0)) throw std::invalid_argument("clocked scheduler: pe.clock_ghz must be > 0");
    const double ps = std::round(1000.0 / p.pe.clock_ghz);
    return sc_core::sc_time(std::max(2.0, ps), sc_core::SC_PS);
}

// sc_create_vcd_trace_file appends ".vcd" to the name it is given. The caller has checked `path`
// (the command line and the Python module open it as an OutputFile whose temporary ends in
// ".vcd", so SystemC writes that temporary itself and the rename into place stays the caller's).
struct VcdFile {
    sc_core::sc_trace_file* file = nullptr;
    std::string written, wanted;
    explicit VcdFile(const std::string& path) : wanted(path) {
        // Refused before the run, without touching the file: SystemC opens it only at the first
        // cycle, and then only warns when it cannot.
        const std::filesystem::path p(path);
        const std::string dir = p.has_parent_path() ? p.parent_path().string() : ".";
        if (::access(dir.c_str(), W_OK) != 0 ||
            (::access(path.c_str(), F_OK) == 0 && ::access(path.c_str(), W_OK) != 0))
            throw std::runtime_error("cannot write " + path + ": " + std::strerror(errno));
        const bool has_ext = path.size() > 4 && path.compare(path.size() - 4, 4, ".vcd") == 0;
        const std::string base = has_ext ? path.substr(0, path.size() - 4) : path;
        written = base + ".vcd";
        file = sc_core::sc_create_vcd_trace_file(base.c_str());
        file->set_time_unit(1, sc_core::SC_PS);
        // The file's first section (a VCD comment, which viewers skip): what tells a waveform
        // sbufsim wrote, and may replace, from one another tool wrote (cli::is_vcd).
        sc_core::sc_write_comment(file, kVcdMark);
    }
    void close() {
        if (!file) return;
        sc_core::sc_close_vcd_trace_file(file);
        file = nullptr;
        if (written != wanted) std::filesystem::rename(written, wanted);
    }
};

}  // namespace

ClockedRun replay_clocked(const Params& params, TraceReader& reader, const ReplayOptions& options,
                          const ClockedOptions& clocked) {
    const SimulationContext context;  // outlives every module below
    // Waveforms read the kernel's cycle view from the activity probe: use the caller's probe when
    // it keeps one, else an own one.
    ReplayOptions opt = options;
    std::unique_ptr<ActivityProbe> own_probe;
    if (!clocked.vcd.empty() && (!opt.probe || !opt.probe->cycle_view())) {
        if (opt.probe) throw std::invalid_argument("replay_clocked: a VCD needs the probe's cycle view (ProbeOptions::cycle_view)");
        ProbeOptions po;
        po.cycle_view = true;
        const std::uint32_t banks = params.sbuf.ecc_banks + (params.has_psum() ? params.psum.ecc_banks : 0);
        own_probe = std::make_unique<ActivityProbe>(ClientSet(params).size(), banks, po);
        opt.probe = own_probe.get();
    }
    // Record by record: the reference for the fast scheduler's batches (the same statistics).
    opt.access_batch = 0;
    ReplaySession session(params, reader, opt);
    session.begin();
    const sc_core::sc_time period = clock_period(params);
    ClockedTop top("top", params, session, opt.probe, period, clocked.csr_writes, !clocked.step_every_cycle,
                   clocked.keep_data);
    std::unique_ptr<sc_core::sc_module> platform;
    if (clocked.attach) platform = clocked.attach(top.tpb());
    std::unique_ptr<VcdFile> vcd;
    if (!clocked.vcd.empty()) {
        vcd = std::make_unique<VcdFile>(clocked.vcd);
        top.trace(vcd->file);
    }
    sc_core::sc_start();
    if (vcd) vcd->close();
    if (top.link().failure) std::rethrow_exception(top.link().failure);
    if (!top.done()) throw std::logic_error("clocked scheduler: the simulation ended before the trace did");
    if (clocked.hierarchy) print_hierarchy(*clocked.hierarchy);

    ClockedRun run;
    run.result = session.finish(top.stop_cycle());
    top.tpb().add_kernel_stats(run.result.kernel);
    run.arbitrated_cycles = top.arbitrated();
    run.skipped_cycles = top.skipped();
    run.engine_activations = top.activations();
    run.clock_period_ps = std::round(period.to_seconds() * 1e12);  // a whole number of ps
    run.axi = top.axi_traffic();
    if (clocked.inspect) clocked.inspect(top.tpb());
    return run;
}

ClockedRun replay_clocked_trace(const Params& params, const std::string& path, const ReplayOptions& options,
                                const ClockedOptions& clocked) {
    TraceReader reader(path);
    return replay_clocked(params, reader, options, clocked);
}

}  // namespace sbufsim::models
