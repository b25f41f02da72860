"""sbufsim from Python: a NeuronCore's SBUF/PSUM memory subsystem, simulated.

Load a generation's configuration with overrides, build a trace from Python objects or read one,
replay it with either scheduler, sweep settings in parallel worker processes; statistics come as
plain dicts and, where pandas is installed, as DataFrames. docs/python.md walks through it.

    import sbufsim
    cfg = sbufsim.Config("cayman", {"tdm.dma_slots": 2})
    result = sbufsim.run(sbufsim.shipped_trace("dma_vs_compute.trc"), cfg)
    result.total_cycles, result.table("client")

Importing the package loads nothing else: the compiled core (sbufsim._core) and pandas are
loaded when a name that needs them is first used.
"""

# Public name -> the private module that defines it.
_EXPORTS = {
    "Config": "_config",
    "generations": "_config",
    "config_keys": "_config",
    "Trace": "_trace",
    "Access": "_trace",
    "Instruction": "_trace",
    "operand": "_trace",
    "shipped_trace": "_trace",
    "run": "_run",
    "Result": "_run",
    "SettingWarning": "_run",
    "TraceWarning": "_run",
    "sweep": "_sweep",
    "SweepTable": "_sweep",
    "TieWarning": "_sweep",
    "sweep_metrics": "_sweep",
    "command": "_command",
    "Completed": "_command",
    "generate": "_trace",
    "__version__": "_command",
    "revision": "_command",
    "Error": "errors",
    "ConfigError": "errors",
    "InputError": "errors",
    "TraceError": "errors",
    "ReplayError": "errors",
    "OutputError": "errors",
    "InternalError": "errors",
}

__all__ = sorted(name for name in _EXPORTS if not name.startswith("__"))


def __getattr__(name):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'sbufsim' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_EXPORTS))
