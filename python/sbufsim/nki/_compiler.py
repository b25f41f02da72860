"""nki.compiler as traced by sbufsim (docs/nki.md, "nki.compiler"). The NKI compiler's switches and
directives are accepted and change nothing in the trace: it is the kernel as written, traced
without the compiler's transformations anyway (`skip_middle_end_transformations`,
`no_reorder`), and its allocator is this front-end's (`enable_stack_allocator`).

Direct allocation (`ncc.sbuf.mod_alloc(base_addr=, num_free_tiles=)`, `ncc.psum.mod_alloc(
base_bank=, num_bank_tiles=)`, `ncc.psum.alloc(func)`, `ncc.sbuf.auto_alloc()`) names the buffer
and, here, only the buffer: the tile is placed by the front-end's allocator as an `nl.sbuf` /
`nl.psum` tile of the same shape would be. The addresses are not honoured because bytes 0-63 of
partition 0 hold the synchronisation records' scratch (docs/nki.md, "Semaphores"), which a
kernel's `base_addr=0` would overwrite."""


class Buffer(str):
    """A memory (the string 'sbuf' or 'psum', as nl.sbuf and nl.psum are) with the direct-allocation
    methods; what they return is the same memory."""

    def __repr__(self):
        return f"the {str(self).upper()} memory; .mod_alloc / .alloc / .auto_alloc accepted, placed by the front-end"

    def mod_alloc(self, *args, **kwargs):
        return Buffer(str(self))

    def alloc(self, *args, **kwargs):
        return Buffer(str(self))

    def auto_alloc(self, *args, **kwargs):
        return Buffer(str(self))


sbuf, psum = Buffer("sbuf"), Buffer("psum")


def _switch(func=None, **_options):
    """A decorator bare (`@ncc.skip_middle_end_transformations`) or with options
    (`@ncc.enable_stack_allocator(log_level=...)`): returns the kernel unchanged."""
    if func is None or not callable(func):
        return lambda f: f
    return func


skip_middle_end_transformations = enable_stack_allocator = force_auto_alloc = _switch


class _Directive:
    """A loop directive (`nl.sequential_range(n, directives=ncc.no_reorder())`): accepted, no effect."""

    def __init__(self, name, *args):
        self.name, self.args = name, args

    def __repr__(self):
        return f"nki.compiler.{self.name}{self.args}"


def no_reorder(*args):
    """A loop directive, accepted with no effect: the trace keeps the kernel's order anyway."""
    return _Directive("no_reorder", *args)


def multi_buffer(*args):
    """A loop directive, accepted with no effect: the allocator picks the buffers (docs/nki.md)."""
    return _Directive("multi_buffer", *args)
