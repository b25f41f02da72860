#include "sbufsim/app/outputs.h"

#include <utility>

#include "sbufsim/output/report.h"
#include "sbufsim/trace/trace.h"

namespace sbufsim::app {

namespace {

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

// A text trace's first line starts with this comment (kWrittenBy), then the command's name.
std::string trace_mark_head() { return "# " + std::string(kWrittenBy) + " "; }

}  // namespace

bool is_written_trace(std::string_view head) {
    return starts_with(head, std::string_view(kTraceBinaryMagic.data(), kTraceBinaryMagic.size())) ||
           starts_with(head, trace_mark_head());
}

std::string trace_mark(std::string_view command) {
    return trace_mark_head() + std::string(command) +
           "; sbufsim replaces this file when told to write it again (delete this line to keep it)";
}

OutputPolicy trace_output_policy(std::string role, bool force, std::vector<std::string> inputs) {
    OutputPolicy p = output_policy(std::move(role), is_written_trace, force, std::move(inputs));
    p.own_kind_rule =
        "only a trace sbufsim wrote is replaced: a binary trace, or a text trace whose first line starts "
        "'# " +
        std::string(kWrittenBy) + "'";
    return p;
}

bool is_run_json(std::string_view head) {
    return starts_with(head, "{") && head.find("\"tool\": \"sbufsim\"") != std::string_view::npos;
}

bool is_run_csv(std::string_view head) { return starts_with(head, "trace,section,name,metric,value\n"); }

bool is_run_stats(std::string_view head) { return starts_with(head, kStatsBegin); }

bool is_timeline(std::string_view head) { return starts_with(head, "{\"otherData\":{\"tool\":\"sbufsim\""); }

// An SVG sbufsim drew says so in a comment before its root element (svg::Writer); a PNG in the
// Software text chunk after its header chunk (mark_png). Another tool's picture is the user's.
bool is_picture(std::string_view head) {
    if (starts_with(head, "\x89PNG")) return head.find(png_mark()) != std::string_view::npos;
    if (!starts_with(head, "<?xml") && !starts_with(head, "<svg")) return false;
    const std::size_t mark = head.find("<!-- " + std::string(kWrittenBy));
    return mark != std::string_view::npos && mark < head.find("<svg");
}

std::string png_mark() { return std::string("tEXtSoftware") + '\0' + std::string(kWrittenBy); }

// The clocked scheduler's VCD writer starts with sbufsim's comment (kVcdMark, IEEE 1364 §18.2.3
// $comment) before SystemC's $date section.
bool is_vcd(std::string_view head) {
    return starts_with(head, "$comment") &&
           head.substr(0, head.find("$end")).find(kWrittenBy) != std::string_view::npos;
}

bool is_sweep_json(std::string_view head) {
    return head == "[]\n" || head == "[\n]\n" || starts_with(head, "[\n  {\"trace\": ");
}

OutputPolicy output_policy(std::string role, bool (*own_kind)(std::string_view), bool force,
                           std::vector<std::string> inputs) {
    OutputPolicy p;
    p.role = std::move(role);
    if (own_kind != nullptr) p.own_kind = own_kind;
    p.force = force;
    p.inputs = std::move(inputs);
    return p;
}

OutputPolicy vcd_output_policy(std::string role, bool force, std::vector<std::string> inputs) {
    OutputPolicy p = output_policy(std::move(role), is_vcd, force, std::move(inputs));
    p.temp_suffix = ".vcd";
    p.own_kind_rule =
        "only a waveform sbufsim wrote is replaced: a VCD whose first section is the comment '" +
        std::string(kWrittenBy) + " run --vcd; ...'";
    return p;
}

OutputPolicy picture_output_policy(std::string role, bool force, std::vector<std::string> inputs) {
    OutputPolicy p = output_policy(std::move(role), is_picture, force, std::move(inputs));
    p.own_kind_rule = "only a picture sbufsim drew is replaced: an SVG with the comment '<!-- " +
                      std::string(kWrittenBy) + "' before its <svg>, or a PNG whose Software text says so";
    return p;
}

}  // namespace sbufsim::app
