"""The Neuron compiler's module paths below the public API that public reference kernels import:
`neuronxcc.nki.language.constants` (sizeinbytes), `neuronxcc.nki.compiler.backends.neuron.
tensor` (local_tile) and `.indexing` (TileIndex, an annotation: the index nl.arange makes). They
exist while a kernel is traced (__init__._shim); a name of theirs the front-end lacks is refused
at the kernel's line, as a public one is."""

from ._dtypes import dtype_of
from ._errors import module_getattr, not_modelled
from ._indices import Arange as TileIndex  # what nl.arange and nl.mgrid give


def sizeinbytes(dtype):
    """The bytes of one element of dtype (an nl dtype or a numpy one)."""
    return dtype_of(dtype).size


def local_tile(*args, **kwargs):
    """The compiler back end's tile constructor: importable (a reference kernel's helper module
    imports it), refused at the kernel's line when called."""
    raise not_modelled("neuronxcc.nki.compiler.backends.neuron.tensor.local_tile")


def modules(make_module, make_package, compiler):
    """{module name: module} of these paths, under both `nki.` and `neuronxcc.nki.`; `compiler`
    (the nki.compiler module) gains `backends`."""
    constants = make_module("nki.language.constants", sizeinbytes=sizeinbytes,
                            __getattr__=module_getattr("nki.language.constants"))
    tensor = make_module("nki.compiler.backends.neuron.tensor", local_tile=local_tile,
                         __getattr__=module_getattr("nki.compiler.backends.neuron.tensor"))
    indexing = make_module("nki.compiler.backends.neuron.indexing", TileIndex=TileIndex,
                           __getattr__=module_getattr("nki.compiler.backends.neuron.indexing"))
    neuron = make_package("nki.compiler.backends.neuron", tensor=tensor, indexing=indexing,
                          __getattr__=module_getattr("nki.compiler.backends.neuron"))
    backends = make_package("nki.compiler.backends", neuron=neuron,
                            __getattr__=module_getattr("nki.compiler.backends"))
    compiler.backends = backends
    out = {}
    for name, module in (("language.constants", constants), ("compiler.backends", backends),
                         ("compiler.backends.neuron", neuron), ("compiler.backends.neuron.tensor", tensor),
                         ("compiler.backends.neuron.indexing", indexing)):
        out[f"nki.{name}"] = out[f"neuronxcc.nki.{name}"] = module
    return out
