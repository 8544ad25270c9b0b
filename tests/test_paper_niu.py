"""Seed 000's figures: every figure runs end to end on small slices of two real traces."""

from __future__ import annotations

import csv

import pytest
from helpers import TRACES, trace

from ckptsim.cli import main
from ckptsim.errors import ConfigError
from ckptsim.experiments.papers.niu import run_figure, spec_text


@pytest.mark.parametrize("figure", ["fig2", "fig4", "fig5", "fig6", "fig7"])
def test_figure_writes_csv_and_png(figure, tmp_path):
    trace("CTC-SP2-1996-3.1-cln.swf.gz")
    trace("KTH-SP2-1996-2.1-cln.swf.gz")
    out = run_figure(figure, tmp_path, trace_dir=TRACES, traces=["CTC-SP2", "KTH-SP2"],
                     first=600, jobs=2)
    rows = list(csv.DictReader(open(out.csv)))
    assert rows and out.png.stat().st_size > 10_000
    assert {r["trace"] for r in rows} == {"CTC-SP2", "KTH-SP2"}
    if figure == "fig4":
        # Normalised to classical EASY; p = 1 without overhead plans like EASY (the slices have
        # jobs that outrun their estimates, so it need not be exactly 1).
        assert {r["variant"] for r in rows} >= {"classical-actual", "p=0.1", "p=1"}
        assert all(float(r["easy_mean_wait"]) > 0 for r in rows)
    if figure == "fig7":
        no_ovh = [r for r in rows if r["variant"] == "no overhead"]
        assert all(float(r["wasted_ratio"]) == 0.0 for r in no_ovh)


def test_specs_are_valid_sweeps(tmp_path):
    from ckptsim.experiments.sweep import plan_sweep

    trace("CTC-SP2-1996-3.1-cln.swf.gz")
    for figure, runs in (("fig4", 2 * 12), ("fig6", 2 * 6), ("fig7", 2 * 6)):
        path = tmp_path / f"{figure}.toml"
        path.write_text(spec_text(figure, ["CTC-SP2", "KTH-SP2"]))
        assert len(plan_sweep(path, trace_dir=TRACES).runs) == runs


def test_bad_arguments(tmp_path, capsys):
    with pytest.raises(ConfigError, match="unknown trace 'ANL'"):
        run_figure("fig4", tmp_path, trace_dir=TRACES, traces=["ANL"])
    with pytest.raises(ConfigError, match="--trace-dir"):
        run_figure("fig4", tmp_path, trace_dir=tmp_path)
    assert main(["paper", "niu", "fig2", "--out", str(tmp_path), "--trace-dir",
                 str(tmp_path)]) == 2
    assert "missing" in capsys.readouterr().err
