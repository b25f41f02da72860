// End-to-end tests of `sbufsim decode` through the CLI entry point, on the shipped configs.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "cli_harness.h"

namespace sbufsim::cli {
namespace {

using Result = test::CliOut;

Result decode(std::vector<std::string> args) {
    args.insert(args.begin(), "decode");
    return test::sbufsim(std::move(args));
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

TEST(DecodeCli, Cayman_psum_and_sbuf_addresses) {
    const Result r = decode({"0x2000800", "0x5600", "--gen", "cayman", "--oneline"});
    EXPECT_EQ(r.rc, kExitOk) << r.err;
    EXPECT_TRUE(contains(r.out, "0x2000800 addr=0x2000800 region=PSUM p=0 off=0x800 quadrant=0 ecc=1 cluster=0 "
                                "hw_bank=1 isa_bank=1 active soc=0x2802000800"))
        << r.out;
    EXPECT_TRUE(contains(r.out, "0x5600 addr=0x5600 region=SBUF p=0 off=0x5600 quadrant=0 ecc=0 cluster=0 half=0 "
                                "active soc=0x2000005600"))
        << r.out;
    EXPECT_TRUE(r.err.empty()) << r.err;
}

TEST(DecodeCli, Location_forms_and_sunda_isa_bank) {
    const Result r = decode({"psum:p=40,off=0x400", "p=17,off=0x100", "--gen", "sunda", "--oneline"});
    EXPECT_EQ(r.rc, kExitOk) << r.err;
    EXPECT_TRUE(contains(r.out, "region=PSUM p=40 off=0x400 quadrant=1 ecc=8 cluster=1 hw_bank=0 isa_bank=1")) << r.out;
    EXPECT_TRUE(contains(r.out, "region=SBUF p=17 off=0x100 quadrant=0 ecc=2 cluster=1 half=0")) << r.out;
}

TEST(DecodeCli, Half_select_override_changes_the_bank) {
    const Result r = decode({"p=17,off=0x20000", "--set", "sbuf.half_select=offset", "--oneline"});
    EXPECT_EQ(r.rc, kExitOk) << r.err;
    EXPECT_TRUE(contains(r.out, "ecc=3 cluster=1 half=1")) << r.out;
}

TEST(DecodeCli, Pad_address_is_a_finding) {
    const Result r = decode({"0x38000", "0x100", "--gen", "cayman"});
    EXPECT_EQ(r.rc, kExitFindings);
    EXPECT_TRUE(contains(r.out, "0x38000: INVALID: offset 0x38000 of SBUF partition 0 is past the partition's memory: on cayman "
                                      "an SBUF partition holds 224 KiB")) << r.out;
}

TEST(DecodeCli, Maverick_has_no_psum) {
    const Result r = decode({"psum:p=0,off=0", "--gen", "maverick"});
    EXPECT_EQ(r.rc, kExitFindings);
    EXPECT_TRUE(contains(r.out, "maverick has no PSUM; place the operand in SBUF")) << r.out;
}

TEST(DecodeCli, Soc_address_form) {
    const Result r = decode({"soc:0x2802000800", "--oneline"});
    EXPECT_EQ(r.rc, kExitOk) << r.err;
    EXPECT_TRUE(contains(r.out, "addr=0x2000800 region=PSUM")) << r.out;
}

TEST(DecodeCli, Unparseable_address_is_a_usage_error_on_stderr) {
    const Result r = decode({"0xZZ"});
    EXPECT_EQ(r.rc, kExitUsage);
    EXPECT_TRUE(contains(r.err, "'0xZZ' is not an address")) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST(DecodeCli, No_address_is_a_usage_error) {
    EXPECT_EQ(decode({}).rc, kExitUsage);
}

TEST(DecodeCli, Help_lists_examples) {
    const Result r = decode({"--help"});
    EXPECT_EQ(r.rc, kExitOk);
    EXPECT_TRUE(contains(r.out, "examples:")) << r.out;
    EXPECT_TRUE(contains(r.out, "psum:p=P,off=O") || contains(r.out, "psum:p=3,off=0x800")) << r.out;
}

}  // namespace
}  // namespace sbufsim::cli
