"""The operations of nki.language and nki.isa above single records: results pending their
destination (Pending: `t[...] = nl.load(...)` writes into t, any other use into a new tile of
the call's line), what a tile's operators do (assign, accumulate, elementwise), loads and stores,
the element-wise and reduction ops as the compiler lowers them to VectorE/ScalarE/GpSimd
instructions, copies and fills."""

from . import _ap, _values
from ._compute import compute, compute_writing, copy_isa
from ._dma import dma, dma_transpose
from ._dtypes import dtype_of
from ._errors import _deferred_sites, fail, kernel_site
from ._grid import TileGrid
from ._allocator import PARTITIONS
from ._tracer import tracer
from ._view import Operators, View


class Pending:
    """The result of an op before it has a destination: assigned into a tile it writes there,
    used any other way it is written to a new tile of its own allocation site."""

    accumulates = False  # a matmul's (_matmul.MatmulPending) accumulates when added into its tile

    def __init__(self, shape, dtype, buffer, write, site):
        self.shape, self.dtype, self.buffer, self.write, self.site = shape, dtype, buffer, write, site
        self.result = None  # the tile it was written to (not `view`: tensor.view(dtype) is the tile's)

    def materialise(self, dst=None):
        if self.result is not None:
            if dst is not None:
                copy(dst, self.result)
            return self.result
        t = tracer()
        if self in t.unwritten:
            t.unwritten.remove(self)
        if dst is None:
            dst = t.new_tensor(self.shape, self.dtype, self.buffer, site=self.site)
        _deferred_sites.append(self.site)
        try:
            self.write(dst)
        finally:
            _deferred_sites.pop()
        self.result = dst
        return dst

    def __getattr__(self, name):  # .shape/.dtype are set; anything else is the tile's
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.materialise(), name)

    def __getitem__(self, key):
        return self.materialise()[key]

    def __setitem__(self, key, val):
        self.materialise()[key] = val

    def __radd__(self, other):
        return elementwise("add", other, self)

    def __rsub__(self, other):
        return elementwise("subtract", other, self)

    def __rmul__(self, other):
        return elementwise("multiply", other, self)

    def __rtruediv__(self, other):
        return elementwise("divide", other, self)

    def __neg__(self):
        return elementwise("multiply", self, -1)

    def __iadd__(self, other):
        view = self.materialise()
        view += other
        return view

    def __add__(self, other):
        return elementwise("add", self, other)

    def __sub__(self, other):
        return elementwise("subtract", self, other)

    def __mul__(self, other):
        return elementwise("multiply", self, other)

    def __truediv__(self, other):
        return elementwise("divide", self, other)


def value(x):
    """A tile operand: a View, a Pending made concrete, or a tile grid's selection."""
    if isinstance(x, Pending):
        return x.materialise()
    if isinstance(x, View):
        return x
    if isinstance(x, TileGrid):
        return x.data
    raise fail(f"{x!r} is not a tile")


# ---------------------------------------------------------------------------------------------
# the operations

def assign(target, val):
    if isinstance(val, Pending):
        val.materialise(target)
    elif isinstance(val, View):
        copy(target, val)
    elif isinstance(val, (int, float)):
        memset(target, val)
    else:
        raise fail(f"cannot assign {val!r} to a tile")


def accumulate(target, other):
    """t += x: a matmul accumulating into its PSUM tile, else an add in place on VectorE."""
    if target.buffer == "psum" and isinstance(other, Pending) and other.accumulates:
        other.accumulate_into(target)
    else:
        elementwise("add", target, other, dst=target)


def transposed_load(src, site=None, four_byte=True):
    """The transpose of a 2-D tile through a DMA, written wherever it is assigned (four_byte:
    4-byte data allowed, as nl.load_transpose2d has it; nisa.dma_transpose passes False)."""
    src = value(src)
    if len(src.shape) != 2:
        raise fail(f"a DMA transpose of {src.shape}: only 2-D tiles")
    return Pending(src.shape[::-1], src.dtype, "sbuf", lambda dst: dma_transpose(dst, src, four_byte=four_byte),
                   site or kernel_site())


def load(src, dtype=None, mask=None):
    src = value(src)
    site = kernel_site()
    if src.on_chip:
        raise fail("nl.load reads HBM; this tensor is already on chip")
    dims = [dim for dim in src.dims if dim[3]]
    if not dims or dims[0][2] > PARTITIONS:
        raise fail(f"nl.load of {src.shape}: the first dimension becomes the partitions and must be 1..{PARTITIONS}")
    return Pending(src.shape, dtype or src.dtype, "sbuf", lambda dst: dma(dst, src, mask=mask), site)


def store(dst, val, mask=None):
    dst = value(dst) if not isinstance(dst, View) else dst
    src = value(val)
    if dst.on_chip:
        raise fail("nl.store writes HBM; use a copy between on-chip tiles")
    return dma(dst, src, mask=mask)


VECTOR_TRANSPOSE_MAX = 32  # nc_transpose on VectorE: blocks of at most 32 x 32 (nki.isa.nc_transpose)


def vector_transpose(data):
    """nc_transpose(engine=vector_engine): one VectorE `transpose` instruction of a <= 32 x 32 tile."""
    data = value(data)
    p, f = data.shape
    if p > VECTOR_TRANSPOSE_MAX or f > VECTOR_TRANSPOSE_MAX:
        raise fail(f"nc_transpose on the Vector Engine takes at most {VECTOR_TRANSPOSE_MAX} x "
                   f"{VECTOR_TRANSPOSE_MAX}; this tile is {data.shape} (use the Tensor Engine, the default)")
    return lazy("dve", "transpose", [data], (f, p), None, isa="transpose", values=lambda x: x.T)


def _sources(*xs):
    return [value(x) for x in xs if isinstance(x, (View, Pending))]


def lazy(engine, fn, srcs, shape, dtype, dst=None, site=None, isa=None, also_writes=(), values=None,
         extra_reads=()):
    """An op writing a new tile (or dst): pending until its destination is known. extra_reads: tiles
    the instruction reads beyond the record's two operands (a [P, 1] scalar operand), for the
    hazards only."""
    srcs = _sources(*srcs)
    dtype = dtype_of(dtype) if dtype is not None else srcs[0].dtype
    write = lambda d: compute_writing(engine, fn, srcs, [d, *also_writes], isa, values, extra_reads)
    pending = Pending(tuple(shape), dtype, "sbuf", write, site or kernel_site())
    if dst is not None:
        pending.materialise(dst)
        return dst
    return pending


def _free(view):
    return view.free_elements


def elementwise(fn, a, b, dst=None, dtype=None, engine=None, isa=None):
    """An element-wise op of nki.language, as the compiler lowers it: two tiles of the same size
    are a `tensor_tensor`; a tile and a number, or a tile and a [P, 1] tile broadcast along the
    free axis, a `tensor_scalar` (its operand is a scalar or one value per partition). On VectorE
    unless engine= says otherwise. `isa` given (nisa.tensor_tensor) keeps that instruction."""
    a, b = (value(x) if isinstance(x, (View, Pending)) else x for x in (a, b))
    tiles = _sources(a, b)
    if not tiles:
        raise fail(f"{fn} of two scalars is not an NKI tile operation")
    if len(tiles) == 2 and _broadcastable(*tiles):
        # Tiles of one rank whose free dimensions are equal or 1 on one side ([P, W, 1, 1] with
        # [P, W, 3, 3]): the size-1 dimensions are read repeatedly (step 0), numpy's broadcast.
        shape = tuple(max(m, n) for m, n in zip(tiles[0].shape, tiles[1].shape))
        a, b = (x.broadcast_to(shape) if isinstance(x, View) and x.shape != shape else x for x in (a, b))
        tiles = _sources(a, b)
    if len(tiles) == 2:
        # Same partitions, and the same elements per partition unless one side has one per
        # partition ([P, 1], broadcast along the free axis): what the compiler accepts.
        (p0, f0), (p1, f1) = ((x.shape[0], _free(x)) for x in tiles)
        if p0 != p1 or (f0 != f1 and min(f0, f1) != 1):
            raise fail(f"{fn} of tiles {tuple(tiles[0].shape)} and {tuple(tiles[1].shape)}: element-wise operands need "
                       "the same partitions and the same elements per partition, or one value per partition "
                       "([P, 1]) to broadcast (nki.language)")
    if isa is None:
        broadcast = len(tiles) == 2 and min(_free(x) for x in tiles) == 1 < max(_free(x) for x in tiles)
        isa = "tensor_tensor" if len(tiles) == 2 and not broadcast else "tensor_scalar"
    if isa == "tensor_scalar" and len(tiles) == 2 and _free(tiles[0]) < _free(tiles[1]):
        tiles = tiles[::-1]  # the data tile first: its size sets the instruction's cost
    shape = max((x.shape for x in tiles), key=lambda s: (len(s), _count(s)))

    def values(*arrays):  # the operands in the kernel's order, whatever the sources' order
        by_tile = {id(tile): array for tile, array in zip(tiles, arrays)}
        x, y = (by_tile[id(v)] if isinstance(v, View) else v for v in (a, b))
        return _values.binary(fn)(free_column(x, shape), free_column(y, shape))
    return lazy(engine or "dve", fn, tiles, shape, dtype, dst, isa=isa, values=values)


def _broadcastable(x, y):
    """Two tiles of one rank and partitions, differing only where one of them has size 1 (and not
    the [P, 1] operand a tensor_scalar reads)."""
    if len(x.shape) != len(y.shape) or x.shape[0] != y.shape[0] or x.shape == y.shape or len(x.shape) < 3:
        return False
    return all(m == n or 1 in (m, n) for m, n in zip(x.shape[1:], y.shape[1:]))


def free_column(x, shape):
    """A [P, 1] operand (one value per partition) broadcast against a tile of `shape`."""
    if isinstance(x, (int, float)) or getattr(x, "ndim", 0) == 0 or x.shape == tuple(shape):
        return x
    return x.reshape((x.shape[0],) + (1,) * (len(shape) - 1)) if x.size == shape[0] else x.reshape(shape)


def unary(fn, x, dtype=None, engine="act", dst=None, isa="activation"):
    x = value(x)
    return lazy(engine, fn, [x], x.shape, dtype, dst, isa=isa, values=lambda v: _values.activation(fn)(v))


def reduce(fn, x, axis, dtype=None, engine="dve", keepdims=True):
    x = value(x)
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    if 0 in axes:
        raise fail(f"{fn} over the partition axis is not an engine reduction in this model; transpose first")
    shape = tuple(1 if d in axes else n for d, n in enumerate(x.shape)) if keepdims else \
        tuple(n for d, n in enumerate(x.shape) if d not in axes)
    return lazy(engine, fn, [x], shape, dtype, isa="tensor_reduce",
                values=lambda v: _values.reduction(fn, v, axes, keepdims))


def copy(dst, src, engine="act"):
    src = value(src)
    if not dst.on_chip or not src.on_chip:
        return dma(dst, src)
    return compute(engine, "copy", [src], dst, copy_isa(engine), lambda v: v)


def memset(dst, val, engine=None):
    """A fill: on GpSimd by default, on VectorE for a PSUM tile (GpSimd cannot reach PSUM)."""
    engine = engine or ("dve" if dst.buffer == "psum" else "pool")
    return compute(engine, "memset", [], dst, "memset", lambda: val)


def _count(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def op_name(op):
    """An op argument (nl.add, np.add, 'add') -> its name for the record's fn field; anything
    else (a tile or a number where an op belongs: an argument in the wrong place) stops the trace
    at the kernel's line."""
    name = op if isinstance(op, str) else getattr(op, "__name__", None)
    if not isinstance(name, str) or not name.isidentifier():
        what = "a tile" if isinstance(op, (View, Pending)) else repr(op)[:40]
        raise fail(f"{what} given where an operator belongs (nl.add, np.multiply, 'max', ...); check the order "
                   "of the arguments")
    return {"maximum": "max", "minimum": "min"}.get(name, name)


def select(predicate, on_true, on_false, dtype=None, mask=None, **_):
    """predicate ? on_true : on_false, as the predicated copy of VectorE (`tensor_copy_predicated`)
    over a destination holding the other side: one record reading the predicate and the one tile side."""
    tiles = [t for t in (on_true, on_false) if isinstance(t, (View, Pending))]
    if len(tiles) > 1:
        raise fail("select with a predicate and two tile operands reads three tiles; this model's "
                   "instructions read at most two (make one side a scalar)")
    pred = value(predicate)

    def values(*arrays):
        tile = arrays[0] if tiles else None
        yes, no = (tile if isinstance(v, (View, Pending)) else v for v in (on_true, on_false))
        return _values.np.where(arrays[-1] != 0, yes, no)
    return lazy("dve", "select", [*tiles, pred], pred.shape, dtype,
                isa="tensor_copy_predicated", values=values)


# what a tile's operators do (_view.Operators)
Operators.assign, Operators.accumulate, Operators.elementwise = assign, accumulate, elementwise
Operators.ap, Operators.indexed = _ap.ap, _ap.indexed
