// A large read buffer over an istream: lines and fixed-size records without a copy per record.
// Private to the trace area: the text reader (trace_text.cpp) and the binary records
// (trace_binary.cpp) read through it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <istream>
#include <memory>
#include <string_view>

namespace sbufsim::detail {

class ChunkedInput {
public:
    // With `hash`, every byte read is hashed into digest(). `chunk`: the buffer, reused for the
    // whole file; twice the longest line a text trace may have, and small enough that the pages
    // the reads fault in (about 10 us each on some virtual machines) stay few.
    explicit ChunkedInput(std::istream& in, bool hash = false, std::size_t chunk = std::size_t{1} << 17);
    // At least `n` bytes buffered at the returned pointer, or nullptr when the stream ends first
    // (available() then says how many are left).
    const char* peek(std::size_t n) {
        if (end_ - pos_ >= n) [[likely]]
            return buf_.get() + pos_;  // inline: called per record
        return fill(n) ? buf_.get() + pos_ : nullptr;
    }
    std::size_t available() const { return end_ - pos_; }
    void consume(std::size_t n) { pos_ += n; }
    // The next line without its '\n'; false at the end. A line longer than `max_line` is
    // returned truncated with `too_long` set (the rest of it is skipped).
    bool next_line(std::string_view& line, bool& too_long, std::size_t max_line = 65536);
    bool failed() const;   // an I/O error (not end of file)
    // FNV-1a 64 of every byte read from the stream so far (the same function as fnv1a64 in
    // output/report.h), so that the digest of a trace read to its end needs no second pass.
    std::uint64_t digest() const { return digest_; }
    // The stream's end has been reached (every byte of it went through digest()).
    bool at_end() const { return eof_; }
    bool hashing() const { return hash_; }

private:
    bool fill(std::size_t need);
    std::istream& in_;
    // Not zeroed: the stream fills it, and zeroing 1 MiB would touch every page of it even for
    // a trace a fraction of that size (a page fault each).
    std::unique_ptr<char[]> buf_;
    std::size_t size_ = 0;
    std::size_t pos_ = 0, end_ = 0;
    bool eof_ = false;
    bool hash_ = false;
    std::uint64_t digest_ = 0xcbf29ce484222325ull;
};

}  // namespace sbufsim::detail
