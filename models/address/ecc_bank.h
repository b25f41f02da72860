// ecc_bank: what every SBUF and PSUM ECC bank module shares (seed 000 §3.2, §4): the SystemC
// shell around an EccBankStore (backing_store.h: the 64-byte erg_parity_model CSR block, optional
// functional data, injected faults, counters). sbuf_bank and psum_bank add only their
// coordinates and hardware names.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include <systemc>

#include "models/address/backing_store.h"
#include "models/config/csr_block.h"

namespace sbufsim::models {

struct EccBankOptions {
    bool functional = false;          // keep data (sparse pages); off = counters and ECC only
    ErgType erg_type = ErgType::ecc;  // cfg.erg_type after reset (INFERRED reset: ECC)
};

class EccBank : public sc_core::sc_module, public CsrOwner {
public:
    // Data path; `addr` is the 29-bit PartitionOffset of the first byte.
    BankAccess read(std::uint32_t addr, std::span<std::uint8_t> out) { return store_.read(addr, out); }
    BankAccess write(std::uint32_t addr, std::span<const std::uint8_t> in) { return store_.write(addr, in); }
    void inject_bit_flip(std::uint32_t addr, unsigned bit) { store_.inject_bit_flip(addr, bit); }

    ErgParityModel& erg() { return store_.erg(); }
    const ErgParityModel& erg() const { return store_.erg(); }
    EccBankStore& store() { return store_; }
    const EccBankStore& store() const { return store_; }
    const EccBankCounters& counters() const { return store_.counters(); }
    std::vector<const CsrBlock*> csr_blocks() const override { return {&erg()}; }

    // The bank's arbitration outcome per cycle, driven by the arbiter (sbuf_arbiter.h) under the
    // clocked scheduler while waveforms are recorded: granted this cycle, two or more beats wanted
    // it, the winning kernel client (-1 = none) and the cycles granted so far.
    sc_core::sc_signal<bool> busy{"busy"};
    sc_core::sc_signal<bool> conflict{"conflict"};
    sc_core::sc_signal<int> winner{"winner", -1};
    sc_core::sc_signal<std::uint64_t> grants{"grants"};

protected:
    // `hw_name` names the store as the SoC map names the bank's ERG CSR block.
    EccBank(const sc_core::sc_module_name& name, const std::string& hw_name, EccBankOptions options)
        : sc_core::sc_module(name), store_(hw_name, options.functional) {
        store_.erg().set_erg_type(options.erg_type);
    }

private:
    EccBankStore store_;
};

}  // namespace sbufsim::models
