// `sbufsim convert IN OUT`: text ↔ binary trace conversion, lossless both ways. Streams: one
// record in memory at a time. Checks syntax only (use `sbufsim check` for the hardware rules).
#include <cstdio>
#include <fstream>
#include <iostream>
#include <ostream>
#include <string>
#include <vector>

#include <spdlog/spdlog.h>

#include "cli/commands.h"
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
    "exit status: 0 converted, 2 bad command line, 3 IN unreadable or malformed (OUT is removed).\n";

}  // namespace

int cmd_convert(const std::vector<std::string>& args, Io io) {
    std::vector<std::string> files;
    std::string log_level, to;
    bool help = false;

    po::options_description visible("Options");
    visible.add_options()
        ("help,h", po::bool_switch(&help), "show this help")
        ("to", po::value(&to)->value_name("FORMAT"), "output form: text or binary (default: from OUT's extension)");
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
    std::ofstream file;
    if (!to_stdout) {
        file.open(out_path, std::ios::binary | std::ios::trunc);
        if (!file) {
            io.err << "sbufsim convert: cannot write " << out_path << "\n";
            return kExitUsage;
        }
    }
    std::ostream& out = to_stdout ? io.out : file;
    auto fail = [&](const std::string& what) {
        io.err << "sbufsim convert: " << what << "\n";
        if (!to_stdout) {
            file.close();
            std::remove(out_path.c_str());   // never leave a half-converted trace behind
        }
        return kExitInput;
    };
    try {
        TraceWriter writer(out, format, reader->header());
        Record rec;
        while (reader->next(rec)) writer.write(rec);
        writer.flush();
        io.err << "sbufsim convert: " << reader->records_read() << " records, " << to_string(reader->format())
               << " -> " << to_string(format) << "\n";
    } catch (const TraceFormatError& e) {
        return fail(e.what());
    } catch (const std::runtime_error& e) {
        return fail(std::string(e.what()) + " (" + out_path + ")");
    }
    return kExitOk;
}

}  // namespace sbufsim::cli
