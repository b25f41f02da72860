"""Records and operations: the tracer that turns each NKI call into trace records on its engine's
queue, with semaphores from the hazards between queues (docs/nki.md)."""

import linecache
import sys

from . import _values
from ._grid import TileGrid
from ._tracer import (MX_DTYPES, Allocator, Clobbered, NkiError, Slot, Storage, View, _deferred_sites,
                      dtype_of, fail, in_package, kernel_site, PARTITIONS, PSUM_BANK_BYTES)

DMA_QUEUES = 16
ENGINE_QUEUES = {"pe": "qPE0", "act": "qAct0", "pool": "qPool0", "dve": "qDve0"}
MAX_WAITS = 2
MOVING_FMAX = 512
QUADRANT = 32  # partitions per SBUF quadrant (seed 000 §2.2: two SBUF sources start in one)
FILL_SOURCE = 48  # scratch byte offset read by fills of PSUM tiles (16-byte aligned, never written)
HAZARD_PAGE = 4096  # bytes per partition of SBUF per hazard history, for tiles placed by liveness
# generations whose PE transposes write PSUM in the data's dtype (configs: pe.transpose_passthrough,
# NeuronCore-v3's transpose mode); elsewhere a transpose is an fp32 matmul against an identity
TRANSPOSE_PASSTHROUGH = {"cayman", "mariana"}
# generations with MXFP8/MXFP4 matmuls (nki.isa nc_matmul_mx: NeuronCore-v4 and newer; configs pe.mx)
MX_GENERATIONS = {"mariana"}
STATIONARY_FMAX = 128

_current = None  # the Tracer of the kernel being traced


def tracer():
    if _current is None:
        raise NkiError("an NKI call outside sbufsim.nki.trace(): kernels run under `sbufsim nki` or trace()")
    return _current


class Record:
    __slots__ = ("kind", "queue", "fields", "waits", "signal", "seq")  # one per record: kept small and quick

    def __init__(self, kind, queue, fields):
        self.kind, self.queue, self.fields = kind, queue, fields
        self.waits, self.signal, self.seq = [], None, 0

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


def _shape(shape):
    key = shape if type(shape) is tuple and all(type(n) is int for n in shape) else None
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


class Tracer:
    """Collects the records of one kernel. Every record signals its queue's semaphore when it
    completes (semaphore = queue index, so its value counts the queue's finished records); a
    record that depends on another queue's n-th record waits for that semaphore to reach n."""

    def __init__(self, generation, single=frozenset(), extra=None, caps=None, placement=None, measure=False):
        self.generation = generation
        self.alloc = Allocator(generation, single, extra, caps, placement, measure)
        self.pages = {}  # SBUF page -> its hazard history (tiles placed by liveness)
        self.tiles = {"sbuf": [], "psum": []}  # every on-chip tile in allocation order (liveness.py)
        self.unwritten = []  # ops that must be traced though nothing used them yet (must_write)
        self.records = []
        self.queue_sem = {}
        self.queue_count = {}
        self.waited = {}  # (queue, other queue) -> value already waited for
        self.next_dma = 0
        self.loop_kinds = []  # the kinds of the enclosing range loops
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

    def empty_loop_notes(self):
        """One line per range loop that ran zero times: its file:line, the call, the source line."""
        notes = []
        for (filename, line), call in self.empty_loops.items():
            source = linecache.getline(filename, line).strip()
            notes.append(f"{filename}:{line}: {call} runs zero times" + (f" ({source})" if source else ""))
        return notes

    # --- allocation -------------------------------------------------------------------------
    def rotation(self):
        return 2 if self.loop_kinds and self.loop_kinds[-1] == "affine" else 1

    def new_tensor(self, shape, dtype, buffer, name=None, site=None):
        if self.unwritten:  # in program order: an earlier op's tile before this one's
            self.flush()
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
            storage.slot = self.alloc.slot(key, buffer, storage.bytes_per_partition, self.rotation(),
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
        for view in (*reads, *writes):
            slot = view.storage.slot
            if slot.owner is not None and slot.owner is not view.storage.root and slot.region != "hbm":
                self._clobbered(view)
        for view in reads:
            if not view.storage.written and view.storage.buffer != "hbm":
                self._note_unwritten_read(view.storage)
        record = Record(kind, queue, fields)
        # each view's hazard domains, found once for both the hazards and their notes
        read_domains = [self._domains(view) for view in reads]
        write_domains = [self._domains(view) for view in writes]
        deps = {}
        hazards = self._hazards
        for domains in read_domains:
            hazards(domains, queue, deps, False)
        for domains in write_domains:
            hazards(domains, queue, deps, True)
        if deps:
            self._waits(record, deps)
        self._append(record)
        for view, domains in zip(reads, read_domains):
            self._note(view, domains, record, write=False)
        for view, domains in zip(writes, write_domains):
            self._note(view, domains, record, write=True)
        return record

    def _clobbered(self, view):
        """A tile whose buffer a newer tile of its site has taken is still in use (emit checks
        it): its site needs another buffer (Clobbered; trace() traces again with it)."""
        storage = view.storage
        error = Clobbered(f"tile {storage.name}: a newer tile of its line took its buffer while it was in use")
        error.key, error.buffers = storage.key, self.alloc.buffers(storage.key)
        raise error

    def _append(self, record):
        queue = record.queue
        if queue not in self.queue_sem:
            self.queue_sem[queue] = len(self.queue_sem)
        record.signal = self.queue_sem[queue]
        self.queue_count[queue] = self.queue_count.get(queue, 0) + 1
        record.seq = self.queue_count[queue]
        self.records.append(record)

    def _domains(self, view):
        """(hazard history, footprint) pairs of a view: its slot's own history, or, for tiles placed
        by liveness (tiles of different lines sharing bytes), the 4 KiB pages of SBUF it covers,
        with the footprint in absolute bytes."""
        slot = view.storage.slot
        if slot.region == "hbm":
            slot = self._hbm_slot(view)
        p0, p1, lo, hi = footprint = view.footprint()
        if not slot.placed:
            return ((slot, footprint),)
        lo, hi = lo + slot.offset, hi + slot.offset
        size = HAZARD_PAGE if slot.region == "sbuf" else PSUM_BANK_BYTES
        return [(self.pages.setdefault((slot.region, page), Slot(slot.region, page * size, size)), (p0, p1, lo, hi))
                for page in range(lo // size, (hi - 1) // size + 1)]

    @staticmethod
    def _hazards(domains, queue, deps, write):
        """Into deps ({queue: seq}): the newest record of each other queue whose bytes meet these
        domains' (writes and, for a write, reads too)."""
        for slot, (p0, p1, lo, hi) in domains:
            for entries in (slot.writes, slot.reads.values()) if write else (slot.writes,):
                for q0, q1, a, b, other in entries:
                    if q0 < p1 and p0 < q1 and a < hi and lo < b:
                        other_queue = other.queue
                        if other_queue != queue and deps.get(other_queue, 0) < other.seq:
                            deps[other_queue] = other.seq

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
        for queue, seq in sorted(deps.items()):
            if self.waited.get((record.queue, queue), 0) >= seq:
                continue  # an earlier record of this in-order queue already waited for it
            needed.append((queue, seq))
        while len(needed) > MAX_WAITS:
            extra, needed = needed[:MAX_WAITS], needed[MAX_WAITS:]
            self._sync(record.queue, extra)
        for queue, seq in needed:
            self.waited[(record.queue, queue)] = seq
            record.waits.append((self.queue_sem[queue], seq))

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


# ---------------------------------------------------------------------------------------------
# pending values: an op whose destination is not known yet (t[...] = nl.load(...))

class Pending:
    """The result of an op before it has a destination: assigned into a tile it writes there,
    used any other way it is written to a new tile of its own allocation site."""

    def __init__(self, shape, dtype, buffer, write, site):
        self.shape, self.dtype, self.buffer, self.write, self.site = shape, dtype, buffer, write, site
        self.view = None

    def materialise(self, dst=None):
        if self.view is not None:
            if dst is not None:
                copy(dst, self.view)
            return self.view
        t = tracer()
        if self in t.unwritten:
            t.unwritten.remove(self)
        if dst is None:
            dst = t.new_tensor(self.shape, self.dtype, self.buffer, site=self.site)
        _deferred_sites.append(self.site)
        try:
            self.write(dst)
        finally:
            _deferred_sites.pop()
        self.view = dst
        return dst

    def __getattr__(self, name):  # .shape/.dtype are set; anything else is the tile's
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.materialise(), name)

    def __getitem__(self, key):
        return self.materialise()[key]

    def __setitem__(self, key, val):
        self.materialise()[key] = val

    def __radd__(self, other):
        return elementwise("add", other, self)

    def __rsub__(self, other):
        return elementwise("subtract", other, self)

    def __rmul__(self, other):
        return elementwise("multiply", other, self)

    def __rtruediv__(self, other):
        return elementwise("divide", other, self)

    def __neg__(self):
        return elementwise("multiply", self, -1)

    def __iadd__(self, other):
        view = self.materialise()
        view += other
        return view

    def __add__(self, other):
        return elementwise("add", self, other)

    def __sub__(self, other):
        return elementwise("subtract", self, other)

    def __mul__(self, other):
        return elementwise("multiply", self, other)

    def __truediv__(self, other):
        return elementwise("divide", self, other)


def value(x):
    """A tile operand: a View, a Pending made concrete, or a tile grid's selection."""
    if isinstance(x, Pending):
        return x.materialise()
    if isinstance(x, View):
        return x
    if isinstance(x, TileGrid):
        return x.data
    raise fail(f"{x!r} is not a tile")


def check_on_chip(view, what, any_layout=False):
    """An engine operand is on chip with its partition dimension first (element i of every
    partition of the sources meets element i of the destination's); a fill (any_layout) covers
    the whole tile whatever its layout."""
    if not view.on_chip:
        raise fail(f"{what}: operand {view.storage.name} is in HBM; load it into SBUF first (nl.load)")
    if any_layout or view._explicit:  # an .ap() view names its partitions explicitly
        return
    kept = [d for d, dim in enumerate(view.dims) if dim[3]]
    pdim = view.storage.pdim
    if view.dims[pdim][3] and kept[0] != pdim:
        raise fail(f"{what}: the partition dimension of {view.storage.name} must be the tile's first dimension")


# ---------------------------------------------------------------------------------------------
# the operations

def assign(target, val):
    if isinstance(val, Pending):
        val.materialise(target)
    elif isinstance(val, View):
        copy(target, val)
    elif isinstance(val, (int, float)):
        memset(target, val)
    else:
        raise fail(f"cannot assign {val!r} to a tile")


def accumulate(target, other):
    """t += x: a matmul accumulating into its PSUM tile, else an add in place on VectorE."""
    if target.buffer == "psum" and isinstance(other, MatmulPending):
        other.accumulate_into(target)
    else:
        elementwise("add", target, other, dst=target)


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
    if not inside:
        cut.overhang = view.overhang
    return cut


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
        t.hbm_bytes += elements * (dst if dst.on_chip else src).dtype.size
    fields = {"src": src.operand(t.alloc), "dst": dst.operand(t.alloc),
              "partitions": on_chip.partitions, "bytes": on_chip.bytes_per_partition, **(trigger or {})}
    rmw = fields.get("dst_rmw_op") == "add"  # dst = dst + src: it reads dst too
    if t.values:
        old = _values.get(dst)
        _values.put(dst, old + _values.get(src).reshape(old.shape) if rmw else _values.get(src))
    return t.emit("dma", t.dma_queue(), fields, reads=[src, dst] if rmw else [src], writes=[dst])


XPOSE_TILE_ROWS = 16  # the axi2sram crossbar tile (seed 000 §6.2)


def dma_transpose(dst, src, trigger=None):
    """One transposing DMA through the axi2sram crossbar: src [R, C] (HBM or SBUF, 2-byte) lands
    as dst [C, R] in SBUF; R is whole 16-row tiles, C at most 128 columns (docs/trace-format.md)."""
    t = tracer()
    if not dst.on_chip or dst.buffer != "sbuf":
        raise fail("dma_transpose writes SBUF through the DMA crossbar; allocate dst with buffer=nl.sbuf")
    if len(src.shape) != 2 or len(dst.shape) != 2:
        raise fail(f"dma_transpose of {src.shape} into {dst.shape}: only the 2-D transpose (axes (1, 0)) is modelled")
    rows, cols = src.shape
    if dst.shape != (cols, rows):
        raise fail(f"dma_transpose of {src.shape} into {dst.shape}: the destination is the transpose, {(cols, rows)}")
    if src.dtype.size != 2 or dst.dtype is not src.dtype:
        raise fail(f"dma_transpose moves 2-byte data (nki.isa dma_transpose); src is {src.dtype.name}, dst "
                   f"{dst.dtype.name}")
    if rows % XPOSE_TILE_ROWS:
        raise fail(f"dma_transpose of {rows} source rows: the crossbar moves whole {XPOSE_TILE_ROWS}-row tiles "
                   "(nki.isa dma_transpose: src.shape[0] divisible by 16)")
    if cols > PARTITIONS:
        raise fail(f"dma_transpose of {cols} source columns: at most {PARTITIONS} (one per destination partition)")
    if src.on_chip:
        check_on_chip(src, "dma_transpose source")
    else:
        t.hbm_bytes += src.elements * src.dtype.size
    fields = {"src": src.operand(t.alloc), "dst": dst.operand(t.alloc), "partitions": rows,
              "bytes": cols * src.dtype.size, "transpose": 1, **(trigger or {})}
    if t.values:
        _values.put(dst, _values.get(src).T)
    return t.emit("dma", t.dma_queue(), fields, reads=[src], writes=[dst])


def transposed_load(src, site=None):
    """The transpose of a 2-D tile through a DMA, written wherever it is assigned."""
    src = value(src)
    if len(src.shape) != 2:
        raise fail(f"a DMA transpose of {src.shape}: only 2-D tiles")
    return Pending(src.shape[::-1], src.dtype, "sbuf", lambda dst: dma_transpose(dst, src), site or kernel_site())


def load(src, dtype=None, mask=None):
    src = value(src)
    site = kernel_site()
    if src.on_chip:
        raise fail("nl.load reads HBM; this tensor is already on chip")
    dims = [dim for dim in src.dims if dim[3]]
    if not dims or dims[0][2] > PARTITIONS:
        raise fail(f"nl.load of {src.shape}: the first dimension becomes the partitions and must be 1..{PARTITIONS}")
    return Pending(src.shape, dtype or src.dtype, "sbuf", lambda dst: dma(dst, src, mask=mask), site)


def store(dst, val, mask=None):
    dst = value(dst) if not isinstance(dst, View) else dst
    src = value(val)
    if dst.on_chip:
        raise fail("nl.store writes HBM; use a copy between on-chip tiles")
    return dma(dst, src, mask=mask)


class MatmulPending(Pending):
    """A matmul (or PE transpose) waiting for its PSUM destination: `acc += ...` accumulates."""

    def __init__(self, stationary, moving, site, transpose=False, perf_opt=None, tile=None, onezero=False,
                 scales=None, dtype=None):
        self.perf_opt, self.tile, self.onezero = perf_opt, tile, onezero
        self.scales = scales  # MX: (stationary scale, moving scale) tiles
        self.rows_per_pe = 1
        if perf_opt == "double_row" and len(stationary.shape) == 3 and len(moving.shape) == 3:
            # [K, 2, M] and [K, 2, N]: two FP8 rows packed per PE row (a contraction of 2K in one pass;
            # the moving operand's 2N elements stream as N columns, docs/engines.md)
            if stationary.shape[1] != 2 or moving.shape[1] != 2:
                raise fail(f"a double-row matmul of {stationary.shape} and {moving.shape}: the middle dimension "
                           "pairs the two rows of each PE row, so it is 2")
            self.rows_per_pe = 2
            stationary_2d, moving_2d = (stationary.shape[0], stationary.shape[2]), (moving.shape[0], moving.shape[2])
        else:
            stationary_2d, moving_2d = stationary.shape, moving.shape
        if len(stationary_2d) != 2 or len(moving_2d) != 2:
            raise fail(f"matmul of {stationary.shape} and {moving.shape}: the operands are [K, M] and [K, N] tiles "
                       "([K, 2, M] and [K, 2, N] with perf_mode double_row)")
        k, m = stationary_2d
        k2, n = moving_2d
        kind = "nc_transpose" if transpose else "matmul"
        if k != k2:
            raise fail(f"{kind}: contraction dimensions differ: stationary {stationary.shape}, moving {moving.shape}")
        if k > PARTITIONS or m > STATIONARY_FMAX or n > MOVING_FMAX:
            raise fail(f"{kind}: stationary {stationary.shape} / moving {moving.shape} exceed the PE array "
                       f"(K ≤ {PARTITIONS}, M ≤ {STATIONARY_FMAX}, N ≤ {MOVING_FMAX}); tile the loops")
        passthrough = transpose and tracer().generation in TRANSPOSE_PASSTHROUGH
        result = dtype or (stationary.dtype if passthrough else dtype_of("float32"))
        super().__init__((m, n), result, "psum", self._single, site)
        self.stationary, self.moving, self.transpose = stationary, moving, transpose

    def _single(self, dst):
        self._emit(dst, accumulate=False)

    def accumulate_into(self, dst):
        self._emit(dst, accumulate=True)
        self.view = dst

    def _emit(self, dst, accumulate):
        t = tracer()
        if dst.buffer == "sbuf" and not accumulate:
            # The PE writes only PSUM: a result assigned to an SBUF tile goes through a PSUM tile
            # of this line and a VectorE copy, as the NKI compiler lowers it.
            staged = t.new_tensor(self.shape, self.dtype, "psum", site=self.site)
            self._emit(staged, accumulate=False)
            copy(dst, staged, engine="dve")
            return
        if dst.buffer != "psum":
            raise fail("a matmul writes PSUM; allocate its destination with buffer=nl.psum")
        if dst.shape != self.shape:
            raise fail(f"matmul result {self.shape} into a PSUM tile of {dst.shape}")
        if not self.transpose and not self.scales and dst.dtype.size != 4:  # MX matmuls may write bf16 (nc_matmul_mx)
            raise fail(f"a matmul writes fp32 partial sums to PSUM (a PSUM write is a 4-byte dtype, seed 000 "
                       f"§2.2), not {dst.dtype.name}: allocate the accumulator as nl.float32 and convert when "
                       f"copying it out (nl.copy(acc, dtype=...))")
        k, m = self.stationary.shape[0], self.stationary.shape[-1]
        n = self.moving.shape[-1]
        check_on_chip(self.stationary, "matmul stationary")
        check_on_chip(self.moving, "matmul moving")
        tile = {} if self.tile is None else {"tile_position": "%d,%d" % self.tile[0],
                                             "tile_size": "%d,%d" % self.tile[1]}
        scale = self.scales or (None, None)
        for s in self.scales or ():
            check_on_chip(s, "nc_matmul_mx scale")
        t.emit("ldweights", ENGINE_QUEUES["pe"],
               {"src": self.stationary.operand(t.alloc), "src2": scale[0] and scale[0].operand(t.alloc),
                "rows": k, "cols": m, **tile}, reads=[self.stationary, *([scale[0]] if scale[0] else [])])
        slot = id(dst.storage.slot)
        region = dst.operand(t.alloc)  # where the group accumulates: two banks of one tile are two groups
        group = t.psum_groups.get(slot, {}).get(region) if accumulate else None
        if not accumulate and region in t.psum_groups.get(slot, {}):
            t.close_psum(dst, region)
        flags = "mid" if group is not None else "begin"
        fields = {"src": self.moving.operand(t.alloc), "src2": scale[1] and scale[1].operand(t.alloc),
                  "dst": region, "num_active_rows": k, "num_active_cols": m, "acc_flags": flags,
                  "perf_opt": self.perf_opt, "transpose": 1 if self.transpose else None,
                  "onezero": 1 if self.onezero else None, **tile}
        if t.values and self.scales:
            raise fail("numerical values of nc_matmul_mx (dequantizing x4-packed MX data) are not modelled: trace "
                       "MX kernels without --input")
        if t.values and self.rows_per_pe > 1:
            raise fail("numerical values of a double-row matmul of [K, 2, M] tiles are not modelled: trace without "
                       "--input")
        if t.values:  # stationary.T @ moving in fp32; a transpose's moving tile is the identity
            product = _values.get(self.stationary).T @ _values.get(self.moving)
            _values.put(dst, product if flags == "begin" else _values.get(dst) + product)
        record = t.emit("matmul", ENGINE_QUEUES["pe"], fields,
                        reads=[self.moving, *([scale[1]] if scale[1] else [])], writes=[dst])
        t.psum_groups.setdefault(slot, {})[region] = record
        if not self.transpose:  # an x4 element packs four contraction values, a double row two
            t.flops += 2 * k * m * n * (4 if self.scales else 1) * self.rows_per_pe
        if not accumulate:
            t.close_psum(dst, region)


def to_sbuf(view):
    """A PSUM tile where only SBUF is read (the PE's operands, a DMA's source, GpSimd's inputs):
    copied to an SBUF tile of the kernel's line by a VectorE tensor_copy first, as the NKI compiler
    inserts it; other tiles as they are."""
    if view.buffer != "psum":
        return view
    staged = tracer().new_tensor(view.shape, view.dtype, "sbuf")
    copy(staged, view, engine="dve")
    return staged


def matmul(stationary, moving, site=None, perf_opt=None, tile=None, onezero=False, scales=None, dtype=None):
    return MatmulPending(to_sbuf(value(stationary)), to_sbuf(value(moving)), site or kernel_site(), perf_opt=perf_opt,
                         tile=tile, onezero=onezero, scales=scales, dtype=dtype)


def transpose(data, site=None, tile=None):
    """nc_transpose on the PE: the tile is the stationary operand, an identity the moving one."""
    t = tracer()
    data = to_sbuf(value(data))  # the PE reads SBUF only
    p, f = data.shape
    if t.identity is None or t.identity.dtype is not data.dtype or t.identity.shape[0] < p:
        t.identity = t.new_tensor((PARTITIONS, PARTITIONS), data.dtype, "sbuf", name="identity",
                                  site=("<identity>", 0))
        compute("pool", "iota", [], t.identity, "iota",  # built once on GpSimd, as the compiler does
                lambda: _values.np.eye(PARTITIONS))
    return MatmulPending(data, t.identity[0:p, 0:p], site or kernel_site(), transpose=True, tile=tile)


VECTOR_TRANSPOSE_MAX = 32  # nc_transpose on VectorE: blocks of at most 32 x 32 (nki.isa.nc_transpose)


def vector_transpose(data):
    """nc_transpose(engine=vector_engine): one VectorE `transpose` instruction of a <= 32 x 32 tile."""
    data = value(data)
    p, f = data.shape
    if p > VECTOR_TRANSPOSE_MAX or f > VECTOR_TRANSPOSE_MAX:
        raise fail(f"nc_transpose on the Vector Engine takes at most {VECTOR_TRANSPOSE_MAX} x "
                   f"{VECTOR_TRANSPOSE_MAX}; this tile is {data.shape} (use the Tensor Engine, the default)")
    return lazy("dve", "transpose", [data], (f, p), None, isa="transpose", values=lambda x: x.T)


def _sources(*xs):
    return [value(x) for x in xs if isinstance(x, (View, Pending))]


def compute(engine, fn, srcs, dst, isa, values=None):
    """One act/pool/dve record of the nki.isa instruction `isa`: up to two tile sources, one
    destination. values(*source arrays) -> the destination's values (numerical mode)."""
    return compute_writing(engine, fn, srcs, [dst], isa, values)


def compute_writing(engine, fn, srcs, dsts, isa, values=None, extra_reads=()):
    """As compute(), writing every tile of dsts; the record's operand is the first (an
    activation_reduce also writes its reduction result, one value per partition: values then
    returns one array per destination)."""
    t = tracer()
    if _needs_split(srcs, dsts):
        return _split(engine, fn, srcs, dsts, isa, extra_reads)
    dst = dsts[0]
    for s in srcs:
        check_on_chip(s, fn)
        if s.partitions != dst.partitions:
            raise fail(f"{fn}: source {s.storage.name} has {s.partitions} partitions, destination {dst.partitions}")
        if s.buffer == "psum":
            t.close_psum(s)
    for d in dsts:
        check_on_chip(d, fn, any_layout=isa == "memset")
    if engine == "pool" and any(v.buffer == "psum" for v in srcs + dsts):
        raise fail(f"{fn} on GpSimd: GpSimd cannot reach PSUM (nki.isa); use the Vector or Scalar Engine")
    extra_reads = [v for v in extra_reads if v is not None]
    if len(srcs) > 2:
        raise fail(f"{fn}: {len(srcs)} tile sources; an instruction reads at most two")
    if len(srcs) == 2 and all(s.buffer == "sbuf" for s in srcs):
        q0, q1 = (s.partition_start() // QUADRANT for s in srcs)
        if q0 != q1:
            raise fail(f"{fn}: its two SBUF sources start in different 32-partition quadrants (partition "
                       f"{srcs[0].partition_start()} and {srcs[1].partition_start()}); an engine reads both from one "
                       "quadrant (seed 000 §2.2): copy one to the other's partitions first")
    src2 = srcs[1].operand(t.alloc) if len(srcs) == 2 else None
    src = srcs[0].operand(t.alloc) if srcs else dst.operand(t.alloc)
    if not srcs and dst.buffer == "psum":
        src = _fill_source(t, engine, dst)
    fields = compute_fields(src, dst.operand(t.alloc), dst.partitions, fn, src2, isa)
    if t.values and values is not None:
        results = values(*[_values.get(s) for s in srcs])
        for d, result in zip(dsts, results if len(dsts) > 1 else [results]):
            _values.put(d, result)
    return t.emit(engine, ENGINE_QUEUES[engine], fields, reads=[*srcs, *extra_reads], writes=dsts)


MAX_FREE_DIMS = 3  # access-pattern dimensions of an engine operand's free axis (nki-aps: most instructions)


def _needs_split(srcs, dsts):
    """An operand needs more free access-pattern dimensions than an instruction has, and every
    operand has one outermost free dimension of the same size to split along."""
    views = [*srcs, *dsts]
    if not any(v.on_chip and len(v.free_pattern()[1]) > MAX_FREE_DIMS for v in views):
        return False
    sizes = {v.shape[1] if len(v.shape) > 2 else None for v in views}
    return len(sizes) == 1 and None not in sizes


def _split(engine, fn, srcs, dsts, isa, extra_reads):
    """One instruction per index of the operands' outermost free dimension, as the compiler splits
    an access pattern of more dimensions than the ISA has (the average-pool tutorial's 5-D index
    reduced over two of them)."""
    if tracer().values:
        raise fail(f"{fn}: numerical values of an instruction split over its outermost free dimension are not modelled")
    record = None
    for i in range(srcs[0].shape[1] if srcs else dsts[0].shape[1]):
        record = compute_writing(engine, fn, [_select(v, i) for v in srcs], [_select(v, i) for v in dsts], isa,
                                 None, extra_reads)
    return record


def _select(view, i):
    """The view at index i of its first free dimension (the dimension dropped)."""
    if view._explicit:
        from ._ap import PatternView
        step, _ = view.pattern[1]
        return PatternView(view.storage, view.pattern[:1] + view.pattern[2:], view.offset + step * i, view.dtype)
    return view[(slice(None), i)]


def _fill_source(t, engine, dst):
    """The source operand of a fill (memset) of a PSUM tile: an instruction touches at most one PSUM
    operand (seed 000 §2.2), so not dst itself but scratch bytes in SBUF that nothing writes
    (FILL_SOURCE, past the synchronisation copies' bytes), read with step 0 over dst's sizes: the
    same element count, which sets the instruction's cost."""
    _, pattern = dst.free_pattern()
    addr = t.alloc.address(t.alloc.scratch, 0, FILL_SOURCE)
    return (f"{dst.dtype.trace_name}@0x{addr:x}[{','.join('0' for _ in pattern)}]"
            f"[{','.join(str(n) for _, n in pattern)}]")


def lazy(engine, fn, srcs, shape, dtype, dst=None, site=None, isa=None, also_writes=(), values=None,
         extra_reads=()):
    """An op writing a new tile (or dst): pending until its destination is known. extra_reads: tiles
    the instruction reads beyond the record's two operands (a [P, 1] scalar operand), for the
    hazards only."""
    srcs = _sources(*srcs)
    dtype = dtype_of(dtype) if dtype is not None else srcs[0].dtype
    write = lambda d: compute_writing(engine, fn, srcs, [d, *also_writes], isa, values, extra_reads)
    pending = Pending(tuple(shape), dtype, "sbuf", write, site or kernel_site())
    if dst is not None:
        pending.materialise(dst)
        return dst
    return pending


def _free(view):
    return view.free_elements


def elementwise(fn, a, b, dst=None, dtype=None, engine=None, isa=None):
    """An element-wise op of nki.language, as the compiler lowers it: two tiles of the same size
    are a `tensor_tensor`; a tile and a number, or a tile and a [P, 1] tile broadcast along the
    free axis, a `tensor_scalar` (its operand is a scalar or one value per partition). On VectorE
    unless engine= says otherwise. `isa` given (nisa.tensor_tensor) keeps that instruction."""
    a, b = (value(x) if isinstance(x, (View, Pending)) else x for x in (a, b))
    tiles = _sources(a, b)
    if not tiles:
        raise fail(f"{fn} of two scalars is not an NKI tile operation")
    if len(tiles) == 2 and _broadcastable(*tiles):
        # Tiles of one rank whose free dimensions are equal or 1 on one side ([P, W, 1, 1] with
        # [P, W, 3, 3]): the size-1 dimensions are read repeatedly (step 0), numpy's broadcast.
        shape = tuple(max(m, n) for m, n in zip(tiles[0].shape, tiles[1].shape))
        a, b = (x.broadcast_to(shape) if isinstance(x, View) and x.shape != shape else x for x in (a, b))
        tiles = _sources(a, b)
    if len(tiles) == 2:
        # Same partitions, and the same elements per partition unless one side has one per
        # partition ([P, 1], broadcast along the free axis): what the compiler accepts.
        (p0, f0), (p1, f1) = ((x.shape[0], _free(x)) for x in tiles)
        if p0 != p1 or (f0 != f1 and min(f0, f1) != 1):
            raise fail(f"{fn} of tiles {tuple(tiles[0].shape)} and {tuple(tiles[1].shape)}: element-wise operands need "
                       "the same partitions and the same elements per partition, or one value per partition "
                       "([P, 1]) to broadcast (nki.language)")
    if isa is None:
        broadcast = len(tiles) == 2 and min(_free(x) for x in tiles) == 1 < max(_free(x) for x in tiles)
        isa = "tensor_tensor" if len(tiles) == 2 and not broadcast else "tensor_scalar"
    if isa == "tensor_scalar" and len(tiles) == 2 and _free(tiles[0]) < _free(tiles[1]):
        tiles = tiles[::-1]  # the data tile first: its size sets the instruction's cost
    shape = max((x.shape for x in tiles), key=lambda s: (len(s), _count(s)))

    def values(*arrays):  # the operands in the kernel's order, whatever the sources' order
        by_tile = {id(tile): array for tile, array in zip(tiles, arrays)}
        x, y = (by_tile[id(v)] if isinstance(v, View) else v for v in (a, b))
        return _values.binary(fn)(free_column(x, shape), free_column(y, shape))
    return lazy(engine or "dve", fn, tiles, shape, dtype, dst, isa=isa, values=values)


def _broadcastable(x, y):
    """Two tiles of one rank and partitions, differing only where one of them has size 1 (and not
    the [P, 1] operand a tensor_scalar reads)."""
    if len(x.shape) != len(y.shape) or x.shape[0] != y.shape[0] or x.shape == y.shape or len(x.shape) < 3:
        return False
    return all(m == n or 1 in (m, n) for m, n in zip(x.shape[1:], y.shape[1:]))


def free_column(x, shape):
    """A [P, 1] operand (one value per partition) broadcast against a tile of `shape`."""
    if isinstance(x, (int, float)) or getattr(x, "ndim", 0) == 0 or x.shape == tuple(shape):
        return x
    return x.reshape((x.shape[0],) + (1,) * (len(shape) - 1)) if x.size == shape[0] else x.reshape(shape)


def unary(fn, x, dtype=None, engine="act", dst=None, isa="activation"):
    x = value(x)
    return lazy(engine, fn, [x], x.shape, dtype, dst, isa=isa, values=lambda v: _values.activation(fn)(v))


def reduce(fn, x, axis, dtype=None, engine="dve", keepdims=True):
    x = value(x)
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    if 0 in axes:
        raise fail(f"{fn} over the partition axis is not an engine reduction in this model; transpose first")
    shape = tuple(1 if d in axes else n for d, n in enumerate(x.shape)) if keepdims else \
        tuple(n for d, n in enumerate(x.shape) if d not in axes)
    return lazy(engine, fn, [x], shape, dtype, isa="tensor_reduce",
                values=lambda v: _values.reduction(fn, v, axes, keepdims))


def copy_isa(engine):
    """The instruction of a copy between on-chip tiles: `tensor_copy`, except on the Scalar
    Engine of NeuronCore-v2, which has none and copies with an `activation` of nl.copy (nki.isa
    tensor_copy: "On NeuronCore v2, tensor_copy is not supported on the Scalar Engine")."""
    return "activation" if engine == "act" and tracer().generation == "sunda" else "tensor_copy"


def copy(dst, src, engine="act"):
    src = value(src)
    if not dst.on_chip or not src.on_chip:
        return dma(dst, src)
    return compute(engine, "copy", [src], dst, copy_isa(engine), lambda v: v)


def memset(dst, val, engine=None):
    """A fill: on GpSimd by default, on VectorE for a PSUM tile (GpSimd cannot reach PSUM)."""
    engine = engine or ("dve" if dst.buffer == "psum" else "pool")
    return compute(engine, "memset", [], dst, "memset", lambda: val)


def _count(shape):
    n = 1
    for d in shape:
        n *= d
    return n
