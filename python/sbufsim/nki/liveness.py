"""SBUF placement from tile lifetimes (docs/nki.md, "Operands and the allocator"): what the NKI
compiler's allocator does that the per-line model does not, used when a kernel does not fit that
model. A first trace places every SBUF tile without a limit and notes when each is allocated and
last used (records emitted so far); a tile in a loop with two buffers stays live until the next
tile of its line is allocated, so that consecutive iterations keep distinct buffers and may
overlap. Tiles are then packed first-fit in allocation order, a tile's bytes free once its
lifetime has ended, and the kernel is traced again with those offsets."""

from ._tracer import ALIGN, SCRATCH_BYTES, OutOfSpace


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


def place(spans, capacity):
    """First-fit offsets (bytes per partition) for the spans in order; the scratch bytes first."""
    active, offsets = [], []  # active: (offset, size, end)
    for born, end, size, storage in spans:
        active = [a for a in active if a[2] > born]
        size = -(-max(size, 1) // ALIGN) * ALIGN
        offset = SCRATCH_BYTES
        for a_offset, a_size, _ in sorted(active):
            if offset + size <= a_offset:
                break
            offset = max(offset, a_offset + a_size)
        if offset + size > capacity:
            live = sum(a[1] for a in active)
            filename, line = storage.key[0]
            raise OutOfSpace(f"{filename}:{line}: SBUF is full even with each tile freed after its last use: tile "
                             f"{storage.name} needs {size} bytes per partition, {live} are held by {len(active)} live "
                             f"tiles of {capacity - SCRATCH_BYTES}")
        offsets.append(offset)
        active.append((offset, size, end))
    return offsets


def place_by_size(spans, capacity):
    """Offsets for the spans placed largest first, each at the lowest offset clear of the placed
    tiles whose lifetimes overlap its own: fewer holes than first-fit in allocation order, at a
    cost quadratic in the number of tiles (used when first-fit does not fit)."""
    order = sorted(range(len(spans)), key=lambda i: (-spans[i][2], spans[i][0]))
    placed, offsets = [], [0] * len(spans)
    for i in order:
        born, end, size, storage = spans[i]
        size = -(-max(size, 1) // ALIGN) * ALIGN
        clash = sorted((o, s) for b, e, o, s in placed if b < end and born < e)
        offset = SCRATCH_BYTES
        for o, s in clash:
            if offset + size <= o:
                break
            offset = max(offset, o + s)
        if offset + size > capacity:
            filename, line = storage.key[0]
            raise OutOfSpace(f"{filename}:{line}: SBUF is full even with each tile freed after its last use: tile "
                             f"{storage.name} needs {size} bytes per partition beside the tiles live with it")
        placed.append((born, end, offset, size))
        offsets[i] = offset
    return offsets


BY_SIZE_LIMIT = 4000  # tiles: beyond it the quadratic placement takes longer than a trace


def placement(spans, capacity):
    """First-fit in allocation order, else largest first (when there are not too many tiles)."""
    try:
        return place(spans, capacity)
    except OutOfSpace:
        if len(spans) > BY_SIZE_LIMIT:
            raise
        return place_by_size(spans, capacity)
