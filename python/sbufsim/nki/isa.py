"""nki.isa as traced by sbufsim (docs/nki.md): one instruction per call, on the engine it names
(or the one given with engine=)."""

from . import _ops
from ._tracer import dtype_of, fail
from . import language as _nl

# engines (engine= argument)
tensor_engine, vector_engine, scalar_engine, gpsimd_engine, unknown_engine = "pe", "dve", "act", "pool", None
_DEFAULT = {"tensor_copy": "dve", "tensor_tensor": "dve", "tensor_scalar": "dve", "tensor_reduce": "dve",
            "activation": "act", "iota": "pool", "memset": "pool", "select": "pool"}


def _engine(name, engine):
    return engine or _DEFAULT[name]


def _fn(op):
    """An op argument (nl.add, np.add, 'add') -> its name for the record's fn field."""
    name = getattr(op, "__name__", None) or str(op)
    return {"maximum": "max", "minimum": "min"}.get(name, name)


def dma_copy(dst, src, **_):
    return _ops.dma(_ops.value(dst) if not hasattr(dst, "dims") else dst, _ops.value(src))


def nc_matmul(stationary, moving, is_stationary_onezero=False, is_moving_onezero=False, mask=None,
              is_transpose=False, perf_mode=None, **_):
    if perf_mode not in (None, "", "none"):
        raise fail(f"nc_matmul perf_mode={perf_mode!r} is not modelled yet")
    if is_transpose:
        return _ops.transpose(stationary)
    return _ops.matmul(stationary, moving)


def nc_transpose(data, engine=None, mask=None, **_):
    if engine not in (None, tensor_engine):
        raise fail("nc_transpose on the Vector Engine (32x32 blocks) is not modelled; use the PE (default)")
    return _ops.transpose(data)


def tensor_copy(src, dtype=None, engine=None, mask=None, **_):
    return _ops.unary("copy", src, dtype, engine=_engine("tensor_copy", engine))


def tensor_tensor(data1, data2, op, dtype=None, engine=None, mask=None, **_):
    return _ops.elementwise(_fn(op), data1, data2, dtype=dtype, engine=_engine("tensor_tensor", engine))


def tensor_scalar(data, op0, operand0, reverse0=False, op1=None, operand1=None, dtype=None, engine=None,
                  mask=None, **_):
    fn = _fn(op0) if op1 is None else f"{_fn(op0)}+{_fn(op1)}"
    return _ops.unary(fn, data, dtype, engine=_engine("tensor_scalar", engine))


def tensor_reduce(op, data, axis, dtype=None, negate=False, keepdims=False, mask=None, **_):
    return _ops.reduce(_fn(op), data, axis, dtype, engine="dve", keepdims=keepdims)


def activation(op, data, bias=None, scale=1.0, reduce_op=None, reduce_res=None, dtype=None, mask=None, **_):
    srcs = [data] + ([bias] if bias is not None and not isinstance(bias, (int, float)) else [])
    data = _ops.value(data)
    pending = _ops.lazy("act", _fn(op), srcs, data.shape, dtype)
    if reduce_res is not None:
        view = _ops.value(pending)
        _ops.compute("act", f"{_fn(reduce_op or 'add')}", [view], reduce_res)
    return pending


def activation_reduce(op, data, reduce_op, reduce_res, bias=None, scale=1.0, dtype=None, mask=None, **_):
    return activation(op, data, bias=bias, scale=scale, reduce_op=reduce_op, reduce_res=reduce_res, dtype=dtype)


def iota(expr, dtype, mask=None, **_):
    if isinstance(expr, tuple):
        shape = tuple(a.size for a in expr)
    else:
        shape = (expr.size, 1)
    tile = _ops.tracer().new_tensor(shape, dtype_of(dtype), "sbuf")
    _ops.compute("pool", "iota", [], tile)
    return tile


def memset(shape, value, dtype, engine=None, mask=None, **_):
    tile = _ops.tracer().new_tensor(shape, dtype_of(dtype), "sbuf")
    _ops.memset(tile, value, engine=_engine("memset", engine))
    return tile


def select(predicate, on_true, on_false, dtype=None, mask=None, **_):
    tiles = [t for t in (predicate, on_true, on_false) if not isinstance(t, (int, float))]
    if len(tiles) > 2:
        raise fail("select with a predicate and two tile operands reads three tiles; this model's "
                   "instructions read at most two (make one side a scalar)")
    return _ops.elementwise("select", tiles[0], tiles[1] if len(tiles) > 1 else 0, dtype=dtype, engine="pool")


# ops names usable as op= arguments alongside nl.* (nl.add etc. carry their own __name__)
add, subtract, multiply, maximum, minimum = _nl.add, _nl.subtract, _nl.multiply, _nl.maximum, _nl.minimum
