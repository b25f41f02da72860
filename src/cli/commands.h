// The command entry points; each is defined in src/cli/cmd_<name>.cpp.
#pragma once

#include "cli/cli.h"

namespace sbufsim::cli {

int cmd_config(const std::vector<std::string>& args, Io io);
int cmd_decode(const std::vector<std::string>& args, Io io);
int cmd_bench(const std::vector<std::string>& args, Io io);
int cmd_run(const std::vector<std::string>& args, Io io);
// cmd_run's checks of its options, outputs and configuration, without a run (0 when all pass).
int check_run_options(const std::vector<std::string>& args, Io io);
int cmd_check(const std::vector<std::string>& args, Io io);
int cmd_convert(const std::vector<std::string>& args, Io io);
int cmd_gen(const std::vector<std::string>& args, Io io);
// Whether `name` (without the dashes) is an option of a `sbufsim gen` workload: a shape or a
// tiling option (block-n, bufs, dtype, pad, ...), which a sweep of fixed traces cannot vary.
bool is_gen_workload_option(const std::string& name);
int cmd_plot(const std::vector<std::string>& args, Io io);
int cmd_sweep(const std::vector<std::string>& args, Io io);
// cmd_sweep's checks of its options and configuration, without reading a trace or running a point.
int check_sweep_options(const std::vector<std::string>& args, Io io);
int cmd_nki(const std::vector<std::string>& args, Io io);
// cmd_nki's checks of its command line before the tracer runs (the options, the kernel's form, the
// outputs, the replay's or sweep's options and configuration), without running Python or writing
// a file; 0 when all pass. The NKI command line's fuzz target calls it (fuzz/fuzz_nki.cpp).
int check_nki_options(const std::vector<std::string>& args, Io io);
int cmd_validate(const std::vector<std::string>& args, Io io);

}  // namespace sbufsim::cli
