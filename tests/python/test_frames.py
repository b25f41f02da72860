"""DataFrames where pandas is installed; plain rows and a clear message where it is not."""

import sys

import pytest

import sbufsim


def test_frames_index_the_rows_by_name(traces):
    pd = pytest.importorskip("pandas")
    # One 8-byte word a beat, where this trace's streams collide; the TensorE ramp off: the matmuls
    # at the pace the trace was written for (the counts below are those of that collision).
    narrow = sbufsim.Config("cayman", {"width.engine_bytes": 8, "width.psum_bytes": 8, "width.stream_chunks": 1,
                                       "pe.ramp_start": 1})
    result = sbufsim.run(traces("act_vs_matmul_collide.trc"), narrow, window_stats=4000)
    clients = result.frame("client")
    assert isinstance(clients, pd.DataFrame)
    assert list(clients.index) == [r["name"] for r in result.table("client")]
    assert clients.loc["act_wr", "stall_bank_conflict"] == 96
    assert result.frame("bank")["busy"].sum() == sum(b["busy"] for b in result["bank"].values())
    assert list(result.frame("window")["start"]) == [0, 4000, 8000][:len(result.frame("window"))]
    assert list(result.frame("window")["start"])[:2] == [0, 4000]
    # Stalls by cause per window: each column sums to the clients' counter of that cause.
    window = result.frame("window")
    assert window["stalled.bank_conflict"].sum() == clients["stall_bank_conflict"].sum() == 96
    assert window["stalled.stage1_loss"].sum() == clients["stall_stage1_loss"].sum() > 0
    assert result.frame("engine").loc["act", "instructions"] == 8


def test_a_sweep_table_is_a_frame_in_table_order(traces):
    pytest.importorskip("pandas")
    table = sbufsim.sweep(traces("dma_vs_compute.trc"), {"tdm.dma_slots": [0, 4, 8]}, jobs=2)
    df = table.frame()
    assert list(df["tdm.dma_slots"]) == [0, 4, 8]
    assert list(df.columns) == table.columns


def test_a_swept_boolean_key_is_a_bool_column(traces):
    pytest.importorskip("pandas")
    table = sbufsim.sweep(traces("dma_vs_compute.trc"), {"tdm.strict": [True, False]}, jobs=2)
    df = table.frame()
    assert df["tdm.strict"].dtype == bool
    assert list(df["tdm.strict"]) == [True, False]
    assert list(df.loc[~df["tdm.strict"], "tdm.strict"]) == [False]


def test_without_pandas_tables_still_work_and_frames_say_what_to_install(traces, monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas now fails
    result = sbufsim.run(traces("act_vs_matmul_collide.trc"))
    assert result.table("client")[0]["name"]
    with pytest.raises(ImportError, match="python3-pandas"):
        result.frame("client")
