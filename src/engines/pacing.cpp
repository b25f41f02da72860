#include "sbufsim/engines/pacing.h"

#include <algorithm>

namespace sbufsim {

void submit_paced(Kernel& k, RequestSet& into, ClientId client, Op op, const TensorAccess& a, Cycle issue,
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
