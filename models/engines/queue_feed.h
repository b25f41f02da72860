// queue_feed: the instruction queues' fill from the trace under the clocked scheduler
// (clocked_replay.h): on every rising edge, and whenever an engine made room or changed
// something, it reads records into the engines' queues up to the look-ahead and submits the
// access records due within the window (ReplaySession::refill, the same code the fast
// scheduler runs). It has no hardware counterpart: it stands for the instruction fetch.
#pragma once

#include <systemc>

#include "models/engines/clocked_link.h"
#include "sbufsim/replay/replay_session.h"

namespace sbufsim::models {

class QueueFeed : public sc_core::sc_module {
public:
    SC_HAS_PROCESS(QueueFeed);
    sc_core::sc_in<bool> clk{"clk"};

    // A refill error (an invalid record: ReplayError) ends the simulation through link.fail().
    QueueFeed(const sc_core::sc_module_name& name, ReplaySession& session, ClockedLink& link);

private:
    void fill();

    ReplaySession& session_;
    ClockedLink& link_;
};

}  // namespace sbufsim::models
