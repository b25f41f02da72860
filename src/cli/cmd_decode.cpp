// `sbufsim decode ADDR...`: what an SBUF/PSUM address means on one generation — region,
// partition, byte offset, quadrant, ECC bank, active vs decode pad, SoC address.
#include <string>
#include <vector>

#include "cli/commands.h"
#include "sbufsim/app/decode.h"

namespace po = boost::program_options;

namespace sbufsim::cli {

namespace {

constexpr const char* kDecodeHelp =
    "usage: sbufsim decode ADDR... [options]\n\n"
    "Decode SBUF/PSUM addresses of one NeuronCore generation (seed 000 §2-§4, seed 002 §1-§3).\n\n"
    "ADDR forms:\n"
    "  0x2000800, 22016          29-bit PartitionOffset (hex or decimal); >= PSUM_BUF_OFFSET is PSUM\n"
    "  p=3,off=0x100             SBUF partition 3, byte offset 0x100 (also sbuf:p=3,off=0x100)\n"
    "  psum:p=3,off=0x800        PSUM partition 3, byte offset 0x800\n"
    "  soc:0x2802000800          a SoC address inside TPB_0_STATE_BUF or TPB_0_PSUM_BUF\n\n"
    "examples:\n"
    "  sbufsim decode 0x2000800 0x5600 --gen cayman\n"
    "  sbufsim decode p=17,off=0x20000 --set sbuf.half_select=offset\n"
    "  sbufsim decode psum:p=40,off=0x400 --gen sunda --oneline\n"
    "  sbufsim decode psum:p=0,off=0 --gen maverick        (rejected: maverick has no PSUM)\n\n"
    "exit status: 0 all addresses valid, 1 some address invalid (pad, off-chip, ...),\n"
    "2 bad command line or configuration.\n";

}  // namespace

int cmd_decode(const std::vector<std::string>& args, Io io) {
    ConfigOptions cfg;
    std::vector<std::string> addrs;
    std::string log_level;
    bool oneline = false, help = false;

    po::options_description visible("Options");
    visible.add_options()
        ("help,h", po::bool_switch(&help), "show this help")
        ("oneline", po::bool_switch(&oneline), "one key=value line per address (for scripts)");
    add_log_level_option(visible, log_level);
    visible.add(config_options(cfg));
    po::options_description hidden;
    hidden.add_options()("address", po::value(&addrs)->composing(), "address to decode");
    hidden.add(key_flag_options());
    po::options_description all;
    all.add(visible).add(hidden);
    po::positional_options_description pos;
    pos.add("address", -1);

    const ParsedArgs args_in = parse_args(args, all, &pos, log_level);
    const auto& parsed = args_in.parsed;

    if (help) {
        io.out << kDecodeHelp << "\n" << visible;
        return kExitOk;
    }
    if (addrs.empty()) {
        io.err << "sbufsim decode: no address given (see sbufsim decode --help)\n";
        return kExitUsage;
    }

    DecodeRequest request{addrs, make_load_request(cfg, parsed), oneline};
    return decode_addresses(request, io);
}

}  // namespace sbufsim::cli
