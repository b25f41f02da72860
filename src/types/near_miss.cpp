#include "sbufsim/types/near_miss.h"

#include <algorithm>
#include <cctype>
#include <vector>

namespace sbufsim {

namespace {
// Letters compare without case: TDM.DMA_SLOTS is tdm.dma_slots typed with caps lock on.
bool same(char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
}
}  // namespace

// Three rows of the dynamic programme: the transposition looks two rows back.
std::size_t edit_distance(std::string_view a, std::string_view b) {
    const std::size_t m = b.size();
    std::vector<std::size_t> two(m + 1), one(m + 1), row(m + 1);
    for (std::size_t j = 0; j <= m; ++j) one[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        row[0] = i;
        for (std::size_t j = 1; j <= m; ++j) {
            row[j] = std::min({one[j] + 1, row[j - 1] + 1, one[j - 1] + (same(a[i - 1], b[j - 1]) ? 0 : 1)});
            if (i > 1 && j > 1 && same(a[i - 1], b[j - 2]) && same(a[i - 2], b[j - 1]))
                row[j] = std::min(row[j], two[j - 2] + 1);
        }
        std::swap(two, one);
        std::swap(one, row);
    }
    return one[m];
}

}  // namespace sbufsim
