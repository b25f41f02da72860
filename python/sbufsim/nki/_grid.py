"""nl.tiles(): a tensor seen as a grid of tiles (nki.language.NkiTileGrid). Indexing a grid
selects tiles and gives a grid again; `.data` is the selected region as a tensor operand.
A grid is only a view: making or indexing one emits no record."""

from ._errors import fail, not_modelled
from ._view import View


class TileGrid:
    """`view`: the selected elements; `tile_shape`: the tile of the trailing len(tile_shape)
    dimensions; the dimensions before them are untiled (indexed one element slab at a time)."""

    def __init__(self, view, tile_shape):
        self.data = view
        self.tile_shape = tuple(tile_shape)
        self._untiled = len(view.shape) - len(self.tile_shape)

    @property
    def element_shape(self):
        return self.data.shape

    @property
    def shape(self):
        """Tiles along each tiled dimension (a partial last tile counts), elements along the others."""
        extents = self.data.shape
        return extents[:self._untiled] + tuple(-(-n // t) for n, t in zip(extents[self._untiled:], self.tile_shape))

    @property
    def dtype(self):
        return self.data.dtype

    @property
    def buffer(self):
        return self.data.buffer

    @property
    def is_remainder(self):
        return any(n % t for n, t in zip(self.data.shape[self._untiled:], self.tile_shape))

    def __getitem__(self, key):
        key = key if isinstance(key, tuple) else (key,)
        if len(key) > len(self.shape):
            raise fail(f"{len(key)} tile coordinates for a grid of {len(self.shape)} dimensions {self.shape}")
        elements = []  # an untiled dimension indexed by an integer is dropped; tiled ones are kept
        for d, index in enumerate(key):
            if d < self._untiled:
                elements.append(index)
                continue
            tile, extent, count = self.tile_shape[d - self._untiled], self.data.shape[d], self.shape[d]
            if isinstance(index, int):
                if not -count <= index < count:
                    raise fail(f"tile coordinate {index} is outside 0..{count - 1} in grid dimension {d}")
                index %= count
                elements.append(slice(index * tile, min((index + 1) * tile, extent)))
            elif isinstance(index, slice) and index.step in (None, 1):
                lo, hi, _ = index.indices(count)
                elements.append(slice(lo * tile, min(hi * tile, extent)))
            else:
                raise fail(f"tile coordinate {index!r} is not modelled (integers and step-1 slices)")
        return TileGrid(self.data[tuple(elements)], self.tile_shape)

    def __getattr__(self, name):  # only for attributes the class lacks
        if name.startswith("__"):
            raise AttributeError(name)
        raise not_modelled(f"the tile-grid attribute .{name}")

    def __repr__(self):
        return f"<nki tile grid {self.shape} of tiles {self.tile_shape} over {self.data!r}>"


def tiles(source, tile_shape=None):
    """nl.tiles(source, tile_shape=): source a tensor or a grid (re-tiled, or kept when tile_shape
    is None)."""
    if isinstance(source, TileGrid):
        return TileGrid(source.data, tile_shape or source.tile_shape)
    if not isinstance(source, View):
        raise fail(f"nl.tiles of {source!r}: expected a tensor or a tile grid")
    if not tile_shape:
        raise fail("nl.tiles of a tensor needs tile_shape=(...)")
    tile_shape = tuple(tile_shape)
    if len(tile_shape) > len(source.shape) or any(not isinstance(t, int) or t <= 0 for t in tile_shape):
        raise fail(f"nl.tiles tile_shape={tile_shape}: positive integers, at most one per dimension of "
                   f"{source.shape}")
    return TileGrid(source, tile_shape)
