// `sbufsim convert IN OUT`: the command line of `convert` (sbufsim/app/convert.h), text <-> binary.
#include <string>
#include <vector>

#include "cli/commands.h"
#include "sbufsim/app/convert.h"

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
    visible.add_options()("help,h", po::bool_switch(&help), "show this help")(
        "to", po::value(&to)->value_name("FORMAT"),
        "output form: text or binary (default: from OUT's extension)");
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
        io.err << "sbufsim convert: expected IN and OUT, got " << files.size()
               << " file(s) (see sbufsim convert --help)\n";
        return kExitUsage;
    }
    return convert_trace(ConvertRequest{files[0], files[1], to, force}, io);
}

}  // namespace sbufsim::cli
