// Synthetic stress traffic for the arbiter: access records of chosen clients on chosen ECC banks
// (include/sbufsim/workload/workload.h, docs/generators.md "Synthetic stress").
//
// Every target bank is turned, once, into the partition group and byte range that decode to it
// (AddressMap: SBUF bank = cluster × half, seed 000 §3; PSUM bank = cluster × 8 + hw bank, §4),
// so each access touches exactly one ECC bank whatever the half-select setting. The loop then only
// draws numbers: per cycle, per client, "issue?" and "which bank, which offset".
#include <algorithm>

#include "sbufsim/kernel/clients.h"
#include "sbufsim/workload/workload.h"

namespace sbufsim {

// ---- splitmix64 (Steele, Lea, Flood 2014): one 64-bit state, fixed output for a seed ------------

std::uint64_t SplitMix64::next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

double SplitMix64::uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

std::uint64_t SplitMix64::below(std::uint64_t bound) {
    // Lemire's nearly-divisionless method: unbiased, and the same on every platform.
    unsigned __int128 m = static_cast<unsigned __int128>(next()) * bound;
    auto low = static_cast<std::uint64_t>(m);
    if (low < bound) {
        const std::uint64_t threshold = (0 - bound) % bound;
        while (low < threshold) {
            m = static_cast<unsigned __int128>(next()) * bound;
            low = static_cast<std::uint64_t>(m);
        }
    }
    return static_cast<std::uint64_t>(m >> 64);
}

std::optional<StressPattern> parse_stress_pattern(std::string_view name) {
    if (name == "uniform") return StressPattern::uniform;
    if (name == "hotspot") return StressPattern::hotspot;
    if (name == "strided") return StressPattern::strided;
    return std::nullopt;
}

std::string_view to_string(StressPattern p) {
    switch (p) {
    case StressPattern::uniform: return "uniform";
    case StressPattern::hotspot: return "hotspot";
    case StressPattern::strided: return "strided";
    }
    return "?";
}

namespace {

// Where an access to one ECC bank may go: partitions [first, first + count) and offsets
// [lo, hi) (8-byte words, seed 000 §1.1).
struct BankTarget {
    std::uint32_t bank = 0;
    std::uint32_t first = 0, count = 0;
    std::uint32_t lo = 0, hi = 0;
};

// The largest run of partitions and the offset range that decode to SBUF bank `b` alone.
std::optional<BankTarget> sbuf_target(const AddressMap& map, const Params& p, std::uint32_t b, std::uint32_t bytes,
                                      std::uint32_t p_lo, std::uint32_t p_hi) {
    const std::uint32_t active = static_cast<std::uint32_t>(p.sbuf.partition_active);
    const std::uint32_t half_span = p.sbuf.half_select == HalfSelect::offset ? 1u << p.sbuf.half_offset_bit : active;
    for (std::uint32_t lo = 0; lo < active; lo += half_span) {
        const std::uint32_t hi = std::min(active, lo + half_span);
        if (hi - lo < bytes) continue;
        for (std::uint32_t part = p_lo; part < p_hi; ++part) {
            if (map.sbuf_bank_mask(part, 1, lo, bytes) != (1u << b)) continue;
            std::uint32_t count = 1;
            while (part + count < p_hi && map.sbuf_bank_mask(part, count + 1, lo, bytes) == (1u << b)) ++count;
            return BankTarget{b, part, count, lo, hi - bytes};
        }
    }
    return std::nullopt;
}

std::optional<BankTarget> psum_target(const AddressMap& map, const Params& p, std::uint32_t b, std::uint32_t bytes) {
    const std::uint32_t bank_size = static_cast<std::uint32_t>(p.psum.bank_size);
    if (bytes > bank_size) return std::nullopt;
    for (std::uint32_t hw = 0; hw < p.psum.banks; ++hw) {
        const std::uint32_t lo = hw * bank_size;
        for (std::uint32_t part = 0; part < p.psum.partitions; ++part) {
            if (map.psum_bank_mask(part, 1, lo, bytes) != (1u << b)) continue;
            std::uint32_t count = 1;
            while (part + count < p.psum.partitions && map.psum_bank_mask(part, count + 1, lo, bytes) == (1u << b)) ++count;
            return BankTarget{b, part, count, lo, lo + bank_size - bytes};
        }
    }
    return std::nullopt;
}

struct StressClient {
    std::string name;
    Region region = Region::sbuf;
    enum class Ops : std::uint8_t { rd, wr, both } ops = Ops::rd;
    std::vector<BankTarget> targets;   // in the order of the bank list
    std::uint64_t issued = 0;
};

StressClient make_client(const Params& p, const AddressMap& map, const ClientSet& set, const std::string& name,
                         const RandomOptions& o) {
    const auto id = set.find(name);
    if (!id)
        throw WorkloadError("--clients: unknown client '" + name + "' for " + p.generation +
                            " (e.g. pe_client_0, act_rd, act_wr, dve_rd, dma_0, q7_0, pe_wr, act_psum_rd; clients.h)");
    const ClientInfo& info = set[*id];
    StressClient c;
    c.name = name;
    c.region = info.region;
    // Ports named *_rd only read, *_wr only write (pe_wr accumulates: wr); PE moving reads are reads;
    // DMA queues and Q7 masters both load and store.
    if (info.group == ClientGroup::dma || info.group == ClientGroup::q7) c.ops = StressClient::Ops::both;
    else if (name.ends_with("_wr")) c.ops = StressClient::Ops::wr;
    std::uint32_t p_lo = 0, p_hi = p.sbuf.partitions;
    if (info.group == ClientGroup::q7) {   // core c owns partitions [16c, 16c+16), seed 000 §7.5
        const std::uint32_t core = static_cast<std::uint32_t>(std::stoul(name.substr(3)));
        p_lo = core * p.q7.partitions_per_core;
        p_hi = p_lo + p.q7.partitions_per_core;
    }
    std::vector<std::uint32_t> banks = c.region == Region::psum ? o.psum_banks : o.banks;
    const std::uint32_t nbanks = c.region == Region::psum ? p.psum.ecc_banks : p.sbuf.ecc_banks;
    if (banks.empty())
        for (std::uint32_t b = 0; b < nbanks; ++b) banks.push_back(b);
    for (std::uint32_t b : banks) {
        if (b >= nbanks)
            throw WorkloadError(std::string(c.region == Region::psum ? "--psum-banks" : "--banks") + ": bank " +
                                std::to_string(b) + " does not exist (" + std::to_string(nbanks) + " ECC banks, seed 000 §3-§4)");
        auto t = c.region == Region::psum ? psum_target(map, p, b, o.bytes) : sbuf_target(map, p, b, o.bytes, p_lo, p_hi);
        if (t) c.targets.push_back(*t);
    }
    if (c.targets.empty())
        throw WorkloadError("--clients: " + name + " can reach none of the listed banks with " + std::to_string(o.bytes) +
                            "-byte accesses" + (info.group == ClientGroup::q7 ? " (a Q7 core reaches its own 16 partitions "
                                                                                "only, seed 000 §7.5)" : ""));
    return c;
}

const BankTarget& pick(StressClient& c, std::uint32_t k, const RandomOptions& o, SplitMix64& rng) {
    const std::size_t n = c.targets.size();
    switch (o.pattern) {
    case StressPattern::uniform: break;
    case StressPattern::hotspot:
        if (rng.uniform() < o.hot_fraction) return c.targets.front();
        break;
    case StressPattern::strided:
        // Clients start one bank apart and advance `stride` banks per access.
        return c.targets[(k + c.issued * o.stride) % n];
    }
    return c.targets[rng.below(n)];
}

}  // namespace

RandomStats generate_random(const Params& params, const RandomOptions& o, RecordSink& sink) {
    if (o.clients.empty()) throw WorkloadError("--clients: at least one client");
    if (!(o.rate > 0 && o.rate <= 1)) throw WorkloadError("--rate " + std::to_string(o.rate) + ": must be in (0, 1] (accesses per client per cycle)");
    if (!(o.hot_fraction >= 0 && o.hot_fraction <= 1)) throw WorkloadError("--hot-fraction must be in [0, 1]");
    if (o.bytes == 0 || o.bytes % 8 != 0) throw WorkloadError("--bytes " + std::to_string(o.bytes) + ": a positive multiple of the 8-byte SBUF word (seed 000 §1.1)");
    if (o.stride == 0) throw WorkloadError("--stride must be at least 1");
    if (o.records == 0) throw WorkloadError("--records must be at least 1 (a stress trace with no access measures nothing)");
    const AddressMap map(params);
    const ClientSet set(params);
    std::vector<StressClient> clients;
    for (const auto& name : o.clients) clients.push_back(make_client(params, map, set, name, o));

    RandomStats st;
    st.per_client.assign(clients.size(), 0);
    st.per_bank.assign(params.sbuf.ecc_banks, 0);
    st.per_psum_bank.assign(params.psum.ecc_banks, 0);
    SplitMix64 rng(o.seed);
    Record rec;
    for (Cycle cycle = 0; st.records < o.records; ++cycle) {
        for (std::uint32_t k = 0; k < clients.size() && st.records < o.records; ++k) {
            if (rng.uniform() >= o.rate) continue;
            StressClient& c = clients[k];
            const BankTarget& t = pick(c, k, o, rng);
            rec.clear();
            rec.kind = RecordKind::access;
            rec.cycle = cycle;
            rec.client = c.name;
            rec.op = c.ops == StressClient::Ops::rd   ? Op::rd
                     : c.ops == StressClient::Ops::wr ? Op::wr
                     : (rng.next() & 1)              ? Op::wr
                                                      : Op::rd;
            const std::uint32_t words = (t.hi - t.lo) / 8 + 1;
            const std::uint32_t offset = t.lo + static_cast<std::uint32_t>(rng.below(words)) * 8;
            rec.address = c.region == Region::psum ? map.psum_addr(t.first, offset) : map.sbuf_addr(t.first, offset);
            rec.partitions = static_cast<std::uint16_t>(t.count);
            rec.bytes = o.bytes;
            sink.write(rec);
            ++c.issued;
            ++st.per_client[k];
            ++(c.region == Region::psum ? st.per_psum_bank : st.per_bank)[t.bank];
            ++st.records;
            st.last_cycle = cycle;
        }
    }
    return st;
}

}  // namespace sbufsim
