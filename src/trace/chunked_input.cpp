#include "chunked_input.h"

#include <algorithm>
#include <cstring>

namespace sbufsim::detail {

namespace {
// FNV-1a 64 over [p, p + n), continuing from `h`; eight bytes per turn of the loop (the chain
// of multiplies stays serial, the loop overhead does not).
std::uint64_t fnv1a(const char* p, std::size_t n, std::uint64_t h) {
    constexpr std::uint64_t kPrime = 0x100000001b3ull;
    const auto* b = reinterpret_cast<const unsigned char*>(p);
    std::size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        h = (h ^ b[i]) * kPrime;
        h = (h ^ b[i + 1]) * kPrime;
        h = (h ^ b[i + 2]) * kPrime;
        h = (h ^ b[i + 3]) * kPrime;
        h = (h ^ b[i + 4]) * kPrime;
        h = (h ^ b[i + 5]) * kPrime;
        h = (h ^ b[i + 6]) * kPrime;
        h = (h ^ b[i + 7]) * kPrime;
    }
    for (; i < n; ++i) h = (h ^ b[i]) * kPrime;
    return h;
}
}  // namespace

ChunkedInput::ChunkedInput(std::istream& in, bool hash, std::size_t chunk)
    : in_(in), buf_(std::make_unique_for_overwrite<char[]>(chunk)), size_(chunk), hash_(hash) {}

bool ChunkedInput::failed() const { return in_.bad(); }

bool ChunkedInput::fill(std::size_t need) {
    // Move the unread tail to the front, grow only when one item is larger than the buffer.
    if (pos_ > 0) {
        std::memmove(buf_.get(), buf_.get() + pos_, end_ - pos_);
        end_ -= pos_;
        pos_ = 0;
    }
    if (need > size_) {
        auto bigger = std::make_unique_for_overwrite<char[]>(need);
        std::memcpy(bigger.get(), buf_.get(), end_);
        buf_ = std::move(bigger);
        size_ = need;
    }
    while (end_ < need && !eof_) {
        const auto got =
            in_.rdbuf() ? in_.rdbuf()->sgetn(buf_.get() + end_, static_cast<std::streamsize>(size_ - end_))
                        : 0;
        if (got <= 0) {
            eof_ = true;
        } else {
            // Hashed here, once, while the bytes are in cache. Only on request: FNV-1a is a
            // byte-serial chain of multiplies (about 4 cycles a byte), which a replay that
            // reports no digest (sweeps, benchmarks) should not pay.
            if (hash_) digest_ = fnv1a(buf_.get() + end_, static_cast<std::size_t>(got), digest_);
            end_ += static_cast<std::size_t>(got);
        }
    }
    return end_ >= need;
}

namespace {
// A whole line that fits in the buffer: itself, or (past `max_line`) its head, flagged too long.
std::string_view head_of(const char* begin, std::size_t len, std::size_t max_line, bool& too_long) {
    too_long = len > max_line;
    return std::string_view(begin, too_long ? 80 : len);
}
}  // namespace

bool ChunkedInput::next_line(std::string_view& line, bool& too_long, std::size_t max_line) {
    too_long = false;
    for (;;) {
        const char* begin = buf_.get() + pos_;
        const std::size_t avail = end_ - pos_;
        if (const void* nl = std::memchr(begin, '\n', avail)) {
            const std::size_t len = static_cast<std::size_t>(static_cast<const char*>(nl) - begin);
            line = head_of(begin, len, max_line, too_long);
            pos_ += len + 1;
            return true;
        }
        if (eof_) {
            if (avail == 0) return false;
            line = head_of(begin, avail, max_line, too_long);  // last line without a newline
            pos_ = end_;
            return true;
        }
        if (avail >= max_line) {
            // Skip the rest of an absurdly long line; report its head.
            too_long = true;
            line = std::string_view(begin, std::min<std::size_t>(avail, 80));
            pos_ = end_;
            for (;;) {
                if (!fill(1)) return true;
                const char* b = buf_.get() + pos_;
                if (const void* nl = std::memchr(b, '\n', end_ - pos_)) {
                    pos_ += static_cast<std::size_t>(static_cast<const char*>(nl) - b) + 1;
                    return true;
                }
                pos_ = end_;
            }
        }
        fill(avail + 1);
    }
}

}  // namespace sbufsim::detail
