// What the clocked scheduler's processes share (clocked_replay.h): the activity event that
// re-runs the engine shells and the queue feed in a delta cycle when one of them changed
// something, and the first failure of any process.
#pragma once

#include <exception>

#include <systemc>

namespace sbufsim::models {

struct ClockedLink {
    sc_core::sc_event activity{"activity"};
    std::exception_ptr failure;

    // Keeps the current exception and stops the simulation: SystemC would turn an exception
    // escaping a process into a report and lose its type (a ReplayError must reach the caller).
    void fail() {
        if (!failure) failure = std::current_exception();
        sc_core::sc_stop();
    }
};

}  // namespace sbufsim::models
