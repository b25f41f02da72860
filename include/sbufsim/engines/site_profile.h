// Where a replay's time goes by source site: the per-line profile (docs/report.md "By source
// line"). A trace record may carry a source location (trace.h `loc=`); the replay hands its site
// id to the engines with the instruction's semaphore set (SyncSet::site), and the engines add
// their figures here at instruction granularity: when an instruction retires (busy, bank wait,
// instructions), when a queue head stops waiting (semaphore wait), when a transfer starts (DMA
// bytes). Nothing here runs per kernel cycle. Each figure is counted where the engine's own
// statistic (EngineStats) is, so a column summed over the sites is the engines' total.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "sbufsim/types/types.h"

namespace sbufsim {

// The engines a profile row splits its busy time over.
enum class EngineGroup : std::uint8_t { pe, act, pool, dve, dma, q7, count };
inline constexpr std::size_t kEngineGroups = static_cast<std::size_t>(EngineGroup::count);
const char* to_string(EngineGroup g);

// A site id as the trace reader interned it; kNoSourceSite: a record without a location.
inline constexpr std::uint16_t kNoSourceSite = 0xffff;

struct SiteCounters {
    std::uint64_t instructions = 0;                // completed
    std::array<Cycle, kEngineGroups> busy{};       // engine cycles with one of its instructions in flight
    std::array<Cycle, kEngineGroups> bank_wait{};  // of busy: held past the cost model by queued requests
    Cycle sem_wait = 0;                            // an engine free, its head (this site) waiting a semaphore
    std::uint64_t dma_bytes = 0;                   // payload bytes of its DMA transfers
    Cycle critical = 0;                            // cycles of the critical path (critical_path.h)
    bool operator==(const SiteCounters&) const = default;
};

class SiteProfile {
public:
    // Row of a site: 0 = no location, else id + 1.
    static std::size_t row(std::uint16_t site) { return site == kNoSourceSite ? 0 : std::size_t{site} + 1; }
    SiteCounters& at(std::uint16_t site) {
        const std::size_t r = row(site);
        if (r >= rows_.size()) rows_.resize(r + 1);
        return rows_[r];
    }
    void retired(std::uint16_t site, EngineGroup g, Cycle busy, Cycle bank_wait) {
        SiteCounters& c = at(site);
        ++c.instructions;
        c.busy[static_cast<std::size_t>(g)] += busy;
        c.bank_wait[static_cast<std::size_t>(g)] += bank_wait;
    }
    // Rows by row(); row 0 is the records without a location.
    const std::vector<SiteCounters>& rows() const { return rows_; }
    std::vector<SiteCounters>& rows() { return rows_; }

private:
    std::vector<SiteCounters> rows_;
};

}  // namespace sbufsim
