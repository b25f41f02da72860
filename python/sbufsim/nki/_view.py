"""Tensors and views: a tensor's memory (Storage: HBM, or an SBUF/PSUM slot with a partition
dimension and its layout), and the View a kernel holds of it (nl.ndarray's whole tensor, a
slice, a reshape, a broadcast), which gives a record its operand, dtype@addr[steps][sizes]
(docs/trace-format.md), and its footprint for the hazards."""

import itertools
from math import prod

from ._allocator import PSUM_BANK_BYTES, Slot
from ._errors import fail, not_modelled
from ._indices import Arange, IndexExpr, Mask


class Operators:
    """What a tile's operators do: `t[...] = x` (assign), `t += x` (accumulate), `t + x` and the
    other arithmetic (elementwise), `t.ap(...)` (ap), an index expression of several ranges
    (indexed). The operations are built on views, so this module does not import them: the
    operations module fills these in when it is imported (_ops.py)."""

    assign = accumulate = elementwise = ap = indexed = None


class ParDim(int):
    """nl.par_dim(n): marks the partition dimension of an on-chip tensor's shape."""


class Storage:
    """A tensor's memory: HBM (no addresses) or an on-chip slot with a partition dimension."""

    hbm_slot = None  # an HBM tensor's hazard history (Tracer._hbm_slot), shared with its reshapes
    # a directly allocated tensor with block dimensions: (partition, byte offset) of each block,
    # in row-major order of the block indices (Tracer._direct)
    direct = None
    shared = None  # of such a tensor whose blocks all share one place: Tracer.shared_blocks' entry

    def __init__(self, name, shape, dtype, buffer, pdim, slot=None):
        self.name, self.shape, self.dtype, self.buffer, self.pdim, self.slot = name, shape, dtype, buffer, pdim, slot
        self.written = buffer == "hbm"  # an on-chip tile holds nothing until a record (or nl.zeros) writes it
        self.banks = None
        key = (shape, dtype, buffer, pdim)
        layout = _layouts.get(key)
        if layout is None:
            layout = _layouts[key] = _layout(shape, dtype, buffer, pdim)
        # strides is shared by every storage of one layout: read only
        self.psum_blocks, self.strides, self.bytes_per_partition = layout
        self.root = self  # the storage that owns the buffer (another view's shape of it: .reshape)


# (shape, dtype, buffer, partition dim) -> _layout(): a tile allocated in a loop has the same
# layout every iteration
_layouts = {}


def _layout(shape, dtype, buffer, pdim):
    """(psum_blocks, strides {dimension: elements}, bytes per partition) of a storage."""
    free = [n for d, n in enumerate(shape) if d != pdim]
    # A PSUM tensor with block dimensions (before the partition dimension) holds one block per
    # 2 KiB bank (NKI's PSUM tiles: a block's free size is at most one bank), its blocks
    # placed bank by bank; `banks` (set when it is placed) is how many banks it got.
    block_bytes = prod(shape[pdim + 1:]) * dtype.size
    psum_blocks = buffer == "psum" and pdim > 0 and block_bytes <= PSUM_BANK_BYTES
    strides = {}
    stride = 1
    for d in reversed(range(len(shape))):
        if d == pdim and psum_blocks:
            stride = PSUM_BANK_BYTES // dtype.size
        if d != pdim or buffer == "hbm":
            strides[d] = stride
            stride *= shape[d]
    bytes_per_partition = prod(free) * dtype.size if buffer != "hbm" else 0
    if psum_blocks:
        bytes_per_partition = prod(shape[:pdim]) * PSUM_BANK_BYTES
    return psum_blocks, strides, bytes_per_partition


class View:
    """A tensor or a slice of one (nl.ndarray returns the whole tensor as a View). dims: per
    dimension of the storage (start, step, size, kept)."""

    # Set on a view indexed past its HBM tensor (the error, raised unless a mask keeps it inside);
    # a class default, so that asking costs no __getattr__ (which builds a NotModelled).
    overhang = None
    gather = None  # an HBM view indexed by a tile: that tile (the DMA reads its row numbers)
    _explicit = False  # an .ap() access pattern (_ap.PatternView)
    # (dims, free_pattern(), footprint()) of this view: every record asks for both two or three
    # times (hazards, their notes, the operand); kept while `dims` is the same list
    _cached = None

    def __init__(self, storage, dims=None):
        self.storage = storage
        self.dims = dims or [(0, 1, n, True) for n in storage.shape]
        self.on_chip = storage.buffer in ("sbuf", "psum")  # else HBM (asked several times per record)

    def __getattr__(self, name):  # only for attributes the class lacks
        if name.startswith("__"):
            raise AttributeError(name)
        raise not_modelled(f"the tensor attribute .{name}")

    # --- shape -------------------------------------------------------------------------------
    @property
    def shape(self):
        return tuple([size for (_, _, size, kept) in self.dims if kept])

    @property
    def dtype(self):
        return self.storage.dtype

    @property
    def buffer(self):
        return self.storage.buffer

    @property
    def ndim(self):
        return len(self.shape)

    def ap(self, pattern=None, offset=0, dtype=None, **kwargs):
        """An explicit hardware access pattern over the whole tensor (_ap.py)."""
        return Operators.ap(self, pattern, offset, dtype, **kwargs)

    def reshape(self, shape):
        """The whole tensor under another shape of the same elements (no record: the same memory,
        addressed anew). On chip the partitions stay the first dimension."""
        shape = tuple(int(n) for n in (shape if isinstance(shape, (tuple, list)) else (shape,)))
        storage = self.storage
        if any(dim != (0, 1, n, True) for dim, n in zip(self.dims, storage.shape)):
            raise fail(f"reshape of a slice of {storage.name}: only a whole tensor is reshaped in this model")
        if prod(shape) != prod(storage.shape):
            raise fail(f"reshape of {storage.name} {storage.shape} to {shape}: the element counts differ")
        if self.on_chip and (storage.pdim != 0 or shape[0] != storage.shape[0]):
            raise fail(f"reshape of on-chip {storage.name} {storage.shape} to {shape}: the partition dimension "
                       "must stay first and keep its size")
        alias = Storage(storage.name, shape, storage.dtype, storage.buffer, 0, storage.slot)
        alias.root, alias.key, alias.written = storage.root, getattr(storage, "key", None), storage.written
        if hasattr(storage, "values"):
            alias.values = storage.values.reshape(shape)
        if storage.buffer == "hbm":  # hazards of HBM are tracked per tensor: the alias shares them
            alias.hbm_slot = storage.root.__dict__.setdefault("hbm_slot", Slot("hbm", 0, 0))
        return View(alias)

    def view(self, dtype):
        """The whole tensor's bytes read as another dtype (no record: the same memory): its last
        dimension scales by the ratio of the element sizes, [128, 1] fp32 as [128, 4] fp8."""
        from ._dtypes import dtype_of
        new = dtype_of(dtype)
        storage = self.storage
        if any(dim != (0, 1, n, True) for dim, n in zip(self.dims, storage.shape)):
            raise fail(f"view of a slice of {storage.name}: only a whole tensor is viewed as another dtype")
        if self.on_chip and storage.pdim == len(storage.shape) - 1:
            raise fail(f"view of on-chip {storage.name} {storage.shape} as {new.name}: the last dimension is the "
                       "partitions, which a dtype cannot resize")
        last = storage.shape[-1] * storage.dtype.size
        if last % new.size:
            raise fail(f"view of {storage.name} {storage.shape} {storage.dtype.name} as {new.name}: its last "
                       f"dimension of {last} bytes is not whole {new.size}-byte elements")
        if getattr(storage, "values", None) is not None:
            raise fail(f"view of {storage.name} as {new.name} while values are computed: reinterpreting the bits "
                       "is not modelled (trace without .npy inputs)")
        shape = storage.shape[:-1] + (last // new.size,)
        alias = Storage(storage.name, shape, new, storage.buffer, storage.pdim, storage.slot)
        alias.root, alias.key, alias.written = storage.root, getattr(storage, "key", None), storage.written
        alias.direct = storage.direct  # byte offsets: the same for any dtype of the same bytes
        if storage.buffer == "hbm":  # hazards of HBM are tracked per tensor: the alias shares them
            alias.hbm_slot = storage.root.__dict__.setdefault("hbm_slot", Slot("hbm", 0, 0))
        return View(alias)

    def broadcast_to(self, shape):
        """A dimension of size 1 read n times: a step-0 dimension of the operand. Along the free
        axis the engine reads the element repeatedly; across partitions ([1, N] to [P, N]) the
        operand is the row at the source's partition, its record reading P partitions of the
        source's buffer (what an engine costs for P partitions; its hazards cover them all)."""
        shape = tuple(int(n) for n in shape)
        if len(shape) == len(self.shape) + 1 and shape[:-1] == self.shape and self.on_chip:
            return self.reshape(self.shape + (1,)).broadcast_to(shape)  # [P] read as [P, N]
        if len(shape) != len(self.shape) or any(a not in (1, b) for a, b in zip(self.shape, shape)):
            raise fail(f"broadcast_to of {self.shape} to {shape}: only dimensions of size 1 are broadcast")
        dims, kept = list(self.dims), [d for d, dim in enumerate(self.dims) if dim[3]]
        for d, n in zip(kept, shape):
            start, step, size, _ = dims[d]
            if size != n:
                dims[d] = (start, 0, n, True)
        return View(self.storage, dims)

    @property
    def partitions(self):
        return self.dims[self.storage.pdim][2] if self.on_chip else 1

    @property
    def free_elements(self):
        return prod([size for d, (_, _, size, _) in enumerate(self.dims) if d != self.storage.pdim])

    @property
    def bytes_per_partition(self):
        return self.free_elements * self.dtype.size

    @property
    def elements(self):
        return prod([size for (_, _, size, _) in self.dims])

    def __repr__(self):
        return f"<nki tile {self.storage.name} {self.shape} {self.dtype.name} in {self.buffer}>"

    # --- indexing ----------------------------------------------------------------------------
    def _masked(self, mask):
        """`t[i_p, i_f][mask]`: an operand with a mask, as `mask=` gives one. A compute instruction
        traces its whole tile whatever the mask (docs/nki.md, "Masks"), so an on-chip tile is
        itself; an HBM view is itself where the mask keeps all of it, else refused (a DMA applies
        `mask=`)."""
        if self.on_chip or (not mask.never and mask.limits is None):
            return self
        kept = [dim[2] for dim in self.dims if dim[3]]
        if not mask.never and all(lo <= 0 and hi >= kept[axis] for axis, (lo, hi) in mask.limits.items()
                                  if axis < len(kept)):
            return self
        raise fail("an HBM tensor indexed with a mask that drops some of it: pass the mask to the DMA (mask=)")

    def __getitem__(self, key):
        if isinstance(key, Mask):
            return self._masked(key)
        if not isinstance(key, tuple):
            key = (key,)
        ellipsis = False
        for k in key:  # (not `in`: an nl.arange compared with == is a mask)
            if isinstance(k, IndexExpr):
                return Operators.indexed(self, key)
            ellipsis = ellipsis or k is Ellipsis
        kept = [d for d, dim in enumerate(self.dims) if dim[3]]
        if ellipsis:
            at = key.index(Ellipsis)
            key = key[:at] + (slice(None),) * (len(kept) - len(key) + 1) + key[at + 1:]
        if len(key) > len(kept):
            raise fail(f"{len(key)} indices for a tile of {len(kept)} dimensions {self.shape}")
        dims = list(self.dims)
        overhang = self.overhang
        gather = None
        for d, index in zip(kept, key):
            kind = type(index)
            if kind is not slice and kind is not int:  # (the usual indices: neither a range nor a tile)
                if isinstance(index, Arange) and not self.on_chip:
                    dims[d], why = _range_index(dims[d], index, d, self.storage.name)
                    overhang = overhang or why
                    continue
                if not self.on_chip and (isinstance(index, View) or hasattr(index, "materialise")):
                    if gather is not None or any(dims[k][3] for k in kept if k < d):
                        raise fail(f"{self.storage.name}: a tile index (a gather) is modelled as the first "
                                   "indexed dimension, one per access")
                    dims[d], gather = _gather_index(dims[d], index, d, self.storage.name)
                    continue
            dims[d] = _index(dims[d], index, d, self.storage.name)
        if self.on_chip and dims[self.storage.pdim][3] and sum([dim[3] for dim in dims]) < 2:
            # An on-chip tile has a partition and a free dimension: t[:, i] of a [P, N] tile is
            # [P, 1] (NKI's tiles; the flash-attention reference passes l_buffer[:, i] as (P, 1)).
            free = [d for d in kept if d > self.storage.pdim and not dims[d][3]]
            if free:
                dims[free[-1]] = dims[free[-1]][:3] + (True,)
        view = View(self.storage, dims)
        if overhang:
            view.overhang = overhang
        if gather is not None:
            view.gather = gather
        return view

    def __setitem__(self, key, value):
        target = self[key]
        if isinstance(value, View) and value.storage is target.storage and value.dims == target.dims:
            return  # `t[i] += x`: Python stores back the view the in-place op already wrote
        Operators.assign(target, value)

    # --- arithmetic sugar (nki.language semantics) ------------------------------------------
    def __iadd__(self, other):
        Operators.accumulate(self, other)
        return self

    def _binary(self, other, fn, reverse=False):
        elementwise = Operators.elementwise
        return elementwise(fn, other, self) if reverse else elementwise(fn, self, other)

    def __add__(self, other):
        return self._binary(other, "add")

    def __radd__(self, other):
        return self._binary(other, "add", True)

    def __sub__(self, other):
        return self._binary(other, "subtract")

    def __mul__(self, other):
        return self._binary(other, "multiply")

    def __rmul__(self, other):
        return self._binary(other, "multiply", True)

    def __truediv__(self, other):
        return self._binary(other, "divide")

    def __rtruediv__(self, other):
        return self._binary(other, "divide", True)

    def __rsub__(self, other):
        return self._binary(other, "subtract", True)

    def __neg__(self):
        return self._binary(-1, "multiply")

    # --- operands ----------------------------------------------------------------------------
    def partition_start(self):
        if not self.on_chip:
            return 0
        storage = self.storage
        start = self.dims[storage.pdim][0] + storage.slot.partition
        if storage.direct is not None:
            start += storage.direct[self._first_block()][0]
        return start

    def free_pattern(self):
        """(element offset, [(step, size)] innermost first) of the free dimensions, merged."""
        storage = self.storage
        strides = storage.strides
        skip = storage.pdim if storage.buffer in ("sbuf", "psum") else -1  # on chip: not the partitions
        offset, dims, dimensions = 0, [], enumerate(self.dims)
        if storage.direct is not None:  # its blocks where they were put, then the free dimensions
            offset, dims = self._direct_blocks()
            dimensions = enumerate(self.dims[skip + 1:], skip + 1)
        for d, (start, step, size, _) in dimensions:
            if d == skip:
                continue
            stride = strides[d]
            offset += start * stride
            if size > 1:
                dims.append((step * stride, size))
        if storage.psum_blocks and storage.banks:
            offset = self._wrap_blocks(offset, dims)
        merged = []
        for step, size in reversed(dims):
            if merged and step == merged[-1][0] * merged[-1][1] and merged[-1][0] == 1:
                merged[-1] = (1, merged[-1][1] * size)
            else:
                merged.append((step, size))
        return offset, merged or [(1, 1)]

    def _first_block(self):
        """The row-major index of the first block a directly allocated tensor's view reaches."""
        storage, index = self.storage, 0
        for d in range(storage.pdim):
            index = index * storage.shape[d] + self.dims[d][0]
        return index

    def _direct_blocks(self):
        """(element offset, [(step, size)] outermost first) of the blocks a view of a directly
        allocated tensor spans: they must lie evenly spaced in one partition range, as one access
        pattern reaches them (mod_alloc's blocks do unless their index wraps within the view)."""
        storage, pdim = self.storage, self.storage.pdim
        table, size = storage.direct, storage.dtype.size
        spans = [(d, start, step, n) for d, (start, step, n, _) in enumerate(self.dims[:pdim]) if n > 1]
        first = self._first_block()
        partition, byte = table[first]
        if byte % size:  # a view as a wider dtype (.view) of a block at an odd offset for it
            raise fail(f"tile {storage.name}: its block at byte {byte} does not start at a whole number of "
                       f"{storage.dtype.name} elements")
        strides = [prod(storage.shape[d + 1:pdim]) for d in range(pdim)]
        dims = []
        for d, _, step, n in spans:
            p, b = table[first + step * strides[d]]
            if p != partition or b == byte or (b - byte) % size:
                raise self._uneven_blocks()
            dims.append(((b - byte) // size, n))
        for steps in itertools.product(*[range(n) for _, _, _, n in spans]):
            index = first + sum(k * step * strides[d] for k, (d, _, step, _) in zip(steps, spans))
            expected = byte + size * sum(k * delta for k, (delta, _) in zip(steps, dims))
            if table[index] != (partition, expected):
                raise self._uneven_blocks()
        return byte // size, dims

    def _uneven_blocks(self):
        storage = self.storage
        spanned = [f"{start}:{start + step * (n - 1) + 1}" + (f":{step}" if step != 1 else "")
                   for start, step, n, _ in self.dims[:storage.pdim]]
        return fail(f"tile {storage.name}[{', '.join(spanned)}]: its directly allocated blocks share bytes or lie "
                    "unevenly (num_free_tiles / the allocation function); one access pattern cannot reach them, so "
                    "index one block at a time")

    def _wrap_blocks(self, offset, dims):
        """The offset of a PSUM block tensor's view with its blocks taken modulo its banks; a view
        spanning blocks that wrap past the last bank is refused."""
        storage = self.storage
        bank = PSUM_BANK_BYTES // storage.dtype.size
        first = offset // bank
        spanned = prod(size for d, (_, _, size, _) in enumerate(self.dims) if d < storage.pdim)
        wrapped = first % storage.banks
        if wrapped + spanned > storage.banks:
            raise fail(f"PSUM tile {storage.name}: {spanned} blocks from block {first} wrap past the {storage.banks} "
                       "bank(s) it holds; index fewer blocks at once")
        return offset - (first - wrapped) * bank

    def _shape_of_access(self):
        """(free_pattern(), footprint()), computed once per view (per `dims` list)."""
        cached = self._cached
        if cached is not None and cached[0] is self.dims:
            return cached[1], cached[2]
        offset, pattern = access = self.free_pattern()
        lo = hi = offset  # the lowest and the highest element reached
        for step, size in pattern:
            span = step * (size - 1)
            if span < 0:
                lo += span
            else:
                hi += span
        hi += 1
        p0 = self.partition_start()
        size = self.dtype.size
        footprint = p0, p0 + self.partitions, lo * size, hi * size
        self._cached = (self.dims, access, footprint)
        return access, footprint

    def footprint(self):
        """(p0, p1, byte lo, byte hi) bounding the bytes this view touches in its slot."""
        cached = self._cached
        if cached is not None and cached[0] is self.dims:
            return cached[2]
        return self._shape_of_access()[1]

    def hbm_rects(self):
        """The bytes an HBM view touches, for its hazards: (row0, row1, byte lo, byte hi) rectangles
        that cover them, a row being the tensor's last dimension in bytes (the tensor's as
        declared, for a reshape or another dtype of it too: they share its hazards). A tile of a
        [rows, columns] tensor is one exact rectangle, so tiles side by side do not meet, where the
        bounds of their flat bytes would (row 0 of the right tile lies between rows 0 and 1 of the
        left one). A gather covers the tensor."""
        root = self.storage.root
        width = root.shape[-1] * root.dtype.size
        if self.gather is not None:  # its rows are data
            return ((0, prod(root.shape[:-1]), 0, width),)
        size = self.dtype.size
        offset, pattern = self.free_pattern()
        step, count = pattern[0]
        run, outer = (count * size, pattern[1:]) if step == 1 else (size, pattern)
        outer = [(step * size, count) for step, count in outer if count > 1 and step != 0]
        start = offset * size
        column = start % width
        if column + run <= width and all(step % width == 0 for step, _ in outer):
            rows = _row_runs(start // width, [(step // width, count) for step, count in outer])
            return tuple((r0, r1, column, column + run) for r0, r1 in rows)
        _, _, lo, hi = self.footprint()  # the flat bytes' bounds, in whole rows unless within one
        r0, r1 = lo // width, (hi - 1) // width + 1
        return ((r0, r1, lo % width, (hi - 1) % width + 1),) if r1 - r0 == 1 else ((r0, r1, 0, width),)

    def operand(self, allocator):
        """The profiler's dtype@addr[steps][sizes] (docs/trace-format.md)."""
        if not self.on_chip:
            return "hbm"
        cached = self._cached
        offset, pattern = cached[1] if cached is not None and cached[0] is self.dims else self._shape_of_access()[0]
        if len(pattern) > 3:
            raise fail(f"tile {self.storage.name}{list(self.shape)}: its free dimensions need {len(pattern)} "
                       "access-pattern dimensions, the ISA has 3; index fewer dimensions at once")
        dtype = self.storage.dtype
        addr = allocator.address(self.storage.slot, self.partition_start(), offset * dtype.size)
        key = (dtype.trace_name, addr, *pattern)
        text = _operands.get(key)
        if text is None:
            steps = ",".join([str(s) for s, _ in pattern])
            sizes = ",".join([str(n) for _, n in pattern])
            text = _operands[key] = f"{dtype.trace_name}@0x{addr:x}[{steps}][{sizes}]"
        return text


# An HBM view's hazards cover at most this many row ranges (View.hbm_rects), else their bounds.
MAX_HBM_RECTS = 8


def _row_runs(base, dims):
    """The row ranges [(r0, r1)] that rows base + sum(k_i * step_i), 0 <= k_i < count_i, fall in:
    the dimensions that tile whole rows merged into one run, one range per start of the rest, or
    their bounds when those are more than MAX_HBM_RECTS."""
    dims = sorted(dims)
    length = 1
    while dims and dims[0][0] == length:  # rows next to each other: one longer run
        length *= dims.pop(0)[1]
    starts = prod(count for _, count in dims)
    if starts > MAX_HBM_RECTS:
        return ((base, base + sum((count - 1) * step for step, count in dims) + length),)
    return tuple((base + offset, base + offset + length)
                 for offset in sorted({sum(k * step for k, (step, _) in zip(ks, dims))
                                       for ks in itertools.product(*(range(count) for _, count in dims))}))


# (dtype, address, access pattern) -> the operand's text: a loop's tiles take the same few buffers,
# so their operands repeat
_operands = {}


def _slice_text(index):
    return ":".join("" if v is None else str(v) for v in (index.start, index.stop)) + (
        f":{index.step}" if index.step not in (None, 1) else "")


def _range_index(dim, index, d, name):
    """An nl.arange index of an HBM tensor's dimension: its positions, even past the dimension's
    end, with the reason (the out-of-range error) when they go past it, else None. A DMA with a
    mask that keeps only positions inside the tensor moves those; without one the reason stops
    the trace (_dma.dma)."""
    start, step, size, _ = dim
    last = index.start + index.step * (index.size - 1)
    if index.step > 0 and index.start >= 0 and last >= size:
        why = (f"{name}: dimension {d} (size {size}): the range {index.start}..{last} reaches past the tensor; index "
               "within it, or give the load or store a mask= that keeps the range inside")
        return (start + index.start * step, step * index.step, index.size, True), why
    return _index(dim, index, d, name), None


def _gather_index(dim, index, d, name):
    """An HBM dimension indexed by an on-chip [P, 1] tile of integers (`nl.load(t[b, idx, i_f])`,
    a gather: row p from the row the tile's partition p names): P rows, one per partition, whose
    addresses the DMA reads from the tile. The dimension's positions are data, so they are a
    step-0 placeholder here; the DMA waits for the tile (View.gather)."""
    tile = index.materialise() if hasattr(index, "materialise") else index
    where = f"{name}: dimension {d} (size {dim[2]})"
    if not tile.on_chip or tile.dtype.name not in ("int32", "uint32", "int16", "uint16", "int8", "uint8"):
        raise fail(f"{where}: an index tile must be an on-chip tile of integers (the row numbers), not "
                   f"{tile.buffer} {tile.dtype.name}")
    if len(tile.shape) != 2 or tile.shape[1] != 1:
        raise fail(f"{where}: an index tile of shape {tile.shape}: one row number per partition, [P, 1], is modelled")
    return (dim[0], 0, tile.shape[0], True), tile


def _index(dim, index, d, name):
    start, step, size, _ = dim
    # the usual indices first, with what the checks below would return for them
    if type(index) is int and -size <= index < size:
        return (start + (index % size) * step, step, 1, False)
    if type(index) is slice and index.step is None:
        lo = 0 if index.start is None else index.start
        hi = size if index.stop is None else index.stop
        if type(lo) is int and type(hi) is int and 0 <= lo < hi <= size:
            return (start + lo * step, step, hi - lo, True)
    where = f"{name}: dimension {d} (size {size})"
    if isinstance(index, Arange):
        if index.step <= 0:
            raise fail(f"{where}: an nl.arange index with step {index.step}: only positive steps are modelled")
        index = slice(index.start, index.start + (index.size - 1) * index.step + 1, index.step)
    if isinstance(index, slice):
        # A bound past the dimension is an error, not clamped as Python's slices are: a load or
        # store of fewer elements than the kernel names would trace another kernel.
        for bound in (index.start, index.stop):
            if bound is not None and not -size <= int(bound) <= size:
                raise fail(f"{where}: the slice [{_slice_text(index)}] reaches {int(bound)}, outside "
                           f"-{size}..{size}; index within the tensor")
        lo, hi, by = index.indices(size)
        if by <= 0:
            raise fail(f"{where}: only positive slice steps are modelled")
        count = max(0, (hi - lo + by - 1) // by)
        if count == 0:
            raise fail(f"{where}: the slice [{_slice_text(index)}] selects nothing")
        return (start + lo * step, step * by, count, True)
    if isinstance(index, int) or hasattr(index, "__index__"):
        i = int(index)
        if not -size <= i < size:
            raise fail(f"{where}: index {i} is outside 0..{size - 1}")
        return (start + (i % size) * step, step, 1, False)
    if isinstance(index, View) or type(index).__name__ == "Pending":
        raise fail(f"{where}: a tile used as an index (a dynamic index: addresses from values the kernel computes) "
                   "is not modelled")
    raise fail(f"{where}: index {index!r} is not modelled (integers, slices, nl.arange/mgrid)")
