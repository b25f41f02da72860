#include "sbufsim/kernel/clients.h"

#include <algorithm>
#include <stdexcept>

namespace sbufsim {

namespace {

ClientInfo make(std::string name, ClientGroup g, Region r, TdmClass t, std::uint32_t bytes,
                std::uint32_t parts, ArbWeights arb) {
    ClientInfo c;
    c.name = std::move(name);
    c.group = g;
    c.region = r;
    c.tdm_class = t;
    c.beat_bytes = bytes;
    c.beat_partitions = parts;
    c.arb = arb;
    return c;
}

}  // namespace

ClientSet::ClientSet(const Params& p) {
    const auto& a = p.arbiter;
    const auto& w = p.width;
    // Stage 1: the 4 PE column clusters + the fan-out client (seed 000 §7.1).
    for (std::uint32_t i = 0; i < kStage1Clients; ++i)
        clients_.push_back(make("pe_client_" + std::to_string(i), ClientGroup::stage1,
                                Region::sbuf, TdmClass::compute, w.engine_bytes, 0, a.stage1[i]));
    // Stage 2 engine clients (seed 000 §7.1); DVE's own rd/wr ports are INFERRED.
    struct Eng {
        const char* name;
        ArbWeights arb;
        ThrottleCfg thr;
        bool dve, gpsimd, act;
    };
    const auto& t = p.throttler;
    const Eng engines[] = {
        {"pool_rd", a.pool_rd, t.pool_rd, false, true, false},
        {"act_rd", a.act_rd, t.act_rd, false, false, true},
        {"pool_wr", a.pool_wr, t.pool_wr, false, true, false},
        {"act_wr", a.act_wr, t.act_wr, false, false, true},
        {"dve_rd", a.dve_rd, t.dve_rd, true, false, false},
        {"dve_wr", a.dve_wr, t.dve_wr, true, false, false},
    };
    for (const auto& e : engines) {
        auto c = make(e.name, ClientGroup::stage2, Region::sbuf, TdmClass::compute,
                      w.engine_bytes, 0, e.arb);
        c.throttle = e.thr;
        c.dve = e.dve;
        c.gpsimd = e.gpsimd;
        c.act = e.act;
        clients_.push_back(std::move(c));
    }
    // DMA class: the DMA queues and the Q7 AXI masters share the DMA TDM slot (seed 000 §7.3).
    for (std::uint32_t i = 0; i < p.dma.engines; ++i)
        clients_.push_back(make("dma_" + std::to_string(i), ClientGroup::dma, Region::sbuf,
                                TdmClass::dma, p.dma.data_width, w.dma_partitions, a.dma));
    for (std::uint32_t i = 0; i < p.q7.cores; ++i) {
        auto c = make("q7_" + std::to_string(i), ClientGroup::q7, Region::sbuf, TdmClass::dma,
                      p.q7.bus_bytes, w.q7_partitions, a.q7);
        c.gpsimd = true;
        clients_.push_back(std::move(c));
    }
    // PSUM side (no PSUM on generations with psum.region_size = 0). GpSimd has no PSUM path
    // (seed 000 §7.4), so there is no q7 PSUM client.
    if (p.has_psum()) {
        struct Ps {
            const char* name;
            ArbWeights arb;
            bool dve, act;
        };
        const Ps ps[] = {
            {"pe_wr", a.psum_pe_wr, false, false},
            {"act_psum_rd", a.psum_act, false, true},
            {"act_psum_wr", a.psum_act, false, true},
            {"pool_psum_rd", a.psum_pool, false, false},
            {"pool_psum_wr", a.psum_pool, false, false},
            {"dve_psum_rd", a.psum_dve, true, false},
            {"dve_psum_wr", a.psum_dve, true, false},
        };
        for (const auto& e : ps) {
            auto c = make(e.name, ClientGroup::psum, Region::psum, TdmClass::none, w.psum_bytes,
                          0, e.arb);
            c.dve = e.dve;
            c.act = e.act;
            clients_.push_back(std::move(c));
        }
    }
    if (clients_.size() > kMaxClients)
        throw std::invalid_argument(
            "the kernel supports at most " + std::to_string(kMaxClients) +
            " clients; dma.engines = " + std::to_string(p.dma.engines) + " and q7.cores = " +
            std::to_string(p.q7.cores) + " declare " + std::to_string(clients_.size()));
}

std::optional<ClientId> ClientSet::find(std::string_view name) const {
    for (std::size_t i = 0; i < clients_.size(); ++i)
        if (clients_[i].name == name) return ClientId{static_cast<std::uint16_t>(i)};
    return std::nullopt;
}

std::optional<TrafficPattern> parse_traffic_pattern(std::string_view name) {
    if (name == "saturated") return TrafficPattern::saturated;
    if (name == "sparse") return TrafficPattern::sparse;
    return std::nullopt;
}

SyntheticTraffic::SyntheticTraffic(const Params& p, const ClientSet& clients,
                                   TrafficPattern pattern, std::uint64_t seed)
    : pattern_(pattern), state_(seed), partitions_(p.sbuf.partitions) {
    // One ECC bank = the partitions of half a cluster in HalfSelect::partition mode (§3.1).
    group_ = std::max<std::uint32_t>(1, p.sbuf.partitions / std::max<std::uint32_t>(1, p.sbuf.ecc_banks));
    groups_ = partitions_ / group_;
    for (const char* n : {"pool_rd", "act_rd", "pool_wr", "act_wr", "dve_rd", "dve_wr",
                          "pe_client_0", "pe_client_1", "dma_0", "dma_1"})
        if (auto id = clients.find(n)) ids_.push_back(*id);
    if (ids_.empty()) throw std::invalid_argument("synthetic traffic: no known client declared");
    next_issue_.assign(ids_.size(), 0);
}

Request SyntheticTraffic::next(std::uint32_t k) {
    Request r;
    r.client = ids_[k];
    r.op = (rng() & 1) ? Op::rd : Op::wr;
    r.region = Region::sbuf;
    const std::uint32_t g = static_cast<std::uint32_t>(rng() % groups_);
    r.first_partition = static_cast<std::uint16_t>(g * group_);
    r.partitions = static_cast<std::uint16_t>(group_);
    r.offset = static_cast<std::uint32_t>(rng() % 1024) * 64;
    r.bytes = 64;
    if (pattern_ == TrafficPattern::saturated) {
        r.issue = 0;  // always ready: back to back
    } else {
        next_issue_[k] += 500 + rng() % 1000;
        r.issue = next_issue_[k];
        r.bytes = 16;
    }
    return r;
}

}  // namespace sbufsim
