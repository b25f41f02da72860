"""Row softmax of x[R, D]: 128 rows per tile, the row maximum and sum reduced on VectorE, the
exponential on ScalarE, the row maximum subtracted as a per-partition tensor_scalar operand. sbufsim nki examples/nki/softmax.py::softmax --input x=bf16[1024,2048]"""

from neuronxcc import nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl


@nki.jit
def softmax(x):
    R, D = x.shape
    P = nl.tile_size.pmax
    out = nl.ndarray((R, D), dtype=x.dtype, buffer=nl.shared_hbm)
    for r in nl.affine_range(R // P):
        rows = nl.load(x[r * P:(r + 1) * P, :], dtype=nl.float32)
        peak = nisa.tensor_reduce(nl.max, rows, axis=1, keepdims=True)
        shifted = nisa.tensor_scalar(rows, nl.subtract, peak)  # one value per partition
        e = nisa.activation(nl.exp, shifted)
        total = nl.sum(e, axis=1, keepdims=True)
        inv = nl.reciprocal(total)
        y = nl.multiply(e, inv, dtype=x.dtype)
        nl.store(out[r * P:(r + 1) * P, :], value=y)
    return out
