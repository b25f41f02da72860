"""nki.isa's Tensor Engine instructions: nc_matmul (with its tiling, its double-row performance
mode and the dst-first form that accumulates into a PSUM tile), nc_matmul_mx and nc_transpose,
checked as nki.isa has them and traced as _matmul.py's records."""

from . import _allocator, _dtypes, _matmul, _ops, _tracer
from ._conventions import split_dst, writes_dst
from ._dtypes import MX_DTYPES
from ._errors import fail


class matmul_perf_mode:
    """nki.isa.matmul_perf_mode: `double_row` is the FP8 double-throughput mode of NeuronCore-v3
    and later (two FP8 rows packed per PE row)."""
    none = "none"
    double_row = "double_row"


# generations whose PE array has the double-row (FP8) performance mode (configs: pe.double_row)
_DOUBLE_ROW = {"cayman", "mariana"}
_FP8 = {"float8_e4m3", "float8_e5m2"}


def _perf_opt(perf_mode, stationary, moving):
    """perf_mode= of nc_matmul -> the record's perf_opt, or the reason it cannot be."""
    mode = getattr(perf_mode, "value", perf_mode)
    mode = getattr(mode, "name", mode)
    if mode in (None, "", "none", 0):
        return None
    if mode == "double_row_gen3":  # the earlier name of the NeuronCore-v3 double-row mode
        mode = "double_row"
    if mode != "double_row":
        raise fail(f"nc_matmul perf_mode={perf_mode!r}: the public modes are matmul_perf_mode.none and "
                   "matmul_perf_mode.double_row")
    generation = _tracer.tracer().generation
    if generation not in _DOUBLE_ROW:
        raise fail(f"nc_matmul perf_mode=double_row: {generation} (NeuronCore-v2) has no matmul performance "
                   "mode (nki.isa nc_matmul); drop perf_mode or trace with --gen cayman / mariana")
    for name, tile in (("stationary", stationary), ("moving", moving)):
        dtype = _ops.value(tile).dtype
        if dtype.name not in _FP8:
            raise fail(f"nc_matmul perf_mode=double_row packs two FP8 elements per PE row; the {name} tile is "
                       f"{dtype.name} (use nl.float8_e4m3 / nl.float8_e5m2 operands)")
    return "double_row"


def nc_matmul(*args, accumulate=None, **kwargs):
    """stationary.T @ moving into PSUM. Returned (`psum += nisa.nc_matmul(...)` accumulates), or
    written into dst: accumulate=True or None (the default) adds to the tile's open accumulation
    group and opens one on a tile that has none; False starts a new group (docs/nki.md)."""
    dst, args = split_dst(args, kwargs, 2)
    result = _nc_matmul(*args, **kwargs)
    if dst is None:
        return result
    dst = _ops.value(dst)
    if dst.buffer != "psum":
        raise fail("nc_matmul writes PSUM; allocate dst with buffer=nl.psum")
    if result.transpose:
        _check_transpose_dst(dst, result)
        _ops.assign(dst, result)
        return dst
    if accumulate is False:
        _tracer.tracer().close_psum(dst)
    result.accumulate_into(dst)
    return dst


def _nc_matmul(stationary, moving, is_stationary_onezero=False, is_moving_onezero=False, mask=None,
               is_transpose=False, perf_mode=None, tile_position=(), tile_size=(), **_):
    tile = _tile(tile_position, tile_size, stationary)
    if is_transpose:
        return _matmul.transpose(stationary, tile=tile)
    perf_opt = _perf_opt(perf_mode, stationary, moving)
    if perf_opt and tile and tile[1][1] < _allocator.PARTITIONS:
        raise fail("nc_matmul: double_row cannot be combined with column tiling (nki.isa nc_matmul, Tiling mode)")
    for name, tile_ in (("stationary", stationary), ("moving", moving)):
        if _ops.value(tile_).dtype.name in MX_DTYPES:
            raise fail(f"nc_matmul: the {name} tile is {_ops.value(tile_).dtype.name}, an MX type: use "
                       "nisa.nc_matmul_mx with its scale tiles")
    # A one-zero hint makes an fp32 matmul up to 2x faster (nki.isa nc_matmul); the record carries it.
    return _matmul.matmul(stationary, moving, perf_opt=perf_opt, tile=tile,
                          onezero=bool(is_stationary_onezero or is_moving_onezero))


def nc_matmul_mx(dst, stationary, moving, stationary_scale, moving_scale, tile_position=None, tile_size=None,
                 accumulate=None, **_):
    """MXFP8/MXFP4 matmul with dequantization (NeuronCore-v4): x4-packed stationary [K, M] and moving
    [K, N] tiles, K = 128 partitions of four values each, with their uint8 scale tiles; the result,
    fp32 or bf16, into the PSUM tile dst (accumulate as nc_matmul's)."""
    generation = _tracer.tracer().generation
    if generation not in _dtypes.MX_GENERATIONS:
        raise fail(f"nc_matmul_mx is available only on NeuronCore-v4 and newer; {generation} has none "
                   "(trace with --gen mariana)")
    for name, t in (("stationary", stationary), ("moving", moving)):
        if _ops.value(t).dtype.name not in MX_DTYPES:
            raise fail(f"nc_matmul_mx: the {name} tile is {_ops.value(t).dtype.name}; MX data is "
                       "nl.float8_e4m3fn_x4, nl.float8_e5m2_x4 or nl.float4_e2m1fn_x4")
    for name, t in (("stationary_scale", stationary_scale), ("moving_scale", moving_scale)):
        if _ops.value(t).dtype.name != "uint8":
            raise fail(f"nc_matmul_mx: {name} is {_ops.value(t).dtype.name}; MX scales are nl.uint8")
    out = _ops.value(dst)
    if out.buffer != "psum" or out.dtype.name not in ("float32", "bfloat16"):
        raise fail("nc_matmul_mx writes an fp32 or bf16 PSUM tile; allocate dst with buffer=nl.psum and one of "
                   "those dtypes")
    n = _ops.value(moving).shape[1]
    limit = 2048 // out.dtype.size  # one PSUM bank
    if n > limit:
        raise fail(f"nc_matmul_mx: a moving tile of {n} columns; at most {limit} with a {out.dtype.name} result "
                   "(one PSUM bank)")
    if tile_size and tile_size[1] != _allocator.PARTITIONS:
        raise fail("nc_matmul_mx has only row tiling: tile_size is (rows, 128)")
    tile = _tile(tile_position or (), tile_size or (), stationary)
    result = _matmul.matmul(stationary, moving, tile=tile, dtype=out.dtype,
                            scales=(_ops.value(stationary_scale), _ops.value(moving_scale)))
    if accumulate is False:
        _tracer.tracer().close_psum(out)
    result.accumulate_into(out)
    return dst


# the row/column tile sizes of the PE array by generation (nki.isa nc_matmul, Tiling mode: 2x 64
# from NeuronCore-v2, 4x 32 from NeuronCore-v3; configs pe.tile_min)
_TILE_SIZES = {"sunda": (64, 128), "cayman": (32, 64, 128), "mariana": (32, 64, 128)}


def _tile(position, size, stationary):
    """(tile_position, tile_size) of nc_matmul as ((row, col), (rows, cols)), None for the whole
    array; what the trace's check would refuse is refused here at the kernel's line."""
    if not position and not size:
        return None
    if not position or not size or len(position) != 2 or len(size) != 2:
        raise fail(f"nc_matmul tile_position={position!r} tile_size={size!r}: give both, each (row, column)")
    generation = _tracer.tracer().generation
    sizes = _TILE_SIZES.get(generation, ())
    for what, start, n in (("row", position[0], size[0]), ("column", position[1], size[1])):
        if n not in sizes:
            raise fail(f"nc_matmul tile_size {what} {n}: {generation} has PE tiles of "
                       f"{', '.join(map(str, sizes)) or 'none (no tiling mode)'}")
        if start % n or start + n > _allocator.PARTITIONS:
            raise fail(f"nc_matmul tile_position {what} {start}: a multiple of the tile size {n} inside the "
                       f"{_allocator.PARTITIONS} PE {what}s")
    k, m = _ops.value(stationary).shape
    if k > size[0] or m > size[1]:
        raise fail(f"nc_matmul: the stationary {(k, m)} does not fit its PE tile {tuple(size)}")
    return tuple(position), tuple(size)


@writes_dst(1, takes_dst=True)
def nc_transpose(data, engine=None, mask=None, dst=None, **_):
    """On the PE (as nl.transpose), or one VectorE `transpose` of at most 32 x 32."""
    if dst is not None:
        result = nc_transpose(data, engine=engine)
        if isinstance(result, _matmul.MatmulPending):
            _check_transpose_dst(_ops.value(dst), result)
        _ops.assign(_ops.value(dst), result)
        return dst
    if engine == "dve":  # nisa.vector_engine
        return _ops.vector_transpose(data)
    if engine not in (None, "pe"):  # nisa.tensor_engine
        raise fail(f"nc_transpose runs on the Tensor or the Vector Engine, not {engine!r}")
    return _matmul.transpose(data)


def _check_transpose_dst(dst, result):
    """A PE transpose writes its PSUM tile in the data's dtype where the PE has a transpose mode
    (nki.isa nc_transpose: "The output dst tile must have the same data type as that of data"),
    in fp32 where it is an accumulating matmul (NeuronCore-v2; seed 000 §5.1)."""
    if dst.dtype.name != result.dtype.name:
        generation = _tracer.tracer().generation
        why = ("the output has the data's dtype (nki.isa nc_transpose)" if generation in _matmul.TRANSPOSE_PASSTHROUGH
               else f"on {generation} (no transpose mode) a PE transpose is an fp32 matmul into PSUM (seed 000 §5.1)")
        raise fail(f"nc_transpose into a {dst.dtype.name} tile: it writes {result.dtype.name}, as {why}; "
                   "cast with nisa.tensor_copy afterwards")
