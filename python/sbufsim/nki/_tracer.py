"""The tracer: what one kernel's trace collects while it runs. Each NKI call becomes records on
its engine's queue (Record, in the text form of docs/trace-format.md); the hazards between
queues (read-after-write, write-after-read, write-after-write on the bytes of a slot or, for
tiles placed by liveness, of a page of SBUF) become semaphore waits, at most two per record, more
on a synchronisation record before it. It allocates the kernel's tensors (Allocator) and closes
PSUM accumulation groups. docs/nki.md describes the model."""

import gc
import itertools
import linecache
import sys
from math import prod

from . import _values
from ._allocator import PARTITIONS, PSUM_BANK_BYTES, Allocator, Slot
from ._dtypes import MX_DTYPES, MX_GENERATIONS, dtype_of
from ._errors import Clobbered, NkiError, fail, in_package, kernel_location, kernel_site
from ._view import Storage, View

DMA_QUEUES = 16
DMA_ENGINES = 16  # dma.engines; a transfer runs on the engines of its SBUF partitions' lanes
DMA_LANES_PER_ENGINE = 8  # dma.lanes_per_engine
NUM_SEMAPHORES = 256  # isa.num_semaphores, every generation (seed 004)
ENGINE_QUEUES = {"pe": "qPE0", "act": "qAct0", "pool": "qPool0", "dve": "qDve0"}
MAX_WAITS = 2
# Buffers an SBUF tile re-bound in an affine_range loop rotates over (the compiler's count is not
# published): 3, fixed by the trn2 tiled GEMM's profile; a PSUM loop tile keeps at most 2 of the
# 8 banks (docs/nki.md, "Operands and the allocator").
LOOP_BUFFERS = 3
PSUM_LOOP_BUFFERS = 2
HAZARD_PAGE = 4096  # bytes per partition of SBUF per hazard history, for tiles placed by liveness
# Reads of an HBM tensor nothing has written wait for nothing: their hazard notes are deferred to
# the tensor's first write, if any (Tracer.emit). False notes each at once (the plain tracing,
# which tests/python/test_nki_trace_fast_paths.py compares the traces with).
DEFER_UNWRITTEN_READS = True

# A directly allocated tensor's blocks are each placed when it is declared (Tracer._direct): a
# bound on their number keeps a hostile declaration from taking the tracer's time and memory.
MAX_DIRECT_BLOCKS = 1 << 16

_current = None  # the Tracer of the kernel being traced


def pause_collector():
    """Stops Python's cyclic garbage collector for one trace; returns whether it was running (for
    resume_collector). A trace makes millions of objects that live until it ends (its records,
    their views, the tiles' hazard histories), so every collection during it walks a growing heap
    and frees nothing: 12 % of the tracing time of the tiled fp32 GEMM [8192,4096] @ [8192,8192].
    What a trace leaves behind is collected once the collector runs again."""
    running = gc.isenabled()
    gc.disable()
    return running


def resume_collector(running):
    if running:
        gc.enable()


def collect_abandoned():
    """After a trace that trace() abandons to trace the kernel again (a tile clobbered, a memory
    full): its tiles and slots refer to each other, so only the collector frees them. A process
    that turned the collector off for good (`sbufsim nki` tracing one kernel) collects them here,
    once, rather than holding every abandoned trace's memory until it ends."""
    if not gc.isenabled():
        gc.collect()


def tracer():
    """The Tracer of the kernel being traced (NkiError outside one)."""
    if _current is None:
        raise NkiError("an NKI call outside sbufsim.nki.trace(): kernels run under `sbufsim nki` or trace()")
    return _current


class Record:
    """One line of the trace: its kind, queue and fields, the semaphores it waits for and the one
    it signals."""

    __slots__ = ("kind", "queue", "fields", "waits", "signal", "seq", "lane")  # one per record: small and quick

    def __init__(self, kind, queue, fields):
        self.kind, self.queue, self.fields = kind, queue, fields
        self.waits, self.signal, self.seq, self.lane = [], None, 0, queue

    def text(self):
        fields = "".join([f" {k}={v}" for k, v in self.fields.items() if v is not None])
        waits = "".join([f" wait={s}:{v}" for s, v in self.waits]) if self.waits else ""
        return f"{self.kind} queue={self.queue}{fields}{waits} signal={self.signal}"


def compute_fields(src, dst, partitions, fn, src2=None, isa=None):
    """The fields of an act/pool/dve record, in the canonical order of docs/trace-format.md.
    The one place compute records are formatted. `isa` names the nki.isa instruction, which
    picks the engine's per-instruction cost (docs/engines.md); synchronisation records have
    none."""
    return {"src": src, "src2": src2, "dst": dst, "partitions": partitions, "fn": fn, "isa": isa}


def _local_name(storage):
    """The kernel's variable holding the whole tile (`acc`), else its allocation label
    (t<n>_<line>)."""
    frame = sys._getframe(1)
    while frame is not None and in_package(frame.f_code.co_filename):
        frame = frame.f_back
    if frame is not None:
        for name, value in frame.f_locals.items():
            if isinstance(value, View) and value.storage is storage:
                return repr(name)
    return storage.name


# a shape as the kernel gives it (a tuple, a list, nl.par_dim marks) -> (its tuple of ints, the
# partition dimension): a tile allocated in a loop gives the same shape every iteration
_shapes = {}
_INT = {int}


def _shape(shape):
    # exactly ints: a ParDim equals its int, so a shape marking one would share the key
    key = shape if type(shape) is tuple and {*map(type, shape)} == _INT else None
    known = _shapes.get(key) if key is not None else None
    if known is not None:
        return known
    shape = tuple(shape)
    pdim = next((d for d, n in enumerate(shape) if type(n).__name__ == "ParDim"), 0)
    shape = tuple(int(n) for n in shape)
    if not shape or any(n <= 0 for n in shape):
        raise fail(f"shape {shape}: every dimension must be positive")
    if key is not None:
        _shapes[key] = shape, pdim
    return shape, pdim


_dma_engines = {}  # (first partition, end partition) -> the DMA engines of their lanes, "0,1,...,15"


def lane(kind, queue, fields, reads, writes):
    """The records of a queue that complete in program order (docs/trace-format.md, "Completion
    order"), named: a queue's ldweights; its matmuls on one PE tile (transposes apart); a compute
    engine's instructions writing one memory; a DMA queue's transfers on one set of DMA engines.
    Each lane has a semaphore, so its n-th signal is its n-th record."""
    if kind == "ldweights":
        return queue + ":ldweights"
    if kind == "matmul":
        tile = fields.get("tile_position")
        return (queue + ":matmul" + (f"@{tile}/{fields.get('tile_size')}" if tile else "") +
                (":transpose" if fields.get("transpose") else ""))
    written = next((view for view in writes if view.on_chip), None)
    if kind == "dma":
        side = written or next((view for view in reads if view.on_chip), None)
        if fields.get("engine") is not None or side is None:
            return queue + ":engine"  # one engine: the one written, or the queue's
        p0, p1 = side.footprint()[:2]
        engines = _dma_engines.get((p0, p1))
        if engines is None:
            lanes = range(p0 // DMA_LANES_PER_ENGINE, (max(p1, p0 + 1) - 1) // DMA_LANES_PER_ENGINE + 1)
            engines = _dma_engines[(p0, p1)] = ",".join(str(e) for e in sorted({n % DMA_ENGINES for n in lanes}))
        return queue + ":engines" + engines
    return queue + ":" + (written.storage.buffer if written is not None else "none")


class Tracer:
    """Collects the records of one kernel. Every record signals its lane's semaphore when it
    completes (lane(): records of one queue that complete in program order; semaphores numbered in
    order of first use, so a value counts the lane's finished records); a record that depends on
    another queue's record waits for that record's lane to reach its place there."""

    def __init__(self, generation, single=frozenset(), extra=None, caps=None, placement=None, measure=False,
                 loop_buffers=LOOP_BUFFERS, reserved=()):
        self.generation = generation
        self.loop_buffers = loop_buffers
        self.alloc = Allocator(generation, single, extra, caps, placement, measure, reserved)
        self.pages = {}  # SBUF page -> its hazard history (tiles placed by liveness)
        self.tiles = {"sbuf": [], "psum": []}  # every on-chip tile in allocation order (liveness.py)
        self.unwritten = []  # ops that must be traced though nothing used them yet (must_write)
        self.records = []
        self.queue_sem = {}
        self.queue_count = {}
        self.waited = {}  # (queue, other lane) -> value already waited for
        self.next_dma = 0
        self.loop_kinds = []  # the kinds of the enclosing range loops
        # Per enclosing range loop, the serial number of its current iteration (of all loops'
        # iterations so far, `iterations`): NKI traces an affine_range or sequential_range body
        # once, so a direct allocation in it is placed once, whatever Python state (a running
        # address) the body changes as it runs again here. direct_places: (allocation, its
        # ordinal in the iteration) -> where its blocks are; direct_ordinals: allocation -> (the
        # iteration it was last made in, its ordinal there).
        self.loop_serials, self.iterations = [], 0
        self.force_auto = False  # under nki.compiler.force_auto_alloc: direct allocations ignored
        self.direct_places, self.direct_ordinals = {}, {}
        # (file, line) -> [tensor name, blocks, writes that waited, {their kernel lines}] of the
        # direct tensors whose blocks all share one place (shared_block_notes)
        self.shared_blocks = {}
        self.loop_indices = []  # their [name, iteration] (outermost first): records' loc= indices
        self.flops = 0
        self.hbm_bytes = 0
        self.names = {}
        self.identity = None
        # PSUM slot -> {region written (the dst operand): the last matmul record accumulating
        # into it}. Matmuls into two halves of one tile (two banks) are two groups.
        self.psum_groups = {}
        self.values = False  # numerical values (_values.py): every tensor holds a numpy array
        self.empty_loops = {}  # (file, line) of a range loop that ran zero times -> its call
        self.unwritten_reads = {}  # (file, line) reading an on-chip tile nothing wrote -> what

    def note_empty_loop(self, call, args):
        site = kernel_site()
        self.empty_loops.setdefault(site, f"nl.{call}({', '.join(repr(a) for a in args)})")

    def _note_unwritten_read(self, storage):
        # An on-chip tile read before anything wrote it holds whatever its buffer held: a kernel
        # bug (a matmul loop that ran zero times, a copy out of the wrong tile) the trace hides.
        site = kernel_site()
        where = "PSUM" if storage.buffer == "psum" else "SBUF"
        self.unwritten_reads.setdefault(site, f"reads {where} tile {_local_name(storage)} before anything wrote it "
                                              "(its values are undefined)")

    def unwritten_read_notes(self):
        """One line per kernel line that read an on-chip tile nothing had written."""
        return [f"{filename}:{line}: {what}" for (filename, line), what in self.unwritten_reads.items()]

    def shared_block_notes(self):
        """One line per directly allocated tensor whose blocks all share one place and whose writes
        waited for that: the blocks cannot overlap, and the lever is a second place."""
        notes = []
        for (filename, line), (name, blocks, waited, lines) in self.shared_blocks.items():
            if waited:
                at = ("lines " if len(lines) > 1 else "line ") + ", ".join(str(n) for n in lines)
                notes.append(f"{filename}:{line}: the {blocks} blocks of tile {name} share one place (direct "
                             f"allocation), so {waited} writes into it ({at}) wait for another block's use of the "
                             f"same bytes to end; what that costs is the semaphore wait of {at} (--details), and "
                             "two places (num_free_tiles=(2,)) would remove those waits")
        return notes

    def empty_loop_notes(self):
        """One line per range loop that ran zero times: its file:line, the call, the source line."""
        notes = []
        for (filename, line), call in self.empty_loops.items():
            source = linecache.getline(filename, line).strip()
            notes.append(f"{filename}:{line}: {call} runs zero times" + (f" ({source})" if source else ""))
        return notes

    # --- allocation -------------------------------------------------------------------------
    def rotation(self, buffer="sbuf"):
        if not (self.loop_kinds and self.loop_kinds[-1] == "affine"):
            return 1
        return self.loop_buffers if buffer == "sbuf" else min(self.loop_buffers, PSUM_LOOP_BUFFERS)

    def new_tensor(self, shape, dtype, buffer, name=None, site=None):
        if self.unwritten:  # in program order: an earlier op's tile before this one's
            self.flush()
        # nki.compiler's direct allocation, unless the kernel is under force_auto_alloc
        direct = buffer if hasattr(buffer, "place") and not self.force_auto else None
        buffer = str(buffer)
        dtype = dtype_of(dtype)
        if dtype.name in MX_DTYPES and self.generation not in MX_GENERATIONS:
            raise fail(f"{dtype.name} is an MX quad type of NeuronCore-v4; {self.generation} has none (trace with "
                       "--gen mariana)")
        shape, pdim = _shape(shape)
        site = site or kernel_site()
        label = name or f"t{len(self.names)}_{site[1]}"
        self.names[label] = True
        storage = Storage(label, shape, dtype, buffer, pdim)
        if self.values:
            storage.values = _values.np.zeros(shape, _values.storage_dtype(dtype))
        if buffer in ("sbuf", "psum"):
            if shape[pdim] > PARTITIONS:
                raise fail(f"tile {label} {shape}: partition dimension {shape[pdim]} is over {PARTITIONS}; "
                           "split it or mark another dimension with nl.par_dim")
            key = (site, shape, dtype.name, buffer)
            if direct is not None:
                return self._direct(storage, direct, key)
            storage.slot = self.alloc.slot(key, buffer, storage.bytes_per_partition, self.rotation(buffer),
                                           blocks=storage.psum_blocks)
            if storage.psum_blocks:
                storage.banks = storage.slot.size // PSUM_BANK_BYTES
            storage.key = key
            storage.slot.owner = storage
            storage.born = storage.last_use = len(self.records)
            self.tiles[buffer].append(storage)
        else:
            storage.slot = Slot("hbm", 0, 0)
        return View(storage)

    def _direct(self, storage, placement, key):
        """A directly allocated tensor: each block where `placement` puts it (its own slot, its
        hazards per page of the memory, as tiles placed by liveness); the allocator keeps its own
        placements clear of these bytes (Allocator.direct)."""
        memory, pdim, shape = storage.buffer, storage.pdim, storage.shape
        partitions, size = shape[pdim], prod(shape[pdim + 1:]) * storage.dtype.size
        blocks = prod(shape[:pdim])
        if blocks > MAX_DIRECT_BLOCKS:
            raise fail(f"tile {storage.name} {shape}: {blocks} blocks, each placed on its own; sbufsim places at most "
                       f"{MAX_DIRECT_BLOCKS} blocks of a directly allocated tensor (declare fewer blocks: a kernel "
                       "indexes each one it uses)")
        memo = self._direct_memo(key)
        table = self.direct_places.get(memo)
        if table is None:
            table = [self._block(placement, index, partitions, size, storage)
                     for index in itertools.product(*[range(n) for n in shape[:pdim]])]
            self.alloc.direct(memory, [(p, p + partitions, byte, byte + size) for p, byte in table])
            if memo is not None:
                self.direct_places[memo] = table
        storage.slot = Slot(memory, 0, 0)
        storage.slot.placed = True
        if pdim == 0:  # one tile: its slot is where it is (a reshape's alias shares it)
            storage.slot.partition, storage.slot.offset = table[0]
        else:
            storage.direct = table
            if len(table) > 1 and len(set(table)) == 1:  # [name, blocks, writes that waited, their lines]
                storage.shared = self.shared_blocks.setdefault(key[0], [storage.name, len(table), 0, {}])
        storage.key = key
        storage.slot.owner = storage
        storage.born = storage.last_use = len(self.records)
        return View(storage)

    def _direct_memo(self, key):
        """The allocation's key in direct_places: its site and its ordinal among the site's
        allocations in the current iteration of the innermost affine or sequential loop; None
        outside such loops (the kernel's Python runs once there, in NKI as here)."""
        for kind, serial in zip(reversed(self.loop_kinds), reversed(self.loop_serials)):
            if kind != "static":
                # a site's innermost such loop is always the same one, its serials increasing
                last, count = self.direct_ordinals.get(key, (None, 0))
                count = count + 1 if last == serial else 0
                self.direct_ordinals[key] = (serial, count)
                return key, count
        return None

    def _block(self, placement, index, partitions, size, storage):
        """(partition, byte offset in the memory) of one block of a directly allocated tensor,
        checked against the memory's bounds."""
        p, byte, bank = placement.place(index, partitions, size, storage.shape[:storage.pdim])
        where = f"tile {storage.name} block {index}" if index else f"tile {storage.name}"
        if storage.buffer == "psum":
            if bank >= self.alloc.psum_banks or byte + size > PSUM_BANK_BYTES:
                raise fail(f"{where}: PSUM bank {bank} byte {byte} with {size} bytes per partition is outside the "
                           f"{self.alloc.psum_banks} banks of {PSUM_BANK_BYTES} bytes; a PSUM tile stays in one bank")
            byte += bank * PSUM_BANK_BYTES
        elif byte + size > self.alloc.sbuf_size:
            raise fail(f"{where}: SBUF bytes {byte}..{byte + size} of each partition pass the {self.alloc.sbuf_size} "
                       f"a partition has on {self.generation}")
        if p + partitions > PARTITIONS:
            raise fail(f"{where}: partitions {p}..{p + partitions} pass the {PARTITIONS} of the memory")
        if byte % storage.dtype.size:
            raise fail(f"{where}: byte offset {byte} is not a whole number of {storage.dtype.name} elements")
        return p, byte

    # --- records ----------------------------------------------------------------------------
    def dma_queue(self):
        queue = f"qSyncIO{self.next_dma % DMA_QUEUES}"
        self.next_dma += 1
        return queue

    def must_write(self, pending):
        """An op whose record must be traced even if its result is never used (it also writes a
        reduce_res tile): written by the next record's emit, or at the kernel's end, unless it is
        assigned into a tile first (`t[...] = nisa.activation(..., reduce_res=r)`: no copy)."""
        self.unwritten.append(pending)

    def flush(self):
        while self.unwritten:
            self.unwritten.pop(0).materialise()

    def emit(self, kind, queue, fields, reads=(), writes=()):
        """Append a record reading and writing the given views; returns it."""
        if self.unwritten:
            self.flush()
        fields["loc"] = kernel_location(self.loop_indices)  # kernel line, call, loops (docs/trace-format.md)
        for view in (*reads, *writes):
            slot = view.storage.slot
            if slot.owner is not None and slot.owner is not view.storage.root and slot.region != "hbm":
                self._clobbered(view)
        for view in reads:
            if not view.storage.written and view.storage.buffer != "hbm":
                self._note_unwritten_read(view.storage)
        record = Record(kind, queue, fields)
        record.lane = lane(kind, queue, fields, reads, writes)
        # each view's hazard domains, found once for both the hazards and their notes; none for a
        # read of an HBM tensor nothing has written (an input): it waits for nothing, and is noted
        # when something first writes the tensor (_domains), if ever
        on_chip_writes = DEFER_UNWRITTEN_READS and all([view.on_chip for view in writes])
        read_domains = [None if on_chip_writes and self._unwritten_hbm(view) else self._domains(view)
                        for view in reads]
        write_domains = [self._domains(view) for view in writes]
        deps = {}
        hazards = self._hazards
        for domains in read_domains:
            if domains is not None:
                hazards(domains, queue, deps, False)
        for view, domains in zip(writes, write_domains):
            shared = view.storage.root.shared
            if shared is not None:  # a direct tensor whose blocks share bytes: does this write wait?
                waited = {}
                hazards(domains, queue, waited, True)
                if waited:
                    if shared[2] == 0:
                        shared[0] = _local_name(view.storage.root).strip("'")
                    shared[2] += 1
                    shared[3].setdefault(kernel_site()[1], True)
            hazards(domains, queue, deps, True)
        if deps:
            self._waits(record, deps)
        self._append(record)
        for view, domains in zip(reads, read_domains):
            if domains is None:
                view.storage.root.last_use = len(self.records)
                slot = view.storage.hbm_slot
                if slot.deferred:
                    slot.deferred.append((view, record))
                else:
                    slot.deferred = [(view, record)]
            else:
                self._note(view, domains, record, write=False)
        for view, domains in zip(writes, write_domains):
            self._note(view, domains, record, write=True)
        return record

    def _unwritten_hbm(self, view):
        return not view.on_chip and not self._hbm_slot(view).writes

    def _note_deferred(self, slot):
        """The reads of an HBM tensor deferred until its first write, noted in their order, as
        _note would have noted each."""
        deferred, slot.deferred = slot.deferred, ()
        for view, record in deferred:
            for _, (p0, p1, lo, hi) in self._domains(view):
                key = (p0, p1, lo, hi, record.queue)
                slot.reads.pop(key, None)
                slot.reads[key] = (p0, p1, lo, hi, record)

    def _clobbered(self, view):
        """A tile whose buffer a newer tile of its site has taken is still in use (emit checks
        it): its site needs another buffer (Clobbered; trace() traces again with it)."""
        storage = view.storage
        error = Clobbered(f"tile {storage.name}: a newer tile of its line took its buffer while it was in use")
        error.key, error.buffers = storage.key, self.alloc.buffers(storage.key)
        error.needed = self._tiles_since(storage.root)
        raise error

    def _tiles_since(self, root):
        """The tiles of root's site allocated since root, root included: each of them may still be
        in use (root is), so the site needs at least that many buffers. Any fewer clobbers root at
        this same use, since the site's n-th tile takes buffer n modulo their number, so trace()
        asks for them all at once instead of one more per trace."""
        count = 1
        for tile in reversed(self.tiles[root.buffer]):
            if tile is root:
                return count
            if tile.key == root.key:
                count += 1
        return count

    def _append(self, record):
        key = record.lane
        if key not in self.queue_sem:
            if len(self.queue_sem) >= NUM_SEMAPHORES:
                raise fail(f"the kernel's records need more than {NUM_SEMAPHORES} semaphores (one per queue and "
                           "set of records that complete in order: docs/nki.md, Semaphores)")
            self.queue_sem[key] = len(self.queue_sem)
        record.signal = self.queue_sem[key]
        self.queue_count[key] = self.queue_count.get(key, 0) + 1
        record.seq = self.queue_count[key]
        self.records.append(record)

    def _domains(self, view):
        """(hazard history, footprint) pairs of a view: its slot's own history, or, for tiles placed
        by liveness (tiles of different lines sharing bytes), the 4 KiB pages of SBUF it covers,
        with the footprint in absolute bytes. An HBM tensor's history is in rows and bytes of a
        row (View.hbm_rects)."""
        slot = view.storage.slot
        if slot.region == "hbm":
            slot = self._hbm_slot(view)
            if slot.deferred:
                self._note_deferred(slot)
            return [(slot, rect) for rect in view.hbm_rects()]
        p0, p1, lo, hi = footprint = view.footprint()
        if not slot.placed:
            return ((slot, footprint),)
        lo, hi = lo + slot.offset, hi + slot.offset
        size = HAZARD_PAGE if slot.region == "sbuf" else PSUM_BANK_BYTES
        return [(self.pages.setdefault((slot.region, page), Slot(slot.region, page * size, size)), (p0, p1, lo, hi))
                for page in range(lo // size, (hi - 1) // size + 1)]

    @staticmethod
    def _hazards(domains, queue, deps, write):
        """Into deps ({lane: seq}): the newest record of each lane of another queue whose bytes meet
        these domains' (writes and, for a write, reads too)."""
        for slot, (p0, p1, lo, hi) in domains:
            for entries in (slot.writes, slot.reads.values()) if write else (slot.writes,):
                for q0, q1, a, b, other in entries:
                    if q0 < p1 and p0 < q1 and a < hi and lo < b:
                        if other.queue != queue and deps.get(other.lane, 0) < other.seq:
                            deps[other.lane] = other.seq

    def _hbm_slot(self, view):
        storage = view.storage
        if storage.hbm_slot is None:
            storage.hbm_slot = Slot("hbm", 0, 0)
        return storage.hbm_slot

    def _note(self, view, domains, record, write):
        view.storage.root.last_use = len(self.records)
        if write:
            view.storage.written = True
        for slot, (p0, p1, lo, hi) in domains:
            if write:  # what this write covers no later access needs to wait for
                writes = [e for e in slot.writes if not (p0 <= e[0] and e[1] <= p1 and lo <= e[2] and e[3] <= hi)]
                if slot.reads:
                    slot.reads = {k: e for k, e in slot.reads.items()
                                  if not (p0 <= e[0] and e[1] <= p1 and lo <= e[2] and e[3] <= hi)}
                writes.append((p0, p1, lo, hi, record))
                slot.writes = writes
            else:
                # The newest read of each footprint and queue is all a later write must wait for.
                key = (p0, p1, lo, hi, record.queue)
                slot.reads.pop(key, None)
                slot.reads[key] = (p0, p1, lo, hi, record)

    def _waits(self, record, deps):
        needed = []
        for other, seq in sorted(deps.items()):
            if self.waited.get((record.queue, other), 0) >= seq:
                continue  # an earlier record of this queue (they start in order) already waited for it
            needed.append((other, seq))
        while len(needed) > MAX_WAITS:
            extra, needed = needed[:MAX_WAITS], needed[MAX_WAITS:]
            self._sync(record.queue, extra)
        for other, seq in needed:
            self.waited[(record.queue, other)] = seq
            record.waits.append((self.queue_sem[other], seq))

    def _sync(self, queue, waits):
        """A record carries at most two waits: more go on a minimal record of the same queue
        just before it (a one-element copy inside the scratch bytes of partition 0), fn=sync.
        Each queue's copies use two bytes of their own, so those of two queues never touch the
        same bytes (what `sbufsim check` would report as a race): DMA queue n bytes 2n, the
        engines from byte 2 * DMA_QUEUES on."""
        if queue.startswith("qSyncIO"):
            slot = int(queue[len("qSyncIO"):])
        else:
            slot = DMA_QUEUES + list(ENGINE_QUEUES.values()).index(queue)
        scratch = f"bf16@0x{self.alloc.address(self.alloc.scratch, 0, 2 * slot):x}[1][1]"
        if queue.startswith("qSyncIO"):
            sync = Record("dma", queue, {"src": scratch, "dst": scratch, "partitions": 1, "bytes": 2})
        elif queue == ENGINE_QUEUES["pe"]:  # reads only
            sync = Record("ldweights", queue, {"src": f"fp32@0x{self.alloc.address(self.alloc.scratch, 0, 0):x}[1][1]",
                                               "rows": 1, "cols": 1})
        else:
            kind = next(k for k, q in ENGINE_QUEUES.items() if q == queue)
            sync = Record(kind, queue, compute_fields(scratch, scratch, 1, "sync"))
        sync.fields["loc"] = kernel_location(self.loop_indices)  # the kernel call whose record it orders
        # its lane, as lane() names it: partition 0's DMA engine, the ldweights, an SBUF write
        sync.lane = queue + (":engines0" if queue.startswith("qSyncIO") else
                             ":ldweights" if queue == ENGINE_QUEUES["pe"] else ":sbuf")
        for other, seq in waits:
            self.waited[(queue, other)] = seq
            sync.waits.append((self.queue_sem[other], seq))
        self._append(sync)

    def close_psum(self, view, region=None):
        """A PSUM tile is read: each accumulation group in it ends with the last matmul into it
        (`region`: only the group of that region, which a non-accumulating matmul restarts)."""
        groups = self.psum_groups.get(id(view.storage.slot), {})
        for key in [region] if region is not None else list(groups):
            last = groups.pop(key, None)
            if last is not None:
                flags = last.fields["acc_flags"]
                last.fields["acc_flags"] = "single" if flags == "begin" else "end"
        if not groups:
            self.psum_groups.pop(id(view.storage.slot), None)

    def text(self, records=None):
        """The trace: its header and `records` (the records' lines, when the caller has them)."""
        if records is None:
            records = [r.text() for r in self.records]
        lines = [f"sbufsim-trace 1 gen={self.generation}",
                 f"# nki flops={self.flops} hbm_bytes={self.hbm_bytes} records={len(self.records)}"]
        return "\n".join(lines + records) + "\n"
