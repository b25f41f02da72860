"""sweep(): the application layer's sweep request (the command line's, with no argv between), its
rows as dicts, in parallel worker processes."""

import json

import pytest

import sbufsim


def test_rows_are_the_command_lines(traces, cli):
    path = traces("dma_vs_compute.trc")
    table = sbufsim.sweep(path, {"tdm.dma_slots": range(0, 9)}, jobs=2)
    done = cli("sweep", path, "--vary", "tdm.dma_slots=0:8", "--jobs", 2, "--json", "-", "--quiet")
    assert done.returncode == 0, done.stderr
    assert table.rows == json.loads(done.stdout)
    assert table.ok and len(table) == 9 and table.axes == ["tdm.dma_slots"]
    assert [r["tdm.dma_slots"] for r in table] == list(range(9))
    assert table.rows[7]["total_cycles"] == 50400


def test_sweep_binds_the_request_not_the_command_line(traces, monkeypatch):
    from sbufsim._native import core

    def no_command_line(*args, **kwargs):
        raise AssertionError("sweep() went through the command line")

    monkeypatch.setattr(core, "cli", no_command_line)
    strict = sbufsim.Config("cayman", {"tdm.strict": True})
    table = sbufsim.sweep(traces("dma_load.trc"), {"tdm.dma_slots": [1, 2]}, strict, jobs=1, timeout=60, shard=(0, 1))
    assert len(table) == 2 and table.ok
    with pytest.raises(ValueError, match=r"jobs=-1: worker processes, 1 or more"):
        sbufsim.sweep(traces("dma_load.trc"), {"tdm.dma_slots": [1]}, jobs=-1)
    with pytest.raises(sbufsim.ConfigError, match="jobs must be at least 1"):
        sbufsim.sweep(traces("dma_load.trc"), {"tdm.dma_slots": [1]}, jobs=0)


def test_ranking_follows_each_metrics_direction(traces):
    table = sbufsim.sweep(traces("dma_vs_compute.trc"), {"tdm.dma_slots": "0:8"}, jobs=2)
    assert table.best("jain_fairness")["tdm.dma_slots"] == 3       # highest is best
    # every slot count gives 50,400 cycles: the first of equals, with a warning that it is a tie
    with pytest.warns(sbufsim.TieWarning, match=r"9 of 9 ok rows tie at the best total_cycles \(50400\)"):
        assert table.best("total_cycles")["tdm.dma_slots"] == 0
    assert [r["tdm.dma_slots"] for r in table.ties("total_cycles")] == list(range(9))
    assert len(table.ties("jain_fairness")) == 1
    assert table.ranked("total_cycles")[-1]["tdm.dma_slots"] == 8
    with pytest.raises(sbufsim.ConfigError, match="not a rankable metric"):
        table.best("worst_p99_client")
    assert sbufsim.sweep_metrics()["dma_gbps"][0] == "higher"


def test_shards_add_up_to_the_whole_and_out_is_the_command_lines_csv(traces, cli, tmp_path):
    path = traces("act_vs_matmul_collide.trc")
    vary = {"arbiter.stage2.pe_rd.prio": [0, 1, 4], "arbiter.stage2.act_wr.prio": [0, 4]}
    whole = sbufsim.sweep(path, vary, jobs=2, out=tmp_path / "py.csv")
    parts = [sbufsim.sweep(path, vary, jobs=1, shard=(i, 3)) for i in range(3)]
    assert sum((p.rows for p in parts), []) == whole.rows
    done = cli("sweep", path, "--vary", "arbiter.stage2.pe_rd.prio=0,1,4", "--vary", "arbiter.stage2.act_wr.prio=0,4",
               "--out", tmp_path / "cli.csv", "--quiet")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "py.csv").read_bytes() == (tmp_path / "cli.csv").read_bytes()


def test_a_sweep_into_an_earlier_out_returns_only_its_own_points(traces, tmp_path):
    """The CSV keeps the earlier sweep's rows; the table returned is the points asked for."""
    path, out = traces("dma_vs_compute.trc"), tmp_path / "both.csv"
    sbufsim.sweep(path, {"tdm.dma_slots": [1, 2]}, jobs=1, out=out)
    table = sbufsim.sweep(path, {"tdm.dma_slots": [3]}, jobs=1, out=out)
    assert [r["tdm.dma_slots"] for r in table] == [3]
    assert len(out.read_text().splitlines()) == 1 + 3


def test_zip_pairs_the_lists(traces):
    table = sbufsim.sweep(traces("dma_vs_compute.trc"),
                          {"throttler.act_rd.window_len": [8, 16], "throttler.act_rd.transfer_cnt": [4, 4]},
                          sbufsim.Config("cayman", {"throttler.act_rd.enable": True}), zip=True, jobs=2)
    assert [(r["throttler.act_rd.window_len"], r["throttler.act_rd.transfer_cnt"]) for r in table] == [(8, 4), (16, 4)]
    assert all(r["throttle_stalls"] > 0 for r in table)


def test_boolean_cells_are_bools_and_the_csv_keeps_true_false(traces, cli, tmp_path):
    path = traces("dma_vs_compute.trc")
    table = sbufsim.sweep(path, {"tdm.strict": [False, True], "tdm.dma_slots": [2]}, jobs=2, out=tmp_path / "py.csv")
    assert [r["tdm.strict"] for r in table] == [False, True]
    assert all(type(r["tdm.strict"]) is bool for r in table)
    assert [r["tdm.dma_slots"] for r in table] == [2, 2] and table.ok
    # the JSON the rows come from has JSON booleans; the CSV spells them as the loader does
    done = cli("sweep", path, "--vary", "tdm.strict=false,true", "--vary", "tdm.dma_slots=2", "--out",
               tmp_path / "cli.csv", "--json", "-", "--quiet")
    assert done.returncode == 0, done.stderr
    assert [r["tdm.strict"] for r in json.loads(done.stdout)] == [False, True]
    assert (tmp_path / "py.csv").read_bytes() == (tmp_path / "cli.csv").read_bytes()
    assert ",false," in (tmp_path / "py.csv").read_text() and ",true," in (tmp_path / "py.csv").read_text()


def test_lenient_replays_another_generations_trace(traces):
    strict = sbufsim.sweep(traces("dma_load.trc"), {"tdm.dma_slots": [1, 2]}, "sunda", jobs=2)
    assert [r["status"] for r in strict] == ["error", "error"]
    table = sbufsim.sweep(traces("dma_load.trc"), {"tdm.dma_slots": [1, 2]}, "sunda", jobs=2, lenient=True)
    assert table.ok
    assert [r["run.skipped_records"] for r in table] == [1, 1]


def test_a_rejected_point_is_a_row_not_an_exception(traces):
    table = sbufsim.sweep(traces("dma_load.trc"), {"tdm.dma_slots": [1, 9]}, jobs=2)
    assert not table.ok
    assert [r["status"] for r in table] == ["ok", "invalid"]
    assert "exceeds tdm.max_slots" in table.failed[0]["message"]
    assert table.failed[0]["message"].endswith("[tdm.dma_slots set by vary]")
    assert table.failed[0]["total_cycles"] is None


def test_errors_name_sweeps_arguments_not_the_command_lines_options(traces):
    with pytest.raises(sbufsim.ConfigError) as e:
        sbufsim.sweep(traces("dma_load.trc"), {"tdm.dma_slot": [1, 2]})
    assert str(e.value) == "vary['tdm.dma_slot']: unknown key 'tdm.dma_slot'; did you mean 'tdm.dma_slots'?"
    with pytest.raises(sbufsim.ConfigError, match=r"^vary\['tdm.strict'\]: zip=True needs lists of one length"):
        sbufsim.sweep(traces("dma_load.trc"), {"tdm.dma_slots": [1, 2], "tdm.strict": [True]}, zip=True)
    with pytest.raises(sbufsim.ConfigError, match=r"^vary\['tdm.dma_slots'\]: key 'tdm.dma_slots': value 'x'"):
        sbufsim.sweep(traces("dma_load.trc"), {"tdm.dma_slots": ["x"]})


def test_errors_of_the_sweep_itself_raise(traces, tmp_path):
    with pytest.raises(sbufsim.ConfigError, match="did you mean 'tdm.dma_slots'"):
        sbufsim.sweep(traces("dma_load.trc"), {"tdm.dma_slot": [1]})
    with pytest.raises(sbufsim.ConfigError, match="recorded but has no effect"):
        sbufsim.sweep(traces("dma_load.trc"), {"pe.reorder_window": [32, 64]})
    with pytest.raises(sbufsim.TraceError):
        sbufsim.sweep(tmp_path / "missing.trc", {"tdm.dma_slots": [1]})
    with pytest.raises(sbufsim.OutputError, match=r"^sweep\(\): cannot write out=.*missing"):
        sbufsim.sweep(traces("dma_load.trc"), {"tdm.dma_slots": [1]}, out=tmp_path / "missing" / "t.csv")
    with pytest.raises(TypeError, match="write a built trace first"):
        sbufsim.sweep(sbufsim.Trace(["0 dma_0 rd 0x0 1 64"]), {"tdm.dma_slots": [1]})


def test_the_sweeps_notes_on_throttler_settings_are_warnings(traces):
    with pytest.warns(sbufsim.SettingWarning) as caught:
        sbufsim.sweep(traces("transformer_layer_head.trc"),
                      {"throttler.dve_rd.window_len": [8], "throttler.dve_rd.transfer_cnt": [4, 16]},
                      config={"throttler.dve_rd.enable": True})
    assert [str(w.message) for w in caught] == [
        "throttler.dve_rd.transfer_cnt = 16 >= throttler.dve_rd.window_len = 8: the limit never binds "
        "(dve_rd moves at most one beat a cycle, 8 per window)"]


def test_a_trace_with_races_is_warned_about_once(tmp_path):
    # ACT reads the PSUM bank without waiting for the matmul that writes it
    path = tmp_path / "racy.trc"
    path.write_text("sbufsim-trace 1 gen=cayman\n"
                    "matmul queue=qPE0 src=bf16@0x0[1][512] dst=fp32@0x2000000[1][512] num_active_rows=128 "
                    "num_active_cols=128 signal=1\n"
                    "act queue=qAct0 src=fp32@0x2000000[1][512] dst=bf16@0x20000[1][512] partitions=128\n")
    with pytest.warns(sbufsim.TraceWarning) as caught:
        table = sbufsim.sweep(path, vary={"tdm.dma_slots": [2, 4]})
    assert len(table) == 2
    races = [w for w in caught if issubclass(w.category, sbufsim.TraceWarning)]
    assert len(races) == 1 and "1 race between queues" in str(races[0].message)
    assert ":3: src: ACT line 3 reads PSUM partition 0" in str(races[0].message)


def test_a_vary_list_too_long_is_refused_before_it_is_built(traces):
    import time
    start = time.monotonic()
    with pytest.raises(ValueError, match="more than 10,000,000 values"):
        sbufsim.sweep(traces("dma_load.trc"), {"tdm.dma_slots": range(10**12)})
    assert time.monotonic() - start < 30


@pytest.mark.parametrize("timeout", [1e10, -1, float("nan"), float("inf")])
def test_a_timeout_out_of_range_is_refused_not_overflowed(traces, timeout):
    with pytest.raises(ValueError, match="timeout="):
        sbufsim.sweep(traces("dma_load.trc"), {"tdm.dma_slots": [1, 2]}, timeout=timeout)


def test_a_large_timeout_within_the_limit_lets_the_points_run(traces):
    rows = sbufsim.sweep(traces("dma_load.trc"), {"tdm.dma_slots": [1, 2]}, timeout=1e8, jobs=1)
    assert [r["status"] for r in rows.rows] == ["ok", "ok"]
