"""Seed 000's `--reading`: the overdue reading of the figures' ckpt-backfill runs (default
`reservation-backfilled`; `estimate` gives the specs of the runs made before it)."""

from __future__ import annotations

import argparse
import csv
import re

import pytest
from helpers import TRACES, trace

from ckptsim.cli import build_parser, main
from ckptsim.cli.papers import check_options
from ckptsim.experiments.papers.niu import DEFAULT_READING, Niu
from ckptsim.experiments.papers.niu.experiments import READINGS, spec_text
from ckptsim.experiments.papers.niu.experiments import TRACES as TRACE_FILES

SWEEPS = ("fig4", "fig6", "fig7")


def options(*argv: str):
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    args = sub.choices["paper"].parse_args(["niu", "fig4", "--out", "x", *argv])
    check_options(args)
    return Niu().options(args)


def ckpt_params(spec: str) -> list[str]:
    """The params line of every ckpt-backfill scheduler of a spec."""
    blocks = spec.split("[[schedulers]]")[1:]
    return [re.search(r"^params = .*$", b, re.M).group(0) for b in blocks
            if 'name = "ckpt-backfill"' in b]


def test_the_default_is_the_compromise_and_estimate_the_old_specs():
    assert DEFAULT_READING == "reservation-backfilled"
    default, old = options(), options("--reading", "estimate")
    assert default.figure_params("fig4") == {"overdue": "reservation", "scaled": "backfilled"}
    assert old.figure_params("fig4") == {} and old.params() == {}
    for figure in SWEEPS:
        new = Niu().specs(figure, default)[figure]
        lines = ckpt_params(new)
        assert lines and all(line.startswith('params = { overdue = "reservation", scaled = '
                                             '"backfilled", ') for line in lines)
        # --reading estimate: byte for byte the spec of the runs committed before the option.
        assert Niu().specs(figure, old)[figure] == spec_text(figure, list(TRACE_FILES))


@pytest.mark.parametrize("reading", [label for label, _ in READINGS])
def test_every_reading_reaches_every_ckpt_run_but_readings_own(reading):
    opt = options("--reading", reading, "--retry", "true")
    want = {"retry": True, **dict(READINGS)[reading]}
    for figure in (*SWEEPS, "fig5"):
        assert opt.figure_params(figure) == want
    for figure in SWEEPS:
        lines = ckpt_params(Niu().specs(figure, opt)[figure])
        for k, v in dict(READINGS)[reading].items():
            assert all(f'{k} = "{v}"' in line for line in lines)
    # `readings` runs every reading itself: --reading leaves its spec alone.
    assert (Niu().specs("readings", opt)["readings"]
            == Niu().specs("readings", options("--retry", "true"))["readings"])


def _rows(path) -> list[dict[str, str]]:
    return list(csv.DictReader(open(path)))


@pytest.mark.parametrize("reading", [DEFAULT_READING, "estimate", "now"])
def test_fig7_without_overhead_is_the_readings_run_of_its_reading(reading, tmp_path):
    # Fig. 7's zero-overhead bar is p = 0.2 without overhead, as each run of `readings`: under
    # --reading R it must be R's run exactly (same wait, same share of jobs checkpointed).
    trace(TRACE_FILES["KTH-SP2"])
    common = ["--trace-dir", str(TRACES), "--traces", "KTH-SP2", "--first", "800", "--jobs", "0"]
    assert main(["paper", "niu", "fig7", "--out", str(tmp_path / "f7"), "--reading", reading,
                 *common]) == 0
    assert main(["paper", "niu", "readings", "--out", str(tmp_path / "r"), *common]) == 0
    fig7 = next(r for r in _rows(tmp_path / "f7" / "fig7.csv") if r["variant"] == "no overhead")
    readings = _rows(tmp_path / "r" / "readings.csv")
    base = next(r for r in readings if r["reading"] == "classical")
    mine = next(r for r in readings if r["reading"] == reading)
    assert float(fig7["wait_norm"]) == pytest.approx(float(mine["mean_wait"])
                                                     / float(base["mean_wait"]), rel=1e-5)
    assert float(fig7["preempt_ratio"]) == pytest.approx(float(mine["preempt_ratio"]), rel=1e-5)
    others = [r for r in readings if r["reading"] not in ("classical", reading)]
    # The slice tells the readings apart, so the check above could fail.
    assert any(float(r["preempt_ratio"]) != float(mine["preempt_ratio"])
               or float(r["mean_wait"]) != float(mine["mean_wait"]) for r in others)
