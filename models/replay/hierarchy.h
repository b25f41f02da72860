// hierarchy: the sc_object tree of the current simulation as text (`sbufsim run --scheduler
// clocked --hierarchy`), one object a line, indented by depth: its name, its kind, for a signal
// its value, and under every module that owns register blocks (csr_block.h) each block with its
// registers, offsets and values (read-only ones marked).
//
//   top  sc_module
//     tpb  sc_module
//       [tpb_sbuf_cluster]
//         arb_stage1.arb_prio @0x0 = 0x0
//       ...
//       tdm  sc_module
//         [tpb_sbuf_cluster.tdm_config]
//           tdm_cfg @0x0 = 0x10008
//         tdm_cfg  sc_signal = 65544
#pragma once

#include <iosfwd>

namespace sbufsim::models {

// Writes the tree of every top-level object of the current simulation context.
void print_hierarchy(std::ostream& os);

}  // namespace sbufsim::models
