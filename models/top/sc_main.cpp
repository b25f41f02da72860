// libsystemc's own main() calls sc_main(); sbufsim has its own main() and elaborates and runs its
// SystemC models from the command line, so this entry point is never called. It exists because
// the shared libsystemc references the symbol and the linker requires every reference resolved.
#include <cstdio>

// SystemC declares it extern "C" (sc_externs.h).
extern "C" int sc_main(int, char*[]) {
    std::fputs("sbufsim: the SystemC models are run through the sbufsim command line\n", stderr);
    return 1;
}
