#include "models/config/csr_block.h"

#include <cstdio>

namespace sbufsim::models {

namespace csr {

std::string hex32(std::uint32_t v) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%x", v);
    return buf;
}

void check_offset(const std::string& block, std::uint32_t size, std::uint32_t offset) {
    if (offset % 4 != 0)
        throw CsrError(block + ": offset " + hex32(offset) +
                       " is not 4-byte aligned (the CSRs are 32-bit registers)");
    if (offset >= size)
        throw CsrError(block + ": offset " + hex32(offset) + " is outside the " + hex32(size) +
                       "-byte register block");
}

void no_register(const std::string& block, std::uint32_t offset, const char* known) {
    throw CsrError(block + ": no register at offset " + hex32(offset) + " (registers: " + known + ")");
}

}  // namespace csr

}  // namespace sbufsim::models
