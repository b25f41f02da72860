"""Config: the loader of the command line, with Python values in and typed values out."""

import pytest

import sbufsim


def test_generation_with_overrides_is_typed_and_says_where_values_came_from():
    cfg = sbufsim.Config("cayman", {"tdm.dma_slots": 2, "tdm.strict": True})
    assert cfg.generation == "cayman"
    assert cfg["tdm.dma_slots"] == 2
    assert cfg["tdm.strict"] is True
    assert cfg.origin("tdm.dma_slots") == "overrides"
    # sbuf.partition_active is stated by cayman.ini; tdm.max_slots holds its declared default
    stated = cfg.origin("sbuf.partition_active")
    assert stated.endswith("cayman.ini:" + stated.split(":")[-1])
    assert cfg.origin("tdm.max_slots") == "default"
    assert cfg.generation_file.endswith("share/sbufsim/configs/cayman.ini")
    assert isinstance(cfg["pe.clock_ghz"], float)


def test_a_misspelt_key_is_a_key_error_for_get_and_origin_too():
    # get() of a key that does not exist must not pass for an unset one (None)
    cfg = sbufsim.Config("cayman")
    assert cfg.get("tdm.dma_slots", 7) == cfg["tdm.dma_slots"]
    for read in (cfg.get, cfg.origin, cfg.__getitem__):
        with pytest.raises(KeyError, match="unknown key 'tdm.dma_slot'; did you mean 'tdm.dma_slots'"):
            read("tdm.dma_slot")


def test_defaults_to_cayman_and_lists_the_generations():
    assert sbufsim.Config().generation == "cayman"
    assert sbufsim.generations() == ["inferentia", "sunda", "cayman", "mariana", "maverick"]
    assert sbufsim.Config("sunda").generation == "sunda"


def test_every_key_is_described_with_its_source():
    keys = sbufsim.config_keys()
    names = [k["name"] for k in keys]
    assert "tdm.dma_slots" in names
    slots = next(k for k in keys if k["name"] == "tdm.dma_slots")
    assert slots["type"] == "uint32" and "seed" in slots["source"]
    assert set(sbufsim.Config().keys()) == set(names)


def test_the_ini_reloads_to_the_same_values(tmp_path):
    cfg = sbufsim.Config("sunda", {"tdm.dma_slots": 3})
    path = tmp_path / "mine.ini"
    path.write_text(cfg.ini())
    again = sbufsim.Config(files=[path])
    assert again.generation == "sunda"
    assert again.to_dict() == cfg.to_dict()
    assert again.origin("tdm.dma_slots").startswith(str(path) + ":")


def test_with_overrides_layers_on_top():
    cfg = sbufsim.Config("cayman", {"tdm.dma_slots": 2}).with_overrides({"tdm.max_slots": 16})
    assert (cfg["tdm.dma_slots"], cfg["tdm.max_slots"]) == (2, 16)


def test_an_unknown_key_is_a_config_error_with_the_suggestion():
    with pytest.raises(sbufsim.ConfigError) as e:
        sbufsim.Config("cayman", {"tdm.dma_slot": 2})
    # Named as the overrides they were given as, not as a command line's --set.
    assert str(e.value) == "overrides: unknown key 'tdm.dma_slot'; did you mean 'tdm.dma_slots'?"
    assert e.value.exit_status == 2
    assert isinstance(e.value, ValueError)


def test_a_broken_rule_names_the_values_and_the_seed_section():
    with pytest.raises(sbufsim.ConfigError, match=r"tdm.dma_slots = 9 exceeds tdm.max_slots = 8 .*seed 000"
                                                  r".*\[tdm.dma_slots set at overrides\]"):
        sbufsim.Config("cayman", {"tdm.dma_slots": 9})


def test_a_bad_ini_line_is_reported_with_file_and_line(tmp_path):
    path = tmp_path / "bad.ini"
    path.write_text("[tdm]\ndma_slots = 2\nno_such_key = 1\n")
    with pytest.raises(sbufsim.ConfigError, match=rf"{path}:3: .*no_such_key"):
        sbufsim.Config(files=[path])


def test_a_missing_config_dir_names_it_and_the_shipped_one(tmp_path):
    with pytest.raises(sbufsim.ConfigError) as e:
        sbufsim.Config("cayman", config_dir=tmp_path)
    text = str(e.value)
    assert f"looked in {tmp_path} (from --config-dir)" in text
    assert "share/sbufsim/configs (drop --config-dir to use it)" in text


def test_values_must_be_plain():
    with pytest.raises(TypeError):
        sbufsim.Config("cayman", {"tdm.dma_slots": [1, 2]})


def test_arguments_of_the_wrong_kind_say_what_is_expected():
    with pytest.raises(TypeError, match="a generation name"):
        sbufsim.Config(123)
    with pytest.raises(TypeError, match="a dict of key -> value"):
        sbufsim.Config("cayman", "tdm.dma_slots=2")
    with pytest.raises(sbufsim.ConfigError, match="nope.ini: cannot open"):  # one file, not its letters
        sbufsim.Config("cayman", files="nope.ini")
    with pytest.raises(KeyError, match="did you mean 'tdm.dma_slots'"):
        sbufsim.Config("cayman")["tdm.dma_slot"]
    with pytest.raises(TypeError, match="window_stats: a whole number"):
        sbufsim.run(sbufsim.shipped_trace("dma_load.trc"), window_stats="x")
    with pytest.raises(TypeError, match="jobs: a whole number"):
        sbufsim.sweep(sbufsim.shipped_trace("dma_load.trc"), {"tdm.dma_slots": [1]}, jobs="x")
    assert len(sbufsim.sweep(sbufsim.shipped_trace("dma_load.trc"), {"tdm.dma_slots": 3}).rows) == 1
    from sbufsim import nki
    with pytest.raises(TypeError, match="inputs: a dict"):
        nki.trace("k.py::f", ["bf16[128,128]"])
