"""tensor.ap(pattern=, offset=, dtype=): NKI's hardware access pattern on a tensor (the NKI Access
Patterns guide: "NKI Access Patterns", nki/deep-dives/nki-aps). The pattern is [[step, count],
...], outermost first, steps and offset in elements of the tensor seen as a flat row-major array;
on chip the first pair is the partitions (its step one partition's row). The view is an operand
like any other: its free pairs become the record's access pattern."""

from math import prod

from ._dtypes import dtype_of
from ._errors import fail
from ._indices import Arange, IndexExpr
from ._tracer import tracer
from ._view import View


class PatternView(View):
    """A View whose elements are given by an explicit access pattern instead of slices."""

    _explicit = True

    def __init__(self, storage, pattern, offset, dtype, partitions=None):
        super().__init__(storage)
        self.pattern, self.offset, self._dtype = pattern, offset, dtype
        if partitions is not None:  # on chip, given apart: (first partition, free element offset)
            self._p0, self._free_offset = partitions
            self._free = pattern[1:]
        elif storage.buffer != "hbm":
            row = prod(n for d, n in enumerate(storage.shape) if d != storage.pdim)
            step, count = pattern[0]
            if step != row:
                raise fail(f".ap pattern {pattern}: on chip the first pair is the partitions, its step one "
                           f"partition's row ({row} elements of {storage.name})")
            self._p0, self._free_offset = divmod(offset, row)
            if self._p0 + count > storage.shape[storage.pdim]:
                raise fail(f".ap of {storage.name}: partitions {self._p0}..{self._p0 + count - 1} are outside its "
                           f"{storage.shape[storage.pdim]}")
            self._free = pattern[1:]
        else:
            self._p0, self._free_offset, self._free = 0, offset, pattern

    @property
    def shape(self):
        return tuple(count for _, count in self.pattern)

    @property
    def dtype(self):
        return self._dtype

    @property
    def partitions(self):
        return self.pattern[0][1] if self.on_chip else 1

    @property
    def free_elements(self):
        return prod(count for _, count in (self.pattern[1:] if self.on_chip else self.pattern))

    @property
    def elements(self):
        return prod(self.shape)

    def partition_start(self):
        return self._p0

    def free_pattern(self):
        dims = [(step, count) for step, count in reversed(self._free) if count > 1]
        return self._free_offset, dims or [(1, 1)]

    def __getitem__(self, key):
        raise fail("indexing an .ap() view is not modelled: give the whole access pattern in .ap()")

    def __repr__(self):
        return f"<nki access pattern {self.pattern} +{self.offset} of {self.storage.name}>"


def ap(view, pattern=None, offset=0, dtype=None, **_):
    """view.ap(...): the storage's elements by an explicit pattern (a whole tensor only)."""
    if pattern is None:
        raise fail(".ap() needs pattern=[[step, count], ...]")
    if any(dim != (0, 1, n, True) for dim, n in zip(view.dims, view.storage.shape)):
        raise fail(f".ap of a slice of {view.storage.name}: apply it to the whole tensor (offset= selects)")
    if tracer().values:
        raise fail("numerical values through .ap() access patterns are not modelled: trace without --input")
    pattern = [(int(step), int(count)) for step, count in pattern]
    if any(count <= 0 or step < 0 for step, count in pattern):
        raise fail(f".ap pattern {pattern}: counts positive, steps not negative")
    return PatternView(view.storage, pattern, int(offset), dtype_of(dtype) if dtype is not None else view.dtype)


def indexed(view, key):
    """view[key] where an index is an expression of several nl.arange ranges (`t[i0, 2 * i1 + i2]`):
    every range is a dimension of the result, ordered by its axis (mgrid's position, or where
    [:, None] puts it), its step the range's factor times the indexed dimension's stride; integers
    and expression constants add to the offset. The result is an access pattern (PatternView)."""
    storage = view.storage
    if any(dim != (0, 1, n, True) for dim, n in zip(view.dims, storage.shape)):
        raise fail(f"an index expression of several nl.arange ranges on a slice of {storage.name}: index the whole "
                   "tensor")
    if len(key) != len(storage.shape):
        raise fail(f"{len(key)} indices for {storage.name} {storage.shape}: an index expression needs one per "
                   "dimension")
    flat = [1] * len(storage.shape)  # row-major element strides of the whole tensor
    for d in reversed(range(len(storage.shape) - 1)):
        flat[d] = flat[d + 1] * storage.shape[d + 1]
    offset, terms = 0, []
    for d, index in enumerate(key):
        if isinstance(index, IndexExpr):
            if not index.affine:
                raise fail(f"{storage.name}: dimension {d}: an index with // or % of nl.arange ranges is not modelled")
            ranges, const = index.terms, index.const
        elif isinstance(index, Arange):
            ranges, const = [index], 0
        elif isinstance(index, int) or hasattr(index, "__index__"):
            ranges, const = [], int(index)
        else:
            raise fail(f"{storage.name}: dimension {d}: {index!r} beside an index expression is not modelled "
                       "(integers and nl.arange ranges)")
        for r in ranges:
            offset += r.start * flat[d]
            terms.append((r.axis if r.axis is not None else d, r.step * flat[d], r.size))
        offset += const * flat[d]
    axes = [axis for axis, _, _ in terms]
    if len(set(axes)) != len(axes):
        raise fail(f"{storage.name}: two nl.arange ranges of one axis in an index expression are not modelled")
    terms.sort()
    pattern = [(step, size) for _, step, size in terms]
    last = offset + sum(step * (size - 1) for step, size in pattern)
    if offset < 0 or last >= prod(storage.shape):
        raise fail(f"{storage.name} {storage.shape}: the index expression reaches element {last}, outside the tensor")
    if storage.buffer != "hbm" and storage.pdim != 0:
        return _indexed_blocks(view, key)
    return ap(view, pattern, offset)


def _indexed_blocks(view, key):
    """An index expression on an on-chip tensor whose partition dimension is not its first
    ([B, P, F] blocks side by side in each partition): the partition index (a range or an
    integer) gives the partitions, the other dimensions' ranges the free pattern over the
    partition's row (`t[b, i_k, 2 * 128 * j + 128 * i_t + i_m]`)."""
    storage = view.storage
    if tracer().values:
        raise fail("numerical values through an index expression on a blocked tile are not modelled")
    p0, count, part_axis, offset, terms = 0, 1, -1, 0, []
    for d, index in enumerate(key):
        if d == storage.pdim:
            if isinstance(index, Arange) and index.step == 1:
                p0, count, part_axis = index.start, index.size, index.axis if index.axis is not None else d
            elif isinstance(index, int):
                p0 = index
            else:
                raise fail(f"{storage.name}: the partition index must be one nl.arange range or an integer")
            if p0 < 0 or p0 + count > storage.shape[d]:
                raise fail(f"{storage.name}: partitions {p0}..{p0 + count - 1} outside its {storage.shape[d]}")
            continue
        ranges, const = (index.terms, index.const) if isinstance(index, IndexExpr) else (
            ([index], 0) if isinstance(index, Arange) else ([], int(index)))
        stride = storage.strides[d]
        for r in ranges:
            offset += r.start * stride
            terms.append((r.axis if r.axis is not None else d, r.step * stride, r.size))
        offset += const * stride
    if any(axis <= part_axis for axis, _, _ in terms):
        raise fail(f"{storage.name}: the partition range must be the index's first axis")
    terms.sort()
    free = [(step, size) for _, step, size in terms]
    row = storage.bytes_per_partition // storage.dtype.size
    if offset < 0 or offset + sum(step * (size - 1) for step, size in free) >= row:
        raise fail(f"{storage.name}: the index expression reaches past the tile")
    return PatternView(storage, [(row, count)] + free, p0 * row + offset, storage.dtype, partitions=(p0, offset))
