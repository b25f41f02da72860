// `sbufsim convert IN OUT`: text ↔ binary trace conversion, lossless both ways. Streams: one
// record in memory at a time. Checks syntax only (use `sbufsim check` for the hardware rules).
#include <iostream>
#include <ostream>
#include <string>
#include <vector>

#include <spdlog/spdlog.h>

#include "cli/commands.h"
#include "cli/outputs.h"
#include "sbufsim/trace/trace.h"

namespace po = boost::program_options;

namespace sbufsim::cli {

namespace {

constexpr const char* kConvertHelp =
    "usage: sbufsim convert IN OUT [--to text|binary]\n\n"
    "Convert a trace between the text form (.trc) and the binary form (.sbt), in either direction;\n"
    "IN's form is recognised from its first bytes, OUT's from --to, else from its extension\n"
    "(.sbt = binary, anything else = text). OUT '-' writes text to stdout. The output is canonical:\n"
    "text -> binary -> text gives the same text, binary -> text -> binary the same bytes.\n"
    "Only the syntax is checked; run `sbufsim check` for the hardware rules.\n\n"
    "examples:\n"
    "  sbufsim convert traces/matmul_kloop.trc /tmp/kloop.sbt\n"
    "  sbufsim convert /tmp/kloop.sbt -            (print as text)\n"
    "  sbufsim convert in.trc out.bin --to binary\n\n"
    "OUT is written to a temporary file beside it and renamed into place only when the whole trace\n"
    "converted; on any failure nothing at OUT changes. OUT may not be IN. An existing OUT is\n"
    "replaced without --force only when sbufsim wrote it: a binary trace, or a text trace whose\n"
    "first line is the mark gen and convert write ('# written by sbufsim ...').\n\n"
    "exit status: 0 converted, 2 bad command line or OUT refused (IN itself, a directory, a file\n"
    "sbufsim did not write without --force, not writable), 3 IN unreadable or malformed, or OUT could not "
    "be\n"
    "written (the disk is full: the reason is printed).\n";

}  // namespace

int cmd_convert(const std::vector<std::string>& args, Io io) {
    std::vector<std::string> files;
    std::string log_level, to;
    bool help = false, force = false;

    po::options_description visible("Options");
    visible.add_options()
        ("help,h", po::bool_switch(&help), "show this help")
        ("to", po::value(&to)->value_name("FORMAT"), "output form: text or binary (default: from OUT's extension)");
    add_force_option(visible, force);
    add_log_level_option(visible, log_level);
    po::options_description hidden;
    hidden.add_options()("file", po::value(&files)->composing(), "IN and OUT");
    po::options_description all;
    all.add(visible).add(hidden);
    po::positional_options_description pos;
    pos.add("file", -1);

    parse_args(args, all, &pos, log_level);

    if (help) {
        io.out << kConvertHelp << "\n" << visible;
        return kExitOk;
    }
    if (files.size() != 2) {
        io.err << "sbufsim convert: expected IN and OUT, got " << files.size() << " file(s) (see sbufsim convert --help)\n";
        return kExitUsage;
    }
    const std::string& in_path = files[0];
    const std::string& out_path = files[1];
    TraceFormat format = format_for_path(out_path);
    if (to == "binary") format = TraceFormat::binary;
    else if (to == "text") format = TraceFormat::text;
    else if (!to.empty()) {
        io.err << "sbufsim convert: --to must be text or binary, not '" << to << "'\n";
        return kExitUsage;
    }
    const bool to_stdout = out_path == "-";
    spdlog::info("convert: {} ({}) -> {} ({})", in_path, to_string(format_for_path(in_path)), out_path, to_string(format));
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
        file = std::make_unique<OutputFile>(out_path, trace_output_policy("OUT", force, {in_path}));
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
        return kExitInput;   // the temporary is removed with `file`; OUT is untouched
    } catch (const std::runtime_error& e) {
        if (file) file->check();   // a failed write: its OS reason
        io.err << "sbufsim convert: " << e.what() << " (" << out_path << ")\n";
        return kExitInput;
    }
    return kExitOk;
}

}  // namespace sbufsim::cli
