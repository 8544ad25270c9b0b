"""Seed 001's figures: the specs of the four families, the figure commands end to end on a tiny
grid workload, and the refusals of bad arguments."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from ckptsim.cli import main
from ckptsim.errors import ConfigError
from ckptsim.experiments.papers.jones import experiments as jones
from ckptsim.experiments.sweep import plan_sweep


def read(path: Path) -> list[dict[str, str]]:
    return list(csv.DictReader(open(path)))


def test_every_family_spec_is_valid_and_counts_its_runs(tmp_path):
    opt = jones.Options(n=50)
    for family in jones.FAMILIES:
        path = tmp_path / f"{family}.toml"
        path.write_text(jones.spec_text(family, opt))
        runs = plan_sweep(path).runs
        assert len(runs) == jones.runs_of(family, opt), family
        # Migration Only runs once per family, on the workload every family shares.
        assert sum(1 for r in runs if r.params.get("coalloc") is False) == 1
    assert jones.runs_of("all", opt) == sum(jones.runs_of(f, opt) for f in jones.FAMILIES)


def test_runs_shared_by_two_families_have_one_id(tmp_path):
    """The plain co-allocation runs of the ctmr family (info = 1, errors 0 .. 1) are runs of
    the info family too, so a store holding both runs them once."""
    opt = jones.Options(n=50)
    ids = {}
    for family in ("info", "ctmr"):
        path = tmp_path / f"{family}.toml"
        path.write_text(jones.spec_text(family, opt))
        ids[family] = {r.run_id for r in plan_sweep(path).runs
                       if r.params.get("coalloc") is True and not r.params.get("ctmr")}
    assert ids["ctmr"] <= ids["info"]


@pytest.fixture(scope="module")
def fixed(tmp_path_factory):
    out = tmp_path_factory.mktemp("jones")
    assert main(["paper", "jones", "fixed", "--out", str(out), "--per-cluster", "40",
                 "--jobs", "1"]) == 0
    return out


def test_fixed_family_writes_figures_7_and_9(fixed):
    for fig in ("fig7", "fig9"):
        rows = read(fixed / f"{fig}.csv")
        assert len(rows) == len(jones.PPBWS) * len(jones.FIXED_ERRORS), fig
        assert (fixed / f"{fig}.png").stat().st_size > 10_000
    assert (fixed / "fixed.toml").exists()
    rows = read(fixed / "fig7.csv")
    assert len({r["migration_only_h"] for r in rows}) == 1  # one baseline for every line


def test_overestimates_never_slow_a_job(fixed):
    """Seed 001, Fig. 9: with every estimate at or above the true PPBW the co-allocated jobs
    fit the links, so none is slowed and no link saturates."""
    for r in read(fixed / "fig9.csv"):
        if float(r["error"]) >= 0:
            assert float(r["coalloc_slowdown"]) == 1.0, r
            assert float(r["saturated_time"]) == 0.0, r


def test_bad_arguments(tmp_path, capsys):
    with pytest.raises(ConfigError, match="unknown figure 'fig20'"):
        jones.family_of("fig20")
    assert main(["paper", "jones", "fig20", "--out", str(tmp_path)]) == 2
    assert "accepted: fig1" in capsys.readouterr().err
    assert main(["paper", "jones", "fig7", "--out", str(tmp_path), "--first", "10"]) == 2
    assert "--first: does not apply to jones" in capsys.readouterr().err
    assert main(["paper", "jones", "fig7", "--out", str(tmp_path), "--full",
                 "--per-cluster", "10"]) == 2
    assert "--full" in capsys.readouterr().err
    for flag, value in (("--per-cluster", "0"), ("--load", "0"), ("--replications", "0")):
        assert main(["paper", "jones", "fig7", "--out", str(tmp_path), flag, value]) == 2
        err = capsys.readouterr().err
        assert flag in err and "Traceback" not in err, err


def _row(seed: int, turnaround: float, **params: object) -> dict[str, object]:
    row: dict[str, object] = {"status": "ok", "seed": seed, "workload.ppbw": 300.0,
                              "workload.error": 1.0, "workload.error_mode": "uniform",
                              "workload.info": 1.0, "param.overhead": 600.0,
                              "mean_response": turnaround}
    row.update(params)
    for m in jones.METRICS:
        row.setdefault(m, 0.0)
    return row


def test_paired_seed_is_the_difference_of_the_improvements():
    """Two seeds whose Migration Only turnarounds differ (10 h and 20 h): CTMR gains 1 h on the
    first and 4 h on the second.  Improvements: without CTMR 0 and 0, with it 0.1 and 0.2, so
    the paired gain seed by seed is 0.1 and 0.2, mean 0.15 (`--paired seed`), which is the
    difference of the improvement columns; over Migration Only's mean, 15 h, it is 1/15 and
    4/15, mean 1/6 (`--paired mean`)."""
    from ckptsim.experiments.papers.jones.figures import paired, select

    rows = [_row(1, 10.0, **{"param.coalloc": False, "param.ctmr": False}),
            _row(2, 20.0, **{"param.coalloc": False, "param.ctmr": False}),
            _row(1, 10.0, **{"param.coalloc": True, "param.ctmr": False}),
            _row(2, 20.0, **{"param.coalloc": True, "param.ctmr": False}),
            _row(1, 9.0, **{"param.coalloc": True, "param.ctmr": True}),
            _row(2, 16.0, **{"param.coalloc": True, "param.ctmr": True})]
    for pairing, expected in (("mean", 1 / 6), ("seed", 0.15)):
        pts = jones.points(rows, pairing)
        off = select(pts, coalloc=True, ctmr=False)[0]
        on = select(pts, coalloc=True, ctmr=True)[0]
        assert paired(off, on, 15.0)[0] == pytest.approx(expected), pairing
    assert on["improvement"] - off["improvement"] == pytest.approx(0.15)
    with pytest.raises(ConfigError, match="--paired"):
        jones.check(jones.Options(paired="median"))


def test_paired_option_reaches_the_figures(fixed, tmp_path):
    """The default (`--paired seed`) writes fig7's vs_opposite as the difference of the
    improvements at -e and +e, seed by seed; `--paired mean` rewrites it from the stored runs
    over Migration Only's mean turnaround, which is not that difference."""
    import shutil

    out = tmp_path / "mean"
    shutil.copytree(fixed, out)
    assert main(["paper", "jones", "fig7", "--out", str(out), "--per-cluster", "40",
                 "--jobs", "1", "--paired", "mean"]) == 0
    gaps = []
    for pairing, folder in (("seed", fixed), ("mean", out)):
        rows = {(r["ppbw"], r["error"]): r for r in read(folder / "fig7.csv")}
        for ppbw in ("150", "300", "400"):
            under, over = rows[(ppbw, "-1")], rows[(ppbw, "1")]
            diff = float(under["improvement"]) - float(over["improvement"])
            if pairing == "seed":
                assert float(under["vs_opposite"]) == pytest.approx(diff, abs=1e-5)
            else:
                gaps.append(abs(float(under["vs_opposite"]) - diff))
            assert float(under["vs_opposite"]) == -float(over["vs_opposite"])
    assert max(gaps) > 1e-4  # the two readings differ on these runs
    assert main(["paper", "jones", "fig7", "--out", str(tmp_path / "bad"), "--paired",
                 "median"]) == 2
