// Kernel client lookup for the kernel tests: the client's id, a test failure when it is missing.
#pragma once

#include <gtest/gtest.h>

#include "sbufsim/kernel/kernel.h"

namespace sbufsim::test {

// The kernel tests' parameters: the default generation with one 8-byte ECC word per beat, the
// unit their analytic beat counts are written in (the kernel takes the beat width as a key).
inline Params word_beats() {
    Params p;
    p.width.engine_bytes = 8;
    p.width.psum_bytes = 8;
    return p;
}

inline ClientId id(const Kernel& k, const char* name) {
    auto c = k.client_index(name);
    EXPECT_TRUE(c.has_value()) << "no client " << name;
    return c.value_or(ClientId{});
}

}  // namespace sbufsim::test
