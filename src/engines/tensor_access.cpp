#include "sbufsim/engines/tensor_access.h"

namespace sbufsim {

Request make_request(ClientId client, Op op, const TensorAccess& a, Cycle issue) {
    Request r;
    r.client = client;
    r.op = op;
    r.region = a.region;
    r.first_partition = a.first;
    r.partitions = a.parts;
    r.offset = a.offset;
    r.bytes = a.bytes;
    r.issue = issue;
    return r;
}

}  // namespace sbufsim
