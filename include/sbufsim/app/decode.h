// `decode`: what SBUF/PSUM addresses mean on one generation — region, partition, byte offset,
// quadrant, ECC bank, active vs decode pad, SoC address (seed 000 §2-§4, seed 002 §1-§3).
#pragma once

#include <string>
#include <vector>

#include "sbufsim/app/app.h"
#include "sbufsim/config/config.h"

namespace sbufsim::app {

struct DecodeRequest {
    std::vector<std::string> addresses;  // 0xHEX | DECIMAL | [sbuf:|psum:]p=P,off=O | soc:0xHEX
    LoadRequest config;
    bool oneline = false;  // one key=value line per address (for scripts)
};

// Decodes every address (all of them checked before anything is printed: one that is not an
// address is kExitUsage, said on err) and prints them: kExitOk when all are valid, kExitFindings
// when one is not (a pad, off-chip, no PSUM, ...). Throws ConfigError for the configuration.
int decode_addresses(const DecodeRequest& request, Io io);

}  // namespace sbufsim::app
