// One bank request as the kernel sees it, and the ids that name requests.
//
// A request asks one client's port to move `bytes` bytes in each of `partitions` consecutive
// partitions starting at `first_partition`, starting at byte `offset` inside each partition. The
// kernel splits it into beats with the client's width (clients.h) and arbitrates beat by beat.
#pragma once

#include <cstdint>
#include <limits>

#include "sbufsim/types/types.h"

namespace sbufsim {

// ClientId, Cycle, Op and Region are the shared vocabulary: types/types.h.

// Kernel-assigned request id: the client index in the top bits, the client's submission sequence
// number below. Requests of one client complete in submission order, so "is id complete?" is
// one compare against the client's completed count (no table, no map).
enum class RequestId : std::uint64_t {};
inline constexpr RequestId kNoRequest{std::numeric_limits<std::uint64_t>::max()};
inline constexpr int kRequestSeqBits = 48;
inline constexpr RequestId make_request_id(ClientId c, std::uint64_t seq) {
    return RequestId{(std::uint64_t{index(c)} << kRequestSeqBits) | seq};
}
inline constexpr ClientId request_client(RequestId id) {
    return ClientId{static_cast<std::uint16_t>(static_cast<std::uint64_t>(id) >> kRequestSeqBits)};
}
inline constexpr std::uint64_t request_seq(RequestId id) {
    return static_cast<std::uint64_t>(id) & ((std::uint64_t{1} << kRequestSeqBits) - 1);
}

struct Request {
    ClientId client{};
    Op op = Op::rd;
    Region region = Region::sbuf;
    std::uint16_t first_partition = 0;
    std::uint16_t partitions = 1;     // >= 1
    std::uint32_t offset = 0;         // byte offset inside each partition
    std::uint32_t bytes = 1;          // bytes per partition, >= 1
    Cycle issue = 0;                  // first cycle the request may move (past cycles mean now())
    std::uint64_t tag = 0;            // caller's own id, handed back in the Completion
    RequestId after = kNoRequest;     // must complete before this one may move ("dependency")
};

// What the kernel reports when a request's last beat has been granted.
struct Completion {
    RequestId id{};
    std::uint64_t tag = 0;
    ClientId client{};
    Cycle issue = 0;      // the request's issue cycle (after clamping to the submit time)
    Cycle start = 0;      // first cycle its head beat was ready: max(issue, previous done + 1)
    Cycle done = 0;       // cycle in which its last beat was granted
    std::uint32_t beats = 0;
};

}  // namespace sbufsim
