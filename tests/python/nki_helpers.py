"""Shared by the NKI front-end tests: the example kernels' folder and a trace-and-replay helper."""

import os
import re

import sbufsim
from sbufsim import nki

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "nki")


def example(name):
    return os.path.join(EXAMPLES, name)


def traced(kernel, inputs, params=None, generation="cayman"):
    path, _, func = kernel.partition("::")
    return nki.trace(f"{example(path)}::{func}", inputs, params, generation=generation)


def no_ramp(generation="cayman"):
    """The generation with the TensorE ramp off: for a test that pins a matmul's streaming cycles
    for a reason other than the ramp (tests/test_engines_timing.cpp holds the ramp)."""
    return sbufsim.Config(generation, {"pe.ramp_start": 1})


def replay(kt, tmp_path, config=None):
    path = kt.write(str(tmp_path / f"{kt.name}.trc"))
    return sbufsim.run(path, config)


WAIT = re.compile(r" wait=(\d+):(\d+)")


def check_semaphores(kt):
    """Every wait names the semaphore of another queue and a count that queue reaches; no record
    waits on its own queue; a semaphore is signalled by the records of one queue."""
    signals, queue_of = {}, {}
    for record in kt.records:
        queue = re.search(r"queue=(\S+)", record).group(1)
        sem = int(re.search(r" signal=(\d+)", record).group(1))
        assert queue_of.setdefault(sem, queue) == queue, record
        for s, v in WAIT.findall(record):
            assert int(s) != sem, f"waits on its own queue: {record}"
            assert int(v) <= signals.get(int(s), 0), f"waits for a signal not yet issued: {record}"
            assert len(WAIT.findall(record)) <= 2
        signals[sem] = signals.get(sem, 0) + 1
    return signals
