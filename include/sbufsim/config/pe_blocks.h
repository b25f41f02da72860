// The PE array as a grid of blocks of 32 x 32 PEs, at most 8 x 8 of them ("4x 32 row tiles",
// nki.isa nc_matmul): the unit a PE tile (tile_position / tile_size) occupies. The PE-array
// sequencer releases matmuls and background weight loads block by block, and the race check
// decides from the same blocks which of them can complete out of program order, so both take the
// grid from here.
#pragma once

#include <algorithm>
#include <cstdint>

#include "sbufsim/config/params.h"

namespace sbufsim {

struct PeBlocks {
    std::uint32_t rows = 4, cols = 4;       // blocks down and across
    std::uint32_t height = 32, width = 32;  // PEs per block
    std::uint64_t all = 0xffff;             // bit r * cols + c: block (r, c)

    PeBlocks() = default;
    explicit PeBlocks(const Params& p)
        : rows(std::clamp<std::uint32_t>((p.pe.rows + 31) / 32, 1, 8)),
          cols(std::clamp<std::uint32_t>((p.pe.cols + 31) / 32, 1, 8)),
          height(std::max<std::uint32_t>(1, (p.pe.rows + rows - 1) / rows)),
          width(std::max<std::uint32_t>(1, (p.pe.cols + cols - 1) / cols)),
          all(rows * cols >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << (rows * cols)) - 1) {}

    // The blocks a tile of tile_rows x tile_cols PEs at (row, col) overlaps, clipped to the array
    // (the checker refuses a tile outside it); the whole array for an empty tile.
    std::uint64_t of(std::uint32_t row, std::uint32_t col, std::uint32_t tile_rows, std::uint32_t tile_cols) const {
        if (tile_rows == 0 || tile_cols == 0) return all;
        const std::uint32_t r0 = row / height, c0 = col / width;
        const std::uint32_t r1 = std::min(rows, (row + tile_rows + height - 1) / height);
        const std::uint32_t c1 = std::min(cols, (col + tile_cols + width - 1) / width);
        std::uint64_t m = 0;
        for (std::uint32_t r = r0; r < r1; ++r)
            for (std::uint32_t c = c0; c < c1; ++c) m |= std::uint64_t{1} << (r * cols + c);
        return m ? m : all;
    }
};

}  // namespace sbufsim
