"""Configurations: a generation's shipped file, user INI files and overrides, layered and
checked exactly as `sbufsim --gen G --config F --set key=value` does (docs/configuration.md)."""

import difflib
import os
from functools import lru_cache

from ._native import core


def generations():
    """The shipped generations, oldest first."""
    return list(core.generations())


@lru_cache(maxsize=1)
def _key_table():
    return {k["name"]: k for k in core.key_table()}


def config_keys():
    """Every configuration key: name, type, default, min, max, choices, unit, help, source (the
    seed section) and confidence, in documentation order."""
    return [dict(k) for k in _key_table().values()]


def ini_value(value):
    """A Python value as an INI value: booleans as true/false, numbers and strings as written."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float, str)):
        return str(value)
    raise TypeError(f"a configuration value must be a bool, number or string, not {type(value).__name__}")


def _typed(key, text):
    kind = _key_table()[key]["type"]
    if kind in ("uint32", "uint64"):
        return int(text, 0)
    if kind == "bool":
        return text == "true"
    if kind == "real":
        return float(text)
    return text


class Config:
    """A loaded, checked configuration.

    Config("cayman", {"tdm.dma_slots": 2}) is `--gen cayman --set tdm.dma_slots=2`;
    files=["my.ini"] adds `--config my.ini` (its `base = <gen>` may pick the generation);
    config_dir is `--config-dir`. Without a generation, a trace that names one in its header
    picks it when the configuration is used for a run, as on the command line.

    Errors raise sbufsim.ConfigError with the loader's message (key, file:line, rule, value).
    """

    def __init__(self, generation=None, overrides=None, *, files=(), config_dir=None):
        if generation is not None and not isinstance(generation, str):
            raise TypeError(f"Config(generation=...): a generation name ({', '.join(generations())}), "
                            f"not {type(generation).__name__} {generation!r}")
        if overrides is not None and not isinstance(overrides, dict):
            raise TypeError(f"Config(overrides=...): a dict of key -> value (e.g. {{'tdm.dma_slots': 2}}), "
                            f"not {type(overrides).__name__} {overrides!r}")
        if isinstance(files, (str, os.PathLike)):
            files = [files]  # one file, not its characters
        self._generation = generation or ""
        self._files = tuple(os.fspath(f) for f in files)
        self._overrides = tuple((str(k), ini_value(v)) for k, v in dict(overrides or {}).items())
        self._config_dir = os.fspath(config_dir) if config_dir else ""
        self._loaded = core.load_config(self._generation, list(self._files), list(self._overrides), self._config_dir)
        self._values = dict(self._loaded.values())

    # ---- what was asked for ----------------------------------------------------------------
    @property
    def overrides(self):
        """The overrides as given, values in INI form."""
        return dict(self._overrides)

    def with_overrides(self, overrides):
        """A new Config: these overrides applied after this one's."""
        merged = dict(self._overrides)
        merged.update((str(k), ini_value(v)) for k, v in dict(overrides).items())
        return Config(self._generation or None, merged, files=self._files, config_dir=self._config_dir or None)

    def request(self):
        """(generation, files, overrides, config_dir) as the core takes them."""
        return self._generation, list(self._files), list(self._overrides), self._config_dir

    def cli_args(self):
        """The same configuration as command-line options."""
        args = ["--gen", self._generation] if self._generation else []
        for f in self._files:
            args += ["--config", f]
        for key, value in self._overrides:
            args += ["--set", f"{key}={value}"]
        if self._config_dir:
            args += ["--config-dir", self._config_dir]
        return args

    # ---- what was loaded --------------------------------------------------------------------
    @property
    def generation(self):
        """The generation the values were layered over."""
        return self._loaded.generation

    @property
    def generation_file(self):
        """The shipped <gen>.ini that was read."""
        return self._loaded.generation_file

    def _known(self, key):
        if key not in self._values:
            close = difflib.get_close_matches(str(key), self._values, n=1)
            raise KeyError(f"unknown key {key!r}" + (f"; did you mean {close[0]!r}?" if close else "") +
                           " (config_keys() lists them)")

    def __getitem__(self, key):
        self._known(key)
        return _typed(key, self._values[key])

    def get(self, key, default=None):
        """The key's value. Every key has one, so `default` is never returned: a misspelt key
        raises KeyError as config[key] does, rather than passing for an unset one."""
        del default  # kept for the dict-like call; a config has no unset keys
        return self[key]

    def __contains__(self, key):
        return key in self._values

    def keys(self):
        return list(self._values)

    def to_dict(self):
        """Every key's value, typed: int, bool, float or str."""
        return {k: _typed(k, v) for k, v in self._values.items()}

    def origin(self, key):
        """Where a key's value came from: "file:line", "overrides" (this Config's overrides) or
        "default"."""
        self._known(key)
        return dict(self._loaded.origins())[key]

    def ini(self, annotate=True):
        """The effective configuration as an INI file `--config` re-loads (`sbufsim config`)."""
        return self._loaded.ini(annotate)

    def __repr__(self):
        gen = self._generation or self.generation
        return f"Config({gen!r}, { {k: _typed(k, v) for k, v in self._overrides}!r})"


def as_config(config):
    """None, a generation name, a dict of overrides or a Config -> a Config."""
    if config is None:
        return Config()
    if isinstance(config, Config):
        return config
    if isinstance(config, str):
        return Config(config)
    if isinstance(config, dict):
        return Config(None, config)
    raise TypeError(f"config must be a Config, a generation name or a dict of overrides, not {type(config).__name__}")
