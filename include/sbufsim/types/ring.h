// A FIFO ring that only grows (by doubling, outside steady state): the engines' in-order queues
// hold the replay's bounded look-ahead without an allocation per instruction. It takes no memory
// until the first push: a DMA engine has a ring per queue of the trace, most of them never used,
// and its entries are large enough that eight of each cost a run hundreds of page faults.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace sbufsim {

template <class T>
class Ring {
public:
    static constexpr std::size_t kFirst = 8;  // entries of the first allocation
    bool empty() const { return head_ == tail_; }
    std::size_t size() const { return static_cast<std::size_t>(tail_ - head_); }
    T& front() { return buf_[head_ & (buf_.size() - 1)]; }
    const T& front() const { return buf_[head_ & (buf_.size() - 1)]; }
    // The i-th entry from the front (i < size()).
    T& at(std::size_t i) { return buf_[(head_ + i) & (buf_.size() - 1)]; }
    void pop() { ++head_; }
    void push(const T& v) {
        if (size() == buf_.size()) grow();
        buf_[tail_ & (buf_.size() - 1)] = v;
        ++tail_;
    }

private:
    void grow() {
        std::vector<T> bigger(buf_.empty() ? kFirst : buf_.size() * 2);
        for (std::size_t i = 0; i < size(); ++i) bigger[i] = buf_[(head_ + i) & (buf_.size() - 1)];
        tail_ = size();
        head_ = 0;
        buf_.swap(bigger);
    }
    std::vector<T> buf_;
    std::uint64_t head_ = 0, tail_ = 0;
};

}  // namespace sbufsim
