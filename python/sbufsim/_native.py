"""The compiled core, with a clear message when it cannot be loaded."""

try:
    from . import _core as core
except ImportError as error:  # pragma: no cover - depends on the build
    raise ImportError(
        "sbufsim's compiled core (sbufsim._core) cannot be loaded: build it with CMake "
        "(SBUFSIM_BUILD_PYTHON, on when pybind11-dev is installed) and import it with the python3 "
        f"it was built for (Debian's /usr/bin/python3). Cause: {error}"
    ) from error

__all__ = ["core"]
