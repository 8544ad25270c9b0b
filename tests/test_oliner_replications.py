"""Seed 004's per-replication CSVs (fig6-10-replications.csv): a row per configuration and
replication whose mean is figN.csv's value, and the claims that pair two levels by seed (the
`flat` rule included)."""

from __future__ import annotations

import csv
from collections import defaultdict
from pathlib import Path

import pytest
from helpers import TRACES
from test_paper_oliner import needs_data

from ckptsim.cli import main
from ckptsim.experiments.papers.base import Claim
from ckptsim.experiments.papers.claims_table import evaluate_claim
from ckptsim.experiments.papers.oliner import CLAIMS
from ckptsim.experiments.papers.oliner.replications import METRICS, replication_rows


def _read(path: Path) -> list[dict[str, str]]:
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    needs_data()
    out = tmp_path_factory.mktemp("oliner-reps")
    common = ["--out", str(out), "--trace-dir", str(TRACES), "--traces", "LUBLIN-256",
              "--first", "150", "--levels", "0", "0.5", "--loads", "1", "1.2",
              "--replications", "3", "--jobs", "1"]
    assert main(["paper", "oliner", "balancing", *common]) == 0
    assert main(["paper", "oliner", "fig10", *common]) == 0
    return out


@pytest.mark.parametrize("figure", ["fig6", "fig8", "fig10"])
def test_a_row_per_configuration_and_replication_with_the_figure_means(tiny, figure):
    level = "accuracy" if figure == "fig10" else "confidence"
    means = _read(tiny / f"{figure}.csv")
    runs = _read(tiny / f"{figure}-replications.csv")
    assert len(means) == 2 * 2  # loads x levels
    assert len(runs) == len(means) * 3
    groups: dict[tuple[str, ...], list[dict[str, str]]] = defaultdict(list)
    for r in runs:
        groups[(r["trace"], r["load_scale"], r["failure_count"], r[level])].append(r)
    assert [sorted(int(r["seed"]) for r in g) for g in groups.values()] == [[1, 2, 3]] * 4
    for m in means:
        members = groups[(m["trace"], m["load_scale"], m["failure_count"], m[level])]
        assert m["seeds"] == "3"
        for metric in METRICS:
            mean = sum(float(r[metric]) for r in members) / 3
            assert mean == pytest.approx(float(m[metric]), rel=1e-5, abs=1e-9)


def test_rows_are_sorted_like_the_figure_and_keep_the_level_columns():
    rows = [{"workload": w, "workload.load_scale": c, "workload.failure_count": 10,
             "param.confidence": a, "seed": s, **{m: 1.0 for m in METRICS}}
            for s in (2, 1) for a in (0.5, 0.0) for c in (1.2, 1.0)
            for w in ("LUBLIN-256", "SDSC")]
    out = replication_rows(rows, "param.confidence", ["workload.failure_count"],
                           ["SDSC", "NASA", "LUBLIN-256"])
    keys = [(r["trace"], r["load_scale"], r["confidence"], r["seed"]) for r in out]
    assert keys[:4] == [("SDSC", 1.0, 0.0, 1), ("SDSC", 1.0, 0.0, 2), ("SDSC", 1.0, 0.5, 1),
                        ("SDSC", 1.0, 0.5, 2)]
    assert keys[-1] == ("LUBLIN-256", 1.2, 0.5, 2) and len(keys) == 16
    assert set(out[0]) == {"trace", "load_scale", "failure_count", "confidence", "seed",
                           *METRICS}


def _replications(folder: Path, values: dict[float, list[float]]) -> None:
    """fig6-replications.csv on LUBLIN-256, c = 1 and 1.2, a slowdown per level and seed
    (one trace: the claims' `by` trace has one part)."""
    with open(folder / "fig6-replications.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["trace", "load_scale", "failure_count", "confidence", "seed",
                    "mean_response_bsld"])
        for c in (1, 1.2):
            for a, ys in values.items():
                for seed, y in enumerate(ys, 1):
                    w.writerow(["LUBLIN-256", c, 1000, a, seed, y])


def _claim(words: str) -> Claim:
    return next(c for c in CLAIMS if words in c.statement and c.unit == "seed")


def test_pairing_decides_what_independent_intervals_cannot(tmp_path):
    # Replications far apart (1,000 ... 5,000), a = 0.1 20% below a = 0 in every one: paired,
    # exactly -20%, decided (outside [-1.5, -0.375]), though the two levels' own intervals
    # (+-1,960 and +-1,570 around 3,000 and 2,400) overlap.
    base = [1000.0, 2000.0, 3000.0, 4000.0, 5000.0]
    _replications(tmp_path, {0.0: base, 0.1: [0.8 * y for y in base]})
    line = evaluate_claim(_claim("balancing: 70-80%"), tmp_path)[0]
    assert line.ours == pytest.approx(-0.2) and line.n == 5
    assert line.ci_low == pytest.approx(-0.2) and line.verdict == "differs"


def test_flat_is_paired_per_replication(tmp_path):
    base = [1000.0, 2000.0, 3000.0, 4000.0, 5000.0]
    levels = {0.1: base, **{a: [y * (1 + 0.01 * (s % 2)) for s, y in enumerate(base)]
                            for a in (0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)}}
    _replications(tmp_path, {0.0: base, **levels})
    claim = _claim("confidence level matters little")
    line = evaluate_claim(claim, tmp_path)[0]
    assert line.verdict == "agrees" and line.n == 5
    assert 0.0 < line.ours < 0.01 and line.ci_low > -0.1 and line.ci_high < 0.1
    # The same values at each level, but not in the same replications: paired, the
    # differences spread far beyond 10%.
    _replications(tmp_path, {0.0: base, 0.1: base, 0.2: base[::-1], 0.3: base})
    assert evaluate_claim(claim, tmp_path)[0].verdict != "agrees"


def test_the_prediction_claims_read_the_replications():
    # Every claim on Figs. 6-10 pairs its levels per replication, on every trace.
    paired = [c for c in CLAIMS if c.unit]
    assert {c.csv for c in paired} == {f"fig{n}-replications" for n in range(6, 11)}
    assert all(c.unit == "seed" and (c.versus or c.rule == "flat") for c in paired)
    assert {c.csv for c in CLAIMS if not c.unit} == {"fig3", "fig4", "fig5"}
