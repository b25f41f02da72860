"""NKI's dtypes as the trace names them (docs/trace-format.md), and the generations that have the
MX quad types."""

from ._errors import fail


class DType:
    """An NKI dtype: its trace name (docs/trace-format.md) and its size in bytes."""

    def __init__(self, name, trace_name, size):
        self.name, self.trace_name, self.size = name, trace_name, size

    def __repr__(self):
        return f"nl.{self.name}"

    # Kernels compare dtypes with numpy's (`dtype == np.float32`) and ask numpy for their sizes
    # (`np.dtype(nl.bfloat16).itemsize`): equal by name, and a numpy dtype of the same size.
    def __eq__(self, other):
        if isinstance(other, DType):
            return self is other
        name = other if isinstance(other, str) else getattr(other, "__name__", None) or getattr(other, "name", None)
        return isinstance(name, str) and _ALIASES.get(_unprefixed(name), _unprefixed(name)) == self.name

    def __hash__(self):
        return hash(self.name)

    @property
    def dtype(self):
        import numpy
        native = {"float16", "float32", "int8", "uint8", "int16", "uint16", "int32", "uint32"}
        return numpy.dtype(self.name if self.name in native else f"V{self.size}")

    @property
    def itemsize(self):
        return self.size


DTYPES = {d.name: d for d in [
    DType("bfloat16", "bf16", 2), DType("float16", "fp16", 2), DType("float32", "fp32", 4),
    DType("float8_e4m3", "fp8e4", 1), DType("float8_e5m2", "fp8e5", 1),
    DType("int8", "int8", 1), DType("uint8", "uint8", 1), DType("int16", "int16", 2),
    DType("uint16", "uint16", 2), DType("int32", "int32", 4), DType("uint32", "uint32", 4),
    # NeuronCore-v4's quad-packed MX types (nki.isa nc_matmul_mx): four values per element
    DType("float8_e4m3fn_x4", "fp8e4x4", 4), DType("float8_e5m2_x4", "fp8e5x4", 4),
    DType("float4_e2m1fn_x4", "fp4x4", 2),
]}
MX_DTYPES = {"float8_e4m3fn_x4", "float8_e5m2_x4", "float4_e2m1fn_x4"}
# generations with MXFP8/MXFP4 matmuls (nki.isa nc_matmul_mx: NeuronCore-v4 and newer; configs pe.mx)
MX_GENERATIONS = {"mariana"}
_ALIASES = {"bf16": "bfloat16", "fp16": "float16", "fp32": "float32", "float": "float32",
            "fp8e4": "float8_e4m3", "fp8e5": "float8_e5m2", "fp8e4x4": "float8_e4m3fn_x4",
            "fp8e5x4": "float8_e5m2_x4", "fp4x4": "float4_e2m1fn_x4"}


def _unprefixed(name):
    """A dtype's name as a command line gives it (`--param dtype=nl.bfloat16`, `np.float32`)."""
    for prefix in ("nki.language.", "neuronxcc.nki.language.", "nl.", "numpy.", "np."):
        if name.startswith(prefix):
            return name[len(prefix):]
    return name


def dtype_of(value):
    """An NKI dtype, a trace dtype name or a numpy dtype -> DType."""
    if isinstance(value, DType):
        return value
    name = getattr(value, "name", None) or (value.__name__ if isinstance(value, type) else str(value))
    name = _ALIASES.get(_unprefixed(name), _unprefixed(name))
    if name not in DTYPES:
        raise fail(f"dtype {value!r} is not modelled (supported: {', '.join(DTYPES)})")
    return DTYPES[name]
