"""Importing the package is cheap and safe: nothing compiled, no pandas, until a name is used."""

import subprocess
import sys

import sbufsim


def test_import_loads_neither_the_core_nor_pandas():
    code = (
        "import sys, sbufsim\n"
        "assert 'sbufsim._core' not in sys.modules, 'core loaded on import'\n"
        "assert 'pandas' not in sys.modules, 'pandas loaded on import'\n"
        "sbufsim.Config\n"
        "assert 'sbufsim._core' in sys.modules\n"
        "assert 'pandas' not in sys.modules, 'pandas loaded before a frame was asked for'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_public_names_are_listed_and_resolve():
    for name in sbufsim.__all__:
        assert getattr(sbufsim, name) is not None
        assert name in dir(sbufsim)


def test_an_unknown_name_is_an_attribute_error():
    try:
        sbufsim.no_such_thing
    except AttributeError as e:
        assert "no_such_thing" in str(e)
    else:
        raise AssertionError("no AttributeError")


def test_version_and_revision():
    assert sbufsim.__version__.count(".") == 2
    assert sbufsim.revision  # a git revision, or "unknown" outside a checkout
