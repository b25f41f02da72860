#include "sbufsim/types/number.h"

#include <cmath>
#include <cstdio>

namespace sbufsim {

std::string format_number(double v, int digits, Notation notation) {
    if (!std::isfinite(v) || std::fabs(v) > 1e300) v = 0;
    const char* const spec = notation == Notation::fixed ? "%.*f" : "%.*g";
    const int n = std::snprintf(nullptr, 0, spec, digits, v);
    std::string out(static_cast<std::size_t>(n > 0 ? n : 0), '\0');
    std::snprintf(out.data(), out.size() + 1, spec, digits, v);
    return out;
}

}  // namespace sbufsim
