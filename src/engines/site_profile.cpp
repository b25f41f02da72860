#include "sbufsim/engines/site_profile.h"

namespace sbufsim {

const char* to_string(EngineGroup g) {
    switch (g) {
        case EngineGroup::pe:
            return "pe";
        case EngineGroup::act:
            return "act";
        case EngineGroup::pool:
            return "pool";
        case EngineGroup::dve:
            return "dve";
        case EngineGroup::dma:
            return "dma";
        case EngineGroup::q7:
            return "q7";
        case EngineGroup::count:
            break;
    }
    return "?";
}

}  // namespace sbufsim
