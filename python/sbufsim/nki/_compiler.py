"""nki.compiler as traced by sbufsim (docs/nki.md, "nki.compiler"). The NKI compiler's switches and
directives are accepted and change nothing in the trace: it is the kernel as written, traced
without the compiler's transformations anyway (`skip_middle_end_transformations`,
`no_reorder`), and its allocator is this front-end's (`enable_stack_allocator`).

Direct allocation is honoured: `ncc.sbuf.mod_alloc(base_addr=, num_free_tiles=)`,
`ncc.psum.mod_alloc(base_bank=, num_bank_tiles=)` and `ncc.sbuf.alloc(func)` /
`ncc.psum.alloc(func)` place each block of the tensor where the public API reference says
(nki.compiler.sbuf.mod_alloc: block index modulo the tile counts, linearised, times the tile's
size, plus the base), so blocks that share bytes wait for each other as on hardware.
`auto_alloc()` leaves the tensor to the front-end's allocator."""

import functools
import numbers
from math import prod

from ._allocator import PSUM_BANK_BYTES
from ._errors import fail


class Buffer(str):
    """A memory (the string 'sbuf' or 'psum', as nl.sbuf and nl.psum are) with the direct-allocation
    methods. What they return is the same memory with a placement (_Direct)."""

    def __repr__(self):
        return f"the {str(self).upper()} memory; .mod_alloc / .alloc / .auto_alloc place its tensors"

    def mod_alloc(self, base_addr=None, *, base_bank=None, base_partition=0, num_par_tiles=(), num_free_tiles=(),
                  num_bank_tiles=()):
        if str(self) == "psum":
            if base_bank is None:
                raise fail("ncc.psum.mod_alloc: base_bank= is required (the first PSUM bank of the tensor)")
            return _Direct("psum", _modulo(base_partition, num_par_tiles, "num_par_tiles"),
                           _modulo(base_addr or 0, num_free_tiles, "num_free_tiles"),
                           _modulo(base_bank, num_bank_tiles, "num_bank_tiles"))
        if base_addr is None:
            raise fail("ncc.sbuf.mod_alloc: base_addr= is required (the byte offset inside each partition)")
        if base_bank is not None or num_bank_tiles:
            raise fail("ncc.sbuf.mod_alloc: base_bank and num_bank_tiles are PSUM's (ncc.psum.mod_alloc)")
        return _Direct("sbuf", _modulo(base_partition, num_par_tiles, "num_par_tiles"),
                       _modulo(base_addr, num_free_tiles, "num_free_tiles"))

    def alloc(self, func):
        if not callable(func):
            raise fail(f"ncc.{self}.alloc(func): func must be callable (block index, partitions, bytes per "
                       f"partition) -> {'(bank, partition, byte)' if self == 'psum' else '(partition, byte)'}, "
                       f"not {type(func).__name__}")
        return _Direct(str(self), func=func)

    def auto_alloc(self, *args, **kwargs):
        return Buffer(str(self))


def _integer(value, least=0):
    """`value` as a Python int when it is an integer (numpy's too, not a bool) of at least
    `least`, else None: a kernel may compute its addresses with numpy."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < least:
        return None
    return int(value)


def _integers(values, size, least=0):
    """A tuple or list of `size` integers (None: any size) as Python ints, else None."""
    if not isinstance(values, (tuple, list)) or (size is not None and len(values) != size):
        return None
    values = [_integer(v, least) for v in values]
    return None if None in values else tuple(values)


def _modulo(base, tiles, name):
    """nki.compiler's modulo_allocate_func: (block index, tile size) -> the index modulo `tiles`
    (one count per leading block dimension; () puts every block at the base), linearised over
    `tiles`, times the tile size, plus base."""
    checked = _integer(base)
    if checked is None:
        raise fail(f"direct allocation: base {base!r} must be a non-negative integer")
    base = checked
    counts = _integers((tiles,) if _integer(tiles) is not None else tiles, None, least=1)
    if counts is None:
        raise fail(f"direct allocation: {name}={tiles!r} must be a tuple of positive integers")
    tiles = counts

    def place(index, scale, _blocks):
        shape = tiles or (1,) * len(index)
        wrapped = [i % n for i, n in zip(index, shape)]
        return base + scale * sum(i * prod(shape[d + 1:]) for d, i in enumerate(wrapped))
    return place


def _in_order(base):
    """Block index -> base plus the index linearised over the tensor's blocks, times the tile
    size: the blocks one after another, as the tensor's own layout has them."""
    return lambda index, scale, blocks: base + scale * sum(i * prod(blocks[d + 1:]) for d, i in enumerate(index))


def at_address(buffer, address):
    """`nl.ndarray(..., address=(partition_offset, free_offset))` (nki.language.ndarray): the
    tensor's first partition and its first byte in each partition (PSUM: bank * 2 KiB + byte),
    its blocks, if any, one after another from there (in PSUM, a bank each). An HBM tensor's
    `(free_offset,)` is checked and changes nothing: HBM addresses do not enter the model."""
    memory = str(buffer)
    if memory not in ("sbuf", "psum"):
        if _integers(address, 1) is None:
            raise fail(f"nl.ndarray address={address!r}: for an HBM tensor, (free_offset,) as a non-negative "
                       "integer")
        return buffer
    checked = _integers(address, 2)
    if checked is None:
        raise fail(f"nl.ndarray address={address!r}: on chip, (partition_offset, free_offset) as non-negative "
                   "integers")
    partition, free = checked
    constant = _modulo(partition, (), "address")
    if memory == "psum":
        bank, byte = divmod(free, PSUM_BANK_BYTES)
        return _Direct("psum", constant, _modulo(byte, (), "address"), _in_order(bank))
    return _Direct("sbuf", constant, _in_order(free))


class _Direct(Buffer):
    """A memory with a direct placement: block index -> (partition, byte offset in the partition),
    PSUM's byte offset being its bank's offset plus the byte inside the bank."""

    def __new__(cls, memory, partition=None, byte=None, bank=None, func=None):
        self = super().__new__(cls, memory)
        self.partition, self.byte, self.bank, self.func = partition, byte, bank, func
        return self

    def __repr__(self):
        return f"the {str(self).upper()} memory, directly allocated"

    def place(self, index, partitions, bytes_per_partition, blocks):
        """(partition, byte offset, bank or None) of block `index` (a tuple) of a tensor of
        `blocks` blocks whose tiles take `partitions` partitions and `bytes_per_partition` bytes
        each."""
        if self.func is None:
            bank = None if self.bank is None else self.bank(index, 1, blocks)
            return (self.partition(index, partitions, blocks), self.byte(index, bytes_per_partition, blocks),
                    bank)
        where = self.func(idx=index, pdim_size=partitions, fdim_size=bytes_per_partition)  # the names NKI calls it by
        size = 3 if self == "psum" else 2
        checked = _integers(where, size)
        if checked is None:
            raise fail(f"ncc.{self}.alloc: the function returned {where!r} for block {index}; it must return "
                       + ("(bank, partition, byte in the bank)" if size == 3 else "(partition, byte)")
                       + " as non-negative integers")
        if size == 3:
            return checked[1], checked[2], checked[0]
        return checked[0], checked[1], None


sbuf, psum = Buffer("sbuf"), Buffer("psum")


def _switch(func=None, **_options):
    """A decorator bare (`@ncc.skip_middle_end_transformations`) or with options
    (`@ncc.enable_stack_allocator(log_level=...)`): returns the kernel unchanged."""
    if func is None or not callable(func):
        return lambda f: f
    return func


skip_middle_end_transformations = enable_stack_allocator = _switch


def force_auto_alloc(func=None, **_options):
    """The kernel with its direct allocations ignored: every tensor placed by the front-end's
    allocator, as nki.compiler's force_auto_alloc has the compiler place them (what a kernel's
    hand placement gains is the difference)."""
    if func is None or not callable(func):
        return force_auto_alloc

    @functools.wraps(func)
    def auto(*args, **kwargs):
        from . import _tracer
        tracer = _tracer.tracer()
        before, tracer.force_auto = tracer.force_auto, True
        try:
            return func(*args, **kwargs)
        finally:
            tracer.force_auto = before
    return auto


class _Directive:
    """A loop directive (`nl.sequential_range(n, directives=ncc.no_reorder())`): accepted, no effect."""

    def __init__(self, name, *args):
        self.name, self.args = name, args

    def __repr__(self):
        return f"nki.compiler.{self.name}{self.args}"


def no_reorder(*args):
    """A loop directive, accepted with no effect: the trace keeps the kernel's order anyway."""
    return _Directive("no_reorder", *args)


def multi_buffer(*args):
    """A loop directive, accepted with no effect: the allocator picks the buffers (docs/nki.md)."""
    return _Directive("multi_buffer", *args)
