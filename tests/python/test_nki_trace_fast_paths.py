"""The tracer's fast paths give the traces plain tracing gives, byte for byte (loc= included): every
example kernel at the shapes the trace digests use, the digest test's generated kernels, and
kernels written here for what the fast paths defer — reads of an HBM tensor before and after the
kernel writes it (in place, through several DMA queues), and a DMA that adds into HBM.

The fast path: reads of an HBM tensor nothing has written wait for nothing, so the tracer notes
them for the hazards only when something first writes that tensor (_tracer.DEFER_UNWRITTEN_READS;
False traces plainly, each read noted at once)."""

import os

import pytest
from test_nki_trace_digest import CASES, trace_case

from sbufsim import nki
from sbufsim.nki import _tracer

IN_PLACE = """\
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def in_place(a, b, c):
    # a: [256, 512], b: [128, 512], c: [128, 512], all bf16
    # each iteration reads one half of a and writes the other: the second iteration's store waits
    # for the first iteration's load of those rows (another DMA queue), which were read before
    # anything wrote a
    for i in nl.affine_range(2):
        t = nl.load(a[i * 128:(i + 1) * 128, :])
        u = nl.load(b)
        nl.store(a[(1 - i) * 128:(2 - i) * 128, :], value=nl.add(t, u))
    # a read after the writes waits for the store of those rows
    s = nl.ndarray((128, 512), dtype=a.dtype, buffer=nl.sbuf)
    s[...] = nl.load(a[0:128, :])
    # a DMA adding into c reads c in the record that first writes it
    for j in nl.affine_range(3):
        nisa.dma_copy(dst=c, src=s, dst_rmw_op=nl.add)
    w = nl.load(c)
    nl.store(b, value=w)
    return a
"""


def _plain_and_fast(trace):
    """The trace of `trace()` traced plainly, then with the fast paths."""
    assert _tracer.DEFER_UNWRITTEN_READS
    _tracer.DEFER_UNWRITTEN_READS = False
    try:
        plain = trace()
    finally:
        _tracer.DEFER_UNWRITTEN_READS = True
    return plain, trace()


def _assert_same(plain, fast):
    assert len(fast.records) == len(plain.records)
    for n, (p, f) in enumerate(zip(plain.records, fast.records)):
        assert f == p, f"record {n}: fast path {f!r}, plain {p!r}"
    assert fast.text == plain.text


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_example_and_generated_kernel_traces_as_plain_tracing_does(name):
    plain, fast = _plain_and_fast(lambda: trace_case(*CASES[name]))
    _assert_same(plain, fast)


def test_reads_of_an_hbm_tensor_the_kernel_then_writes_keep_their_waits(tmp_path):
    path = tmp_path / "in_place.py"
    path.write_text(IN_PLACE)
    inputs = {"a": "bf16[256,512]", "b": "bf16[128,512]", "c": "bf16[128,512]"}
    plain, fast = _plain_and_fast(lambda: nki.trace(f"{os.fspath(path)}::in_place", inputs))
    _assert_same(plain, fast)
    # the hazards the deferred reads carry: the second store into a waits for its add and for the
    # other queue's load of its rows, though that load came before anything wrote a; the store
    # into b waits for the two loads of b (a synchronisation record carries one of the waits)
    stores = [r for r in fast.records if "nl.store@in_place[i=" in r]
    assert len(stores) == 2 and stores[0].count(" wait=") == 1 and stores[1].count(" wait=") == 2, stores
    last = [r for r in fast.records if "in_place.py:23:nl.store" in r]
    assert len(last) == 2 and sum(r.count(" wait=") for r in last) == 3, last
