"""SPMD launches (docs/nki.md, "SPMD grids"): `kernel[g]` / `kernel[g0, g1]` runs the kernel once
per point of the launch grid, with nl.program_id / num_programs / program_ndim answering for that
instance. The instances run on the physical NeuronCores of the logical core (`cores`, the
generation's gen.lnc unless told otherwise): a grid dimension made with nl.nc(n) (directly or as a
factor of nl.spmd_dim) names the core of each instance, its index along that factor modulo the
cores, as the nl.nc and nl.spmd_dim references assign them; without one, the instances in row-major
order are split into one contiguous block per core. Each core is traced on its own, a full replay
of its instances one after another in row-major order (their tiles reuse the buffers of their
allocation sites, and the semaphores order one instance's reads after the previous one's writes);
trace() traces the kernel once per core (`Cores.core` the one being traced)."""

import functools
import itertools

from . import _tracer
from ._errors import fail


class _Program:
    """The instance being traced: its indices and the launch grid's sizes (() outside a launch);
    `shared`: the launch's shared_hbm tensors by allocation site, which every instance shares."""
    ids, dims = (), ()
    shared = None


_program = _Program()

# A driver script's kernel call outside any trace (driver.py sets it while a driver runs):
# driver_call(kernel, args, kwargs, grid) simulates it.
driver_call = None


def _outside_trace():
    return driver_call is not None and _tracer._current is None


class NeuronCores(int):
    """nl.nc(n): a launch dimension whose index names the physical NeuronCore of an instance."""


class SpmdDim(int):
    """nl.spmd_dim(a, nl.nc(2), ...): a launch dimension of the product of its factors, its index
    their row-major combination (`factors` keeps them: an nl.nc factor names the core)."""
    factors = ()


def nc(n):
    """n NeuronCores of a launch dimension: its index is the instance's physical core."""
    return NeuronCores(n)


def spmd_dim(*sizes):
    """nl.spmd_dim(grid_x, nl.nc(2)): one launch dimension of the product of its sizes, an nl.nc
    factor naming the core of each instance."""
    total = 1
    for s in sizes:
        total *= int(s)
    dim = SpmdDim(total)
    dim.factors = tuple(sizes)
    return dim


class Cores:
    """The physical cores a launch runs on while a kernel is traced: `count` of them, `core` the
    one this trace replays (the instances of the others are skipped); `instances[c]` counts the
    instances assigned to core c over the trace's launches. `carry`: the shared_hbm values the
    cores traced before left, by allocation site, so that the last core's outputs hold every
    instance's writes."""

    def __init__(self, count=1, core=0, carry=None):
        self.count, self.core, self.carry = count, core, carry
        self.instances = [0] * count


_cores = Cores()


def core_of(spec, ids, index, total, count):
    """The physical core of the instance at `ids` (row-major `index` of `total`) of a launch whose
    grid entries are `spec`, on `count` cores: its index along the grid's first nl.nc factor modulo
    the cores (nl.nc and nl.spmd_dim references); without one, its contiguous block of the
    row-major order."""
    for axis, entry in enumerate(spec):
        factors = getattr(entry, "factors", None) or ((entry,) if isinstance(entry, NeuronCores) else ())
        if not any(isinstance(f, NeuronCores) for f in factors):
            continue
        x, parts = ids[axis], []
        for f in reversed(factors):
            parts.append(x % int(f))
            x //= int(f)
        parts.reverse()
        return next(p for p, f in zip(parts, factors) if isinstance(f, NeuronCores)) % count
    return index * count // total


def program_id(axis):
    """The instance's index along `axis` of the launch grid (0 outside a launch)."""
    axis = int(axis)
    if axis < 0 or (_program.dims and axis >= len(_program.dims)):
        raise fail(f"nl.program_id({axis}): the launch grid has {len(_program.dims)} dimension(s) "
                   f"{tuple(_program.dims)}")
    return _program.ids[axis] if axis < len(_program.ids) else 0


def num_programs(axes=None):
    """The launch grid's size along `axes` (an int or a tuple of them), 1 outside a launch."""
    if axes is None:
        return _size(_program.dims)
    if isinstance(axes, (tuple, list)):
        return _size(_program.dims[a] if a < len(_program.dims) else 1 for a in axes)
    return _program.dims[axes] if axes < len(_program.dims) else 1


def program_ndim():
    """The launch grid's dimensions (0 outside a launch)."""
    return len(_program.dims)


def _size(values):
    n = 1
    for v in values:
        n *= v
    return n


def _grid(key):
    """The launch grid of kernel[key]: a tuple of positive instance counts (the entries themselves:
    an nl.nc or nl.spmd_dim entry keeps its factors for core_of)."""
    dims = tuple(key) if isinstance(key, (tuple, list)) else (key,)
    try:
        dims = tuple(d if isinstance(d, int) else int(d) for d in dims)
    except (TypeError, ValueError):
        raise fail(f"kernel[{key!r}]: a launch grid is one or more integers (nl.spmd_dim, nl.nc included)") from None
    if not dims or any(d <= 0 for d in dims):
        raise fail(f"kernel[{key!r}]: every launch dimension must be positive")
    return dims


def launch(func, dims, args, kwargs):
    """Runs func once per point of the grid `dims` assigned to the core being traced
    (_cores.core), one after another; the last such instance's result is the launch's (its
    shared_hbm outputs are the same tensors in every instance); None on a core given none of its
    instances, which traces nothing of it."""
    saved = _program.ids, _program.dims, _program.shared
    result = None
    _program.shared = {}
    total = _size(dims)
    try:
        for index, ids in enumerate(itertools.product(*(range(d) for d in dims))):
            core = core_of(dims, ids, index, total, _cores.count)
            _cores.instances[core] += 1
            if core != _cores.core:
                continue
            _program.ids, _program.dims = ids, tuple(int(d) for d in dims)
            result = func(*args, **kwargs)
        if _cores.carry is not None:
            for key, tensor in _program.shared.items():
                values = getattr(tensor.storage, "values", None)
                if values is not None:
                    _cores.carry[key] = values.copy()
    finally:
        _program.ids, _program.dims, _program.shared = saved
    return result


def shared_tensor(key, make):
    """A shared_hbm tensor of a launch: the first instance's, made by make(), for every instance
    (nl.shared_hbm is visible to all of a launch's instances); outside a launch a new one."""
    if _program.shared is None:
        return make()
    if key not in _program.shared:
        tensor = _program.shared[key] = make()
        carried = (_cores.carry or {}).get(key)
        values = getattr(tensor.storage, "values", None)
        if carried is not None and values is not None and values.shape == carried.shape:
            values[...] = carried  # the cores traced before wrote their instances' parts
    return _program.shared[key]


class Kernel:
    """What nki.jit (and nki.baremetal, nki.benchmark, ...) makes of a kernel function: called, it
    runs as plain Python under the tracer (inside a launch it is the current instance; a kernel
    called from another kernel is a sub-kernel); indexed, kernel[grid](...) launches it."""

    def __init__(self, func, options):
        functools.update_wrapper(self, func)
        self.func, self.options = func, options

    def __call__(self, *args, **kwargs):
        if _outside_trace():
            return driver_call(self, args, kwargs)
        return self.func(*args, **kwargs)

    def __getitem__(self, key):
        dims = _grid(key)
        if _outside_trace():
            return lambda *args, **kwargs: driver_call(self, args, kwargs, dims)
        return lambda *args, **kwargs: launch(self.func, dims, args, kwargs)

    def __get__(self, obj, owner=None):  # a kernel defined in a class body stays a method
        return self if obj is None else functools.partial(self, obj)


def decorator(func=None, **options):
    """nki.jit / nki.baremetal / nki.benchmark / nki.trace, bare or with options
    (`@nki.jit(platform_target="trn2")`): the options are accepted and have no effect on the trace."""
    if func is None:
        return lambda f: decorator(f, **options)
    if isinstance(func, Kernel):
        return func
    return Kernel(func, options)
