"""nki.isa as traced by sbufsim (docs/nki.md): one instruction per call, on the engine it names
(or the one given with engine=).

Two calling conventions are public: neuronxcc.nki's returns the result
(`t = nisa.tensor_copy(x)`); the `nki` package's (the API pages from Neuron 2.29 on) writes it
into a first argument (`nisa.tensor_copy(dst, x)` or dst=). Every instruction here takes both
(_conventions.py). The Tensor Engine's are in _isa_matmul.py."""

from . import _compute, _dma, _indices, _ops, _tracer, _values, _view
from . import language as _nl
from ._conventions import is_tile as _is_tile, split_dst as _split_dst, writes_dst as _writes_dst
from ._dtypes import dtype_of
from ._errors import fail, module_getattr
from ._isa_matmul import matmul_perf_mode, nc_matmul, nc_matmul_mx, nc_transpose  # noqa: F401 (nisa.* names)

# engines (engine= argument)
tensor_engine, vector_engine, scalar_engine, gpsimd_engine, unknown_engine = "pe", "dve", "act", "pool", None
sync_engine = "sp"


class engine:
    """nki.isa.engine: the engine sequencers (dma_copy's engine= picks the one that triggers it)."""
    tensor, vector, scalar, gpsimd, sync, unknown = "pe", "dve", "act", "pool", "sp", None


class dge_mode:
    """nki.isa.dge_mode: how a DMA's descriptors are made (docs/engines.md "DMA triggers")."""
    none, swdge, hwdge, unknown = "none", "swdge", "hwdge", None


_DEFAULT = {"tensor_copy": "dve", "tensor_tensor": "dve", "tensor_scalar": "dve", "tensor_reduce": "dve",
            "activation": "act", "iota": "pool"}


def _engine(name, engine):
    return engine or _DEFAULT[name]


_fn = _ops.op_name


def dma_copy(dst, src, dst_rmw_op=None, priority=None, dge_mode=None, engine=None, mask=None, **_):
    """One DMA; dge_mode, engine (the triggering sequencer) and priority (NeuronCore-v4 QoS class)
    become the record's dge=, issuer= and priority= fields, dst_rmw_op=nl.add its dst_rmw_op=add
    (dst = dst + src)."""
    if engine not in (None, "sp", "act", "pool", "dve"):
        raise fail(f"dma_copy engine={engine!r}: a DMA is triggered by the sync, scalar, gpsimd or vector sequencer")
    if priority is not None and priority not in (0, 1, 2, 3):
        raise fail(f"dma_copy priority={priority!r}: the DMA QoS class is 0..3 (0 highest)")
    if priority is not None and dge_mode == "none":
        raise fail("dma_copy priority with dge_mode=none: nki.isa says priority is not supported when DGE is turned "
                   "off; use dge_mode=hwdge or swdge, or drop priority")
    if dst_rmw_op is not None and _fn(dst_rmw_op) != "add":
        raise fail(f"dma_copy dst_rmw_op={_fn(dst_rmw_op)}: nki.isa supports only nl.add")
    trigger = {"dge": dge_mode, "issuer": engine, "priority": priority,
               "dst_rmw_op": "add" if dst_rmw_op is not None else None}
    return _dma.dma(_ops.value(dst) if not hasattr(dst, "dims") else dst, _ops.value(src),
                    {k: v for k, v in trigger.items() if v is not None}, mask=mask)


@_writes_dst(1)
def dma_transpose(src, axes=None, dge_mode=None, **_):
    """The 2-D transpose of src through a DMA engine's crossbar (a `dma transpose=1` record)."""
    if axes not in (None, (1, 0), [1, 0]):
        raise fail(f"dma_transpose axes={axes!r}: only the 2-D transpose (1, 0) is modelled")
    if dge_mode not in (None, "none", "swdge", "hwdge"):
        raise fail(f"dma_transpose dge_mode={dge_mode!r}")
    return _ops.transposed_load(src, four_byte=False)


@_writes_dst(2, takes_dst=True)
def quantize_mx(src, dst_scale=None, dst=None, **_):
    """Quantize-MX on the Vector Engine (NeuronCore-v4): bf16/fp16 src [P, F] into x4 fp8 dst
    [P, F / 4] and its uint8 scales; four input elements per partition and cycle."""
    _available("quantize_mx", 4)
    if dst is None or dst_scale is None:
        raise fail("quantize_mx(dst, src, dst_scale): give the x4 data tile and the uint8 scale tile")
    data, out, scale = _ops.value(src), _ops.value(dst), _ops.value(dst_scale)
    if data.dtype.size != 2:
        raise fail(f"quantize_mx reads bf16 or fp16 data, not {data.dtype.name}")
    if out.dtype.name not in ("float8_e4m3fn_x4", "float8_e5m2_x4"):
        raise fail(f"quantize_mx writes nl.float8_e4m3fn_x4 or nl.float8_e5m2_x4, not {out.dtype.name} (no FP4 output)")
    if scale.dtype.name != "uint8":
        raise fail(f"quantize_mx: dst_scale is {scale.dtype.name}; MX scales are nl.uint8")
    if out.free_elements * 4 != data.free_elements:
        raise fail(f"quantize_mx of {data.shape} into {out.shape}: each x4 element packs four inputs")
    if _tracer.tracer().values:
        raise fail("numerical values of quantize_mx (x4-packed MX data) are not modelled: trace without --input")
    _compute.compute_writing("dve", "quantize_mx", [data], [out, scale], "quantize_mx")
    return dst


@_writes_dst(1)
def tensor_copy(src, dtype=None, engine=None, mask=None, **_):
    """One `tensor_copy` on VectorE (or engine=); ScalarE's is refused on NeuronCore-v2."""
    engine = _engine("tensor_copy", engine)
    if engine == scalar_engine and _tracer.tracer().generation == "sunda":
        raise fail("tensor_copy on the Scalar Engine does not exist on NeuronCore-v2 (nki.isa tensor_copy); "
                   "use nisa.activation(op=nl.copy, ...) or the Vector Engine")
    return _ops.unary("copy", src, dtype, engine=engine, isa="tensor_copy")


@_writes_dst(2)
def tensor_tensor(data1, data2, op, dtype=None, engine=None, mask=None, **_):
    """One `tensor_tensor` on VectorE (or engine=), tiles of the same size, at most one in PSUM."""
    a, b = _ops.value(data1), _ops.value(data2)
    if a.buffer == b.buffer == "psum":
        raise fail("tensor_tensor of two PSUM tiles: nki.isa allows at most one input in PSUM; copy one to SBUF "
                   "first (nisa.tensor_copy)")
    if a.free_elements != b.free_elements:
        if 1 in (a.free_elements, b.free_elements) and a.partitions == b.partitions:
            # one value per partition ([P, 1]), as the public double-row reference kernel passes its
            # scales: broadcast along the free axis, the instruction the compiler makes of it
            return _ops.elementwise(_fn(op), a, b, dtype=dtype, engine=_engine("tensor_scalar", engine),
                                    isa="tensor_scalar")
        raise fail(f"tensor_tensor of {a.shape} and {b.shape}: both tiles need the same number of elements per "
                   "partition (nki.isa), or one of them one value per partition ([P, 1])")
    return _ops.elementwise(_fn(op), a, b, dtype=dtype, engine=_engine("tensor_tensor", engine),
                            isa="tensor_tensor")


@_writes_dst(1)
def tensor_scalar(data, op0, operand0, reverse0=False, op1=None, operand1=None, dtype=None, engine=None,
                  mask=None, **_):
    """(data op0 operand0) op1 operand1; an operand is a number or a [P, 1] tile (one value per
    partition), which the record reads as its second source."""
    fn = _fn(op0) if op1 is None else f"{_fn(op0)}+{_fn(op1)}"
    vectors = [_ops.value(v) for v in (operand0, operand1) if isinstance(v, (_view.View, _ops.Pending))]
    data = _ops.value(data)

    def values(x, vector=None, vector2=None):  # each operand a number or a [P, 1] tile
        tiles = iter([vector, vector2])
        first, second = (next(tiles) if isinstance(v, (_view.View, _ops.Pending)) else v for v in (operand0, operand1))
        first = _ops.free_column(first, x.shape)
        out = _values.binary(_fn(op0))(first, x) if reverse0 else _values.binary(_fn(op0))(x, first)
        if op1 is not None:
            out = _values.binary(_fn(op1))(out, _ops.free_column(second, x.shape))
        return out
    # Two [P, 1] operands: the record names the first as src2; the second is a read of one
    # element per partition that the cost (N elements of data) does not count, kept for hazards.
    return _ops.lazy(_engine("tensor_scalar", engine), fn, [data, *vectors[:1]], data.shape, dtype,
                     isa="tensor_scalar", values=values if len(vectors) < 2 else _two_vectors(values, vectors[1]),
                     extra_reads=vectors[1:])


def _two_vectors(values, second):
    """values(x, first) of a tensor_scalar whose second [P, 1] operand is not a record operand."""
    return lambda x, first: values(x, first, _values.get(second))


@_writes_dst(0)
def tensor_reduce(op, data, axis, dtype=None, negate=False, keepdims=False, mask=None, **_):
    """One VectorE `tensor_reduce` along free axes."""
    return _ops.reduce(_fn(op), data, axis, dtype, engine="dve", keepdims=keepdims)


@_writes_dst(0, takes_dst=True)
def activation(op, data, bias=None, scale=1.0, reduce_op=None, reduce_res=None, reduce_cmd=None, dtype=None,
               mask=None, dst=None, **_):
    """One ScalarE instruction: `activation`, or `activation_reduce` when it also reduces into
    reduce_res or the engine's reduction registers (reduce_cmd other than idle): the reduction is
    part of the instruction, one record writing both."""
    tiles = [x for x in (bias, scale) if isinstance(x, (_view.View, _ops.Pending))][:1]
    data = _ops.value(data)
    also = [_ops.value(reduce_res)] if reduce_res is not None else []
    isa = "activation_reduce" if also or reduce_cmd not in (None, "idle") else "activation"

    def values(x, tile=None):  # op(x * scale + bias), then the reduction along the free axes
        bias_v, scale_v = (tile if isinstance(v, (_view.View, _ops.Pending)) else v for v in (bias, scale))
        out = _values.activation(_fn(op))(x * _ops.free_column(scale_v, x.shape) +
                                          _ops.free_column(0.0 if bias_v is None else bias_v, x.shape))
        if not also:
            return out
        return out, _values.reduction(_fn(reduce_op or "add"), out, tuple(range(1, out.ndim)), True)
    pending = _ops.lazy("act", _fn(op), [data, *tiles], data.shape, dtype, dst=dst, isa=isa, also_writes=also,
                        values=values)
    return _reduced(pending, also)


@_writes_dst(0, takes_dst=True)
def activation_reduce(op, data, reduce_op, reduce_res, bias=None, scale=1.0, dtype=None, mask=None, dst=None, **_):
    """One ScalarE `activation_reduce` writing the output and reduce_res."""
    return activation(op, data, bias=bias, scale=scale, reduce_op=reduce_op, reduce_res=reduce_res, dtype=dtype,
                      dst=dst)


def iota(*args, **kwargs):
    """The returning form iota(expr, dtype): a new tile of the index expression's values."""
    dst, args = _split_dst(args, kwargs, 0)
    if dst is not None:
        raise fail("nisa.iota with a dst argument is not modelled (its pattern arguments differ from "
                   "iota(expr, dtype)); write `t = nisa.iota(nl.arange(P)[:, None], dtype)` instead")
    return _iota(*args, **kwargs)


def _iota(expr, dtype, mask=None, **_):
    """One GpSimd `iota` writing the index expression's values over its grid: nl.mgrid's ranges
    (or oriented nl.arange ones) and their integer combinations."""
    if isinstance(expr, tuple):
        terms, const, shape = list(expr), 0, tuple(a.size for a in expr)
        axes = list(range(len(expr)))
    else:
        terms, const = (expr.terms, expr.const) if isinstance(expr, _indices.IndexExpr) else ([expr], 0)
        grids = {t.grid for t in terms if t.grid is not None}
        if len(grids) > 1:
            shape = tuple(max(g[d] if d < len(g) else 1 for g in grids) for d in range(max(map(len, grids))))
        elif grids:
            shape = grids.pop()
        else:
            shape = (terms[0].size, 1) if len(terms) == 1 else None
        if shape is None:
            raise fail("nisa.iota of an expression of nl.arange ranges without axes: orient them ([:, None]) or "
                       "use nl.mgrid")
        axes = [t.axis if t.axis is not None else 0 for t in terms]
    tile = _tracer.tracer().new_tensor(shape, dtype_of(dtype), "sbuf")

    def grid():
        np = _values.np
        out = np.zeros(shape) + const
        for t, axis in zip(terms, axes):
            along = [-1 if d == axis else 1 for d in range(len(shape))]
            out = out + (np.arange(t.size) * t.step + t.start).reshape(along)
        return out
    _compute.compute("pool", "iota", [], tile, "iota", grid)
    return tile


def memset(*args, **kwargs):
    """A fill: memset(shape, value, dtype, engine=) returns a new SBUF tile, memset(dst, value,
    engine=) fills dst."""
    dst, args = _split_dst(args, kwargs, 0)
    if dst is not None:
        return _fill(_ops.value(dst), *args, **kwargs)
    return _fill_new(*args, **kwargs)


def _fill(dst, value, engine=None, mask=None, **_):
    _ops.memset(dst, value, engine=engine)
    return dst


def _fill_new(shape, value, dtype, engine=None, mask=None, **_):
    return _fill(_tracer.tracer().new_tensor(shape, dtype_of(dtype), "sbuf"), value, engine)


@_writes_dst(2, takes_dst=True)
def tensor_copy_predicated(src, predicate, dst=None, reverse_pred=False, dtype=None, mask=None, **_):
    """Copies src (a tile or a number) into dst where the predicate holds, on VectorE."""
    pred = _ops.value(predicate)
    srcs = [_ops.value(src)] if isinstance(src, (_view.View, _ops.Pending)) else []
    shape = pred.shape
    target = dst

    def values(*arrays):  # where the predicate holds the source, elsewhere what dst held
        p = arrays[-1] != 0
        if reverse_pred:
            p = ~p
        new = arrays[0] if srcs else src
        old = _values.get(target) if target is not None else 0.0
        return _values.np.where(p, new, old)
    return _ops.lazy("dve", "copy_predicated", [*srcs, pred], shape, dtype or (srcs[0].dtype if srcs else pred.dtype),
                     dst=dst, isa="tensor_copy_predicated", values=values)


select = _ops.select


class reduce_cmd:
    """nki.isa.reduce_cmd: what an activation does with the Scalar Engine's reduction registers.
    Any command but idle makes the instruction an `activation_reduce` (the reduction's
    accumulator read is its extra cost, docs/engines.md)."""
    idle, reset, reduce, reset_reduce, load_reduce = "idle", "reset", "reduce", "reset_reduce", "load_reduce"


class nc_version:
    """nki.isa.nc_version: the NeuronCore generation a kernel runs on (get_nc_version())."""
    gen2, gen3, gen4 = 2, 3, 4


_NC_VERSION = {"sunda": nc_version.gen2, "cayman": nc_version.gen3, "mariana": nc_version.gen4}


def get_nc_version():
    """The traced generation's NeuronCore version (sunda v2, cayman v3, mariana v4)."""
    return _NC_VERSION[_tracer.tracer().generation]


@_writes_dst(1)
def reciprocal(data, dtype=None, mask=None, engine=None, **_):
    """1/x element-wise on the Vector Engine: one `dve isa=reciprocal` record (its cost, 8N, is the
    nki.isa reciprocal estimate: docs/engines.md)."""
    x = _ops.value(data)
    return _ops.lazy(engine or "dve", "reciprocal", [x], x.shape, dtype, isa="reciprocal",
                     values=lambda v: 1.0 / v)


@_writes_dst(1, takes_dst=True)
def tensor_scalar_reduce(data, op0, operand0, reduce_op, reduce_res, reverse0=False, dtype=None, mask=None,
                         dst=None, **_):
    """(data op0 operand0) on the Vector Engine, reduced along the free axis with reduce_op into
    reduce_res ([P, 1]) by the same instruction: one `dve isa=tensor_scalar_reduce` record writing
    both."""
    x = _ops.value(data)
    vectors = [_ops.value(operand0)] if _is_tile(operand0) else []
    res = _ops.value(reduce_res)

    def values(v, vector=None):
        operand = _ops.free_column(vector if vectors else operand0, v.shape)
        out = _values.binary(_fn(op0))(operand, v) if reverse0 else _values.binary(_fn(op0))(v, operand)
        return out, _values.reduction(_fn(reduce_op), out, tuple(range(1, out.ndim)), True)
    pending = _ops.lazy("dve", f"{_fn(op0)}+{_fn(reduce_op)}", [x, *vectors], x.shape, dtype, dst=dst,
                        isa="tensor_scalar_reduce", also_writes=[res], values=values)
    return _reduced(pending, [res])


@_writes_dst(2)
def tensor_tensor_scan(data0, data1, initial, op0, op1, reverse0=False, reverse1=False, dtype=None, mask=None,
                       **_):
    """The scan out[i] = (out[i-1] op0 data0[i]) op1 data1[i] along the free axis, starting from
    `initial` (a number or a [P, 1] tile), on the Vector Engine: one `dve isa=tensor_tensor_scan`
    record reading both tiles (a tile `initial` is a third read the record cannot name: it is
    counted in the hazards, not in the cost, one element per partition)."""
    a, b = _ops.value(data0), _ops.value(data1)
    if a.free_elements != b.free_elements or a.partitions != b.partitions:
        raise fail(f"tensor_tensor_scan of {a.shape} and {b.shape}: both tiles need the same shape")
    first = _ops.value(initial) if _is_tile(initial) else None

    def values(x, y):
        np = _values.np
        start = _values.get(first) if first is not None else initial
        out = np.empty_like(x, dtype=np.float32)
        acc = np.broadcast_to(np.asarray(start, dtype=np.float32).reshape(-1, 1), (x.shape[0], 1))[:, 0]
        flat_x, flat_y = x.reshape(x.shape[0], -1), y.reshape(y.shape[0], -1)
        flat_out = out.reshape(out.shape[0], -1)
        for i in range(flat_x.shape[1]):
            acc = _values.binary(_fn(op1))(_values.binary(_fn(op0))(acc, flat_x[:, i]), flat_y[:, i])
            flat_out[:, i] = acc
        return out
    return _ops.lazy("dve", f"{_fn(op0)}+{_fn(op1)}", [a, b], a.shape, dtype, isa="tensor_tensor_scan",
                     values=values, extra_reads=[first] if first is not None else [])


@_writes_dst(1)
def scalar_tensor_tensor(data, op0, operand0, op1, operand1, reverse0=False, reverse1=False, dtype=None,
                         mask=None, engine=None, **_):
    """(data op0 operand0) op1 operand1, operand0 a number or [P, 1] tile, operand1 a tile, on
    the Vector Engine: one `dve isa=scalar_tensor_tensor` record reading data and operand1 (a
    [P, 1] operand0 is a third read: in the hazards, not in the cost)."""
    x, other = _ops.value(data), _ops.value(operand1)
    scalar = _ops.value(operand0) if _is_tile(operand0) else None

    def values(v, w):
        first = _ops.free_column(_values.get(scalar) if scalar is not None else operand0, v.shape)
        out = _values.binary(_fn(op0))(first, v) if reverse0 else _values.binary(_fn(op0))(v, first)
        return _values.binary(_fn(op1))(w, out) if reverse1 else _values.binary(_fn(op1))(out, w)
    return _ops.lazy(engine or "dve", f"{_fn(op0)}+{_fn(op1)}", [x, other], x.shape, dtype,
                     isa="scalar_tensor_tensor", values=values, extra_reads=[scalar] if scalar is not None else [])


BN_STATS_FMAX = 512  # nl.tile_size.bn_stats_fmax


@_writes_dst(1)
def bn_stats(data, dtype=None, mask=None, **_):
    """Per-partition mean and variance statistics of up to 512 elements on the Vector Engine: one
    `dve isa=bn_stats` record writing 6 values per partition."""
    x = _ops.value(data)
    if x.free_elements > BN_STATS_FMAX:
        raise fail(f"bn_stats of {x.free_elements} elements per partition: at most {BN_STATS_FMAX} "
                   "(nl.tile_size.bn_stats_fmax)")
    return _ops.lazy("dve", "bn_stats", [x], (x.shape[0], 6), dtype, isa="bn_stats")


@_writes_dst(1)
def bn_aggr(data, dtype=None, mask=None, **_):
    """The mean and variance from bn_stats results (6 values per group) on the Vector Engine: one
    `dve isa=bn_aggr` record writing 2 values per partition."""
    x = _ops.value(data)
    return _ops.lazy("dve", "bn_aggr", [x], (x.shape[0], 2), dtype, isa="bn_aggr")


_MAX8_FMIN, _MAX8_FMAX = 8, 16384  # elements read per partition (nki.isa max8)


@_writes_dst(1)
def max8(src, dtype=None, mask=None, **_):
    """The 8 largest values of each partition in descending order, on the Vector Engine: one `dve
    isa=max8` record writing [P, 8] (its cost, N for N elements read per partition, is the nki.isa
    max8 estimate: docs/engines.md)."""
    x = _ops.value(src)
    if not _MAX8_FMIN <= x.free_elements <= _MAX8_FMAX:
        raise fail(f"max8 of {x.free_elements} elements per partition: it reads {_MAX8_FMIN} to {_MAX8_FMAX} "
                   "(nki.isa max8)")

    def values(v):  # in fp32, as the engine compares them
        return -_values.np.sort(-v.reshape(v.shape[0], -1), axis=1)[:, :8]
    return _ops.lazy("dve", "max8", [x], (x.shape[0], 8), dtype, isa="max8", values=values)


def affine_select(pred, on_true_tile, on_false_value, dtype=None, mask=None, **_):
    """on_true_tile where the affine predicate of the indices holds, on_false_value elsewhere, on
    GpSimd: one `pool isa=affine_select` record (its start-up, GPSIMD_START, is the nki.isa
    estimate). The predicate is an index expression: its values are not computed."""
    x = _compute.to_sbuf(_ops.value(on_true_tile))  # GpSimd cannot reach PSUM
    if _tracer.tracer().values:
        raise fail("numerical values of affine_select (its index predicate) are not modelled: trace without --input")
    return _ops.lazy("pool", "affine_select", [x], x.shape, dtype, isa="affine_select")


_FP32_MIN = -3.4028234663852886e38  # range_select's on_false_value when none is given (nki.isa)
_REDUCE_NAMES = {"amax": "max", "amin": "min"}  # numpy's names, the public defaults of reduce_op


def _available(name, version):
    """Refuses `name` on a generation older than NeuronCore-v`version` (nki.isa's notes)."""
    generation = _tracer.tracer().generation
    if _NC_VERSION[generation] < version:
        names = " or ".join(g for g, v in _NC_VERSION.items() if v >= version)
        raise fail(f"{name} is available on NeuronCore-v{version} and newer (nki.isa); {generation} has none "
                   f"(trace with --gen {names})")


def _column(name, value, data):
    """An operand that is a number or one value per partition of `data`: the [P, 1] tile, or None
    for a number; anything else is refused naming `name`."""
    if _is_tile(value):
        tile = _ops.value(value)
        if tile.partitions != data.partitions or tile.free_elements != 1:
            raise fail(f"{name} {tile.shape}: one value per partition of a [{data.partitions}, ...] tile, "
                       f"[{data.partitions}, 1]")
        return tile
    if isinstance(value, bool) or not hasattr(value, "__float__"):
        raise fail(f"{name}={value!r}: a number or a [P, 1] tile")
    return None


def _reduction_tiles(name, reduce_res, data):
    """[the [P, 1] tile an instruction's reduction is written into], or [] without one."""
    if reduce_res is None:
        return []
    if not _is_tile(reduce_res):
        raise fail(f"{name}={reduce_res!r}: a [{data.partitions}, 1] tile the reduction is written into")
    return [_column(name, reduce_res, data)]


def _reduced(pending, also):
    """A result whose instruction also writes the reduction tiles `also`: traced whether or not the
    result itself is used."""
    if also and isinstance(pending, _ops.Pending):
        _tracer.tracer().must_write(pending)
    return pending


def exponential(dst=None, src=None, max_value=0.0, reduce_res=None, reduce_cmd=None, reduce_init=0.0, name=None,
                **_):
    """exp(src - max_value) element-wise on the Vector Engine (NeuronCore-v4), max_value a number
    or a [P, 1] tile, the sum of each partition's results into reduce_res when given: one `dve
    isa=exponential` record (its cost, N/4, the trn3 guide's four times ScalarE's rate)."""
    _available("exponential", 4)
    if dst is None or src is None:
        raise fail("exponential(dst, src, max_value=...): nki.isa writes its result into dst; give both tiles")
    x, out = _ops.value(src), _ops.value(dst)
    vector = _column("exponential max_value", max_value, x)
    also = _reduction_tiles("exponential reduce_res", reduce_res, x)
    init = _column("exponential reduce_init", reduce_init, x)
    if (init is not None or reduce_init != 0.0) and reduce_cmd != "load_reduce":
        raise fail("exponential reduce_init: nki.isa loads it only with reduce_cmd=load_reduce; leave it 0.0 "
                   "otherwise")

    def values(v):
        shift = _ops.free_column(_values.get(vector) if vector is not None else max_value, v.shape)
        result = _values.np.exp(v - shift)
        if not also:
            return result
        start = _values.get(init).reshape(-1, *([1] * (v.ndim - 1))) if init is not None else reduce_init
        return result, _values.reduction("add", result, tuple(range(1, result.ndim)), True) + start
    _ops.lazy("dve", "exp", [x], x.shape, None, dst=out, isa="exponential", also_writes=also, values=values,
              extra_reads=[vector, init])
    return dst


def range_select(dst=None, on_true_tile=None, comp_op0=None, comp_op1=None, bound0=None, bound1=None,
                 reduce_cmd=None, reduce_res=None, reduce_op=None, range_start=0, on_false_value=_FP32_MIN,
                 mask=None, dtype=None, name=None, **_):
    """on_true_tile's elements whose free index plus range_start passes both comparisons with the
    [P, 1] bounds, on_false_value elsewhere, on the Vector Engine (NeuronCore-v3 and newer),
    reduced into reduce_res when given (max unless reduce_op says): one `dve isa=range_select`
    record reading the tile (the bounds are read too: in the hazards, not in the cost)."""
    _available("range_select", 3)
    if on_true_tile is None or comp_op0 is None or comp_op1 is None or bound0 is None or bound1 is None:
        raise fail("range_select needs on_true_tile, comp_op0, comp_op1, bound0 and bound1 (nki.isa)")
    x = _ops.value(on_true_tile)
    bounds = [_column("range_select bound", b, x) for b in (bound0, bound1)]
    if _is_tile(on_false_value):
        raise fail("range_select on_false_value: a number (nki.isa), not a tile")
    _column("range_select on_false_value", on_false_value, x)
    also = _reduction_tiles("range_select reduce_res", reduce_res, x)
    first, second = _fn(comp_op0), _fn(comp_op1)
    reduce = _REDUCE_NAMES.get(_fn(reduce_op), _fn(reduce_op)) if reduce_op is not None else "max"

    def values(v):
        np = _values.np
        index = np.arange(v[0].size, dtype=np.float32).reshape(v.shape[1:]) + range_start
        low, high = (_ops.free_column(_values.get(t) if t is not None else b, v.shape)
                     for t, b in zip(bounds, (bound0, bound1)))
        keep = (_values.binary(first)(index, low) != 0) & (_values.binary(second)(index, high) != 0)
        result = np.where(keep, v, np.float32(on_false_value))
        if not also:
            return result
        return result, _values.reduction(reduce, result, tuple(range(1, result.ndim)), True)
    pending = _ops.lazy("dve", f"{first}+{second}", [x], x.shape, dtype, dst=_ops.value(dst) if dst is not None
                        else None, isa="range_select", also_writes=also, values=values, extra_reads=bounds)
    return dst if dst is not None else _reduced(pending, also)


def select_reduce(dst=None, predicate=None, on_true=None, on_false=None, reduce_res=None, reduce_cmd=None,
                  reduce_op=None, reverse_pred=False, mask=None, dtype=None, name=None, **_):
    """on_true where the predicate holds (or fails, with reverse_pred), on_false (a number or a
    [P, 1] tile) elsewhere, into dst on the Vector Engine, the maximum of each partition's results
    into reduce_res when given: one `dve isa=select_reduce` record reading on_true and the
    predicate (N with one of them in PSUM, else 2N)."""
    if dst is None or predicate is None or on_true is None or on_false is None:
        raise fail("select_reduce(dst, predicate, on_true, on_false, ...): nki.isa writes into dst; give all four")
    if reduce_op is not None and _REDUCE_NAMES.get(_fn(reduce_op), _fn(reduce_op)) != "max":
        raise fail(f"select_reduce reduce_op={_fn(reduce_op)}: nki.isa supports only the maximum")
    x, pred, out = _ops.value(on_true), _ops.value(predicate), _ops.value(dst)
    if x.buffer == pred.buffer == "psum":
        raise fail("select_reduce with on_true and the predicate in PSUM: nki.isa allows one of them there")
    if pred.free_elements != x.free_elements or pred.partitions != x.partitions:
        raise fail(f"select_reduce of on_true {x.shape} and predicate {pred.shape}: nki.isa needs one shape")
    other = _column("select_reduce on_false", on_false, x)
    also = _reduction_tiles("select_reduce reduce_res", reduce_res, x)

    def values(v, p):
        np = _values.np
        keep = (p != 0) if not reverse_pred else (p == 0)
        result = np.where(keep, v, _ops.free_column(_values.get(other) if other is not None else on_false, v.shape))
        if not also:
            return result
        return result, _values.reduction("max", result, tuple(range(1, result.ndim)), True)
    _ops.lazy("dve", "select+max" if also else "select", [x, pred], x.shape, None, dst=out, isa="select_reduce",
              also_writes=also, values=values, extra_reads=[other])
    return dst


def dropout(*args, **kwargs):
    """Each element of data zeroed with probability prob (a number or a [P, 1] tile), on the
    Vector Engine: one `dve isa=dropout` record (its cost, N, the nki.isa estimate). Which
    elements drop is random, so values mode refuses it. Both forms: dropout(data, prob) returns
    the result, dropout(dst, data, prob) writes it into dst."""
    dst = kwargs.pop("dst", None)
    if dst is None and len(args) == 3:
        dst, args = args[0], args[1:]
    return _dropout(*args, dst=dst, **kwargs)


def _dropout(data=None, prob=None, dst=None, mask=None, dtype=None, name=None, **_):
    if data is None or prob is None:
        raise fail("dropout needs data and prob (nki.isa)")
    if _tracer.tracer().values:
        raise fail("numerical values of dropout (a random choice of elements) are not modelled: trace without --input")
    x = _ops.value(data)
    vector = _column("dropout prob", prob, x)
    if vector is None and not 0.0 <= float(prob) <= 1.0:
        raise fail(f"dropout prob={prob}: a probability is 0.0 to 1.0")
    pending = _ops.lazy("dve", "dropout", [x], x.shape, dtype, dst=_ops.value(dst) if dst is not None else None,
                        isa="dropout", extra_reads=[vector])
    return dst if dst is not None else pending


# ops names usable as op= arguments alongside nl.* (nl.add etc. carry their own __name__)
add, subtract, multiply, maximum, minimum = _nl.add, _nl.subtract, _nl.multiply, _nl.maximum, _nl.minimum


__getattr__ = module_getattr("nisa")
