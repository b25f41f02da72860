"""The tiled GEMM of matmul.py's stage 1, result[M, N] = lhsT[K, M].T @ rhs[K, N], written in the
`nki` package's style: tile grids (nl.tiles) address the HBM tiles, and every nki.isa instruction
writes its destination, given first. It traces to the same records as matmul_tiled."""

import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def matmul_grid(lhsT, rhs):
    result = nl.ndarray((lhsT.shape[1], rhs.shape[1]), dtype=lhsT.dtype, buffer=nl.shared_hbm)
    lhsT_tiles = nl.tiles(lhsT, tile_shape=(128, 128))  # [K / 128, M / 128] tiles
    rhs_tiles = nl.tiles(rhs, tile_shape=(128, 512))  # [K / 128, N / 512]
    result_tiles = nl.tiles(result, tile_shape=(128, 512))  # [M / 128, N / 512]

    for m in nl.affine_range(result_tiles.shape[0]):
        for n in nl.affine_range(result_tiles.shape[1]):
            acc = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum)
            for k in nl.affine_range(lhsT_tiles.shape[0]):
                stationary = nl.empty_like(lhsT_tiles[k, m], buffer=nl.sbuf)
                moving = nl.empty_like(rhs_tiles[k, n], buffer=nl.sbuf)
                nisa.dma_copy(dst=stationary.data, src=lhsT_tiles[k, m].data)
                nisa.dma_copy(dst=moving.data, src=rhs_tiles[k, n].data)
                nisa.nc_matmul(dst=acc, stationary=stationary.data, moving=moving.data)  # sums over k
            tile = nl.ndarray((128, 512), dtype=result.dtype, buffer=nl.sbuf)
            nisa.tensor_copy(dst=tile, src=acc, engine=nisa.scalar_engine)  # as nl.copy
            nisa.dma_copy(dst=result_tiles[m, n].data, src=tile)
    return result
