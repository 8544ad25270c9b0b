"""Seed 003's figures: the specs of the families, the benefit per replication, the figure
commands end to end on a tiny pool, and the refusals of bad arguments."""

from __future__ import annotations

import csv
import math
from pathlib import Path

import pytest

from ckptsim.cli import main
from ckptsim.errors import ConfigError
from ckptsim.experiments.papers.forshaw import experiments as fw
from ckptsim.experiments.papers.forshaw.figures import reduce
from ckptsim.experiments.papers.forshaw.tables import TABLES
from ckptsim.experiments.sweep import plan_sweep
from ckptsim.metrics.htc import benefit

TRACE = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "failures" / \
    "availability_godfrey" / "microsoft.avt.gz"


def read(path: Path) -> list[dict[str, str]]:
    return list(csv.DictReader(open(path)))


def test_benefit_is_the_seeds_equation_5():
    # v_none = 10, v_opt = 2: a policy at 6 achieves half of the possible gain.
    assert benefit(6.0, 10.0, 2.0) == 0.5
    assert benefit(2.0, 10.0, 2.0) == 1.0 and benefit(10.0, 10.0, 2.0) == 0.0
    assert benefit(14.0, 10.0, 2.0) == -0.5  # worse than not checkpointing
    assert math.isnan(benefit(3.0, 4.0, 4.0))  # no gain to share
    assert math.isnan(benefit(math.nan, 4.0, 2.0))


def test_policy_strings_of_the_figures():
    assert fw.policy("none", 1) == "none"
    assert fw.policy("opt", 4) == "opt:cost=240"
    assert fw.policy("fixed", 1, 30) == "fixed:interval=1800,cost=60"
    assert fw.policy("ccsr", 4, 60) == "fixed:interval=3600,cost=240+closedcluster+scheduled"
    assert fw.policy("ratio", 2, 0.04) == "ratio:p=0.04,cost=120"
    assert fw.policy("startdelay", 1, 90, 60) == "startdelay:interval=3600,delay=5400,cost=60"


def test_every_family_spec_is_valid_and_counts_its_runs(tmp_path):
    opt = fw.Options(days=2, replications=2, trace=str(tmp_path / "x.avt"))
    (tmp_path / "x.avt").write_text("0 1 0 3600\n")
    for family in fw.FAMILIES:
        path = tmp_path / f"{family}.toml"
        path.write_text(fw.spec_text(family, opt))
        runs = plan_sweep(path).runs
        assert len(runs) == fw.runs_of(family, opt), family
        assert len({r.run_id for r in runs}) == len(runs)
    assert fw.runs_of("all", opt) == sum(fw.runs_of(f, opt) for f in fw.FAMILIES)


def test_the_default_trace_is_named_relative_to_the_trace_folder(tmp_path):
    # The default .avt, found beside the trace folder, is written as the sweep resolves it
    # (against the trace folder), so the committed spec runs on another machine; a trace given
    # by its own path is written as it is.
    traces, avt = tmp_path / "data" / "traces", tmp_path / "data" / "failures" / "m.avt"
    traces.mkdir(parents=True)
    avt.parent.mkdir()
    avt.write_text("0 1 0 3600\n")
    opt = fw.Options(days=2, replications=2, trace=str(avt), trace_dir=str(traces))
    text = fw.spec_text("trace", opt)
    assert 'trace = "avt:path=../failures/m.avt,map=random"' in text
    path = tmp_path / "out" / "trace.toml"
    path.parent.mkdir()
    path.write_text(text)
    assert len(plan_sweep(path, trace_dir=traces).runs) == fw.runs_of("trace", opt)
    alone = fw.spec_text("trace", fw.Options(days=2, replications=2, trace=str(avt)))
    assert f'avt:path={avt},map=random' in alone


def test_none_and_opt_runs_are_shared_by_the_families(tmp_path):
    opt = fw.Options(days=2, replications=2)
    ids = {}
    for family in ("baseline", "fixed"):
        path = tmp_path / f"{family}.toml"
        path.write_text(fw.spec_text(family, opt))
        ids[family] = {r.run_id for r in plan_sweep(path).runs}
    assert ids["baseline"] <= ids["fixed"]  # None and Opt 1..4 min: run once for both


def _row(policy: str, seed: int, overhead: float, energy: float, util: float) -> dict:
    return {"status": "ok", "workload.checkpoint": policy, "seed": seed,
            fw.OVERHEAD: overhead * 60.0, fw.ENERGY: energy * 1000.0, fw.UTILISATION: util}


def test_benefit_is_paired_by_replication():
    """Seed 1: None 20 min, Opt 10 min, C(30) 15 min -> 0.5; seed 2: None 40, Opt 20, C(30)
    25 -> 0.75.  Mean 0.625, 95% interval t(0.975, 1) * s / sqrt(2) = 12.706 * 0.125."""
    c30 = fw.policy("fixed", 1, 30)
    rows = [_row("none", 1, 20, 4, 0), _row("opt:cost=60", 1, 10, 2, 1), _row(c30, 1, 15, 3, .1),
            _row("none", 2, 40, 8, 0), _row("opt:cost=60", 2, 20, 4, 1), _row(c30, 2, 25, 5, .3)]
    pts = {p["policy"]: p for p in reduce(rows, "fixed")}
    p = pts[c30]
    assert p["benefit_overhead_min"] == pytest.approx(0.625)
    assert p["benefit_overhead_min_ci"] == pytest.approx(12.706 * 0.125)
    assert p["benefit_energy_mwh"] == pytest.approx(0.625)  # 0.5 and 0.75 again
    assert p["utilisation"] == pytest.approx(0.2) and p["overhead_min"] == pytest.approx(20)
    assert pts["none"]["benefit_overhead_min"] == 0.0
    assert pts["opt:cost=60"]["benefit_overhead_min"] == 1.0
    assert p["seeds"] == 2 and (p["kind"], p["d"], p["value"]) == ("fixed", 1, 30)


def test_the_trace_figure_writes_its_paired_benefit_intervals(tmp_path):
    """The same two replications as above, as the trace figure's C(60): its row in trace.csv
    and the page's table carry the paired interval of each benefit."""
    from ckptsim.experiments.papers.forshaw.figures import FIGURE_MAKERS

    c60 = fw.policy("fixed", 1, 60)
    rows = [_row("none", 1, 20, 4, 0), _row("opt:cost=60", 1, 10, 2, 1), _row(c60, 1, 15, 3, .1),
            _row("none", 2, 40, 8, 0), _row("opt:cost=60", 2, 20, 4, 1), _row(c60, 2, 25, 5, .3)]
    FIGURE_MAKERS["trace"](reduce(rows, "trace"), tmp_path)
    assert (tmp_path / "trace.png").stat().st_size > 10_000  # levels and paired benefits
    got = {r["policy"]: r for r in read(tmp_path / "trace.csv")}
    assert float(got["C(60) 1 min"]["benefit_overhead_min"]) == pytest.approx(0.625)
    assert float(got["C(60) 1 min"]["benefit_overhead_min_ci"]) == pytest.approx(
        12.706 * 0.125, rel=1e-5)
    assert float(got["None"]["benefit_energy_mwh_ci"]) == 0.0
    # Overhead 15 and 25 min: 20 ± 12.706 * 5; energy 3 and 5 MWh: 4 ± 12.706 * 1.
    assert "| C(60) 1 min | 20.00 ± 63.53 | 4.000 ± 12.706 | 0.62 ± 1.59 | 0.62 ± 1.59 | " \
           "0.200 |" in TABLES["trace"](tmp_path)


@pytest.fixture(scope="module")
def baseline(tmp_path_factory):
    out = tmp_path_factory.mktemp("forshaw")
    assert main(["paper", "forshaw", "baseline", "--out", str(out), "--days", "1",
                 "--replications", "2", "--platform", "smallpool", "--jobs", "1"]) == 0
    return out


def test_baseline_family_writes_figures_4_and_5(baseline, capsys):
    for fig, stem in (("fig4", "overhead_min"), ("fig5", "energy_mwh")):
        rows = read(baseline / f"{fig}.csv")
        assert [r["policy"] for r in rows] == ["None", "Opt 1 min", "Opt 2 min", "Opt 3 min",
                                               "Opt 4 min"]
        assert all(int(r["seeds"]) == 2 and float(r[stem]) >= 0 for r in rows)
        assert (baseline / f"{fig}.png").stat().st_size > 10_000
    assert TABLES["fig4"](baseline).count("\n") == 2 + 5
    again = main(["paper", "forshaw", "fig4", "--out", str(baseline), "--days", "1",
                  "--replications", "2", "--platform", "smallpool", "--jobs", "1"])
    assert again == 0  # every run already in the store
    assert f"10 runs (10 already in {baseline}/store, reused; 0 to run)" in capsys.readouterr().out


def test_bad_arguments(tmp_path, capsys):
    with pytest.raises(ConfigError, match="unknown figure 'fig13'"):
        fw.family_of("fig13")
    for argv, msg in (
            (["fig13"], "accepted: fig4"),
            (["fig6", "--days", "0"], "--days: expected a number of days >= 1"),
            (["fig6", "--replications", "1"], "--replications: expected >= 2"),
            (["fig6", "--first", "10"], "--first: does not apply to forshaw"),
            (["fig6", "--full", "--days", "3"], "--full: give --full"),
            (["trace", "--availability-trace", str(tmp_path / "none.avt")],
             "--availability-trace: no such file")):
        assert main(["paper", "forshaw", *argv, "--out", str(tmp_path / "o")]) == 2, argv
        assert msg in capsys.readouterr().err, argv
    assert main(["paper", "niu", "fig2", "--out", str(tmp_path / "n"), "--days", "3"]) == 2
    assert "--days: does not apply to niu" in capsys.readouterr().err
