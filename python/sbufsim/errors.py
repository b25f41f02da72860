"""The errors sbufsim raises: the command line's messages (file:line: field: reason), as
exceptions. `exit_status` is the status `sbufsim` exits with for the same problem."""

import re


# The command line's flags that the Python API takes as keyword arguments, as a fix reads there.
_AS_ARGUMENTS = ((re.compile(r"--(force|lenient)\b"), r"\1=True"), (re.compile(r"--(jobs|timeout)\b"), r"\1"))


class Error(Exception):
    """Every error sbufsim reports. A fix the command line words as --force, --lenient or --jobs
    reads force=True, lenient=True or jobs: the Python API takes those arguments."""

    exit_status = 4

    def __init__(self, message="", *args):
        message = str(message)
        for flag, argument in _AS_ARGUMENTS:
            message = flag.sub(argument, message)
        super().__init__(message, *args)


class ConfigError(Error, ValueError):
    """A bad configuration or option: unknown key, value out of range, inconsistent geometry,
    missing generation file (the message names the file:line or option and the rule)."""

    exit_status = 2


class InputError(Error):
    """An input that cannot be used: an unreadable or invalid trace, a topology file."""

    exit_status = 3


class TraceError(InputError):
    """A trace that cannot be read: `file`, `line`, `field`, `reason`, `rule` say where and why
    (line 0: the file as a whole)."""

    file = ""
    line = 0
    field = ""
    reason = ""
    rule = ""


class ReplayError(InputError):
    """A replay that stopped: `kind` is "invalid_trace" (a record breaks a rule; `errors` lists
    every problem of it, file:line text) or "deadlock" (queues waiting on semaphores nothing can
    signal)."""

    kind = ""
    errors = ()


class OutputError(Error):
    """An output file sbufsim will not or cannot write: refused before the work (an input, a file
    of another kind, a directory, a read-only file; `exit_status` 2) or a write that failed (a
    full disk; 3). What was there before is left as it was."""

    exit_status = 2


class InternalError(Error):
    """A bug: please report it with the message."""

    exit_status = 4


_BY_STATUS = {2: ConfigError, 3: InputError, 4: InternalError}


def for_status(status):
    """The exception class of a command-line exit status (2, 3, 4)."""
    return _BY_STATUS.get(status, InternalError)
