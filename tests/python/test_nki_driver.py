"""A driver script run unchanged under `python3 -m sbufsim.nki.driver`: its kernel calls return
the computed outputs (its own correctness check passes), nki.benchmark answers with the
simulated latency, and nl.static_cast marks its arrays' dtype."""

import os
import subprocess
import sys
import textwrap

import pytest

KERNEL = textwrap.dedent("""\
    from neuronxcc import nki
    import neuronxcc.nki.language as nl


    @nki.jit
    def add_exp(a, b):
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        i = nl.program_id(0) * 128 + nl.arange(128)[:, None]
        j = nl.arange(a.shape[1])[None, :]
        nl.store(out[i, j], value=nl.exp(nl.load(a[i, j]) + nl.load(b[i, j])))
        return out
    """)

DRIVER = textwrap.dedent("""\
    import sys
    import numpy as np
    from neuronxcc import nki
    import neuronxcc.nki.language as nl
    from add_exp_kernel import add_exp

    a = np.random.default_rng(0).random((256, 512)) - 0.5
    b = np.random.default_rng(1).random((256, 512)) - 0.5
    out = add_exp[2](a, b)
    print("match", np.allclose(out, np.exp(a + b), atol=1e-5))
    bench = nki.benchmark(warmup=5, iters=10)(add_exp)
    bench[2](nl.static_cast(a, nl.bfloat16), nl.static_cast(b, nl.bfloat16))
    print("p50", bench.benchmark_result.nc_latency.get_latency_percentile(50), sys.argv[1:])
    """)


def test_a_driver_script_runs_with_its_kernels_simulated(tmp_path, binary):
    pytest.importorskip("numpy")
    (tmp_path / "add_exp_kernel.py").write_text(KERNEL)
    (tmp_path / "drive.py").write_text(DRIVER)
    env = dict(os.environ, SBUFSIM_BINARY=binary)
    done = subprocess.run([sys.executable, "-m", "sbufsim.nki.driver", "drive.py", "--size", "2"], cwd=tmp_path,
                          capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    assert "match True" in done.stdout
    p50 = float(done.stdout.split("p50 ")[1].split()[0])
    simulated = [line for line in done.stderr.splitlines() if line.startswith("sbufsim: add_exp: ")]
    assert len(simulated) == 2  # the checked call, and the benchmark
    assert simulated[1].endswith(f"{p50:.2f} us (simulated on cayman)")
    assert "['--size', '2']" in done.stdout  # the script's own arguments
    assert 1 < p50 < 100


def test_the_example_driver_runs_from_anywhere(tmp_path, binary):
    pytest.importorskip("numpy")
    from nki_helpers import example
    env = dict(os.environ, SBUFSIM_BINARY=binary)
    done = subprocess.run([sys.executable, "-m", "sbufsim.nki.driver", os.path.abspath(example("spmd_add_driver.py"))],
                          cwd=tmp_path, capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    assert "NKI and NumPy match" in done.stdout  # 1000 rows: 8 instances, the last masked to 104 rows
    # cayman's two cores: four row blocks each, timed as the latest of them
    assert done.stderr.count("sbufsim: add_exp: 46 records on 2 NeuronCores (the latest core's time)") == 2
