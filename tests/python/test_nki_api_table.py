"""docs/nki.md's table of public names is the one the front-end's modules generate
(`python3 -m sbufsim.nki.api`), and every name in it resolves while a kernel is traced."""

import re
from pathlib import Path

from sbufsim import nki
from sbufsim.nki import api

DOC = Path(__file__).resolve().parents[2] / "docs" / "nki.md"


def test_the_page_carries_the_generated_table():
    page = DOC.read_text()
    table = re.search(r"<!-- api-table: python3 -m sbufsim.nki.api -->\n(.*?)<!-- /api-table -->", page, re.S)
    assert table, "docs/nki.md lost its api-table markers"
    assert table.group(1) == api.markdown(), "regenerate the table: python3 -m sbufsim.nki.api"


def test_every_listed_name_resolves_in_a_kernel(tmp_path):
    names = [name for name, _, _ in api.rows() if not name.startswith("tensor.")]
    body = "\n".join(f"    {name}" for name in names)
    path = tmp_path / "names.py"
    path.write_text("import nki\nimport nki.language as nl\nimport nki.isa as nisa\nimport nki.typing\n"
                    "import nki.compiler\n\n\ndef k(a):\n" + body + "\n    nl.store(a, value=nl.load(a))\n")
    kt = nki.trace(f"{path}::k", {"a": "bf16[128,128]"})
    assert kt.count("dma") == 2
    assert len(names) > 120
