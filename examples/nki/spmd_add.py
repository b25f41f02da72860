"""An SPMD kernel: exp(a + b) over rows of 128, one launch instance per row block, the last
block masked to the rows the tensor has (docs/nki.md, "SPMD grids").

    sbufsim nki examples/nki/spmd_add.py::spmd_add --input a=bf16[1000,512] --input b=bf16[1000,512]
    python3 -m sbufsim.nki.driver examples/nki/spmd_add_driver.py
"""

import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.typing as nt


@nki.jit
def add_exp(a: nt.tensor, b: nt.tensor):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    rows = nl.program_id(0) * 128 + nl.arange(128)[:, None]
    cols = nl.arange(a.shape[1])[None, :]
    inside = rows < a.shape[0]
    x = nl.load(a[rows, cols], mask=inside)
    y = nl.load(b[rows, cols], mask=inside)
    nl.store(out[rows, cols], value=nl.exp(nl.add(x, y)), mask=inside)
    return out


def spmd_add(a, b):
    """Launches add_exp over as many row blocks as a has (the last one partial)."""
    return add_exp[(a.shape[0] + 127) // 128](a, b)
