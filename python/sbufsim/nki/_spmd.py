"""SPMD launches (docs/nki.md, "SPMD grids"): `kernel[g]` / `kernel[g0, g1]` runs the kernel once
per point of the launch grid, with nl.program_id / num_programs / program_ndim answering for that
instance. This front-end models one NeuronCore: the instances run on it one after another, in
row-major order of the grid, each tracing its own records (their tiles reuse the buffers of their
allocation sites, and the semaphores order one instance's reads after the previous one's
writes). That is a faithful first model of a launch on a single core; instances on several cores
(nl.nc, LNC=2) are traced the same way and their times add up instead of overlapping."""

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
    """nl.nc(n): a launch dimension spread over n NeuronCores (here: n instances, one after another)."""


def nc(n):
    """n NeuronCores of a launch dimension (nl.spmd_dim); here n instances, one after another."""
    return NeuronCores(n)


def spmd_dim(*sizes):
    """nl.spmd_dim(grid_x, nl.nc(2)): one launch dimension of the product of its sizes."""
    total = 1
    for s in sizes:
        total *= int(s)
    return total


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
    """The launch grid of kernel[key]: a tuple of positive instance counts."""
    dims = tuple(key) if isinstance(key, (tuple, list)) else (key,)
    try:
        dims = tuple(int(d) for d in dims)
    except (TypeError, ValueError):
        raise fail(f"kernel[{key!r}]: a launch grid is one or more integers (nl.spmd_dim, nl.nc included)") from None
    if not dims or any(d <= 0 for d in dims):
        raise fail(f"kernel[{key!r}]: every launch dimension must be positive")
    return dims


def launch(func, dims, args, kwargs):
    """Runs func once per point of the grid `dims`, one after another; the last instance's result
    is the launch's (its shared_hbm outputs are the same tensors in every instance)."""
    saved = _program.ids, _program.dims, _program.shared
    result = None
    _program.shared = {}
    try:
        for ids in itertools.product(*(range(d) for d in dims)):
            _program.ids, _program.dims = ids, dims
            result = func(*args, **kwargs)
    finally:
        _program.ids, _program.dims, _program.shared = saved
    return result


def shared_tensor(key, make):
    """A shared_hbm tensor of a launch: the first instance's, made by make(), for every instance
    (nl.shared_hbm is visible to all of a launch's instances); outside a launch a new one."""
    if _program.shared is None:
        return make()
    if key not in _program.shared:
        _program.shared[key] = make()
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
