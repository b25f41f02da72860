// `decode` (decode.h): an address argument parsed, decoded by the generation's AddressMap and
// printed as a block or one line.
#include "sbufsim/app/decode.h"

#include <charconv>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

#include <spdlog/spdlog.h>

#include "sbufsim/address/address.h"

namespace sbufsim::app {

namespace {

// A number as written on the command line: 0x-prefixed hex or decimal.
std::optional<std::uint64_t> parse_number(std::string_view s) {
    int base = 10;
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        s.remove_prefix(2);
    }
    if (s.empty()) return std::nullopt;
    std::uint64_t v = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
    if (ec != std::errc{} || end != s.data() + s.size()) return std::nullopt;
    return v;
}

// "p=P,off=O" (either order). Returns false on any other shape.
bool parse_location(std::string_view s, std::uint64_t& partition, std::uint64_t& offset) {
    bool have_p = false, have_off = false;
    while (!s.empty()) {
        const auto comma = s.find(',');
        const std::string_view item = s.substr(0, comma);
        s = comma == std::string_view::npos ? std::string_view{} : s.substr(comma + 1);
        const auto eq = item.find('=');
        if (eq == std::string_view::npos) return false;
        const std::string_view key = item.substr(0, eq);
        const auto value = parse_number(item.substr(eq + 1));
        if (!value) return false;
        if ((key == "p" || key == "partition") && !have_p)
            partition = *value, have_p = true;
        else if ((key == "off" || key == "offset") && !have_off)
            offset = *value, have_off = true;
        else
            return false;
    }
    return have_p && have_off;
}

// Parse one ADDR argument into a decode. nullopt = not an address at all (a usage error).
std::optional<Decoded> decode_arg(const AddressMap& map, std::string_view arg) {
    if (arg.starts_with("soc:")) {
        const auto soc = parse_number(arg.substr(4));
        if (!soc) return std::nullopt;
        std::uint32_t a = 0;
        if (!map.soc_to_partition_offset(*soc, a)) {
            Decoded d;
            d.addr = *soc;
            d.status = DecodeStatus::off_chip;
            return d;
        }
        return map.decode(a);
    }
    Region region = Region::none;
    std::string_view loc = arg;
    if (arg.starts_with("psum:"))
        region = Region::psum, loc = arg.substr(5);
    else if (arg.starts_with("sbuf:"))
        region = Region::sbuf, loc = arg.substr(5);
    if (region != Region::none || loc.find('=') != std::string_view::npos) {
        std::uint64_t partition = 0, offset = 0;
        if (!parse_location(loc, partition, offset)) return std::nullopt;
        if (region == Region::none) region = Region::sbuf;
        if (partition > 0xffffffffu) partition = 0xffffffffu;  // reported as out of range
        return map.decode_location(region, static_cast<std::uint32_t>(partition), offset);
    }
    const auto a = parse_number(arg);
    if (!a) return std::nullopt;
    return map.decode(*a);
}

std::string ecc_text(const AddressMap& map, const Decoded& d) {
    const EccBank& b = d.bank;
    if (d.region == Region::sbuf) {
        const char* how = map.sbuf().half_select == HalfSelect::partition ? "partition bit" : "offset bit";
        return std::to_string(b.index) + " of " + std::to_string(map.sbuf().clusters * 2) + " (cluster " +
               std::to_string(b.cluster) + ", half " + std::to_string(b.half) + " by " + how + ")";
    }
    return std::to_string(b.index) + " (cluster " + std::to_string(b.cluster) + ", hw bank " +
           std::to_string(b.hw_bank) + " of " + std::to_string(map.psum().banks) + " x " +
           std::to_string(map.psum().bank_size) + " B; ISA bank " + std::to_string(b.isa_bank) + " of " +
           std::to_string(map.psum().isa_banks) + " x " + std::to_string(map.psum().isa_bank_size) + " B)";
}

void print_block(std::ostream& os, const AddressMap& map, std::string_view arg, const Decoded& d) {
    os << arg;
    // Show the 29-bit address when the argument was written another way and one was formed.
    const bool formed = d.status != DecodeStatus::no_psum && d.status != DecodeStatus::offset_beyond_stride &&
                        !(d.status == DecodeStatus::partition_out_of_range && d.addr == 0);
    if (formed && hex(d.addr) != arg) os << " = " << hex(d.addr);
    if (!d.valid()) {
        os << ": INVALID: " << map.explain(d) << "\n";
        return;
    }
    const std::uint32_t q = d.quadrant, qp = map.isa().quadrant_partitions;
    const bool psum = d.region == Region::psum;
    os << "\n  region     " << to_string(d.region) << "\n"
       << "  partition  " << d.partition << "\n"
       << "  offset     " << hex(d.offset) << " (" << d.offset << " B)\n"
       << "  quadrant   " << q << " (partitions " << q * qp << ".." << (q + 1) * qp - 1 << ")\n"
       << "  ecc bank   " << ecc_text(map, d) << "\n"
       << "  state      active (offset < PARTITION_ACTIVE_SIZE "
       << hex(psum ? map.psum().partition_active : map.sbuf().partition_active) << ")\n"
       << "  soc        " << hex(d.soc_addr) << " (" << (psum ? "TPB_0_PSUM_BUF" : "TPB_0_STATE_BUF") << " + "
       << hex(d.soc_addr - (psum ? map.psum().soc_base : map.sbuf().soc_base)) << ")\n";
}

void print_line(std::ostream& os, const AddressMap& map, std::string_view arg, const Decoded& d) {
    os << arg;
    if (!d.valid()) {
        os << " invalid: " << map.explain(d) << "\n";
        return;
    }
    os << " addr=" << hex(d.addr) << " region=" << to_string(d.region) << " p=" << d.partition
       << " off=" << hex(d.offset) << " quadrant=" << d.quadrant << " ecc=" << d.bank.index
       << " cluster=" << d.bank.cluster;
    if (d.region == Region::sbuf)
        os << " half=" << d.bank.half;
    else
        os << " hw_bank=" << d.bank.hw_bank << " isa_bank=" << d.bank.isa_bank;
    os << " active soc=" << hex(d.soc_addr) << "\n";
}

}  // namespace

int decode_addresses(const DecodeRequest& r, Io io) {
    const LoadedConfig config = load_config(r.config);
    const AddressMap map(config.params);
    spdlog::info("decode: {} address(es) on generation {}", r.addresses.size(), config.params.generation);

    // Parse everything first so that a typo is a usage error before any output.
    std::vector<Decoded> decoded;
    decoded.reserve(r.addresses.size());
    for (const auto& a : r.addresses) {
        auto d = decode_arg(map, a);
        if (!d) {
            io.err
                << "sbufsim decode: '" << a
                << "' is not an address: expected 0xHEX, DECIMAL, p=P,off=O, psum:p=P,off=O or soc:0xHEX\n";
            return kExitUsage;
        }
        decoded.push_back(*d);
    }

    if (!r.oneline)
        io.out << "# " << map.generation() << " (NeuronCore-" << config.params.neuroncore << "): SBUF "
               << map.sbuf().partitions << " x " << hex(map.sbuf().partition_stride) << " stride, "
               << hex(map.sbuf().partition_active) << " active; "
               << (map.has_psum() ? "PSUM " + std::to_string(map.psum().partitions) + " x " +
                                        hex(map.psum().partition_stride) + " stride, " +
                                        hex(map.psum().partition_active) + " active"
                                  : std::string("no PSUM"))
               << "\n";
    bool any_invalid = false;
    for (std::size_t i = 0; i < r.addresses.size(); ++i) {
        if (r.oneline)
            print_line(io.out, map, r.addresses[i], decoded[i]);
        else
            print_block(io.out, map, r.addresses[i], decoded[i]);
        any_invalid |= !decoded[i].valid();
    }
    return any_invalid ? kExitFindings : kExitOk;
}

}  // namespace sbufsim::app
