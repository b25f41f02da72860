"""run(): the command line's statistics, either scheduler, the GIL released, the errors of the
command line."""

import os
import re
import stat
import threading
import warnings
import time

import pytest

import sbufsim

# One 8-byte word a beat in one burst a request, the TensorE ramp off: the reading under which
# act_vs_matmul_collide.trc's streams collide at the pace the trace was written for.
WORD_BEATS = sbufsim.Config("cayman", {"width.engine_bytes": 8, "width.psum_bytes": 8, "width.stream_chunks": 1,
                                       "pe.ramp_start": 1})


def given_as_overrides(stats):
    """The command line's statistics with its --set keys named as a Config's overrides, where
    the module's results say they came from."""
    config = {key: dict(setting, **{"from": "overrides"}) if setting["from"] == "command line" else setting
              for key, setting in stats["config"].items()}
    return dict(stats, config=config)


def test_statistics_are_those_of_run_json(traces, cli_json):
    # One 8-byte word per beat in one burst per request: the reading under which this trace conflicts.
    path = traces("act_vs_matmul_collide.trc")
    result = sbufsim.run(path, WORD_BEATS)
    assert result.stats == given_as_overrides(cli_json(path, "--set", "width.engine_bytes=8", "--set",
                                                       "width.psum_bytes=8", "--set", "width.stream_chunks=1",
                                                       "--set", "pe.ramp_start=1"))
    assert result.total_cycles == 8722
    assert result["stalls"]["bank_conflict"] == 96
    assert "8722" in result.summary


def test_overrides_match_the_command_line(traces, cli_json):
    path = traces("dma_vs_compute.trc")
    result = sbufsim.run(path, sbufsim.Config("cayman", {"tdm.dma_slots": 7}))
    assert result.stats == given_as_overrides(cli_json(path, "--set", "tdm.dma_slots=7"))
    assert result["config"]["tdm.dma_slots"] == {"from": "overrides", "value": "7"}
    assert result.total_cycles == 50400
    # A dict of overrides or a generation name is a Config too.
    assert sbufsim.run(path, {"tdm.dma_slots": 7}).stats == result.stats


def test_the_trace_picks_its_generation_and_another_one_is_refused(traces, tmp_path):
    path = traces("dma_load.trc")  # gen=cayman in its header
    assert sbufsim.run(path).generation == "cayman"
    assert sbufsim.run(path, {"tdm.dma_slots": 2}).generation == "cayman"
    with pytest.raises(sbufsim.ReplayError,
                       match="the trace is for generation cayman but is being checked against sunda"):
        sbufsim.run(path, "sunda")
    anonymous = sbufsim.Trace(["0 dma_0 rd 0x0 1 64"])
    assert sbufsim.run(anonymous).generation == "cayman"
    assert sbufsim.run(anonymous, "sunda").generation == "sunda"


def test_both_schedulers_give_the_same_statistics_and_clocked_runs_repeat(traces):
    path = traces("matmul_kloop.trc")
    fast = sbufsim.run(path)
    clocked = [sbufsim.run(path, scheduler="clocked") for _ in range(3)]
    for c in clocked:
        assert c.scheduler == "clocked"
        assert {k: v for k, v in c.stats.items() if k != "run"} == {k: v for k, v in fast.stats.items() if k != "run"}
        assert c.total_cycles == fast.total_cycles == 19774


def test_threads_replay_in_parallel_with_the_same_results(traces):
    names = ["dma_vs_compute.trc", "matmul_kloop.trc", "act_vs_matmul_collide.trc", "q7_gpsimd.trc"]
    expected = {n: sbufsim.run(traces(n)).stats for n in names}
    got = {}

    def work(name, scheduler):
        got[(name, scheduler)] = sbufsim.run(traces(name), scheduler=scheduler).stats

    threads = [threading.Thread(target=work, args=(n, s)) for n in names for s in ("fast", "clocked")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for (name, scheduler), stats in got.items():
        stats = dict(stats, run={k: v for k, v in stats["run"].items() if k != "scheduler"})
        want = dict(expected[name], run={k: v for k, v in expected[name]["run"].items() if k != "scheduler"})
        assert stats == want, (name, scheduler)
    assert len(got) == 8


@pytest.mark.parametrize("scheduler, shape", [("fast", (4096, 4096, 4096)), ("clocked", (1024, 2048, 1024))])
def test_the_gil_is_released_while_a_run_works(tmp_path, scheduler, shape):
    m, n, k = shape
    trace = sbufsim.generate("gemm", tmp_path / "big.sbt", m=m, n=n, k=k)
    done = threading.Event()
    span = {}

    def work():
        start = time.perf_counter()
        sbufsim.run(trace, scheduler=scheduler)
        span["seconds"] = time.perf_counter() - start
        done.set()

    worker = threading.Thread(target=work)
    ticks = []
    worker.start()
    while not done.is_set():  # the main thread keeps running Python meanwhile
        ticks.append(time.perf_counter())
        time.sleep(0.001)
    worker.join()
    seconds = span["seconds"]
    assert seconds > 0.05, f"the run took only {seconds:.3f} s: too short to tell"
    gaps = [b - a for a, b in zip(ticks, ticks[1:])]
    assert len(ticks) > 10 and max(gaps) < seconds / 2, (seconds, max(gaps), len(ticks))


def test_window_stats_add_the_window_section(traces):
    result = sbufsim.run(traces("act_vs_matmul_collide.trc"), window_stats=4000)
    rows = result.table("window")
    assert [r["name"] for r in rows] == ["w0", "w1", "w2"]
    assert [r["start"] for r in rows] == [0, 4000, 8000]
    assert sum(r["cycles"] for r in rows) == result.total_cycles
    with pytest.raises(KeyError, match="window_stats"):
        sbufsim.run(traces("act_vs_matmul_collide.trc")).table("window")


def test_tables_have_one_row_per_client_bank_and_engine(traces):
    result = sbufsim.run(traces("act_vs_matmul_collide.trc"), WORD_BEATS)
    clients = {r["name"]: r for r in result.table("client")}
    assert clients["act_wr"]["stall_bank_conflict"] == 96
    assert [r["name"] for r in result.table("engine")] == ["arr_seq", "act"]
    assert len(result.table("bank")) == len(result["bank"])
    assert result.table("pe") == [result["pe"]]
    # The report's per-entry sections are tables too: a row per path engine, finding, DMA engine.
    path = result.frame("critical_path")
    assert path["cycles"].sum() == result.total_cycles
    assert [r["name"] for r in result.table("finding")][:1] == ["f1"]
    dma = sbufsim.run(traces("dma_load.trc"))
    assert dma.frame("dma_engine").loc["dma_0", "bytes"] == 262144
    with pytest.raises(KeyError, match="not a section"):
        result.table("trace")
    # A missing section says what was meant: the closest section, or the section of a key.
    with pytest.raises(KeyError, match=r"no section 'stall' in this run \(did you mean 'stalls'\?\)"):
        result["stall"]
    with pytest.raises(KeyError, match=r"'total_cycles' is a key of section 'run': result\['run'\]\['total_cycles'\] "
                                       r"or result.total_cycles\)"):
        result["total_cycles"]
    with pytest.raises(KeyError, match=r"'utilisation' is a key of section 'pe': result\['pe'\]\['utilisation'\]\);"):
        result.table("utilisation")


def test_a_vcd_is_written_by_the_clocked_scheduler(traces, tmp_path):
    vcd = tmp_path / "w.vcd"
    result = sbufsim.run(traces("act_vs_matmul_collide.trc"), vcd=vcd)
    assert result.scheduler == "clocked"
    assert vcd.read_text().startswith("$")
    with pytest.raises(sbufsim.ConfigError, match="clocked"):
        sbufsim.run(traces("act_vs_matmul_collide.trc"), vcd=vcd, scheduler="fast")


def test_a_vcd_never_replaces_an_input_a_foreign_file_or_a_directory(traces, tmp_path):
    # The command line's output checks, before the work: the trace itself, a file that is not a
    # VCD and a directory are refused with the reason, and each is left as it was.
    trace = tmp_path / "mine.trc"
    trace.write_bytes(open(traces("act_vs_matmul_collide.trc"), "rb").read())
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n")
    before = trace.read_bytes()
    for target, reason in [(trace, "is also the input"), (notes, "exists and is not what this command writes"),
                           (tmp_path, "is a directory")]:
        with pytest.raises(sbufsim.OutputError, match=reason) as caught:
            sbufsim.run(trace, vcd=target)
        assert caught.value.exit_status == 2
    assert trace.read_bytes() == before
    assert notes.read_text() == "my notes\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine.trc", "notes.txt"]  # no temporary left
    # Another tool's VCD is the user's (force=True replaces it); one sbufsim wrote is replaced whole.
    vcd = tmp_path / "w.vcd"
    vcd.write_text("$date\n old\n$end\n")
    with pytest.raises(sbufsim.OutputError, match="force=True"):
        sbufsim.run(trace, vcd=vcd)
    assert vcd.read_text() == "$date\n old\n$end\n"
    sbufsim.run(trace, vcd=vcd, force=True)
    assert vcd.read_text().startswith("$comment\nwritten by sbufsim run --vcd")
    sbufsim.run(trace, vcd=vcd)
    assert "$enddefinitions" in vcd.read_text()


def test_a_vcd_onto_a_device_is_written_in_place_and_every_write_checked(traces, tmp_path):
    # A full disk (the "full" device, as /dev/full) is an error with the OS reason, never a
    # silently truncated waveform; the device stays a device. A named pipe gets the very bytes a
    # regular file does.
    full = tmp_path / "full"
    try:
        os.mknod(full, stat.S_IFCHR | 0o600, os.makedev(1, 7))
    except PermissionError:
        pytest.skip("making a device node needs root")
    trace = traces("act_vs_matmul_collide.trc")
    with pytest.raises(sbufsim.OutputError, match="No space left on device"):
        sbufsim.run(trace, vcd=full)
    assert stat.S_ISCHR(os.stat(full).st_mode)
    regular = tmp_path / "w.vcd"
    sbufsim.run(trace, vcd=regular)
    fifo = tmp_path / "pipe.vcd"
    os.mkfifo(fifo)
    # The read end is open before the run starts (a FIFO nobody reads is refused), and the reader
    # is a daemon that polls it: a thread blocked in open() or read() would otherwise keep pytest
    # from exiting when the run fails.
    fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    written = threading.Event()
    got = []

    def drain():
        while True:
            try:
                chunk = os.read(fd, 1 << 16)
            except BlockingIOError:  # the writer is there, with nothing new yet
                chunk = None
            if chunk:
                got.append(chunk)
            elif chunk == b"" and written.is_set():  # no writer left, and the run is over
                return
            else:
                time.sleep(0.001)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    try:
        sbufsim.run(trace, vcd=fifo)
    finally:
        written.set()
        reader.join(timeout=60)
        os.close(fd)
    undated = lambda b: re.sub(rb"\$date\n[^$]*\$end", b"", b)  # SystemC stamps the second it wrote
    assert not reader.is_alive()
    assert undated(b"".join(got)) == undated(regular.read_bytes())
    assert len(b"".join(got)) > 100_000
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_an_invalid_trace_raises_the_command_lines_message(tmp_path, cli):
    bad = tmp_path / "bad.trc"
    bad.write_text("sbufsim-trace 1\n0 pe_client_9 rd 0x5600 32 512\n")
    with pytest.raises(sbufsim.ReplayError) as e:
        sbufsim.run(bad)
    assert e.value.kind == "invalid_trace"
    assert f"{bad}:2: client: unknown client 'pe_client_9'" in str(e.value)
    assert e.value.exit_status == 3
    done = cli("run", bad)
    assert done.returncode == 3
    # the same message, its fix worded for Python (lenient=True where the command line says --lenient)
    assert "(use lenient=True to skip bad records)" in str(e.value)
    assert done.stderr.strip() == "sbufsim run: " + str(e.value).replace("lenient=True", "--lenient")
    # lenient skips it, as --lenient does
    assert sbufsim.run(bad, lenient=True)["run"]["skipped_records"] == 1


def test_an_unreadable_trace_is_a_trace_error_with_its_parts(tmp_path):
    with pytest.raises(sbufsim.TraceError) as e:
        sbufsim.run(tmp_path / "missing.trc")
    assert (e.value.file, e.value.line, e.value.field) == (str(tmp_path / "missing.trc"), 0, "file")
    assert isinstance(e.value, sbufsim.InputError)


def test_a_deadlock_is_a_replay_error_naming_each_queue():
    # Two queues each waiting for the other's signal.
    act = sbufsim.Instruction("act", "qAct0", src="bf16@0x0[1][64]", dst="bf16@0x1000[1][64]", partitions=1,
                              wait=5, signal=6)
    dve = sbufsim.Instruction("dve", "qDVE0", src="bf16@0x2000[1][64]", dst="bf16@0x3000[1][64]", partitions=1,
                              wait=6, signal=5)
    with pytest.raises(sbufsim.ReplayError) as e:
        sbufsim.run(sbufsim.Trace([act, dve], generation="cayman", name="stuck"))
    assert e.value.kind == "deadlock"
    assert "queue qAct0 (stuck:2) waits for semaphore 5 >= 1" in str(e.value)
    assert "queue qDVE0 (stuck:3) waits for semaphore 6 >= 1" in str(e.value)


def test_a_wait_nothing_signals_is_refused_before_the_run():
    act = sbufsim.Instruction("act", "qAct0", src="bf16@0x0[1][64]", dst="bf16@0x1000[1][64]", partitions=1, wait=5)
    with pytest.raises(sbufsim.ReplayError, match="stuck:2: wait: waits for semaphore 5") as e:
        sbufsim.run(sbufsim.Trace([act], generation="cayman", name="stuck"))
    assert e.value.kind == "invalid_trace" and len(e.value.errors) == 1


def test_bad_arguments():
    with pytest.raises(sbufsim.ConfigError, match="unknown scheduler"):
        sbufsim.run(sbufsim.shipped_trace("dma_load.trc"), scheduler="slow")
    with pytest.raises(TypeError):
        sbufsim.run(42)


def test_a_setting_that_cannot_change_the_run_is_warned_about_as_the_command_line_notes_it(traces, cli):
    path = traces("dma_load.trc")
    with pytest.warns(sbufsim.SettingWarning) as caught:
        sbufsim.run(path, {"throttler.dve_rd.transfer_cnt": 2})
    said = cli("run", path, "--set", "throttler.dve_rd.transfer_cnt=2", "--quiet").stderr
    assert [str(w.message) for w in caught] == [
        "throttler.dve_rd.transfer_cnt (set at overrides) has no effect while throttler.dve_rd.enable = false; "
        "set throttler.dve_rd.enable=true to throttle dve_rd"]
    assert said.replace("command line", "overrides") == f"sbufsim run: note: {caught[0].message}\n"


def test_a_trace_of_no_records_is_warned_about_as_the_command_line_warns(tmp_path, cli):
    path = tmp_path / "header_only.trc"
    path.write_text("sbufsim-trace 1 gen=cayman\n# nothing else\n")
    with pytest.warns(sbufsim.TraceWarning) as caught:
        result = sbufsim.run(path)
    assert result.total_cycles == 0
    assert len(caught) == 1 and "no records after the header, so the run is empty" in str(caught[0].message)
    assert "no records after the header, so the run is empty" in cli("run", path, "--quiet").stderr
    with warnings.catch_warnings():
        warnings.simplefilter("error", sbufsim.TraceWarning)
        sbufsim.run(sbufsim.shipped_trace("dma_load.trc"))  # a trace with records: no warning


RACY = ("sbufsim-trace 1 gen=cayman\n"
        "matmul queue=qPE0 src=bf16@0x0[1][512] dst=fp32@0x2000000[1][512] num_active_rows=128 "
        "num_active_cols=128 signal=1\n"
        "act queue=qAct0 src=fp32@0x2000000[1][512] dst=bf16@0x20000[1][512] partitions=128\n")


def test_races_are_counted_and_warned_about_as_the_command_line_warns(tmp_path):
    # ACT reads the PSUM bank without waiting for the matmul that writes it
    path = tmp_path / "racy.trc"
    path.write_text(RACY)
    with pytest.warns(sbufsim.TraceWarning) as caught:
        result = sbufsim.run(path)
    assert result["run"]["races"] == 1
    assert len(caught) == 1 and "1 race between queues" in str(caught[0].message)
    problems = sbufsim.Trace.read(path).check()
    assert len(problems) == 1 and ":3: src: ACT line 3 reads PSUM partition 0" in problems[0], problems
    # with the wait, neither
    path.write_text(RACY.replace("partitions=128\n", "partitions=128 wait=1\n"))
    with warnings.catch_warnings():
        warnings.simplefilter("error", sbufsim.TraceWarning)
        assert sbufsim.run(path)["run"]["races"] == 0
    assert sbufsim.Trace.read(path).check() == []
