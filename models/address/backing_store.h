// Storage behind the ECC bank modules, kept apart from their SystemC shells: sparse data pages,
// the single-bit error faults injected into them, the erg_parity_model CSR block and the per-bank
// counters. Plain C++ (no SystemC), so it can be unit-tested and reused by any front-end.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <unordered_map>

#include "models/address/erg_parity_model.h"

namespace sbufsim {
struct BankStats;
}

namespace sbufsim::models {

// Byte-addressed sparse memory: a 4 KiB page is allocated on its first write only, so a 32 MiB
// (or, on maverick, 128 MiB) SBUF costs nothing until a test moves data through it.
// Bytes never written read as 0.
class SparseStore {
public:
    static constexpr std::uint64_t kPageBytes = 4096;

    void read(std::uint64_t addr, std::span<std::uint8_t> out) const;
    void write(std::uint64_t addr, std::span<const std::uint8_t> in);
    std::size_t pages() const { return pages_.size(); }
    void clear() { pages_.clear(); }

private:
    using Page = std::array<std::uint8_t, kPageBytes>;
    std::unordered_map<std::uint64_t, std::unique_ptr<Page>> pages_;  // page number -> bytes
};

// Per-bank counters. Data-path counts come from direct calls (axi2sram, engines); the
// arbitration counts from the kernel's BankStats (add_kernel_stats).
struct EccBankCounters {
    std::uint64_t reads = 0, writes = 0;            // accesses (one per call)
    std::uint64_t bytes_read = 0, bytes_written = 0;
    std::uint64_t corrected = 0;  // ECC mode: single-bit errors corrected on a read
    std::uint64_t detected = 0;   // parity mode: odd flips detected; ECC mode: >= 2 flips in a word
    std::uint64_t silent = 0;     // parity mode: an even number of flips in a word escapes parity
    std::uint64_t refused = 0;    // accesses refused because mem_cfg.shutdown is set
    // From the kernel (stats.h BankStats): arbitration slots granted, cycles with competing
    // beats, stalled beat-cycles charged to this bank.
    std::uint64_t busy_cycles = 0, conflict_cycles = 0, conflict_stalls = 0;

    bool operator==(const EccBankCounters&) const = default;
};

// What one bank access found.
struct BankAccess {
    bool refused = false;         // mem_cfg.shutdown: nothing was read or written
    std::uint32_t corrected = 0;  // words whose error ECC corrected in this read
    std::uint32_t detected = 0;   // words whose error was detected but not corrected
    // The data handed back is known to be wrong (the AXI read answers with an error).
    bool flagged() const { return refused || detected != 0; }
};

// One ECC bank: the erg_parity_model block, optional functional data, injected faults, counters.
//
// Error model (INFERRED; seed 000 §1.1 makes the 8-byte SBUF word the ECC granule): a fault is a
// set of flipped bits of one 8-byte word, kept as an overlay over the true data. A read touching
// any byte of a faulty word checks the whole word:
//   ECC (SECDED)  1 flipped bit  -> corrected: the true data is returned, `corrected` counts;
//                 2+ flipped bits -> detected, uncorrectable: the flipped data is returned, flagged.
//   parity        odd flips       -> detected: the flipped data is returned, flagged;
//                 even flips      -> escapes parity: flipped data, not flagged, `silent` counts.
// Nothing is scrubbed: every read of a faulty word counts again. A write replaces the bytes it
// covers, so it clears the flipped bits inside them.
class EccBankStore {
public:
    static constexpr std::uint32_t kWordBytes = 8;  // STATE_BUF_WORD_SIZE (seed 000 §1.1)

    // `name` is the bank's hardware name (error messages). `functional` keeps data; off by
    // default so that a timing run allocates nothing.
    explicit EccBankStore(std::string name, bool functional = false)
        : erg_(std::move(name)), functional_(functional) {}

    // Addresses are the bank's own byte addresses (the models use the 29-bit PartitionOffset).
    BankAccess read(std::uint64_t addr, std::span<std::uint8_t> out);
    BankAccess write(std::uint64_t addr, std::span<const std::uint8_t> in);

    // Flips bit `bit` (0..7) of the byte at `addr` (an error in the SRAM cell; the next read
    // sees it). Flipping the same bit twice cancels it. Throws std::invalid_argument for bit > 7.
    void inject_bit_flip(std::uint64_t addr, unsigned bit);
    std::size_t faulty_words() const { return faults_.size(); }

    // Turning the store off drops the data kept so far.
    void set_functional(bool on);
    bool functional() const { return functional_; }
    std::size_t pages() const { return data_.pages(); }

    ErgParityModel& erg() { return erg_; }
    const ErgParityModel& erg() const { return erg_; }
    const EccBankCounters& counters() const { return counters_; }
    // Adds the kernel's arbitration counts of this bank.
    void add_kernel_stats(const BankStats& s);

private:
    BankAccess check_read(std::uint64_t addr, std::span<std::uint8_t> out);

    ErgParityModel erg_;
    bool functional_ = false;
    SparseStore data_;
    std::map<std::uint64_t, std::uint64_t> faults_;  // word address -> flipped bits (bit 8*k+b = byte k, bit b)
    EccBankCounters counters_;
};

}  // namespace sbufsim::models
