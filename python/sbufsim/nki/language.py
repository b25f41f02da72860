"""nki.language as traced by sbufsim (docs/nki.md): tensors, loops, loads/stores, matmul and the
element-wise and reduction ops, each becoming trace records on its engine."""

import linecache as _linecache
import re as _re
import sys as _sys

from . import _allocator, _compiler, _compute, _errors, _matmul, _ops, _spmd, _tracer, _values
from ._compiler import Buffer
from ._dtypes import DTYPES, dtype_of
from ._errors import fail, module_getattr
from ._grid import TileGrid, tiles  # noqa: F401 (nl.tiles)
from ._indices import Arange
from ._spmd import nc, num_programs, program_id, program_ndim, spmd_dim  # noqa: F401 (nl.* names)
from ._view import ParDim


class _SharedHBM(str):
    """nl.shared_hbm: HBM that every instance of a launch sees (the same tensor in each)."""


# buffers (nl.sbuf and nl.psum are the nki.compiler memories: .mod_alloc() etc. work on them too)
sbuf, psum, hbm, shared_hbm, private_hbm = Buffer("sbuf"), Buffer("psum"), "hbm", _SharedHBM("hbm"), "hbm"

# dtypes
bfloat16, float16, float32 = DTYPES["bfloat16"], DTYPES["float16"], DTYPES["float32"]
float8_e4m3, float8_e5m2 = DTYPES["float8_e4m3"], DTYPES["float8_e5m2"]
int8, uint8, int16, uint16 = DTYPES["int8"], DTYPES["uint8"], DTYPES["int16"], DTYPES["uint16"]
int32, uint32 = DTYPES["int32"], DTYPES["uint32"]
float8_e4m3fn_x4, float8_e5m2_x4 = DTYPES["float8_e4m3fn_x4"], DTYPES["float8_e5m2_x4"]
float4_e2m1fn_x4 = DTYPES["float4_e2m1fn_x4"]
tfloat32 = float32


class finfo:
    """nl.finfo(dtype): the limits of a floating-point dtype (min, max, eps, tiny)."""
    _LIMITS = {"float32": (3.4028235e38, 1.1920929e-07, 1.1754944e-38),
               "bfloat16": (3.3895314e38, 0.0078125, 1.1754944e-38),
               "float16": (65504.0, 0.00097656, 6.1035156e-05),
               "float8_e4m3": (240.0, 0.125, 0.015625), "float8_e5m2": (57344.0, 0.25, 6.1035156e-05)}

    def __init__(self, dtype):
        self.dtype = dtype_of(dtype)
        if self.dtype.name not in self._LIMITS:
            raise fail(f"nl.finfo of {self.dtype.name}: not a floating-point dtype")
        self.max, self.eps, self.tiny = self._LIMITS[self.dtype.name]
        self.min = -self.max
        self.bits = 8 * self.dtype.size

    def __repr__(self):
        return f"the limits of {self.dtype.name} (min, max, eps, tiny)"


fp32, bf16, fp16 = finfo(float32), finfo(bfloat16), finfo(float16)  # nl.fp32.min and friends


class tile_size:
    """The PE array's tile limits (nki.language.tile_size)."""
    pmax = 128
    psum_fmax = 2048 // 4
    gemm_stationary_fmax = _matmul.STATIONARY_FMAX
    gemm_moving_fmax = _matmul.MOVING_FMAX
    bn_stats_fmax = 512  # nki.language.tile_size: the free size bn_stats takes at once


def par_dim(n):
    """Marks the partition dimension of an on-chip tensor's shape (no record)."""
    return ParDim(n)


def ndarray(shape, dtype, buffer=sbuf, name="", address=None, **_):
    """An allocation (no record): on chip, a buffer of its line (docs/nki.md, the allocator), or
    where `address` (partition_offset, free_offset) puts it; an HBM address changes nothing here."""
    if address is not None:
        buffer = _compiler.at_address(buffer, address)
    make = lambda: _tracer.tracer().new_tensor(shape, dtype, buffer, name=name or None)
    if isinstance(buffer, _SharedHBM):  # one tensor for every instance of a launch
        return _spmd.shared_tensor((_errors.kernel_site(), tuple(shape), str(dtype)), make)
    return make()


def zeros(shape, dtype, buffer=sbuf, name="", **_):
    """A PSUM tile needs no record (the first matmul's acc_flags=begin zeroes it); an SBUF tile
    is a memset on GpSimd."""
    tile = ndarray(shape, dtype, buffer, name)
    if buffer == sbuf:
        _ops.memset(tile, 0)
    else:
        tile.storage.written = True  # zero, as far as the kernel is concerned
    return tile


def full(shape, fill_value, dtype, buffer=sbuf, name="", **_):
    """A new tile filled: a `memset` on GpSimd (VectorE in PSUM)."""
    tile = ndarray(shape, dtype, buffer, name)
    _ops.memset(tile, fill_value)
    return tile


def ones(shape, dtype, buffer=sbuf, name="", **_):
    """nl.full of 1."""
    return full(shape, 1, dtype, buffer, name)


def empty_like(a, dtype=None, buffer=None, name=""):
    """A tensor of a's shape; a's dtype and buffer unless given. Of a tile grid: a new tensor of
    the grid's selected elements, as a grid of the same tiles."""
    if isinstance(a, TileGrid):
        return TileGrid(ndarray(a.element_shape, dtype or a.dtype, buffer or a.buffer, name), a.tile_shape)
    return ndarray(a.shape, dtype or a.dtype, buffer or a.buffer, name)


def zeros_like(a, dtype=None, buffer=None, name=""):
    """nl.zeros of a's shape."""
    return zeros(a.shape, dtype or a.dtype, buffer or a.buffer, name)


# loops: the range kind decides how many buffers a tile allocated in the body rotates over
class _Range:
    def __init__(self, kind, args, call):
        self.kind, self.values = kind, range(*args)
        if not self.values and _tracer._current is not None:
            # A loop that runs zero times is most often a shape smaller than a tile (M // BM = 0):
            # kept, so that a kernel that traced nothing can say where its work went.
            _tracer._current.note_empty_loop(call, args)

    def __iter__(self):
        t = _tracer.tracer()
        loops, indices, serials = t.loop_kinds, t.loop_indices, t.loop_serials
        loops.append(self.kind)
        serials.append(0)
        level, counted = len(serials) - 1, self.kind != "static"
        # the loop's iteration, named as the kernel's `for` names it, for the records' loc=
        entry = [_loop_name(_sys._getframe(1), len(indices)), 0]
        indices.append(entry)
        epoch = _errors.loop_epoch  # every change of the indices counted (_errors.kernel_location)
        epoch[0] += 1
        try:
            for value in self.values:
                entry[1] = value
                epoch[0] += 1
                if counted:  # a new iteration of a body NKI traces once (Tracer.direct_places)
                    t.iterations += 1
                    serials[level] = t.iterations
                yield value
        finally:
            loops.pop()
            serials.pop()
            for i in range(len(indices) - 1, -1, -1):
                if indices[i] is entry:
                    del indices[i]
                    break
            epoch[0] += 1


_loop_names = {}  # (file, line) of a `for` -> its variable's name


def _loop_name(frame, depth):
    """The variable of the kernel's `for NAME in nl.affine_range(...)` at `frame`'s line (read
    once per line), else i<depth>: a loc= index name (docs/trace-format.md)."""
    key = (frame.f_code.co_filename, frame.f_lineno)
    name = _loop_names.get(key)
    if name is None:
        found = _re.findall(r"\bfor\s+([A-Za-z_][A-Za-z0-9_]*)\s+in\b", _linecache.getline(*key))
        name = _loop_names[key] = found[0][:12] if len(found) == 1 else ""
    return name or f"i{depth}"

    def __len__(self):
        return len(self.values)


def affine_range(*args, **_):
    """A loop whose SBUF tiles rotate over three buffers, PSUM tiles over two (`--loop-buffers`;
    iterations may overlap); directives are accepted."""
    return _Range("affine", args, "affine_range")


def sequential_range(*args, **_):
    """A loop whose tiles reuse one buffer; directives are accepted."""
    return _Range("sequential", args, "sequential_range")


def static_range(*args, **_):
    """As sequential_range (the loop is unrolled by Python, in NKI too: its body runs, and allocates,
    once per iteration)."""
    return _Range("static", args, "static_range")


def arange(*args):
    """An index range (positive steps); oriented by [:, None] / [None, :]; arithmetic and comparisons as NKI's."""
    r = range(*args)
    if r.step <= 0:
        raise fail("nl.arange with a negative step is not modelled")
    return Arange(r.start, len(r), r.step)


def ds(start, size):
    """nl.ds(start, size): the slice start:start+size (a dynamic slice of a loop index)."""
    return slice(int(start), int(start) + int(size))


class _Grid(tuple):
    """What nl.mgrid[...] returns: a tuple of index ranges, also named .p (the first, partitions)
    and .x (the second, the free axis), as NKI's index grids are."""

    @property
    def p(self):
        return self[0]

    @property
    def x(self):
        return self[1]

    @property
    def y(self):
        return self[2]

    @property
    def z(self):
        return self[3]


class _MGrid:
    def __repr__(self):
        return "index ranges of every axis: nl.mgrid[0:P, 0:F] (.p, .x, .y, .z)"

    def __getitem__(self, key):
        key = key if isinstance(key, tuple) else (key,)
        ranges = [arange(k.start or 0, k.stop, k.step or 1) for k in key]
        grid = tuple(r.size for r in ranges)
        return _Grid(Arange(r.start, r.size, r.step, axis, grid) for axis, r in enumerate(ranges))


mgrid = _MGrid()


# memory
def load(src, dtype=None, mask=None, **_):
    """HBM to SBUF: one `dma` on the next of the 16 DMA queues (of the rows and columns a mask keeps)."""
    return _ops.load(src, dtype_of(dtype) if dtype is not None else None, mask=mask)


def store(dst, value, mask=None, **_):
    """SBUF to HBM: one `dma` (a PSUM value is copied to SBUF by VectorE first)."""
    _ops.store(dst, value, mask=mask)


def load_transpose2d(src, dtype=None, **_):
    """HBM [R, C] loaded into SBUF as [C, R] through a DMA's transpose crossbar (one `dma
    transpose=1` record; R whole 16-row tiles, C at most 128 of 2-byte data or 64 of 4-byte)."""
    if _ops.value(src).on_chip:
        raise fail("nl.load_transpose2d reads HBM; for an on-chip tile use nisa.dma_transpose or nl.transpose")
    if dtype is not None and dtype_of(dtype) is not _ops.value(src).dtype:
        # the crossbar moves the data as it is: the transpose lands in a tile of the source's
        # dtype, and a VectorE tensor_copy casts it
        staged = _ops.value(_ops.transposed_load(src))
        return _ops.unary("copy", staged, dtype_of(dtype), engine="dve", isa="tensor_copy")
    return _ops.transposed_load(src)


def where(condition, x, y, dtype=None, mask=None, **_):
    """x where the condition tile holds, else y: as nisa.select, VectorE `tensor_copy_predicated`."""
    return _ops.select(condition, x, y, dtype=dtype)


def shared_constant(constant, dtype=None, **_):
    """A constant tensor in HBM made from a numpy array (an identity for PE transposes, say): an
    input the kernel builds itself; loading it is an ordinary DMA."""
    shape = getattr(constant, "shape", None)
    if shape is None:
        raise fail(f"nl.shared_constant of {type(constant).__name__}: give a numpy array")
    tensor = _tracer.tracer().new_tensor(tuple(shape), dtype_of(dtype if dtype is not None else constant.dtype), "hbm")
    if _tracer.tracer().values:
        tensor.storage.values[...] = _values.rounded(constant, tensor.dtype)
    return tensor


def static_cast(x, dtype):
    """Refused inside a kernel (it converts a driver's arrays); use nl.copy(x, dtype=)."""
    raise fail("nl.static_cast converts arrays outside a kernel (a driver's inputs); inside, use "
               "nl.copy(x, dtype=...)")


def loop_reduce(x, op, loop_indices, dtype=None, mask=None, **_):
    """nl.loop_reduce: x folded into the tile it is assigned to with op, once per iteration of the
    loops named: a VectorE tensor_tensor reading that tile and x, in place."""
    x = _ops.value(x)
    fn = _ops.op_name(op)
    return _ops.Pending(x.shape, dtype_of(dtype) if dtype is not None else x.dtype, "sbuf",
                        lambda dst: _ops.elementwise(fn, dst, x, dst=dst), _errors.kernel_site())


# PE
def matmul(x, y, transpose_x=False, mask=None, **_):
    """x [K, M] (transpose_x=True, the stationary operand) times y [K, N] (moving) into PSUM."""
    if not transpose_x:
        # x [M, K] is transposed on the PE into PSUM and copied to SBUF (VectorE) first, as the
        # compiler lowers it: the stationary operand must be [K, M]
        x = _ops.value(x)
        if len(x.shape) != 2 or x.shape[0] > _allocator.PARTITIONS or x.shape[1] > _allocator.PARTITIONS:
            raise fail(f"nl.matmul of x {x.shape} without transpose_x: the front-end transposes x in one "
                       f"{_allocator.PARTITIONS} x {_allocator.PARTITIONS} PE pass; pass x as [K, M] with "
                       "transpose_x=True")
        xt = _ops.value(_matmul.transpose(x))
        staged = _tracer.tracer().new_tensor(xt.shape, x.dtype, "sbuf")
        _ops.copy(staged, xt, engine="dve")
        x = staged
    return _matmul.matmul(x, y)


def transpose(x, dtype=None, mask=None, **_):
    """On the PE: `ldweights` of x and a `matmul transpose=1` against an identity into PSUM."""
    return _matmul.transpose(x)


# element-wise: ScalarE `activation` for the functions of its lookup tables, VectorE
# `tensor_tensor` / `tensor_scalar` for arithmetic, VectorE `tensor_reduce` for reductions
def _unary_act(fn):
    def op(x, dtype=None, mask=None, **_):
        return _ops.unary(fn, x, dtype, engine="act", isa="activation")
    op.__name__ = fn
    op.__doc__ = f"ScalarE: one `act fn={fn} isa=activation`."
    return op


exp, log, tanh, sigmoid, relu, gelu, silu, sqrt, rsqrt, square, reciprocal, erf, abs, negative, floor, sign = (
    _unary_act(f) for f in ("exp", "log", "tanh", "sigmoid", "relu", "gelu", "silu", "sqrt", "rsqrt",
                            "square", "reciprocal", "erf", "abs", "negative", "floor", "sign"))
gelu_apprx_tanh, gelu_apprx_sigmoid = (_unary_act(f) for f in ("gelu_apprx_tanh", "gelu_apprx_sigmoid"))


def copy(x, dtype=None, mask=None, **_):
    """A copy on ScalarE: `tensor_copy` (NeuronCore-v3+), an `activation` of copy on v2."""
    return _ops.unary("copy", x, dtype, engine="act", isa=_compute.copy_isa("act"))


def _binary(fn):
    def op(x, y, dtype=None, mask=None, **_):
        return _ops.elementwise(fn, x, y, dtype=dtype)
    op.__name__ = fn
    op.__doc__ = (f"VectorE: one `dve fn={fn} isa=tensor_tensor`; `isa=tensor_scalar` with a number or a [P, 1] "
                  "tile.")
    return op


add, subtract, multiply, divide, maximum, minimum, power, mod = (
    _binary(f) for f in ("add", "subtract", "multiply", "divide", "maximum", "minimum", "power", "mod"))
equal, not_equal, greater, greater_equal, less, less_equal = (
    _binary(f) for f in ("equal", "not_equal", "greater", "greater_equal", "less", "less_equal"))


def _reduction(fn):
    def op(x, axis, dtype=None, keepdims=False, mask=None, **_):
        return _ops.reduce(fn, x, axis, dtype, keepdims=keepdims)
    op.__name__ = fn
    op.__doc__ = f"VectorE: one `dve fn={fn} isa=tensor_reduce` along free axes."
    return op


max, min, sum, mean, prod = (_reduction(f) for f in ("max", "min", "sum", "mean", "prod"))


__getattr__ = module_getattr("nl")
