"""The on-chip allocator: each generation's SBUF and PSUM geometry (docs/address-model.md) and
the buffers every allocation site of a kernel gets in it."""

import difflib

from ._errors import DirectConflict, NkiError, OutOfSpace, out_of_space


# generations: the on-chip geometry the allocator places tiles in (docs/address-model.md)
GEOMETRY = {
    # gen: (SBUF stride, SBUF active bytes per partition, PSUM offset, PSUM stride, PSUM banks)
    "sunda": (0x40000, 0x30000, 0x2000000, 0x4000, 8),
    "cayman": (0x40000, 0x38000, 0x2000000, 0x4000, 8),
    "mariana": (0x40000, 0x40000, 0x2000000, 0x4000, 8),
}
PSUM_BANK_BYTES = 2048
PARTITIONS = 128
SCRATCH_BYTES = 64  # SBUF bytes [0, 64) of partition 0: the operands of synchronisation records
ALIGN = 64


def _unmodelled_generation(generation):
    """The front-end's generations, and why the one given is not among them."""
    models = f"the NKI front-end models {', '.join(GEOMETRY)}"
    if generation == "maverick":
        return f"generation 'maverick': {models} (maverick has no PSUM, so no matmul accumulates)"
    if generation == "inferentia":
        return f"generation 'inferentia': {models} (NKI targets NeuronCore-v2 and later; inferentia is Inf1's v1)"
    close = difflib.get_close_matches(str(generation), GEOMETRY, n=1)
    return f"unknown generation {generation!r}" + (f" (did you mean {close[0]!r}?)" if close else "") + f": {models}"


def clear(ranges, memory, offset, size, partition=None):
    """The lowest offset from `offset` (aligned as the memory's tiles are) where `size` bytes meet
    none of the direct allocations' `ranges` ([(memory, p0, p1, lo, hi)]) of `memory` (of
    `partition`'s bytes, or of any partition's)."""
    unit = ALIGN if memory == "sbuf" else PSUM_BANK_BYTES
    taken = sorted((lo, hi) for m, p0, p1, lo, hi in ranges
                   if m == memory and (partition is None or p0 <= partition < p1))
    moved = True
    while moved:
        moved = False
        for lo, hi in taken:
            if lo < offset + size and offset < hi:
                offset, moved = -(-hi // unit) * unit, True
    return offset


def _merged(ranges):
    """[(p0, p1, lo, hi)] with the ranges of the same partitions that touch or overlap made one:
    a tensor's blocks laid one after another are one range."""
    merged = []
    for p0, p1, lo, hi in sorted(ranges):
        if merged and merged[-1][:2] == (p0, p1) and lo <= merged[-1][3]:
            merged[-1] = (p0, p1, merged[-1][2], max(hi, merged[-1][3]))
        else:
            merged.append((p0, p1, lo, hi))
    return merged


def scratch_offset(reserved):
    """Where the synchronisation records' scratch goes: SBUF bytes [0, 64) of partition 0, or
    the lowest 64 free bytes of partition 0 where the kernel allocated those directly."""
    return clear(reserved, "sbuf", 0, SCRATCH_BYTES, partition=0)


class Slot:
    """One physical buffer: a region, the byte offset inside each partition, bytes per
    partition. Hazards are tracked per slot (tiles rotating through it share its history)."""

    placed = False  # placed by liveness (Allocator.slot) or directly: hazards then per page of SBUF
    partition = 0  # the first partition (a direct allocation's base_partition)
    deferred = ()  # an HBM tensor's reads before anything wrote it: [(view, record)] (Tracer.emit)

    def __init__(self, region, offset, size):
        self.region, self.offset, self.size = region, offset, size
        self.owner = None  # the Storage that holds it now (the latest tile allocated into it)
        self.writes = []  # (p0, p1, lo, hi, record)
        self.reads = {}  # (p0, p1, lo, hi, queue) -> (p0, p1, lo, hi, record), oldest first


class Allocator:
    """The NKI compiler's default placement as this front-end reads it: every allocation site
    (the kernel's file:line of nl.ndarray/zeros or of an op that makes a new tile) owns its own
    buffers, bump-allocated per partition (SBUF) or in whole 2 KiB banks (PSUM). A site executed
    again — its tile re-bound in the next loop iteration — reuses its buffers in rotation: the
    tracer's loop_buffers inside an affine_range loop (the next iterations' loads may overlap
    this one's compute), one inside sequential_range or outside any loop. Sites in `single`
    ({key: buffers}) get at most that many wherever they are: trace() takes a buffer at a time
    from the largest multi-buffered sites when a kernel does not fit otherwise, as the compiler
    gives up overlap before it gives up the kernel. Sites in `extra`
    ({key: buffers}) get that many at least: trace() found more of their tiles live at once
    (Clobbered), and they are never single-buffered."""

    def __init__(self, generation, single=None, extra=None, caps=None, placement=None, measure=False, reserved=()):
        if generation not in GEOMETRY:
            raise NkiError(_unmodelled_generation(generation))
        self.sbuf_stride, self.sbuf_size, self.psum_offset, self.psum_stride, self.psum_banks = GEOMETRY[generation]
        # Direct allocation (nki.compiler's mod_alloc, alloc): the bytes the kernel's directly
        # allocated tensors take, [(memory, p0, p1, lo, hi)]: `reserved` those an earlier trace of
        # the kernel found where this allocator had put the scratch or a tile of its own
        # (DirectConflict), `direct` this trace's. Nothing of the allocator's goes there.
        self.reserved, self.direct_ranges = list(reserved), []
        self.given = {"sbuf": [], "psum": []}  # (lo, hi) of the allocator's own slots, every partition
        self.conflicts = False  # a direct allocation met the allocator's own placements (direct())
        self.scratch = Slot("sbuf", scratch_offset(self.reserved), SCRATCH_BYTES)
        if self.scratch.offset + SCRATCH_BYTES > self.sbuf_size:
            raise NkiError(f"the kernel's direct allocations leave no {SCRATCH_BYTES} bytes of partition 0's SBUF "
                           "free for the synchronisation records' operands (docs/nki.md, Semaphores)")
        self.sbuf_next = SCRATCH_BYTES if self.scratch.offset == 0 else 0
        self.psum_next_bank = 0
        self.sites = {}  # (site, shape, dtype, buffer) -> [slots, next index]
        self.single = single or {}
        self.extra = extra or {}
        self.block_sites = set()
        # liveness (liveness.py): `measure` places tiles without a limit, to learn their
        # lifetimes; `placement` ({"sbuf": offsets, "psum": offsets}) then gives the n-th tile of
        # a memory its offset, each tile a slot of its own
        self.placement, self.counts = placement or {}, {"sbuf": 0, "psum": 0}
        if measure:
            self.sbuf_size, self.psum_banks = 1 << 40, 1 << 20
        self.caps = caps or {}  # PSUM block tensors' sites -> at most this many banks (trace() lowers it)

    def slot(self, key, buffer, bytes_per_partition, rotation, blocks=False):
        """A buffer for the site `key` (rotating over `rotation` of them). blocks: a PSUM tensor
        with block dimensions, one block per bank, which takes the banks that are free when it
        has more blocks than that (its blocks then share banks modulo their number)."""
        if buffer in self.counts:
            self.counts[buffer] += 1
            offsets = self.placement.get(buffer)
            if offsets is not None:
                offset, size = offsets[self.counts[buffer] - 1]
                slot = Slot(buffer, offset, size)
                slot.placed = True
                self.given[buffer].append((offset, offset + size))
                if any(m == buffer and lo < offset + size and offset < hi for m, _, _, lo, hi in self.direct_ranges):
                    self.conflicts = True  # placed by lifetimes measured without this trace's direct bytes
                return slot
        entry = self.sites.get(key)
        if entry is None:
            if key in self.extra:
                rotation = max(rotation, self.extra[key])
            elif key in self.single:
                rotation = min(rotation, self.single[key])
            try:
                size = bytes_per_partition
                if key in self.caps:
                    size = min(size, self.caps[key] * PSUM_BANK_BYTES)
                slots = [self._new(buffer, size, blocks) for _ in range(rotation)]
            except OutOfSpace as e:
                e.key = key
                e.blocks = sorted(((entry[0][0].size // PSUM_BANK_BYTES, k) for k, entry in self.sites.items()
                                   if buffer == k[3] == "psum" and entry[0][0].size > PSUM_BANK_BYTES
                                   and k in self.block_sites), key=lambda t: -t[0])
                doubled = [(entry[0][0].size, k) for k, entry in self.sites.items()
                           if len(entry[0]) > 1 and k[3] == buffer and k not in self.extra]
                if rotation > 1 and key not in self.extra:
                    doubled.append((bytes_per_partition, key))
                e.doubled = sorted(doubled, key=lambda t: -t[0])
                raise
            entry = self.sites[key] = [slots, 0]
            if blocks:
                self.block_sites.add(key)
        slots, index = entry
        entry[1] = (index + 1) % len(slots)
        return slots[index]

    def buffers(self, key):
        """How many buffers the site has."""
        return len(self.sites[key][0])

    def _new(self, buffer, size, blocks=False):
        if buffer == "psum":
            banks = -(-size // PSUM_BANK_BYTES)
            self.psum_next_bank = self._clear("psum", self.psum_next_bank * PSUM_BANK_BYTES,
                                              PSUM_BANK_BYTES) // PSUM_BANK_BYTES
            if blocks:  # at least one bank, at most the free ones
                banks = max(1, min(banks, self.psum_banks - self.psum_next_bank))
            start = self._clear("psum", self.psum_next_bank * PSUM_BANK_BYTES, banks * PSUM_BANK_BYTES)
            self.psum_next_bank = start // PSUM_BANK_BYTES
            if self.psum_next_bank + banks > self.psum_banks:
                raise out_of_space(f"PSUM is full: this tile needs {banks} of the {self.psum_banks} 2 KiB banks per "
                                   f"partition and {self.psum_next_bank} are taken by other allocation sites (with "
                                   "their rotation); use fewer or smaller PSUM tiles")
            slot = Slot("psum", self.psum_next_bank * PSUM_BANK_BYTES, banks * PSUM_BANK_BYTES if blocks else size)
            self.psum_next_bank += banks
            self.given["psum"].append((slot.offset, self.psum_next_bank * PSUM_BANK_BYTES))
            return slot
        offset = self._clear("sbuf", self.sbuf_next, size)
        if offset + size > self.sbuf_size:
            raise out_of_space(f"SBUF is full: this tile needs {size} bytes per partition, {self.sbuf_size - offset} "
                               f"are left of {self.sbuf_size} (allocation sites are never freed in this model); use "
                               "smaller tiles or fewer live ones")
        self.sbuf_next = offset + -(-size // ALIGN) * ALIGN
        self.given["sbuf"].append((offset, self.sbuf_next))
        return Slot("sbuf", offset, size)

    def _clear(self, memory, offset, size):
        """The lowest offset from `offset` (aligned as the memory's tiles are) where `size` bytes
        meet no directly allocated bytes and not the scratch: with none, `offset` itself."""
        scratch = [("sbuf", 0, 1, self.scratch.offset, self.scratch.offset + SCRATCH_BYTES)]
        return clear(self.reserved + self.direct_ranges + scratch, memory, offset, size)

    def direct(self, memory, ranges):
        """Note a directly allocated tensor's bytes, [(p0, p1, lo, hi)] in `memory`. Where they meet
        the allocator's own (the scratch, a tile placed earlier) this trace cannot stand, but it
        runs on to learn every direct allocation of the kernel (none depends on the placement of
        the others): conflict() then has trace() trace again with all of them reserved."""
        ranges = [(memory, *r) for r in _merged(ranges)]
        self.direct_ranges.extend(ranges)
        for _, p0, p1, lo, hi in ranges:
            scratch = memory == "sbuf" and p0 == 0 and lo < self.scratch.offset + SCRATCH_BYTES \
                and self.scratch.offset < hi
            if scratch or any(a < hi and lo < b for a, b in self.given[memory]):
                self.conflicts = True

    def conflict(self):
        """The DirectConflict this trace ends with, or None."""
        return DirectConflict(self.reserved + self.direct_ranges) if self.conflicts else None

    def address(self, slot, partition, byte):
        if slot.region == "psum":
            return self.psum_offset + partition * self.psum_stride + slot.offset + byte
        return partition * self.sbuf_stride + slot.offset + byte
