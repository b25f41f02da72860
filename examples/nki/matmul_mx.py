"""An MXFP8 GEMM on NeuronCore-v4, result[M, N] = lhsT.T @ rhs, with offline-quantized operands.
Run with: sbufsim nki examples/nki/matmul_mx.py::matmul_mx --gen mariana
--input lhsT=fp8e4x4[512,512] --input lhsT_scale=uint8[64,512]
--input rhs=fp8e4x4[512,2048] --input rhs_scale=uint8[64,2048]

Each float8_e4m3fn_x4 element packs four values of the contraction axis, so a [128, F] x4 tile
holds K = 512; one uint8 scale covers 8 partitions x 4 values (32 values). The 16 scale rows of a
128-partition tile sit 4 at the start of each 32-partition quadrant, the quadrant of the data they
scale (MXFP matmul guide, "Scale Tensor"); the scale tile is allocated with all 128 partitions."""

import nki
import nki.isa as nisa
import nki.language as nl

TILE_K = nl.tile_size.pmax                   # 128 partitions of x4 elements: K = 512 a tile
TILE_M = nl.tile_size.gemm_stationary_fmax   # 128
TILE_N = nl.tile_size.gemm_moving_fmax       # 512 (one 2 KiB PSUM bank of fp32)
QUADRANT = 32
SCALES_PER_QUADRANT = QUADRANT // 8


def load_mx(data, scale, k, cols, width):
    """The x4 data tile [TILE_K, width] at (k, cols) and its scale tile, each quadrant's scale
    rows loaded into that quadrant."""
    tile = nl.ndarray((TILE_K, width), dtype=data.dtype, buffer=nl.sbuf)
    tile[...] = nl.load(data[k * TILE_K:(k + 1) * TILE_K, cols:cols + width])
    scales = nl.ndarray((TILE_K, width), dtype=nl.uint8, buffer=nl.sbuf)
    for q in nl.static_range(TILE_K // QUADRANT):
        row = (k * TILE_K + q * QUADRANT) // 8
        scales[q * QUADRANT:q * QUADRANT + SCALES_PER_QUADRANT, :] = nl.load(
            scale[row:row + SCALES_PER_QUADRANT, cols:cols + width])
    return tile, scales


@nki.jit
def matmul_mx(lhsT, lhsT_scale, rhs, rhs_scale):
    """Every output tile accumulates its K strip of MX matmuls in fp32 PSUM; the result is bf16."""
    KP, M = lhsT.shape
    _, N = rhs.shape
    result = nl.ndarray((M, N), dtype=nl.bfloat16, buffer=nl.shared_hbm)
    for m in nl.affine_range(M // TILE_M):
        for n in nl.affine_range(N // TILE_N):
            acc = nl.ndarray((TILE_M, TILE_N), dtype=nl.float32, buffer=nl.psum)
            for k in nl.affine_range(KP // TILE_K):
                a, a_scale = load_mx(lhsT, lhsT_scale, k, m * TILE_M, TILE_M)
                b, b_scale = load_mx(rhs, rhs_scale, k, n * TILE_N, TILE_N)
                nisa.nc_matmul_mx(acc, a, b, a_scale, b_scale, accumulate=k > 0)
            out = nl.copy(acc, dtype=nl.bfloat16)
            nl.store(result[m * TILE_M:(m + 1) * TILE_M, n * TILE_N:(n + 1) * TILE_N], value=out)
    return result
