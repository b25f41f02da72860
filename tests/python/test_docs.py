"""docs/python.md is run, not just read: every ```python block, in order, in one namespace, in a
scratch folder. Blocks that start with `# needs pandas` / `# needs matplotlib` are skipped where
that package is missing. The outputs the page shows are checked by the other tests' figures."""

import importlib.util
import os
import re
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "python.md"


def blocks():
    return re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)


def test_the_walkthrough_runs(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    namespace = {}
    ran = 0
    for code in blocks():
        needs = re.findall(r"^# needs (\w+)", code, flags=re.M)
        if any(importlib.util.find_spec(n) is None for n in needs):
            continue
        exec(compile(code, str(DOC), "exec"), namespace)
        ran += 1
    assert ran >= 5
    out = capsys.readouterr().out
    # A few of the figures the page quotes.
    assert "50400 99.86438095" in out
    assert "gemm_bn8_bufs8.sbt 1 154287 0.8612261564 195.7325556" in out
    assert "mine:2: client: unknown client 'pe_client_9'" in out
    if importlib.util.find_spec("matplotlib") and importlib.util.find_spec("pandas"):
        assert os.path.getsize(tmp_path / "gemm_tiling.png") > 10_000
