"""nki.isa's two public calling conventions: neuronxcc.nki's returns the result (`t =
nisa.tensor_copy(x)`); the `nki` package's (the API pages from Neuron 2.29 on) writes it into a
first argument (`nisa.tensor_copy(dst, x)` or dst=). An instruction under `writes_dst` takes
both."""

import functools

from . import _grid, _ops, _view


def is_tile(x):
    return isinstance(x, (_view.View, _ops.Pending, _grid.TileGrid))


def split_dst(args, kwargs, leading):
    """(dst or None, the other positionals) of a call. A call is dst-first when it passes dst= or
    starts with one tile more than the returning form does (`leading`: the tiles that form starts
    with, e.g. 2 for tensor_tensor(data1, data2, op), 0 for activation(op, data))."""
    if "dst" in kwargs:
        return kwargs.pop("dst"), args
    tiles = next((i for i, a in enumerate(args) if not is_tile(a)), len(args))
    return (args[0], args[1:]) if tiles > leading else (None, args)


def writes_dst(leading, takes_dst=False):
    """An instruction in both conventions. Returning form: the function as written. dst-first
    form: its result is written into dst as `dst[...] = result` would be (no extra copy), or, with
    takes_dst, dst is handed to the function, which writes it itself."""
    def wrap(fn):
        @functools.wraps(fn)
        def call(*args, **kwargs):
            dst, args = split_dst(args, kwargs, leading)
            if dst is None:
                return fn(*args, **kwargs)
            if takes_dst:
                return fn(*args, dst=_ops.value(dst), **kwargs)
            _ops.assign(_ops.value(dst), fn(*args, **kwargs))
            return dst
        return call
    return wrap
