// The whole JSON report of one replay result: every statistic the tool prints, for tests that
// compare two runs byte for byte (the two schedulers, a CSR written over TLM against a
// configured run).
#pragma once

#include <sstream>
#include <string>

#include "sbufsim/output/report.h"

namespace sbufsim::test {

inline std::string json_of(const ReplayResult& r) {
    RunReport rep;
    rep.result = r;
    std::ostringstream os;
    write_json(os, {rep});
    return os.str();
}

}  // namespace sbufsim::test
