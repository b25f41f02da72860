// Where `sbufsim nki`'s tracer lives: the sbufsim Python package and the interpreter that runs
// it. `validate` traces its kernel cases with them too.
#pragma once

#include <string>

namespace sbufsim::cli {

// The folder holding the sbufsim package (sbufsim/nki/): $SBUFSIM_PYTHONPATH, a build tree
// (python/ beside the executable), or an install (from bin/, or the user's own prefix); "" when
// there is none.
std::string nki_package_dir();

// The interpreter: `given` (--python), else $SBUFSIM_PYTHON, else the one the build found.
std::string nki_python(const std::string& given = {});

}  // namespace sbufsim::cli
