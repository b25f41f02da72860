// `convert` (sbufsim/app/convert.h): one record in memory at a time; OUT renamed into place only
// when the whole trace converted.
#include "sbufsim/app/convert.h"

#include <memory>
#include <ostream>

#include <spdlog/spdlog.h>

#include "sbufsim/app/outputs.h"
#include "sbufsim/output/output_file.h"
#include "sbufsim/trace/trace.h"

namespace sbufsim::app {

int convert_trace(const ConvertRequest& r, Io io) {
    const std::string& in_path = r.in;
    const std::string& out_path = r.out;
    const std::string& to = r.to;
    TraceFormat format = format_for_path(out_path);
    if (to == "binary")
        format = TraceFormat::binary;
    else if (to == "text")
        format = TraceFormat::text;
    else if (!to.empty()) {
        io.err << "sbufsim convert: --to must be text or binary, not '" << to << "'\n";
        return kExitUsage;
    }
    const bool to_stdout = out_path == "-";
    spdlog::info("convert: {} ({}) -> {} ({})", in_path, to_string(format_for_path(in_path)), out_path,
                 to_string(format));
    if (to_stdout && format == TraceFormat::binary) {
        io.err << "sbufsim convert: refusing to write binary to stdout\n";
        return kExitUsage;
    }

    std::unique_ptr<TraceReader> reader;
    try {
        reader = std::make_unique<TraceReader>(in_path);
    } catch (const TraceFormatError& e) {
        io.err << "sbufsim convert: " << e.what() << "\n";
        return kExitInput;
    }
    // Opened before reading a record: OUT may not be IN (reading it while truncating it would
    // lose it), and a refused path fails before any work.
    std::unique_ptr<OutputFile> file;
    if (!to_stdout)
        file = std::make_unique<OutputFile>(out_path, trace_output_policy("OUT", r.force, {in_path}));
    std::ostream& out = to_stdout ? io.out : file->stream();
    try {
        if (format == TraceFormat::text) out << trace_mark("convert") << '\n';
        TraceWriter writer(out, format, reader->header());
        Record rec;
        while (reader->next(rec)) writer.write(rec);
        writer.finish();
        if (file) file->commit();
        io.err << "sbufsim convert: " << reader->records_read() << " records, " << to_string(reader->format())
               << " -> " << to_string(format) << "\n";
    } catch (const OutputError&) {
        throw;
    } catch (const TraceFormatError& e) {
        io.err << "sbufsim convert: " << e.what() << "\n";
        return kExitInput;  // the temporary is removed with `file`; OUT is untouched
    } catch (const std::runtime_error& e) {
        if (file) file->check();  // a failed write: its OS reason
        io.err << "sbufsim convert: " << e.what() << " (" << out_path << ")\n";
        return kExitInput;
    }
    return kExitOk;
}

}  // namespace sbufsim::app
