"""The command line, in process: command("gen", "gemm", ...) runs `sbufsim gen gemm ...` with its
output captured; exit statuses 2-4 raise the matching sbufsim error with the command's message."""

import os
import re
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
    status, out, err, output_failed = core.cli(argv)
    if status in ok_statuses:
        return Completed(status, out, err)
    message = err.strip() or f"sbufsim {' '.join(argv)}: exit status {status}"
    # A refused or failed output is the writers' OutputError, whichever command wrote it.
    error = (errors.OutputError if output_failed else errors.for_status(status))(message)
    error.exit_status = status
    raise error


def options(**values):
    """Keyword arguments as command-line options: block_n=4 -> --block-n 4; True -> the bare
    flag; None and False -> left out."""
    args = []
    for key, value in values.items():
        flag = "--" + key.replace("_", "-")
        if value is None or value is False:
            continue
        args += [flag] if value is True else [flag, str(value)]
    return args


def generate(kind, output, config=None, **shape):
    """Write a trace with `sbufsim gen` and return it: generate("gemm", "g.sbt", m=1024, n=4096,
    k=1024, bufs=2) is `sbufsim gen gemm --m 1024 --n 4096 --k 1024 --bufs 2 -o g.sbt`;
    kind="topology" with topology="net.csv" for a SCALE-Sim file. `config` (a Config) adds its
    --gen/--config/--set options. An existing `output` is replaced only when sbufsim wrote it,
    unless force=True (as --force)."""
    from ._config import as_config
    from ._trace import Trace

    args = ["gen"] + ([] if kind == "topology" else [kind]) + options(**shape) + ["-o", os.fspath(output)]
    if config is not None:
        args += as_config(config).cli_args()
    try:
        command(*args)
    except errors.Error as e:
        raise _as_keywords(e) from None
    return Trace.read(output)


# gen's word for a keyword it does not take, as the keyword: "unrecognised option '--blockn'
# (did you mean '--block-n'?)" reads "unknown argument blockn (did you mean block_n?)".
_UNKNOWN_OPTION = re.compile(r"unrecognised option '--([\w-]+)'(?: \(did you mean '--([\w-]+)'\?\))?")


def _as_keywords(error):
    def keyword(m):
        said = f"unknown argument {m.group(1).replace('-', '_')}"
        return said + (f" (did you mean {m.group(2).replace('-', '_')}?)" if m.group(2) else "")

    message = _UNKNOWN_OPTION.sub(keyword, str(error))
    if message == str(error):
        return error
    again = type(error)(message)
    again.exit_status = error.exit_status
    return again
