"""Index ranges and masks: nl.arange / nl.mgrid ranges, the affine expressions of several of them
(`2 * i1 + i2`), and the masks comparisons of them make (mask=)."""

import math

from ._errors import fail


class Arange:
    """nl.arange(n) (and the axes of nl.mgrid): an index range start, start + step, ... (size
    values). `axis`: its position among the index's axes (nl.arange(n)[:, None] is axis 0,
    [None, :] axis 1, mgrid's k-th axis k), which orders an index expression's dimensions. An
    integer may be added to it or multiply it; compared with a number it is a mask (`mask=`,
    accepted and not applied: docs/nki.md); added to another range it is an IndexExpr."""

    def __init__(self, start, size, step=1, axis=None, grid=None):
        self.start, self.size, self.step, self.axis = start, size, step, axis
        self.grid = grid  # nl.mgrid's ranges: the sizes of every axis of the grid

    def __getitem__(self, key):  # i[:, None] / i[None, :]: the range's axis
        key = key if isinstance(key, tuple) else (key,)
        axes = [d for d, k in enumerate(key) if isinstance(k, slice)]
        if len(axes) != 1:
            return self
        grid = tuple(self.size if d == axes[0] else 1 for d in range(len(key)))
        return Arange(self.start, self.size, self.step, axes[0], grid)

    def _terms(self):
        return IndexExpr([self], 0)

    def __add__(self, other):
        if isinstance(other, (Arange, IndexExpr)):
            return self._terms() + other
        if not isinstance(other, int) and not hasattr(other, "__index__"):
            raise fail(f"{other!r} added to an nl.arange index: only integers and other indices are modelled")
        return Arange(self.start + int(other), self.size, self.step, self.axis, self.grid)

    __radd__ = __add__

    def __sub__(self, other):
        return self + other * -1

    def __rsub__(self, other):
        return self * -1 + other

    def __mul__(self, other):
        if not isinstance(other, int) and not hasattr(other, "__index__"):
            raise fail(f"an nl.arange index times {other!r}: only an integer factor is modelled")
        return Arange(self.start * int(other), self.size, self.step * int(other), self.axis, self.grid)

    __rmul__ = __mul__

    def __floordiv__(self, other):
        return IndexExpr([self], 0, affine=False)

    __mod__ = __floordiv__

    def __lt__(self, other):
        return _range_mask(self, "<", other)

    def __le__(self, other):
        return _range_mask(self, "<=", other)

    def __gt__(self, other):
        return _range_mask(self, ">", other)

    def __ge__(self, other):
        return _range_mask(self, ">=", other)

    def __eq__(self, other):  # a mask, as in NKI; identity is kept for hashing
        return Mask()

    def __ne__(self, other):
        return Mask()

    __hash__ = object.__hash__


class IndexExpr:
    """An affine expression of several nl.arange indices plus a constant (`2 * i1 + i2`,
    `512 * ix + iy`): as a tensor index each range is a dimension of its own (an access pattern,
    _ap.py); in masks it is compared. `//` and `%` make a non-affine one, which only masks accept."""

    def __init__(self, terms, const=0, affine=True):
        self.terms, self.const, self.affine = terms, const, affine

    def __add__(self, other):
        if isinstance(other, Arange):
            return IndexExpr(self.terms + [other], self.const, self.affine)
        if isinstance(other, IndexExpr):
            return IndexExpr(self.terms + other.terms, self.const + other.const, self.affine and other.affine)
        return IndexExpr(self.terms, self.const + int(other), self.affine)

    __radd__ = __add__

    def __sub__(self, other):
        return self + other * -1

    def __rsub__(self, other):
        return self * -1 + other

    def __mul__(self, other):
        if not isinstance(other, int) and not hasattr(other, "__index__"):
            return IndexExpr(self.terms, self.const, affine=False)
        return IndexExpr([t * int(other) for t in self.terms], self.const * int(other), self.affine)

    __rmul__ = __mul__

    def __floordiv__(self, other):
        return IndexExpr(self.terms, self.const, affine=False)

    __mod__ = __floordiv__

    def __getitem__(self, key):
        return self

    def _compare(self, other):
        return Mask()

    __lt__ = __le__ = __gt__ = __ge__ = __eq__ = __ne__ = _compare
    __hash__ = object.__hash__


class Mask:
    """A mask= predicate built from index comparisons. `limits` {axis: (lo, hi)}: the positions
    of that axis's range that hold, for masks of one range compared with a number and their `&`;
    None for any other (an expression of several ranges, `|`, `~`). A DMA applies the limits
    (it moves only the rows and columns they keep); compute instructions do not (docs/nki.md)."""

    def __init__(self, limits=None, never=False):
        self.limits, self.never = limits, never

    def __and__(self, other):
        if isinstance(other, bool):  # a condition of loop indices only: all or nothing
            return self if other else Mask(never=True)
        if not isinstance(other, Mask) or self.limits is None or other.limits is None:
            return Mask(never=self.never or getattr(other, "never", False))
        limits = dict(self.limits)
        for axis, (lo, hi) in other.limits.items():
            a, b = limits.get(axis, (lo, hi))
            limits[axis] = (max(a, lo), min(b, hi))
        return Mask(limits)

    __rand__ = __and__

    def __or__(self, other):
        return Mask()

    __ror__ = __or__

    def __invert__(self):
        return Mask()

    def __bool__(self):
        raise fail("a mask (a comparison of nl.arange indices) used as a Python truth value; pass it as mask=")


def _range_mask(r, op, bound):
    """The Mask of `r op bound` for one range r (positions i: r.start + r.step * i)."""
    if r.axis is None or not isinstance(bound, int) or r.step <= 0:
        return Mask()
    x = (bound - r.start) / r.step  # position where the range meets the bound
    lo, hi = 0, r.size
    if op == "<":
        hi = math.ceil(x)
    elif op == "<=":
        hi = math.floor(x) + 1
    elif op == ">=":
        lo = math.ceil(x)
    elif op == ">":
        lo = math.floor(x) + 1
    else:
        return Mask()
    return Mask({r.axis: (max(0, min(lo, r.size)), max(0, min(hi, r.size)))})
