"""pytest fixtures for the Python module's tests (ctest `python` runs them with PYTHONPATH at the
build tree's package and SBUFSIM_BINARY at the built command line)."""

import json
import os
import subprocess

import pytest

import sbufsim


@pytest.fixture(scope="session")
def binary():
    """The `sbufsim` command line the module's results are compared with."""
    path = os.environ.get("SBUFSIM_BINARY")
    if not path:
        pytest.skip("SBUFSIM_BINARY is not set (ctest sets it)")
    return path


@pytest.fixture(scope="session")
def cli(binary):
    """cli(*args) -> CompletedProcess of the built binary (text, not checked)."""

    def call(*args, cwd=None):
        return subprocess.run([binary, *map(str, args)], capture_output=True, text=True, cwd=cwd)

    return call


@pytest.fixture(scope="session")
def cli_json(cli):
    """The first run of `sbufsim run ARGS --json -` as a dict."""

    def call(*args):
        done = cli("run", *args, "--json", "-", "--quiet")
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)["runs"][0]

    return call


@pytest.fixture(scope="session")
def traces():
    """The shipped traces' paths by file name."""

    def path(name):
        return sbufsim.shipped_trace(name).path

    return path
