// Small text rules shared by every reader of user input: the one way an unsigned number is
// written (decimal or 0x hex; a leading zero does not mean octal), input echoed into a message
// with its control characters made visible, and a list split at its separators.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sbufsim {

// "42", "010" (ten: decimal, never octal) or "0x2A"; no sign, no spaces, no trailing text, no
// overflow. std::nullopt otherwise.
std::optional<std::uint64_t> parse_unsigned(std::string_view text);

// `text` with every control character (bytes 0x00-0x1f and 0x7f) written as \xNN, so that input
// echoed into a message cannot move the cursor, clear the terminal or forge a line.
std::string printable(std::string_view text);

// The fields of `s` between separators `sep`, empty ones included ("a,,b" is three; "" is one).
std::vector<std::string> split(std::string_view s, char sep);

// A row of a text table: its name and the rest of its line.
struct TableRow {
    std::string name, figures;
    std::size_t count = 1;  // how many numbered rows it stands for (merge_numbered_rows)
};
// Consecutive rows of one family (names alike but for a last number: dma_0, dma_1, ...) whose
// figures are the same become one row named dma_0..15: a load spread over sixteen DMA engines, or
// thirty-two PSUM banks used alike, would repeat one line that many times.
std::vector<TableRow> merge_numbered_rows(const std::vector<TableRow>& rows);
// "  (dma_0..15: each <what> of the range has the figures shown)\n" for the merged rows, or "".
std::string merged_rows_note(const std::vector<TableRow>& rows, std::string_view what);

// `text` broken at spaces into lines of at most `width` columns (a word longer than that stays
// whole); the first line is to be printed from column `start`, every other starts with `indent`
// spaces. No trailing newline.
std::string wrap_text(std::string_view text, std::size_t width, std::size_t indent, std::size_t start = 0);

}  // namespace sbufsim
