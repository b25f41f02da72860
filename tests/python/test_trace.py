"""Traces built from Python objects run exactly as the same text read from a file."""

import pytest

import sbufsim


def kloop():
    # A DMA load, the weights, a two-step K-loop into one PSUM bank, ACT evacuating it.
    return sbufsim.Trace(
        [
            sbufsim.Instruction("dma", "qSyncIO0", src="hbm", dst=sbufsim.operand("bf16", 0x0), partitions=128,
                                bytes=1024, signal=1),
            sbufsim.Instruction("ldweights", "qPE0", src=sbufsim.operand("bf16", 0x10000, [1], [128]), rows=128,
                                cols=128, wait=1),
            sbufsim.Instruction("matmul", "qPE0", src=sbufsim.operand("bf16", 0x0, [1], [512]),
                                dst=sbufsim.operand("fp32", 0x2000000, [1], [512]), num_active_rows=128,
                                num_active_cols=128, acc_flags="begin"),
            sbufsim.Instruction("matmul", "qPE0", src=sbufsim.operand("bf16", 0x400, [1], [512]),
                                dst=sbufsim.operand("fp32", 0x2000000, [1], [512]), num_active_rows=128,
                                num_active_cols=128, acc_flags="end", signal=2),
            sbufsim.Instruction("act", "qAct0", src="fp32@0x2000000[1][512]", dst="bf16@0x20000[1][512]",
                                partitions=128, fn="copy", wait=(2, 1)),
            sbufsim.Access(0, "pe_client_0", "rd", 0x5600, 32, 512),
        ],
        generation="cayman",
        name="kloop",
    )


def test_objects_become_trace_text():
    text = kloop().text().splitlines()
    assert text[0] == "sbufsim-trace 1 gen=cayman"
    assert text[1] == "dma queue=qSyncIO0 src=hbm dst=bf16@0x0 partitions=128 bytes=1024 signal=1"
    assert text[5] == ("act queue=qAct0 src=fp32@0x2000000[1][512] dst=bf16@0x20000[1][512] partitions=128 fn=copy "
                       "wait=2:1")
    assert text[6] == "0 pe_client_0 rd 0x5600 32 512"
    assert sbufsim.operand("bf16", 0x10, [1, 64], [64, 2]) == "bf16@0x10[1,64][64,2]"
    instruction = sbufsim.Instruction("dma", "q", transpose=True, wait=[1, (2, 3)])
    assert instruction.text() == "dma queue=q transpose=1 wait=1 wait=2:3"
    assert len(kloop()) == 6


def test_a_built_trace_runs_as_its_file_does(tmp_path, cli_json):
    built = kloop()
    result = sbufsim.run(built)
    assert result.trace == "kloop"
    written = built.write(tmp_path / "kloop.trc")
    from_file = sbufsim.run(written)

    def without_names(stats):  # the file's digest also covers its first line, sbufsim's mark
        stats = {k: v for k, v in stats.items() if k != "trace"}
        stats["run"] = {k: v for k, v in stats["run"].items() if k != "trace_digest"}
        return stats

    assert without_names(result.stats) == without_names(from_file.stats)
    assert from_file.stats == cli_json(written.path)
    assert result["pe"]["matmuls"] == 2 and result["psum"]["groups_ended"] == 1


def test_write_replaces_only_a_trace_sbufsim_wrote_and_never_its_own_file(tmp_path, traces):
    mine = tmp_path / "mine.trc"
    mine.write_text(open(traces("matmul_kloop.trc")).read())
    before = mine.read_text()
    with pytest.raises(sbufsim.OutputError, match="is also the input"):
        sbufsim.Trace.read(mine).write(mine)  # used to empty the file
    notes = tmp_path / "notes.md"
    notes.write_text("notes\n")
    for target in (notes, mine):  # by hand: the user's, whatever its name
        with pytest.raises(sbufsim.OutputError, match="force=True"):
            kloop().write(target)
    assert mine.read_text() == before and notes.read_text() == "notes\n"
    copy = sbufsim.Trace.read(mine).write(tmp_path / "copy.trc")
    lines = open(copy.path).read().splitlines()
    assert lines[0].startswith("# written by sbufsim python Trace.write; ")
    assert "\n".join(lines[1:]) + "\n" == before  # the records and comments as they were
    again = sbufsim.Trace.read(copy.path).write(tmp_path / "again.trc")  # one mark, not two
    assert open(again.path).read() == open(copy.path).read()
    kloop().write(copy.path)  # sbufsim wrote it: replaced
    kloop().write(notes, force=True)
    assert sbufsim.run(str(notes)).total_cycles == sbufsim.run(kloop()).total_cycles
    # generate() refuses as Trace.write does: the writers' OutputError, whichever command writes
    with pytest.raises(sbufsim.OutputError, match="force=True") as refused:
        sbufsim.generate("gemm", mine, m=128, n=128, k=128)
    assert refused.value.exit_status == 2
    assert mine.read_text() == before
    with pytest.raises(sbufsim.OutputError, match="force=True"):
        sbufsim.sweep(sbufsim.shipped_trace("dma_load.trc"), {"tdm.dma_slots": [1, 2]}, out=mine)
    assert mine.read_text() == before
    with pytest.raises(sbufsim.ConfigError, match="jobs must be at least 1"):  # not an output: as it was
        sbufsim.sweep(sbufsim.shipped_trace("dma_load.trc"), {"tdm.dma_slots": [1, 2]}, jobs=0)


def test_binary_and_text_files_hold_the_same_trace(tmp_path):
    binary = kloop().write(tmp_path / "kloop.sbt")
    assert binary.path.endswith(".sbt") and binary.generation == "cayman"
    assert open(binary.path, "rb").read(7) == b"SBUFTRC"
    assert sbufsim.run(binary).total_cycles == sbufsim.run(kloop()).total_cycles
    lines = binary.text().splitlines()  # the canonical text of the binary file
    assert lines[0] == "sbufsim-trace 1 gen=cayman" and len(lines) == 7
    assert lines[1] == kloop().text().splitlines()[1]
    again = sbufsim.Trace(lines[1:], generation="cayman")
    assert sbufsim.run(again).total_cycles == sbufsim.run(kloop()).total_cycles


def test_check_reports_problems_under_the_traces_name():
    trace = sbufsim.Trace(["0 pe_client_0 rd 0x5600 32 512", "foo bar"], name="mine")
    problems = trace.check()
    assert len(problems) == 1
    assert problems[0].startswith("mine:3: record: unknown record kind 'foo'")
    assert "dma, ldweights, matmul, act, pool, dve, q7" in problems[0]
    assert kloop().check() == []


def test_a_trace_file_is_read_lazily_but_its_header_at_once(tmp_path, traces):
    t = sbufsim.Trace.read(traces("dma_load.trc"))
    assert t.generation == "cayman"
    with pytest.raises(TypeError):
        t.add("0 dma_0 rd 0x0 1 64")
    not_a_trace = tmp_path / "x.trc"
    not_a_trace.write_text("hello\n")
    with pytest.raises(sbufsim.TraceError, match=rf"{not_a_trace}:1: header"):
        sbufsim.Trace.read(not_a_trace)


def test_generate_binds_the_request_not_the_command_line(tmp_path, monkeypatch):
    from sbufsim._native import core

    def no_command_line(*args, **kwargs):
        raise AssertionError("generate() went through the command line")

    monkeypatch.setattr(core, "cli", no_command_line)
    trace = sbufsim.generate("conv", tmp_path / "c.trc", sbufsim.Config("sunda"), h=8, w=8, c=16, k=16, r=3, s=3,
                             pad=1, bufs=2, force=True)
    assert core.trace_generation(str(trace.path)) == "sunda"
    with pytest.raises(sbufsim.ConfigError, match=r"--pad is for conv, not gemm"):
        sbufsim.generate("gemm", tmp_path / "p.trc", m=64, n=64, k=64, pad=1)
    with pytest.raises(sbufsim.ConfigError, match=r"--k is missing: gemm needs --m, --n and --k"):
        sbufsim.generate("gemm", tmp_path / "k.trc", m=64, n=64)
    with pytest.raises(sbufsim.ConfigError, match=r"--m '-1': may not be negative"):
        sbufsim.generate("gemm", tmp_path / "m.trc", m=-1, n=64, k=64)
    assert not (tmp_path / "p.trc").exists() and not (tmp_path / "m.trc").exists()


def test_generate_writes_the_command_lines_trace(tmp_path, cli):
    trace = sbufsim.generate("gemm", tmp_path / "g.sbt", m=256, n=512, k=256, bufs=2)
    done = cli("gen", "gemm", "--m", 256, "--n", 512, "--k", 256, "--bufs", 2, "-o", tmp_path / "cli.sbt")
    assert done.returncode == 0, done.stderr
    assert open(trace.path, "rb").read() == open(tmp_path / "cli.sbt", "rb").read()
    with pytest.raises(sbufsim.ConfigError, match="sbufsim gen: .*at least 1"):
        sbufsim.generate("gemm", tmp_path / "bad.sbt", m=0, n=1, k=1)
    # a keyword gen does not take is named as the keyword, with the nearest one
    with pytest.raises(sbufsim.ConfigError, match=r"unknown argument blockn \(did you mean block_n\?\)") as e:
        sbufsim.generate("gemm", tmp_path / "kw.sbt", m=256, n=512, k=256, blockn=8)
    assert e.value.exit_status == 2 and "--block" not in str(e.value)
