// Kernel client lookup for the kernel tests: the client's id, a test failure when it is missing.
#pragma once

#include <gtest/gtest.h>

#include "sbufsim/kernel/kernel.h"

namespace sbufsim::test {

inline ClientId id(const Kernel& k, const char* name) {
    auto c = k.client_index(name);
    EXPECT_TRUE(c.has_value()) << "no client " << name;
    return c.value_or(ClientId{});
}

}  // namespace sbufsim::test
