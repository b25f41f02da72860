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

}  // namespace sbufsim
