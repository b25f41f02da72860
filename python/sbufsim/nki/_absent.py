"""Stand-ins for the modules a kernel file imports but this interpreter lacks.

Public kernel files keep their drivers beside the kernel: `import torch_xla.core.xla_model as
xm`, `from scipy.special import softmax`, `import torch_neuronx` at module level, used only by
the functions that run the kernel on a device or check its numbers. Tracing needs none of them,
and the Neuron frameworks (torch_neuronx, torch_xla with a Neuron device) install only where a
Neuron SDK does. While the kernel file (or a module beside it) is loaded, an import that no
installed module satisfies gets a stand-in module instead of ModuleNotFoundError. A stand-in
takes attribute access (`torch.Tensor` in an annotation, `from torch.profiler import profile`)
and raises NkiError at the kernel's line when a stand-in is called or used as a value: the trace
stops where the kernel needs the framework, with the module's name and how to install it.

Only imports the kernel's own files make get stand-ins (an installed package's optional imports,
numpy's `try: import ...` say, still fail as they would), and never `nki` or `neuronxcc`, whose
unmodelled names are refused by name (module_getattr)."""

import importlib.abc
import importlib.machinery
import os
import sys
import types
from contextlib import contextmanager

from ._errors import NkiError, in_package

_NEVER = ("nki", "neuronxcc", "sbufsim")


_IMPORTLIB = os.path.dirname(os.path.abspath(importlib.abc.__file__)) + os.sep


def _kernel_frame():
    """(file, line) of the innermost frame outside this package and importlib, or None."""
    frame = sys._getframe(1)
    while frame is not None:
        name = frame.f_code.co_filename
        if not name.startswith("<") and not in_package(name) and not name.startswith(_IMPORTLIB):
            return name, frame.f_lineno
        frame = frame.f_back
    return None


class _Absent:
    """A name from a module that is not installed: attribute access gives deeper stand-ins (a
    module-level annotation or from-import works); any use as a value stops the trace."""

    __slots__ = ("_name",)

    def __init__(self, name):
        object.__setattr__(self, "_name", name)

    def __getattr__(self, attr):
        if attr.startswith("__") and attr.endswith("__"):
            raise AttributeError(attr)
        return _Absent(f"{self._name}.{attr}")

    def __getitem__(self, key):  # Tensor[...] in an annotation
        return self

    def __mro_entries__(self, bases):  # class Net(torch.nn.Module): defined, never instantiated here
        return ()

    def _refuse(self, *args, **kwargs):
        where = _kernel_frame()
        top = self._name.split(".", 1)[0]
        prefix = f"{where[0]}:{where[1]}: " if where else ""
        raise NkiError(prefix +
                       f"{self._name} is from {top}, which is not installed for {sys.executable}; the kernel file "
                       f"imports it, and its kernels trace without it until a line uses it, as this one does "
                       f"(install {top} for that interpreter, or keep this call out of the traced kernel)")

    __call__ = __iter__ = __bool__ = __index__ = __int__ = __float__ = __len__ = _refuse
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __rtruediv__ = _refuse
    __lt__ = __le__ = __gt__ = __ge__ = _refuse

    def __repr__(self):
        return f"<{self._name}: not installed (a stand-in while sbufsim traces the kernel)>"


class _AbsentModule(types.ModuleType):
    """A stand-in module (a package: `import a.b.c` descends through stand-ins)."""

    def __getattr__(self, attr):
        if attr.startswith("__") and attr.endswith("__"):
            raise AttributeError(attr)
        return _Absent(f"{self.__name__}.{attr}")


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Last on sys.meta_path: asked only for what no installed module satisfies."""

    def __init__(self, folder):
        self.folder = folder
        self.made = []

    def find_spec(self, fullname, path=None, target=None):
        if fullname.split(".", 1)[0] in _NEVER:
            return None
        where = _kernel_frame()
        if where is None or not os.path.abspath(where[0]).startswith(self.folder + os.sep):
            return None  # an installed package's own import: it fails as it would
        return importlib.machinery.ModuleSpec(fullname, self, is_package=True)

    def create_module(self, spec):
        module = _AbsentModule(spec.name)
        module.__path__ = []
        self.made.append(spec.name)
        return module

    def exec_module(self, module):
        pass


@contextmanager
def stand_ins(folder):
    """Stand-ins for the uninstalled modules that files under `folder` import while this holds;
    they are gone from sys.modules after."""
    finder = _Finder(os.path.abspath(folder))
    sys.meta_path.append(finder)
    try:
        yield
    finally:
        sys.meta_path.remove(finder)
        for name in finder.made:
            if isinstance(sys.modules.get(name), _AbsentModule):
                del sys.modules[name]
