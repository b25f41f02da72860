"""A user's NKI driver script run unchanged, its kernels simulated (docs/nki.md, "Driver scripts"):

    python3 -m sbufsim.nki.driver SCRIPT.py [ARGS...] [--gen G]

The script runs as __main__ with `nki`, `nki.language`, ... (and the `neuronxcc.nki` paths) being
the tracing modules, its folder first on the module path. What it does with its kernels:

- calls a kernel (`out = kernel(a, b)`, `kernel[grid](a, b)`, `nki.simulate_kernel(kernel, a, b)`,
  `nki.baremetal(kernel)(a, b)`): the kernel is traced with its arguments' values (numpy
  arrays; float64 ones as float32) and the call returns the computed outputs as numpy arrays,
  so the script's own correctness checks run; the simulated latency is printed;
- `nki.benchmark(warmup=, iters=)(kernel)(a, b)` and `nki.profile(...)(kernel)(a, b)`: traced by
  shape (no values) and replayed; `bench.benchmark_result.nc_latency.get_latency_percentile(p)`
  answers with the simulated latency in microseconds for every p (a simulation has no spread);
- `nl.static_cast(array, dtype)` outside a kernel: the array, marked with the NKI dtype the kernel
  sees it as.

Each simulated call prints one line on stderr: `sbufsim: KERNEL: N records, C cycles = T us
(simulated on G)`. The replay is the `sbufsim` command's (`$SBUFSIM_BINARY`, else beside the
package in a build tree, else on PATH), with its default configuration."""

import argparse
import inspect
import json
import os
import runpy
import shutil
import subprocess
import sys
import tempfile

from . import _kernel_folder, _shim, _spmd, _tracer, hbm_share, trace
from ._errors import NkiError, fail

_generation = "cayman"
results = []  # (kernel name, records, cycles, microseconds) of every simulated call, in order


class Cast:
    """nl.static_cast(array, dtype) in a driver: the array and the NKI dtype the kernel sees."""

    def __init__(self, array, dtype):
        self.array, self.dtype = array, dtype
        self.shape = tuple(array.shape)

    def __array__(self, dtype=None, copy=None):
        import numpy
        return numpy.asarray(self.array, dtype=dtype)


def static_cast(x, dtype):
    if _tracer._current is not None:
        raise fail("nl.static_cast converts arrays outside a kernel (a driver's inputs); inside, use "
                   "nl.copy(x, dtype=...)")
    return Cast(x, dtype)


def _inputs(func, args, kwargs, values):
    """trace()'s inputs and params from a call's arguments: arrays (and static_casts) are inputs,
    by shape or with their values; anything else is a keyword parameter."""
    import numpy
    bound = inspect.signature(func).bind(*args, **kwargs)
    inputs, params = {}, {}
    for name, value in bound.arguments.items():
        if isinstance(value, Cast) or isinstance(value, numpy.ndarray):
            array = value.array if isinstance(value, Cast) else value
            dtype = value.dtype if isinstance(value, Cast) else None
            if array.dtype == numpy.float64:
                array = array.astype(numpy.float32)
            elif array.dtype == numpy.int64:
                array = array.astype(numpy.int32)
            if dtype is None:
                inputs[name] = array if values else (array.dtype, array.shape)
            else:
                inputs[name] = (dtype, array.shape) if not values else _as_input(array, dtype)
        else:
            params[name] = value
    return inputs, params


def _as_input(array, dtype):
    """An array given to the kernel as the NKI dtype `dtype` with its values (bf16: float32 values
    rounded by the tracer)."""
    import numpy
    name = getattr(dtype, "name", str(dtype))
    native = {"float32", "float16", "int8", "uint8", "int16", "uint16", "int32", "uint32"}
    if name in native:
        return array.astype(numpy.dtype(name))
    return f"{getattr(dtype, 'trace_name', name)}:{_saved(array)}"


def _saved(array):
    import numpy
    path = os.path.join(_scratch(), f"input{len(os.listdir(_scratch()))}.npy")
    numpy.save(path, array.astype(numpy.float32))
    return path


_scratch_dir = None


def _scratch():
    global _scratch_dir
    if _scratch_dir is None:
        _scratch_dir = tempfile.mkdtemp(prefix="sbufsim-driver.")
    return _scratch_dir


def _binary():
    env = os.environ.get("SBUFSIM_BINARY")
    if env:
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    for candidate in (os.path.join(here, "..", "..", "..", "build", "sbufsim"),
                      os.path.join(here, "..", "..", "sbufsim")):
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return os.path.normpath(candidate)
    found = shutil.which("sbufsim")
    if not found:
        raise NkiError("sbufsim.nki.driver: no `sbufsim` command to replay with: set $SBUFSIM_BINARY")
    return found


def simulate(kernel, args, kwargs, values, grid=None):
    """Trace the kernel with the call's arguments and replay it: (outputs or None, microseconds)."""
    func = getattr(kernel, "func", kernel)
    inputs, params = _inputs(func, args, kwargs, values)
    saved = _tracer._current
    _tracer._current = None  # a driver's call: no trace is running
    try:
        kt = trace(func, inputs, params, generation=_generation, grid=grid)
    finally:
        _tracer._current = saved
    # a launch on several cores: each core replayed with its share of HBM, the latest one's time
    shared = ["--set", f"dma.hbm_gbps={hbm_share(_generation, len(kt.cores))!r}"] if len(kt.cores) > 1 else []
    runs = []
    for core in kt.cores:
        path = os.path.join(_scratch(), f"{func.__name__}.core{core.core}.trc")
        core.write_scratch(path)
        done = subprocess.run([_binary(), "run", path, "--json", "-", "--quiet", *shared], capture_output=True,
                              text=True)
        if done.returncode != 0:
            raise NkiError(f"sbufsim.nki.driver: replaying {func.__name__} failed: {done.stderr.strip()}")
        runs.append(json.loads(done.stdout)["runs"][0]["run"])
    run = max(runs, key=lambda r: r["total_cycles"])
    microseconds = run["time_ns"] / 1000.0
    records = sum(len(core.records) for core in kt.cores)
    results.append((func.__name__, records, run["total_cycles"], microseconds))
    cores = f" on {len(kt.cores)} NeuronCores (the latest core's time)" if len(kt.cores) > 1 else ""
    print(f"sbufsim: {func.__name__}: {records} records{cores}, {run['total_cycles']} cycles = "
          f"{microseconds:.2f} us (simulated on {_generation})", file=sys.stderr)
    outputs = kt.outputs
    if outputs is not None and len(outputs) == 1:
        outputs = outputs[0]
    return outputs, microseconds


class _Latency:
    """benchmark_result.nc_latency: the simulated latency for every percentile."""

    def __init__(self, microseconds):
        self.microseconds = microseconds

    def get_latency_percentile(self, percentile):
        return self.microseconds


class _BenchmarkResult:
    def __init__(self, microseconds):
        self.nc_latency = _Latency(microseconds)


class Benchmarked:
    """nki.benchmark(...)(kernel) / nki.profile(...)(kernel): a call traces by shape and replays;
    kernel[grid] launches too."""

    def __init__(self, kernel):
        self.kernel, self.benchmark_result = kernel, None

    def __call__(self, *args, **kwargs):
        return self._run(args, kwargs, None)

    def __getitem__(self, grid):  # bench[grid](...): the result is this object's, as NKI's is
        dims = _spmd._grid(grid)
        return lambda *args, **kwargs: self._run(args, kwargs, dims)

    def _run(self, args, kwargs, grid):
        _, microseconds = simulate(self.kernel, args, kwargs, values=False, grid=grid)
        self.benchmark_result = _BenchmarkResult(microseconds)


def benchmark(func=None, **_options):
    if func is None or not callable(func):
        return lambda f: Benchmarked(_spmd.decorator(f))
    return Benchmarked(_spmd.decorator(func))


def simulate_kernel(kernel, *args, **kwargs):
    """nki.simulate_kernel(kernel, *args): the kernel's outputs, computed as it is traced."""
    grid = getattr(kernel, "grid", None)
    return simulate(getattr(kernel, "kernel", kernel), args, kwargs, values=True, grid=grid)[0]


def _driver_call(kernel, args, kwargs, grid=None):
    """A kernel called from the driver (no trace running): traced with values and replayed."""
    return simulate(kernel, args, kwargs, values=True, grid=grid)[0]


def main(argv=None):
    global _generation
    parser = argparse.ArgumentParser(prog="python3 -m sbufsim.nki.driver",
                                     description="run an NKI driver script with its kernels simulated")
    parser.add_argument("--gen", default="cayman", help="the generation the kernels are simulated on")
    parser.add_argument("script")
    parser.add_argument("args", nargs=argparse.REMAINDER)
    options = parser.parse_args(argv)
    _generation = options.gen
    with _shim(), _kernel_folder(options.script), _driver_mode():
        sys.argv = [options.script, *options.args]
        try:
            runpy.run_path(options.script, run_name="__main__")
        except NkiError as e:
            print(f"sbufsim: {e}", file=sys.stderr)
            return 3
    return 0


class _driver_mode:
    """While a driver runs: kernels called outside a trace are simulated; nki.benchmark,
    nki.profile and nki.simulate_kernel are the driver's; nl.static_cast marks arrays."""

    def __enter__(self):
        nki = sys.modules["nki"]
        self.saved = {name: nki.__dict__.get(name) for name in ("benchmark", "profile", "simulate_kernel")}
        nki.benchmark = nki.profile = benchmark
        nki.simulate_kernel = simulate_kernel
        from . import language
        self.static_cast = language.static_cast
        language.static_cast = static_cast
        _spmd.driver_call = _driver_call
        return self

    def __exit__(self, *exc):
        nki = sys.modules["nki"]
        for name, value in self.saved.items():
            setattr(nki, name, value)
        from . import language
        language.static_cast = self.static_cast
        _spmd.driver_call = None
        return False


if __name__ == "__main__":
    sys.exit(main())
