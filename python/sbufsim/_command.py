"""The command line, in process: command("gen", "gemm", ...) runs `sbufsim gen gemm ...` with its
output captured; exit statuses 2-4 raise the matching sbufsim error with the command's message.
The package's own modules call the compiled core's requests (run, sweep, generate, check_trace,
convert_trace) and never this; it is for what a script wants of the command line itself."""

import os
from dataclasses import dataclass

from . import errors
from ._native import core

__version__ = core.version
revision = core.revision


@dataclass(frozen=True)
class Completed:
    """A finished command: its exit status and what it wrote."""

    status: int
    stdout: str
    stderr: str


def command(*args, ok_statuses=(0,)):
    """Run `sbufsim ARGS...` in this process (the GIL is released while it works). Returns
    Completed when the exit status is one of ok_statuses, else raises the error of that status
    (sbufsim.ConfigError for 2, sbufsim.InputError for 3, ...; sbufsim.OutputError for an output
    it refused or could not write) with the command's stderr."""
    argv = [os.fspath(a) if isinstance(a, os.PathLike) else str(a) for a in args]
    return completed(core.cli(argv), f"sbufsim {' '.join(argv)}", ok_statuses)


def completed(answer, what, ok_statuses=(0,)):
    """A core request's answer (exit status, stdout, stderr, whether an output ended it) as
    Completed, or the error of its status with its stderr (`what` names it when that is empty)."""
    status, out, err, output_failed = answer
    if status in ok_statuses:
        return Completed(status, out, err)
    message = err.strip() or f"{what}: exit status {status}"
    # A refused or failed output is the writers' OutputError, whichever command wrote it.
    error = (errors.OutputError if output_failed else errors.for_status(status))(message)
    error.exit_status = status
    raise error
