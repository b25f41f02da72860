#include "models/replay/hierarchy.h"

#include <cstdint>
#include <ostream>
#include <sstream>
#include <string>

#include <systemc>

#include "models/config/csr_block.h"

namespace sbufsim::models {

namespace {

bool is_signal(const sc_core::sc_object& o) {
    const std::string k = o.kind();
    return k == "sc_signal" || k == "sc_clock" || k == "sc_buffer";
}

void print_csrs(std::ostream& os, const CsrOwner& owner, const std::string& pad) {
    for (const CsrBlock* b : owner.csr_blocks()) {
        os << pad << '[' << b->csr_block_name() << "]\n";
        for (const CsrRegisterView& r : b->csr_registers())
            os << pad << "  " << r.name << " @" << csr::hex32(r.offset) << " = " << csr::hex32(r.value)
               << (r.read_only ? " (read-only)" : "") << '\n';
    }
}

void print_object(std::ostream& os, const sc_core::sc_object& o, int depth) {
    const std::string pad(2 * static_cast<std::size_t>(depth), ' ');
    os << pad << o.basename() << "  " << o.kind();
    if (const auto* byte = dynamic_cast<const sc_core::sc_signal_in_if<std::uint8_t>*>(&o)) {
        os << " = " << unsigned{byte->read()};  // a stall code, not a character
    } else if (is_signal(o)) {
        std::ostringstream v;
        o.print(v);  // the signal's current value
        os << " = " << v.str();
    }
    os << '\n';
    if (const auto* owner = dynamic_cast<const CsrOwner*>(&o)) print_csrs(os, *owner, pad + "  ");
    for (const sc_core::sc_object* child : o.get_child_objects()) print_object(os, *child, depth + 1);
}

}  // namespace

void print_hierarchy(std::ostream& os) {
    for (const sc_core::sc_object* o : sc_core::sc_get_top_level_objects()) print_object(os, *o, 0);
}

}  // namespace sbufsim::models
