"""python3 -m sbufsim.nki KERNEL.py::FUNC --input NAME=DTYPE[SHAPE]... [--param NAME=V]... [--gen G]
[--loop-buffers N]
-o OUT.trc: the trace `sbufsim nki` replays. Exit status 3 with file:line when the kernel cannot
be traced, 2 for a bad command line.

With --sweep-param NAME=V1,V2 (repeatable; the points are the cartesian product, the first
outermost) and --sweep-binary EXE --sweep-dir DIR it traces every point in parallel processes
into DIR, replays them all with `EXE sweep` (the sweep machinery's worker processes; the
options after --run-args go to it) and prints one table row per point."""

import argparse
import ast
import difflib
import gc
import itertools
import json
import multiprocessing
import multiprocessing.connection
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from . import KernelExpr, NkiError, check_loop_buffers, kernel_parameters, trace


def _pairs(values, what):
    out = {}
    for item in values or []:
        name, sep, value = item.partition("=")
        if not sep or not name:
            print(f"sbufsim nki: {what} {item!r}: expected NAME=VALUE", file=sys.stderr)
            sys.exit(2)
        if name in out:  # the second would silently win
            print(f"sbufsim nki: {what} {name} given twice ({name}={out[name]} and {item}); give it once",
                  file=sys.stderr)
            sys.exit(2)
        out[name] = value
    return out


def _grid(text):
    """--grid G0[,G1,...]: the launch kernel[G0, G1, ...] (positive sizes), or None without it."""
    if text is None:
        return None
    try:
        sizes = tuple(int(t) for t in text.split(","))
    except ValueError:
        sizes = ()
    if not sizes or any(s < 1 for s in sizes) or len(sizes) > 4:
        print(f"sbufsim nki: --grid {text!r}: expected one to four positive sizes, e.g. --grid 4 or --grid 2,4",
              file=sys.stderr)
        sys.exit(2)
    return sizes


def _loop_buffers(text):
    """--loop-buffers N: the buffers of a tile re-bound in an affine_range loop (1 to 8)."""
    try:
        return check_loop_buffers(int(text))
    except (ValueError, NkiError):
        raise argparse.ArgumentTypeError(f"{text!r}: an integer from 1 to 8 (default 3)") from None


def _param(text):
    """A Python literal; else a call or attribute (`Args(lower_bound=0.0)`, `NormType.RMS_NORM`)
    evaluated among the kernel module's names when it defines the first name (KernelExpr); else
    the text."""
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        pass
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError:
        return text
    return KernelExpr(text) if isinstance(tree.body, (ast.Call, ast.Attribute)) else text


def _sweep_axes(items):
    """--sweep-param NAME=V1,V2 -> [(NAME, [values])] in command-line order."""
    axes = []
    for name, values in _pairs(items, "--sweep-param").items():
        parts = [v.strip() for v in values.split(",")]
        if not all(parts):
            print(f"sbufsim nki: --sweep-param {name}={values}: empty value in the list", file=sys.stderr)
            sys.exit(2)
        axes.append((name, [_param(v) for v in parts]))
    return axes


# The first line of a point's trace kept beside a sweep's table (--keep-traces): sbufsim's mark,
# so that the next sweep into the same table may replace it and no other file.
_KEPT_MARK = ("# written by sbufsim nki --sweep-param; sbufsim replaces this file when told to write it again "
              "(delete this line to keep it)\n")


def _point_file(point):
    """A point's trace file name from its parameters: TILES_IN_BLOCK_M=4,BN=2.trc."""
    name = ",".join(f"{n}={v!r}" for n, v in point.items())
    return "".join(c if c.isalnum() or c in "_.,=+-" else "_" for c in name) + ".trc"


def _not_ours(paths):
    """The first of `paths` that exists without sbufsim's mark on its first line, or None."""
    for path in paths:
        if os.path.exists(path):
            with open(path, encoding="utf-8", errors="replace") as f:
                if not f.readline().startswith("# written by sbufsim"):
                    return path
    return None


def _trace_point(job):
    """One sweep point in a worker process: (trace path, flops, hbm bytes, error or None)."""
    kernel, inputs, params, generation, grid, path, keep, loop_buffers = job
    try:
        # one core: a sweep point is one trace, its launch's instances one after another
        kt = trace(kernel, inputs, params, generation=generation, grid=grid, loop_buffers=loop_buffers, cores=1)
    except NkiError as e:
        return path, 0, 0, str(e)
    except TypeError as e:
        return path, 0, 0, f"{kernel}: {e}"
    if why := kt.nothing_to_replay():
        return path, 0, 0, why
    if keep:  # beside the table: sbufsim's mark first, and only complete (renamed into place)
        if os.path.exists(path):  # the earlier trace, put back if the sweep is refused (_restore)
            os.link(path, os.path.join(keep, os.path.basename(path)))
        partial = f"{path}.{os.getpid()}.tmp"
        with open(partial, "w", encoding="utf-8") as f:
            f.write(_KEPT_MARK + kt.text)
        os.replace(partial, path)
    else:
        kt.write_scratch(path)
    return path, kt.flops, kt.hbm_bytes, None


# The PE array's peak: 128 x 128 MACs per cycle, 2 flops each (the figure `sbufsim nki` uses).
PEAK_FLOPS_PER_CYCLE = 2 * 128 * 128


def _table(header, rows):
    """Numbers right-aligned; the last column (the status, a sentence) left-aligned."""
    widths = [max(len(str(c)) for c in col) for col in zip(header, *rows)]
    widths[-1] = max(len(str(header[-1])), len("ok  <- fastest"))  # a long message does not widen it
    line = lambda cells: "  ".join([str(c).rjust(w) for c, w in zip(cells[:-1], widths)] + [str(cells[-1])]).rstrip()
    return "\n".join([line(header), line(["-" * w for w in widths])] + [line(r) for r in rows])


def _jobs(run_args):
    """The sweep's --jobs N (it bounds the tracing processes as well as the replays), or None."""
    run_args = list(run_args or [])
    for i, arg in enumerate(run_args):
        value = run_args[i + 1] if arg == "--jobs" and i + 1 < len(run_args) else (
            arg[len("--jobs="):] if arg.startswith("--jobs=") else None)
        if value is not None and value.isdigit() and int(value) > 0:
            return int(value)
    return None


def _timeout(run_args):
    """The sweep's --timeout SEC (it bounds each point's tracing as well as its replay), or None."""
    run_args = list(run_args or [])
    for i, arg in enumerate(run_args):
        value = run_args[i + 1] if arg == "--timeout" and i + 1 < len(run_args) else (
            arg[len("--timeout="):] if arg.startswith("--timeout=") else None)
        try:
            if value is not None and float(value) > 0:
                return float(value)
        except ValueError:
            return None  # the sweep refuses it
    return None


def _work(conn):
    """A tracing worker process: traces the points it is sent, one after another (as trace() traces
    a kernel several times in one process), until it is sent None."""
    while (job := conn.recv()) is not None:
        conn.send(_trace_point(job))


class _Worker:
    """A forked tracing process and its end of the pipe. One per slot, kept for the sweep: a
    process forked per point cost a third more CPU time than the tracing in one (the fork, the
    pages the child copies from the parent and touches anew), 2.2 against 1.4 s for the 12 points
    of the fully optimized GEMM at 2048^3."""

    def __init__(self, context):
        self.conn, theirs = context.Pipe()
        self.process = context.Process(target=_work, args=(theirs,), daemon=True)
        self.process.start()
        theirs.close()

    def stop(self):
        if self.process.is_alive():
            self.process.kill()
        self.process.join()
        self.conn.close()


def _death(process):
    code = process.exitcode
    if code is not None and code < 0:
        name = signal.Signals(-code).name
        return (f"the point's tracer was killed by signal {-code} ({name})" +
                (" (the out-of-memory killer sends it when memory runs out)" if -code == signal.SIGKILL else ""))
    return f"the point's tracer exited with status {code} without a result"


def _trace_points(jobs, workers, timeout, replays=None):
    """_trace_point of every job in at most `workers` worker processes (_Worker) at once. A point
    whose process dies (the out-of-memory killer) or outlives `timeout` seconds is that point's
    error, and its process is replaced: a Pool never hears of a worker killed mid-task, and the
    sweep waited forever.
    replays (a _Replays, or None): the traced points are replayed while others are traced, a
    replay of a batch of them taking one of the `workers` slots."""
    context = multiprocessing.get_context("fork")
    results, pending = [None] * len(jobs), list(range(len(jobs)))[::-1]
    idle, busy = [], {}  # busy: worker -> (job index, when it was sent)
    try:
        while pending or busy or (replays and replays.waiting()):
            while len(busy) + (replays.running() if replays else 0) < workers:
                if replays and replays.start(bool(pending), workers - len(busy) - replays.running()):
                    continue
                if not pending:
                    break
                i = pending.pop()
                worker = idle.pop() if idle else _Worker(context)
                worker.conn.send(jobs[i])
                busy[worker] = (i, time.monotonic())
            ready = multiprocessing.connection.wait([w.conn for w in busy] + (replays.pipes() if replays else []),
                                                    timeout=0.2)
            if replays and replays.collect(ready):
                return None  # the sweep refused its options: no point goes on
            for worker, (i, started) in list(busy.items()):
                path = jobs[i][4]
                if worker.conn in ready:
                    try:
                        results[i] = worker.conn.recv()
                        idle.append(worker)
                    except EOFError:  # it ended without sending its result
                        worker.process.join()
                        results[i] = (path, 0, 0, _death(worker.process))
                        worker.stop()
                elif timeout and time.monotonic() - started > timeout:
                    worker.stop()
                    results[i] = (path, 0, 0, f"not traced within --timeout {timeout:g} s: the point's tracer was "
                                  "stopped; raise --timeout, or look for a loop that does not end")
                else:
                    continue
                del busy[worker]
                if replays and results[i][3] is None:
                    replays.add(results[i][0])
        return results
    finally:
        for worker in idle + list(busy):
            worker.stop()


# Options of `sbufsim sweep` that act on its whole table (write, rank, shard or replay it again):
# with one of them the points are replayed by one sweep once all are traced.
_WHOLE_TABLE = {"--out", "-o", "--best", "--shard", "--rank-by", "--top", "--json", "--no-header"}


def _whole_table(run_args):
    return any(arg.split("=", 1)[0] in _WHOLE_TABLE or (arg.startswith("-o") and not arg.startswith("--"))
               for arg in run_args)


class _Replays:
    """The points replayed while others are still traced: `sbufsim sweep` of a batch of traced
    points in one of the sweep's worker slots (--jobs 1 each: the slots are the parallelism), a
    batch once `batch` traces wait or, when no point is left to trace, all that wait, split over
    the free slots. rows: trace -> its row; failed: (status, stderr) of a sweep that refused."""

    def __init__(self, command, batch):
        self.command, self.batch = command, batch
        self.queue, self.active, self.rows, self.failed = [], {}, {}, None

    def add(self, path):
        self.queue.append(path)

    def waiting(self):
        return bool(self.queue or self.active)

    def running(self):
        return len(self.active)

    def pipes(self):
        return [process.stdout for process in self.active.values()]

    def start(self, tracing_left, free):
        """Starts a batch when one is due; False when none is."""
        if not self.queue or (tracing_left and len(self.queue) < self.batch):
            return False
        take = len(self.queue) if tracing_left else -(-len(self.queue) // free)
        paths, self.queue = self.queue[:take], self.queue[take:]
        process = subprocess.Popen([*self.command[:1], "sweep", *paths, *self.command[1:]], stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True)
        self.active[process.stdout] = process
        return True

    def collect(self, ready):
        """Reads the batches that ended; True when a sweep refused (its status is in failed)."""
        for pipe in [p for p in ready if p in self.active]:
            process = self.active.pop(pipe)
            out, err = process.communicate()
            if process.returncode not in (0, 1):
                self.failed = (process.returncode, err)
                for other in self.active.values():
                    other.kill()
                    other.communicate()
                self.active = {}
                return True
            self.rows.update({row["trace"]: row for row in json.loads(out)})
        return False


def _unknown_parameter(kernel, names):
    """A message naming the first of `names` (--input, --param, --sweep-param) the kernel does
    not take, or None: found before any point is traced, not once per point."""
    try:
        taken = kernel_parameters(kernel)
    except NkiError:
        return None  # the first point reports it with the kernel's line
    if taken is None:
        return None
    for option, name in names:
        if name not in taken:
            close = difflib.get_close_matches(name, taken, n=1)
            return (f"{option} {name}: {kernel.rpartition('::')[2]} has no parameter {name!r}" +
                    (f" (did you mean {close[0]!r}?)" if close else "") + f"; it takes {', '.join(taken)}")
    return None


def sweep_main(args, inputs, params, axes):
    """Trace every point, replay them with `sbufsim sweep`, print the table. Returns the exit
    status: 0 when every point ran, 1 when some could not be traced or replayed."""
    names = [name for name, _ in axes]
    if problem := _unknown_parameter(args.kernel, [*(("--sweep-param", n) for n in names),
                                                   *(("--param", n) for n in params),
                                                   *(("--input", n) for n in inputs)]):
        print(f"sbufsim nki: {problem}", file=sys.stderr)
        return 2
    points = [dict(zip(names, values)) for values in itertools.product(*(v for _, v in axes))]
    paths = [os.path.join(args.sweep_dir, _point_file(point)) for point in points]
    if args.keep_traces and (theirs := _not_ours(paths)):
        print(f"sbufsim nki: {theirs}: a point's trace goes there, and the file there was not written by "
              "sbufsim (its first line is not '# written by sbufsim ...'); move it, or give another --out",
              file=sys.stderr)
        return 2
    # Kept traces replace earlier ones only once the sweep took them: the earlier ones wait in a
    # private folder beside them, and are put back when the sweep refuses its table (--out of
    # another sweep) or the tracing fails.
    backup = tempfile.mkdtemp(prefix=".sbufsim-replaced-", dir=args.sweep_dir) if args.keep_traces else None
    written = []
    try:
        status = _sweep_points(args, inputs, params, names, points, paths, backup, written)
    except BaseException:
        if backup:
            _restore([], backup)
        raise
    if backup and status not in (0, 1):
        _restore(written, backup)
    elif backup:
        shutil.rmtree(backup, ignore_errors=True)
    return status


def _restore(written, backup):
    """Puts back the traces the points replaced (kept in `backup`), removes those of `written` (the
    paths this sweep traced) that replaced nothing, and drops `backup`."""
    earlier = set(os.listdir(backup))
    for name in earlier:
        os.replace(os.path.join(backup, name), os.path.join(os.path.dirname(backup), name))
    for path in written:
        if os.path.basename(path) not in earlier and os.path.exists(path):
            os.remove(path)
    shutil.rmtree(backup, ignore_errors=True)


def _sweep_points(args, inputs, params, names, points, paths, backup, written):
    jobs = [(args.kernel, inputs, {**params, **point}, args.gen, _grid(args.grid), path, backup, args.loop_buffers)
            for point, path in zip(points, paths)]
    run_args = list(args.run_args or [])
    workers = min(len(jobs), _jobs(run_args) or os.cpu_count() or 1)
    replays = None
    if not args.keep_traces and not _whole_table(run_args) and workers > 1 and len(jobs) > workers:
        # the traced points replayed while the others are traced (the table is this command's):
        # the replays fill the cores a tracer leaves idle, and the last replays are short
        mine = [a for i, a in enumerate(run_args) if not (a == "--jobs" or a.startswith("--jobs=") or
                                                          (i and run_args[i - 1] == "--jobs"))]
        replays = _Replays([args.sweep_binary, "--gen", args.gen, *mine, "--jobs", "1", "--json", "-", "--quiet"],
                           batch=max(2, -(-len(jobs) // (2 * workers))))
    traced = _trace_points(jobs, workers, _timeout(run_args), replays)
    if traced is None:
        sys.stderr.write(replays.failed[1])
        return replays.failed[0]
    written.extend(t[0] for t in traced if t[3] is None)
    ok = [t for t in traced if t[3] is None]
    rows_by_trace = replays.rows if replays else {}
    if ok and replays is None:
        command = [args.sweep_binary, "sweep", *[t[0] for t in ok], "--gen", args.gen, *run_args,
                   "--json", "-", "--quiet"]
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode not in (0, 1):
            sys.stderr.write(done.stderr)
            return done.returncode
        rows_by_trace = {row["trace"]: row for row in json.loads(done.stdout)}
    # The kernel's work. A point with no matmul at all (a tile past the input that skips the loop
    # body) is not ranked. When the points that do matmuls agree on their flops, the fastest of
    # them is marked; when they do not (an M // BM that drops a remainder at some tilings), none
    # is: which one computes the whole result is the kernel's to say, not the count's. A kernel
    # with no matmul at any point (element-wise work) is ranked when its points move the same HBM
    # bytes, by the same reasoning.
    works = sorted({t[1] for t in ok if t[1] > 0})
    most = works[-1] if works else 0
    moved = sorted({t[2] for t in ok})
    ranked = len(works) == 1 or (not works and len(moved) == 1)
    table, best = [], None
    for point, (path, flops, hbm_bytes, error) in zip(points, traced):
        row = rows_by_trace.get(path, {})
        cycles = row.get("total_cycles") if row.get("status") == "ok" else None
        if cycles is not None:
            time_ns = row["time_ns"]
            if flops == most:
                status = "ok"
            elif flops == 0:
                status = f"ok, other work: 0 matmul flops where the other points do {most}"
            else:
                status = f"ok, less work: {100 * flops / most:.1f}% of the most matmul flops ({flops} of {most})"
            cells = [cycles, f"{100 * flops / (cycles * PEAK_FLOPS_PER_CYCLE):.1f}%" if cycles else "-",
                     f"{hbm_bytes / time_ns:.1f}" if time_ns else "-", f"{hbm_bytes / (1 << 20):.1f}", status]
            if ranked and flops == most and (best is None or cycles < best[0]):
                best = (cycles, len(table))
        else:
            status = "untraceable" if error else row.get("status", "error")
            message = " ".join(part.strip() for part in (error or row.get("message", "")).splitlines())  # one row
            cells = ["-", "-", "-", "-", f"{status}: {message}"]
        table.append([*(repr(point[n]) for n in names), *cells])
    if best is not None:
        table[best[1]][-1] = "ok  <- fastest"
    header = [*names, "cycles", "MFU", "HBM GB/s", "HBM MiB", "status"]
    processes = f"{workers} process" + ("es" if workers > 1 else "")
    kept = f", traces kept in {args.sweep_dir}" if args.keep_traces else ""
    print(f"{args.kernel}: {len(points)} points, traced in {processes}, replayed by `sbufsim sweep`{kept}")
    print(_table(header, table))
    if len(works) > 1:
        print(f"note: the points do different matmul work ({len(works)} flop counts, {works[0]} to {most}), so none "
              "is marked fastest: a point that does less may leave part of the result uncomputed (a loop bound "
              "such as M // BM drops a remainder); check that each point covers the whole input")
    elif not works and len(moved) > 1:
        print(f"note: the points move different HBM bytes ({len(moved)} counts, {moved[0]} to {moved[-1]}), so none "
              "is marked fastest: a point that moves less may leave part of the input untouched (a loop bound "
              "such as N // TN drops a remainder); check that each point covers the whole input")
    return 0 if len(ok) == len(points) and all(r.get("status") == "ok" for r in rows_by_trace.values()) else 1


def main(argv=None):
    parser = argparse.ArgumentParser(prog="sbufsim nki")
    parser.add_argument("kernel")
    parser.add_argument("--input", action="append")
    parser.add_argument("--param", action="append")
    parser.add_argument("--sweep-param", action="append")
    parser.add_argument("--sweep-binary")
    parser.add_argument("--sweep-dir")
    parser.add_argument("--keep-traces", action="store_true")
    parser.add_argument("--gen", default="cayman")
    parser.add_argument("--grid")
    parser.add_argument("--loop-buffers", type=_loop_buffers)
    parser.add_argument("--cores", type=int)
    parser.add_argument("-o", "--output")
    parser.add_argument("--values-out")
    parser.add_argument("--run-args", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    inputs = _pairs(args.input, "--input")
    params = {k: _param(v) for k, v in _pairs(args.param, "--param").items()}
    grid = _grid(args.grid)
    if args.values_out and os.path.exists(args.values_out):
        print(f"sbufsim nki: --values-out {args.values_out}: exists; give a new file (it is not overwritten)",
              file=sys.stderr)
        return 2
    if args.sweep_param:
        if args.values_out:
            print("sbufsim nki: --values-out keeps one run's output; trace the chosen point with --param",
                  file=sys.stderr)
            return 2
        if not (args.sweep_binary and args.sweep_dir):
            print("sbufsim nki: --sweep-param needs --sweep-binary and --sweep-dir (`sbufsim nki` gives them)",
                  file=sys.stderr)
            return 2
        return sweep_main(args, inputs, params, _sweep_axes(args.sweep_param))
    if not args.output:
        print("sbufsim nki: -o OUT.trc is required", file=sys.stderr)
        return 2
    if args.values_out and not any(spec.endswith(".npy") for spec in inputs.values()):
        # refused before the kernel is traced: a long trace should not end in a usage error
        print("sbufsim nki: --values-out needs numerical inputs (--input NAME=FILE.npy)", file=sys.stderr)
        return 2
    # This process traces one kernel and ends. Its collector stays off: a trace's objects live
    # until the process ends, so a collection after the trace (the tracer turns it back on) walks
    # them all and frees nothing, and the exit's collection walks them again (gc.freeze below):
    # 0.8 s of the 7.2 s the tiled fp32 GEMM [8192,4096] @ [8192,8192] takes.
    gc.disable()
    try:
        kt = trace(args.kernel, inputs, params, generation=args.gen, grid=grid, loop_buffers=args.loop_buffers,
                   cores=args.cores)
    except NkiError as e:
        print(f"sbufsim nki: {e}", file=sys.stderr)
        return 3
    except TypeError as e:
        # a name the kernel does not take, said with the names it does (on this path only: the
        # kernel's file is loaded once more)
        problem = _unknown_parameter(args.kernel, [*(("--param", n) for n in params),
                                                   *(("--input", n) for n in inputs)])
        print(f"sbufsim nki: {problem or f'{args.kernel}: {e}'} (give each kernel argument with --input or --param)",
              file=sys.stderr)
        return 3
    if why := kt.nothing_to_replay():
        print(f"sbufsim nki: {why}", file=sys.stderr)
        return 3
    kt.write_scratch(args.output)  # sbufsim nki's own file: it writes -o itself, with the mark
    if len(kt.cores) > 1:
        _write_cores(kt, args.output)
    else:
        print(f"{kt.name}: traced, {len(kt.records)} records ({kt.flops / 1e9:.1f} GFLOP of matmul, "
              f"{kt.hbm_bytes / (1 << 20):.1f} MiB of HBM traffic)")
    for note in kt.empty_loops:
        print(f"note: {note}: its body is not in the trace")
    for note in kt.unwritten_reads + kt.shared_blocks:
        print(f"note: {note}")
    gc.freeze()  # nothing is collected at exit: the process frees its memory as it ends
    if kt.outputs is not None:
        return _report_values(kt, args.values_out)
    return 0


def _write_cores(kt, output):
    """A launch on several cores: each core's trace beside OUTPUT (core 0's is OUTPUT itself) and
    OUTPUT.cores listing them ("INSTANCES PATH" a line), which `sbufsim nki` replays core by core
    and reports (its records, cycles and bound-by a line each)."""
    lines = []
    for core in kt.cores:
        path = output if core is kt else f"{output}.core{core.core}"
        if core is not kt:
            core.write_scratch(path)
        lines.append(f"{core.instances} {path}\n")
    with open(f"{output}.cores", "w", encoding="utf-8") as f:
        f.writelines(lines)  # the launch's lines after the replay say what each core traced


def _report_values(kt, path):
    """The returned tensors' values: a summary line each, and the file --values-out names (one
    tensor: .npy; several: an .npz of out0, out1, ...)."""
    import numpy as np
    for i, out in enumerate(kt.outputs):
        print(f"values: output {i} {list(out.shape)}: min {out.min():.6g}, max {out.max():.6g}, mean {out.mean():.6g}")
    if path:
        if os.path.exists(path):
            print(f"sbufsim nki: --values-out {path}: exists; give a new file (it is not overwritten)", file=sys.stderr)
            return 2
        with open(path, "xb") as f:
            if len(kt.outputs) == 1:
                np.save(f, kt.outputs[0])
            else:
                np.savez(f, **{f"out{i}": out for i, out in enumerate(kt.outputs)})
        print(f"values: written to {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
