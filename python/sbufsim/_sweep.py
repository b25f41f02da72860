"""Sweeps from Python: the application layer's sweep request (as `sbufsim sweep` runs it), in this
process, on its worker processes (one simulation per process, so clocked points and crashes stay
isolated; docs/sweeps.md)."""

import itertools
import json
import math
import os
import re
import warnings

from ._command import completed
from .errors import Error
from ._config import as_config
from ._frames import frame
from ._native import core
from ._run import SettingWarning, TraceWarning
from ._trace import Trace, as_trace


def _whole(name, value):
    """An option that takes a whole number, or a TypeError naming it."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name}: a whole number, not {type(value).__name__} {value!r}")
    return value


def sweep_metrics():
    """The metric columns: name -> ("lower" | "higher" | "none", help). "lower"/"higher" is
    which value is best."""
    return {name: (better, help_text) for name, better, help_text in core.sweep_metrics()}


# The most points a sweep runs (the command line's limit, src/sweep/sweep.cpp kMaxPoints), and the
# longest timeout it takes (include/sbufsim/app/messages.h kMaxTimeoutSeconds): checked here
# before any list is built.
MAX_POINTS = 10_000_000
MAX_TIMEOUT_SECONDS = 1e8


def _values(key, values):
    # "0:8" / "0:8:2" ranges and "a,b" lists go as written; an iterable becomes a list, and one
    # value a list of one. At most MAX_POINTS of them are read: range(10**12) (or an endless
    # generator) is refused, not listed until memory runs out.
    if isinstance(values, str):
        return values
    from ._config import ini_value

    if isinstance(values, (int, float, bool)):
        values = [values]
    taken = list(itertools.islice(iter(values), MAX_POINTS + 1))
    if len(taken) > MAX_POINTS:
        raise ValueError(f"vary[{key!r}]: more than {MAX_POINTS:,} values, the most a sweep runs; "
                         "take a larger step")
    return ",".join(ini_value(v) for v in taken)


def _timeout(value):
    """Seconds per point, checked: a number from 0 (no limit) to MAX_TIMEOUT_SECONDS."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"timeout: seconds, not {type(value).__name__} {value!r}")
    if not (math.isfinite(value) and 0 <= value <= MAX_TIMEOUT_SECONDS):
        raise ValueError(f"timeout={value!r}: give seconds from 0 (no limit) to {MAX_TIMEOUT_SECONDS:g} "
                         "(about three years)")
    return repr(float(value))


def sweep(traces, vary, config=None, *, zip=False, jobs=None, timeout=None, shard=None, out=None,
          lenient=False, force=False):
    """Replay each trace at every point of `vary` in parallel worker processes; one row per
    (trace, point), in table order whatever the number of workers.

    vary: {key: values}, values a list (or range) or a "LO:HI[:STEP]" string; the first key
    varies slowest (the cartesian product), or with zip=True the lists go side by side.
    config: the base configuration (Config, generation name, dict of overrides or None).
    jobs: worker processes (default: all cores). timeout: seconds per point. shard: (I, N) runs
    the I-th of N blocks of rows. out: a CSV file written as `--out` writes it (and resumed
    from, when it exists). lenient: skip invalid records instead of failing the point (a trace of
    another generation, say); the rows gain run.skipped_records. force: replace an `out` file
    that is not a sweep table (as --force).

    A point whose configuration is rejected or whose replay fails is a row with that status;
    errors of the sweep itself (an unknown key, an unreadable trace) raise sbufsim.ConfigError or
    sbufsim.InputError.
    """
    if isinstance(traces, (str, os.PathLike, Trace)) or not hasattr(traces, "__iter__"):
        traces = [traces]  # one trace (a KernelTrace too: as_trace says what it must be)
    paths = []
    for t in traces:
        trace = as_trace(t)
        if trace.path is None:
            raise TypeError("sweep workers read trace files: write a built trace first "
                            f"({'kernel_trace' if trace.name.startswith('<nki') else 'trace'}.write(path))")
        paths.append(trace.path)
    varied = [f"{key}={_values(key, values)}" for key, values in dict(vary).items()]
    if jobs is not None and _whole("jobs", jobs) < 0:
        raise ValueError(f"jobs={jobs}: worker processes, 1 or more")  # 0 is the sweep's to refuse
    seconds = 0.0 if timeout is None else float(_timeout(timeout))
    if shard is not None:
        index, count = shard
        shard = f"{int(index)}/{int(count)}"
    base = as_config(config).request() if config is not None else ("", [], [], "")
    try:
        done = completed(core.sweep(*base, paths, varied, bool(zip), jobs, seconds, shard or "",
                                    os.fspath(out) if out is not None else "", bool(lenient), bool(force)),
                         "sweep", ok_statuses=(0, 1))
    except Error as e:
        raise _as_arguments(e) from None
    for line in done.stderr.splitlines():
        if line.startswith(_NOTE):
            warnings.warn(_python_words(line[len(_NOTE):]), SettingWarning, stacklevel=2)
        elif line.startswith(_WARNING) and " between queues " in line:  # a trace's races, as run() warns
            warnings.warn(line[len(_WARNING):], TraceWarning, stacklevel=2)
    rows = json.loads(done.stdout)
    for row in rows:
        if row.get("message"):
            row["message"] = _python_words(row["message"])
    return SweepTable(rows, list(vary))


_NOTE = "sbufsim sweep: note: "  # what the command says of a point's settings (as run's notes)
_WARNING = "sbufsim sweep: warning: "

# The command line's words for sweep()'s arguments, as the arguments: "sbufsim sweep: --vary
# 'tdm.dma_slot=1,2': unknown key ..." reads "vary['tdm.dma_slot']: unknown key ...".
_SWEEP_WORDS = [
    (re.compile(r"^sbufsim sweep: --vary '([^'=]*)=[^']*': "), lambda m: f"vary[{m.group(1)!r}]: "),
    (re.compile(r"set at --vary\]"), lambda m: "set by vary]"),
    (re.compile(r"--vary"), lambda m: "vary"),
    (re.compile(r"^sbufsim sweep: "), lambda m: "sweep(): "),
    (re.compile(r"cannot write --out "), lambda m: "cannot write out="),
    (re.compile(r"--zip"), lambda m: "zip=True"),
    (re.compile(r"--force"), lambda m: "force=True"),
    (re.compile(r"--lenient"), lambda m: "lenient=True"),
    (re.compile(r"--(shard|jobs|timeout|out)\b"), lambda m: m.group(1)),
]


def _python_words(message):
    for pattern, words in _SWEEP_WORDS:
        message = pattern.sub(words, message)
    return message


def _as_arguments(error):
    again = type(error)(_python_words(str(error)))
    again.exit_status = error.exit_status
    return again


class TieWarning(UserWarning):
    """SweepTable.best() found several rows sharing the best value."""


class SweepTable:
    """The rows of a sweep: `rows` (dicts, cells typed: numbers as numbers, booleans as bools,
    missing metrics None), `axes` (the varied keys), `frame()` as a DataFrame, `best(metric)`."""

    def __init__(self, rows, axes):
        self.rows = list(rows)
        self.axes = axes

    @property
    def columns(self):
        return list(self.rows[0]) if self.rows else []

    def __len__(self):
        return len(self.rows)

    def __iter__(self):
        return iter(self.rows)

    @property
    def ok(self):
        """True when every row's status is ok."""
        return all(r["status"] == "ok" for r in self.rows)

    @property
    def failed(self):
        return [r for r in self.rows if r["status"] != "ok"]

    def ranked(self, metric):
        """The ok rows, best first by `metric` (ties keep table order)."""
        metrics = sweep_metrics()
        if metric not in metrics or metrics[metric][0] == "none":
            rankable = ", ".join(m for m, (b, _) in metrics.items() if b != "none")
            from .errors import ConfigError

            raise ConfigError(f"{metric!r} is not a rankable metric (one of: {rankable})")
        sign = -1 if metrics[metric][0] == "higher" else 1
        ok = [r for r in self.rows if r["status"] == "ok" and r.get(metric) is not None]
        return sorted(ok, key=lambda r: sign * r[metric])

    def best(self, metric):
        """The best ok row by `metric`. When several rows share the best value, the first of them in
        table order, with a TieWarning: the order, not the metric, chose it (ties() lists them)."""
        ranked = self.ranked(metric)
        if not ranked:
            raise ValueError("no row has a result")
        tied = self.ties(metric)
        if len(tied) > 1:
            warnings.warn(f"{len(tied)} of {len(ranked)} ok rows tie at the best {metric} ({ranked[0][metric]}): "
                          f"best() returns the first in table order; ties({metric!r}) lists them", TieWarning,
                          stacklevel=2)
        return ranked[0]

    def ties(self, metric):
        """The ok rows that share the best value of `metric`, in table order."""
        ranked = self.ranked(metric)
        return [r for r in ranked if r[metric] == ranked[0][metric]] if ranked else []

    def frame(self):
        """The rows as a pandas DataFrame, in table order."""
        return frame(self.rows)

    def __repr__(self):
        return f"<sbufsim.SweepTable {len(self.rows)} rows over {', '.join(self.axes) or 'no keys'}>"
