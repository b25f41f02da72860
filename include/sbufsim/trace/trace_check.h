// Validation of trace records against one generation's hardware rules, without simulating.
//
// `sbufsim check` runs every record of a trace through a TraceChecker and prints every problem;
// `sbufsim run` calls the same checker per record and refuses the trace (or, with --lenient,
// skips the bad records). The checker is streaming: its state is a few counters per semaphore
// and a name cache, never the records.
//
// Each problem is a TraceError naming the field and the rule with its seed section, e.g.
//   t.trc:12: dst: operand at 0x2000000 is in PSUM ... no AXI path to PSUM (seed 000 §7.4)
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "sbufsim/address/address.h"
#include "sbufsim/kernel/clients.h"
#include "sbufsim/config/params.h"
#include "sbufsim/trace/trace.h"

namespace sbufsim {

class TraceChecker {
public:
    // `file` is used in the errors' file:line. The records checked come from one reader (their
    // NameIds are that reader's).
    TraceChecker(const Params& params, std::string file);

    // Compare the header with the configuration (version, generation). Appends findings.
    void check_header(const TraceHeader& header, std::vector<TraceError>& out);
    // Check one record; appends one TraceError per problem and returns how many it appended.
    // Stateful: access cycles must not decrease; semaphore use is tallied for finish().
    std::size_t check(const Record& rec, std::vector<TraceError>& out);
    // After the last record: waits that can never be satisfied because the whole trace signals
    // the semaphore fewer times than the wait's value (a wait on a never-signalled semaphore
    // would hang the replay). Reported at the line of the first such wait.
    std::size_t finish(std::vector<TraceError>& out);
    // A record the reader rejected at `line` (never checked): a signal it carried is not counted,
    // so finish() names it beside a wait it leaves short.
    void note_rejected(std::uint64_t line) {
        if (rejected_++ == 0) first_rejected_ = line;
    }
    // The race and deadlock findings of a SyncCheck (out[from..]) that follow a rejected record:
    // its waits and signals never reached the check, so a race it would have ordered is reported
    // as one. Each such finding says to fix the rejected record first.
    void note_cascade(std::vector<TraceError>& out, std::size_t from = 0) const;
    // How many times the records checked so far signal semaphore `sem` (0 for one that does not
    // exist): after the last record, the whole trace's count that finish() compares waits with.
    std::uint64_t signals_of(std::uint32_t sem) const { return sem < signals_.size() ? signals_[sem] : 0; }

    const AddressMap& address_map() const { return map_; }
    // Where the last access record check() looked at lands (AddressMap::locate: region,
    // partition, offset, status; Decoded::addr says which address), so that the replay does not
    // decode it again.
    const Decoded& last_access() const { return last_access_; }
    // The client (index into ClientSet(params), as the kernel numbers them) of the last access
    // record check() looked at, its address in last_access(); -1 when the name is unknown.
    int last_client() const { return last_client_; }

private:
    struct Ctx;
    std::size_t check_instruction(const Record& rec, std::vector<TraceError>& out);
    void check_access(Ctx& c);
    void check_access_rules(Ctx& c);
    void check_dma(Ctx& c);
    void check_dma_trigger(Ctx& c);
    void check_dma_rmw(Ctx& c);
    void check_ldweights(Ctx& c);
    void check_matmul(Ctx& c);
    void check_pe_tile(Ctx& c, std::uint32_t rows, std::uint32_t cols);
    void check_pe_mx(Ctx& c, std::uint32_t rows);
    void check_mx_dtypes(Ctx& c);
    void check_engine(Ctx& c);
    void check_quantize_mx(Ctx& c);
    void check_q7(Ctx& c);
    void check_semaphores(Ctx& c);

    Params params_;
    AddressMap map_;
    ClientSet clients_;
    std::string file_;
    Cycle last_cycle_ = 0;
    std::uint64_t last_cycle_line_ = 0;
    // Client name → index into clients_ (or -1 = unknown), resolved once per name: by the
    // reader's NameId where the record has one (inline, the per-record case), else by the name.
    int client_of(const Record& r) {
        if (r.client_id < client_by_id_.size()) [[likely]]
            if (const int c = client_by_id_[r.client_id]; c != kUnresolved) return c;
        return resolve_client(r);
    }
    int resolve_client(const Record& r);
    static constexpr int kUnresolved = -2;
    std::vector<int> client_by_id_;
    std::unordered_map<std::string, int> client_cache_;
    // What check_access needs of a client, flat (ClientInfo holds its name).
    struct AccessPort {
        bool read_only = false;   // a *_rd port (reads only)
        bool no_reads = false;    // a *_wr port (no plain reads)
        bool q7 = false;
        Region region = Region::sbuf;
    };
    std::vector<AccessPort> ports_;
    Decoded last_access_;
    int last_client_ = -1;
    // Semaphore bookkeeping for finish(): signals per semaphore, and the highest wait value
    // with the line that asked for it.
    std::vector<std::uint64_t> signals_;
    std::vector<std::uint64_t> max_wait_;
    std::vector<std::uint64_t> max_wait_line_;
    std::uint64_t rejected_ = 0, first_rejected_ = 0;  // note_rejected()
    std::string rejected_note() const;
    WaitResolver waits_;
};

}  // namespace sbufsim
