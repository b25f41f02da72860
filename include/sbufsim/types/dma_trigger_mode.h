// How a DMA instruction is triggered: the trace's `dge=` and `issuer=` fields
// (docs/trace-format.md), read by the trace and by the DMA trigger model (engines/dma_trigger.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace sbufsim {

// How a DMA instruction's descriptors are made (nki.isa.dge_mode; the DGE reference): `none` =
// static, pre-computed in HBM; `swdge` = by the GpSimd engine; `hwdge` = by one of the NeuronCore's
// hardware DGE blocks (NC-v3+). `unset` = not written: the static trigger.
enum class DgeMode : std::uint8_t { unset, none, swdge, hwdge };
std::string_view to_string(DgeMode m);
std::optional<DgeMode> parse_dge_mode(std::string_view s);   // none, swdge, hwdge

// The engine sequencer that triggers a DMA instruction (nki.isa dma_copy `engine=`): SP (the Sync
// engine), ACT (ScalarE), POOL (GpSimd) or DVE (VectorE). `unset` = not written: POOL for swdge,
// SP otherwise.
enum class DmaIssuer : std::uint8_t { unset, sp, act, pool, dve };
std::string_view to_string(DmaIssuer i);
// sp act pool dve, or the nki.isa.engine names sync scalar gpsimd vector.
std::optional<DmaIssuer> parse_dma_issuer(std::string_view s);

}  // namespace sbufsim
