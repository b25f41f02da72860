"""out[N, M] = x[M, N].T through the PE: each 128 x 128 block is transposed into PSUM
(nisa.nc_transpose), copied to SBUF and stored at its mirrored place.
sbufsim nki examples/nki/transpose.py::transpose --input x=bf16[1024,1024]"""

import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def transpose(x):
    M, N = x.shape
    B = nl.tile_size.pmax
    out = nl.ndarray((N, M), dtype=x.dtype, buffer=nl.hbm)
    for i in nl.affine_range(M // B):
        for j in nl.affine_range(N // B):
            block = nl.ndarray((B, B), dtype=x.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=block, src=x[i * B:(i + 1) * B, j * B:(j + 1) * B])
            flipped = nisa.nc_transpose(block)
            back = nisa.tensor_copy(flipped, dtype=x.dtype)
            nl.store(out[j * B:(j + 1) * B, i * B:(i + 1) * B], value=back)
    return out
