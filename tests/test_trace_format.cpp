// The trace AST, the text parser, the canonical printer and the binary form (docs/trace-format.md).
#include <gtest/gtest.h>

#include <random>
#include <sstream>

#include "sbufsim/trace/trace.h"

using namespace sbufsim;

namespace {

std::vector<Record> read_all(const std::string& text, TraceHeader* header = nullptr) {
    std::istringstream in(text);
    TraceReader r(in, "t.trc");
    if (header) *header = r.header();
    std::vector<Record> out;
    Record rec;
    while (r.next(rec)) out.push_back(rec);
    return out;
}

Record one(const std::string& line) {
    std::istringstream in("sbufsim-trace 1\n" + line + "\n");
    TraceReader r(in, "t.trc");
    Record rec;
    EXPECT_TRUE(r.next(rec)) << line;
    static std::vector<std::unique_ptr<std::string>> keep;  // views outlive the reader in tests
    auto own = [&](std::string_view& v) {
        keep.push_back(std::make_unique<std::string>(v));
        v = *keep.back();
    };
    own(rec.client), own(rec.queue), own(rec.fn), own(rec.site);
    return rec;
}

// The error a single bad line produces.
TraceError error_of(const std::string& body) {
    std::istringstream in("sbufsim-trace 1\n" + body);
    TraceReader r(in, "bad.trc");
    Record rec;
    TraceError err;
    for (;;) {
        const ReadStatus s = r.read(rec, err);
        if (s == ReadStatus::error) return err;
        if (s == ReadStatus::end) break;
    }
    ADD_FAILURE() << "no error for: " << body;
    return {};
}

TraceError header_error(const std::string& text) {
    std::istringstream in(text);
    try {
        TraceReader r(in, "bad.trc");
    } catch (const TraceFormatError& e) {
        return e.error();
    }
    ADD_FAILURE() << "no header error for: " << text;
    return {};
}

std::string to_text(const std::string& bytes) {
    std::istringstream in(bytes);
    TraceReader r(in, "x");
    std::ostringstream out;
    TraceWriter w(out, TraceFormat::text, r.header());
    Record rec;
    while (r.next(rec)) w.write(rec);
    return out.str();
}

std::string to_binary(const std::string& bytes) {
    std::istringstream in(bytes);
    TraceReader r(in, "x");
    std::ostringstream out;
    TraceWriter w(out, TraceFormat::binary, r.header());
    Record rec;
    while (r.next(rec)) w.write(rec);
    w.finish();
    return out.str();
}

}  // namespace

TEST(TraceText, Header_version_and_generation) {
    TraceHeader h;
    EXPECT_TRUE(read_all("# a comment\n\nsbufsim-trace 1 gen=mariana\n", &h).empty());
    EXPECT_EQ(h.version, 1u);
    EXPECT_EQ(h.generation, "mariana");
    read_all("sbufsim-trace 1\n", &h);
    EXPECT_EQ(h.generation, "");
}

TEST(TraceText, Access_record_all_fields) {
    const Record r = one("120 pe_client_0 raw 0x5600 32 512");
    EXPECT_EQ(r.kind, RecordKind::access);
    EXPECT_EQ(r.line, 2u);
    EXPECT_EQ(r.cycle, 120u);
    EXPECT_EQ(r.client, "pe_client_0");
    EXPECT_EQ(r.op, Op::raw);
    EXPECT_EQ(r.address, 0x5600u);
    EXPECT_EQ(r.partitions, 32u);
    EXPECT_EQ(r.bytes, 512u);
    const Record c = one("7, dma_3, wr, 22016, 1, 8   # commas and a comment");
    EXPECT_EQ(c.client, "dma_3");
    EXPECT_EQ(c.op, Op::wr);
    EXPECT_EQ(c.address, 0x5600u);
}

TEST(TraceText, Operand_profiler_notation) {
    Operand o;
    EXPECT_FALSE(parse_operand("bf16@0x5600[1,0,0][512,1,1]", o));
    EXPECT_EQ(o.kind, Operand::Kind::onchip);
    EXPECT_EQ(o.dtype, Dtype::bf16);
    EXPECT_EQ(o.addr, 0x5600u);
    EXPECT_EQ(o.dims, 3);
    EXPECT_EQ(o.steps[0], 1);
    EXPECT_EQ(o.sizes[0], 512u);
    EXPECT_EQ(o.elements(), 512u);
    EXPECT_EQ(format_operand(o), "bf16@0x5600[1,0,0][512,1,1]");
    EXPECT_FALSE(parse_operand("fp32@0x2000000[-1,64][16,8]", o));
    EXPECT_EQ(o.steps[0], -1);
    EXPECT_EQ(o.dims, 2);
    EXPECT_EQ(o.elements(), 128u);
    EXPECT_FALSE(parse_operand("fp8e4@16", o));
    EXPECT_EQ(o.dims, 0);
    EXPECT_FALSE(parse_operand("hbm", o));
    EXPECT_EQ(o.kind, Operand::Kind::hbm);
    EXPECT_TRUE(parse_operand("bf16@0x56zz[1][2]", o));
    EXPECT_TRUE(parse_operand("bf17@0x10", o));
    EXPECT_TRUE(parse_operand("bf16@0x10[1,2][3]", o));
    EXPECT_TRUE(parse_operand("bf16@0x10[1,2,3,4][1,1,1,1]", o));
    EXPECT_TRUE(parse_operand("0x5600", o));
}

TEST(TraceText, Dma_fields) {
    const Record r = one("dma queue=qSyncIO0 src=hbm dst=bf16@0x40[1][64] partitions=16 bytes=128 transpose=1 "
                         "engine=3 wait=4:2 signal=5");
    EXPECT_EQ(r.kind, RecordKind::dma);
    EXPECT_EQ(r.queue, "qSyncIO0");
    EXPECT_EQ(r.src.kind, Operand::Kind::hbm);
    EXPECT_EQ(r.dst.addr, 0x40u);
    EXPECT_EQ(r.partitions, 16u);
    EXPECT_EQ(r.bytes, 128u);
    EXPECT_TRUE(r.transpose);
    EXPECT_EQ(r.engine, 3u);
    ASSERT_EQ(r.num_waits, 1);
    EXPECT_EQ(r.waits[0].sem, 4u);
    EXPECT_EQ(r.waits[0].value, 2u);
    ASSERT_EQ(r.num_signals, 1);
    EXPECT_EQ(r.signals[0], 5u);
}

TEST(TraceText, Dma_trigger_fields_and_their_canonical_form) {
    const Record r = one("dma queue=qSyncIO0 src=hbm dst=bf16@0x40 partitions=8 bytes=128 priority=2 issuer=scalar dge=hwdge");
    EXPECT_EQ(r.dge, DgeMode::hwdge);
    EXPECT_EQ(r.issuer, DmaIssuer::act);   // nki.isa.engine.scalar
    EXPECT_EQ(r.priority, 2u);
    EXPECT_EQ(format_record(r), "dma queue=qSyncIO0 src=hbm dst=bf16@0x40 partitions=8 bytes=128 dge=hwdge issuer=act priority=2");
    const Record plain = one("dma queue=qSyncIO0 src=hbm dst=bf16@0x40 partitions=8 bytes=128");
    EXPECT_EQ(plain.dge, DgeMode::unset);
    EXPECT_EQ(plain.issuer, DmaIssuer::unset);
    EXPECT_FALSE(plain.has_priority());
}

TEST(TraceText, Dma_read_add_write) {
    // nki.isa dma_copy dst_rmw_op=nl.add: dst = dst + src.
    const Record r = one("dma queue=qSyncIO0 dst_rmw_op=add src=hbm dst=bf16@0x40 partitions=8 bytes=128");
    EXPECT_TRUE(r.dst_rmw_add);
    EXPECT_EQ(format_record(r), "dma queue=qSyncIO0 src=hbm dst=bf16@0x40 partitions=8 bytes=128 dst_rmw_op=add");
    EXPECT_FALSE(one("dma queue=qSyncIO0 src=hbm dst=bf16@0x40 partitions=8 bytes=128").dst_rmw_add);
    // add is the one op; the field belongs to dma records
    EXPECT_THROW(one("dma queue=qSyncIO0 src=hbm dst=bf16@0x40 partitions=8 bytes=128 dst_rmw_op=max"), TraceFormatError);
    EXPECT_THROW(one("act queue=qAct0 src=bf16@0x0 dst=bf16@0x1000 partitions=8 dst_rmw_op=add"), TraceFormatError);
    // The binary form keeps it (flags bit 1) and converts back to the same text.
    const std::string text = "sbufsim-trace 1 gen=cayman\ndma queue=qSyncIO0 src=hbm dst=bf16@0x40 partitions=8 bytes=128 "
                             "transpose=1 dst_rmw_op=add\n";
    EXPECT_EQ(to_text(to_binary(text)), text);
}

TEST(TraceText, A_casting_dmas_hbm_end_carries_its_dtype) {
    // `dtype@hbm`: the HBM tensor's element type where it is not the tile's (a casting DMA).
    Operand o;
    EXPECT_FALSE(parse_operand("bf16@hbm", o));
    EXPECT_EQ(o.kind, Operand::Kind::hbm);
    EXPECT_EQ(o.dtype, Dtype::bf16);
    EXPECT_TRUE(o.hbm_typed);
    EXPECT_EQ(format_operand(o), "bf16@hbm");
    EXPECT_FALSE(parse_operand("hbm", o));
    EXPECT_FALSE(o.hbm_typed);
    EXPECT_EQ(format_operand(o), "hbm");
    EXPECT_TRUE(parse_operand("bf17@hbm", o));
    EXPECT_TRUE(parse_operand("bf16@hbm[1][2]", o));
    const Record r = one("dma queue=qSyncIO0 src=fp32@0x40 dst=bfloat16@hbm partitions=8 bytes=128");
    EXPECT_EQ(format_record(r), "dma queue=qSyncIO0 src=fp32@0x40 dst=bf16@hbm partitions=8 bytes=128");
    // The binary form keeps the type (operand byte 3) and converts back to the same text.
    for (const std::string line : {"dma queue=qSyncIO0 src=fp32@0x40 dst=bf16@hbm partitions=8 bytes=128",
                                   "dma queue=qSyncIO1 src=fp8e4@hbm dst=bf16@0x0 partitions=8 bytes=128",
                                   "dma queue=qSyncIO2 src=hbm dst=bf16@0x0 partitions=8 bytes=128"}) {
        const std::string text = "sbufsim-trace 1 gen=cayman\n" + line + "\n";
        EXPECT_EQ(to_text(to_binary(text)), text);
    }
}

TEST(TraceText, A_required_field_written_as_zero_reads_back) {
    // The reader takes partitions=0 (the checker reports it); the writer must not drop a field the
    // kind requires, or the record it wrote would not read again.
    for (const std::string line :
         {"act queue=qAct0 src=fp32@0x0[1][512] dst=bf16@0x1000[1][512] partitions=0",
          "pool queue=qPool0 src=fp32@0x0 dst=bf16@0x1000 partitions=0",
          "q7 queue=qPool0 core=0 op=rd operand=bf16@0x0 partitions=0"}) {
        const Record r = one(line);
        EXPECT_EQ(format_record(r), line);
        const std::string text = "sbufsim-trace 1 gen=cayman\n" + line + "\n";
        EXPECT_EQ(to_text(to_binary(text)), text);
    }
}

TEST(TraceText, Mx_dtypes_scales_and_the_one_zero_hint) {
    // nki.isa nc_matmul_mx: x4 data (nki.language names accepted) and a uint8 scale tile as src2.
    const Record r = one("matmul queue=qPE0 src=float8_e4m3fn_x4@0x0[1][512] src2=uint8@0x6000[1][512] "
                         "dst=fp32@0x2000000[1][512] num_active_rows=128 num_active_cols=128");
    EXPECT_EQ(r.src.dtype, Dtype::fp8e4x4);
    EXPECT_EQ(dtype_size(r.src.dtype), 4u);
    EXPECT_TRUE(is_mx(r.src.dtype));
    EXPECT_EQ(r.src2.dtype, Dtype::uint8);
    EXPECT_NE(format_record(r).find("src=fp8e4x4@0x0[1][512] src2=uint8@0x6000[1][512] dst="), std::string::npos)
        << format_record(r);
    EXPECT_EQ(dtype_size(one("ldweights queue=qPE0 src=fp4x4@0x0[1][128] src2=uint8@0x10 rows=1 cols=1").src.dtype), 2u);
    EXPECT_EQ(one("ldweights queue=qPE0 src=fp8e5x4@0x0 rows=1 cols=1").src.dtype, Dtype::fp8e5x4);
    // nki.isa nc_matmul is_stationary_onezero / is_moving_onezero
    const Record z = one("matmul queue=qPE0 src=fp32@0x0[1][512] dst=fp32@0x2000000[1][512] num_active_rows=128 "
                         "num_active_cols=128 onezero=1");
    EXPECT_TRUE(z.onezero);
    EXPECT_NE(format_record(z).find(" onezero=1"), std::string::npos);
    EXPECT_THROW(one("matmul queue=q src=fp32@0 dst=fp32@0 num_active_rows=1 num_active_cols=1 onezero=2"), TraceFormatError);
    EXPECT_THROW(one("dma queue=q src=hbm dst=bf16@0 partitions=1 bytes=2 onezero=1"), TraceFormatError);
    // The binary form keeps the hint (flags bit 2), the new dtypes and the scale operand.
    const std::string text = "sbufsim-trace 1 gen=mariana\nmatmul queue=qPE0 src=fp8e5x4@0x0[1][512] "
                             "src2=uint8@0x6000[1][512] dst=bf16@0x2000000[1][1024] num_active_rows=128 "
                             "num_active_cols=128 row_grp=0xf col_grp=0xf xbus_sel=0x10 acc_flags=3 zero_region=0 "
                             "perf_opt=none onezero=1\n";
    EXPECT_EQ(to_text(to_binary(text)), to_text(text));
    EXPECT_NE(to_text(text).find("onezero=1"), std::string::npos);
}

TEST(TraceText, Ldweights_fields) {
    const Record r = one("ldweights queue=qPE0 src=bf16@0x0[1][128] rows=128 cols=64");
    EXPECT_EQ(r.kind, RecordKind::ldweights);
    EXPECT_EQ(r.rows, 128u);
    EXPECT_EQ(r.cols, 64u);
    EXPECT_EQ(r.src.sizes[0], 128u);
}

TEST(TraceText, Matmul_fields_and_names) {
    const Record r = one("matmul queue=qPE0 src=bf16@0x0[1][512] dst=fp32@0x2000000[1][512] num_active_rows=96 "
                         "num_active_cols=32 row_grp=q1 col_grp=q2 xbus_sel=0x04 acc_flags=end zero_region=2 "
                         "perf_opt=DoubleRow");
    EXPECT_EQ(r.kind, RecordKind::matmul);
    EXPECT_EQ(r.num_active_rows, 96u);
    EXPECT_EQ(r.num_active_cols, 32u);
    EXPECT_EQ(r.row_grp, 0x2u);
    EXPECT_EQ(r.col_grp, 0x4u);
    EXPECT_EQ(r.xbus_sel, 0x4u);
    EXPECT_EQ(r.acc_flags, 2u);
    EXPECT_EQ(r.zero_region, 2u);
    EXPECT_EQ(r.perf_opt, PerfOpt::double_row);
    EXPECT_EQ(one("matmul queue=q src=bf16@0 dst=fp32@0 num_active_rows=1 num_active_cols=1 acc_flags=begin").acc_flags, 1u);
    EXPECT_EQ(one("matmul queue=q src=bf16@0 dst=fp32@0 num_active_rows=1 num_active_cols=1 acc_flags=mid").acc_flags, 0u);
    // Defaults: full array, single-shot group, the xbus_sel the col_grp needs.
    const Record d = one("matmul queue=q src=bf16@0 dst=fp32@0 num_active_rows=1 num_active_cols=1 col_grp=0x3");
    EXPECT_EQ(d.row_grp, 0xfu);
    EXPECT_EQ(d.acc_flags, 3u);
    EXPECT_EQ(d.xbus_sel, 0x01u);
    EXPECT_EQ(d.zero_region, 0u);
    EXPECT_EQ(d.perf_opt, PerfOpt::none);
}

TEST(TraceText, Pe_tile_and_transpose_fields_and_their_canonical_form) {
    const Record r = one("matmul queue=qPE0 src=bf16@0x0[1][512] dst=fp32@0x2000000[1][512] num_active_rows=64 "
                         "num_active_cols=128 tile_size=64,128 transpose=1 tile_position=0x40,0");
    EXPECT_EQ(r.tile_position, (std::array<std::uint8_t, 2>{64, 0}));
    EXPECT_EQ(r.tile_size, (std::array<std::uint8_t, 2>{64, 128}));
    EXPECT_TRUE(r.transpose);
    EXPECT_NE(format_record(r).find(" transpose=1 tile_position=64,0 tile_size=64,128"), std::string::npos) << format_record(r);
    const Record l = one("ldweights queue=qPE0 src=bf16@0x0[1][128] rows=32 cols=32 tile_position=96,32 tile_size=32,32");
    EXPECT_EQ(l.tile_position, (std::array<std::uint8_t, 2>{96, 32}));
    EXPECT_TRUE(l.has_tile_size());
    // Not written: the whole array.
    const Record d = one("ldweights queue=qPE0 src=bf16@0x0[1][128] rows=128 cols=128");
    EXPECT_FALSE(d.has_tile_position());
    EXPECT_FALSE(d.has_tile_size());
    EXPECT_EQ(format_record(d).find("tile"), std::string::npos);
}

TEST(TraceText, Engine_fields) {
    for (const char* kind : {"act", "pool", "dve"}) {
        const Record r = one(std::string(kind) + " queue=qE src=fp32@0x2000000[1][64] src2=bf16@0x100[1][64] "
                                                 "dst=bf16@0x200[1][64] partitions=32 fn=exp");
        EXPECT_EQ(to_string(r.kind), kind);
        EXPECT_TRUE(r.src2.onchip());
        EXPECT_EQ(r.dst.addr, 0x200u);
        EXPECT_EQ(r.partitions, 32u);
        EXPECT_EQ(r.fn, "exp");
    }
}

TEST(TraceText, Q7_fields) {
    const Record r = one("q7 queue=qPool0 core=5 op=wr operand=bf16@0x1400000[1][64] partitions=16 wait=1 wait=1 "
                         "signal=2 signal=3");
    EXPECT_EQ(r.kind, RecordKind::q7);
    EXPECT_EQ(r.core, 5u);
    EXPECT_EQ(r.op, Op::wr);
    EXPECT_EQ(r.src.addr, 0x1400000u);
    EXPECT_EQ(r.num_waits, 2);
    EXPECT_EQ(r.waits[1].value, 0u);   // plain wait: resolved per queue
    EXPECT_EQ(r.num_signals, 2);
    EXPECT_EQ(r.signals[1], 3u);
}

TEST(TraceText, Crlf_lines_are_accepted) {
    const auto recs = read_all("sbufsim-trace 1\r\n0 pe_client_0 rd 0x0 1 8\r\n");
    ASSERT_EQ(recs.size(), 1u);
    EXPECT_EQ(recs[0].bytes, 8u);
}

// Access lines are read in one pass when they look like what `sbufsim gen` writes; anything else
// goes the general way. A leading blank always takes the general way, so reading each line with
// and without one must give the same record, or the same error, whatever the line holds.
TEST(TraceText, Access_lines_read_in_one_pass_read_as_the_general_path_reads_them) {
    const std::vector<std::string> numbers{"0",
                                           "7",
                                           "0042",
                                           "65535",
                                           "65536",
                                           "4294967295",
                                           "4294967296",
                                           "18446744073709551615",
                                           "18446744073709551616",
                                           "9999999999999999999",
                                           "00000000000000000001",
                                           "0x0",
                                           "0x1f",
                                           "0XAbC",
                                           "0xffffffff",
                                           "0x100000000",
                                           "0xffffffffffffffff",
                                           "0x0ffffffffffffffff",
                                           "0x10000000000000000",
                                           "0x",
                                           "0x1g",
                                           "0X1G",
                                           "0xABCDEF",
                                           "12a",
                                           "-1",
                                           "+1",
                                           "1.5",
                                           "",
                                           "0x-1",
                                           "\r5"};
    const std::vector<std::string> names{"pe_client_0",
                                         "act_rd",
                                         "dma_3",
                                         "a.b:c+d-e",
                                         "x",
                                         "bad/name",
                                         "caf\xc3\xa9",
                                         std::string(48, 'n'),
                                         std::string(49, 'n'),
                                         "1x",
                                         "x.a",
                                         "x:a",
                                         "#c",
                                         ""};
    // ("x.a" and "x:a" share a slot of the reader's cache of recent client names.)
    const std::vector<std::string> ops{"rd", "wr", "raw", "RD", "wd", "rw", "rdx", "ra", "r", ""};
    const std::vector<std::string> seps{" ", "\t", ",", " , ", ",,", "\t \t", "", "#", "\r", " #"};
    const std::vector<std::string> tails{"",    " ", ",",       "\r",   " \r", "\r ", ",\r",
                                         "\r,", "#", " # note", "\r\r", " 9",  "x",   "\t,\t"};
    std::mt19937 rng(20261203);
    // One of the first three (well-formed) choices, except one time in `odd`: about half of the
    // lines read.
    auto pick = [&](const std::vector<std::string>& v, unsigned odd = 8) {
        std::uniform_int_distribution<std::size_t> any(0, v.size() - 1), few(0, 2);
        return v[rng() % odd ? few(rng) : any(rng)];
    };
    std::string quick = "sbufsim-trace 1\n", general = quick;
    constexpr int kLines = 20000;
    for (int i = 0; i < kLines; ++i) {
        std::string line = pick(numbers);
        line += pick(seps) + pick(names) + pick(seps) + pick(ops) + pick(seps) + pick(numbers);
        line += pick(seps) + pick(numbers) + pick(seps) + pick(numbers) + pick(tails, 3);
        quick += line + "\n";
        general += " " + line + "\n";
    }
    std::istringstream qin(quick), gin(general);
    TraceReader q(qin, "t.trc"), g(gin, "t.trc");
    Record qr, gr;
    TraceError qe, ge;
    int records = 0, errors = 0;
    for (;;) {
        const ReadStatus qs = q.read(qr, qe), gs = g.read(gr, ge);
        ASSERT_EQ(qs, gs) << "line " << gr.line << ": " << ge.to_string();
        if (qs == ReadStatus::end) break;
        if (qs == ReadStatus::error) {
            ++errors;
            EXPECT_EQ(qe.to_string(), ge.to_string());
            continue;
        }
        ++records;
        ASSERT_TRUE(same_record(qr, gr)) << "line " << gr.line;
        EXPECT_EQ(qr.line, gr.line);
        EXPECT_EQ(qr.client_id, gr.client_id) << "line " << gr.line;
    }
    // Both kinds of line were seen often enough to mean something (a line that starts with a
    // comment is neither).
    EXPECT_GT(records, kLines / 4);
    EXPECT_GT(errors, kLines / 4);
}

TEST(TraceSemaphores, Plain_waits_consume_successive_signals) {
    WaitResolver w;
    EXPECT_EQ(w.resolve(0, SemWait{3, 0}), 1u);
    EXPECT_EQ(w.resolve(0, SemWait{3, 7}), 7u);   // explicit: does not advance the count
    EXPECT_EQ(w.resolve(0, SemWait{3, 0}), 2u);
    EXPECT_EQ(w.resolve(1, SemWait{3, 0}), 1u);   // per queue
    EXPECT_EQ(w.resolve(0, SemWait{4, 0}), 1u);   // per semaphore
}

// ---- errors: every one names file:line: field ------------------------------------------------------

struct BadCase {
    const char* body;
    std::uint64_t line;
    const char* field;
    const char* reason_part;
};

TEST(TraceErrors, Each_class_names_file_line_field) {
    const BadCase cases[] = {
        {"frob queue=q\n", 2, "record", "unknown record kind 'frob'"},
        {"dma queue=q src=hbm dst=bf16@0 partitions=1\n", 2, "bytes", "missing"},
        {"0 pe_client_0 rd 0x12g 1 8\n", 2, "address", "bad number"},
        {"# c\n0 pe_client_0 rd 0x0 1 0x1ffffffff\n", 3, "bytes", "bad number"},
        {"0 pe_client_0 rd 0x0 1\n", 2, "record", "6 fields"},
        {"0 pe_client_0 rdx 0x0 1 8\n", 2, "op", "unknown op"},
        {"act queue=q src=bf16@0x10[1,2][3] dst=bf16@0 partitions=1\n", 2, "src", "steps but"},
        {"act queue=q src=bf16@0x10[1][3 dst=bf16@0 partitions=1\n", 2, "src", "access pattern"},
        {"act queue=q src=bf16@0 dst=bf16@0 partitions=1 rows=3\n", 2, "rows", "unknown field for act"},
        {"act queue=q src=bf16@0 dst=bf16@0 partitions=1 partitions=2\n", 2, "partitions", "given twice"},
        {"act queue=q src=bf16@0 dst=bf16@0 partitions=70000\n", 2, "partitions", "at most 65535"},
        {"matmul queue=q src=bf16@0 dst=fp32@0 num_active_rows=1 num_active_cols=1 acc_flags=start\n", 2,
         "acc_flags", "accumulate flags"},
        {"matmul queue=q src=bf16@0 dst=fp32@0 num_active_rows=1 num_active_cols=1 perf_opt=fast\n", 2,
         "perf_opt", "unknown perf_opt"},
        {"matmul queue=q src=bf16@0 dst=fp32@0 num_active_rows=1 num_active_cols=1 row_grp=q4\n", 2,
         "row_grp", "bad group"},
        {"q7 queue=q core=1 op=raw operand=bf16@0 partitions=1\n", 2, "op", "rd or wr"},
        {"dma queue=q src=hbm dst=bf16@0 partitions=1 bytes=2 wait=1 wait=2 wait=3\n", 2, "wait",
         "at most 2"},
        {"dma queue=q src=hbm dst=bf16@0 partitions=1 bytes=2 wait=1:0\n", 2, "wait", "bad wait value"},
        {"dma queue=q src=hbm dst=bf16@0 partitions=1 bytes=2 transpose=yes\n", 2, "transpose", "0 or 1"},
        {"dma queue=bad/name src=hbm dst=bf16@0 partitions=1 bytes=2\n", 2, "queue", "bad name"},
        {"sbufsim-trace 1\n", 2, "record", "second header"},
        {"matmul queue=q src=bf16@0 dst=fp32@0 num_active_rows=1 num_active_cols=1 tile_position=16,0\n", 2,
         "tile_position", "each a multiple of 32"},
        {"matmul queue=q src=bf16@0 dst=fp32@0 num_active_rows=1 num_active_cols=1 tile_size=64\n", 2,
         "tile_size", "expected ROW,COLUMN"},
        {"ldweights queue=q src=bf16@0 rows=1 cols=1 tile_size=256,128\n", 2, "tile_size", "(0..224)"},
        {"ldweights queue=q src=bf16@0 rows=1 cols=1 transpose=1\n", 2, "transpose",
         "unknown field for ldweights"},
        {"act queue=q src=bf16@0 dst=bf16@0 partitions=1 tile_size=32,32\n", 2, "tile_size",
         "unknown field for act"},
        {"act queue=q src=bf16@0 dst=bf16@0 partitions=1 isa=activaton\n", 2, "isa",
         "unknown nki.isa instruction 'activaton' (did you mean 'activation'?)"},
    };
    for (const auto& c : cases) {
        const TraceError e = error_of(c.body);
        EXPECT_EQ(e.file, "bad.trc") << c.body;
        EXPECT_EQ(e.line, c.line) << c.body;
        EXPECT_EQ(e.field, c.field) << c.body;
        EXPECT_NE(e.reason.find(c.reason_part), std::string::npos) << c.body << " -> " << e.to_string();
        EXPECT_EQ(e.to_string().rfind("bad.trc:" + std::to_string(c.line) + ": " + c.field + ": ", 0), 0u)
            << e.to_string();
    }
}

TEST(TraceErrors, A_line_past_64_KiB_is_refused_and_a_long_token_quoted_by_its_head) {
    // 100 KB: it fits in the reader's buffer, which used to let it through.
    const TraceError e = error_of("act queue=q " + std::string(100000, 'x') + "\n");
    EXPECT_EQ(e.line, 2u);
    EXPECT_EQ(e.field, "record");
    EXPECT_NE(e.reason.find("line longer than 65536 bytes"), std::string::npos) << e.reason;
    // 60 KB in one token: named by its first 64 bytes and its length, not echoed whole.
    const TraceError t = error_of("frob" + std::string(60000, 'y') + " queue=q\n");
    EXPECT_NE(t.reason.find("unknown record kind 'frobyyy"), std::string::npos) << t.reason.substr(0, 200);
    EXPECT_NE(t.reason.find("y'... (60004 bytes)"), std::string::npos) << t.reason.substr(0, 200);
    EXPECT_LT(t.reason.size(), 400u);
    // An unknown field's name is the message's field: cut the same way.
    const TraceError k = error_of("act queue=q " + std::string(60000, 'k') + "=1\n");
    EXPECT_EQ(k.field, std::string(64, 'k') + "...");
    EXPECT_LT(k.to_string().size(), 600u);
    // The header line too.
    std::istringstream in(std::string(70000, 'h') + "\n");
    try {
        TraceReader r(in, "long.trc");
        ADD_FAILURE() << "a 70,000-byte header line was read";
    } catch (const TraceFormatError& e) {
        EXPECT_NE(std::string(e.what()).find("line longer than 65536 bytes"), std::string::npos) << e.what();
    }
}

TEST(TraceErrors, Reader_continues_after_a_bad_line) {
    std::istringstream in("sbufsim-trace 1\nnope\n0 pe_client_0 rd 0x0 1 8\n");
    TraceReader r(in, "t");
    Record rec;
    TraceError err;
    EXPECT_EQ(r.read(rec, err), ReadStatus::error);
    EXPECT_EQ(r.read(rec, err), ReadStatus::record);
    EXPECT_EQ(rec.line, 3u);
    EXPECT_EQ(r.read(rec, err), ReadStatus::end);
}

TEST(TraceErrors, Bad_headers) {
    EXPECT_NE(header_error("").reason.find("empty file"), std::string::npos);
    EXPECT_NE(header_error("# only comments\n\n").reason.find("no header"), std::string::npos);
    const TraceError v = header_error("sbufsim-trace 2\n");
    EXPECT_EQ(v.line, 1u);
    EXPECT_EQ(v.field, "header");
    EXPECT_NE(v.reason.find("unsupported trace format version 2"), std::string::npos);
    const TraceError r = header_error("# x\n0 pe_client_0 rd 0x0 1 8\n");
    EXPECT_EQ(r.line, 2u);
    EXPECT_NE(r.reason.find("expected the header"), std::string::npos);
    EXPECT_NE(header_error("sbufsim-trace 1 generation=x\n").reason.find("gen="), std::string::npos);
    // A configuration file given as a trace says what it is and where it goes.
    const TraceError ini = header_error("# sbufsim generation file\n[gen]\nname = cayman\n");
    EXPECT_EQ(ini.line, 2u);
    EXPECT_NE(ini.reason.find("this looks like an INI configuration file ('[gen]'), not a trace: give it with --config"),
              std::string::npos)
        << ini.reason;
    EXPECT_NE(header_error("base = sunda\n").reason.find("looks like an INI configuration file"), std::string::npos);
    // An editor's byte-order mark is invisible: named, with the fix.
    const TraceError bom = header_error("\xEF\xBB\xBFsbufsim-trace 1 gen=cayman\n");
    EXPECT_EQ(bom.line, 1u);
    EXPECT_NE(bom.reason.find("starts with a UTF-8 byte-order mark (bytes EF BB BF)"), std::string::npos)
        << bom.reason;
    // Lines ended by a bare CR read as one: named at the header rather than read as the header
    // and a comment to the end of the file. CRLF stays fine.
    const TraceError cr = header_error("sbufsim-trace 1 gen=cayman\r# a comment\r0 pe_client_0 rd 0x0 1 8\r");
    EXPECT_EQ(cr.line, 1u);
    EXPECT_NE(cr.reason.find("the file's lines end in a bare CR"), std::string::npos) << cr.reason;
    std::istringstream crlf("sbufsim-trace 1 gen=cayman\r\n# a comment\r\n");
    EXPECT_EQ(TraceReader(crlf, "t.trc").header().generation, "cayman");
}

TEST(TraceErrors, Truncated_and_corrupt_binary) {
    const std::string bin = to_binary("sbufsim-trace 1 gen=cayman\n0 pe_client_0 rd 0x0 1 8\n1 pe_client_0 rd 0x0 1 8\n");
    {
        std::istringstream in(bin.substr(0, bin.size() - kBinaryEndBytes - 5));
        TraceReader r(in, "t.sbt");
        Record rec;
        TraceError err;
        EXPECT_EQ(r.read(rec, err), ReadStatus::record);
        EXPECT_EQ(r.read(rec, err), ReadStatus::error);
        EXPECT_EQ(err.file, "t.sbt");
        EXPECT_NE(err.reason.find("truncated record: 19 of 24 bytes"), std::string::npos) << err.to_string();
        EXPECT_EQ(r.read(rec, err), ReadStatus::end);
    }
    {
        std::string bad = bin;
        bad[kBinaryHeaderBytes + kBinaryNameBytes] = 0x7f;   // first access record's tag
        std::istringstream in(bad);
        TraceReader r(in, "t.sbt");
        Record rec;
        TraceError err;
        EXPECT_EQ(r.read(rec, err), ReadStatus::error);
        EXPECT_NE(err.reason.find("unknown record tag 0x7f"), std::string::npos) << err.to_string();
        EXPECT_EQ(r.read(rec, err), ReadStatus::end);
    }
    {
        std::istringstream in(bin.substr(0, 30));
        EXPECT_THROW(TraceReader(in, "t.sbt"), TraceFormatError);
    }
    {
        std::string bad = bin;
        bad[8] = 9;   // version
        std::istringstream in(bad);
        try {
            TraceReader r(in, "t.sbt");
            ADD_FAILURE() << "version 9 accepted";
        } catch (const TraceFormatError& e) {
            EXPECT_NE(e.error().reason.find("unsupported binary trace version 9"), std::string::npos);
        }
    }
}

// ---- round trips ---------------------------------------------------------------------------------

namespace {

// A trace with every record kind and randomised field values (deterministic in `seed`).
std::string generated_trace(std::uint32_t seed, int n) {
    std::mt19937 rng(seed);
    auto u = [&](std::uint32_t lo, std::uint32_t hi) { return std::uniform_int_distribution<std::uint32_t>(lo, hi)(rng); };
    const char* dtypes[] = {"fp32", "bf16", "fp16", "fp8e4", "uint8", "int32"};
    auto operand = [&]() {
        std::string s = std::string(dtypes[u(0, 5)]) + "@" + std::to_string(u(0, 0x1fffffff));
        const std::uint32_t dims = u(0, 3);
        if (dims == 0) return s;
        std::string steps = "[", sizes = "[";
        for (std::uint32_t d = 0; d < dims; ++d) {
            steps += (d ? "," : "") + std::to_string(static_cast<int>(u(0, 100)) - 50);
            sizes += (d ? "," : "") + std::to_string(u(0, 1000));
        }
        return s + steps + "]" + sizes + "]";
    };
    auto sems = [&]() {
        std::string s;
        for (std::uint32_t i = u(0, 2); i > 0; --i) s += " wait=" + std::to_string(u(0, 300)) + (u(0, 1) ? ":" + std::to_string(u(1, 9)) : "");
        for (std::uint32_t i = u(0, 2); i > 0; --i) s += " signal=" + std::to_string(u(0, 300));
        return s;
    };
    std::string t = "sbufsim-trace 1 gen=mariana\n# generated\n";
    std::uint64_t cycle = 0;
    for (int i = 0; i < n; ++i) {
        switch (i % 8) {
        case 0: t += std::to_string(cycle += u(0, 9)) + " " + (u(0, 1) ? "pe_client_" : "dma_") + std::to_string(u(0, 4)) +
                     " " + (const char*[]){"rd", "wr", "raw"}[u(0, 2)] + " " + std::to_string(u(0, 0x3fffffff)) + " " +
                     std::to_string(u(0, 200)) + " " + std::to_string(u(0, 100000)) + "\n";
            break;
        case 1: t += "dma queue=qSyncIO" + std::to_string(u(0, 3)) + " src=" + (u(0, 1) ? "hbm" : operand()) +
                     " dst=" + operand() + " partitions=" + std::to_string(u(0, 128)) + " bytes=" + std::to_string(u(0, 9999)) +
                     (u(0, 1) ? " transpose=1" : "") + (u(0, 1) ? " engine=" + std::to_string(u(0, 15)) : "") +
                     // The trigger fields cycle with the record index (the rng stream stays as it was).
                     (const char*[]){"", " dge=none", " dge=swdge issuer=pool", " dge=hwdge issuer=scalar priority=0"}[i / 8 % 4] +
                     (i / 8 % 4 < 2 && i / 8 % 3 == 1 ? " issuer=dve priority=3" : "") +
                     (i / 8 % 5 == 2 ? " dst_rmw_op=add" : "") + sems() + "\n";
            break;
        case 2: t += "ldweights queue=qPE0 src=" + operand() + " rows=" + std::to_string(u(0, 200)) + " cols=" +
                     std::to_string(u(0, 200)) + (u(0, 1) ? " partitions=7" : "") +
                     (const char*[]){"", " tile_position=64,0 tile_size=64,128", " tile_size=224,0"}[i / 8 % 3] +
                     (i / 8 % 7 == 3 ? " src2=uint8@0x4000[1][128]" : "") + sems() + "\n";
            break;
        case 3: t += "matmul queue=qPE" + std::to_string(u(0, 1)) + " src=" + operand() + " dst=" + operand() +
                     " num_active_rows=" + std::to_string(u(0, 255)) + " num_active_cols=" + std::to_string(u(0, 255)) +
                     " row_grp=" + std::to_string(u(0, 15)) + " col_grp=" + std::to_string(u(0, 15)) + " xbus_sel=" +
                     std::to_string(u(0, 31)) + " acc_flags=" + std::to_string(u(0, 3)) + " zero_region=" + std::to_string(u(0, 3)) +
                     " perf_opt=" + (const char*[]){"none", "double_row", "double_column", "double_pixel"}[u(0, 3)] +
                     (const char*[]){"", " transpose=1", " tile_position=0,96 tile_size=32,32", " tile_position=224,64"}[i / 8 % 4] +
                     (i / 8 % 7 == 2 ? " src2=uint8@0x6000[1][512] onezero=1" : "") + sems() + "\n";
            break;
        case 4:
        case 5:
        case 6: t += std::string((const char*[]){"act", "pool", "dve"}[i % 8 - 4]) + " queue=qE" + std::to_string(u(0, 2)) +
                     " src=" + operand() + (u(0, 1) ? " src2=" + operand() : "") + " dst=" + operand() + " partitions=" +
                     std::to_string(u(1, 128)) + (u(0, 1) ? " fn=f" + std::to_string(u(0, 5)) : "") +
                     (u(0, 1) ? " bytes=" + std::to_string(u(1, 64)) : "") + sems() + "\n";
            break;
        case 7: t += "q7 queue=qPool" + std::to_string(u(0, 7)) + " core=" + std::to_string(u(0, 9)) + " op=" +
                     (u(0, 1) ? "rd" : "wr") + " operand=" + operand() + " partitions=" + std::to_string(u(1, 20)) + sems() + "\n";
            break;
        }
        // Source locations on two records of three, by the record index (the rng stream stays as
        // it was): a kernel line with loop indices, a line alone, a generator step.
        if (i % 3 != 2) {
            t.pop_back();
            t += (const char*[]){" loc=k.py:12:nl.load[i=", " loc=dir/k.py:7:nisa.nc_matmul",
                                 " loc=gemm:load_A[m="}[i % 5 % 3];
            t += i % 5 % 3 == 1
                     ? ""
                     : std::to_string(i) + (i % 5 % 3 == 0 ? "]" : ",k=" + std::to_string(i / 3) + "]");
            t += "\n";
        }
    }
    return t;
}

}  // namespace

// The first error of a binary trace, read to its end.
TraceError binary_error(const std::string& bytes) {
    std::istringstream in(bytes);
    try {
        TraceReader r(in, "t.sbt");
        Record rec;
        TraceError err;
        for (;;) {
            const ReadStatus s = r.read(rec, err);
            if (s == ReadStatus::error) return err;
            if (s == ReadStatus::end) break;
        }
    } catch (const TraceFormatError& e) {
        return e.error();
    }
    ADD_FAILURE() << "no error for a crafted binary trace";
    return {};
}

TEST(TraceErrors, Binary_reader_checks_what_the_text_reader_checks) {
    const std::string text = "sbufsim-trace 1 gen=cayman\nq7 queue=qPool0 core=2 op=rd operand=bf16@0x800000[1][64] partitions=16\n";
    const std::string q7 = to_binary(text);
    const std::size_t name = kBinaryHeaderBytes;              // the queue's name record
    const std::size_t rec = name + kBinaryNameBytes;          // the q7 record
    auto expect = [](const std::string& bytes, const std::string& field, const std::string& part) {
        const TraceError e = binary_error(bytes);
        EXPECT_EQ(e.file, "t.sbt") << e.to_string();
        EXPECT_EQ(e.field, field) << e.to_string();
        EXPECT_NE(e.to_string().find(part), std::string::npos) << e.to_string();
    };
    {   // a name the text form cannot carry
        std::string bad = q7;
        bad[name + 4] = ' ';
        expect(bad, "name", "bad name");
    }
    {   // a generation the text header refuses
        std::string bad = q7;
        bad[16] = '\x1b';
        expect(bad, "header", "bad generation name '\\x1b");
    }
    {   // a q7 record with no operand
        std::string bad = q7;
        bad[rec + 56] = 0;   // src kind: absent
        expect(bad, "operand", "missing (required for q7)");
    }
    {   // a field q7 does not take (rows)
        std::string bad = q7;
        bad[rec + 24] = 5;
        expect(bad, "rows", "q7 does not take it");
    }
    {   // op raw on q7
        std::string bad = q7;
        bad[rec + 15] = static_cast<char>(Op::raw);
        expect(bad, "op", "rd or wr");
    }
    {   // bytes the writer leaves zero (a wait slot's padding)
        std::string bad = q7;
        bad[rec + 34] = 1;
        expect(bad, "record", "not zero");
    }
    {  // the bytes after the three operands (a text round trip would drop them)
        for (std::size_t i = 152; i < 160; ++i) {
            std::string bad = q7;
            bad[rec + i] = '\xff';
            expect(bad, "record", "unused bytes 152-159 of the instruction record are not zero");
        }
    }
    {   // a packed PE tile without its "written" bit
        std::string bad = q7;
        bad[rec + 31] = 1;
        expect(bad, "tile_position", "bad packed PE tile");
    }
    {   // a PE tile on a record that does not take one
        std::string bad = q7;
        bad[rec + 55] = static_cast<char>(0x80 | 2 | (4 << 3));
        expect(bad, "tile_size", "q7 does not take it");
    }
    {   // a read-add-write flag on a record that does not take it; flags past the two defined
        std::string bad = q7;
        bad[rec + 1] = 2;
        expect(bad, "dst_rmw_op", "q7 does not take it");
        bad[rec + 1] = 4;
        expect(bad, "onezero", "q7 does not take it");
        bad[rec + 1] = 8;
        expect(bad, "transpose", "bad flags 8");
    }
    // The untouched trace reads back as the text it came from.
    EXPECT_EQ(to_text(q7), to_text(text));
}

TEST(TraceRoundTrip, Text_binary_text_is_identical_canonical_text) {
    for (std::uint32_t seed : {1u, 2u, 3u}) {
        const std::string original = generated_trace(seed, 4000);
        const std::string canonical = to_text(original);
        EXPECT_EQ(canonical.rfind("sbufsim-trace 1 gen=mariana\n", 0), 0u);
        EXPECT_EQ(std::count(canonical.begin(), canonical.end(), '\n'), 4001);
        const std::string bin = to_binary(original);
        EXPECT_EQ(to_text(bin), canonical) << "seed " << seed;
        EXPECT_EQ(to_text(canonical), canonical);   // canonical text is a fixed point
    }
}

TEST(TraceRoundTrip, Binary_text_binary_is_byte_identical) {
    for (std::uint32_t seed : {4u, 5u}) {
        const std::string bin = to_binary(generated_trace(seed, 4000));
        EXPECT_EQ(bin.compare(0, 8, std::string(kTraceBinaryMagic.data(), 8)), 0);
        EXPECT_EQ(to_binary(to_text(bin)), bin) << "seed " << seed;
    }
}

TEST(TraceRoundTrip, Records_survive_binary_field_by_field) {
    const std::string text = generated_trace(6, 800);
    // Both readers stay alive: a Record's names are views into its reader's name table.
    std::istringstream tin(text);
    TraceReader t(tin, "t");
    std::istringstream bin(to_binary(text));
    TraceReader r(bin, "b");
    EXPECT_EQ(r.format(), TraceFormat::binary);
    EXPECT_EQ(r.header().generation, "mariana");
    Record a, b;
    std::size_t n = 0;
    while (t.next(a)) {
        ASSERT_TRUE(r.next(b)) << "binary ended at record " << n;
        EXPECT_TRUE(same_record(a, b)) << "record " << n << ": " << format_record(a) << " vs " << format_record(b);
        ++n;
    }
    EXPECT_FALSE(r.next(b));
    EXPECT_EQ(n, 800u);
}

// read() rewrites only the access fields of a record that holds the previous access record; every
// record read into one reused Record must still equal the same record read into a fresh one, in
// both forms, whatever kinds come before it.
TEST(TraceRoundTrip, A_reused_record_reads_like_a_fresh_one) {
    const std::string text = generated_trace(7, 800);
    for (const std::string& bytes : {text, to_binary(text)}) {
        std::istringstream in1(bytes), in2(bytes);
        TraceReader reused_reader(in1, "a"), fresh_reader(in2, "b");
        Record reused;
        std::size_t n = 0, after_instruction = 0;
        bool last_was_instruction = false;
        while (reused_reader.next(reused)) {
            Record fresh;
            ASSERT_TRUE(fresh_reader.next(fresh));
            EXPECT_TRUE(same_record(reused, fresh))
                << "record " << n << ": " << format_record(reused) << " vs " << format_record(fresh);
            after_instruction += last_was_instruction && reused.kind == RecordKind::access;
            last_was_instruction = reused.kind != RecordKind::access;
            ++n;
        }
        EXPECT_EQ(n, 800u);
        EXPECT_GT(after_instruction, 0u);  // the trace mixes the kinds
    }
}

// An access record read over the access record read last is decoded without read_binary_record's
// dispatch (detail::read_binary_access); one that is not well formed goes the general way. So a
// trace of access records, some of them corrupt, read into one reused Record must give the same
// records and the same errors as read into a fresh Record each time (always the general way).
TEST(TraceErrors, Binary_access_records_over_an_access_record_read_as_the_general_path_reads_them) {
    std::mt19937 rng(20261204);
    auto u = [&](std::uint32_t lo, std::uint32_t hi) {
        return std::uniform_int_distribution<std::uint32_t>(lo, hi)(rng);
    };
    const char* clients[] = {"pe_client_0", "pe_client_3", "act_rd", "dma_3", "pool_wr"};
    std::string text = "sbufsim-trace 1\n";
    for (int i = 0; i < 3000; ++i) {
        if (u(0, 9) == 0) text += "act queue=qE src=fp32@0 dst=fp32@0 partitions=1\n";
        text += std::to_string(i) + " " + clients[u(0, 4)] + " " +
                (const char*[]){"rd", "wr", "raw"}[u(0, 2)] + " " + std::to_string(u(0, 0xffffff)) + " " +
                std::to_string(u(1, 128)) + " " + std::to_string(u(1, 4096)) + "\n";
    }
    std::string bin = to_binary(text);
    // Corrupt one access record in four: a bad op, a name id not defined yet, unused bytes set.
    std::size_t corrupted[3] = {0, 0, 0};
    for (std::size_t at = kBinaryHeaderBytes; at < bin.size();) {
        const unsigned char tag = static_cast<unsigned char>(bin[at]);
        const std::size_t size = tag == 0x01   ? kBinaryNameBytes
                                 : tag == 0x10 ? kBinaryAccessBytes
                                               : kBinaryInstructionBytes;
        if (tag == 0x10 && at + size < bin.size() && u(0, 3) == 0) {  // not the last: truncated below
            const std::uint32_t how = u(0, 2);
            ++corrupted[how];
            if (how == 0) bin[at + 1] = static_cast<char>(u(3, 255));
            if (how == 1) bin[at + 2 + u(0, 1)] = static_cast<char>(u(0x40, 0xff));
            if (how == 2) bin[at + 6 + u(0, 1)] = static_cast<char>(u(1, 255));
        }
        at += size;
    }
    bin.resize(bin.size() - 5);  // and a truncated last record
    std::istringstream in1(bin), in2(bin);
    TraceReader reused_reader(in1, "t.sbt"), fresh_reader(in2, "t.sbt");
    Record reused;
    TraceError reused_err, fresh_err;
    std::size_t records = 0, errors = 0;
    for (;;) {
        Record fresh;
        const ReadStatus rs = reused_reader.read(reused, reused_err),
                         fs = fresh_reader.read(fresh, fresh_err);
        ASSERT_EQ(rs, fs) << "record " << records + errors << ": " << fresh_err.to_string();
        if (rs == ReadStatus::end) break;
        if (rs == ReadStatus::error) {
            ++errors;
            EXPECT_EQ(reused_err.to_string(), fresh_err.to_string());
            continue;
        }
        ++records;
        ASSERT_TRUE(same_record(reused, fresh)) << format_record(reused) << " vs " << format_record(fresh);
        EXPECT_EQ(reused.line, fresh.line);
        EXPECT_EQ(reused.client_id, fresh.client_id);
    }
    for (const std::size_t n : corrupted) EXPECT_GT(n, 100u);
    EXPECT_GT(records, 2000u);
    EXPECT_EQ(errors, corrupted[0] + corrupted[1] + corrupted[2] + 1);  // + the truncated last record
}

TEST(TraceText, Source_locations_read_split_and_write_back) {
    const Record a =
        one("act queue=qAct0 src=bf16@0[1][8] dst=bf16@0x100[1][8] partitions=4 "
            "loc=kernels/mm.py:42:nl.load[i=3,k=1]");
    EXPECT_EQ(a.site, "kernels/mm.py:42:nl.load[i,k]");
    EXPECT_EQ(a.num_indices, 2);
    EXPECT_EQ(a.indices[0], 3u);
    EXPECT_EQ(a.indices[1], 1u);
    EXPECT_EQ(format_location(a), "kernels/mm.py:42:nl.load[i=3,k=1]");
    EXPECT_TRUE(format_record(a).ends_with(" loc=kernels/mm.py:42:nl.load[i=3,k=1]"));
    const SiteParts p = split_site(a.site);
    EXPECT_EQ(p.file, "kernels/mm.py");
    EXPECT_EQ(p.line, 42u);
    EXPECT_EQ(p.call, "nl.load");
    EXPECT_EQ(p.key, "kernels/mm.py:42");
    EXPECT_EQ(p.index_names, "i,k");
    const SiteParts g = split_site("gemm:load_A[m,k]");
    EXPECT_EQ(g.line, 0u);
    EXPECT_EQ(g.key, "gemm:load_A");
    // An access record takes one too, on the one-pass path and on the general one (commas).
    for (const char* line :
         {"5 pe_client_0 rd 0x0 1 8 loc=t.py:3", "5, pe_client_0, rd, 0x0, 1, 8 loc=t.py:3"}) {
        const Record r = one(line);
        EXPECT_EQ(r.site, "t.py:3") << line;
        EXPECT_EQ(format_record(r), "5 pe_client_0 rd 0x0 1 8 loc=t.py:3");
    }
    // Records without one read as before, and the site table interns each site once.
    std::istringstream in(
        "sbufsim-trace 1\n0 dma_0 rd 0x0 1 8 loc=a.py:1\n1 dma_0 rd 0x0 1 8\n2 dma_0 rd 0x0 1 8 "
        "loc=a.py:1\n");
    TraceReader r(in, "t.trc");
    Record rec;
    ASSERT_TRUE(r.next(rec));
    EXPECT_TRUE(rec.has_site());
    ASSERT_TRUE(r.next(rec));
    EXPECT_FALSE(rec.has_site());  // the reused record's location is cleared
    ASSERT_TRUE(r.next(rec));
    EXPECT_EQ(r.sites().size(), 1u);
    // Errors name the field.
    EXPECT_EQ(error_of("act queue=q src=bf16@0 dst=bf16@0 partitions=1 loc=a.py:1[i]\n").field, "loc");
    EXPECT_EQ(
        error_of("act queue=q src=bf16@0 dst=bf16@0 partitions=1 loc=a.py:1[i=1,j=2,k=3,l=4,m=5]\n").field,
        "loc");
    EXPECT_EQ(error_of("act queue=q src=bf16@0 dst=bf16@0 partitions=1 loc=a b\n").field, "record");
    EXPECT_EQ(error_of("act queue=q src=bf16@0 dst=bf16@0 partitions=1 loc=a.py:1 loc=a.py:2\n").field,
              "loc");
    EXPECT_EQ(error_of("0 dma_0 rd 0x0 1 8 loc=x\"y\n").field, "loc");
    // An empty location is refused however the line ends (the one-pass reading took it as none).
    for (const char* line :
         {"0 dma_0 rd 0x0 1 8 loc= \n", "0 dma_0 rd 0x0 1 8 loc=#x\n", "0 dma_0 rd 0x0 1 8 loc=\r\n"})
        EXPECT_EQ(error_of(line).field, "loc") << line;
}

TEST(TraceRoundTrip, Source_locations_cost_one_site_record_each_and_a_location_record_per_record) {
    const std::string bin = to_binary(
        "sbufsim-trace 1\n0 pe_client_0 rd 0x0 1 8 loc=a.py:1[i=0]\n1 pe_client_0 rd 0x0 1 8 "
        "loc=a.py:1[i=1]\n");
    EXPECT_EQ(bin.size(), kBinaryHeaderBytes + kBinaryNameBytes + kBinarySiteBytes +
                              2 * kBinaryLocationBytes + 2 * kBinaryAccessBytes + kBinaryEndBytes);
    EXPECT_EQ(to_text(bin),
              "sbufsim-trace 1\n0 pe_client_0 rd 0x0 1 8 loc=a.py:1[i=0]\n1 pe_client_0 rd 0x0 1 8 "
              "loc=a.py:1[i=1]\n");
    // The binary form's version is 2; a version 1 file (before locations) still reads.
    EXPECT_EQ(static_cast<unsigned char>(bin[8]), kBinaryFormatVersion);
    // A version 1 file as an old writer made it (before the end record: no checksum to redo).
    std::string v1 = to_binary("sbufsim-trace 1\n0 pe_client_0 rd 0x0 1 8\n");
    v1.resize(v1.size() - kBinaryEndBytes);
    v1[8] = 1;
    v1[48] = 0;
    EXPECT_EQ(to_text(v1), "sbufsim-trace 1\n0 pe_client_0 rd 0x0 1 8\n");
    // ... and in one, a location record is not a record (an unknown tag).
    std::string v1_loc = to_binary("sbufsim-trace 1\n0 pe_client_0 rd 0x0 1 8 loc=a.py:1\n");
    v1_loc.resize(v1_loc.size() - kBinaryEndBytes);
    v1_loc[8] = 1;
    v1_loc[48] = 0;
    EXPECT_NE(binary_error(v1_loc).reason.find("unknown record tag"), std::string::npos);
}

TEST(TraceRoundTrip, Binary_record_sizes_are_fixed) {
    const std::string one_access = to_binary("sbufsim-trace 1\n0 pe_client_0 rd 0x0 1 8\n");
    EXPECT_EQ(one_access.size(),
              kBinaryHeaderBytes + kBinaryNameBytes + kBinaryAccessBytes + kBinaryEndBytes);
    const std::string two = to_binary("sbufsim-trace 1\n0 pe_client_0 rd 0x0 1 8\n1 pe_client_0 rd 0x0 1 8\n");
    EXPECT_EQ(two.size(), one_access.size() + kBinaryAccessBytes);   // the name is defined once
    const std::string instr = to_binary("sbufsim-trace 1\nact queue=q src=bf16@0 dst=bf16@0 partitions=1\n");
    EXPECT_EQ(instr.size(),
              kBinaryHeaderBytes + kBinaryNameBytes + kBinaryInstructionBytes + kBinaryEndBytes);
}

// Every record read, or what became of the stream: "record", "end" or the error's reason.
std::vector<std::string> read_outcomes(const std::string& bytes) {
    std::istringstream in(bytes);
    TraceReader r(in, "t.sbt");
    Record rec;
    TraceError err;
    std::vector<std::string> out;
    for (ReadStatus s; (s = r.read(rec, err)) != ReadStatus::end;)
        out.push_back(s == ReadStatus::record ? "record" : err.to_string());
    out.push_back("end");
    return out;
}

// The writer ends a binary trace with an end record holding the count: a file cut off between
// two records, a count that differs and bytes after it are errors; a file of before (header flag
// clear, no end record) reads as it did.
TEST(TraceErrors, Binary_trace_cut_off_between_records_is_found_by_its_end_record) {
    const std::string bin =
        to_binary("sbufsim-trace 1 gen=cayman\n0 pe_client_0 rd 0x0 1 8\n1 pe_client_0 rd 0x0 1 8\n");
    const std::vector<std::string> whole = {"record", "record", "end"};
    EXPECT_EQ(read_outcomes(bin), whole);

    const std::string cut =
        bin.substr(0, bin.size() - kBinaryEndBytes - kBinaryAccessBytes);  // at a boundary
    const auto c = read_outcomes(cut);
    ASSERT_EQ(c.size(), 3u);
    EXPECT_EQ(c[0], "record");
    EXPECT_NE(c[1].find("t.sbt:3: end: the file ends after record 2 without the end record"),
              std::string::npos)
        << c[1];

    std::string miscount = bin;
    miscount[bin.size() - kBinaryEndBytes + 8] = 3;
    EXPECT_NE(read_outcomes(miscount)[2].find("end: the end record counts 3 records, the file holds 2"),
              std::string::npos);

    const auto joined = read_outcomes(bin + bin);
    ASSERT_EQ(joined.size(), 4u);  // the second trace's bytes are not read as records
    EXPECT_NE(joined[2].find("bytes after the end record"), std::string::npos) << joined[2];

    std::string old = bin.substr(0, bin.size() - kBinaryEndBytes);
    old[48] = 0;  // the header's end-record flag
    EXPECT_EQ(read_outcomes(old), whole);
    old[48] = 4;  // a flag this build does not know (bit 1 is the checksum's)
    std::istringstream in(old);
    EXPECT_THROW(TraceReader(in, "t.sbt"), TraceFormatError);
}
