// sbufsim._core: the compiled part of the Python package (docs/python.md). A thin layer over the
// C++ core; the package's pure-Python modules (python/sbufsim/) give it its Python shape.
//
//   load_config        the configuration loader (LoadRequest -> LoadedConfig), as `--gen/--config/--set`
//   run                one trace, fast or clocked scheduler, through the run step of the command
//                      line (app::replay_trace); the statistics as the JSON that `sbufsim run
//                      --json` writes (the Python side parses it into dicts) and the summary table
//   check_trace,       the application layer's check and convert requests (sbufsim/app/), with
//   convert_trace      the command line's streams, errors and exit status
//   sweep              the application layer's sweep request (app/sweep.h), its rows as the JSON
//                      that `sbufsim sweep --json -` writes
//   generate           the application layer's gen request (app/generate_options.h), from the
//                      options as (name, text) pairs
//   cli                the command line itself with captured streams (sbufsim.command)
//
// The GIL is released while anything simulates. SystemC keeps its simulation context in globals,
// so clocked runs take one process-wide lock: several threads may ask, one clocked run goes at a
// time (fast runs are independent and run in parallel). Errors become the exception classes of
// sbufsim.errors with the command line's text (file:line: field: reason).
#include <dlfcn.h>

#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "cli/cli.h"
#include "models/replay/clocked_replay.h"
#include "sbufsim/app/check.h"
#include "sbufsim/app/convert.h"
#include "sbufsim/app/generate_options.h"
#include "sbufsim/app/outputs.h"
#include "sbufsim/app/run.h"
#include "sbufsim/app/sweep.h"
#include "sbufsim/config/config.h"
#include "sbufsim/config/data_dirs.h"
#include "sbufsim/kernel/clients.h"
#include "sbufsim/output/report.h"
#include "sbufsim/replay/replay.h"
#include "sbufsim/sweep/sweep.h"

namespace py = pybind11;

namespace sbufsim::python {

namespace {

// ---- errors -----------------------------------------------------------------------------------

// Raises sbufsim.errors.<name>(message) with extra attributes (the GIL is held in translators).
void raise(const char* name, const std::string& message, const py::dict& attrs = {}) {
    py::object cls = py::module_::import("sbufsim.errors").attr(name);
    py::object exc = cls(message);
    for (auto item : attrs) py::setattr(exc, item.first, item.second);
    PyErr_SetObject(cls.ptr(), exc.ptr());
}

void translate(std::exception_ptr p) {
    try {
        if (p) std::rethrow_exception(p);
    } catch (const ConfigError& e) {
        raise("ConfigError", e.what());
    } catch (const TraceFormatError& e) {
        const TraceError& t = e.error();
        py::dict attrs;
        attrs["file"] = t.file;
        attrs["line"] = t.line;
        attrs["field"] = t.field;
        attrs["reason"] = t.reason;
        attrs["rule"] = t.rule;
        raise("TraceError", t.to_string(), attrs);
    } catch (const OutputError& e) {
        // As the command line: a path refused before the work is exit 2, a failed write 3.
        py::dict attrs;
        attrs["exit_status"] = e.kind() == OutputError::Kind::refused ? 2 : 3;
        raise("OutputError", e.what(), attrs);
    } catch (const ReplayError& e) {
        // As `sbufsim run` prints it: the message (with the first problem), then up to 19 more.
        std::string message = e.what();
        py::list errors;
        for (std::size_t i = 0; i < e.errors().size(); ++i) {
            const std::string line = e.errors()[i].to_string();
            errors.append(line);
            if (i >= 1 && i < 20) message += "\n  " + line;
        }
        py::dict attrs;
        attrs["kind"] = e.kind() == ReplayError::Kind::deadlock ? "deadlock" : "invalid_trace";
        attrs["errors"] = errors;
        raise("ReplayError", message, attrs);
    }
}

// ---- data directories -------------------------------------------------------------------------

// This module's own file: dladdr on a function of the module names the shared object.
std::filesystem::path module_file() {
    Dl_info info{};
    if (::dladdr(reinterpret_cast<void*>(&module_file), &info) == 0 || info.dli_fname == nullptr) return {};
    return std::filesystem::absolute(info.dli_fname);
}

// The shipped data next to the module: <site>/sbufsim/_core*.so of an install reaches
// <prefix>/share/sbufsim, build/python/sbufsim/_core*.so reaches build/share/sbufsim.
void set_module_data_roots() {
    const std::filesystem::path so = module_file();
    if (so.empty()) return;
    const std::filesystem::path dir = so.parent_path();
    set_data_roots({{(dir / SBUFSIM_MODULE_TO_DATA_INSTALLED).lexically_normal().string(),
                     "an install, next to the Python module " + so.string()},
                    {(dir / SBUFSIM_MODULE_TO_DATA_BUILD).lexically_normal().string(),
                     "a build tree, next to the Python module " + so.string()}});
}

// ---- configuration ----------------------------------------------------------------------------

using Overrides = std::vector<std::pair<std::string, std::string>>;

LoadRequest make_request(const std::string& generation, const std::vector<std::string>& files,
                         const Overrides& overrides, const std::string& config_dir) {
    LoadRequest r;
    r.generation = generation;
    r.user_files = files;
    r.config_dir = config_dir;
    for (const auto& [key, value] : overrides)
        r.overrides.push_back(Setting{key, value, Origin{kOverrides, 0}, {}});
    return r;
}

// A loaded configuration, read-only from Python.
struct Config {
    LoadedConfig loaded;

    std::string generation() const { return loaded.params.generation; }
    // Every key's value in INI form, in key-table order.
    std::vector<std::pair<std::string, std::string>> values() const {
        std::vector<std::pair<std::string, std::string>> out;
        for (const auto& k : key_table()) out.emplace_back(k.name, k.get(loaded.params));
        return out;
    }
    std::vector<std::pair<std::string, std::string>> origins() const {
        std::vector<std::pair<std::string, std::string>> out;
        for (std::size_t i = 0; i < key_table().size(); ++i)
            out.emplace_back(key_table()[i].name, loaded.origins[i].describe());
        return out;
    }
};

py::list key_list() {
    py::list keys;
    for (const auto& k : key_table()) {
        py::dict d;
        d["name"] = k.name;
        d["type"] = std::string(to_string(k.type));
        d["default"] = k.default_text;
        d["min"] = k.min;
        d["max"] = k.max;
        d["choices"] = k.choices;
        d["unit"] = k.unit;
        d["help"] = k.help;
        d["source"] = k.source;
        d["confidence"] = std::string(to_string(k.confidence));
        keys.append(d);
    }
    return keys;
}

// ---- replay -----------------------------------------------------------------------------------

struct RunRequest {
    LoadRequest config;
    std::string trace_path;  // a trace file, or (when empty)
    std::string trace_text;  // a text trace built in Python, named
    std::string trace_name;
    std::string scheduler = "fast";
    bool lenient = false;
    Cycle window_stats = 0;  // per-N-cycle rows (--window-stats N); 0 = none
    std::string vcd;         // clocked: waveform file
    bool force = false;      // replace a vcd file of another kind
};

// SystemC's simulation context is global: one clocked replay at a time in this process.
std::mutex clocked_mutex;

// The clocked scheduler as the run step takes it: the models are linked into this module.
ReplayResult replay_clocked(const Params& p, TraceReader& reader, const ReplayOptions& o,
                            const std::string& vcd, std::ostream* hierarchy) {
    const std::lock_guard<std::mutex> lock(clocked_mutex);
    models::ClockedOptions c{vcd};
    c.hierarchy = hierarchy;
    return models::replay_clocked(p, reader, o, c).result;
}

// The run as `sbufsim run --json`, its summary table, and the notes `run` prints about the
// settings (settings_without_effect()): the command line's run step (app::replay_trace). No
// Python object is touched: called with the GIL released.
std::tuple<std::string, std::string, std::vector<std::string>> run_trace(const RunRequest& r) {
    std::istringstream text(r.trace_text);
    std::unique_ptr<TraceReader> reader = r.trace_path.empty()
                                              ? std::make_unique<TraceReader>(text, r.trace_name)
                                              : std::make_unique<TraceReader>(r.trace_path);
    const LoadedConfig cfg = app::trace_config(r.config, *reader);
    app::TraceReplay step;
    step.options.lenient = r.lenient;
    step.probe = r.window_stats != 0;
    step.probe_options = app::probe_options(false, !r.vcd.empty(), r.window_stats);
    // The waveform file gets the command line's checks before the work (never an input, never a
    // file of another kind, complete or absent). SystemC's VCD writer checks none of its writes, so
    // it writes a FIFO whose bytes FifoCopy passes through the checked output (a device in place, a
    // full disk an error); commit() renames the temporary into place.
    std::unique_ptr<OutputFile> vcd;
    std::unique_ptr<FifoCopy> waveform;
    if (!r.vcd.empty()) {
        std::vector<std::string> inputs = r.config.user_files;
        if (!r.trace_path.empty()) inputs.push_back(r.trace_path);
        vcd = std::make_unique<OutputFile>(r.vcd, app::vcd_output_policy("vcd file", r.force, inputs));
        waveform = std::make_unique<FifoCopy>(*vcd, "waveform.vcd");
        step.vcd = waveform->path();
    }
    if (r.scheduler != "fast" && r.scheduler != "clocked")
        throw ConfigError("unknown scheduler '" + r.scheduler + "' (fast or clocked)");
    if (r.scheduler == "fast" && !r.vcd.empty())
        throw ConfigError("a VCD file records the clocked scheduler's signals: use scheduler='clocked'");
    const app::ClockedReplay clocked = replay_clocked;
    if (r.scheduler == "clocked") step.clocked = &clocked;
    app::ReplayedTrace replayed = app::replay_trace(cfg, *reader, std::move(step));
    if (vcd) {
        waveform->finish();
        vcd->check();
        vcd->commit();
    }
    RunReport& rep = replayed.report;
    if (replayed.probe && replayed.probe->overflowed())
        throw std::invalid_argument("window_stats=" + std::to_string(r.window_stats) + ": more than " +
                                    std::to_string(kMaxActiveBins) +
                                    " windows with activity (the memory cap); use a wider window");
    if (replayed.probe)
        rep.windows =
            make_windows(*replayed.probe, rep.result.kernel, rep.result.total_cycles, r.window_stats);
    rep.info.trace_digest = r.trace_path.empty() ? hex16(fnv1a64(r.trace_text)) : file_digest(r.trace_path);

    std::ostringstream json, summary;
    write_json(json, {rep});
    print_summary(summary, rep);
    return {json.str(), summary.str(), settings_without_effect(cfg)};
}

// A text trace written from Python (Trace.write, KernelTrace.write) as gen, convert and nki -o
// write one: sbufsim's mark first, through a temporary renamed into place, replacing only a trace
// sbufsim wrote unless `force`, never one of `inputs` (the trace's own file, the kernel's).
void write_trace(const std::string& path, const std::string& text, const std::string& command, bool force,
                 const std::vector<std::string>& inputs) {
    OutputFile out(path, app::trace_output_policy("trace", force, inputs));
    out.stream() << app::trace_mark(command) << '\n' << text;
    out.commit();
}

// `sbufsim args...` with captured streams: {exit status, stdout, stderr}.
// (exit status, stdout, stderr, whether an output path or write ended it: sbufsim.OutputError)
std::tuple<int, std::string, std::string, bool> run_cli(const std::vector<std::string>& args) {
    std::ostringstream out, err;
    cli::Failure failure{};
    const int rc = cli::run(args, cli::Io{out, err}, &failure);
    return {rc, out.str(), err.str(), failure == cli::Failure::output};
}

// A request of the application layer with captured streams, its errors handled as the command
// line handles them: (exit status, stdout, stderr, whether an output path or write ended it).
template <class Request>
std::tuple<int, std::string, std::string, bool> run_app(const char* command, Request&& request) {
    std::ostringstream out, err;
    cli::Failure failure{};
    const int rc = cli::run_request(command, app::Io{out, err}, &failure, [&] {
        return request(app::Io{out, err});
    });
    return {rc, out.str(), err.str(), failure == cli::Failure::output};
}

}  // namespace

}  // namespace sbufsim::python

PYBIND11_MODULE(_core, m) {
    using namespace sbufsim;
    using namespace sbufsim::python;
    m.doc() = "sbufsim's compiled core (use the sbufsim package, not this module)";

    // Diagnostics to stderr, as the command line does; thread-safe sink (runs may be threaded).
    if (!spdlog::get("sbufsim")) spdlog::set_default_logger(spdlog::stderr_color_mt("sbufsim"));
    spdlog::set_level(spdlog::level::warn);
    set_module_data_roots();
    py::register_exception_translator(&translate);

    m.attr("version") = SBUFSIM_VERSION;
    m.attr("revision") = cli::revision();

    py::class_<python::Config>(m, "LoadedConfig")
        .def_property_readonly("generation", &python::Config::generation)
        .def_property_readonly("generation_file",
                               [](const python::Config& c) { return c.loaded.generation_file; })
        .def("values", &python::Config::values)
        .def("origins", &python::Config::origins)
        .def(
            "ini", [](const python::Config& c, bool annotate) { return render_ini(c.loaded, annotate); },
            py::arg("annotate") = true);

    m.def(
        "load_config",
        [](const std::string& generation, const std::vector<std::string>& files, const Overrides& overrides,
           const std::string& config_dir) {
            return python::Config{load_config(make_request(generation, files, overrides, config_dir))};
        },
        py::arg("generation"), py::arg("files"), py::arg("overrides"), py::arg("config_dir"));
    m.def("generations", &generation_names);
    m.def("key_table", &key_list);

    m.def(
        "run",
        [](const std::string& generation, const std::vector<std::string>& files, const Overrides& overrides,
           const std::string& config_dir, const std::string& trace_path, const std::string& trace_text,
           const std::string& trace_name, const std::string& scheduler, bool lenient, Cycle window_stats,
           const std::string& vcd, bool force) {
            RunRequest r{make_request(generation, files, overrides, config_dir),
                         trace_path,
                         trace_text,
                         trace_name,
                         scheduler,
                         lenient,
                         window_stats,
                         vcd,
                         force};
            py::gil_scoped_release release;
            return run_trace(r);
        },
        py::arg("generation"), py::arg("files"), py::arg("overrides"), py::arg("config_dir"),
        py::arg("trace_path"), py::arg("trace_text"), py::arg("trace_name"), py::arg("scheduler"),
        py::arg("lenient"), py::arg("window_stats"), py::arg("vcd"), py::arg("force") = false);

    m.def(
        "cli",
        [](const std::vector<std::string>& args) {
            py::gil_scoped_release release;
            return run_cli(args);
        },
        py::arg("args"));

    // `check` of one trace under its own generation, as `sbufsim check PATH` (app/check.h).
    m.def(
        "check_trace",
        [](const std::string& path) {
            py::gil_scoped_release release;
            app::CheckRequest request;
            request.traces = {path};
            return run_app("check", [&](app::Io io) { return app::check_traces(request, io); });
        },
        py::arg("path"));
    // `convert IN OUT [--force]` (app/convert.h): the form from OUT's extension.
    m.def(
        "convert_trace",
        [](const std::string& in, const std::string& out, bool force) {
            py::gil_scoped_release release;
            return run_app("convert", [&](app::Io io) {
                return app::convert_trace(app::ConvertRequest{in, out, "", force}, io);
            });
        },
        py::arg("input"), py::arg("output"), py::arg("force") = false);

    // `gen WORKLOAD --NAME TEXT...` (app/generate_options.h): workload "" for a topology file.
    m.def(
        "generate",
        [](const std::string& workload, const std::vector<std::pair<std::string, std::string>>& options,
           const std::string& generation, const std::vector<std::string>& files, const Overrides& overrides,
           const std::string& config_dir) {
            py::gil_scoped_release release;
            return run_app("gen", [&](app::Io io) {
                return app::generate(
                    app::generate_request(workload, options,
                                          make_request(generation, files, overrides, config_dir)),
                    io);
            });
        },
        py::arg("workload"), py::arg("options"), py::arg("generation"), py::arg("files"),
        py::arg("overrides"), py::arg("config_dir"));

    // `sweep TRACE... --vary ... --json - --quiet` (app/sweep.h): the rows as JSON on stdout.
    m.def(
        "sweep",
        [](const std::string& generation, const std::vector<std::string>& files, const Overrides& overrides,
           const std::string& config_dir, const std::vector<std::string>& traces,
           const std::vector<std::string>& vary, bool zip, std::optional<unsigned> jobs, double timeout,
           const std::string& shard, const std::string& out, bool lenient, bool force) {
            app::SweepRequest request;
            request.traces = traces;
            request.base = make_request(generation, files, overrides, config_dir);
            request.vary = vary;
            request.zip = zip;
            request.jobs = jobs;
            request.timeout = timeout;
            request.shard = shard;
            request.out = out;
            request.json = "-";
            request.quiet = true;
            request.lenient = lenient;
            request.force = force;
            py::gil_scoped_release release;
            return run_app("sweep", [&](app::Io io) { return app::run_sweep(request, io).status; });
        },
        py::arg("generation"), py::arg("files"), py::arg("overrides"), py::arg("config_dir"),
        py::arg("traces"), py::arg("vary"), py::arg("zip"), py::arg("jobs"), py::arg("timeout"),
        py::arg("shard"), py::arg("out"), py::arg("lenient"), py::arg("force"));

    m.def(
        "find_data_file",
        [](const std::string& kind, const std::string& file) {
            if (kind != "configs" && kind != "traces") throw ConfigError("unknown data kind '" + kind + "'");
            return find_data_file(kind == "configs" ? DataKind::configs : DataKind::traces, file);
        },
        py::arg("kind"), py::arg("file"));
    m.def("sweep_metrics", [] {
        std::vector<std::tuple<std::string, std::string, std::string>> out;
        for (const auto& metric : sweep::metrics()) {
            const char* better = metric.better == sweep::Better::lower    ? "lower"
                                 : metric.better == sweep::Better::higher ? "higher"
                                                                          : "none";
            out.emplace_back(metric.name, better, metric.help);
        }
        return out;
    });
    m.def("write_trace", &write_trace, py::arg("path"), py::arg("text"), py::arg("command"), py::arg("force"),
          py::arg("inputs"));
    m.def(
        "trace_generation", [](const std::string& path) { return TraceReader(path).header().generation; },
        py::arg("path"));
}
