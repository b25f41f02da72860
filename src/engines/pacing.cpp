#include "sbufsim/engines/pacing.h"

#include <algorithm>

namespace sbufsim {

namespace {

// The bursts of `a` under `pace`: how many, and the bytes per partition of each but the last.
struct Bursts {
    std::uint32_t n = 1, chunk = 0;
};

Bursts bursts(const TensorAccess& a, const Pacing& pace) {
    const std::uint32_t unit = std::max<std::uint32_t>(1, pace.min_bytes);
    const std::uint32_t most = (a.bytes + unit - 1) / unit;
    Bursts b;
    b.n = pace.span ? std::max<std::uint32_t>(1, std::min(pace.chunks, most)) : 1;
    b.chunk = (a.bytes / b.n + unit - 1) / unit * unit;
    return b;
}

// Burst i of `a` (done: the bytes per partition already submitted; the caller checks that one
// is left). Inlined: it is every engine operand's hot path.
[[gnu::always_inline]] inline void submit_burst(Kernel& k, RequestSet& into, ClientId client, Op op,
                                                const TensorAccess& a, Cycle issue, const Pacing& pace,
                                                const Bursts& b, std::uint32_t i, std::uint32_t& done) {
    TensorAccess part = a;
    part.offset = a.offset + done;
    part.bytes = i + 1 == b.n ? a.bytes - done : std::min(b.chunk, a.bytes - done);
    into.submit(k, make_request(client, op, part, issue + pace.span * i / b.n));
    done += part.bytes;
}

}  // namespace

void submit_paced(Kernel& k, RequestSet& into, ClientId client, Op op, const TensorAccess& a, Cycle issue,
                  const Pacing& pace) {
    const Bursts b = bursts(a, pace);
    for (std::uint32_t i = 0, done = 0; i < b.n && done < a.bytes; ++i)
        submit_burst(k, into, client, op, a, issue, pace, b, i, done);
}

void submit_paced_pair(Kernel& k, RequestSet& into, ClientId client, const TensorAccess& rd, const TensorAccess& wr,
                       Cycle issue, const Pacing& pace) {
    const Bursts br = bursts(rd, pace), bw = bursts(wr, pace);
    std::uint32_t done_rd = 0, done_wr = 0;
    for (std::uint32_t i = 0; i < std::max(br.n, bw.n); ++i) {
        if (i < br.n && done_rd < rd.bytes) submit_burst(k, into, client, Op::rd, rd, issue, pace, br, i, done_rd);
        if (i < bw.n && done_wr < wr.bytes) submit_burst(k, into, client, Op::wr, wr, issue, pace, bw, i, done_wr);
    }
}

}  // namespace sbufsim
