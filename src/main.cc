// sbufsim: cycle-approximate simulator of one NeuronCore's SBUF/PSUM memory subsystem.
#include "cli/cli.h"

int main(int argc, char** argv) { return sbufsim::cli::run_main(argc, argv); }
