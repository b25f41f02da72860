"""tensor.ap(pattern=, offset=, dtype=): NKI's hardware access pattern on a tensor (the NKI Access
Patterns guide: "NKI Access Patterns", nki/deep-dives/nki-aps). The pattern is [[step, count],
...], outermost first, steps and offset in elements of the tensor seen as a flat row-major array;
on chip the first pair is the partitions (its step one partition's row). The view is an operand
like any other: its free pairs become the record's access pattern."""

from math import prod

from ._tracer import View, dtype_of, fail


class PatternView(View):
    """A View whose elements are given by an explicit access pattern instead of slices."""

    def __init__(self, storage, pattern, offset, dtype):
        super().__init__(storage)
        self.pattern, self.offset, self._dtype = pattern, offset, dtype
        if storage.buffer != "hbm":
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
    from . import _ops
    if pattern is None:
        raise fail(".ap() needs pattern=[[step, count], ...]")
    if any(dim != (0, 1, n, True) for dim, n in zip(view.dims, view.storage.shape)):
        raise fail(f".ap of a slice of {view.storage.name}: apply it to the whole tensor (offset= selects)")
    if _ops.tracer().values:
        raise fail("numerical values through .ap() access patterns are not modelled: trace without --input")
    pattern = [(int(step), int(count)) for step, count in pattern]
    if any(count <= 0 or step < 0 for step, count in pattern):
        raise fail(f".ap pattern {pattern}: counts positive, steps not negative")
    return PatternView(view.storage, pattern, int(offset), dtype_of(dtype) if dtype is not None else view.dtype)
