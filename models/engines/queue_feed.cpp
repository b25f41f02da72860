#include "models/engines/queue_feed.h"

namespace sbufsim::models {

QueueFeed::QueueFeed(const sc_core::sc_module_name& name, ReplaySession& session, ClockedLink& link)
    : sc_core::sc_module(name), session_(session), link_(link) {
    SC_METHOD(fill);
    sensitive << clk.pos() << link_.activity;
    dont_initialize();
}

void QueueFeed::fill() {
    try {
        if (session_.refill(session_.kernel().now(), false)) link_.activity.notify(sc_core::SC_ZERO_TIME);
    } catch (...) {
        link_.fail();
    }
}

}  // namespace sbufsim::models
