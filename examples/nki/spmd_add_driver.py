"""A driver as NKI's examples write them, run unchanged by `python3 -m sbufsim.nki.driver
examples/nki/spmd_add_driver.py`: a checked call, then a benchmark of the kernel."""

import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl

from spmd_add import add_exp, spmd_add

if __name__ == "__main__":
    rng = np.random.default_rng(0)
    a = rng.random((1000, 512)).astype(np.float32) - 0.5
    b = rng.random((1000, 512)).astype(np.float32) - 0.5
    out = spmd_add(a, b)
    print("NKI and NumPy match" if np.allclose(out, np.exp(a + b), atol=1e-5) else "NKI and NumPy differ")

    bench = nki.benchmark(warmup=5, iters=10)(add_exp)
    bench[8](nl.static_cast(a, nl.bfloat16), nl.static_cast(b, nl.bfloat16))
    print(f"p50 latency: {bench.benchmark_result.nc_latency.get_latency_percentile(50):.2f} us")
