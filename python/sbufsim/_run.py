"""One replay: run(trace, config) -> Result (docs/python.md, docs/replay.md)."""

import difflib
import json
import os
import warnings

from ._config import as_config
from ._frames import frame
from ._native import core
from ._trace import as_trace

# Sections of a run's statistics that hold one entry per client, bank, engine, ... (a table);
# the others are flat dicts of numbers.
TABLE_SECTIONS = ("engine", "client", "bank", "tdm", "blocked_by", "matmul_shape", "window", "line")


def run(trace, config=None, *, scheduler=None, lenient=False, window_stats=None, vcd=None, force=False):
    """Replay `trace` (a Trace or a trace file path) on `config` (a Config, a generation name, a
    dict of overrides, or None: the trace's own generation, else cayman).

    scheduler: "fast" (default) or "clocked" (the SystemC model, every cycle; same statistics).
    lenient: skip invalid records instead of refusing the trace. window_stats=N: per-N-cycle
    rows (section "window"). vcd: a waveform file (implies the clocked scheduler); an existing
    file other than a VCD is replaced only with force=True.

    The GIL is released while the replay runs, so threads can replay in parallel. Clocked runs
    share SystemC's one simulation context per process: they take turns.

    A setting that cannot change the run (a throttler's count while it is off) is warned about
    as the command line notes it (sbufsim.SettingWarning); a trace of no records, or with races
    between queues, too (sbufsim.TraceWarning).

    Raises sbufsim.ConfigError, sbufsim.TraceError or sbufsim.ReplayError with the command
    line's message.
    """
    if scheduler is None:
        scheduler = "clocked" if vcd else "fast"
    if vcd and scheduler != "clocked":
        from .errors import ConfigError

        raise ConfigError(f"a VCD file records the clocked scheduler's signals: drop scheduler={scheduler!r}")
    if window_stats is not None and (isinstance(window_stats, bool) or not isinstance(window_stats, int)):
        raise TypeError(f"window_stats: a whole number of cycles, not {type(window_stats).__name__} {window_stats!r}")
    if window_stats is not None and int(window_stats) < 1:
        from .errors import ConfigError

        raise ConfigError("window_stats needs N >= 1 cycles")
    cfg = as_config(config)
    t = as_trace(trace)
    path, text, name = t.source()
    generation, files, overrides, config_dir = cfg.request()
    stats_json, summary, notes = core.run(generation, files, overrides, config_dir, path, text, name, scheduler,
                                          bool(lenient), int(window_stats or 0), os.fspath(vcd) if vcd else "",
                                          bool(force))
    for note in notes:
        warnings.warn(note, SettingWarning, stacklevel=2)
    result = Result(json.loads(stats_json)["runs"][0], summary)
    if result["run"]["records"] == 0:
        warnings.warn(f"{name or path}: no records after the header, so the run is empty (0 cycles); "
                      "sbufsim check says more", TraceWarning, stacklevel=2)
    races = result["run"]["races"]
    if races:
        warnings.warn(f"{name or path}: {races} race{'' if races == 1 else 's'} between queues (instructions "
                      "touching the same bytes, one writing, with no wait ordering them): the run times each as it "
                      "happens to fall; Trace.check() lists them", TraceWarning, stacklevel=2)
    return result


class SettingWarning(UserWarning):
    """A setting that cannot change the run, as `sbufsim run` notes it: a throttler's window or
    count while that throttler is off, or a count that never binds."""


class TraceWarning(UserWarning):
    """A trace that reads but is almost never meant, as `sbufsim run` warns of it: a header and
    no records (a file cut off after its header), whose run is empty; or races between queues
    (two instructions touching the same bytes, one writing, with no wait ordering them), whose
    figures rest on an order the trace does not ask for."""


class Result:
    """The statistics of one replay, as `sbufsim run --json` writes them.

    stats: the whole run as nested dicts (sections "run", "engine", "pe", "psum", "dma",
    "stalls", "client", "bank", "blocked_by", "tdm", "matmul_shape", and "window" with
    window_stats). result["client"] is a section; result.table("client") the same as rows;
    result.frame("client") a DataFrame (pandas).
    """

    def __init__(self, stats, summary):
        self.stats = stats
        self.summary = summary

    def __getitem__(self, section):
        if section not in self.stats:
            raise KeyError(self._no_section(section))
        return self.stats[section]

    def _no_section(self, section):
        """Why result[section] has nothing: the closest section, or the section holding a key of
        that name (result["total_cycles"] is result["run"]["total_cycles"])."""
        if section == "window":
            hint = " (run with window_stats=N)"
        elif holder := next((name for name, data in self.stats.items()
                             if isinstance(data, dict) and section in data), None):
            attribute = f" or result.{section}" if isinstance(getattr(type(self), str(section), None), property) else ""
            hint = f" ({section!r} is a key of section {holder!r}: result[{holder!r}][{section!r}]{attribute})"
        elif close := difflib.get_close_matches(str(section), self.sections(), n=1):
            hint = f" (did you mean {close[0]!r}?)"
        else:
            hint = ""
        return f"no section {section!r} in this run{hint}; sections: {', '.join(self.sections())}"

    def sections(self):
        return [k for k in self.stats if k != "trace"]

    # ---- headline numbers -------------------------------------------------------------------
    @property
    def trace(self):
        return self.stats["trace"]

    @property
    def generation(self):
        return self.stats["run"]["generation"]

    @property
    def scheduler(self):
        return self.stats["run"]["scheduler"]

    @property
    def total_cycles(self):
        return self.stats["run"]["total_cycles"]

    @property
    def time_ns(self):
        return self.stats["run"]["time_ns"]

    @property
    def pe_utilisation(self):
        return self.stats["pe"]["utilisation"]

    @property
    def dma_gbps(self):
        return self.stats["dma"]["achieved_gbps"]

    # ---- tables -----------------------------------------------------------------------------
    def table(self, section):
        """A per-entry section as rows: [{"name": "act_rd", "requests": ..., ...}, ...] for
        "client", "bank", "engine", "tdm", "blocked_by", "matmul_shape", "window",
        "critical_path", "finding", "dma_engine", "dma_trigger", "line" (one row per kernel line of a
        trace with source locations); a flat section ("run", "pe",
        "stalls", ...) as one row."""
        data = self.stats.get(section)
        if data is None:
            raise KeyError(self._no_section(section))
        if not isinstance(data, dict):
            raise KeyError(f"{section!r} is a value of the run ({data!r}), not a section: result.stats[{section!r}]; "
                           f"sections: {', '.join(self.sections())}")
        # Per-entry: the named sections, and any whose every value is an entry (critical_path,
        # finding, dma_engine, dma_trigger: one row per engine, finding or trigger unit).
        if section in TABLE_SECTIONS or (data and all(isinstance(v, dict) for v in data.values())):
            return [{"name": name, **values} for name, values in data.items()]
        return [dict(data)]

    def frame(self, section):
        """table(section) as a pandas DataFrame indexed by name."""
        return frame(self.table(section), index="name")

    def to_json(self):
        return json.dumps(self.stats, indent=2)

    def __repr__(self):
        return (f"<sbufsim.Result {self.trace}: {self.total_cycles} cycles on {self.generation}, "
                f"{self.scheduler} scheduler>")
