// `convert`: text <-> binary trace conversion, lossless both ways, streamed. Checks syntax only
// (`check` checks the hardware rules).
#pragma once

#include <string>

#include "sbufsim/app/app.h"

namespace sbufsim::app {

struct ConvertRequest {
    std::string in, out;  // out "-": text on the output stream
    std::string to;       // text | binary ("" = from out's extension)
    bool force = false;   // replace an out sbufsim did not write
};

// kExitOk, or the status after saying why on err; throws OutputError for a refused out.
int convert_trace(const ConvertRequest& request, Io io);

}  // namespace sbufsim::app
