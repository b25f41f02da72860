"""The Tensor Engine: a matmul is an `ldweights` of the stationary tile and a `matmul` streaming
the moving one into a PSUM accumulation group (begin/mid/end flags, closed when the tile is
read); a PE transpose is a matmul against an identity built once on GpSimd."""

from . import _values
from ._allocator import PARTITIONS
from ._compute import check_on_chip, compute, to_sbuf
from ._dtypes import dtype_of
from ._errors import _deferred_sites, fail, kernel_site
from ._ops import Pending, copy, value
from ._tracer import ENGINE_QUEUES, tracer

MOVING_FMAX = 512
STATIONARY_FMAX = 128
# generations whose PE transposes write PSUM in the data's dtype (configs: pe.transpose_passthrough,
# NeuronCore-v3's transpose mode); elsewhere a transpose is an fp32 matmul against an identity
TRANSPOSE_PASSTHROUGH = {"cayman", "mariana"}


class MatmulPending(Pending):
    """A matmul (or PE transpose) waiting for its PSUM destination: `acc += ...` accumulates."""

    accumulates = True  # `acc += matmul(...)` accumulates into acc's group (_ops.accumulate)

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
        # `acc += nl.matmul(...)`: the records name the call that made the matmul, as a deferred
        # op's do, not the `+=` (which no nl/nisa function is on the way to)
        _deferred_sites.append(self.site)
        try:
            self._emit(dst, accumulate=True)
        finally:
            _deferred_sites.pop()
        self.result = dst

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
