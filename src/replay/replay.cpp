// The fast scheduler's entry points (replay.h): a ReplaySession (replay_session.cpp) run to the
// end, and the result's derived totals.
#include "sbufsim/replay/replay.h"

#include "sbufsim/replay/replay_session.h"

namespace sbufsim {

std::uint64_t ReplayResult::dma_bytes() const {
    std::uint64_t b = 0;
    for (const auto& d : dma) b += d.bytes;
    return b;
}

std::uint64_t ReplayResult::hbm_bytes() const {
    std::uint64_t b = 0;
    for (const auto& d : dma) b += d.hbm_bytes;
    return b;
}

ReplayResult replay(const Params& params, TraceReader& reader, const ReplayOptions& options) {
    ReplaySession s(params, reader, options);
    return s.run_fast();
}

ReplayResult replay_trace(const Params& params, const std::string& path, const ReplayOptions& options) {
    TraceReader reader(path);
    return replay(params, reader, options);
}

}  // namespace sbufsim
