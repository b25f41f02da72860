// libFuzzer target: the trace readers (text and binary, recognised from the first bytes) and the
// checker. Properties beyond "no crash, no sanitizer report": a trace that reads cleanly writes
// back in both forms, and what was written reads again to the same records (the binary reader
// accepts only what the text form can carry). scripts/fuzz.sh builds and runs it.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "sbufsim/config/config.h"
#include "sbufsim/trace/trace.h"
#include "sbufsim/trace/trace_check.h"

using namespace sbufsim;

namespace {

const Params& cayman() {
    static const Params p = [] {
        LoadRequest r;
        r.generation = "cayman";
        return load_config(r).params;
    }();
    return p;
}

// Every record of `bytes`, or false at the first error.
bool read_all(const std::string& bytes, TraceHeader& header, std::vector<Record>& out, std::vector<std::string>& names) {
    std::istringstream in(bytes);
    try {
        TraceReader r(in, "fuzz");
        header = r.header();
        Record rec;
        while (r.next(rec)) {
            // Views point into the reader's name and site tables: keep copies for after it is gone.
            names.emplace_back(rec.client);
            names.emplace_back(rec.queue);
            names.emplace_back(rec.fn);
            names.emplace_back(rec.site);  // the source location's site (loc=), also the reader's
            out.push_back(rec);
        }
        // The names again from the copies (the reader that owned them goes away).
        for (std::size_t i = 0; i < out.size(); ++i) {
            out[i].client = names[4 * i];
            out[i].queue = names[4 * i + 1];
            out[i].fn = names[4 * i + 2];
            out[i].site = names[4 * i + 3];
        }
        return true;
    } catch (const TraceFormatError&) {
        return false;
    }
}

std::string write_all(TraceFormat f, const TraceHeader& h, const std::vector<Record>& recs) {
    std::ostringstream out;
    TraceWriter w(out, f, h);
    for (const auto& r : recs) w.write(r);
    w.finish();
    return out.str();
}

// Reads `a` and `b` side by side, `a` into one reused Record, `b` into a fresh Record per read
// with `fresh_b`: aborts unless every read gives the same status and the same record or error.
void check_same_reading(const std::string& a, const std::string& b, bool fresh_b) {
    std::istringstream a_in(a), b_in(b);
    try {
        TraceReader a_reader(a_in, "fuzz"), b_reader(b_in, "fuzz");
        Record ar, reused_br;
        TraceError ae, be;
        for (;;) {
            Record fresh_br;
            Record& br = fresh_b ? fresh_br : reused_br;
            const ReadStatus as = a_reader.read(ar, ae), bs = b_reader.read(br, be);
            if (as != bs) std::abort();
            if (as == ReadStatus::end) return;
            if (as == ReadStatus::error
                    ? ae.to_string() != be.to_string()
                    : !same_record(ar, br) || ar.client_id != br.client_id || ar.line != br.line)
                std::abort();
        }
    } catch (const TraceFormatError&) {
        // A bad header: both readers refuse it alike (the header line is the same).
    }
}

// Access lines have a one-pass reading that a line starting with a blank never takes
// (TraceReader::Impl::quick_access): the text read as it is and with a blank before every line
// after the header must give the same records, or the same errors, read by read.
void check_quick_reading(const std::string& bytes) {
    const std::size_t header_end = bytes.find('\n');
    if (header_end == std::string::npos) return;
    std::string blanked = bytes.substr(0, header_end + 1);
    for (std::size_t from = header_end + 1; from < bytes.size();) {
        const std::size_t nl = std::min(bytes.find('\n', from), bytes.size() - 1);
        blanked += ' ';
        blanked.append(bytes, from, nl + 1 - from);
        from = nl + 1;
    }
    check_same_reading(bytes, blanked, false);
}

// A Record reused from read to read is reset only in the fields the last access record set, and
// a binary access record read over one skips read_binary_record's dispatch
// (detail::read_binary_access): reading into one reused Record must give the records and errors
// reading into a fresh Record each time gives, in either form.
void check_reused_record(const std::string& bytes) { check_same_reading(bytes, bytes, true); }

}  // namespace

// One input; aborts when a property fails (tests/test_fuzz_regressions.cpp replays the kept inputs).
int fuzz_trace_one(const std::uint8_t* data, std::size_t size) {
    const std::string bytes(reinterpret_cast<const char*>(data), size);
    // (Below 64 KiB: no line, even with the blank, reaches the reader's line length limit.)
    if (bytes.compare(0, kTraceTextMagic.size(), kTraceTextMagic) == 0 && bytes.size() < 65536)
        check_quick_reading(bytes);
    if (bytes.size() < 65536) check_reused_record(bytes);
    TraceHeader header;
    std::vector<Record> records;
    std::vector<std::string> names;
    if (!read_all(bytes, header, records, names)) return 0;
    TraceChecker checker(cayman(), "fuzz");
    std::vector<TraceError> findings;
    checker.check_header(header, findings);
    for (const auto& r : records) checker.check(r, findings);
    checker.finish(findings);
    for (const auto& e : findings) (void)e.to_string();

    for (const TraceFormat f : {TraceFormat::text, TraceFormat::binary}) {
        const std::string written = write_all(f, header, records);
        TraceHeader again_header;
        std::vector<Record> again;
        std::vector<std::string> again_names;
        if (!read_all(written, again_header, again, again_names) || again.size() != records.size()) std::abort();
        for (std::size_t i = 0; i < again.size(); ++i)
            if (!same_record(again[i], records[i])) std::abort();
    }
    return 0;
}

#ifndef SBUFSIM_FUZZ_NO_ENTRY
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) { return fuzz_trace_one(data, size); }
#endif
