"""Hazards on HBM tensors: a DMA waits for an earlier one on another queue only where their bytes of
the tensor meet. A tensor's bytes are taken as rows (its last dimension) by bytes of a row, so
tiles side by side in a row-major tensor do not meet, as the bounds of their flat bytes would."""

import re
import textwrap

from sbufsim import nki
from sbufsim.nki._dtypes import dtype_of
from sbufsim.nki._view import MAX_HBM_RECTS, Storage, View
from nki_helpers import check_semaphores, replay

HEADER = "import nki\nimport nki.isa as nisa\nimport nki.language as nl\n"


def kernel(tmp_path, body, file="k"):
    path = tmp_path / f"{file}.py"
    path.write_text(HEADER + "\n" + textwrap.dedent(body))
    return f"{path}::k"


def is_sync(record):
    """A record that carries waits for the next record of its queue: fn=sync on an engine, a DMA of
    scratch bytes onto themselves."""
    src, dst = re.search(r" src=(\S+)", record), re.search(r" dst=(\S+)", record)
    return "fn=sync" in record or (record.startswith("dma") and src.group(1) == dst.group(1))


def waited_for(kt):
    """For each record that is not a sync record, in order: the kernel lines of the records it waits
    for, its own waits and those of the sync records just before it on its queue."""
    signalled = {}  # semaphore -> the records that signal it, in order
    carried = {}  # queue -> waits of its sync records not yet given to a record
    out = []
    for record in kt.records:
        queue = re.search(r"queue=(\S+)", record).group(1)
        waits = carried.pop(queue, []) + [(int(s), int(n)) for s, n in re.findall(r" wait=(\d+):(\d+)", record)]
        sync = is_sync(record)
        if sync:
            carried[queue] = waits
        else:
            line = re.search(r"loc=\S+?:(\d+):", record).group(1)
            out.append((record, {signalled[s][n - 1][1] for s, n in waits}))
        sem = int(re.search(r" signal=(\d+)", record).group(1))
        signalled.setdefault(sem, []).append((record, None if sync else line))
    return out


def stores(kt):
    return [(record, lines) for record, lines in waited_for(kt) if record.startswith("dma") and "dst=hbm" in record]


def line_of(kt, record):
    return re.search(r"loc=\S+?:(\d+):", record).group(1)


COLUMNS = """\
    @nki.jit
    def k(a):
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        for j in nl.affine_range(a.shape[{axis}] // {tile}):
            t = nl.load(a[{index}])
            e = nl.exp(t)
            nl.store(out[{index}], value=e)
        return out
"""


def strips(tmp_path, by):
    """16 tiles of 128 x 512 bf16 of one tensor: side by side in a row ('columns') or one under
    another ('rows')."""
    if by == "columns":
        body = COLUMNS.format(axis=1, tile=512, index=":, j * 512:(j + 1) * 512")
        return nki.trace(kernel(tmp_path, body, by), {"a": "bf16[128,8192]"})
    body = COLUMNS.format(axis=0, tile=128, index="j * 128:(j + 1) * 128, :")
    return nki.trace(kernel(tmp_path, body, by), {"a": "bf16[2048,512]"})


def test_stores_of_tiles_side_by_side_wait_for_no_other_store(tmp_path):
    kt = strips(tmp_path, "columns")
    check_semaphores(kt)
    found = stores(kt)
    assert len(found) == 16
    store_line = line_of(kt, found[0][0])
    for record, lines in found:
        assert store_line not in lines, record  # only the exp that made its tile


def test_tiles_side_by_side_cost_what_tiles_one_under_another_cost(tmp_path):
    # The same bytes in the same tiles: a column tiling is no slower than a row tiling for being
    # columns (the stores of the columns waited for each other in turn when their flat bytes'
    # bounds were their footprint: 101,277 cycles against the rows' 61,228).
    columns, rows = strips(tmp_path, "columns"), strips(tmp_path, "rows")
    assert len(columns.records) == len(rows.records)
    assert replay(columns, tmp_path).total_cycles == replay(rows, tmp_path).total_cycles


OVERLAPS = """\
    @nki.jit
    def k(a):
        out = nl.ndarray((4, 256, 1024), dtype=a.dtype, buffer=nl.shared_hbm)
        t = nl.load(a)
        nl.store(out[1, 0:128, 0:512], value=t)
        nl.store(out[1, 0:128, 512:1024], value=t)
        nl.store(out[2, 0:128, 0:512], value=t)
        nl.store(out[1, 64:192, 256:768], value=t)
        u = nl.load(out[2, 128:256, 0:512])
        v = nl.load(out[2, 127:255, 0:512])
        w = nl.load(out.reshape((4 * 256 * 2, 512))[3:131, :])
        nl.store(out[0, 0:128, 0:512], value=nl.add(nl.add(u, v), w))
        return out
"""


def test_dmas_wait_where_the_tensors_bytes_meet_and_only_there(tmp_path):
    kt = nki.trace(kernel(tmp_path, OVERLAPS), {"a": "bf16[128,512]"})
    check_semaphores(kt)
    dmas = {line_of(kt, record): lines for record, lines in waited_for(kt) if record.startswith("dma")}
    first = 5  # the kernel's lines: HEADER, a blank line, then OVERLAPS from its first line
    at = {name: str(first + offset) for name, offset in
          (("left", 4), ("right", 5), ("other_b", 6), ("across", 7), ("u", 8), ("v", 9), ("w", 10))}
    # side by side, or in another index of the first dimension: no wait on each other
    assert at["left"] not in dmas[at["right"]] and at["left"] not in dmas[at["other_b"]]
    assert at["right"] not in dmas[at["other_b"]]
    # a store across both halves of rows 64..191 waits for the two stores it overlaps
    assert {at["left"], at["right"]} <= dmas[at["across"]] and at["other_b"] not in dmas[at["across"]]
    # rows 128..255 of out[2] were not written; rows 127..254 take row 127, which was
    assert at["other_b"] not in dmas[at["u"]] and at["other_b"] in dmas[at["v"]]
    # a reshape reads the same bytes in rows of 512: its rows 3..130 are out[0] rows 1..65 (a
    # store of out[1] is past them): no wait on a store of out[1] or out[2]
    assert not {at["left"], at["right"], at["other_b"], at["across"]} & dmas[at["w"]]


def view(shape, dims=None, dtype="bf16"):
    return View(Storage("t", shape, dtype_of(dtype), "hbm", 0), dims)


def whole(shape):
    return [(0, 1, n, True) for n in shape]


def test_rectangles_cover_a_views_bytes():
    # [256, 1024] bf16: rows of 2048 bytes
    assert view((256, 1024), [(0, 1, 128, True), (512, 1, 512, True)]).hbm_rects() == ((0, 128, 1024, 2048),)
    # one row of a 3-D tensor's slice: rows are the product of the dimensions before the last
    assert view((4, 8, 64), [(2, 1, 1, False), (3, 1, 2, True), (0, 1, 64, True)]).hbm_rects() == ((19, 21, 0, 128),)
    # rows apart: one rectangle per run of rows, up to MAX_HBM_RECTS of them, then their bounds
    apart = view((4, 8, 64), [(0, 1, 4, True), (1, 1, 2, True), (0, 1, 8, True)]).hbm_rects()
    assert apart == ((1, 3, 0, 16), (9, 11, 0, 16), (17, 19, 0, 16), (25, 27, 0, 16))
    many = view((MAX_HBM_RECTS + 1, 8, 64), [(0, 1, MAX_HBM_RECTS + 1, True), (0, 1, 1, False),
                                             (0, 1, 64, True)]).hbm_rects()
    assert many == ((0, 8 * MAX_HBM_RECTS + 1, 0, 128),)
    # every other column: no rectangle of whole runs; the flat bytes' bounds in whole rows
    assert view((256, 1024), [(0, 1, 256, True), (0, 2, 512, True)]).hbm_rects() == ((0, 256, 0, 2048),)
    # within one row, the bounds of its bytes
    assert view((256, 1024), [(5, 1, 1, False), (0, 2, 512, True)]).hbm_rects() == ((5, 6, 0, 2046),)
    # a reshape's rows are its own tensor's: a [8, 512] alias of a [4, 1024] tensor
    root = view((4, 1024))
    alias = root.reshape((8, 512))[3:5, :]
    # (its rows 3..4 are bytes 3072..5119 of the tensor: the second half of row 1 and the first of row 2)
    assert alias.hbm_rects() == ((1, 3, 0, 2048),)
