"""NKI kernels as sbufsim traces: run a kernel written against the public NKI API (`import nki`,
`nki.language as nl`, `nki.isa as nisa`, or the `neuronxcc.nki` paths) with tracing
implementations of those modules, and get the trace of what it issues to each engine.

    from sbufsim import nki
    kt = nki.trace("matmul.py::nki_matmul_tiled", inputs={"lhsT": "bf16[1024,1024]",
                   "rhs": "bf16[1024,1024]"}, generation="cayman")
    kt.write("matmul.trc"); sbufsim.run("matmul.trc")

docs/nki.md lists the supported calls and how each maps to engines, operands and semaphores.
"""

import ast
import builtins
import importlib.util
import inspect
import os
import re
import sys
import tempfile
import traceback
import types
from contextlib import contextmanager

from . import _absent, _internal, _ops, _spmd, _tracer, _values
from ._allocator import GEOMETRY
from ._dtypes import _ALIASES, DTYPES, MX_DTYPES, MX_GENERATIONS, dtype_of
from ._errors import _PACKAGE_DIR, Clobbered, DirectConflict, NkiError, OutOfSpace, module_getattr
from ._view import View

__all__ = ["trace", "KernelTrace", "NkiError", "parse_input", "kernel_expr"]

_SHAPE = re.compile(r"^\s*([A-Za-z0-9_]+)\s*\[\s*([0-9,\s]+)\]\s*$")


class KernelTrace:
    """A traced kernel: its records as trace text, the matmul FLOPs and the HBM bytes moved."""

    def __init__(self, tracer, name, outputs=None, kernel_file=None):
        self.name, self.generation = name, tracer.generation
        self.kernel_file = kernel_file  # the kernel's source, which write() never replaces
        self.records = [r.text() for r in tracer.records]  # formatted once: the text holds the same lines
        self.text = tracer.text(self.records)
        self.flops, self.hbm_bytes = tracer.flops, tracer.hbm_bytes
        self.outputs = outputs  # with numerical inputs: the returned tensors' values (numpy arrays)
        # range loops that ran zero times (file:line: the call (the source line)): work the
        # shapes skipped, which the trace cannot show
        self.empty_loops = tracer.empty_loop_notes()
        # kernel lines that read an on-chip tile nothing had written (file:line: what)
        self.unwritten_reads = tracer.unwritten_read_notes()
        self.shared_blocks = tracer.shared_block_notes()
        # how many times trace() ran the kernel to find its buffers: 1 when it fitted at once, one
        # more per retry (a tile clobbered, a memory full) and per trace measuring tile lifetimes
        self.traces = _runs[0]
        # the launch's cores (trace() sets them): this trace's core, the launch instances it ran,
        # and every traced core's KernelTrace (core 0's lists them all)
        self.core, self.instances, self.cores = 0, 0, [self]

    def nothing_to_replay(self):
        """Why `sbufsim nki` refuses this trace (it has no records: a replay of nothing reports
        nothing), with the loops that ran zero times; None when it has records."""
        if self.records:
            return None
        why = f"{self.name} traced no instructions, so there is nothing to replay"
        if not self.empty_loops:
            return why + " (it loads, computes and stores nothing)"
        return (why + "; its loops ran zero times:\n  " + "\n  ".join(self.empty_loops) +
                "\n(an input dimension smaller than the kernel's tile or block: give larger inputs or smaller tiles)")

    def count(self, kind):
        return sum(1 for r in self.records if r.split(" ", 1)[0] == kind)

    def write(self, path, *, force=False):
        """Write the trace as `sbufsim nki -o` does: with sbufsim's mark first, replacing only a
        trace sbufsim wrote unless force=True, never the kernel's own file (sbufsim.OutputError,
        the file left as it was). A path ending in .sbt gets the binary form, as `sbufsim
        convert` writes it."""
        from .._native import core

        path = os.fspath(path)
        if path.endswith(".sbt"):
            with tempfile.TemporaryDirectory() as tmp:
                text_path = os.path.join(tmp, "kernel.trc")
                self.write_scratch(text_path)
                _convert(text_path, path, force)
            return path
        inputs = [self.kernel_file] if self.kernel_file else []
        core.write_trace(path, self.text, "nki", bool(force), inputs)
        return path

    def write_scratch(self, path):
        """The bare trace text into a file of sbufsim nki's own scratch folder (not for users:
        write() keeps their files)."""
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.text)

    def __repr__(self):
        return f"<sbufsim.nki.KernelTrace {self.name}: {len(self.records)} records, {self.flops} flops>"


def _convert(text_path, path, force):
    """`sbufsim convert TEXT_PATH PATH` in this process, its failure the matching sbufsim error
    (an output it refused or could not write: OutputError). The compiled core directly, not the
    package's command-line layer, which imports this package (sbufsim.Trace reads KernelTraces)."""
    from .. import errors
    from .._native import core

    status, _, err, output_failed = core.cli(["convert", text_path, path, *(["--force"] if force else [])])
    if status != 0:
        error = (errors.OutputError if output_failed else errors.for_status(status))(
            err.strip() or f"sbufsim convert {text_path} {path}: exit status {status}")
        error.exit_status = status
        raise error


def _input_dtype(name, spec):
    """The DType an input names; an error that names the input (not a kernel line: the kernel has
    not run yet)."""
    text = getattr(name, "name", None) or str(name)
    if not isinstance(name, str) or _ALIASES.get(text, text) in DTYPES:
        return dtype_of(name)
    raise NkiError(f"input {spec!r}: dtype {text!r} is not modelled (supported: {', '.join(DTYPES)}; "
                   f"short names: {', '.join(_ALIASES)})")


def parse_input(spec, name=None):
    """'bf16[4096,2048]' (or a (dtype, shape) pair) -> (DType, shape, None); 'x.npy',
    'bf16:x.npy' or a numpy array -> (DType, shape, values): the dtype before the colon, else
    the array's (float64, which a NeuronCore lacks, is refused; errors name the input `name`)."""
    dtype, shape, values = _parsed_input(spec, name)
    if any(n <= 0 for n in shape):
        what = f"input {name}" if name else f"input {spec!r}" if isinstance(spec, str) else "an input"
        raise NkiError(f"{what}: shape {shape}: every dimension must be positive (a kernel argument holds at "
                       "least one element)")
    return dtype, shape, values


def _parsed_input(spec, name):
    if isinstance(spec, tuple):
        return _input_dtype(spec[0], spec), tuple(spec[1]), None
    if hasattr(spec, "shape") and hasattr(spec, "dtype"):
        return dtype_of(_values.dtype_of_array(spec, name)), tuple(spec.shape), spec
    if spec.endswith(".npy"):
        dtype, sep, path = spec.partition(":")
        if not sep:
            dtype, path = None, spec
        np = _values.need_numpy()
        try:
            array = np.load(path, allow_pickle=False)
        except (OSError, ValueError) as e:
            raise NkiError(f"input {spec!r}: cannot read {path}: {e}") from None
        return (_input_dtype(dtype, spec) if dtype else dtype_of(_values.dtype_of_array(array, name, path)),
                tuple(array.shape), array)
    m = _SHAPE.match(spec)
    if not m:
        raise NkiError(f"input {spec!r}: expected DTYPE[D0,D1,...] (e.g. bf16[4096,2048]) or [DTYPE:]FILE.npy")
    return _input_dtype(m.group(1), spec), tuple(int(d) for d in m.group(2).split(",") if d.strip()), None


def _module(name, **attrs):
    module = types.ModuleType(name)
    module.__dict__.update(attrs)
    return module


def jit(func=None, **options):
    """nki.jit: the kernel runs as plain Python under the tracer; kernel[grid] launches it (_spmd.py)."""
    return _spmd.decorator(func, **options)


def _package(name, **attrs):
    """A module that `import name.sub` can descend into (its submodules are in sys.modules)."""
    module = _module(name, **attrs)
    module.__path__ = []
    return module


@contextmanager
def _shim():
    """`nki`, `nki.language`, `nki.isa`, `nki.typing`, `nki.compiler` and `neuronxcc.nki.*`
    resolve to the tracing modules while a kernel is loaded and traced; what was in sys.modules
    before comes back after."""
    from . import _compiler, _typing, isa, language
    typing_ = _module("nki.typing", **{n: getattr(_typing, n) for n in ("tensor", "mutable_tensor", "scalar")},
                      __getattr__=module_getattr("nki.typing"))
    compiler = _package("nki.compiler", **{n: getattr(_compiler, n) for n in (
        "sbuf", "psum", "skip_middle_end_transformations", "enable_stack_allocator", "force_auto_alloc",
        "no_reorder", "multi_buffer")}, __getattr__=module_getattr("nki.compiler"))
    nki = _package("nki", jit=jit, language=language, isa=isa, typing=typing_, compiler=compiler, trace=jit,
                   baremetal=jit, benchmark=jit, profile=jit, __getattr__=module_getattr("nki"))
    neuronxcc = _package("neuronxcc", nki=nki)
    mapping = {"nki": nki, "nki.language": language, "nki.isa": isa, "nki.typing": typing_,
               "nki.compiler": compiler, "neuronxcc": neuronxcc, "neuronxcc.nki": nki,
               "neuronxcc.nki.language": language, "neuronxcc.nki.isa": isa, "neuronxcc.nki.typing": typing_,
               "neuronxcc.nki.compiler": compiler, **_internal.modules(_module, _package, compiler)}
    saved = {name: sys.modules.get(name) for name in mapping}
    sys.modules.update(mapping)
    try:
        yield
    finally:
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module


@contextmanager
def _kernel_folder(path):
    """The kernel's folder first on the module path while it is loaded and traced, as `python3
    K.py` would have it (sibling imports: `from mx_kernel_utils import ...`); the sibling modules
    it imported are forgotten after, so the next kernel (or the next trace of this one) loads its
    own. None: a kernel given as a function, whose imports are done."""
    if not path:
        yield
        return
    folder = os.path.dirname(os.path.abspath(path))
    package = _package_of(path)
    forget = package[0] if package else folder  # the modules loaded from there are forgotten after
    before = set(sys.modules)
    sys.path.insert(0, folder)
    try:
        yield
    finally:
        if folder in sys.path:
            sys.path.remove(folder)
        loaded = [name for name in set(sys.modules) - before if _loaded_from(sys.modules[name], forget)]
        for name in loaded:  # found first, then forgotten: a namespace package's path reads its parent
            del sys.modules[name]


def _loaded_from(module, folder):
    """Whether the module (or package) was loaded from under folder."""
    try:
        places = [getattr(module, "__file__", None) or "", *list(getattr(module, "__path__", None) or [])]
    except KeyError:  # a namespace package whose parent is gone
        return True
    return any(os.path.abspath(p).startswith(folder + os.sep) for p in places if p)


@contextmanager
def _kernel_errors():
    """The kernel file's own Python errors (a SyntaxError, an IndexError, an import of a name the
    front-end lacks...) become an NkiError naming its file:line; errors raised outside the kernel's
    frames (a wrong argument list: TypeError) pass unchanged."""
    try:
        yield
    except NkiError:
        raise
    except SyntaxError as e:
        raise NkiError(f"{e.filename}:{e.lineno}: {type(e).__name__}: {e.msg}") from None
    except SystemExit as e:  # sys.exit()/exit() in the kernel would end the tracer's caller
        frames = traceback.extract_tb(e.__traceback__)
        where = f"{frames[-1].filename}:{frames[-1].lineno}: " if frames else ""
        raise NkiError(f"{where}the kernel called exit({e.code!r}) while it was traced; a kernel returns its "
                       "outputs instead") from None
    except Exception as e:
        frames = [f for f in traceback.extract_tb(e.__traceback__)
                  if not os.path.abspath(f.filename).startswith(_PACKAGE_DIR) and not f.filename.startswith("<")]
        if not frames:
            raise
        where = f"{frames[-1].filename}:{frames[-1].lineno}"
        if isinstance(e, ModuleNotFoundError) and (e.name or "").startswith(("nki.", "neuronxcc.")):
            raise NkiError(f"{where}: the module {e.name} is not modelled by sbufsim's NKI front-end (docs/nki.md "
                           "lists the calls it supports)") from None
        missing = re.match(r"cannot import name '(\w+)'", str(e)) if isinstance(e, ImportError) else None
        if missing and e.name in _SHORT_NAMES:  # `from nki.language import x`: x is not modelled
            raise NkiError(f"{where}: {_SHORT_NAMES[e.name]}.{missing.group(1)} is not modelled by sbufsim's NKI "
                           "front-end (docs/nki.md lists the calls it supports)") from None
        raise NkiError(f"{where}: {type(e).__name__}: {e}") from e


_SHORT_NAMES = {"sbufsim.nki.language": "nl", "sbufsim.nki.isa": "nisa", "nki": "nki"}


_RELATIVE = re.compile(r"^\s*from\s+(\.+)", re.M)


def _package_of(path):
    """(the folder to put on the module path, the module's dotted name) for a kernel file whose
    imports are package-relative (`from ..util import x` needs two enclosing packages), else
    None: the folders above the file, as many as its deepest relative import climbs, are taken
    as its packages (namespace packages where they have no __init__.py)."""
    try:
        with open(path, encoding="utf-8") as f:
            depth = max((len(m) for m in _RELATIVE.findall(f.read())), default=0)
    except (OSError, UnicodeDecodeError):
        return None
    if depth == 0:
        return None
    folder = os.path.dirname(os.path.abspath(path))
    parts = []
    for _ in range(depth):
        folder, name = os.path.split(folder)
        if not name.isidentifier():
            return None
        parts.insert(0, name)
    return folder, ".".join(parts + [os.path.splitext(os.path.basename(path))[0]])


def _load(path, func_name):
    """The kernel function of the file; the imports its files make of modules this interpreter
    lacks (a driver's torch_xla, scipy) get stand-ins while it loads (_absent.py)."""
    package = _package_of(path)
    if package is not None:  # relative imports: the file is loaded as a module of its packages
        root, name = package
        sys.path.insert(0, root)
        try:
            with _kernel_errors(), _absent.stand_ins(root):
                module = importlib.import_module(name)
        finally:
            sys.path.remove(root)
        return _function(module, path, func_name)
    spec = importlib.util.spec_from_file_location(f"_sbufsim_nki_kernel_{abs(hash(path))}", path)
    if spec is None:
        raise NkiError(f"{path}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    with _kernel_errors(), _absent.stand_ins(os.path.dirname(os.path.abspath(path))):
        spec.loader.exec_module(module)
    return _function(module, path, func_name)


def _function(module, path, func_name):
    func = getattr(module, func_name, None)
    if func is None:
        names = [n for n, v in vars(module).items() if callable(v) and not n.startswith("_")]
        raise NkiError(f"{path}: no function {func_name!r} (functions: {', '.join(names)})")
    return func


class KernelExpr(str):
    """A parameter's Python expression evaluated among the kernel module's names once it has
    loaded: the arguments a command line cannot spell, a dataclass the kernel file defines
    (`RmsNormQuantKernelArgs(lower_bound=0.0)`) or one of its enums. `--param NAME=EXPR` makes
    one of a call or attribute whose first name the module defines; from Python,
    kernel_expr(text)."""


def kernel_expr(text):
    """A trace() parameter evaluated among the kernel module's names (KernelExpr)."""
    return KernelExpr(text)


def _resolved(params, func):
    """params with each KernelExpr evaluated in the namespace of func's module (nki, nl, nisa
    resolve there to the tracing modules); one whose first name the module lacks stays the text
    it was (`--param dtype=nl.bfloat16` of a kernel that names the module otherwise)."""
    if not params or not any(isinstance(v, KernelExpr) for v in params.values()):
        return params
    namespace = dict(getattr(getattr(func, "func", func), "__globals__", {}))
    out = {}
    for name, value in params.items():
        if not isinstance(value, KernelExpr):
            out[name] = value
            continue
        try:
            tree = ast.parse(value, mode="eval")
        except SyntaxError as e:
            raise NkiError(f"parameter {name}={value}: not a Python expression ({e.msg})") from None
        root = tree.body
        while isinstance(root, (ast.Call, ast.Attribute, ast.Subscript)):
            root = root.func if isinstance(root, ast.Call) else root.value
        if not (isinstance(root, ast.Name) and (root.id in namespace or hasattr(builtins, root.id))):
            out[name] = str(value)
            continue
        try:
            out[name] = eval(compile(tree, f"<parameter {name}>", "eval"), namespace)  # noqa: S307 (the user's own)
        except NkiError:
            raise
        except Exception as e:
            raise NkiError(f"parameter {name}={value}: {type(e).__name__}: {e} (evaluated among the names of the "
                           "kernel's module)") from None
    return out


def kernel_parameters(kernel):
    """The names KERNEL ('file.py::func') takes as arguments, or None when it takes any keyword
    (**kwargs). Loads the kernel's file as trace() does (NkiError for what it cannot load)."""
    path, _, func_name = kernel.rpartition("::")
    if not os.path.isfile(path):
        raise NkiError(f"{path}: no such kernel file")
    with _shim(), _kernel_folder(path):
        func = _load(path, func_name)
    parameters = inspect.signature(func).parameters.values()
    if any(p.kind == p.VAR_KEYWORD for p in parameters):
        return None
    return [p.name for p in parameters if p.kind != p.VAR_POSITIONAL]


def trace(kernel, inputs, params=None, generation="cayman", grid=None, loop_buffers=None, cores=None):
    """Trace KERNEL ('file.py::func', or a function) called with HBM tensors made from inputs
    ({name: 'bf16[4096,2048]'}, in the function's argument order) and keyword params; with
    grid=(g0, ...) as the launch kernel[g0, ...](...) (_spmd.py).
    cores: the physical NeuronCores an SPMD launch's instances run on (default: the generation's
    gen.lnc, 2 on cayman); each core is traced on its own, a full replay of its instances. The
    KernelTrace returned is core 0's; `.cores` holds every traced core's (itself first when the
    launch spread over several, else only itself), `.instances` the launch instances of each.
    loop_buffers: the buffers a tile re-bound in an affine_range loop rotates over (default
    LOOP_BUFFERS, 3; docs/nki.md, "Operands and the allocator").
    Raises NkiError with the kernel's file:line for what the front-end cannot model."""
    if _tracer._current is not None:
        raise NkiError("sbufsim.nki.trace() is already tracing a kernel")
    count = check_cores(default_cores(generation) if cores is None else cores)
    carry = {} if count > 1 else None  # the shared_hbm values each core leaves for the next
    traces, assigned = [], None
    for core in range(count):
        if assigned is not None and not assigned[core]:
            continue  # no instance of any launch runs there
        _spmd._cores = _spmd.Cores(count, core, carry)
        try:
            kt = _trace_core(kernel, inputs, params, generation, grid, loop_buffers)
            assigned = assigned or list(_spmd._cores.instances)
        finally:
            _spmd._cores = _spmd.Cores()
        kt.core, kt.instances = core, assigned[core]
        traces.append(kt)
    first = traces[0]
    first.cores = traces
    if len(traces) > 1 and traces[-1].outputs is not None:
        first.outputs = traces[-1].outputs  # the last core's shared outputs hold every core's writes
    return first


def default_cores(generation):
    """The generation's gen.lnc: the physical NeuronCores of its logical NeuronCore."""
    from .._config import Config, generations
    if generation not in generations():
        return 1  # the tracer refuses it, naming the generations
    return int(Config(generation)["gen.lnc"])


def hbm_share(generation, cores):
    """The HBM bandwidth (GB/s) of each of `cores` cores streaming at once: dma.hbm_shared_gbps
    split among them, each at most dma.hbm_gbps (docs/nki.md, "SPMD grids"); `sbufsim nki` replays
    each core of a launch with it as dma.hbm_gbps."""
    from .._config import Config
    config = Config(generation)
    hbm, shared = float(config["dma.hbm_gbps"]), float(config["dma.hbm_shared_gbps"])
    if shared <= 0:
        return hbm
    share = max(0.01, shared / cores)
    return min(hbm, share) if hbm > 0 else share


def check_cores(n):
    """The core count, checked: an int from 1 to 8 (NkiError otherwise)."""
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= 8:
        raise NkiError(f"cores {n!r}: the physical NeuronCores an SPMD launch runs on, an integer from 1 to 8")
    return n


def _trace_core(kernel, inputs, params, generation, grid, loop_buffers):
    """trace() of the core _spmd._cores names: the kernel traced until it fits."""
    loop_buffers = check_loop_buffers(_tracer.LOOP_BUFFERS if loop_buffers is None else loop_buffers)
    if isinstance(kernel, os.PathLike):
        kernel = os.fspath(kernel)
    if not isinstance(kernel, str) and not callable(kernel):
        raise TypeError(f"kernel: 'file.py::function' or a function, not {type(kernel).__name__} {kernel!r}")
    if not isinstance(inputs, dict):
        raise TypeError(f"inputs: a dict of argument name -> tensor ('bf16[128,512]', a numpy array, ...), "
                        f"not {type(inputs).__name__}")
    if params is not None and not isinstance(params, dict):
        raise TypeError(f"params: a dict of keyword -> value, not {type(params).__name__}")
    # A kernel that does not fit with loop_buffers buffers for every tile re-bound in an
    # affine_range loop is traced again with the largest such tile given one buffer fewer, until
    # it fits (`single`: site -> its buffers); a line
    # whose tiles are live several at once (a list of accumulators, a + b of two tiles of one
    # line) is traced again with a buffer for each of its tiles allocated since the one found in
    # use (Clobbered.needed: fewer clobber it at that same use), until each live tile has its own
    # (docs/nki.md, "Operands and the allocator").
    # A PSUM tensor with block dimensions that leaves too few banks for the others is traced again
    # with half its banks (its blocks share them modulo their number), before any loop tile
    # loses its second buffer.
    # What does not fit even then is placed by liveness (liveness.py): each SBUF tile's bytes are
    # free after its last use, as the compiler's allocator has it.
    # A direct allocation (nki.compiler) that meets the front-end's own placements has the kernel
    # traced again with the direct allocations' bytes kept clear (DirectConflict).
    single, extra, caps, placement, reserved, retraces = {}, {}, {}, None, (), 0
    _runs[0] = 0  # the kernel's traces so far (KernelTrace.traces)
    while True:
        try:
            return _trace_once(kernel, inputs, params, generation, dict(single), dict(extra), grid, dict(caps),
                               placement, loop_buffers=loop_buffers, reserved=reserved)
        except DirectConflict as e:
            _tracer.collect_abandoned()
            retraces += 1
            if retraces > MAX_DIRECT_RETRACES:  # each trace placed them elsewhere
                name = kernel if isinstance(kernel, str) else getattr(kernel, "__name__", "the kernel")
                raise NkiError(f"{name}: its direct allocations (nki.compiler mod_alloc / alloc) still meet the "
                               f"front-end's own placements after {MAX_DIRECT_RETRACES} traces with them kept clear: "
                               "they move from one trace to the next. sbufsim traces a kernel more than once, so "
                               "their addresses must come from the kernel's arguments and body, not from state kept "
                               "between calls (a module-level running address)") from None
            # every direct allocation seen so far: a trace cut short may not have reached them all
            reserved, placement = tuple(dict.fromkeys((*reserved, *e.ranges))), None
        except Clobbered as e:
            _tracer.collect_abandoned()
            extra[e.key] = max(e.buffers + 1, e.needed)
        except OutOfSpace as e:
            _tracer.collect_abandoned()
            if e.blocks:
                banks, key = e.blocks[0]
                caps[key] = banks // 2
                continue
            candidates = [key for _, key in e.doubled]  # sites with more than one buffer
            if not candidates and placement is None and e.key is not None:
                placement = _placement(kernel, inputs, params, generation, grid, single, extra, caps, loop_buffers,
                                       reserved)
                _tracer.collect_abandoned()  # the traces that measured the lifetimes
                continue
            if not candidates:
                tried = ([f"{len(single)} loop tile(s) given fewer than {loop_buffers} buffers"] if single else []) + (
                    [f"a buffer for each live tile of {len(extra)} line(s) that keep several"] if extra else []) + (
                    [f"{len(caps)} PSUM block tensor(s) given fewer banks"] if caps else [])
                if tried:
                    raise OutOfSpace(f"{e} (even with {' and '.join(tried)})") from None
                raise
            single[candidates[0]] = single.get(candidates[0], loop_buffers) - 1


def check_loop_buffers(n):
    """The loop-tile buffer count, checked: an int from 1 to 8 (NkiError otherwise)."""
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= 8:
        raise NkiError(f"loop_buffers {n!r}: the buffers of a tile re-bound in an affine_range loop, an integer "
                       "from 1 to 8 (default 3)")
    return n


def _placement(kernel, inputs, params, generation, grid, single, extra, caps, loop_buffers, reserved=()):
    """Offsets for every SBUF and PSUM tile from their lifetimes (liveness.py): a trace without
    limits measures them, with two buffers for loop tiles where they fit, else with the loop tiles
    that had to give up buffers with those fewer."""
    from . import liveness
    _, sbuf_size, _, _, psum_banks = GEOMETRY[generation]
    memories = liveness.memories(sbuf_size, psum_banks, reserved)
    for tried in ({}, dict(single)):
        extra_ = dict(extra)
        while True:
            try:
                tracer = _trace_once(kernel, inputs, params, generation, tried, dict(extra_), grid, dict(caps),
                                     measure=True, loop_buffers=loop_buffers, reserved=reserved)
                break
            except Clobbered as e:
                _tracer.collect_abandoned()
                extra_[e.key] = max(e.buffers + 1, e.needed)
        double = {key for key, entry in tracer.alloc.sites.items() if len(entry[0]) > 1}
        try:
            return {name: liveness.placement(liveness.lifetimes(tracer.tiles[name], double), memory)
                    for name, memory in memories.items()}
        except OutOfSpace as e:
            error = e
    raise error


_runs = [0]  # the kernel traces _trace_once has run since trace() started (KernelTrace.traces)

# Traces again with a kernel's direct allocations kept clear (DirectConflict) before trace() gives
# up: one is enough for a kernel traced to its end, a few more for one cut short (a full memory, a
# clobbered tile) before its later direct allocations.
MAX_DIRECT_RETRACES = 8


def _trace_once(kernel, inputs, params, generation, single, extra, grid=None, caps=None, placement=None,
                measure=False, loop_buffers=_tracer.LOOP_BUFFERS, reserved=()):
    _runs[0] += 1
    _spmd._cores.instances = [0] * _spmd._cores.count  # counted again by this trace's launches
    tracer = _tracer.Tracer(generation, single, extra, caps, placement, measure, loop_buffers, reserved)
    _tracer._current = tracer
    collecting = _tracer.pause_collector()
    try:
        with _shim(), _kernel_folder(kernel.rpartition("::")[0] if isinstance(kernel, str) else None):
            if isinstance(kernel, str):
                path, sep, func_name = kernel.rpartition("::")
                if not sep:
                    raise NkiError(f"kernel {kernel!r}: expected FILE.py::FUNCTION")
                if not os.path.isfile(path):
                    raise NkiError(f"{path}: no such kernel file")
                func = _load(path, func_name)
                name, kernel_file = func_name, path
            else:
                func, name = kernel, kernel.__name__
                kernel_file = getattr(getattr(kernel, "__code__", None), "co_filename", None)
            params = _resolved(params, func)
            args = {}
            parsed = {arg: parse_input(spec, arg) for arg, spec in inputs.items()}
            tracer.values = any(values is not None for _, _, values in parsed.values())
            if tracer.values:
                _values.need_numpy()
            for arg, (dtype, shape, values) in parsed.items():
                if dtype.name in MX_DTYPES and tracer.generation not in MX_GENERATIONS:
                    raise NkiError(f"input {arg}: {dtype.trace_name} is an MX quad type of NeuronCore-v4; "
                                   f"{tracer.generation} has none (trace with --gen mariana)")
                args[arg] = tracer.new_tensor(shape, dtype, "hbm", name=arg)
                if values is not None:
                    args[arg].storage.values[...] = _values.rounded(values, dtype)
            with _kernel_errors():
                if grid is not None:
                    result = _spmd.launch(getattr(func, "func", func), _spmd._grid(grid), (),
                                          {**args, **(params or {})})
                else:
                    result = func(**args, **(params or {}))
            with _kernel_errors():
                tracer.flush()  # what the kernel left unassigned that must be traced
            returned = result if isinstance(result, tuple) else (result,)
            for value in returned:
                if isinstance(value, _ops.Pending):
                    value.materialise()
            outputs = None
            if tracer.values:
                outputs = [_values.get(_ops.value(v)) for v in returned if isinstance(v, (View, _ops.Pending))]
        conflict = tracer.alloc.conflict()
        if conflict is not None:
            raise conflict
    except (OutOfSpace, Clobbered):
        # a trace whose placements met a direct allocation is traced again with it reserved
        # first: what ran out or clobbered may not in that trace
        conflict = tracer.alloc.conflict()
        if conflict is not None:
            raise conflict from None
        raise
    finally:
        _tracer._current = None
        _tracer.resume_collector(collecting)
    if measure:
        return tracer
    return KernelTrace(tracer, name, outputs, kernel_file)
