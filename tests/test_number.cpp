// The number formatter's rules (types/number.h): every real written for output goes through it.
#include <limits>
#include <sstream>
#include <iomanip>

#include <gtest/gtest.h>

#include "sbufsim/types/number.h"

namespace sbufsim {
namespace {

TEST(FormatNumber, Significant_keeps_ten_digits_in_the_shortest_form) {
    EXPECT_EQ(format_number(1.0 / 3.0), "0.3333333333");
    EXPECT_EQ(format_number(0.5), "0.5");            // no trailing zeros
    EXPECT_EQ(format_number(2.0), "2");              // no trailing point
    EXPECT_EQ(format_number(17970.0), "17970");
    EXPECT_EQ(format_number(2.0 / 3.0 * 1e6), "666666.6667");
}

TEST(FormatNumber, Significant_uses_an_exponent_below_1e_4_and_from_ten_to_the_digits) {
    EXPECT_EQ(format_number(0.0001), "0.0001");
    EXPECT_EQ(format_number(0.00001), "1e-05");
    EXPECT_EQ(format_number(9999999999.0), "9999999999");
    EXPECT_EQ(format_number(12345678901.0), "1.23456789e+10");
    EXPECT_EQ(format_number(1234.5678, 3), "1.23e+03");
}

TEST(FormatNumber, Fixed_writes_exactly_the_decimals_asked) {
    EXPECT_EQ(format_fixed(2.0, 1), "2.0");
    EXPECT_EQ(format_fixed(91.44, 1), "91.4");
    EXPECT_EQ(format_fixed(0.5, 3), "0.500");
    EXPECT_EQ(format_fixed(1e6, 0), "1000000");
    EXPECT_EQ(format_fixed(-0.25, 1), "-0.2");  // round half to even, as printf does
}

TEST(FormatNumber, Nan_infinity_and_huge_values_are_written_as_zero) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    EXPECT_EQ(format_number(nan), "0");
    EXPECT_EQ(format_number(inf), "0");
    EXPECT_EQ(format_number(-inf), "0");
    EXPECT_EQ(format_number(1e301), "0");
    EXPECT_EQ(format_number(-1e301), "0");
    EXPECT_EQ(format_fixed(nan, 1), "0.0");
    EXPECT_EQ(format_number(1e300), "1e+300");  // the limit itself is a number
}

// The machine rendering is the one the JSON and sweep cells had before they shared this function
// (an ostream with precision 10): a field written by an older build compares equal as text.
TEST(FormatNumber, Machine_digits_match_an_ostream_with_precision_ten) {
    for (double v : {0.0, 1.0, 0.1, 1.0 / 7.0, 123456.789, 3.0e-7, 6.02e23, 0.9144012, 1e10, -42.125}) {
        std::ostringstream os;
        os << std::setprecision(10) << v;
        EXPECT_EQ(format_number(v), os.str()) << v;
    }
}

}  // namespace
}  // namespace sbufsim
