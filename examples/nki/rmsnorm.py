"""RMSNorm of x[R, D] with a weight g[1, D]: y = x / sqrt(mean(x^2) + eps) * g, 128 rows per tile.
sbufsim nki examples/nki/rmsnorm.py::rmsnorm --input x=bf16[2048,1024] --input g=bf16[1,1024]

The weight is needed on every partition: a K = 1 matmul of a row of ones by g broadcasts it
across the partitions on the PE, once. Per row tile, ScalarE squares and sums in one
activation_reduce, VectorE turns the sum into 1/rms with a tensor_scalar and scales the rows,
then multiplies by the weight (tensor_tensor)."""

import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def rmsnorm(x, g, EPS=1e-6):
    R, D = x.shape
    P = nl.tile_size.pmax
    F = nl.tile_size.gemm_moving_fmax  # one matmul broadcasts 512 columns of g
    out = nl.ndarray((R, D), dtype=x.dtype, buffer=nl.shared_hbm)

    g_row = nl.load(g[0:1, :])
    ones = nisa.memset((1, P), 1.0, nl.bfloat16)
    g_all = nl.ndarray((P, D), dtype=x.dtype, buffer=nl.sbuf)
    for c in nl.affine_range((D + F - 1) // F):
        width = min(F, D - c * F)
        g_psum = nisa.nc_matmul(ones, g_row[:, c * F:c * F + width])
        g_all[:, c * F:c * F + width] = nl.copy(g_psum, dtype=x.dtype)

    for r in nl.affine_range(R // P):
        rows = nl.load(x[r * P:(r + 1) * P, :])
        square_sum = nl.ndarray((P, 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.activation_reduce(op=nl.square, data=rows, reduce_op=nl.add, reduce_res=square_sum)
        mean = nisa.tensor_scalar(square_sum, nl.multiply, 1.0 / D, op1=nl.add, operand1=EPS)
        inv_rms = nl.rsqrt(mean)
        scaled = nisa.tensor_scalar(rows, nl.multiply, inv_rms)
        y = nl.multiply(scaled, g_all, dtype=x.dtype)
        nl.store(out[r * P:(r + 1) * P, :], value=y)
    return out
