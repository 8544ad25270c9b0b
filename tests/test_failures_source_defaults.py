"""What an option left out of a failure source string means is written once,
`ckptsim.failures.source.SOURCE_DEFAULTS`: the loader applies it and summary.json's
`options.failures.spec` records it, so changing the table changes both (docs/failures.md)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from helpers import LANL_HEADER, lanl_row

from ckptsim.errors import ConfigError
from ckptsim.failures import source
from ckptsim.failures.source import SOURCE_DEFAULTS, load_failures, source_options


def same(a, b) -> bool:
    return all(np.array_equal(getattr(a, c), getattr(b, c)) for c in ("time", "node", "repair"))


@pytest.fixture
def log(tmp_path):
    path = tmp_path / "lanl.csv"
    path.write_text("\n".join([LANL_HEADER] + [
        lanl_row(2, node, f"1/{10 + node}/2004 10:00", f"1/{10 + node}/2004 11:30", "90")
        for node in range(6)]) + "\n")
    return f"lanl:path={path},system=2"


@pytest.mark.parametrize(("key", "value"), [("transient", "true"), ("map", "random")])
def test_a_log_option_left_out_is_the_table_s(monkeypatch, log, key, value):
    kwargs = {"n_nodes": 4, "span": 1000.0, "seed": 3}
    before = load_failures(log, **kwargs)
    written = load_failures(f"{log},{key}={value}", **kwargs)
    assert not same(before, written)  # the option changes the failures
    monkeypatch.setitem(SOURCE_DEFAULTS, key, value)
    assert same(load_failures(log, **kwargs), written)
    assert source_options(log, 3)["options"][key] == value


def test_a_synthetic_option_left_out_is_the_table_s(monkeypatch):
    spec, kwargs = "synthetic:mtbf=2000", {"n_nodes": 8, "span": 50_000.0, "seed": 1}
    written = load_failures(f"{spec},shape=1.5", **kwargs)
    assert not same(load_failures(spec, **kwargs), written)
    monkeypatch.setitem(SOURCE_DEFAULTS, "shape", "1.5")
    assert same(load_failures(spec, **kwargs), written)
    assert source_options(spec, 1)["options"]["shape"] == "1.5"
    # The refusal of too many failures per job reads its limit there too (200 expected).
    load_failures(spec, **kwargs, jobs=1)
    monkeypatch.setitem(SOURCE_DEFAULTS, "max_per_job", "100")
    with pytest.raises(ConfigError, match="at most 100 per job"):
        load_failures(spec, **kwargs, jobs=1)


def test_every_option_with_a_default_is_one_a_kind_accepts():
    accepted = set().union(*source._KEYS.values())
    assert set(SOURCE_DEFAULTS) <= accepted and "seed" not in SOURCE_DEFAULTS


def test_the_defaults_docs_failures_md_lists_are_the_table_s():
    text = " ".join((Path(__file__).resolve().parents[1] / "docs" / "failures.md")
                    .read_text().split())
    listed = re.search(r"a left-out one as what it means \((.*?); `seed` the run's", text)
    assert listed, "the list of defaults is not in docs/failures.md"
    pairs = dict(re.findall(r"`(\w+)` (\w[\w.]*)", listed.group(1)))
    assert pairs and all(SOURCE_DEFAULTS[k] == v for k, v in pairs.items()), pairs
    assert set(pairs) == {k for k, v in SOURCE_DEFAULTS.items() if v is not None}
