// Hand-built per-generation Params for unit tests that must not depend on configs/*.ini.
// Each value that differs from the cayman defaults of params.h cites the seed it comes from.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "sbufsim/config/params.h"

namespace sbufsim::test {

inline Params gen_params(std::string_view gen) {
    Params p;  // cayman (NC-v3): the params.h defaults (seed 000 §1, seed 004 CaymanStatebuf)
    p.generation = std::string(gen);
    if (gen == "cayman") return p;
    if (gen == "sunda") {  // NC-v2
        p.neuroncore = "v2";
        p.sbuf.partition_active = 0x30000;  // seed 004: SundaStatebuf 192 KiB
        p.sbuf.reserved_size = 0x4000;      // seed 004: SundaStatebuf reservedSize
        p.psum.isa_banks = 16;              // seed 000 §4.2: PSUM_BUF_NUM_BANKS = 16 on sunda
        p.psum.isa_bank_size = 1024;        // seed 000 §4.2: PSUM_BUF_BANK_SIZE = 1024 on sunda
        p.pe.cost_freq = 140;               // seed 004: TrainiumHwm
        p.dma.hwdge_units = 0;              // DGE reference: hardware DGE is NeuronCore-v3+
        p.pe.tile_min = 64;                 // nki.isa nc_matmul: 2x 64 row tiles on NeuronCore-v2
        p.pe.transpose_passthrough = false; // no transpose mode before NeuronCore-v3 (trn2 arch guide)
        return p;
    }
    if (gen == "mariana") {  // NC-v4
        p.neuroncore = "v4";
        p.sbuf.partition_active = 0x40000;  // seed 004: CoreV4Statebuf 256 KiB (no pad)
        p.isa.matmul_zero_region_max = 3;   // seed 000 §5.3: SIZE2048..SIZE16384
        p.pe.mx = true;                     // nki.isa nc_matmul_mx: NeuronCore-v4 and newer
        return p;
    }
    if (gen == "maverick") {  // NC-v5 (header-only, seed 000 §1 CORRECTION)
        p.neuroncore = "v5";
        p.sbuf.partition_stride = 0x100000;  // seed 000 §1 NOTE: 1 MiB stride
        p.sbuf.partition_active = 0x80000;   // seed 000 §1 NOTE: 512 KiB active
        p.sbuf.region_size = 0x8000000;      // seed 000 §1: STATE_BUF_SZ = 0x8000000
        p.psum.region_size = 0;              // seed 000 §1: PSUM_BUF_SZ = 0x0
        p.pe.cols = 256;                     // seed 000 §1: PE_ARRAY_NUM_COLS = 256
        p.pe.row_groups = 2;                 // seed 000 §1: PE_ARRAY_NUM_ROW_GROUPS = 2
        p.dma.data_width = 256;              // seed 000 §1: DMA_ENGINE_DATA_WIDTH_BYTES = 256
        p.dma.engines = 8;                   // seed 000 §1: DMA_ENGINE_COUNT_PER_TPB = 8
        p.sbuf.half_offset_bit = 19;         // half of the 1 MiB stride (seed 000 §3.1, INFERRED)
        p.psum.region_offset = 0x8000000;    // above the 128 MiB SBUF; PSUM is sized out anyway
        p.psum.soc_base = 0;                 // seed 002 §9: no PSUM region in the maverick map
        p.isa.matmul_zero_region_max = 3;    // seed 000 §5.3: mariana/maverick enum
        p.pe.mx = true;                      // carried from NC-v4 (INFERRED)
        return p;
    }
    if (gen == "inferentia") {  // gen1 (Inf1), seed 004
        p.neuroncore = "v1";
        p.sbuf.partition_stride = 0x20000;   // seed 004: PartitionSOCStepSize 128 KiB
        p.sbuf.partition_active = 0x18000;   // seed 004: InferentiaStatebuf 96 KiB
        p.sbuf.region_size = 0x1000000;      // 128 × 128 KiB
        p.sbuf.reserved_size = 0x4000;       // seed 004
        p.sbuf.half_offset_bit = 16;         // half of the 128 KiB stride (seed 000 §3.1, INFERRED)
        p.psum.partitions = 64;              // seed 004: InferentiaPsumbuf(4, 64, 2048)
        p.psum.banks = 4;                    // seed 004
        p.psum.isa_banks = 4;
        p.psum.partition_active = 0x2000;    // seed 004: 4 banks × 2 KiB per partition
        p.psum.partition_stride = 0x4000;    // 2 × active as on gen2+ (seed 000 §4, INFERRED)
        p.psum.region_size = 0x100000;       // 64 × 0x4000 (INFERRED)
        p.pe.cols = 64;                      // seed 004: InferentiaPe 128 × 64
        p.pe.tile_min = 0;                   // no tiling mode before NeuronCore-v2 (INFERRED)
        p.pe.transpose_passthrough = false;  // no transpose mode (INFERRED)
        p.pool.channels = 64;                // seed 004
        p.act.channels = 64;                 // seed 004
        return p;
    }
    throw std::invalid_argument("gen_params: unknown generation '" + std::string(gen) + "'");
}

inline const std::vector<std::string>& all_generations() {
    static const std::vector<std::string> gens{"inferentia", "sunda", "cayman", "mariana", "maverick"};
    return gens;
}

}  // namespace sbufsim::test
