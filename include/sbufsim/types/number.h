// The one way a real number is written for output: JSON, CSV, the stats text, sweep cells, the
// text summary and tables, timelines, chart labels and the progress bar all call format_number.
//
// Rules:
//  - significant (the default): `digits` significant digits in the shortest form (printf %g: no
//    trailing zeros, no trailing point, an exponent below 1e-4 or from 10^digits up). With
//    kMachineDigits this is how every machine-read value is written, so a sweep cell and the
//    same field of `run --json` compare as text.
//  - fixed: exactly `digits` decimals (printf %f), for aligned human-read columns.
//  - a NaN, an infinity or a magnitude above 1e300 is written as 0 in the chosen notation: JSON
//    has no NaN or infinity, and the ratios that could give one (x / 0) mean "none of it".
#pragma once

#include <cstdint>
#include <string>

namespace sbufsim {

enum class Notation : std::uint8_t { significant, fixed };

// Significant digits of a machine-read real: enough that counts up to 10^10 and ratios keep their
// exact digits in practice, few enough that the text stays short.
inline constexpr int kMachineDigits = 10;

std::string format_number(double v, int digits = kMachineDigits, Notation notation = Notation::significant);

// format_number(v, decimals, Notation::fixed).
inline std::string format_fixed(double v, int decimals) { return format_number(v, decimals, Notation::fixed); }

// A share in [0, 1] as a person reads it in the reports: "12.3 %".
inline std::string format_share(double share) { return format_fixed(100 * share, 1) + " %"; }

}  // namespace sbufsim
