"""nki.typing as traced by sbufsim: type annotations only. `nt.tensor`, `nt.tensor[shape, dtype]`,
`nt.mutable_tensor` and `nt.scalar` annotate kernel arguments, dataclass fields and local
variables; Python evaluates them where they stand (a module's or a signature's annotations), so
each must exist and accept a subscript, and none has an effect on the trace."""


class _Annotation:
    """A type annotation only (nt.tensor[shape, dtype] too): no effect on the trace."""

    def __init__(self, name):
        self.__name__ = self.name = name

    def __getitem__(self, _shape_and_dtype):
        return self

    def __call__(self, *args, **kwargs):  # nt.tensor(...) used as a type constructor: still only a type
        return self

    def __repr__(self):
        return f"nki.typing.{self.name}"


tensor = _Annotation("tensor")
mutable_tensor = _Annotation("mutable_tensor")
scalar = _Annotation("scalar")
