"""Where in the kernel the tracer is, and the errors that say so: every error of the front-end
names the kernel's file:line (the innermost frame outside this package, or the call that made a
deferred op), and every allocation site is such a line."""

import os
import sys

from ..errors import InputError

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


class NkiError(InputError):
    """What the front-end cannot model, with the kernel's file:line. An sbufsim.InputError: the
    kernel is the input (`sbufsim nki` exits 3 for it)."""


# While a deferred op is written (a Pending materialised by a later use), errors name the line
# of the call that made it, not of the use.
_deferred_sites = []


# co_filename -> whether that code is this package's. Every record and allocation asks for its
# kernel line, walking a handful of frames: abspath per frame was a third of the tracing time.
_ours = {}


def in_package(filename):
    """Whether code of `filename` (a co_filename) is this package's own."""
    ours = _ours.get(filename)
    if ours is None:
        ours = _ours[filename] = os.path.abspath(filename).startswith(_PACKAGE_DIR)
    return ours


# The modules whose functions a kernel calls, by the names kernels import them as.
_PACKAGE = __name__.rsplit(".", 1)[0]
_API_MODULES = {_PACKAGE + ".language": "nl", _PACKAGE + ".isa": "nisa",
                _PACKAGE + "._isa_matmul": "nisa"}  # nisa's Tensor Engine instructions live there


# A tile's operators, by the nl function each lowers to: the call a record of `c = a + b` names.
_OPERATOR_MODULES = {_PACKAGE + "._view", _PACKAGE + "._ops"}
_OPERATORS = {"__add__": "nl.add", "__radd__": "nl.add", "__iadd__": "nl.add", "__sub__": "nl.subtract",
              "__rsub__": "nl.subtract", "__mul__": "nl.multiply", "__rmul__": "nl.multiply",
              "__neg__": "nl.multiply", "__truediv__": "nl.divide", "__rtruediv__": "nl.divide",
              "__setitem__": "nl.copy"}


class Site(tuple):
    """(file, line) of a kernel's call, `call`: the nki function it called ("nl.load",
    "nisa.nc_matmul"; "" when none is known), and `function`: the kernel's function that holds
    the line ("" when none)."""

    call = ""
    function = ""


# code object of this package -> the call a kernel makes through it: "nl.load"; ("nl",) for an nl
# element-wise function (the frame's `fn` names it); "" for none of its own. Found once per
# function, not per frame of every record's walk.
_package_codes = {}


def _package_call(code, module):
    api = _API_MODULES.get(module)
    if api is not None:
        # nl's element-wise functions are made by a factory (language._binary): each one's code
        # is `op`, its name the factory's `fn`
        return (api,) if code.co_name == "op" else f"{api}.{code.co_name}"
    if code.co_name in _OPERATORS and module in _OPERATOR_MODULES:
        return _OPERATORS[code.co_name]  # `a + b`, `t[...] = x`: the op it lowers to
    return ""


def kernel_site():
    """(file, line) of the innermost frame outside this package: the kernel's call (a Site: with
    the outermost nl/nisa function on the way, the one the kernel called)."""
    if _deferred_sites:
        return _deferred_sites[-1]
    frame = sys._getframe(1)
    call = ""
    while frame is not None:
        code = frame.f_code
        named = _package_codes.get(code)
        if named is None:
            if not in_package(code.co_filename):
                site = Site((code.co_filename, frame.f_lineno))
                site.call = call
                site.function = code.co_name if not code.co_name.startswith("<") else ""  # not <lambda>
                return site
            named = _package_codes[code] = _package_call(code, frame.f_globals.get("__name__"))
        if named:
            call = named if type(named) is str else f"{named[0]}.{frame.f_locals.get('fn', 'op')}"
        frame = frame.f_back
    return Site(("<kernel>", 0))


# a site's characters in a trace (docs/trace-format.md, loc=): others become '_'
_SITE_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.:+/@-")
_locations = {}  # (file, line, call, function) -> its loc= text without loop indices
MAX_LOOP_INDICES = 4  # a location's loop indices in a trace (the innermost loops')
# Changes of the tracer's loop indices (language._Range: a loop entered, advanced or left): the
# records between two changes share their loc= indices, formatted once ([epoch, "m=0,k=1" or
# None, the characters the limit counts, the indices' list]).
loop_epoch = [0]
_loop_text = [-1, None, 0, None]


def _site_text(text, limit):
    return "".join(c if c in _SITE_CHARS else "_" for c in text)[:limit]


def kernel_location(loops=()):
    """The kernel call being traced as a trace's source location: "kernel.py:42:nl.load@kern" (the
    file's name, not its path: a trace reads the same wherever the kernel lies; the call; the
    kernel function holding the line), then the iteration of the innermost range loops around it,
    `loops` ([name, value] outermost first): "kernel.py:42:nl.load@kern[m=3,k=1]"."""
    site = kernel_site()
    key = (site[0], site[1], getattr(site, "call", ""), getattr(site, "function", ""))
    text = _locations.get(key)
    if text is None:
        name = _site_text(os.path.basename(key[0]), 96) or "kernel"
        text = f"{name}:{key[1]}"
        if key[1]:
            text += (f":{key[2]}" if key[2] else "") + (f"@{_site_text(key[3], 40)}" if key[3] else "")
        _locations[key] = text
    if not loops:
        return text
    if _loop_text[0] != loop_epoch[0] or _loop_text[3] is not loops:
        shown = [(n, v) for n, v in loops if 0 <= v <= 0xFFFFFFFF][-MAX_LOOP_INDICES:]
        _loop_text[:] = [loop_epoch[0], ",".join([f"{n}={v}" for n, v in shown]) if shown else None,
                         len(shown) + sum([len(n) for n, _ in shown]), loops]
    indices, size = _loop_text[1], _loop_text[2]
    if indices is None or len(text) + size + 1 > 248:  # the trace's limit
        return text
    return text + "[" + indices + "]"


def fail(reason):
    filename, line = kernel_site()
    return NkiError(f"{filename}:{line}: {reason}")


class OutOfSpace(NkiError):
    """An allocation that does not fit. `doubled` lists the double-buffered allocation sites of
    the full buffer, largest first ((bytes per partition, key)): what trace() may single-buffer
    before it gives up."""

    key = None
    doubled = ()
    blocks = ()  # PSUM block tensors' sites holding more than one bank ((banks, key), most first)


def out_of_space(reason):
    filename, line = kernel_site()
    return OutOfSpace(f"{filename}:{line}: {reason}")


class Clobbered(NkiError):
    """A tile read or written after a newer tile of its allocation site took its buffer: the
    site needs more buffers than it has (`key`; `buffers`, what it had; `needed`, the tiles of the
    site allocated since the clobbered one, itself included, that may all still be in use). trace()
    traces the kernel again with `needed` buffers for that site, as the compiler keeps every live
    tile in a buffer of its own."""

    key = None
    buffers = 0
    needed = 0


class DirectConflict(NkiError):
    """A directly allocated tensor (nki.compiler mod_alloc/alloc) takes bytes the front-end's
    allocator had already given to its synchronisation scratch or to a tile it placed: trace()
    traces the kernel again with `ranges` ([(memory, p0, p1, lo, hi)], every direct allocation
    seen so far) kept clear of its own."""

    def __init__(self, ranges):
        super().__init__("a direct allocation meets the front-end's own placement")
        self.ranges = ranges


class NotModelled(NkiError, AttributeError):
    """A name of the NKI API (or a tensor attribute) the front-end does not model. Also an
    AttributeError, so hasattr() and getattr(x, name, default) probe it as Python expects."""


def not_modelled(what):
    filename, line = kernel_site()
    return NotModelled(f"{filename}:{line}: {what} is not modelled by sbufsim's NKI front-end "
                       "(docs/nki.md lists the calls it supports)")


def module_getattr(prefix):
    """A module's __getattr__ (PEP 562) for the names of the public API it lacks."""
    def missing(name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise not_modelled(f"{prefix}.{name}")
    return missing
