"""nl.tiles(): tile grids over tensors (shape in tiles, partial edge tiles, untiled leading
dimensions, `.data` operands) and the example written with them."""

import re

import pytest

from sbufsim import nki
from sbufsim.nki import isa as nisa
from sbufsim.nki import language as nl
from nki_helpers import traced


def test_grid_shape_edges_and_leading_dimensions():
    seen = {}

    def k(a, b):
        g = nl.tiles(a, tile_shape=(128, 512))
        seen["shape"], seen["edge"] = g.shape, g[2, 1].element_shape
        seen["remainder"] = (g[2, 1].is_remainder, g[0, 0].is_remainder)
        seen["rows"], seen["rows_shape"] = g[0:2, :].element_shape, g[0:2, :].shape
        seen["retiled"] = nl.tiles(g[0:2, :], tile_shape=(64, 256)).shape
        h = nl.tiles(b, tile_shape=(128, 512))
        seen["lead"], seen["slab"], seen["slab_tile"] = h.shape, h[1].shape, h[1, 0, 0].element_shape
        seen["data"] = g[1, 0].data.shape
        return a

    kt = nki.trace(k, {"a": "bf16[300,700]", "b": "bf16[4,256,512]"})
    assert kt.records == []  # grids are views: making and indexing one emits nothing
    assert seen["shape"] == (3, 2)  # a partial last tile counts
    assert seen["edge"] == (44, 188) and seen["remainder"] == (True, False)
    assert seen["rows"] == (256, 700) and seen["rows_shape"] == (2, 2)
    assert seen["retiled"] == (4, 3)
    assert seen["lead"] == (4, 2, 1)  # the untiled leading dimension counts elements
    assert seen["slab"] == (2, 1) and seen["slab_tile"] == (128, 512)
    assert seen["data"] == (128, 512)


def test_grid_operands_move_the_selected_tile():
    def k(a):
        g = nl.tiles(a, tile_shape=(128, 256))
        t = nl.empty_like(g[1, 2], buffer=nl.sbuf)
        nisa.dma_copy(dst=t.data, src=g[1, 2].data)
        nisa.activation(t, nl.exp, t)  # a grid is a tile operand as its .data
        return a

    kt = nki.trace(k, {"a": "bf16[256,1024]"})
    dma, act = kt.records
    assert "partitions=128 bytes=512" in dma and dma.startswith("dma")
    assert act.startswith("act") and "fn=exp" in act


@pytest.mark.parametrize("call,message", [
    ("nl.tiles(a)", "needs tile_shape"),
    ("nl.tiles(a, tile_shape=(128, 0))", "positive integers"),
    ("nl.tiles(a, tile_shape=(128, 128))[5, 0]", r"tile coordinate 5 is outside 0\.\.1"),
    ("nl.tiles(a, tile_shape=(128, 128))[::2, 0]", "not modelled"),
    ("nl.tiles(a, tile_shape=(128, 128)).block_shape", r"the tile-grid attribute \.block_shape is not modelled"),
])
def test_grid_mistakes_are_errors_at_the_kernel_line(tmp_path, call, message):
    path = tmp_path / "k.py"
    path.write_text(f"import nki.language as nl\n\ndef k(a):\n    x = {call}\n    return a\n")
    with pytest.raises(nki.NkiError, match=rf"k\.py:4: .*{message}"):
        nki.trace(f"{path}::k", {"a": "bf16[256,256]"})


def test_the_grid_example_traces_as_the_tiled_stage():
    inputs = {"lhsT": "bf16[512,256]", "rhs": "bf16[512,1024]"}
    grid = traced("matmul_grid.py::matmul_grid", inputs)
    # the same records; their source locations name two kernel files

    def unlocated(kt):
        return [re.sub(r" loc=\S+", "", r) for r in kt.records]
    assert unlocated(grid) == unlocated(traced("matmul.py::matmul_tiled", inputs))
    assert sum(r.startswith("matmul") for r in grid.records) == 4 * 2 * 2  # K/128 x M/128 x N/512


def test_the_grid_example_computes_the_product(tmp_path):
    np = pytest.importorskip("numpy")
    rng = np.random.default_rng(7)
    a, b = rng.standard_normal((256, 128)).astype(np.float32), rng.standard_normal((256, 512)).astype(np.float32)
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "b.npy", b)
    (out,) = traced("matmul_grid.py::matmul_grid",
                    {"lhsT": f"bf16:{tmp_path / 'a.npy'}", "rhs": f"bf16:{tmp_path / 'b.npy'}"}).outputs
    assert np.allclose(out, a.T @ b, rtol=0.05, atol=0.5)
