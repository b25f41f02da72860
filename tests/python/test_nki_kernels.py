"""The softmax and transpose examples, the command `sbufsim nki`, and the errors of the front-end."""

import json
import os
import re
import textwrap

import pytest

import sbufsim
from sbufsim import nki
from nki_helpers import check_semaphores, example, replay, traced


def test_softmax_engines_and_order(tmp_path):
    kt = traced("softmax.py::softmax", {"x": "bf16[512,1024]"})
    kinds = [r.split()[0] + ":" + r.split("fn=")[1].split()[0] if "fn=" in r else r.split()[0] for r in kt.records[:8]]
    assert kinds == ["dma", "dve:max", "dve:subtract", "act:exp", "dve:sum", "act:reciprocal", "dve:multiply", "dma"]
    assert kt.count("dma") == 8 and kt.count("act") == 8 and kt.count("dve") == 16
    check_semaphores(kt)
    # the exponential waits for VectorE's subtract
    assert " wait=" in kt.records[3]
    result = replay(kt, tmp_path)
    assert result.total_cycles > 0 and result["dma"]["bytes"] > 0


def test_transpose_through_the_pe(tmp_path):
    kt = traced("transpose.py::transpose", {"x": "bf16[256,384]"})
    assert kt.count("matmul") == 6 and kt.count("dma") == 12 and kt.count("dve") == 6
    assert kt.count("pool") == 1  # the identity, built once
    assert kt.flops == 0
    check_semaphores(kt)
    assert replay(kt, tmp_path).total_cycles > 0


def test_unmodelled_call_names_the_kernel_line(tmp_path):
    kernel = tmp_path / "bad.py"
    kernel.write_text(textwrap.dedent("""\
        import nki.isa as nisa
        import nki.language as nl

        def k(a):
            t = nl.load(a[0:128, 0:128])
            return nisa.nc_stream_shuffle(t, t, shuffle_mask=[0] * 32)
        """))
    with pytest.raises(nki.NkiError, match=r"bad.py:6: nisa.nc_stream_shuffle is not modelled"):
        nki.trace(f"{kernel}::k", {"a": "bf16[128,128]"})


def test_oversized_tile_is_refused(tmp_path):
    kernel = tmp_path / "big.py"
    kernel.write_text("import nki.language as nl\n\ndef k(a):\n    return nl.load(a[0:256, 0:4])\n")
    with pytest.raises(nki.NkiError, match=r"big.py:4: .*partitions and must be 1..128"):
        nki.trace(f"{kernel}::k", {"a": "bf16[256,4]"})


def test_the_shim_is_gone_after_tracing():
    import sys
    traced("transpose.py::transpose", {"x": "bf16[128,128]"})
    assert "nki" not in sys.modules and "neuronxcc" not in sys.modules


def test_command_reports_mfu_and_bandwidth(cli, tmp_path):
    out = tmp_path / "k.trc"
    done = cli("nki", f"{example('matmul.py')}::matmul_blocked", "--input", "lhsT=bf16[512,512]",
               "--input", "rhs=bf16[512,1024]", "--param", "TILES_IN_BLOCK_M=2", "-o", out)
    assert done.returncode == 0, done.stderr
    cycles = int(re.search(r"^total (\d+) cycles", done.stdout, re.M).group(1))
    # the kernel-level line nki adds (the run summary has its own MFU, of every matmul)
    mfu = float(re.search(r"^  MFU ([0-9.]+)%", done.stdout, re.M).group(1))
    flops = 2 * 512 * 512 * 1024
    assert mfu == pytest.approx(100 * flops / (cycles * 2 * 128 * 128), abs=0.06)
    assert re.search(r"HBM [0-9.]+ GB/s achieved over %d cycles" % cycles, done.stdout)
    first, header = out.read_text().splitlines()[:2]
    assert first.startswith("# written by sbufsim nki; ") and header == "sbufsim-trace 1 gen=cayman"
    # no transposes: the report's MFU is the same figure, so no second one is named
    report_mfu = float(re.search(r"MFU ([0-9.]+) %", done.stdout).group(1))
    assert report_mfu == pytest.approx(mfu, abs=0.051) and "transposes excluded" not in done.stdout


def test_command_names_both_mfu_figures_where_transposes_part_them(cli):
    done = cli("nki", f"{example('transpose.py')}::transpose", "--input", "x=bf16[1024,1024]")
    assert done.returncode == 0, done.stderr
    report_mfu = float(re.search(r"^utilisation: MFU ([0-9.]+) %", done.stdout, re.M).group(1))
    assert report_mfu > 0  # the transposes' passes through the array
    assert re.search(r"^  MFU 0\.0% of the PE array's peak", done.stdout, re.M)
    assert (f"    of the kernel's matmuls, transposes excluded; the report's MFU, {report_mfu:.1f} %, counts every "
            "pass through the array, transposes included, as neuron-profile does\n") in done.stdout


def test_command_keeps_a_trace_it_did_not_write(cli, tmp_path):
    out = tmp_path / "mine.trc"
    out.write_text("sbufsim-trace 1 gen=cayman\n# a tile I wrote by hand\n")
    args = ["nki", f"{example('matmul.py')}::matmul_tiled", "--input", "lhsT=bf16[128,128]",
            "--input", "rhs=bf16[128,512]", "-o", out]
    done = cli(*args)
    assert done.returncode == 2 and "first line starts '# written by sbufsim'" in done.stderr
    assert out.read_text().endswith("by hand\n")
    done = cli(*args, "--force")
    assert done.returncode == 0, done.stderr
    assert out.read_text().startswith("# written by sbufsim nki; ")
    assert cli(*args).returncode == 0  # its own trace now: replaced
    # The kernel's own file is never the output, --force or not.
    kernel = tmp_path / "matmul.py"
    kernel.write_text(open(example("matmul.py")).read())
    done = cli("nki", f"{kernel}::matmul_tiled", "--input", "lhsT=bf16[128,128]", "--input", "rhs=bf16[128,512]",
               "-o", kernel, "--force")
    assert done.returncode == 2 and "is also the input" in done.stderr
    assert kernel.read_text() == open(example("matmul.py")).read()
    # nki keeps the trace in a file (a .sbt name: the binary form), not on stdout.
    done = cli(*args[:-1], "-")
    assert done.returncode == 2 and "nki keeps the trace in a file" in done.stderr, done.stderr


def test_kernel_trace_write_keeps_the_users_files(tmp_path):
    # KernelTrace.write as nki -o: marked, a file sbufsim did not write refused, never the kernel.
    kernel = tmp_path / "matmul.py"
    kernel.write_text(open(example("matmul.py")).read())
    kt = nki.trace(f"{kernel}::matmul_tiled", {"lhsT": "bf16[128,128]", "rhs": "bf16[128,512]"})
    notes = tmp_path / "notes.md"
    notes.write_text("notes\n")
    for target in (notes, kernel):
        with pytest.raises(sbufsim.OutputError) as refused:
            kt.write(str(target), force=target == kernel)
        assert target.read_text() == ("notes\n" if target == notes else open(example("matmul.py")).read())
    assert "force=True" in str(refused.value) or "is also the input" in str(refused.value)
    out = kt.write(str(tmp_path / "k.trc"))
    assert open(out).readline().startswith("# written by sbufsim nki; ")
    kt.write(out)  # its own trace: replaced
    kt.write(str(notes), force=True)
    assert sbufsim.run(str(notes)).total_cycles == sbufsim.run(out).total_cycles
    # run() takes the KernelTrace itself; a sweep's workers need the file, and say so.
    assert sbufsim.run(kt).total_cycles == sbufsim.run(out).total_cycles
    with pytest.raises(TypeError, match=r"write a built trace first \(kernel_trace.write\(path\)\)"):
        sbufsim.sweep(kt, {"tdm.dma_slots": [1, 2]})
    # A .sbt name gets the binary form, as convert writes it (text there is refused by readers).
    binary = kt.write(str(tmp_path / "k.sbt"))
    assert open(binary, "rb").read(8) == b"SBUFTRC\0"
    assert sbufsim.run(binary).total_cycles == sbufsim.run(out).total_cycles


def test_command_json_on_stdout_is_alone(cli):
    done = cli("nki", f"{example('matmul.py')}::matmul_tiled", "--input", "lhsT=bf16[256,256]",
               "--input", "rhs=bf16[256,512]", "--json", "-")
    assert done.returncode == 0, done.stderr
    stats = json.loads(done.stdout)  # nothing but the document
    assert stats["runs"][0]["pe"]["matmuls"] > 0
    assert "kernel:" in done.stderr and "bound by" in done.stderr


def test_command_error_has_file_and_line(cli, tmp_path):
    done = cli("nki", f"{example('matmul.py')}::matmul_tiled", "--input", "lhsT=bf16[512,512]",
               "--input", "rhs=bf16[256,1024]")
    assert done.returncode == 3
    assert "matmul.py:27: rhs: dimension 0 (size 256): the slice [256:384] reaches 384" in done.stderr
    # A slice partly past the tensor is refused at its line too, not clamped to a smaller copy.
    kernel = tmp_path / "oob.py"
    kernel.write_text("import nki.language as nl\n\n\ndef oob(x):\n"
                      "    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)\n"
                      "    t = nl.load(x[:, 384:640])\n"
                      "    nl.store(out[:, 384:640], value=t)\n    return out\n")
    done = cli("nki", f"{kernel}::oob", "--input", "x=bf16[128,512]")
    assert done.returncode == 3
    assert "oob.py:6: x: dimension 1 (size 512): the slice [384:640] reaches 640" in done.stderr, done.stderr


@pytest.mark.parametrize("kernel,inputs", [
    ("matmul.py::matmul_tiled", {"lhsT": "bf16[256,256]", "rhs": "bf16[256,512]"}),
    ("matmul.py::matmul_blocked", {"lhsT": "bf16[256,512]", "rhs": "bf16[256,512]"}),
    ("softmax.py::softmax", {"x": "bf16[256,512]"}),
    ("transpose.py::transpose", {"x": "bf16[256,128]"}),
    ("matmul_grid.py::matmul_grid", {"lhsT": "bf16[256,128]", "rhs": "bf16[256,1024]"}),
    # more than two waits: synchronisation records on several queues, whose scratch bytes must
    # not be shared (a race)
    ("rmsnorm.py::rmsnorm", {"x": "bf16[1024,2048]", "g": "bf16[1,2048]"}),
])
def test_examples_pass_check(cli, tmp_path, kernel, inputs):
    # the trace rules, the static deadlock check and the race check of `sbufsim check` find nothing
    path = traced(kernel, inputs).write(str(tmp_path / "k.trc"))
    done = cli("check", path)
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_semaphore_counts_records_that_complete_in_order(cli, tmp_path):
    # The replay completes an ldweights in the background of the matmul before it, a DMA queue's
    # transfers in order per DMA engine only: a semaphore is signalled by one such lane, so the
    # n-th signal is its n-th record (docs/trace-format.md, "Completion order").
    kt = traced("rmsnorm.py::rmsnorm", {"x": "bf16[1024,2048]", "g": "bf16[1,2048]"})
    sems = {}
    for record in kt.records:
        kind, sem = record.split()[0], int(re.search(r" signal=(\d+)", record).group(1))
        lane = kind
        if kind == "dma":  # the DMA engines of the SBUF side (8 partitions each)
            side = re.search(r"dst=\S+@" if "dst=hbm" not in record else r"src=\S+@", record) is not None
            lane = ("dma", side, re.search(r"partitions=(\d+)", record).group(1))
        sems.setdefault(sem, set()).add(lane)
    pe = {s for s, lanes in sems.items() if lanes & {"ldweights", "matmul"}}
    assert len(pe) == 2 and all(len(sems[s]) == 1 for s in pe), sems
    # the copy of the broadcast weight waits for the matmul's own semaphore
    matmul_sem = next(s for s in pe if sems[s] == {"matmul"})
    copies = [r for r in kt.records if r.startswith("act") and "isa=tensor_copy" in r]
    assert copies and all(f"wait={matmul_sem}:" in r for r in copies), copies
    done = cli("check", kt.write(str(tmp_path / "k.trc")))
    assert done.returncode == 0, done.stdout + done.stderr


def test_rmsnorm_engines_and_weight_broadcast(tmp_path):
    kt = traced("rmsnorm.py::rmsnorm", {"x": "bf16[512,1024]", "g": "bf16[1,1024]"})
    # g reaches all 128 partitions through two K = 1 matmuls of a row of ones (512 columns each)
    matmuls = [r for r in kt.records if r.startswith("matmul")]
    assert len(matmuls) == 2 and all("num_active_rows=1 num_active_cols=128" in r for r in matmuls)
    isa = lambda r: re.search(r" isa=(\S+)", r).group(1)
    per_tile = [r.split()[0] + ":" + isa(r) for r in kt.records if r.startswith(("act", "dve")) and "fn=sync" not in r]
    # 2 copies of the broadcast weight, then per row tile (4): square+sum, 1/rms, scale, weight
    assert per_tile[:2] == ["act:tensor_copy"] * 2
    assert per_tile[2:] == ["act:activation_reduce", "dve:tensor_scalar", "act:activation", "dve:tensor_scalar",
                            "dve:tensor_tensor"] * 4
    transfers = [r for r in kt.records if r.startswith("dma") and "hbm" in r]
    assert len(transfers) == 1 + 4 + 4
    assert kt.hbm_bytes == 2 * 512 * 1024 * 2 + 1024 * 2
    check_semaphores(kt)
    result = replay(kt, tmp_path)
    syncs = [r for r in kt.records if r.startswith("dma") and "hbm" not in r]  # 2-byte semaphore carriers
    assert result["pe"]["matmuls"] == 2 and result["dma"]["bytes"] == kt.hbm_bytes + 2 * len(syncs)


def test_sweep_param_runs_every_point_and_tabulates(cli, tmp_path):
    kernel = tmp_path / "rows.py"
    kernel.write_text(textwrap.dedent("""\
        import nki.language as nl

        def k(a, T=1):
            for i in nl.affine_range(2):
                x = nl.load(a[0:T * 64, i * 256:(i + 1) * 256])
                nl.store(a[0:T * 64, i * 256:(i + 1) * 256], value=nl.exp(x))
        """))
    done = cli("nki", f"{kernel}::k", "--input", "a=bf16[256,512]", "--sweep-param", "T=1,2,3")
    assert done.returncode == 1, done.stdout + done.stderr  # one point cannot be traced
    rows = {line.split()[0]: line.split() for line in done.stdout.splitlines() if re.match(r"\s*\d+\s", line)}
    assert set(rows) == {"1", "2", "3"}
    assert "untraceable:" in rows["3"] and any("rows.py:5:" in c for c in rows["3"])
    # each traced point is the replay `sbufsim nki --param` gives
    for t in ("1", "2"):
        single = cli("nki", f"{kernel}::k", "--input", "a=bf16[256,512]", "--param", f"T={t}")
        assert single.returncode == 0, single.stderr
        assert int(rows[t][1]) == int(re.search(r"^total (\d+) cycles", single.stdout, re.M).group(1))


def test_sweep_param_does_not_call_a_point_without_the_kernels_work_fastest(cli, tmp_path):
    # TN past N skips the loop body: no matmul at all (only the first load), and the fewest cycles.
    kernel = tmp_path / "strip.py"
    kernel.write_text(textwrap.dedent("""\
        import nki.isa as nisa
        import nki.language as nl

        def k(aT, b, TN=128):
            out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
            a = nl.load(aT)
            nl.store(out[:, 0:128], value=nl.copy(a, dtype=nl.float32))
            for n in nl.affine_range(512 // TN):
                t = nl.load(b[:, n * TN:(n + 1) * TN])
                acc = nl.zeros((128, TN), nl.float32, buffer=nl.psum)
                acc += nisa.nc_matmul(a, t)
                nl.store(out[:, n * TN:(n + 1) * TN], value=nl.copy(acc))
            return out
        """))
    done = cli("nki", f"{kernel}::k", "--input", "aT=bf16[128,128]", "--input", "b=bf16[128,512]",
               "--sweep-param", "TN=128,256,1024")
    assert done.returncode == 0, done.stdout + done.stderr
    rows = {line.split()[0]: line for line in done.stdout.splitlines() if re.match(r"\s*\d+\s", line)}
    assert "other work: 0 matmul flops where the other points do 16777216" in rows["1024"]
    assert "fastest" not in rows["1024"]
    fastest = [tn for tn, line in rows.items() if line.endswith("<- fastest")]
    assert len(fastest) == 1 and fastest[0] in ("128", "256")


def test_sweep_param_ranks_element_wise_points_by_the_same_bytes(cli, tmp_path):
    # No point does a matmul: the points that move the same HBM bytes are ranked among themselves
    # (the status once read "0 matmul flops where the other points do None"); a tiling that drops
    # a remainder moves fewer bytes, and then none is called fastest.
    kernel = tmp_path / "scale.py"
    kernel.write_text(textwrap.dedent("""\
        import nki.language as nl

        def k(a, TN=128):
            out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
            for n in nl.affine_range(a.shape[1] // TN):
                t = nl.load(a[:, n * TN:(n + 1) * TN])
                nl.store(out[:, n * TN:(n + 1) * TN], value=nl.multiply(t, 2.0))
            return out
        """))

    def rows_of(cols, values):
        done = cli("nki", f"{kernel}::k", "--input", f"a=bf16[128,{cols}]", "--sweep-param", f"TN={values}")
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout, {line.split()[0]: line for line in done.stdout.splitlines()
                             if re.match(r"\s*\d+\s", line)}
    out, rows = rows_of(1024, "128,256,512")
    assert "None" not in out and "other work" not in out
    assert all(line.rstrip().endswith(("ok", "<- fastest")) for line in rows.values()), out
    assert sum(line.endswith("<- fastest") for line in rows.values()) == 1
    out, rows = rows_of(768, "256,512")  # 768 // 512 drops 256 columns
    assert "<- fastest" not in out
    assert "note: the points move different HBM bytes (2 counts" in out


def _strips_kernel(tmp_path, cols):
    """A kernel of `cols // TN` matmuls over strips of TN columns (a remainder of cols is dropped)."""
    kernel = tmp_path / f"strips{cols}.py"
    kernel.write_text(textwrap.dedent(f"""\
        import nki.isa as nisa
        import nki.language as nl

        def k(aT, b, TN=128):
            out = nl.ndarray((128, {cols}), dtype=nl.float32, buffer=nl.shared_hbm)
            a = nl.load(aT)
            for n in nl.affine_range({cols} // TN):
                t = nl.load(b[:, n * TN:(n + 1) * TN])
                acc = nl.zeros((128, TN), nl.float32, buffer=nl.psum)
                acc += nisa.nc_matmul(a, t)
                nl.store(out[:, n * TN:(n + 1) * TN], value=nl.copy(acc))
            return out
        """))
    return kernel


def test_sweep_param_marks_no_point_fastest_when_the_points_do_different_work(cli, tmp_path):
    # 384 // TN drops a remainder at TN=256: that point computes 256 of the 384 columns, in fewer
    # cycles. Neither point is the fastest at the same work.
    kernel = _strips_kernel(tmp_path, 384)
    done = cli("nki", f"{kernel}::k", "--input", "aT=bf16[128,128]", "--input", "b=bf16[128,384]",
               "--sweep-param", "TN=128,256")
    assert done.returncode == 0, done.stdout + done.stderr
    rows = {line.split()[0]: line for line in done.stdout.splitlines() if re.match(r"\s*\d+\s", line)}
    assert rows["128"].rstrip().endswith("ok"), rows["128"]
    assert "less work: 66.7% of the most matmul flops (8388608 of 12582912)" in rows["256"]
    assert "<- fastest" not in done.stdout
    assert "note: the points do different matmul work (2 flop counts, 8388608 to 12582912)" in done.stdout


def test_sweep_param_replaying_points_while_tracing_others_gives_the_rows_of_one_sweep(cli, tmp_path):
    # More points than worker slots and no table of the sweep's own: the traced points are replayed
    # in batches while the others are traced. --out replays them all in one sweep at the end; the
    # rows, the fastest mark and the note are the same.
    kernel = _strips_kernel(tmp_path, 512)
    common = ["nki", f"{kernel}::k", "--input", "aT=bf16[128,128]", "--input", "b=bf16[128,512]",
              "--sweep-param", "TN=32,64,128,256,512", "--jobs", "2"]
    streamed = cli(*common)
    assert streamed.returncode == 0, streamed.stdout + streamed.stderr
    whole = cli(*common, "--out", tmp_path / "tn.csv", cwd=tmp_path)
    assert whole.returncode == 0, whole.stdout + whole.stderr
    assert "5 points, traced in 2 processes" in streamed.stdout and "traces kept in" in whole.stdout
    rows = streamed.stdout.splitlines()[1:]
    assert len(rows) == 2 + 5 and "<- fastest" in streamed.stdout
    assert rows == whole.stdout.splitlines()[1:]


def test_sweep_param_with_out_keeps_named_traces_beside_the_table_and_resumes(cli, tmp_path):
    kernel = _strips_kernel(tmp_path, 512)
    common = ["nki", f"{kernel}::k", "--input", "aT=bf16[128,128]", "--input", "b=bf16[128,512]"]
    table = tmp_path / "tn.csv"
    done = cli(*common, "--sweep-param", "TN=128,256", "--out", table, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "traces kept in" in done.stdout
    traces = tmp_path / "tn.traces"
    assert sorted(os.listdir(traces)) == ["TN=128.trc", "TN=256.trc"]
    assert (traces / "TN=128.trc").read_text().startswith("# written by sbufsim nki --sweep-param")
    rows = [line.split(",")[0] for line in table.read_text().splitlines()[1:]]
    assert [os.path.basename(r) for r in rows] == ["TN=128.trc", "TN=256.trc"]
    # each kept trace is the point's: `sbufsim run` of it gives the row's cycles
    rows = [line.split(",") for line in table.read_text().splitlines()[1:]]
    cycles = {os.path.basename(row[0]): int(row[1]) for row in rows}
    again = cli("run", traces / "TN=256.trc", "--json", "-", "--quiet")
    assert json.loads(again.stdout)["runs"][0]["run"]["total_cycles"] == cycles["TN=256.trc"]
    # a further sweep into the table resumes it: the old rows stay, the new point is added
    done = cli(*common, "--sweep-param", "TN=256,512", "--out", table, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert sorted(os.path.basename(line.split(",")[0]) for line in table.read_text().splitlines()[1:]) == [
        "TN=128.trc", "TN=256.trc", "TN=512.trc"]
    # a file there that sbufsim did not write is never replaced
    (traces / "TN=64.trc").write_text("my notes\n")
    done = cli(*common, "--sweep-param", "TN=64", "--out", table, cwd=tmp_path)
    assert done.returncode == 2
    assert "TN=64.trc: a point's trace goes there, and the file there was not written by sbufsim" in done.stderr
    assert (traces / "TN=64.trc").read_text() == "my notes\n"
    # a table in a folder that does not exist: refused, nothing made
    done = cli(*common, "--sweep-param", "TN=128", "--out", tmp_path / "no" / "t.csv")
    assert done.returncode == 2
    assert "the folder" in done.stderr and "does not exist" in done.stderr
    assert not (tmp_path / "no").exists()
    # one run's outputs are refused with a sweep, naming what it writes instead
    done = cli(*common, "--sweep-param", "TN=128", "--json", tmp_path / "x.json")
    assert done.returncode == 2
    assert "with --sweep-param the points are replayed by `sbufsim sweep`, which writes its table with --out" in (
        done.stderr)
    assert not (tmp_path / "x.json").exists()


def test_an_argument_in_the_wrong_place_or_an_exit_stops_at_the_kernels_line(tmp_path):
    kernel = tmp_path / "misuse.py"
    kernel.write_text(textwrap.dedent("""\
        import sys
        import nki.isa as nisa
        import nki.language as nl

        def swapped(x):
            t = nl.load(x)
            u = nisa.tensor_scalar(t, nl.multiply, 2.0, nl.add, t)
            nl.store(x, value=u)

        def leaves(x):
            sys.exit(0)
        """))
    with pytest.raises(nki.NkiError, match=r"misuse\.py:7: a tile given where an operator belongs"):
        nki.trace(f"{kernel}::swapped", {"x": "bf16[128,512]"})
    with pytest.raises(nki.NkiError, match=r"misuse\.py:11: the kernel called exit\(0\) while it was traced"):
        nki.trace(f"{kernel}::leaves", {"x": "bf16[128,512]"})


def test_an_input_or_param_given_twice_is_refused(cli):
    done = cli("nki", f"{example('matmul.py')}::matmul_tiled", "--input", "lhsT=bf16[128,128]",
               "--input", "lhsT=bf16[256,128]", "--input", "rhs=bf16[128,512]")
    assert done.returncode == 2
    assert "--input lhsT given twice (lhsT=bf16[128,128] and lhsT=bf16[256,128]); give it once" in done.stderr


def test_an_argument_the_kernel_does_not_take_is_said_with_those_it_does(cli):
    done = cli("nki", f"{example('matmul.py')}::matmul_tiled", "--input", "lhs=bf16[128,128]",
               "--input", "rhs=bf16[128,512]")
    assert done.returncode == 3
    assert "--input lhs: matmul_tiled has no parameter 'lhs' (did you mean 'lhsT'?); it takes lhsT, rhs" \
        in done.stderr, done.stderr


def test_without_o_the_summary_names_the_kernel_not_a_removed_file(cli):
    kernel = f"{example('matmul.py')}::matmul_tiled"
    done = cli("nki", kernel, "--input", "lhsT=bf16[128,128]", "--input", "rhs=bf16[128,512]")
    assert done.returncode == 0, done.stderr
    assert f"trace {kernel} (traced, not kept: -o FILE.trc keeps it)  (gen cayman" in done.stdout, done.stdout
    assert "sbufsim-nki-" not in done.stdout


def test_a_bad_replay_option_is_refused_before_the_kernel_is_traced(cli):
    done = cli("nki", f"{example('matmul.py')}::matmul_tiled", "--input", "lhsT=bf16[128,128]",
               "--input", "rhs=bf16[128,512]", "--set", "tdm.dma_slot=3")
    assert done.returncode == 2
    assert "unknown key 'tdm.dma_slot'; did you mean 'tdm.dma_slots'?" in done.stderr
    assert "matmul flops" not in done.stdout + done.stderr  # the tracer did not run


_BLOCKED = textwrap.dedent("""\
    import nki.isa as nisa
    import nki.language as nl

    def k(aT, b, BM=512):
        out = nl.ndarray((aT.shape[1], 128), dtype=nl.float32, buffer=nl.shared_hbm)
        for mb in nl.affine_range(aT.shape[1] // BM):
            for m in nl.affine_range(BM // 128):
                a = nl.load(aT[:, mb * BM + m * 128:mb * BM + (m + 1) * 128])
                t = nl.load(b)
                acc = nl.zeros((128, 128), nl.float32, buffer=nl.psum)
                acc += nisa.nc_matmul(a, t)
                nl.store(out[mb * BM + m * 128:mb * BM + (m + 1) * 128, :], value=nl.copy(acc))
        return out
    """)


def test_a_kernel_that_traces_nothing_is_refused_naming_the_loops_that_ran_zero_times(tmp_path, cli):
    kernel = tmp_path / "blocked.py"
    kernel.write_text(_BLOCKED)
    # 256 rows under a 512-row block: the outer loop runs zero times and nothing is traced
    kt = nki.trace(f"{kernel}::k", {"aT": "bf16[128,256]", "b": "bf16[128,128]"})
    assert kt.records == [] and len(kt.empty_loops) == 1
    message = kt.nothing_to_replay()
    assert "k traced no instructions, so there is nothing to replay" in message
    assert f"{kernel}:6: nl.affine_range(0) runs zero times (for mb in nl.affine_range(aT.shape[1] // BM):)" in message
    done = cli("nki", f"{kernel}::k", "--input", "aT=bf16[128,256]", "--input", "b=bf16[128,128]")
    assert done.returncode == 3, done.stdout + done.stderr
    assert "nl.affine_range(0) runs zero times" in done.stderr and "total" not in done.stdout
    # a kernel that does some of its work: traced, with a note for the loop it skipped
    kt = nki.trace(f"{kernel}::k", {"aT": "bf16[128,256]", "b": "bf16[128,128]"}, {"BM": 256})
    assert kt.count("matmul") == 2 and kt.empty_loops == [] and kt.nothing_to_replay() is None
    empty_loop = "    for tail in nl.affine_range(0):\n        pass\n"
    kernel.write_text(_BLOCKED.replace("    return out", empty_loop + "    return out"))
    done = cli("nki", f"{kernel}::k", "--input", "aT=bf16[128,256]", "--input", "b=bf16[128,128]", "--param", "BM=256")
    assert done.returncode == 0, done.stdout + done.stderr
    note = (f"note: {kernel}:13: nl.affine_range(0) runs zero times (for tail in nl.affine_range(0):): its body is "
            "not in the trace")
    assert note in done.stdout


def test_nki_outputs_naming_one_file_are_refused_before_anything_is_written(tmp_path, cli):
    kernel = tmp_path / "blocked.py"
    kernel.write_text(_BLOCKED)
    args = ["nki", f"{kernel}::k", "--input", "aT=bf16[128,512]", "--input", "b=bf16[128,128]"]
    done = cli(*args, "-o", "same.trc", "--json=same.trc", cwd=tmp_path)
    assert done.returncode == 2 and "-o and --json both write same.trc" in done.stderr, done.stderr
    done = cli(*args, "-o", "k.trc", "--timeline", "./k.trc", cwd=tmp_path)
    assert done.returncode == 2 and "-o and --timeline both write" in done.stderr, done.stderr
    # --values-out without numerical inputs: refused before the kernel is traced
    done = cli(*args, "--values-out", "v.npy", cwd=tmp_path)
    assert done.returncode == 2 and "--values-out needs numerical inputs" in done.stderr, done.stderr
    assert "records" not in done.stdout + done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["blocked.py"]


def test_a_generation_the_front_end_does_not_model_says_why():
    inputs = {"lhsT": "bf16[128,128]", "rhs": "bf16[128,512]"}
    kernel = f"{example('matmul.py')}::matmul_tiled"
    for generation, why in (("caymen", "unknown generation 'caymen' (did you mean 'cayman'?): the NKI front-end "
                                       "models sunda, cayman, mariana"),
                            ("maverick", "(maverick has no PSUM, so no matmul accumulates)"),
                            ("inferentia", "(NKI targets NeuronCore-v2 and later; inferentia is Inf1's v1)")):
        with pytest.raises(nki.NkiError) as e:
            nki.trace(kernel, inputs, generation=generation)
        assert why in str(e.value)


def test_a_sweep_refuses_a_parameter_the_kernel_lacks_before_tracing_and_keeps_to_its_jobs(cli):
    args = ["nki", f"{example('matmul.py')}::matmul_blocked", "--input", "lhsT=bf16[512,512]"]
    done = cli(*args, "--input", "rhs=bf16[512,512]", "--sweep-param", "TILES_IN_BLOK_M=1,2")
    assert done.returncode == 2, done.stdout + done.stderr
    assert ("--sweep-param TILES_IN_BLOK_M: matmul_blocked has no parameter 'TILES_IN_BLOK_M' (did you mean "
            "'TILES_IN_BLOCK_M'?); it takes lhsT, rhs, TILES_IN_BLOCK_M") in done.stderr
    assert done.stdout == ""  # no table of per-point failures
    done = cli(*args, "--input", "rhsx=bf16[512,512]", "--sweep-param", "TILES_IN_BLOCK_M=1,2")
    assert done.returncode == 2 and "--input rhsx: matmul_blocked has no parameter 'rhsx' (did you mean 'rhs'?)" \
        in done.stderr, done.stderr
    # --jobs bounds the tracing processes too
    done = cli(*args, "--input", "rhs=bf16[512,512]", "--sweep-param", "TILES_IN_BLOCK_M=1,2,4", "--jobs", "1")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "3 points, traced in 1 process, replayed by `sbufsim sweep`" in done.stdout


def test_reading_an_on_chip_tile_nothing_wrote_is_noted_at_its_line(tmp_path, cli):
    # The contraction loop runs zero times, so the PSUM accumulator is copied out unwritten.
    kernel = tmp_path / "unwritten.py"
    kernel.write_text(textwrap.dedent("""\
        import nki.isa as nisa
        import nki.language as nl

        def k(aT, b, skip=1):
            out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
            acc = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum)
            for kk in nl.affine_range(aT.shape[0] // 128 - skip):
                a = nl.load(aT[kk * 128:(kk + 1) * 128, :])
                t = nl.load(b[kk * 128:(kk + 1) * 128, :])
                acc += nisa.nc_matmul(a, t)
            nl.store(out, value=nl.copy(acc))
            zero = nl.zeros((128, 512), dtype=nl.float32, buffer=nl.psum)
            nl.store(out, value=nl.copy(zero))
            return out
        """))
    inputs = {"aT": "bf16[128,128]", "b": "bf16[128,512]"}
    kt = nki.trace(f"{kernel}::k", inputs)
    assert kt.unwritten_reads == [f"{kernel}:11: reads PSUM tile 'acc' before anything wrote it (its values are "
                                  "undefined)"]
    assert nki.trace(f"{kernel}::k", inputs, {"skip": 0}).unwritten_reads == []  # nl.zeros in PSUM counts as written
    done = cli("nki", f"{kernel}::k", "--input", "aT=bf16[128,128]", "--input", "b=bf16[128,512]")
    assert done.returncode == 0, done.stderr
    assert f"note: {kernel}:11: reads PSUM tile 'acc' before anything wrote it" in done.stdout


def test_a_docs_example_path_run_elsewhere_names_the_installed_copy(cli, tmp_path):
    # The docs name kernels by their source-tree path; from another folder (as from an install)
    # the message says where the shipped copy is, rather than only that the file is missing.
    done = cli("nki", "examples/nki/matmul.py::matmul_blocked", "--input", "lhsT=bf16[256,256]", cwd=tmp_path)
    assert done.returncode == 3, done.stderr
    assert "examples/nki/matmul.py: no such kernel file (an installed example of that name: " in done.stderr
    shown = done.stderr.split("an installed example of that name: ")[1].rstrip(")\n")
    assert os.path.isfile(shown) and shown.endswith(os.path.join("examples", "nki", "matmul.py"))
    # A missing file of another name gets no such hint.
    other = cli("nki", "mine/kernel.py::k", "--input", "x=bf16[128,128]", cwd=tmp_path)
    assert "installed example" not in other.stderr
