"""Numerical values while tracing (`--input x=file.npy`): every tensor holds a numpy array and each
traced call computes its result with numpy, so a kernel's output can be checked in the run that
times it. Floating-point data is held as float32 and rounded to the tensor's dtype when written
(bf16 round-to-nearest-even, fp16 through numpy's float16; the fp8 types are not rounded);
matmuls accumulate in float32 as PSUM does. numpy is needed only in this mode."""

import math

from ._errors import NkiError, fail


class _Numpy:
    """numpy, imported at its first use: a trace without values (the usual one) needs none, and
    importing it took half of the tracer's start-up (`python3 -X importtime`). The first attribute
    asked for puts the module itself in `np`."""

    def __getattr__(self, name):
        return getattr(need_numpy(), name)


np = _Numpy()

_INTS = {"int8": "int8", "uint8": "uint8", "int16": "int16", "uint16": "uint16", "int32": "int32", "uint32": "uint32"}
_FROM_NUMPY = {"float32": "float32", "float16": "float16", "int8": "int8", "uint8": "uint8",
               "int16": "int16", "uint16": "uint16", "int32": "int32", "uint32": "uint32"}
# 64-bit arrays a NeuronCore has no tensor for, and the dtype a user would mean by each.
_NARROWER = {"float64": ("float32", "fp32"), "int64": ("int32", "int32")}


def need_numpy():
    global np
    try:
        import numpy
    except ImportError:  # pragma: no cover - depends on the machine
        raise NkiError("numerical values (--input NAME=FILE.npy) need numpy (apt-get install python3-numpy)") from None
    np = numpy
    return numpy


def storage_dtype(dtype):
    """The numpy dtype a tensor of this NKI dtype is held in."""
    return np.dtype(_INTS.get(dtype.name, "float32"))


def dtype_of_array(array, name=None, path=None):
    """The NKI dtype name of an input array; an NkiError naming the input `name` (and the .npy
    file `path` it was read from) for an array of another dtype. A NeuronCore has no 64-bit
    tensor: a float64 or int64 array is refused, not narrowed to 32 bits without a word."""
    dtype = _FROM_NUMPY.get(array.dtype.name)
    if dtype is not None:
        return dtype
    what = f"input {name}: " if name else ""
    wide = array.dtype.name
    if wide in _NARROWER:
        narrow, prefix = _NARROWER[wide]
        if path:
            raise NkiError(f"{what}{path} holds {wide}, which is not a NeuronCore dtype; save it as {narrow}, "
                           f"or give {prefix}:{path} to trace it as {narrow}")
        raise NkiError(f"{what}{wide} is not a NeuronCore dtype; pass {name or 'array'}.astype(numpy.{narrow}) "
                       f"to trace it as {narrow}")
    held = f"{path} holds" if path else "an array of"
    raise NkiError(f"{what}{held} {array.dtype}, which is not an NKI dtype "
                   "(float32, float16, int8..int32, uint8..uint32)")


def rounded(values, dtype):
    """values as a tensor of `dtype` holds them."""
    values = np.asarray(values)
    if dtype.name in _INTS:
        integers = np.rint(values) if values.dtype.kind == "f" else values
        return integers.astype(_INTS[dtype.name])
    values = values.astype(np.float32)
    if dtype.name == "bfloat16":
        bits = values.view(np.uint32)
        bits = (bits + np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))) & np.uint32(0xFFFF0000)
        return bits.view(np.float32)
    if dtype.name == "float16":
        return values.astype(np.float16).astype(np.float32)
    return values


def index(view):
    """The numpy index of a view of its storage's array (a step-0 dimension, broadcast_to's: its
    one element)."""
    return tuple((slice(start, start + step * (size - 1) + 1, step) if step else slice(start, start + 1)) if kept
                 else start for start, step, size, kept in view.dims)


def get(view):
    values = view.storage.values[index(view)].astype(np.float32)
    if any(step == 0 and kept for _, step, _, kept in view.dims):
        values = np.broadcast_to(values, view.shape)
    return values


def put(view, values):
    values = np.asarray(values, dtype=np.float32)
    shape = view.shape
    if values.size == math.prod(shape):
        values = values.reshape(shape)
    else:
        values = np.broadcast_to(values, shape)
    view.storage.values[index(view)] = rounded(values, view.dtype)


# --- the functions of the calls ----------------------------------------------------------------

def _erf(x):
    return np.vectorize(math.erf, otypes=[np.float32])(x)


# nki.language has three: gelu (the exact form, x·Φ(x)), gelu_apprx_tanh and gelu_apprx_sigmoid.
def _gelu(x):
    return 0.5 * x * (1 + _erf(x / math.sqrt(2)))


def _gelu_apprx_tanh(x):
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))


def _gelu_apprx_sigmoid(x):
    return x / (1 + np.exp(-1.702 * x))


ACTIVATIONS = {
    "exp": lambda x: np.exp(x), "log": lambda x: np.log(x), "tanh": lambda x: np.tanh(x),
    "sigmoid": lambda x: 1 / (1 + np.exp(-x)), "relu": lambda x: np.maximum(x, 0), "gelu": _gelu,
    "gelu_apprx_tanh": _gelu_apprx_tanh, "gelu_apprx_sigmoid": _gelu_apprx_sigmoid,
    "silu": lambda x: x / (1 + np.exp(-x)), "sqrt": lambda x: np.sqrt(x), "rsqrt": lambda x: 1 / np.sqrt(x),
    "square": lambda x: x * x, "reciprocal": lambda x: 1 / x, "erf": _erf, "abs": lambda x: np.abs(x),
    "negative": lambda x: -x, "copy": lambda x: x, "identity": lambda x: x,
    "floor": lambda x: np.floor(x), "sign": lambda x: np.sign(x),
}

BINARY = {
    "add": lambda a, b: a + b, "subtract": lambda a, b: a - b, "multiply": lambda a, b: a * b,
    "divide": lambda a, b: a / b, "max": lambda a, b: np.maximum(a, b), "maximum": lambda a, b: np.maximum(a, b),
    "min": lambda a, b: np.minimum(a, b), "minimum": lambda a, b: np.minimum(a, b),
    "power": lambda a, b: np.power(a, b), "mod": lambda a, b: np.mod(a, b),
    "equal": lambda a, b: (a == b) * 1.0, "not_equal": lambda a, b: (a != b) * 1.0,
    "greater": lambda a, b: (a > b) * 1.0, "greater_equal": lambda a, b: (a >= b) * 1.0,
    "less": lambda a, b: (a < b) * 1.0, "less_equal": lambda a, b: (a <= b) * 1.0,
}

REDUCTIONS = {"max": "max", "min": "min", "sum": "sum", "add": "sum", "mean": "mean", "prod": "prod",
              "multiply": "prod", "maximum": "max", "minimum": "min"}


def activation(fn):
    if fn not in ACTIVATIONS:
        raise fail(f"the value of activation {fn!r} is not modelled (values for: {', '.join(ACTIVATIONS)})")
    return ACTIVATIONS[fn]


def binary(fn):
    if fn not in BINARY:
        raise fail(f"the value of op {fn!r} is not modelled (values for: {', '.join(BINARY)})")
    return BINARY[fn]


def reduction(fn, x, axes, keepdims):
    if fn not in REDUCTIONS:
        raise fail(f"the value of reduction {fn!r} is not modelled (values for: {', '.join(REDUCTIONS)})")
    return getattr(np, REDUCTIONS[fn])(x, axis=tuple(axes), keepdims=keepdims)
