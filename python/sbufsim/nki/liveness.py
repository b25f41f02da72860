"""SBUF placement from tile lifetimes (docs/nki.md, "Operands and the allocator"): what the NKI
compiler's allocator does that the per-line model does not, used when a kernel does not fit that
model. A first trace places every SBUF tile without a limit and notes when each is allocated and
last used (records emitted so far); a tile in a loop with two buffers stays live until the next
tile of its line is allocated, so that consecutive iterations keep distinct buffers and may
overlap. Tiles are then packed first-fit in allocation order, a tile's bytes free once its
lifetime has ended, and the kernel is traced again with those offsets."""

from ._allocator import ALIGN, PSUM_BANK_BYTES, SCRATCH_BYTES
from ._errors import OutOfSpace

# A PSUM tensor with block dimensions placed by liveness holds at most this many banks, its blocks
# sharing them modulo (two: consecutive blocks in distinct banks, as a loop's accumulations overlap)
BLOCK_BANKS = 2


class Memory:
    """Where tiles are packed: the first usable offset, the unit offsets and sizes round to, the
    capacity (bytes per partition)."""

    def __init__(self, name, start, align, capacity):
        self.name, self.start, self.align, self.capacity = name, start, align, capacity

    def size(self, storage):
        if self.name == "psum" and storage.psum_blocks:
            return min(storage.bytes_per_partition, BLOCK_BANKS * PSUM_BANK_BYTES)
        return -(-max(storage.bytes_per_partition, 1) // self.align) * self.align


def memories(sbuf_capacity, psum_banks):
    return {"sbuf": Memory("sbuf", SCRATCH_BYTES, ALIGN, sbuf_capacity),
            "psum": Memory("psum", 0, PSUM_BANK_BYTES, psum_banks * PSUM_BANK_BYTES)}


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


def place(spans, memory):
    """First-fit (offset, size) for the spans in order, from the memory's first usable offset."""
    active, offsets = [], []  # active: (offset, size, end)
    capacity = memory.capacity
    for born, end, _, storage in spans:
        active = [a for a in active if a[2] > born]
        size = memory.size(storage)
        offset = memory.start
        for a_offset, a_size, _ in sorted(active):
            if offset + size <= a_offset:
                break
            offset = max(offset, a_offset + a_size)
        if offset + size > capacity:
            live = sum(a[1] for a in active)
            filename, line = storage.key[0]
            raise OutOfSpace(f"{filename}:{line}: {memory.name.upper()} is full even with each tile freed after its "
                             f"last use: tile {storage.name} needs {size} bytes per partition, {live} are held by "
                             f"{len(active)} live tiles of {capacity - memory.start}")
        offsets.append((offset, size))
        active.append((offset, size, end))
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
        clash = sorted((o, s) for b, e, o, s in placed if b < end and born < e)
        offset = memory.start
        for o, s in clash:
            if offset + size <= o:
                break
            offset = max(offset, o + s)
        if offset + size > capacity:
            filename, line = storage.key[0]
            raise OutOfSpace(f"{filename}:{line}: {memory.name.upper()} is full even with each tile freed after its "
                             f"last use: tile {storage.name} needs {size} bytes per partition beside the tiles live "
                             "with it")
        placed.append((born, end, offset, size))
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
