// sbufsim: cycle-approximate simulator of one NeuronCore's SBUF/PSUM memory subsystem.
#include "cli/cli.h"
#include "sbufsim/output/output_file.h"

int main(int argc, char** argv) {
    // Ctrl-C or a pre-empting `kill` leaves no half-written temporary next to the user's files.
    sbufsim::remove_temporaries_on_signals();
    return sbufsim::cli::run_main(argc, argv);
}
