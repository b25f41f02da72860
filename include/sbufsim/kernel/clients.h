// The set of arbitration clients of one NeuronCore, declared once from Params.
//
// Every SBUF/PSUM port that can hold a request queue becomes one client with a dense index
// (ClientId), a name (setup only), its arbitration group, its TDM class and its beat width.
// Names are looked up once at setup; the kernel works on indices and bit masks afterwards.
//
//   group    clients                                    region  TDM class  source
//   stage1   pe_client_0..4                             SBUF    compute    seed 000 §7.1
//   stage2   pool_rd act_rd pool_wr act_wr dve_rd dve_wr SBUF    compute    §7.1 (DVE INFERRED)
//   dma      dma_0..dma_{dma.engines-1}                 SBUF    dma        §7.2
//   q7       q7_0..q7_{q7.cores-1} (AXI via axi2sram)   SBUF    dma        §7.3 MED/INFERRED
//   psum     pe_wr act_psum_rd act_psum_wr pool_psum_rd
//            pool_psum_wr dve_psum_rd dve_psum_wr       PSUM    none       §4, §5 (INFERRED arb.)
//
// pe_rd is not a client: it is the stage-2 entry of the stage-1 winner (ArbiterParams::pe_rd).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sbufsim/config/config.h"
#include "sbufsim/config/params.h"
#include "sbufsim/kernel/request.h"

namespace sbufsim {

enum class ClientGroup : std::uint8_t { stage1, stage2, dma, q7, psum };

// The kernel keeps client sets in 64-bit masks and reserves bit 63 for the pe_rd stage-2 entry
// (the configuration's consistency check refuses more, naming the key).
inline constexpr std::uint32_t kMaxClients = kMaxKernelClients;
// Per-client arrays of the cycle loop: one slot per bit of a client mask.
inline constexpr std::size_t kClientSlots = 64;
static_assert(kMaxClients < kClientSlots);

struct ClientInfo {
    std::string name;
    ClientGroup group = ClientGroup::stage2;
    Region region = Region::sbuf;
    TdmClass tdm_class = TdmClass::compute;
    std::uint32_t beat_bytes = 8;        // bytes per partition per beat
    std::uint32_t beat_partitions = 0;   // partitions per beat; 0 = all of the request's
    ArbWeights arb{};                    // priority/weight in its arbiter (stage1/2, dma, psum)
    ThrottleCfg throttle{};              // pool/act/dve rd/wr only; others stay disabled
    bool dve = false;                    // VectorE port (concurrency rules)
    bool gpsimd = false;                 // GpSimd = POOL engine + Q7 cores (concurrency rules)
    bool act = false;                    // ScalarE port (concurrency rules)
};

class ClientSet {
public:
    // Declares the clients of `p`. Throws std::invalid_argument (naming the keys) when the
    // configuration declares more than kMaxClients.
    explicit ClientSet(const Params& p);

    std::uint32_t size() const { return static_cast<std::uint32_t>(clients_.size()); }
    const ClientInfo& operator[](ClientId c) const { return clients_[index(c)]; }
    const std::vector<ClientInfo>& all() const { return clients_; }
    // Setup only: a name to its index, nothing when there is no such client.
    std::optional<ClientId> find(std::string_view name) const;

private:
    std::vector<ClientInfo> clients_;
};

// Synthetic traffic for `sbufsim bench` and bench/bench_kernel.cpp.
//   saturated: the 10 clients pool_rd act_rd pool_wr act_wr dve_rd dve_wr pe_client_0
//              pe_client_1 dma_0 dma_1, each with requests back to back from cycle 0; each
//              request targets one random ECC bank (an 8-partition group) and moves 64 B per
//              partition (8 beats for the engines, 2 for the DMA queues at 32 B/beat).
//   sparse:    the same clients, one short request each every ~1000 cycles.
enum class TrafficPattern : std::uint8_t { saturated, sparse };
std::optional<TrafficPattern> parse_traffic_pattern(std::string_view name);

class SyntheticTraffic {
public:
    SyntheticTraffic(const Params& p, const ClientSet& clients, TrafficPattern pattern,
                     std::uint64_t seed);
    // The pattern's clients, k = 0 .. clients() - 1.
    std::uint32_t clients() const { return static_cast<std::uint32_t>(ids_.size()); }
    ClientId client(std::uint32_t k) const { return ids_[k]; }
    TrafficPattern pattern() const { return pattern_; }
    // The next request of the pattern's client k; deterministic in the seed and the call order.
    Request next(std::uint32_t k);

private:
    // splitmix64: cheap and deterministic, so the benchmark measures the kernel, not the RNG.
    std::uint64_t rng() {
        std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    TrafficPattern pattern_;
    std::uint64_t state_;
    std::vector<ClientId> ids_;
    std::vector<Cycle> next_issue_;
    std::uint32_t partitions_;
    std::uint32_t group_ = 8;   // partitions per request (one ECC bank's worth)
    std::uint32_t groups_ = 1;  // partitions_ / group_
};

}  // namespace sbufsim
