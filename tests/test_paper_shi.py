"""Seed 002's Table 3 and figures: every figure runs end to end on small workloads (the real
traces' parts are skipped when ../shared/data is absent), and Table 3 of full-size workloads
agrees with the thesis's."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from helpers import TRACES, trace

from ckptsim.cli import main
from ckptsim.errors import ConfigError
from ckptsim.experiments.papers.shi import experiments as shi
from ckptsim.experiments.papers.shi.figures import THESIS_TABLE3
from ckptsim.experiments.sweep import plan_sweep

SMALL = ["--first", "300", "--ci-seeds", "6", "--jobs", "2"]


def read(path: Path) -> list[dict[str, str]]:
    return list(csv.DictReader(open(path)))


@pytest.fixture(scope="module")
def figures(tmp_path_factory):
    for name in shi.TRACES.values():
        trace(name)
    out = tmp_path_factory.mktemp("shi")
    assert main(["paper", "shi", "all", "--out", str(out), "--trace-dir", str(TRACES),
                 *SMALL]) == 0
    return out


def test_every_figure_writes_csv_and_png(figures):
    for figure in shi.FIGURES:
        assert read(figures / f"{figure}.csv"), figure
        assert (figures / f"{figure}.png").stat().st_size > 10_000
    assert (figures / "lublin.toml").exists() and (figures / "traces.toml").exists()


def test_table3_shares_add_up(figures):
    for r in read(figures / "table3.csv"):
        for key in ("jobs", "work"):
            total = sum(float(r[f"{key}_{c}_pct"]) for c in ("short", "medium", "long"))
            assert total == pytest.approx(100.0, abs=1e-3)  # 6 significant digits each
        assert float(r["thesis_interarrival_s"]) == THESIS_TABLE3[int(r["seed"])][3]


def test_cases_differ_only_by_checkpoints_and_migrations(figures):
    rows = read(figures / "traces.csv")
    assert {r["trace"] for r in rows} == set(shi.TRACES)
    for r in rows:
        assert int(r["checkpoints_original"]) == 0 and int(r["migrations_original"]) == 0
        assert int(r["migrations_checkpoint"]) == 0  # migration = false
        assert int(r["migrations_checkpoint_keep"]) == 0
    for figure in shi.SEED_FIGURES:
        table = read(figures / f"{figure}.csv")
        assert {(r["class"], r["size_class"]) for r in table} == {
            (c, s) for c in ("long", "medium") for s in ("narrow", "midsize", "wide", "all")}
        for r in table:
            if r["arrt_checkpoint"] not in ("nan", ""):
                ckpt, mig = float(r["arrt_checkpoint"]), float(r["arrt_migration"])
                assert float(r["gain_migration_pct"]) == pytest.approx(
                    100 * (ckpt - mig) / ckpt, rel=1e-3, abs=1e-3)
            if r["arrt_checkpoint_keep"] not in ("nan", ""):
                keep, mig = float(r["arrt_checkpoint_keep"]), float(r["arrt_migration"])
                assert float(r["gain_vs_keep_pct"]) == pytest.approx(
                    100 * (keep - mig) / keep, rel=1e-3, abs=1e-3)
            # a relative response time is at least 1 (response >= runtime)
            for case in ("original", "checkpoint", "checkpoint_keep", "migration"):
                value = float(r[f"arrt_{case}"])
                assert value != value or value >= 1.0 - 1e-9


def test_fig16_means_are_over_the_seeds(figures):
    rows = read(figures / "fig16.csv")
    per_seed = [r for r in rows if r["seed"].isdigit()]
    assert [int(r["seed"]) for r in per_seed[:5]] == list(shi.THESIS_SEEDS)
    assert len(per_seed) == 6
    thesis_row = next(r for r in rows if r["seed"] == "thesis seeds")
    mean = sum(float(r["gain_long_pct"]) for r in per_seed[:5]) / 5
    assert float(thesis_row["gain_long_pct"]) == pytest.approx(mean, rel=1e-4, abs=1e-4)
    assert float(next(r for r in rows if r["seed"] == "6 seeds")["gain_medium_ci95"]) >= 0
    for key in ("gain_long_vs_keep_pct", "pooled_gain_medium_pct"):
        mean = sum(float(r[key]) for r in per_seed[:5]) / 5
        assert float(thesis_row[key]) == pytest.approx(mean, rel=1e-4, abs=1e-4)


def test_arrivals_are_the_seeds_of_fig16(figures):
    rows = read(figures / "arrivals.csv")
    per_seed = [r for r in rows if r["seed"].isdigit()]
    assert [int(r["seed"]) for r in per_seed] == [
        int(r["seed"]) for r in read(figures / "fig16.csv") if r["seed"].isdigit()]
    assert [int(r["thesis_seed"]) for r in per_seed] == [1] * 5 + [0]
    every = next(r for r in rows if r["seed"] == "6 seeds")
    mean = sum(float(r["interarrival_s"]) for r in per_seed) / 6
    assert float(every["interarrival_s"]) == pytest.approx(mean, rel=1e-4)
    assert all(0 < float(r["load"]) for r in per_seed)


def test_rerun_reuses_the_store_and_gives_the_same_csv(figures, capsys):
    before = (figures / "fig16.csv").read_bytes()
    assert main(["paper", "shi", "fig16", "--out", str(figures), *SMALL]) == 0
    assert "0 runs simulated" in capsys.readouterr().out
    assert (figures / "fig16.csv").read_bytes() == before


def test_specs_hold_the_run_matrix(tmp_path):
    trace(shi.TRACES["SDSC-SP2"])
    opt = shi.Options(trace_dir=TRACES)
    seeds = opt.seeds(["fig16"])
    assert seeds[:5] == list(shi.THESIS_SEEDS) and len(set(seeds)) == 30
    for family, n in (("lublin", 30 * 4), ("traces", 2 * 4)):
        path = tmp_path / f"{family}.toml"
        path.write_text(shi.spec_text(family, opt, seeds))
        assert len(plan_sweep(path, trace_dir=TRACES).runs) == n
    assert shi.runs_of("all", opt) == 128
    assert shi.runs_of("fig11", opt) == 4


def test_table3_agrees_with_the_thesis():
    """10,000-job workloads: the class mix and sizes within a few points of Table 3 (the seeds'
    random streams are not the thesis's, so each seed is compared with the thesis's mean)."""
    rows = shi.table3_rows(shi.Options())
    for key, tol in (("jobs_short_pct", 2.5), ("jobs_medium_pct", 2.0), ("jobs_long_pct", 2.0),
                     ("work_long_pct", 4.0), ("size_short", 1.0), ("size_medium", 2.0),
                     ("size_long", 3.0)):
        cls = ("short", "medium", "long").index(key.split("_")[1])
        part = {"jobs": 0, "work": 1, "size": 2}[key.split("_")[0]]
        thesis = sum(v[part][cls] for v in THESIS_TABLE3.values()) / len(THESIS_TABLE3)
        for r in rows:
            assert abs(r[key] - thesis) <= tol, (key, r["seed"], r[key], thesis)


def test_bad_arguments(tmp_path, capsys):
    with pytest.raises(ConfigError, match="unknown figure 'fig3' of shi"):
        shi.wanted_figures("fig3")
    assert main(["paper", "shi", "fig17", "--out", str(tmp_path)]) == 2
    assert "accepted: table3, arrivals, fig11, fig12" in capsys.readouterr().err
    assert main(["paper", "shi", "fig16", "--out", str(tmp_path), "--ci-seeds", "1"]) == 2
    assert "--ci-seeds: expected at least 2 seeds" in capsys.readouterr().err
    with pytest.raises(ConfigError, match="--trace-dir"):
        shi.run_figures("traces", tmp_path, shi.Options(trace_dir=tmp_path))
    with pytest.raises(ConfigError, match="unknown trace 'LLNL'"):
        shi.run_figures("traces", tmp_path, shi.Options(traces=("LLNL",)))


PAGE = Path(__file__).resolve().parents[1] / "docs" / "results" / "shi.md"


@pytest.mark.parametrize("spec", sorted((PAGE.parent / "shi" / "choices").glob("*.toml")),
                         ids=lambda p: p.name)
def test_the_modelling_choices_specs_load(spec):
    """The page's commands `ckptsim sweep docs/results/shi/choices/NAME.toml` (open.toml sets
    the three shares together)."""
    from ckptsim.experiments.spec import load_spec

    assert load_spec(spec).schedulers


def test_modelling_choices_name_what_the_thesis_leaves_open():
    """Each setting the runs take where the thesis gives no value, or prints another, is named
    in the page's modelling choices with a spec that measures it."""
    text = PAGE.read_text()
    section = text.split("## Modelling choices", 1)[1].split("\n## ", 1)[0]
    for name in ("without_migration", "interval_size", "ratio_low", "reading=literal", "cycle",
                 "share_medium", "backfill=conservative", "empty_slice", "mem_high",
                 "choices/open.toml", "choices/literal.toml", "choices/constants.toml",
                 "rrt_runtime=span", "choices/span.toml", "preempt_all", "reserve_first",
                 "t_restart=0 t_min=2", "choices/wording.toml", "choices/wording30.toml",
                 "choices/verdicts.py", "nodes=unclaimed", "choices/nodes.toml",
                 "choices/nodes30.toml"):
        assert name in section, name
