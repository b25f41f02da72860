// `sbufsim validate`: the command line of `validate` (sbufsim/app/validate.h): the validation
// cases against the public figures; exit 1 when a case is out of tolerance.
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/nki_package.h"
#include "sbufsim/app/validate.h"

namespace po = boost::program_options;

namespace sbufsim::cli {

namespace {

constexpr const char* kValidateHelp =
    "usage: sbufsim validate [options]\n\n"
    "Check sbufsim's timing against the public Neuron documentation and the seeds. Each case\n"
    "replays a small trace built for it (a DMA transfer, a stream of compute instructions, matmul\n"
    "and LoadStationary pairs, PSUM accumulation groups with their evacuation) on one generation,\n"
    "measures one figure and compares it with the figure the public documentation states or\n"
    "implies (document and section in the source column; the arithmetic in docs/validation.md),\n"
    "with a seed HIGH/OBSERVED fact, or with the share of an SBUF bank the seeds' arbiter, TDM\n"
    "and throttler registers give a client (the A cases). The K cases trace the project's NKI GEMM\n"
    "kernels (examples/nki/matmul.py) with the NKI front-end, on a fraction of the public shape, against\n"
    "the public tutorials' whole-kernel latencies scaled by that fraction. A case passes within its\n"
    "tolerance (5 % unless shown), or, where the public figure is a bound (<= or >=, tol \"bound\"), on its\n"
    "side of it; \"gap\" marks a case known to be out of tolerance, with the reason (docs/validation.md),\n"
    "and \"skip\" a kernel case when the sbufsim Python package is not found.\n\n"
    "examples:\n"
    "  sbufsim validate                 every case\n"
    "  sbufsim validate --only 'D0.*'   the DMA cases\n"
    "  sbufsim validate --only 'A.*'    the arbitration cases\n"
    "  sbufsim validate --only 'K.*'    the whole kernels\n"
    "  sbufsim validate --list          the cases without running them\n\n"
    "exit status: 0 every case within tolerance (or a known gap, or skipped), 1 a case out of tolerance\n"
    "or failing, 2 bad command line.\n";

}  // namespace

int cmd_validate(const std::vector<std::string>& args, Io io) {
    std::string log_level, only, config_dir;
    bool help = false, list = false, verbose = false;
    po::options_description visible("Options");
    visible.add_options()("help,h", po::bool_switch(&help), "show this help")(
        "only", po::value(&only)->value_name("REGEX"),
        "run only the cases whose id matches REGEX (e.g. 'P0.*')")(
        "list", po::bool_switch(&list), "list the cases (id, generation, setup, source) and exit")(
        "verbose,v", po::bool_switch(&verbose), "print each case's setup and source under its row")(
        "config-dir", po::value(&config_dir)->value_name("DIR"),
        "generation configs from DIR (default: the shipped ones)");
    add_log_level_option(visible, log_level);
    parse_args(args, visible, nullptr, log_level);
    if (help) {
        io.out << kValidateHelp << "\n" << visible;
        return kExitOk;
    }
    return validate(ValidateRequest{only, config_dir, list, verbose, nki_package_dir(), nki_python()}, io);
}

}  // namespace sbufsim::cli
