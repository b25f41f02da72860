#include "models/address/backing_store.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <stdexcept>
#include <string>

#include "sbufsim/stats/stats.h"

namespace sbufsim::models {

// ---- SparseStore ----------------------------------------------------------------------------

void SparseStore::read(std::uint64_t addr, std::span<std::uint8_t> out) const {
    std::size_t done = 0;
    while (done < out.size()) {
        const std::uint64_t a = addr + done;
        const std::uint64_t in_page = a % kPageBytes;
        const std::size_t n = std::min<std::size_t>(out.size() - done, kPageBytes - in_page);
        const auto it = pages_.find(a / kPageBytes);
        if (it == pages_.end()) std::memset(out.data() + done, 0, n);
        else std::memcpy(out.data() + done, it->second->data() + in_page, n);
        done += n;
    }
}

void SparseStore::write(std::uint64_t addr, std::span<const std::uint8_t> in) {
    std::size_t done = 0;
    while (done < in.size()) {
        const std::uint64_t a = addr + done;
        const std::uint64_t in_page = a % kPageBytes;
        const std::size_t n = std::min<std::size_t>(in.size() - done, kPageBytes - in_page);
        auto& page = pages_[a / kPageBytes];
        if (!page) page = std::make_unique<Page>();  // value-initialised: zeros
        std::memcpy(page->data() + in_page, in.data() + done, n);
        done += n;
    }
}

// ---- EccBankStore ---------------------------------------------------------------------------

namespace {

// Applies the flipped bits of the word at `word` to the bytes of `out` (which starts at `addr`).
void apply_flips(std::uint64_t word, std::uint64_t flips, std::uint64_t addr, std::span<std::uint8_t> out) {
    for (std::uint32_t k = 0; k < EccBankStore::kWordBytes; ++k) {
        const std::uint64_t a = word + k;
        const auto byte_flips = static_cast<std::uint8_t>(flips >> (8 * k));
        if (byte_flips != 0 && a >= addr && a < addr + out.size()) out[a - addr] ^= byte_flips;
    }
}

}  // namespace

BankAccess EccBankStore::check_read(std::uint64_t addr, std::span<std::uint8_t> out) {
    BankAccess r;
    const std::uint64_t first_word = addr - addr % kWordBytes;
    for (auto it = faults_.lower_bound(first_word); it != faults_.end() && it->first < addr + out.size(); ++it) {
        const int flips = std::popcount(it->second);
        const bool ecc = erg_.erg_type() == ErgType::ecc;
        if (ecc && flips == 1) {
            ++r.corrected;  // SECDED corrects one bit: the true data goes out
            continue;
        }
        apply_flips(it->first, it->second, addr, out);
        if (!ecc && flips % 2 == 0) ++counters_.silent;  // parity cannot see an even number of flips
        else ++r.detected;
    }
    counters_.corrected += r.corrected;
    counters_.detected += r.detected;
    return r;
}

BankAccess EccBankStore::read(std::uint64_t addr, std::span<std::uint8_t> out) {
    if (erg_.shutdown()) {
        ++counters_.refused;
        return BankAccess{.refused = true};
    }
    ++counters_.reads;
    counters_.bytes_read += out.size();
    if (functional_) data_.read(addr, out);
    else std::fill(out.begin(), out.end(), std::uint8_t{0});  // no data kept: reads as zeros
    return check_read(addr, out);
}

BankAccess EccBankStore::write(std::uint64_t addr, std::span<const std::uint8_t> in) {
    if (erg_.shutdown()) {
        ++counters_.refused;
        return BankAccess{.refused = true};
    }
    ++counters_.writes;
    counters_.bytes_written += in.size();
    if (functional_) data_.write(addr, in);
    // New data and new check bits: the written bytes are no longer faulty.
    const std::uint64_t first_word = addr - addr % kWordBytes;
    for (auto it = faults_.lower_bound(first_word); it != faults_.end() && it->first < addr + in.size();) {
        for (std::uint32_t k = 0; k < kWordBytes; ++k) {
            const std::uint64_t a = it->first + k;
            if (a >= addr && a < addr + in.size()) it->second &= ~(std::uint64_t{0xff} << (8 * k));
        }
        it = it->second == 0 ? faults_.erase(it) : std::next(it);
    }
    return {};
}

void EccBankStore::inject_bit_flip(std::uint64_t addr, unsigned bit) {
    if (bit > 7)
        throw std::invalid_argument(erg_.name() + ": bit " + std::to_string(bit) +
                                    " is not a bit of a byte (0..7)");
    const std::uint64_t word = addr - addr % kWordBytes;
    const std::uint64_t mask = std::uint64_t{1} << (8 * (addr - word) + bit);
    auto& flips = faults_[word];
    flips ^= mask;
    if (flips == 0) faults_.erase(word);
}

void EccBankStore::set_functional(bool on) {
    functional_ = on;
    if (!on) data_.clear();
}

void EccBankStore::add_kernel_stats(const BankStats& s) {
    counters_.busy_cycles += s.busy;
    counters_.conflict_cycles += s.conflict_cycles;
    counters_.conflict_stalls += s.stalls;
}

}  // namespace sbufsim::models
