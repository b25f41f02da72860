"""The public NKI names this front-end models, read from its own modules: the table docs/nki.md
carries ("The public names"), printed by `python3 -m sbufsim.nki.api` and checked against the page
by tests/python/test_nki_api_table.py, so the two cannot drift apart.

A name is listed with the first sentence of its docstring (how it maps to records) or, for a
constant, what it is. Names the front-end lacks are not here: they fail at the kernel's line
(docs/nki.md, "How calls become records")."""

import inspect
import re

# module -> the prefix kernels write it with
MODULES = [("language", "nl"), ("isa", "nisa"), ("_compiler", "nki.compiler"), ("_typing", "nki.typing")]
# nki's own top-level names (the `nki` module is built in __init__._shim)
TOP_LEVEL = {
    "jit": "the kernel runs under the tracer; kernel[grid](...) launches its instances on the logical core's cores",
    "baremetal": "as nki.jit", "benchmark": "as nki.jit (a decorator; no benchmark is run)",
    "profile": "as nki.jit (a decorator; no profile is taken)", "trace": "as nki.jit",
}
# tensor attributes and methods (the View class)
TENSOR = ["shape", "dtype", "buffer", "ndim", "reshape", "view", "broadcast_to", "ap"]


def _summary(obj):
    doc = inspect.getdoc(obj if callable(obj) and not inspect.isroutine(obj) and not inspect.isclass(obj)
                         else obj) or ""
    first = re.split(r"(?<=\.)\s", doc.replace("\n", " "), maxsplit=1)[0].strip()
    return first.rstrip(".:")


def _kind(obj):
    if inspect.isclass(obj):
        return "class"
    if callable(obj):
        return "call"
    return "value"


def rows():
    """(name, kind, summary) for every public name, sorted within each module."""
    from . import _compiler, _typing, isa, language  # noqa: F401 (imported for getattr below)
    from ._view import View
    out = [(f"nki.{name}", "call", text) for name, text in sorted(TOP_LEVEL.items())]
    modules = {"language": language, "isa": isa, "_compiler": _compiler, "_typing": _typing}
    for module_name, prefix in MODULES:
        module = modules[module_name]
        for name in sorted(vars(module)):
            obj = getattr(module, name)
            defined_in = getattr(obj, "__module__", module.__name__) or ""
            if name.startswith("_") or inspect.ismodule(obj) or not (
                    defined_in.startswith("sbufsim.nki") or defined_in == "functools"):
                continue
            if name in ("Buffer", "TileGrid", "DTYPES", "Arange", "ParDim", "BN_STATS_FMAX", "MX_DTYPES", "dtype_of",
                        "fail", "module_getattr", "NeuronCores", "at_address", "PSUM_BANK_BYTES"):
                continue  # helpers of the module, not NKI names
            kind = _kind(obj)
            summary = _summary(obj) if kind != "value" else (
                f"dtype {obj.trace_name}" if hasattr(obj, "trace_name") else repr(obj))
            out.append((f"{prefix}.{name}", kind, summary))
    for name in TENSOR:
        attr = getattr(View, name)
        out.append((f"tensor.{name}", "call" if callable(attr) else "value",
                    _summary(attr) if callable(attr) else "as NKI has it"))
    return out


def markdown():
    lines = ["| name | kind | how it is traced |", "| --- | --- | --- |"]
    lines += [f"| `{name}` | {kind} | {summary.replace('|', '/')} |" for name, kind, summary in rows()]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(markdown(), end="")
