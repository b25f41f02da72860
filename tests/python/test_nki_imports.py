"""The NKI front-end's modules import on their own, and none of them imports, directly or through
others (deferred imports inside functions included), a module that imports it."""

import ast
import os
import subprocess
import sys

import sbufsim

PACKAGE_DIR = os.path.dirname(sbufsim.__file__)


def modules():
    """{module name: path} of every module of the sbufsim package."""
    found = {}
    for folder, _, files in os.walk(PACKAGE_DIR):
        for file in sorted(files):
            if file.endswith(".py"):
                path = os.path.join(folder, file)
                parts = ["sbufsim"] + os.path.relpath(path, PACKAGE_DIR)[:-3].split(os.sep)
                found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def imports(name, path, known):
    """The package's modules that `name` imports anywhere in its source (in functions too)."""
    package = name.split(".") if path.endswith("__init__.py") else name.split(".")[:-1]
    out = set()
    for node in ast.walk(ast.parse(open(path, encoding="utf-8").read(), path)):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name in known)
        elif isinstance(node, ast.ImportFrom):
            base = package[:len(package) - node.level + 1] if node.level else []
            target = ".".join(base + ([node.module] if node.module else []))
            for alias in node.names:  # `from . import _ops` names a module, `from ._ops import x` a name
                module = f"{target}.{alias.name}"
                out.add(module if module in known else target)
    return {m for m in out if m in known and m != name}


def cycles(graph):
    """The strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_cycle_finder_finds_a_loop_through_a_deferred_import():
    # what the next test relies on: a function-level import closes a loop too
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_loop_runs_through_the_front_end():
    known = modules()
    assert "sbufsim.nki._tracer" in known and "sbufsim.nki.isa" in known
    graph = {name: imports(name, path, known) for name, path in known.items()}
    assert "sbufsim.nki._view" in graph["sbufsim.nki._tracer"]  # the graph sees imports at all
    assert "sbufsim.nki._values" in graph["sbufsim.nki._tracer"]
    loops = [c for c in cycles(graph) if any(m == "sbufsim.nki" or m.startswith("sbufsim.nki.") for m in c)]
    assert loops == [], loops


def test_every_module_imports_alone_in_a_fresh_interpreter():
    names = sorted(n for n in modules() if n.startswith("sbufsim.nki"))
    assert len(names) > 10
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.dirname(PACKAGE_DIR)] + sys.path))
    for name in names:
        done = subprocess.run([sys.executable, "-c", f"import {name}"], capture_output=True, text=True, env=env)
        assert done.returncode == 0, f"import {name}:\n{done.stderr}"


def test_the_package_imports_nothing_of_the_command_line_layer():
    # sbufsim.Trace reads a KernelTrace (it imports this package): the front-end does not import it back
    code = ("import sys, sbufsim.nki, sbufsim.nki.isa, sbufsim.nki.language, sbufsim.nki.driver\n"
            "print(sorted(m for m in sys.modules if m in ('sbufsim._cli', 'sbufsim._trace')))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
