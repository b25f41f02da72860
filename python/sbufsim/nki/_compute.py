"""One engine instruction: the act/pool/dve record of an nki.isa instruction (compute_writing),
with the checks every engine operand passes (on chip, partitions first, two SBUF sources in one
quadrant, no PSUM on GpSimd), an access pattern of more free dimensions than the ISA has split
into one instruction per index, and the VectorE copy that stages a PSUM tile where only SBUF is
read (to_sbuf)."""

from . import _values
from ._ap import PatternView
from ._errors import fail
from ._tracer import ENGINE_QUEUES, compute_fields, tracer

# The nki.isa instructions an act/pool/dve record names in its isa= field: every one this front-end
# writes, by the names the trace reader knows (include/sbufsim/types/compute_op.h); each engine
# costs its records by it (docs/engines.md, "Per-instruction cost"). An instruction added to the
# front-end is added here (docs/nki.md, "Adding an instruction").
INSTRUCTIONS = (
    "activation", "activation_reduce", "affine_select", "bn_aggr", "bn_stats", "dropout", "exponential", "iota",
    "max8", "memset", "quantize_mx", "range_select", "reciprocal", "scalar_tensor_tensor", "select_reduce",
    "tensor_copy", "tensor_copy_predicated", "tensor_reduce", "tensor_scalar", "tensor_scalar_reduce",
    "tensor_tensor", "tensor_tensor_scan", "transpose",
)
QUADRANT = 32  # partitions per SBUF quadrant (seed 000 §2.2: two SBUF sources start in one)
FILL_SOURCE = 48  # scratch byte offset read by fills of PSUM tiles (16-byte aligned, never written)


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


def copy_isa(engine):
    """The instruction of a copy between on-chip tiles: `tensor_copy`, except on the Scalar
    Engine of NeuronCore-v2, which has none and copies with an `activation` of nl.copy (nki.isa
    tensor_copy: "On NeuronCore v2, tensor_copy is not supported on the Scalar Engine")."""
    return "activation" if engine == "act" and tracer().generation == "sunda" else "tensor_copy"


def to_sbuf(view):
    """A PSUM tile where only SBUF is read (the PE's operands, a DMA's source, GpSimd's inputs):
    copied to an SBUF tile of the kernel's line by a VectorE tensor_copy first, as the NKI compiler
    inserts it; other tiles as they are."""
    if view.buffer != "psum":
        return view
    staged = tracer().new_tensor(view.shape, view.dtype, "sbuf")
    compute("dve", "copy", [view], staged, copy_isa("dve"), lambda v: v)
    return staged
