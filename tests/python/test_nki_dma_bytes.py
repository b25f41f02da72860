"""The HBM bytes a traced kernel counts (the `# nki hbm_bytes=` line behind `sbufsim nki`'s HBM
traffic and GB/s): a DMA that casts counts the bytes of its HBM side, not of its SBUF side (the DMA
overview: a DMA may cast, "by first casting the source type to FP32"). The trace says the HBM end's
type (`bf16@hbm`), so the replay's HBM bytes (MBU, the HBM bandwidth it shares) are those too."""

import textwrap

from sbufsim import nki

from nki_helpers import replay


def _kernel(tmp_path, body):
    path = tmp_path / "cast.py"
    path.write_text("import nki\nimport nki.language as nl\n\n\n" + textwrap.dedent(body))
    return str(path)


def test_a_casting_store_counts_its_hbm_sides_bytes(tmp_path):
    path = _kernel(tmp_path, """\
        @nki.jit
        def store_bf16(x):
            out = nl.ndarray((128, 512), dtype=nl.bfloat16, buffer=nl.shared_hbm)
            t = nl.load(x)
            nl.store(out, value=t)
            return out
    """)
    kt = nki.trace(f"{path}::store_bf16", {"x": "fp32[128,512]"})
    assert "dst=bf16@hbm" in kt.records[-1] and "src=fp32@0x" in kt.records[-1]
    assert "src=hbm dst=fp32@0x" in kt.records[0]  # no cast: the HBM end is the tile's type
    # 256 KiB of fp32 read, 128 KiB of bf16 written (not the SBUF tile's 256 KiB again)
    assert kt.hbm_bytes == 128 * 512 * 4 + 128 * 512 * 2
    assert _replayed_hbm_bytes(kt, tmp_path) == kt.hbm_bytes


def test_a_casting_load_counts_its_hbm_sides_bytes(tmp_path):
    path = _kernel(tmp_path, """\
        @nki.jit
        def load_bf16(x):
            out = nl.ndarray((128, 512), dtype=nl.bfloat16, buffer=nl.shared_hbm)
            t = nl.ndarray((128, 512), dtype=nl.bfloat16, buffer=nl.sbuf)
            t[...] = nl.load(x)
            nl.store(out, value=t)
            return out
    """)
    kt = nki.trace(f"{path}::load_bf16", {"x": "fp32[128,512]"})
    assert "src=fp32@hbm dst=bf16@0x" in kt.records[0]
    assert kt.hbm_bytes == 128 * 512 * 4 + 128 * 512 * 2
    assert _replayed_hbm_bytes(kt, tmp_path) == kt.hbm_bytes


def _replayed_hbm_bytes(kt, tmp_path):
    """The replay's bytes of transfers with an HBM end, over the DMA engines."""
    return sum(int(row["hbm_bytes"]) for row in replay(kt, tmp_path).table("dma"))


def test_a_copy_without_a_cast_counts_each_byte_once(tmp_path):
    path = _kernel(tmp_path, """\
        @nki.jit
        def copy(x):
            out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
            nl.store(out, value=nl.load(x))
            return out
    """)
    kt = nki.trace(f"{path}::copy", {"x": "fp32[128,512]"})
    assert kt.hbm_bytes == 2 * 128 * 512 * 4 and "@hbm" not in kt.text
    assert _replayed_hbm_bytes(kt, tmp_path) == kt.hbm_bytes
