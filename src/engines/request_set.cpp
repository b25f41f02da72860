#include "sbufsim/engines/request_set.h"

namespace sbufsim {

// A later request of a client already in the set replaces its earlier one: it completes after it.
void RequestSet::add(RequestId id) {
    for (std::uint8_t i = 0; i < n; ++i)
        if (request_client(ids[i]) == request_client(id)) {
            ids[i] = id;
            return;
        }
    ids[n++] = id;
}

}  // namespace sbufsim
