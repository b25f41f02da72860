"""SBUF placement from tile lifetimes (docs/nki.md, "Operands and the allocator"): what the NKI
compiler's allocator does that the per-line model does not, used when a kernel does not fit that
model. A first trace places every SBUF tile without a limit and notes when each is allocated and
last used (records emitted so far); a tile in a loop with two buffers stays live until the next
tile of its line is allocated, so that consecutive iterations keep distinct buffers and may
overlap. Tiles are then packed first-fit in allocation order, a tile's bytes free once its
lifetime has ended, and the kernel is traced again with those offsets."""

from ._allocator import ALIGN, PSUM_BANK_BYTES, SCRATCH_BYTES, scratch_offset
from ._errors import OutOfSpace

# A PSUM tensor with block dimensions placed by liveness holds at most this many banks, its blocks
# sharing them modulo (two: consecutive blocks in distinct banks, as a loop's accumulations overlap)
BLOCK_BANKS = 2


class Memory:
    """Where tiles are packed: the first usable offset, the unit offsets and sizes round to, the
    capacity (bytes per partition)."""

    def __init__(self, name, start, align, capacity, taken=()):
        self.name, self.start, self.align, self.capacity = name, start, align, capacity
        # (offset, size, end, storage) held all along: the kernel's direct allocations
        self.taken = [(offset, size, 0, None) for offset, size in taken]

    def size(self, storage):
        if self.name == "psum" and storage.psum_blocks:
            return min(storage.bytes_per_partition, BLOCK_BANKS * PSUM_BANK_BYTES)
        return -(-max(storage.bytes_per_partition, 1) // self.align) * self.align


def memories(sbuf_capacity, psum_banks, reserved=()):
    """The memories tiles are packed in; `reserved` ([(memory, p0, p1, lo, hi)]): bytes the kernel
    allocated directly, which no tile of the front-end's may take (the SBUF's scratch then goes
    to the lowest free bytes of partition 0: Allocator, so the packing starts at 0)."""
    taken = {m: [(lo, hi - lo) for memory, _, _, lo, hi in reserved if memory == m] for m in ("sbuf", "psum")}
    if taken["sbuf"]:
        taken["sbuf"].append((scratch_offset(reserved), SCRATCH_BYTES))
    return {"sbuf": Memory("sbuf", 0 if taken["sbuf"] else SCRATCH_BYTES, ALIGN, sbuf_capacity, taken["sbuf"]),
            "psum": Memory("psum", 0, PSUM_BANK_BYTES, psum_banks * PSUM_BANK_BYTES, taken["psum"])}


def lifetimes(tiles, double):
    """[(born, end, bytes)] per SBUF tile in allocation order; `double`: the lines (allocation
    keys) with two buffers, whose tiles live until the next tile of the line is allocated."""
    spans = []
    next_born = {}
    for storage in reversed(tiles):
        end = max(storage.last_use, storage.born + 1)
        if storage.key in double and storage.key in next_born:
            end = max(end, next_born[storage.key] + 1)
        next_born[storage.key] = storage.born
        spans.append((storage.born, end, storage.bytes_per_partition, storage))
    return spans[::-1]


def _held_by(live):
    """What holds the memory when a tile does not fit, by the kernel line that allocated the live
    tiles (largest share first, the first three), and what to do about it: the user's lever is the
    line whose tiles are alive together."""
    lines = {}
    for storage, size in live:
        filename, line = storage.key[0]
        count, total = lines.get((filename, line), (0, 0))
        lines[(filename, line)] = (count + 1, total + size)
    if not lines:
        return ""
    top = sorted(lines.items(), key=lambda item: -item[1][1])[:3]
    held = "; ".join(f"line {line}: {count} tile{'s' if count > 1 else ''}, {total} bytes"
                     for (_, line), (count, total) in top)
    return (f" (held by {held}). The tiles of a line that are alive together each take their own space: "
            "allocate fewer at once (a smaller block of tiles, or the loads beside the matmuls that read "
            "them); neuronx-cc may instead fuse the loop that fills them with the loop that reads them, "
            "which sbufsim does not model (docs/nki.md, Not modelled yet)")


def place(spans, memory):
    """First-fit (offset, size) for the spans in order, from the memory's first usable offset."""
    active, offsets = [], []  # active: (offset, size, end, storage)
    capacity = memory.capacity
    for born, end, _, storage in spans:
        active = [a for a in active if a[2] > born]
        size = memory.size(storage)
        offset = memory.start
        for a_offset, a_size, _, _ in sorted(active + memory.taken if memory.taken else active, key=lambda a: a[0]):
            if offset + size <= a_offset:
                break
            offset = max(offset, a_offset + a_size)
        if offset + size > capacity:
            live = sum(a[1] for a in active)
            filename, line = storage.key[0]
            raise OutOfSpace(f"{filename}:{line}: {memory.name.upper()} is full even with each tile freed after its "
                             f"last use: tile {storage.name} needs {size} bytes per partition, {live} are held by "
                             f"{len(active)} live tiles of {capacity - memory.start}"
                             + _held_by([(a[3], a[1]) for a in active]))
        offsets.append((offset, size))
        active.append((offset, size, end, storage))
    return offsets


def place_by_size(spans, memory):
    """Offsets for the spans placed largest first, each at the lowest offset clear of the placed
    tiles whose lifetimes overlap its own: fewer holes than first-fit in allocation order, at a
    cost quadratic in the number of tiles (used when first-fit does not fit)."""
    order = sorted(range(len(spans)), key=lambda i: (-memory.size(spans[i][3]), spans[i][0]))
    placed, offsets = [], [None] * len(spans)
    capacity = memory.capacity
    for i in order:
        born, end, _, storage = spans[i]
        size = memory.size(storage)
        clash = sorted([(o, s) for b, e, o, s, _ in placed if b < end and born < e] + [t[:2] for t in memory.taken])
        offset = memory.start
        for o, s in clash:
            if offset + size <= o:
                break
            offset = max(offset, o + s)
        if offset + size > capacity:
            filename, line = storage.key[0]
            raise OutOfSpace(f"{filename}:{line}: {memory.name.upper()} is full even with each tile freed after its "
                             f"last use: tile {storage.name} needs {size} bytes per partition beside the tiles live "
                             "with it" + _held_by([(t, sz) for b, e, _, sz, t in placed if b <= born < e]))
        placed.append((born, end, offset, size, storage))
        offsets[i] = (offset, size)
    return offsets


BY_SIZE_LIMIT = 4000  # tiles: beyond it the quadratic placement takes longer than a trace


def placement(spans, memory):
    """First-fit in allocation order, else largest first (when there are not too many tiles)."""
    try:
        return place(spans, memory)
    except OutOfSpace:
        if len(spans) > BY_SIZE_LIMIT:
            raise
        return place_by_size(spans, memory)
