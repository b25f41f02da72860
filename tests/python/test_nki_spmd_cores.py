"""SPMD launches on several NeuronCores (docs/nki.md, "SPMD grids"): which core runs each instance,
each core traced and replayed on its own, the launch as long as its latest core, and the cores'
HBM traffic sharing dma.hbm_shared_gbps. Kernels written here: one compute-bound (a chain of
activations on one tile), one HBM-bound (a copy of 2 MiB per instance)."""

import re
import textwrap

import pytest

from sbufsim import nki
from sbufsim.nki import _spmd

HEADER = "import nki\nimport nki.language as nl\n"

COMPUTE = """\
@nki.jit
def k(a):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    i = nl.program_id(0) * 128 + nl.arange(128)[:, None]
    j = nl.arange(512)[None, :]
    x = nl.load(a[i, j])
    for _ in range(24):
        x = nl.exp(x)
    nl.store(out[i, j], value=x)
    return out
"""

COPY = """\
@nki.jit
def k(a):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    i = nl.program_id(0) * 128 + nl.arange(128)[:, None]
    j = nl.arange(8192)[None, :]
    nl.store(out[i, j], value=nl.load(a[i, j]))
    return out
"""

GRID2 = """\
@nki.jit
def k(a):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    i = nl.program_id(0) * 128 + nl.arange(128)[:, None]
    j = nl.program_id(1) * 256 + nl.arange(256)[None, :]
    nl.store(out[i, j], value=nl.exp(nl.load(a[i, j])))
    return out
"""

LAUNCH = re.compile(r"^launch: (\d+) instances on (\d+) NeuronCores, (\d+) cycles", re.M)
CORE = re.compile(r"^  core (\d+): (\d+) instances, \d+ records, (\d+) cycles, bound by (\S+)", re.M)


def kernel_file(tmp_path, body, name):
    path = tmp_path / f"{name}.py"
    path.write_text(HEADER + "\n" + textwrap.dedent(body))
    return f"{path}::k"


def one_screen(cli, tmp_path, kernel, *args):
    """The report of `sbufsim nki` run beside the kernel (as a user would: a short path), checked
    to fit one screen: at most 30 lines of at most 120 columns."""
    done = cli("nki", kernel.rpartition("/")[2], *args, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) <= 30 and max(map(len, lines)) <= 120, done.stdout
    return done.stdout


def launch(cli, kernel, rows, columns, *args):
    """`sbufsim nki` of the kernel over `rows` of a bf16[rows, columns] input: (the launch's cycles,
    its cores as (instances, cycles, bound by)), the launch line's cycles; a run on one core, whose
    report has no launch line, gives its total cycles and no cores."""
    done = cli("nki", kernel, "--input", f"a=bf16[{rows},{columns}]", *args)
    assert done.returncode == 0, done.stderr
    found = LAUNCH.search(done.stdout)
    if not found:
        return int(re.search(r"^total (\d+) cycles", done.stdout, re.M).group(1)), [], done.stdout
    cores = [(int(n), int(c), b) for _, n, c, b in CORE.findall(done.stdout)]
    assert int(found.group(2)) == len(cores) and int(found.group(1)) == sum(n for n, _, _ in cores)
    assert int(found.group(3)) == max(c for _, c, _ in cores)  # the launch is the latest core's
    return int(found.group(3)), cores, done.stdout


def test_instances_go_to_the_core_their_nl_nc_index_names():
    """The nl.nc and nl.spmd_dim references' examples: kernel[nl.nc(2), 2] runs [0, *] on core 0
    and [1, *] on core 1; kernel[nl.spmd_dim(nl.nc(2), 2), 2] runs [0, *], [1, *] on core 0 and
    [2, *], [3, *] on core 1; without nl.nc a launch is split into contiguous blocks."""
    def cores(spec, count=2):
        dims = [int(d) for d in spec]
        out, total = {}, dims[0] * dims[1]
        for index in range(total):
            ids = (index // dims[1], index % dims[1])
            out.setdefault(_spmd.core_of(spec, ids, index, total, count), []).append(ids)
        return out

    assert cores((_spmd.nc(2), 2)) == {0: [(0, 0), (0, 1)], 1: [(1, 0), (1, 1)]}
    assert cores((_spmd.spmd_dim(_spmd.nc(2), 2), 2)) == {0: [(0, 0), (0, 1), (1, 0), (1, 1)],
                                                          1: [(2, 0), (2, 1), (3, 0), (3, 1)]}
    # the nl.nc factor inner: the cores alternate along the dimension
    assert cores((_spmd.spmd_dim(2, _spmd.nc(2)), 1)) == {0: [(0, 0), (2, 0)], 1: [(1, 0), (3, 0)]}
    assert cores((4, 2)) == {0: [(0, 0), (0, 1), (1, 0), (1, 1)], 1: [(2, 0), (2, 1), (3, 0), (3, 1)]}
    assert cores((_spmd.nc(2), 2), count=1) == {0: [(0, 0), (0, 1), (1, 0), (1, 1)]}  # one core: all of it


def test_each_core_is_a_trace_of_its_own_instances(tmp_path):
    k = kernel_file(tmp_path, COMPUTE, "compute")
    one = nki.trace(k, {"a": "bf16[128,512]"}, grid=(1,), cores=1)
    kt = nki.trace(k, {"a": "bf16[384,512]"}, grid=(3,), cores=2)
    assert [(c.core, c.instances) for c in kt.cores] == [(0, 2), (1, 1)]
    assert len(kt.cores[0].records) == 2 * len(one.records) and len(kt.cores[1].records) == len(one.records)
    assert kt.cores[0] is kt
    whole = nki.trace(k, {"a": "bf16[384,512]"}, grid=(3,), cores=1)  # one core: every instance
    assert whole.cores == [whole] and len(whole.records) == 3 * len(one.records)
    assert nki.trace(k, {"a": "bf16[384,512]"}, grid=(3,), generation="sunda").cores[0].instances == 3  # LNC=1
    with pytest.raises(nki.NkiError, match="cores 0: the physical NeuronCores"):
        nki.trace(k, {"a": "bf16[128,512]"}, grid=(1,), cores=0)


def test_a_launch_on_two_cores_computes_every_instances_values(tmp_path):
    """Each core writes its instances' rows of the one shared_hbm output; the launch's output is
    the whole of it."""
    np = pytest.importorskip("numpy")
    k = kernel_file(tmp_path, GRID2, "grid2")
    a = np.random.default_rng(3).random((256, 1024)).astype(np.float32) - 0.5
    kt = nki.trace(k, {"a": a}, grid=(2, 4), cores=2)
    assert [c.instances for c in kt.cores] == [4, 4]
    np.testing.assert_allclose(kt.outputs[0], np.exp(a), rtol=2e-2)


def test_compute_bound_instances_on_two_cores_take_one_instances_time(cli, tmp_path):
    k = kernel_file(tmp_path, COMPUTE, "compute")
    single, _, _ = launch(cli, k, 128, 512, "--grid", "1")
    two, cores, report = launch(cli, k, 256, 512, "--grid", "2")  # cayman: gen.lnc = 2
    assert [n for n, _, _ in cores] == [1, 1]
    assert abs(two - single) <= 0.05 * single, (single, two)
    serial, none, _ = launch(cli, k, 256, 512, "--grid", "2", "--cores", "1")
    assert none == [] and serial > 1.7 * single, (single, serial)
    four, cores, _ = launch(cli, k, 512, 512, "--grid", "4")
    assert [n for n, _, _ in cores] == [2, 2]
    assert abs(four - serial) <= 0.05 * serial, (serial, four)  # two instances on each core
    one_screen(cli, tmp_path, k, "--input", "a=bf16[512,512]", "--grid", "4")


def test_hbm_bound_instances_share_the_bank_the_cores_stream_from(cli, tmp_path):
    """On cayman each core's share of its HBM bank (725 GB/s / 2) is its own dma.hbm_gbps (362.5):
    two copies on two cores take one copy's time. Shared by a bank of one core's bandwidth, they
    take longer than one copy; each core then moves HBM bytes at half the rate."""
    k = kernel_file(tmp_path, COPY, "copy")
    single, _, _ = launch(cli, k, 128, 8192, "--grid", "1")
    two, cores, report = launch(cli, k, 256, 8192, "--grid", "2")
    assert all(b == "DMA" for _, _, b in cores), report
    assert abs(two - single) <= 0.05 * single, (single, two)
    assert "; HBM 362.5 GB/s a core" in report
    narrow, cores, report = launch(cli, k, 256, 8192, "--grid", "2", "--set", "dma.hbm_shared_gbps=362.5")
    assert "; HBM 181.2 GB/s a core" in report
    assert narrow > 1.3 * single, (single, narrow)
    alone, _, _ = launch(cli, k, 128, 8192, "--grid", "1", "--set", "dma.hbm_gbps=181.25")
    assert abs(narrow - alone) <= 0.02 * alone  # each core replayed at its share


def test_a_two_dimensional_grid_from_the_command_line(cli, tmp_path):
    k = kernel_file(tmp_path, GRID2, "grid2")
    cycles, cores, report = launch(cli, k, 256, 1024, "--grid", "2,4")
    assert [n for n, _, _ in cores] == [4, 4]
    assert "launch: 8 instances on 2 NeuronCores" in report
    latest = max(range(2), key=lambda i: (cores[i][1], -i))
    assert f"::k, core {latest} (not kept" in report  # the summary above is the latest core's
    one_screen(cli, tmp_path, k, "--input", "a=bf16[256,1024]", "--grid", "2,4")
    bad = cli("nki", k, "--input", "a=bf16[256,1024]", "--grid", "2,4", "--cores", "9")
    assert bad.returncode == 2 and "--cores '9'" in bad.stderr
