"""A tiled GEMM, result[M, N] = lhsT[K, M].T @ rhs[K, N], in the four classic optimisation stages.
Run one with: sbufsim nki examples/nki/matmul.py::matmul_tiled --input lhsT=bf16[2048,2048]
--input rhs=bf16[2048,2048]."""

import nki
import nki.isa as nisa
import nki.language as nl

TILE_K = nl.tile_size.pmax                   # contraction: 128 partitions
TILE_M = nl.tile_size.gemm_stationary_fmax   # stationary free size: 128
TILE_N = nl.tile_size.gemm_moving_fmax       # moving free size: 512 (one 2 KiB PSUM bank of fp32)


@nki.jit
def matmul_tiled(lhsT, rhs):
    """Stage 1: every output tile loads its K strip of both operands inside the K loop."""
    K, M = lhsT.shape
    _, N = rhs.shape
    result = nl.ndarray((M, N), dtype=lhsT.dtype, buffer=nl.shared_hbm)
    for m in nl.affine_range(M // TILE_M):
        for n in nl.affine_range(N // TILE_N):
            acc = nl.zeros((TILE_M, TILE_N), nl.float32, buffer=nl.psum)
            for k in nl.affine_range(K // TILE_K):
                a = nl.ndarray((TILE_K, TILE_M), dtype=lhsT.dtype, buffer=nl.sbuf)
                b = nl.ndarray((TILE_K, TILE_N), dtype=rhs.dtype, buffer=nl.sbuf)
                a[...] = nl.load(lhsT[k * TILE_K:(k + 1) * TILE_K, m * TILE_M:(m + 1) * TILE_M])
                b[...] = nl.load(rhs[k * TILE_K:(k + 1) * TILE_K, n * TILE_N:(n + 1) * TILE_N])
                acc += nl.matmul(a, b, transpose_x=True)
            out = nl.copy(acc, dtype=result.dtype)
            nl.store(result[m * TILE_M:(m + 1) * TILE_M, n * TILE_N:(n + 1) * TILE_N], value=out)
    return result


@nki.jit
def matmul_hoisted(lhsT, rhs):
    """Stage 2: the stationary strip of a row of output tiles is loaded once, outside the N and
    K loops, and kept in SBUF while every N tile reuses it."""
    K, M = lhsT.shape
    _, N = rhs.shape
    KT = K // TILE_K
    result = nl.ndarray((M, N), dtype=lhsT.dtype, buffer=nl.shared_hbm)
    for m in nl.affine_range(M // TILE_M):
        a = nl.ndarray((KT, nl.par_dim(TILE_K), TILE_M), dtype=lhsT.dtype, buffer=nl.sbuf)
        for k in nl.affine_range(KT):
            a[k] = nl.load(lhsT[k * TILE_K:(k + 1) * TILE_K, m * TILE_M:(m + 1) * TILE_M])
        for n in nl.affine_range(N // TILE_N):
            b = nl.ndarray((KT, nl.par_dim(TILE_K), TILE_N), dtype=rhs.dtype, buffer=nl.sbuf)
            for k in nl.affine_range(KT):
                b[k] = nl.load(rhs[k * TILE_K:(k + 1) * TILE_K, n * TILE_N:(n + 1) * TILE_N])
            acc = nl.zeros((TILE_M, TILE_N), nl.float32, buffer=nl.psum)
            for k in nl.affine_range(KT):
                acc += nl.matmul(a[k], b[k], transpose_x=True)
            out = nl.copy(acc, dtype=result.dtype)
            nl.store(result[m * TILE_M:(m + 1) * TILE_M, n * TILE_N:(n + 1) * TILE_N], value=out)
    return result


@nki.jit
def matmul_blocked(lhsT, rhs, TILES_IN_BLOCK_M=4):
    """Stage 3: the free dimension M is blocked — a block of TILES_IN_BLOCK_M stationary strips
    stays in SBUF, so each moving strip loaded from HBM feeds that many output tiles."""
    K, M = lhsT.shape
    _, N = rhs.shape
    KT = K // TILE_K
    BM = TILE_M * TILES_IN_BLOCK_M
    result = nl.ndarray((M, N), dtype=lhsT.dtype, buffer=nl.shared_hbm)
    for mb in nl.affine_range(M // BM):
        a = nl.ndarray((KT, nl.par_dim(TILE_K), BM), dtype=lhsT.dtype, buffer=nl.sbuf)
        for k in nl.affine_range(KT):
            a[k] = nl.load(lhsT[k * TILE_K:(k + 1) * TILE_K, mb * BM:(mb + 1) * BM])
        for n in nl.affine_range(N // TILE_N):
            b = nl.ndarray((KT, nl.par_dim(TILE_K), TILE_N), dtype=rhs.dtype, buffer=nl.sbuf)
            for k in nl.affine_range(KT):
                b[k] = nl.load(rhs[k * TILE_K:(k + 1) * TILE_K, n * TILE_N:(n + 1) * TILE_N])
            for m in nl.affine_range(TILES_IN_BLOCK_M):
                acc = nl.zeros((TILE_M, TILE_N), nl.float32, buffer=nl.psum)
                for k in nl.affine_range(KT):
                    acc += nl.matmul(a[k, :, m * TILE_M:(m + 1) * TILE_M], b[k], transpose_x=True)
                out = nl.copy(acc, dtype=result.dtype)
                row = mb * BM + m * TILE_M
                nl.store(result[row:row + TILE_M, n * TILE_N:(n + 1) * TILE_N], value=out)
    return result


@nki.jit
def matmul_block_all(lhsT, rhs, TILES_IN_BLOCK_M=16, TILES_IN_BLOCK_N=2, TILES_IN_BLOCK_K=8):
    """Stage 4: every dimension blocked. For a block of N columns, the K blocks run in sequence;
    each loads its K slice of rhs once for all M blocks, accumulates every output tile's K block
    in PSUM and adds that partial sum into the output block kept in SBUF (VectorE reads PSUM).
    The output block goes to HBM once, after the last K block."""
    K, M = lhsT.shape
    _, N = rhs.shape
    BM, BN, BK = TILE_M * TILES_IN_BLOCK_M, TILE_N * TILES_IN_BLOCK_N, TILE_K * TILES_IN_BLOCK_K
    result = nl.ndarray((M, N), dtype=lhsT.dtype, buffer=nl.shared_hbm)
    for nb in nl.affine_range(N // BN):
        # the output block of these BN columns, all M rows, accumulated over the K blocks
        out = nl.zeros((M // BM, TILES_IN_BLOCK_M, TILES_IN_BLOCK_N, nl.par_dim(TILE_M), TILE_N),
                       dtype=lhsT.dtype, buffer=nl.sbuf)
        for kb in nl.sequential_range(K // BK):  # sequential: each K block adds into `out`
            b = nl.ndarray((TILES_IN_BLOCK_K, nl.par_dim(TILE_K), BN), dtype=rhs.dtype, buffer=nl.sbuf)
            for k in nl.affine_range(TILES_IN_BLOCK_K):
                row = kb * BK + k * TILE_K
                b[k] = nl.load(rhs[row:row + TILE_K, nb * BN:(nb + 1) * BN])
            for mb in nl.affine_range(M // BM):
                a = nl.ndarray((TILES_IN_BLOCK_K, nl.par_dim(TILE_K), BM), dtype=lhsT.dtype, buffer=nl.sbuf)
                for k in nl.affine_range(TILES_IN_BLOCK_K):
                    row = kb * BK + k * TILE_K
                    a[k] = nl.load(lhsT[row:row + TILE_K, mb * BM:(mb + 1) * BM])
                for n in nl.affine_range(TILES_IN_BLOCK_N):
                    for m in nl.affine_range(TILES_IN_BLOCK_M):
                        acc = nl.zeros((TILE_M, TILE_N), nl.float32, buffer=nl.psum)
                        for k in nl.affine_range(TILES_IN_BLOCK_K):
                            acc += nisa.nc_matmul(a[k, :, m * TILE_M:(m + 1) * TILE_M],
                                                  b[k, :, n * TILE_N:(n + 1) * TILE_N])
                        out[mb, m, n] += acc
        for mb in nl.affine_range(M // BM):
            for m in nl.affine_range(TILES_IN_BLOCK_M):
                rows = nl.ndarray((nl.par_dim(TILE_M), BN), dtype=lhsT.dtype, buffer=nl.sbuf)
                for n in nl.affine_range(TILES_IN_BLOCK_N):
                    rows[:, n * TILE_N:(n + 1) * TILE_N] = nl.copy(out[mb, m, n])
                row = mb * BM + m * TILE_M
                nl.store(result[row:row + TILE_M, nb * BN:(nb + 1) * BN], value=rows)
    return result
