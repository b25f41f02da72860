"""Traces: read from a file, or built from Python objects (docs/trace-format.md).

A built trace is kept as its text records; running it hands the text to the same reader the
command line uses, so a bad record raises the same file:line error, with the trace's name as
the file."""

import os
import re
import tempfile
from dataclasses import dataclass

from . import errors
from ._command import completed
from ._native import core

_MAGIC = "sbufsim-trace 1"
_MARK = "# written by sbufsim "  # the first line of a text trace sbufsim wrote


def operand(dtype, address, steps=None, sizes=None):
    """A tensor operand in the profiler's notation: operand("bf16", 0x0, [1], [512]) is
    "bf16@0x0[1][512]" (element steps and sizes, innermost dimension first); without steps and
    sizes the operand is contiguous over the record's bytes."""
    text = f"{dtype}@{address:#x}"
    if steps is None and sizes is None:
        return text
    steps, sizes = list(steps or []), list(sizes or [])
    if len(steps) != len(sizes) or not 1 <= len(steps) <= 3:
        raise ValueError("an operand has 1 to 3 dimensions: as many steps as sizes")
    return text + "[" + ",".join(map(str, steps)) + "][" + ",".join(map(str, sizes)) + "]"


@dataclass(frozen=True)
class Access:
    """A raw bank access: `cycle client op address partitions bytes` (op: rd, wr or raw)."""

    cycle: int
    client: str
    op: str
    address: int
    partitions: int
    bytes: int

    def text(self):
        return f"{self.cycle} {self.client} {self.op} {self.address:#x} {self.partitions} {self.bytes}"


def _field(value):
    if isinstance(value, bool):
        return "1" if value else "0"
    return str(value)


class Instruction:
    """One engine-queue instruction: Instruction("dma", "qSyncIO0", src="hbm", dst="bf16@0x0",
    partitions=128, bytes=1024, signal=1). `wait` takes a semaphore, a (semaphore, value) tuple
    or a list of either; `signal` a semaphore or a list; every other field is written key=value
    (booleans as 1/0), in the order given."""

    def __init__(self, kind, queue, *, wait=(), signal=(), **fields):
        self.kind = kind
        self.queue = queue
        self.fields = fields
        self.waits = [wait] if isinstance(wait, (int, tuple)) and wait != () else list(wait)
        self.signals = [signal] if isinstance(signal, int) else list(signal)

    def text(self):
        parts = [self.kind, f"queue={self.queue}"]
        parts += [f"{k}={_field(v)}" for k, v in self.fields.items()]
        for w in self.waits:
            parts.append(f"wait={w[0]}:{w[1]}" if isinstance(w, tuple) else f"wait={w}")
        parts += [f"signal={s}" for s in self.signals]
        return " ".join(parts)

    def __repr__(self):
        return f"Instruction({self.text()!r})"


class Trace:
    """A trace: Trace.read(path) for a file (text .trc or binary .sbt, streamed when run), or
    Trace(records, generation=...) built from Access, Instruction or text lines."""

    def __init__(self, records=(), *, generation=None, name="<python trace>"):
        self.path = None
        self.name = name
        self.generation = generation
        self._lines = []
        self.extend(records)

    @classmethod
    def read(cls, path):
        """A trace file; its header is read now (sbufsim.TraceError if it is not a trace)."""
        trace = cls.__new__(cls)
        trace.path = os.fspath(path)
        trace.name = trace.path
        trace._lines = None
        trace.generation = core.trace_generation(trace.path) or None
        return trace

    # ---- building ---------------------------------------------------------------------------
    def add(self, record):
        """Append an Access, an Instruction or one text record."""
        if self._lines is None:
            raise TypeError(f"{self.path} is a trace file: build a new Trace to add records")
        self._lines.append(record if isinstance(record, str) else record.text())
        return self

    def extend(self, records):
        for r in records:
            self.add(r)
        return self

    def __len__(self):
        if self._lines is None:
            raise TypeError("the length of a trace file is known once it is read: run or check it")
        return len(self._lines)

    def text(self):
        """The trace as text, header first (a binary file converted as `sbufsim convert` does)."""
        if self._lines is None:
            if self.path.endswith(".sbt"):
                with tempfile.TemporaryDirectory() as tmp:
                    text_path = os.path.join(tmp, "trace.trc")
                    _convert(self.path, text_path)
                    with open(text_path, encoding="utf-8") as f:
                        text = f.read()
                # Without convert's mark (its first line): that is about the temporary file.
                return text.split("\n", 1)[1] if text.startswith(_MARK) else text
            with open(self.path, encoding="utf-8") as f:
                return f.read()
        header = _MAGIC + (f" gen={self.generation}" if self.generation else "")
        return "\n".join([header, *self._lines]) + "\n"

    def write(self, path, *, force=False):
        """Write the trace: text for .trc, binary for .sbt (as `sbufsim convert` writes it).
        Returns the written file as a Trace.

        As the command line writes a trace: through a temporary renamed into place, a text trace
        with sbufsim's mark as its first line, and an existing file replaced only when sbufsim
        wrote it (a binary trace, or a text trace with the mark) unless force=True; never the
        trace's own file (sbufsim.OutputError, the file left as it was)."""
        path = os.fspath(path)
        inputs = [] if self.path is None else [self.path]
        if path.endswith(".sbt"):
            with tempfile.TemporaryDirectory() as tmp:
                source = self._file(tmp)
                _convert(source, path, force)
        else:
            text = self.text()
            if text.startswith(_MARK):  # the file's own mark: the new one replaces it
                text = text.split("\n", 1)[1] if "\n" in text else ""
            core.write_trace(path, text, "python Trace.write", bool(force), inputs)
        return Trace.read(path)

    def check(self):
        """The problems `sbufsim check` finds, one "file:line: field: reason (rule)" string
        each; empty when the trace is valid."""
        with tempfile.TemporaryDirectory() as tmp:
            source = self._file(tmp)
            done = completed(core.check_trace(source), f"sbufsim check {source}", ok_statuses=(0, 1))
        lines = [l for l in done.stdout.splitlines() if l.strip()]
        return [l.replace(source, self.name, 1) if self.path is None else l for l in lines]

    # ---- for the runners --------------------------------------------------------------------
    def _file(self, tmp):
        if self.path is not None:
            return self.path
        path = os.path.join(tmp, "trace.trc")
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.text())
        return path

    def source(self):
        """(path, text, name): a file to stream, or the text of a built trace and its name."""
        if self.path is not None:
            return self.path, "", self.path
        return "", self.text(), self.name

    def __repr__(self):
        if self.path is not None:
            return f"Trace.read({self.path!r})"
        return f"Trace({len(self._lines)} records, generation={self.generation!r}, name={self.name!r})"


def _convert(source, path, force=False):
    """`sbufsim convert SOURCE PATH [--force]`, the core's convert request."""
    completed(core.convert_trace(source, path, bool(force)), f"sbufsim convert {source} {path}")


def as_trace(trace):
    """A Trace, a path to one, or a traced NKI kernel (sbufsim.nki.KernelTrace: its records)."""
    if isinstance(trace, Trace):
        return trace
    if isinstance(trace, (str, os.PathLike)):
        return Trace.read(trace)
    from .nki import KernelTrace  # the front-end imports this module: imported when needed

    if isinstance(trace, KernelTrace):
        return Trace(trace.records, generation=trace.generation, name=f"<nki kernel {trace.name}>")
    raise TypeError(f"expected a Trace, a trace file path or a KernelTrace, not {type(trace).__name__}")


def shipped_trace(name):
    """A trace shipped with sbufsim (share/sbufsim/traces, or $SBUFSIM_TRACE_DIR), by file name:
    shipped_trace("dma_vs_compute.trc")."""
    return Trace.read(core.find_data_file("traces", name))


def generate(kind, output, config=None, **shape):
    """Write a trace with the generators of `sbufsim gen` and return it: generate("gemm", "g.sbt",
    m=1024, n=4096, k=1024, bufs=2) writes what `sbufsim gen gemm --m 1024 --n 4096 --k 1024 --bufs 2
    -o g.sbt` writes; kind="topology" with topology="net.csv" for a SCALE-Sim file. Each keyword is
    the option's name with '_' for '-' (True: a flag on; None and False: left out). `config` (a
    Config) is the generation and settings. An existing `output` is replaced only when sbufsim
    wrote it, unless force=True (as --force)."""
    from ._config import as_config

    options = [(key.replace("_", "-"), "" if value is True else str(value))
               for key, value in shape.items() if value is not None and value is not False]
    options.append(("output", os.fspath(output)))
    base = as_config(config).request() if config is not None else ("", [], [], "")
    try:
        completed(core.generate("" if kind == "topology" else kind, options, *base), f"sbufsim gen {kind}")
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
