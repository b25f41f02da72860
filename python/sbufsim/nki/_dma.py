"""DMA records: a copy between HBM and SBUF on the next of the 16 DMA queues (a PSUM source
staged through SBUF first: DMA cannot reach PSUM), cut to the rows and columns a mask keeps, and
the transposing DMA through the axi2sram crossbar."""

from . import _values
from ._allocator import PARTITIONS
from ._compute import check_on_chip, to_sbuf
from ._errors import fail
from ._tracer import tracer
from ._view import View


def masked(dst, src, mask):
    """dst and src cut to the positions the mask keeps along each of its axes (axis k: the k-th
    dimension of each view); a view indexed past its tensor must be cut back inside it."""
    why = getattr(src, "overhang", None) or getattr(dst, "overhang", None)
    if mask is False or getattr(mask, "never", False):  # a condition of loop indices that does not hold
        return None, None
    limits = getattr(mask, "limits", None)
    if limits:
        dst, src = (_cut(v, limits) for v in (dst, src))
    if why and (not limits or getattr(src, "overhang", None) or getattr(dst, "overhang", None)):
        raise fail(why)
    return dst, src


def _cut(view, limits):
    key = [slice(None)] * len(view.shape)
    for axis, (lo, hi) in limits.items():
        if axis >= len(key):
            continue
        if hi <= lo:
            return None
        key[axis] = slice(lo, hi)
    cut = View(view.storage, list(view.dims))  # re-sliced without the overhang check
    kept = [d for d, dim in enumerate(view.dims) if dim[3]]
    dims = list(view.dims)
    inside = True
    for d, k in zip(kept, key):
        start, step, size, flag = dims[d]
        lo, hi = (k.start or 0), (size if k.stop is None else min(k.stop, size))
        dims[d] = (start + lo * step, step, hi - lo, flag)
        end = dims[d][0] + step * (dims[d][2] - 1)
        inside &= view.on_chip or end < view.storage.shape[d]
    cut.dims = dims
    cut.gather = view.gather
    if not inside:
        cut.overhang = view.overhang
    return cut


def _endpoint(view, on_chip, t):
    """A DMA operand: the on-chip one's access pattern, `hbm`, or `bf16@hbm` where the HBM tensor's
    element type is not the tile's (a casting DMA: "a cast will happen if the src and dst have
    different dtype", nki.isa dma_copy), so the replay counts the HBM end's own bytes."""
    if view.on_chip or view.dtype is on_chip.dtype:
        return view.operand(t.alloc)
    return f"{view.dtype.trace_name}@hbm"


def dma(dst, src, trigger=None, mask=None):
    """One DMA per transfer: partitions = the on-chip side's, bytes per partition its free size;
    `trigger` adds the dge/issuer/priority fields (nisa.dma_copy). A mask with limits moves only
    the rows and columns it keeps (none: no record)."""
    t = tracer()
    if mask is not None or getattr(src, "overhang", None) or getattr(dst, "overhang", None):
        dst, src = masked(dst, src, mask)
        if dst is None or src is None:
            return None
    on_chip = dst if dst.on_chip else src
    if not (dst.on_chip or src.on_chip):
        raise fail("an HBM-to-HBM copy is not modelled; stage it through SBUF")
    if on_chip.buffer == "psum" and src is on_chip and trigger is None:
        # nl.store of a PSUM tile: DMA cannot reach PSUM (seed 000 §6), so the compiler copies it
        # to SBUF first (a VectorE tensor_copy into a tile of this line), as traced here
        return dma(dst, to_sbuf(src), mask=mask)
    if on_chip.buffer == "psum":
        raise fail("DMA cannot reach PSUM (seed 000 §6); copy the tile to SBUF with nl.copy first")
    elements = src.elements
    if elements != dst.elements:
        raise fail(f"copy of {elements} elements into {dst.elements}: shapes {src.shape} and {dst.shape} differ")
    if not (src.on_chip and dst.on_chip):
        # the HBM side's bytes: a casting DMA moves the on-chip side's dtype on the other end
        t.hbm_bytes += elements * (src if dst.on_chip else dst).dtype.size
    fields = {"src": _endpoint(src, on_chip, t), "dst": _endpoint(dst, on_chip, t),
              "partitions": on_chip.partitions, "bytes": on_chip.bytes_per_partition, **(trigger or {})}
    rmw = fields.get("dst_rmw_op") == "add"  # dst = dst + src: it reads dst too
    # a gather (an HBM index by a tile) waits for the tile that holds its row numbers
    reads = [src, *([dst] if rmw else []), *[v.gather for v in (src, dst) if v.gather is not None]]
    if t.values and reads[-1] is not src and reads[-1] is not dst:
        raise fail("values through a tile index (a gather) are not modelled; trace without .npy inputs")
    if t.values:
        old = _values.get(dst)
        _values.put(dst, old + _values.get(src).reshape(old.shape) if rmw else _values.get(src))
    return t.emit("dma", t.dma_queue(), fields, reads=reads, writes=[dst])


XPOSE_TILE_ROWS = 16  # the axi2sram crossbar tile (seed 000 §6.2)
XPOSE_WIDE_COLS = 64  # its columns for a 4-byte out_dtype (tile_src_cols 1..64, seed 000 §6.2)


def dma_transpose(dst, src, trigger=None, four_byte=False):
    """One transposing DMA through the axi2sram crossbar: src [R, C] (HBM or SBUF, 2-byte) lands
    as dst [C, R] in SBUF; R is whole 16-row tiles, C at most 128 columns (docs/trace-format.md).
    four_byte: 4-byte data too, at most 64 columns (the crossbar's tile_src_cols for a 4-byte
    out_dtype, seed 000 §6.2): nl.load_transpose2d of fp32, which nki.isa dma_transpose refuses."""
    t = tracer()
    if not dst.on_chip or dst.buffer != "sbuf":
        raise fail("dma_transpose writes SBUF through the DMA crossbar; allocate dst with buffer=nl.sbuf")
    if len(src.shape) != 2 or len(dst.shape) != 2:
        raise fail(f"dma_transpose of {src.shape} into {dst.shape}: only the 2-D transpose (axes (1, 0)) is modelled")
    rows, cols = src.shape
    if dst.shape != (cols, rows):
        raise fail(f"dma_transpose of {src.shape} into {dst.shape}: the destination is the transpose, {(cols, rows)}")
    wide = four_byte and src.dtype.size == 4
    if (src.dtype.size != 2 and not wide) or dst.dtype is not src.dtype:
        also = "; nl.load_transpose2d also 4-byte" if four_byte else ""
        raise fail(f"dma_transpose moves 2-byte data (nki.isa dma_transpose{also}); "
                   f"src is {src.dtype.name}, dst {dst.dtype.name}")
    if rows % XPOSE_TILE_ROWS:
        raise fail(f"dma_transpose of {rows} source rows: the crossbar moves whole {XPOSE_TILE_ROWS}-row tiles "
                   "(nki.isa dma_transpose: src.shape[0] divisible by 16)")
    max_cols = XPOSE_WIDE_COLS if wide else PARTITIONS
    if cols > max_cols:
        raise fail(f"dma_transpose of {cols} source columns of {src.dtype.size}-byte data: at most {max_cols} "
                   f"(the crossbar's tile_src_cols{' for 4-byte data' if wide else ''}, one per destination partition)")
    if src.on_chip:
        check_on_chip(src, "dma_transpose source")
    else:
        t.hbm_bytes += src.elements * src.dtype.size
    fields = {"src": src.operand(t.alloc), "dst": dst.operand(t.alloc), "partitions": rows,
              "bytes": cols * src.dtype.size, "transpose": 1, **(trigger or {})}
    if t.values:
        _values.put(dst, _values.get(src).T)
    return t.emit("dma", t.dma_queue(), fields, reads=[src], writes=[dst])
