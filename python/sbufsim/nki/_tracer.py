"""The tracing core behind sbufsim's NKI front-end: tensors and views, the on-chip allocator, the
hazard tracker that turns read-after-write / write-after-read between engine queues into
semaphores, and the text records of docs/trace-format.md. docs/nki.md describes the model."""

import difflib
import os
import sys
from math import prod

from ..errors import InputError

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


class NkiError(InputError):
    """What the front-end cannot model, with the kernel's file:line. An sbufsim.InputError: the
    kernel is the input (`sbufsim nki` exits 3 for it)."""


# ---------------------------------------------------------------------------------------------
# dtypes

class DType:
    """An NKI dtype: its trace name (docs/trace-format.md) and its size in bytes."""

    def __init__(self, name, trace_name, size):
        self.name, self.trace_name, self.size = name, trace_name, size

    def __repr__(self):
        return f"nl.{self.name}"

    # Kernels compare dtypes with numpy's (`dtype == np.float32`) and ask numpy for their sizes
    # (`np.dtype(nl.bfloat16).itemsize`): equal by name, and a numpy dtype of the same size.
    def __eq__(self, other):
        if isinstance(other, DType):
            return self is other
        name = other if isinstance(other, str) else getattr(other, "__name__", None) or getattr(other, "name", None)
        return isinstance(name, str) and _ALIASES.get(_unprefixed(name), _unprefixed(name)) == self.name

    def __hash__(self):
        return hash(self.name)

    @property
    def dtype(self):
        import numpy
        native = {"float16", "float32", "int8", "uint8", "int16", "uint16", "int32", "uint32"}
        return numpy.dtype(self.name if self.name in native else f"V{self.size}")

    @property
    def itemsize(self):
        return self.size


DTYPES = {d.name: d for d in [
    DType("bfloat16", "bf16", 2), DType("float16", "fp16", 2), DType("float32", "fp32", 4),
    DType("float8_e4m3", "fp8e4", 1), DType("float8_e5m2", "fp8e5", 1),
    DType("int8", "int8", 1), DType("uint8", "uint8", 1), DType("int16", "int16", 2),
    DType("uint16", "uint16", 2), DType("int32", "int32", 4), DType("uint32", "uint32", 4),
    # NeuronCore-v4's quad-packed MX types (nki.isa nc_matmul_mx): four values per element
    DType("float8_e4m3fn_x4", "fp8e4x4", 4), DType("float8_e5m2_x4", "fp8e5x4", 4),
    DType("float4_e2m1fn_x4", "fp4x4", 2),
]}
MX_DTYPES = {"float8_e4m3fn_x4", "float8_e5m2_x4", "float4_e2m1fn_x4"}
_ALIASES = {"bf16": "bfloat16", "fp16": "float16", "fp32": "float32", "float": "float32",
            "fp8e4": "float8_e4m3", "fp8e5": "float8_e5m2", "fp8e4x4": "float8_e4m3fn_x4",
            "fp8e5x4": "float8_e5m2_x4", "fp4x4": "float4_e2m1fn_x4"}


def _unprefixed(name):
    """A dtype's name as a command line gives it (`--param dtype=nl.bfloat16`, `np.float32`)."""
    for prefix in ("nki.language.", "neuronxcc.nki.language.", "nl.", "numpy.", "np."):
        if name.startswith(prefix):
            return name[len(prefix):]
    return name


def dtype_of(value):
    """An NKI dtype, a trace dtype name or a numpy dtype -> DType."""
    if isinstance(value, DType):
        return value
    name = getattr(value, "name", None) or (value.__name__ if isinstance(value, type) else str(value))
    name = _ALIASES.get(_unprefixed(name), _unprefixed(name))
    if name not in DTYPES:
        raise fail(f"dtype {value!r} is not modelled (supported: {', '.join(DTYPES)})")
    return DTYPES[name]


# ---------------------------------------------------------------------------------------------
# where in the kernel we are

# While a deferred op is written (a Pending materialised by a later use), errors name the line
# of the call that made it, not of the use.
_deferred_sites = []


# co_filename -> whether that code is this package's. Every record and allocation asks for its
# kernel line, walking a handful of frames: abspath per frame was a third of the tracing time.
_ours = {}


def in_package(filename):
    """Whether code of `filename` (a co_filename) is this package's own."""
    ours = _ours.get(filename)
    if ours is None:
        ours = _ours[filename] = os.path.abspath(filename).startswith(_PACKAGE_DIR)
    return ours


def kernel_site():
    """(file, line) of the innermost frame outside this package: the kernel's call."""
    if _deferred_sites:
        return _deferred_sites[-1]
    frame = sys._getframe(1)
    while frame is not None:
        code = frame.f_code
        if not in_package(code.co_filename):
            return code.co_filename, frame.f_lineno
        frame = frame.f_back
    return "<kernel>", 0


def _unmodelled_generation(generation):
    """The front-end's generations, and why the one given is not among them."""
    models = f"the NKI front-end models {', '.join(GEOMETRY)}"
    if generation == "maverick":
        return f"generation 'maverick': {models} (maverick has no PSUM, so no matmul accumulates)"
    if generation == "inferentia":
        return f"generation 'inferentia': {models} (NKI targets NeuronCore-v2 and later; inferentia is Inf1's v1)"
    close = difflib.get_close_matches(str(generation), GEOMETRY, n=1)
    return f"unknown generation {generation!r}" + (f" (did you mean {close[0]!r}?)" if close else "") + f": {models}"


def fail(reason):
    filename, line = kernel_site()
    return NkiError(f"{filename}:{line}: {reason}")


class OutOfSpace(NkiError):
    """An allocation that does not fit. `doubled` lists the double-buffered allocation sites of
    the full buffer, largest first ((bytes per partition, key)): what trace() may single-buffer
    before it gives up."""

    key = None
    doubled = ()
    blocks = ()  # PSUM block tensors' sites holding more than one bank ((banks, key), most first)


def out_of_space(reason):
    filename, line = kernel_site()
    return OutOfSpace(f"{filename}:{line}: {reason}")


class Clobbered(NkiError):
    """A tile read or written after a newer tile of its allocation site took its buffer: the
    site needs more buffers than it has (`key`; `buffers`, what it had). trace() traces the kernel
    again with one more for that site, as the compiler keeps every live tile in a buffer of its own."""

    key = None
    buffers = 0


class NotModelled(NkiError, AttributeError):
    """A name of the NKI API (or a tensor attribute) the front-end does not model. Also an
    AttributeError, so hasattr() and getattr(x, name, default) probe it as Python expects."""


def not_modelled(what):
    filename, line = kernel_site()
    return NotModelled(f"{filename}:{line}: {what} is not modelled by sbufsim's NKI front-end "
                       "(docs/nki.md lists the calls it supports)")


def module_getattr(prefix):
    """A module's __getattr__ (PEP 562) for the names of the public API it lacks."""
    def missing(name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise not_modelled(f"{prefix}.{name}")
    return missing


# ---------------------------------------------------------------------------------------------
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


class Slot:
    """One physical buffer: a region, the byte offset inside each partition, bytes per
    partition. Hazards are tracked per slot (tiles rotating through it share its history)."""

    placed = False  # placed by liveness (Allocator.slot): hazards then per page of SBUF

    def __init__(self, region, offset, size):
        self.region, self.offset, self.size = region, offset, size
        self.owner = None  # the Storage that holds it now (the latest tile allocated into it)
        self.writes = []  # (p0, p1, lo, hi, record)
        self.reads = {}  # (p0, p1, lo, hi, queue) -> (p0, p1, lo, hi, record), oldest first


class Allocator:
    """The NKI compiler's default placement as this front-end reads it: every allocation site
    (the kernel's file:line of nl.ndarray/zeros or of an op that makes a new tile) owns its own
    buffers, bump-allocated per partition (SBUF) or in whole 2 KiB banks (PSUM). A site executed
    again — its tile re-bound in the next loop iteration — reuses its buffers in rotation: two
    inside an affine_range loop (the next iteration's loads may overlap this one's compute), one
    inside sequential_range or outside any loop. Sites in `single` get one buffer wherever they
    are: trace() gives the largest double-buffered sites one buffer when a kernel does not fit
    otherwise, as the compiler gives up overlap before it gives up the kernel. Sites in `extra`
    ({key: buffers}) get that many at least: trace() found more of their tiles live at once
    (Clobbered), and they are never single-buffered."""

    def __init__(self, generation, single=frozenset(), extra=None, caps=None, placement=None, measure=False):
        if generation not in GEOMETRY:
            raise NkiError(_unmodelled_generation(generation))
        self.sbuf_stride, self.sbuf_size, self.psum_offset, self.psum_stride, self.psum_banks = GEOMETRY[generation]
        self.sbuf_next = SCRATCH_BYTES
        self.psum_next_bank = 0
        self.sites = {}  # (site, shape, dtype, buffer) -> [slots, next index]
        self.single = single
        self.extra = extra or {}
        self.block_sites = set()
        # liveness (liveness.py): `measure` places tiles without a limit, to learn their
        # lifetimes; `placement` ({"sbuf": offsets, "psum": offsets}) then gives the n-th tile of
        # a memory its offset, each tile a slot of its own
        self.placement, self.counts = placement or {}, {"sbuf": 0, "psum": 0}
        if measure:
            self.sbuf_size, self.psum_banks = 1 << 40, 1 << 20
        self.caps = caps or {}  # PSUM block tensors' sites -> at most this many banks (trace() lowers it)
        self.scratch = Slot("sbuf", 0, SCRATCH_BYTES)

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
                return slot
        entry = self.sites.get(key)
        if entry is None:
            if key in self.extra:
                rotation = max(rotation, self.extra[key])
            elif key in self.single:
                rotation = 1
            try:
                size = min(bytes_per_partition, self.caps[key] * PSUM_BANK_BYTES) if key in self.caps else bytes_per_partition
                slots = [self._new(buffer, size, blocks) for _ in range(rotation)]
            except OutOfSpace as e:
                e.key = key
                e.blocks = sorted(((entry[0][0].size // PSUM_BANK_BYTES, k) for k, entry in self.sites.items()
                                   if buffer == k[3] == "psum" and entry[0][0].size > PSUM_BANK_BYTES and k in self.block_sites),
                                  key=lambda t: -t[0])
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
            if blocks:  # at least one bank, at most the free ones
                banks = max(1, min(banks, self.psum_banks - self.psum_next_bank))
            if self.psum_next_bank + banks > self.psum_banks:
                raise out_of_space(f"PSUM is full: this tile needs {banks} of the {self.psum_banks} 2 KiB banks per partition "
                           f"and {self.psum_next_bank} are taken by other allocation sites (with their rotation); "
                           "use fewer or smaller PSUM tiles")
            slot = Slot("psum", self.psum_next_bank * PSUM_BANK_BYTES, banks * PSUM_BANK_BYTES if blocks else size)
            self.psum_next_bank += banks
            return slot
        offset = self.sbuf_next
        if offset + size > self.sbuf_size:
            raise out_of_space(f"SBUF is full: this tile needs {size} bytes per partition, {self.sbuf_size - offset} "
                               f"are left of {self.sbuf_size} (allocation sites are never freed in this model); use smaller "
                               "tiles or fewer live ones")
        self.sbuf_next = offset + -(-size // ALIGN) * ALIGN
        return Slot("sbuf", offset, size)

    def address(self, slot, partition, byte):
        if slot.region == "psum":
            return self.psum_offset + partition * self.psum_stride + slot.offset + byte
        return partition * self.sbuf_stride + slot.offset + byte


# ---------------------------------------------------------------------------------------------
# tensors and views

class ParDim(int):
    """nl.par_dim(n): marks the partition dimension of an on-chip tensor's shape."""


class Storage:
    """A tensor's memory: HBM (no addresses) or an on-chip slot with a partition dimension."""

    hbm_slot = None  # an HBM tensor's hazard history (Tracer._hbm_slot), shared with its reshapes

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
        from ._ap import ap
        return ap(self, pattern, offset, dtype, **kwargs)

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
    def __getitem__(self, key):
        if not isinstance(key, tuple):
            key = (key,)
        ellipsis = False
        for k in key:  # (not `in`: an nl.arange compared with == is a mask)
            if isinstance(k, IndexExpr):
                from ._ap import indexed
                return indexed(self, key)
            ellipsis = ellipsis or k is Ellipsis
        kept = [d for d, dim in enumerate(self.dims) if dim[3]]
        if ellipsis:
            at = key.index(Ellipsis)
            key = key[:at] + (slice(None),) * (len(kept) - len(key) + 1) + key[at + 1:]
        if len(key) > len(kept):
            raise fail(f"{len(key)} indices for a tile of {len(kept)} dimensions {self.shape}")
        dims = list(self.dims)
        overhang = self.overhang
        for d, index in zip(kept, key):
            if isinstance(index, Arange) and not self.on_chip:
                dims[d], why = _range_index(dims[d], index, d, self.storage.name)
                overhang = overhang or why
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
        return view

    def __setitem__(self, key, value):
        target = self[key]
        if isinstance(value, View) and value.storage is target.storage and value.dims == target.dims:
            return  # `t[i] += x`: Python stores back the view the in-place op already wrote
        from . import _ops
        _ops.assign(target, value)

    # --- arithmetic sugar (nki.language semantics) ------------------------------------------
    def __iadd__(self, other):
        from . import _ops
        _ops.accumulate(self, other)
        return self

    def _binary(self, other, fn, reverse=False):
        from . import _ops
        return _ops.elementwise(fn, other, self) if reverse else _ops.elementwise(fn, self, other)

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
        return self.dims[self.storage.pdim][0] if self.on_chip else 0

    def free_pattern(self):
        """(element offset, [(step, size)] innermost first) of the free dimensions, merged."""
        storage = self.storage
        strides = storage.strides
        skip = storage.pdim if storage.buffer in ("sbuf", "psum") else -1  # on chip: not the partitions
        offset, dims = 0, []
        for d, (start, step, size, _) in enumerate(self.dims):
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

    def operand(self, allocator):
        """The profiler's dtype@addr[steps][sizes] (docs/trace-format.md)."""
        if not self.on_chip:
            return "hbm"
        cached = self._cached
        offset, pattern = cached[1] if cached is not None and cached[0] is self.dims else self._shape_of_access()[0]
        if len(pattern) > 3:
            raise fail(f"tile {self.storage.name}{list(self.shape)}: its free dimensions need {len(pattern)} "
                       "access-pattern dimensions, the ISA has 3; index fewer dimensions at once")
        addr = allocator.address(self.storage.slot, self.partition_start(), offset * self.dtype.size)
        steps = ",".join([str(s) for s, _ in pattern])
        sizes = ",".join([str(n) for _, n in pattern])
        return f"{self.dtype.trace_name}@0x{addr:x}[{steps}][{sizes}]"


class Arange:
    """nl.arange(n) (and the axes of nl.mgrid): an index range start, start + step, ... (size
    values). `axis`: its position among the index's axes (nl.arange(n)[:, None] is axis 0,
    [None, :] axis 1, mgrid's k-th axis k), which orders an index expression's dimensions. An
    integer may be added to it or multiply it; compared with a number it is a mask (`mask=`,
    accepted and not applied: docs/nki.md); added to another range it is an IndexExpr."""

    def __init__(self, start, size, step=1, axis=None, grid=None):
        self.start, self.size, self.step, self.axis = start, size, step, axis
        self.grid = grid  # nl.mgrid's ranges: the sizes of every axis of the grid

    def __getitem__(self, key):  # i[:, None] / i[None, :]: the range's axis
        key = key if isinstance(key, tuple) else (key,)
        axes = [d for d, k in enumerate(key) if isinstance(k, slice)]
        if len(axes) != 1:
            return self
        grid = tuple(self.size if d == axes[0] else 1 for d in range(len(key)))
        return Arange(self.start, self.size, self.step, axes[0], grid)

    def _terms(self):
        return IndexExpr([self], 0)

    def __add__(self, other):
        if isinstance(other, (Arange, IndexExpr)):
            return self._terms() + other
        if not isinstance(other, int) and not hasattr(other, "__index__"):
            raise fail(f"{other!r} added to an nl.arange index: only integers and other indices are modelled")
        return Arange(self.start + int(other), self.size, self.step, self.axis, self.grid)

    __radd__ = __add__

    def __sub__(self, other):
        return self + other * -1

    def __rsub__(self, other):
        return self * -1 + other

    def __mul__(self, other):
        if not isinstance(other, int) and not hasattr(other, "__index__"):
            raise fail(f"an nl.arange index times {other!r}: only an integer factor is modelled")
        return Arange(self.start * int(other), self.size, self.step * int(other), self.axis, self.grid)

    __rmul__ = __mul__

    def __floordiv__(self, other):
        return IndexExpr([self], 0, affine=False)

    __mod__ = __floordiv__

    def __lt__(self, other):
        return _range_mask(self, "<", other)

    def __le__(self, other):
        return _range_mask(self, "<=", other)

    def __gt__(self, other):
        return _range_mask(self, ">", other)

    def __ge__(self, other):
        return _range_mask(self, ">=", other)

    def __eq__(self, other):  # a mask, as in NKI; identity is kept for hashing
        return Mask()

    def __ne__(self, other):
        return Mask()

    __hash__ = object.__hash__


class IndexExpr:
    """An affine expression of several nl.arange indices plus a constant (`2 * i1 + i2`,
    `512 * ix + iy`): as a tensor index each range is a dimension of its own (an access pattern,
    _ap.py); in masks it is compared. `//` and `%` make a non-affine one, which only masks accept."""

    def __init__(self, terms, const=0, affine=True):
        self.terms, self.const, self.affine = terms, const, affine

    def __add__(self, other):
        if isinstance(other, Arange):
            return IndexExpr(self.terms + [other], self.const, self.affine)
        if isinstance(other, IndexExpr):
            return IndexExpr(self.terms + other.terms, self.const + other.const, self.affine and other.affine)
        return IndexExpr(self.terms, self.const + int(other), self.affine)

    __radd__ = __add__

    def __sub__(self, other):
        return self + other * -1

    def __rsub__(self, other):
        return self * -1 + other

    def __mul__(self, other):
        if not isinstance(other, int) and not hasattr(other, "__index__"):
            return IndexExpr(self.terms, self.const, affine=False)
        return IndexExpr([t * int(other) for t in self.terms], self.const * int(other), self.affine)

    __rmul__ = __mul__

    def __floordiv__(self, other):
        return IndexExpr(self.terms, self.const, affine=False)

    __mod__ = __floordiv__

    def __getitem__(self, key):
        return self

    def _compare(self, other):
        return Mask()

    __lt__ = __le__ = __gt__ = __ge__ = __eq__ = __ne__ = _compare
    __hash__ = object.__hash__


class Mask:
    """A mask= predicate built from index comparisons. `limits` {axis: (lo, hi)}: the positions
    of that axis's range that hold, for masks of one range compared with a number and their `&`;
    None for any other (an expression of several ranges, `|`, `~`). A DMA applies the limits
    (it moves only the rows and columns they keep); compute instructions do not (docs/nki.md)."""

    def __init__(self, limits=None, never=False):
        self.limits, self.never = limits, never

    def __and__(self, other):
        if isinstance(other, bool):  # a condition of loop indices only: all or nothing
            return self if other else Mask(never=True)
        if not isinstance(other, Mask) or self.limits is None or other.limits is None:
            return Mask(never=self.never or getattr(other, "never", False))
        limits = dict(self.limits)
        for axis, (lo, hi) in other.limits.items():
            a, b = limits.get(axis, (lo, hi))
            limits[axis] = (max(a, lo), min(b, hi))
        return Mask(limits)

    __rand__ = __and__

    def __or__(self, other):
        return Mask()

    __ror__ = __or__

    def __invert__(self):
        return Mask()

    def __bool__(self):
        raise fail("a mask (a comparison of nl.arange indices) used as a Python truth value; pass it as mask=")


def _range_mask(r, op, bound):
    """The Mask of `r op bound` for one range r (positions i: r.start + r.step * i)."""
    if r.axis is None or not isinstance(bound, int) or r.step <= 0:
        return Mask()
    import math
    x = (bound - r.start) / r.step  # position where the range meets the bound
    lo, hi = 0, r.size
    if op == "<":
        hi = math.ceil(x)
    elif op == "<=":
        hi = math.floor(x) + 1
    elif op == ">=":
        lo = math.ceil(x)
    elif op == ">":
        lo = math.floor(x) + 1
    else:
        return Mask()
    return Mask({r.axis: (max(0, min(lo, r.size)), max(0, min(hi, r.size)))})


def _slice_text(index):
    return ":".join("" if v is None else str(v) for v in (index.start, index.stop)) + (
        f":{index.step}" if index.step not in (None, 1) else "")


def _range_index(dim, index, d, name):
    """An nl.arange index of an HBM tensor's dimension: its positions, even past the dimension's
    end, with the reason (the out-of-range error) when they go past it, else None. A DMA with a
    mask that keeps only positions inside the tensor moves those; without one the reason stops
    the trace (_ops.dma)."""
    start, step, size, _ = dim
    last = index.start + index.step * (index.size - 1)
    if index.step > 0 and index.start >= 0 and last >= size:
        why = (f"{name}: dimension {d} (size {size}): the range {index.start}..{last} reaches past the tensor; index "
               "within it, or give the load or store a mask= that keeps the range inside")
        return (start + index.start * step, step * index.step, index.size, True), why
    return _index(dim, index, d, name), None


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
