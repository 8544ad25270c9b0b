"""The claims' rules on small hand-made CSVs: each verdict (agrees, differs, inconclusive,
not-run), no agreement on fewer than 3 replications, paired differences, parts, and the
`claims` command on a folder of its own."""

from __future__ import annotations

import csv
import math
import re
from pathlib import Path

import pytest

from ckptsim.experiments.papers.base import RULES, Between, Claim
from ckptsim.experiments.papers.claims import MIN_N, metric_value
from ckptsim.experiments.papers.claims_table import COLUMNS, evaluate_claim, number


def _csv(folder: Path, name: str, header: list[str], rows: list[list[object]]) -> None:
    with open(folder / f"{name}.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(header)
        w.writerows(rows)


def _one(claim: Claim, folder: Path):
    lines = evaluate_claim(claim, folder)
    assert len(lines) == 1
    return lines[0]


def _verdict(claim: Claim, folder: Path) -> str:
    return evaluate_claim(claim, folder)[0].verdict


def _margin(rule: str, margin: float) -> dict[str, float]:
    """`margin` for a `within` claim (which needs one), nothing for the other rules."""
    return {"margin": margin} if rule == "within" else {}


# ----------------------------------------------------------------------------- own intervals
@pytest.fixture
def means(tmp_path: Path) -> Path:
    """Rows that each carry a mean, its half-width and their replications."""
    _csv(tmp_path, "f", ["case", "x", "x_ci", "seeds"],
         [["a", 0.5, 0.1, 5], ["wide", 0.5, 0.4, 5], ["few", 0.5, 0.1, 2], ["one", 0.5, "", 1]])
    return tmp_path


@pytest.mark.parametrize(("case", "seed", "verdict"), [
    ("a", 0.4, "agrees"),          # [0.4, 0.6] inside [0.2, 0.8]
    ("a", 2.0, "differs"),         # [0.4, 0.6] below [1, 4]
    ("wide", 0.4, "inconclusive"),  # [0.1, 0.9] across 0.2 and 0.8
    ("few", 0.4, "inconclusive"),   # inside, but 2 replications
    ("one", 0.4, "inconclusive"),   # one run: no interval
    ("few", 5.0, "inconclusive"),   # outside, but 2 replications: no verdict either way
])
def test_factor_2(means: Path, case: str, seed: float, verdict: str):
    line = _one(Claim("s", seed, "f", ("x",), "factor-2", rows={"case": case}), means)
    assert line.verdict == verdict
    assert line.ours == 0.5 and line.n == {"a": 5, "wide": 5, "few": 2, "one": 1}[case]


def test_at_most_at_least_and_same_sign(means: Path):
    a = {"rows": {"case": "a"}}
    assert _verdict(Claim("s", 0.7, "f", ("x",), "at-most", **a), means) == "agrees"
    assert _verdict(Claim("s", 0.3, "f", ("x",), "at-most", **a), means) == "differs"
    assert _verdict(Claim("s", 0.5, "f", ("x",), "at-most", **a), means) == "inconclusive"
    assert _verdict(Claim("s", 0.3, "f", ("x",), "at-least", **a), means) == "agrees"
    assert _verdict(Claim("s", 0.7, "f", ("x",), "at-least", **a), means) == "differs"
    assert _verdict(Claim("s", 1.0, "f", ("x",), "same-sign", **a), means) == "agrees"
    assert _verdict(Claim("s", -1.0, "f", ("x",), "same-sign", **a), means) == "differs"
    wide = {"rows": {"case": "wide"}}
    assert _verdict(Claim("s", 0.05, "f", ("x",), "same-sign", **wide), means) == "agrees"
    assert _one(Claim("s", -1.0, "f", ("x",), "same-sign", **a), means).seed == "< 0"


@pytest.mark.parametrize(("values", "seed", "verdict"), [
    ((0, 0, 0), 1.0, "differs"),     # [0, 0]: exactly no difference is not "> 0"
    ((0, 0, 0), -1.0, "differs"),    # ... nor "< 0"
    ((1, 1, 1), 1.0, "agrees"),      # [1, 1]
    ((-1, -1, -1), 1.0, "differs"),  # [-1, -1]
])
def test_same_sign_of_identical_replications(tmp_path: Path, values, seed: float,
                                             verdict: str):
    _csv(tmp_path, "r", ["seed", "y"], [[i, v] for i, v in enumerate(values)])
    line = _one(Claim("s", seed, "r", ("y",), "same-sign", unit="seed"), tmp_path)
    assert (line.ci_low, line.ci_high, line.verdict) == (values[0], values[0], verdict)


@pytest.mark.parametrize(("mean", "seed", "verdict"), [
    (0.5, 1.0, "inconclusive"),   # [0, 1]: 0 is in the interval and is not "> 0"
    (0.5, -1.0, "differs"),       # [0, 1]: nothing below 0
    (-0.5, -1.0, "inconclusive"),  # [-1, 0]
    (-0.5, 1.0, "differs"),
])
def test_same_sign_of_an_interval_ending_at_zero(tmp_path: Path, mean: float, seed: float,
                                                 verdict: str):
    _csv(tmp_path, "f", ["x", "x_ci", "seeds"], [[mean, 0.5, 5]])
    assert _verdict(Claim("s", seed, "f", ("x",), "same-sign"), tmp_path) == verdict


@pytest.mark.parametrize("rule", ["within", "same-sign", "factor-2", "at-most", "at-least"])
def test_a_row_without_its_figure_decides_nothing(tmp_path: Path, rule: str):
    _csv(tmp_path, "f", ["x", "x_ci", "seeds"], [["", 0.1, 5]])  # an empty cell, an interval
    line = _one(Claim("s", 1.0, "f", ("x",), rule, **_margin(rule, 5.0)), tmp_path)
    assert math.isnan(line.ours) and line.verdict == "inconclusive"


def test_not_run(means: Path):
    assert _verdict(Claim("s", 0.4, "nothing", ("x",), "factor-2"), means) == "not-run"
    assert _verdict(Claim("s", 0.4, "f", ("x",), "factor-2", rows={"case": "zz"}),
                    means) == "not-run"
    line = _one(Claim("s", 0.4, "nothing", ("x",), "factor-2"), means)
    assert line.n == 0 and math.isnan(line.ours)


def test_not_run_when_the_compared_rows_or_columns_are_absent(means: Path):
    """A results folder being rewritten (or run at another size) lacks some rows or columns:
    those claims are not run, never an error."""
    grouped = Claim("s", (0.4, 0.5, 0.6), "f", ("x",), "factor-2", rows={"case": "zz"},
                    by="case")
    assert [line.verdict for line in evaluate_claim(grouped, means)] == ["not-run"]
    both = evaluate_claim(Claim("s", (0.4, 0.4), "f", ("x", "absent"), "factor-2",
                                rows={"case": "a"}), means)
    assert [line.verdict for line in both] == ["not-run", "agrees", "not-run"]
    assert both[2].n == 0 and math.isnan(both[2].ours)


def test_a_declaration_the_rules_cannot_compute_is_refused(means: Path):
    with pytest.raises(ValueError, match="unknown rule"):
        evaluate_claim(Claim("s", 0.4, "f", ("x",), "roughly"), means)
    with pytest.raises(ValueError, match="needs param"):
        evaluate_claim(Claim("s", 0.4, "f", ("x",), "best-at"), means)
    with pytest.raises(ValueError, match="rows where each carries its own mean"):
        evaluate_claim(Claim("s", 0.4, "f", ("x",), "factor-2"), means)  # 4 rows, no unit


# ----------------------------------------------------------------------------- replications
@pytest.fixture
def reps(tmp_path: Path) -> Path:
    """Per-replication rows: configurations a and b on seeds 1-4 (b = a + about 1)."""
    a = [10.0, 20.0, 30.0, 40.0]
    d = [1.0, 1.2, 0.8, 1.0]
    rows = [[s + 1, "a", a[s]] for s in range(4)] + [[s + 1, "b", a[s] + d[s]] for s in range(4)]
    _csv(tmp_path, "r", ["seed", "config", "y"], rows)
    return tmp_path


def test_within_over_replications(reps: Path):
    # 10, 20, 30, 40: mean 25, half-width 3.182 * 12.91 / 2 = 20.5: 4.5 ... 45.5.
    a = {"rows": {"config": "a"}, "unit": "seed"}
    line = _one(Claim("s", 40.0, "r", ("y",), "within", margin=50.0, **a), reps)
    assert line.n == 4 and line.ours == 25.0
    assert line.ci_low == pytest.approx(25 - 3.182 * 12.9099 / 2, rel=1e-4)
    assert line.verdict == "agrees" and line.seed == "40 \u00b1 50"  # inside -10 ... 90
    # 40 lies in the interval, but the interval reaches beyond 40 +- 25: it cannot tell
    assert _verdict(Claim("s", 40.0, "r", ("y",), "within", margin=25.0, **a),
                    reps) == "inconclusive"
    assert _verdict(Claim("s", 50.0, "r", ("y",), "within", margin=1.0, **a), reps) == "differs"
    few = {"config": "a", "seed": (1, 2)}  # 10, 20: inside the band, but two replications
    assert _verdict(Claim("s", 15.0, "r", ("y",), "within", margin=500.0, rows=few,
                          unit="seed"), reps) == "inconclusive"


@pytest.mark.parametrize(("mean", "half", "seed", "margin", "verdict"), [
    (1.5, 0.25, 1.5, 0.25, "agrees"),          # [1.25, 1.75]: exactly the band, ends included
    (1.5, 0.25, 1.5, 0.125, "inconclusive"),   # holds 1.5 but reaches beyond 1.375 ... 1.625
    (1.5, 1.0, 1.5, 0.25, "inconclusive"),     # a wide interval holding the seed: no agreement
    (1.5, 0.125, 1.75, 0.5, "agrees"),         # [1.375, 1.625] misses 1.75, within 1.25 ... 2.25
    (1.5, 0.25, 2.0, 0.25, "inconclusive"),    # its end 1.75 touches the band 1.75 ... 2.25
    (1.5, 0.25, 2.5, 0.25, "differs"),         # wholly below 2.25 ... 2.75
    (1.5, 0.25, 0.5, 0.25, "differs"),         # wholly above 0.25 ... 0.75
    (1.5, 0.0, 1.5, 0.0, "agrees"),            # margin 0: the seed's value exactly
    (1.5, 0.25, 1.5, 0.0, "inconclusive"),
    (1.5, 0.25, 2.0, 0.0, "differs"),          # margin 0: outside the interval differs
])
def test_within_is_an_equivalence_test_against_the_margin(tmp_path: Path, mean: float,
                                                         half: float, seed: float,
                                                         margin: float, verdict: str):
    _csv(tmp_path, "f", ["x", "x_ci", "seeds"], [[mean, half, 5]])
    line = _one(Claim("s", seed, "f", ("x",), "within", margin=margin), tmp_path)
    assert (line.ci_low, line.ci_high, line.verdict) == (mean - half, mean + half, verdict)


def test_within_takes_a_margin_per_part(tmp_path: Path):
    _csv(tmp_path, "f", ["x", "x_ci", "y", "y_ci", "seeds"], [[1.0, 0.5, 10.0, 0.5, 5]])
    lines = evaluate_claim(Claim("s", (1.0, 10.0), "f", ("x", "y"), "within",
                                 margin=(0.25, 1.0)), tmp_path)
    assert [(line.seed, line.verdict) for line in lines] == [
        ("", "inconclusive"), ("1 \u00b1 0.25", "inconclusive"), ("10 \u00b1 1", "agrees")]
    unrun = evaluate_claim(Claim("s", (1.0, 10.0), "none", ("x", "y"), "within", margin=0.5),
                           tmp_path)
    assert [line.seed for line in unrun] == ["1/10 \u00b1 0.5"]
    with pytest.raises(ValueError, match="3 margins for 2 metrics"):
        evaluate_claim(Claim("s", 1.0, "f", ("x", "y"), "within", margin=(1.0, 1.0, 1.0)),
                       tmp_path)


@pytest.mark.parametrize(("rule", "margin", "message"), [
    ("within", None, "rule 'within' needs a margin"),
    ("factor-2", 0.5, "margin belongs to rule 'within'; rule factor-2 takes none"),
    ("within", -0.1, "a margin is a finite number >= 0"),
    ("within", math.nan, "a margin is a finite number >= 0"),
    ("within", math.inf, "a margin is a finite number >= 0"),
    ("within", (), "a margin is a finite number >= 0"),
    ("in-ci", 0.5, r"unknown rule 'in-ci' \(in-ci is now named within\); known: .*within"),
    ("roughly", None, "unknown rule 'roughly'; known: "),
])
def test_within_without_a_margin_is_refused_where_it_is_declared(rule, margin, message):
    with pytest.raises(ValueError, match=message):
        Claim("s", 1.0, "f", ("x",), rule, margin=margin)


def test_every_within_claim_of_every_paper_states_its_margin():
    from ckptsim.experiments.papers.base import all_papers

    claims = [c for p in all_papers() for c in p.claims if c.rule == "within"]
    assert claims  # shi's
    assert all(c.margin is not None for c in claims)


def test_a_paired_difference_decides_what_two_intervals_cannot(reps: Path):
    paired = Claim("s", 1.0, "r", ("y",), "same-sign", versus=("config", "a", "b"), unit="seed")
    line = _one(paired, reps)
    assert line.ours == pytest.approx(1.0) and line.n == 4
    assert line.ci_low > 0 and line.verdict == "agrees"
    # The same configurations, each as its own mean: b's interval and a's overlap widely.
    for config in ("a", "b"):
        e = _one(Claim("s", 25.0, "r", ("y",), "within", rows={"config": config}, unit="seed",
                       margin=1.0), reps)
        assert e.ci_high - e.ci_low > 30
    relative = _one(Claim("s", 1.0, "r", ("y",), "same-sign", versus=("config", "a", "b"),
                          relative=True, unit="seed"), reps)
    assert relative.ours == pytest.approx((1 / 10 + 1.2 / 20 + 0.8 / 30 + 1 / 40) / 4)


def test_a_difference_of_two_rows_combines_their_intervals(tmp_path: Path):
    _csv(tmp_path, "d", ["config", "y", "y_ci95", "seeds"], [["a", 10, 3, 10], ["b", 14, 4, 10]])
    line = _one(Claim("s", 1.0, "d", ("y",), "same-sign", versus=("config", "a", "b")),
                tmp_path)
    assert (line.ours, line.ci_low, line.ci_high) == (4.0, -1.0, 9.0)  # 4 +- hypot(3, 4)
    assert line.verdict == "inconclusive"
    ratio = _one(Claim("s", 0.2, "d", ("y",), "factor-2", versus=("config", "a", "b"),
                       relative=True), tmp_path)
    assert ratio.ours == pytest.approx(0.4)
    assert ratio.ci_high - ratio.ours == pytest.approx(1.4 * math.hypot(0.3, 4 / 14))


def test_a_half_width_of_rounding_error_is_no_spread(tmp_path: Path):
    # Ten identical replications whose mean was summed with rounding errors: 1.07e-14.
    _csv(tmp_path, "e", ["config", "y", "y_ci95", "seeds"],
         [["a", 120.515, 1.0715e-14, 10], ["b", 120.515, 1.0715e-14, 10]])
    same = {"versus": ("config", "a", "b")}
    line = _one(Claim("s", 0.0, "e", ("y",), "at-least", **same), tmp_path)
    assert (line.ours, line.ci_low, line.ci_high, line.verdict) == (0, 0, 0, "agrees")
    assert _verdict(Claim("s", 1.0, "e", ("y",), "same-sign", **same), tmp_path) == "differs"
    _csv(tmp_path, "s", ["y", "y_ci95", "seeds"], [[0.5, 1e-9, 10]])  # small, but a spread
    assert _one(Claim("s", 0.5, "s", ("y",), "within", margin=0.0), tmp_path).ci_high \
        == 0.5 + 1e-9


def test_a_relative_change_to_nothing_has_an_interval(tmp_path: Path):
    # b's mean is 0 (-100%): its interval is b's half-width over a's mean, 0 +- 0.5 / 2
    _csv(tmp_path, "d", ["config", "y", "y_ci", "seeds"], [["a", 2, 0.1, 5], ["b", 0, 0.5, 5]])
    line = _one(Claim("s", -1.0, "d", ("y",), "same-sign", versus=("config", "a", "b"),
                      relative=True), tmp_path)
    assert (line.ours, line.ci_low, line.ci_high) == (-1.0, -1.25, -0.75)
    assert line.verdict == "agrees"
    _csv(tmp_path, "f", ["p", "y", "y_ci", "seeds"], [[1, 2, 0.1, 5], [2, 0, 0.5, 5]])
    flat = _one(Claim("s", 0.1, "f", ("y",), "flat", param="p", relative=True), tmp_path)
    assert (flat.ours, flat.ci_low, flat.ci_high, flat.verdict) == (-1.0, -1.25, -0.75,
                                                                    "differs")


def test_a_relative_change_from_nothing_is_left_out(tmp_path: Path):
    """A unit whose baseline is 0 has no relative change: it drops out of the pairs (n says
    how many count); a baseline row of 0 leaves nothing to grade."""
    _csv(tmp_path, "r", ["config", "seed", "y"],
         [["a", 1, 0], ["b", 1, 5], ["a", 2, 10], ["b", 2, 11], ["a", 3, 20], ["b", 3, 22],
          ["a", 4, 40], ["b", 4, 44]])
    line = _one(Claim("s", 1.0, "r", ("y",), "same-sign", versus=("config", "a", "b"),
                      relative=True, unit="seed"), tmp_path)
    assert line.n == 3 and line.ours == pytest.approx(0.1)
    assert line.verdict == "agrees"
    # The differences themselves are defined for every unit.
    assert _one(Claim("s", 1.0, "r", ("y",), "same-sign", versus=("config", "a", "b"),
                      unit="seed"), tmp_path).n == 4
    _csv(tmp_path, "d", ["config", "y", "y_ci95", "seeds"], [["a", 0, 0, 5], ["b", 4, 1, 5]])
    line = _one(Claim("s", 0.2, "d", ("y",), "factor-2", versus=("config", "a", "b"),
                      relative=True), tmp_path)
    assert math.isnan(line.ours) and line.verdict == "inconclusive"


# ----------------------------------------------------------------------------- shares
@pytest.mark.parametrize(("values", "seed", "verdict"), [
    ([-1, -2, -3, -4], 1.0, "agrees"),
    ([-1, -2, -3, 4], 1.0, "differs"),        # 3 of 4; Wilson upper bound below 1
    ([-1, -2, -3, 4], 0.7, "agrees"),
    ([-1, -2, 3, 4], 0.8, "inconclusive"),    # 2 of 4: 0.8 inside [0.15, 0.85]
    ([-1, -2, 3, 4], 0.9, "differs"),         # ... 0.9 above it
    ([-1, -2], 1.0, "inconclusive"),          # holds, but on 2 only
])
def test_share(tmp_path: Path, values: list[int], seed: float, verdict: str):
    _csv(tmp_path, "s", ["g", "v"], [[k, v] for k, v in enumerate(values)])
    line = _one(Claim("s", seed, "s", ("v",), "share"), tmp_path)
    assert line.verdict == verdict and line.n == len(values)
    assert line.ci_low <= line.ours <= line.ci_high


def test_share_of_paired_orderings_higher(reps: Path):
    claim = Claim("s", 1.0, "r", ("y",), "share", versus=("config", "a", "b"), unit="seed",
                  higher=True)
    assert _one(claim, reps).ours == 1.0 and _verdict(claim, reps) == "agrees"


# ----------------------------------------------------------------------------- swept rules
def _swept(folder: Path, points: list[tuple[float, float, float]]) -> None:
    _csv(folder, "p", ["x", "y", "y_ci", "seeds"], [[x, m, h, 5] for x, m, h in points])


@pytest.mark.parametrize(("points", "seed", "verdict"), [
    ([(1, 5, 1), (2, 8, 1), (3, 7.5, 1), (4, 2, 1)], 2.0, "agrees"),   # best 2, near 3
    ([(1, 5, 1), (2, 8, 1), (3, 7.5, 1), (4, 2, 1)], 1.0, "differs"),  # 1 is separable
    ([(1, 7, 1), (2, 8, 1), (3, 7.5, 1), (4, 2, 1)], 2.0, "inconclusive"),  # 1-3 inseparable
    # A seed's value between two swept ones (seed 003's ~55 min where 45 and 60 were run):
    # a best that holds one of the two is as near as the sweep can come to it.
    ([(1, 5, 0.1), (2, 8, 0.1), (3, 7, 0.1), (4, 2, 0.1)], 1.5, "agrees"),    # best 2 alone
    ([(1, 5, 1), (2, 8, 1), (3, 7.5, 1), (4, 2, 1)], 1.6, "agrees"),      # best 2, near 3
    ([(1, 5, 1), (2, 8, 1), (3, 7.5, 1), (4, 2, 1)], 3.5, "agrees"),      # 3 brackets 3.5
    ([(1, 5, 0.1), (2, 8, 0.1), (3, 7, 0.1), (4, 2, 0.1)], 3.5, "differs"),   # 3, 4 not best
    ([(1, 5, 0.1), (2, 8, 0.1), (3, 7, 0.1), (4, 2, 0.1)], 0.5, "differs"),   # below the sweep
])
def test_best_at(tmp_path: Path, points, seed: float, verdict: str):
    _swept(tmp_path, points)
    line = _one(Claim("s", seed, "p", ("y",), "best-at", param="x", higher=True), tmp_path)
    assert line.ours == 2.0 and line.verdict == verdict


def test_crossing(tmp_path: Path):
    _swept(tmp_path, [(0, 3, 0.5), (1, 2, 0.5), (2, 1, 0.5), (3, -1, 0.5), (4, -2, 0.5)])
    line = _one(Claim("s", 2.5, "p", ("y",), "crossing", param="x"), tmp_path)
    assert (line.ours, line.ci_low, line.ci_high, line.verdict) == (2.5, 2.0, 3.0, "agrees")
    assert _verdict(Claim("s", 4.0, "p", ("y",), "crossing", param="x"), tmp_path) == "differs"
    _swept(tmp_path, [(0, 3, 0.5), (1, 2, 0.5)])  # never crosses, decided
    assert _verdict(Claim("s", 4.0, "p", ("y",), "crossing", param="x"), tmp_path) == "differs"


@pytest.mark.parametrize(("points", "tolerance", "verdict"), [
    ([(1, 10, 1), (2, 10.5, 1), (3, 10.2, 1)], 3.0, "agrees"),
    ([(1, 10, 1), (2, 10.5, 1), (3, 10.2, 1)], 0.1, "inconclusive"),
    ([(1, 10, 1), (2, 10.5, 1), (3, 20, 1)], 3.0, "differs"),
])
def test_flat(tmp_path: Path, points, tolerance: float, verdict: str):
    _swept(tmp_path, points)
    line = _one(Claim("s", tolerance, "p", ("y",), "flat", param="x"), tmp_path)
    assert line.verdict == verdict and line.seed == f"\u00b1 {number(tolerance)}"


# ----------------------------------------------------------------------------- parts
def test_parts_agree_only_if_every_part_agrees(tmp_path: Path):
    _csv(tmp_path, "m", ["trace", "u", "u_ci", "w", "w_ci", "seeds"],
         [["A", 0.5, 0.1, 0.5, 0.1, 5], ["B", 0.5, 0.1, 0.5, 0.6, 5]])
    both = Claim("s", (0.4, 0.4), "m", ("u", "w"), "factor-2", rows={"trace": "A"})
    head, u, w = evaluate_claim(both, tmp_path)
    assert (head.claim, u.claim, w.claim) == ("s", "s [u]", "s [w]")
    assert head.verdict == "agrees" and math.isnan(head.ours)
    per_trace = Claim("s", 0.4, "m", ("w",), "factor-2", by="trace")
    head, a, b = evaluate_claim(per_trace, tmp_path)
    assert (a.verdict, b.verdict, head.verdict) == ("agrees", "inconclusive", "inconclusive")
    assert b.claim == "s [trace B]"
    head, *_ = evaluate_claim(Claim("s", (0.4, 5.0), "m", ("w",), "factor-2", by="trace"),
                              tmp_path)
    assert head.verdict == "differs"  # trace B's seed 5: [-0.1, 1.1] below [2.5, 10]


def test_seed_values_named_by_part_grade_the_parts_that_were_run(tmp_path: Path):
    # Only trace B was run: its own seed value (5) grades it, not the first one declared.
    _csv(tmp_path, "m", ["trace", "w", "w_ci", "seeds"], [["B", 0.5, 0.6, 5]])
    named = Claim("s", (0.4, 5.0, 9.0), "m", ("w",), "factor-2", by="trace",
                  by_values=("A", "B", "C"))
    (line,) = evaluate_claim(named, tmp_path)
    assert line.claim == "s [trace B]" and line.seed == "5" and line.verdict == "differs"
    with pytest.raises(ValueError, match="3 seed values for 1 metrics and 1 parts"):
        evaluate_claim(Claim("s", (0.4, 5.0, 9.0), "m", ("w",), "factor-2", by="trace"),
                       tmp_path)
    _csv(tmp_path, "m", ["trace", "w", "w_ci", "seeds"], [["D", 0.5, 0.1, 5]])
    (line,) = evaluate_claim(named, tmp_path)
    assert line.verdict == "not-run"
    with pytest.raises(ValueError, match="by_values needs by"):
        evaluate_claim(Claim("s", (0.4, 5.0), "m", ("w",), "factor-2", by="trace",
                             by_values=("A", "B", "C")), tmp_path)


def test_never_agrees_on_fewer_than_three(tmp_path: Path):
    _csv(tmp_path, "n", ["k", "y", "y_ci", "seeds"], [[n, 1.0, 0.01, n] for n in range(1, 6)])
    for n in range(1, 6):
        for rule, seed in (("factor-2", 1.0), ("within", 1.0), ("same-sign", 1.0),
                           ("at-most", 1.5), ("at-least", 0.5)):
            line = _one(Claim("s", seed, "n", ("y",), rule, rows={"k": n},
                              **_margin(rule, 0.1)), tmp_path)
            assert line.verdict == ("agrees" if n >= MIN_N else "inconclusive"), (rule, n)
            # ... nor differs: the same figures against a seed far outside them.
            far = {"factor-2": 10.0, "within": 2.0, "same-sign": -1.0, "at-most": 0.5,
                   "at-least": 1.5}[rule]
            line = _one(Claim("s", far, "n", ("y",), rule, rows={"k": n},
                              **_margin(rule, 0.1)), tmp_path)
            assert line.verdict == ("differs" if n >= MIN_N else "inconclusive"), (rule, n)


def test_a_share_of_fewer_than_three_units_decides_nothing(tmp_path: Path):
    _csv(tmp_path, "t", ["trace", "y"], [["A", -1.0], ["B", -2.0], ["C", -3.0]])
    for traces, verdict in ((("A", "B"), "inconclusive"), (("A", "B", "C"), "differs")):
        line = _one(Claim("s", 1.0, "t", ("y",), "share", rows={"trace": traces},
                          unit="trace", higher=True), tmp_path)
        assert (line.n, line.ours, line.verdict) == (len(traces), 0.0, verdict)


def test_metric_expressions_and_row_ranges(tmp_path: Path):
    row = {"a": "3", "b": "2"}
    assert metric_value(row, "a - b") == 1.0 and metric_value(row, "a / b") == 0.5
    assert metric_value(row, "a - 1") == 2.0 and math.isnan(metric_value(row, "c"))
    _csv(tmp_path, "q", ["day", "load"], [[d, d / 10] for d in range(10)])
    line = _one(Claim("s", 0.5, "q", ("load - 0.45",), "share",
                      rows={"day": Between(2, 7)}), tmp_path)
    assert (line.n, line.ours) == (6, 0.5)  # days 2-7; loads 0.2, 0.3, 0.4 at or below 0.45


def test_number_format():
    assert [number(x) for x in (0.0, 1234.5, 0.123456, -0.0009876, 12.0, math.nan)] == [
        "0", "1234", "0.123", "-0.000988", "12", ""]


def test_every_rule_is_documented():
    assert set(RULES) == {"within", "same-sign", "factor-2", "at-most", "at-least", "flat",
                          "share", "best-at", "crossing"}


@pytest.mark.parametrize("rule", sorted(RULES))
def test_every_rule_says_when_it_is_inconclusive(rule: str):
    assert all(v in RULES[rule] for v in ("agrees", "differs", "inconclusive"))


# ----------------------------------------------------------------------------- the command
def test_the_claims_command_on_a_folder_of_its_own(tmp_path: Path, capsys):
    from ckptsim.cli import main

    folder = tmp_path / "shi"
    folder.mkdir()
    _csv(folder, "table3", ["seed", "interarrival_s"], [[1, 850], [2, 880], [3, 870]])
    out1, out2 = tmp_path / "a.csv", tmp_path / "b.csv"
    assert main(["paper", "shi", "claims", "--out", str(folder), "--csv", str(out1)]) == 0
    assert main(["paper", "shi", "claims", "--out", str(folder), "--csv", str(out2)]) == 0
    assert out1.read_bytes() == out2.read_bytes()
    with open(out1, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert tuple(rows[0]) == COLUMNS
    inter = next(r for r in rows if r["claim"].startswith("Table 3: mean inter-arrival"))
    # 869 lies in 829 ... 905, far wider than the thesis's whole seconds: no agreement
    assert inter == {"claim": "Table 3: mean inter-arrival time 869 s (the thesis's five seeds)",
                     "seed": "869 \u00b1 0.5",
                     "ours": "867", "n": "3", "ci_low": "829", "ci_high": "905",
                     "rule": "within", "verdict": "inconclusive"}
    assert {r["verdict"] for r in rows if r is not inter} == {"not-run"}
    printed = capsys.readouterr().out
    assert "inconclusive" in printed and "not-run" in printed


@pytest.mark.parametrize("width", [60, 80, 200])
def test_the_claims_command_prints_every_claim_whole_with_its_verdict(
        tmp_path: Path, capsys, monkeypatch, width):
    """At any width: a wide terminal gets the table; a narrow one (or output into a file,
    80 columns) one claim a line with its figures below, never a claim squeezed into a
    column a few letters wide or the verdicts cut off at the right."""
    from ckptsim.cli import main

    folder = tmp_path / "shi"
    folder.mkdir()
    _csv(folder, "table3", ["seed", "interarrival_s"], [[1, 850], [2, 880], [3, 870]])
    monkeypatch.setenv("COLUMNS", str(width))
    table = tmp_path / "claims.csv"
    assert main(["paper", "shi", "claims", "--out", str(folder), "--csv", str(table)]) == 0
    printed = capsys.readouterr().out
    with open(table, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    lines = printed.splitlines()
    assert lines[-1] == f"{table}: {len(rows)} rows"
    lines = lines[:-1]
    assert max(len(line) for line in lines) <= width
    if width == 200:
        assert "┃ verdict" in printed
        assert sum(re.search(r"not-run +│$", line.rstrip()) is not None
                   for line in lines) == len(rows) - 1
    else:
        words = " ".join(printed.split())
        for row in rows:
            assert " ".join(row["claim"].split()) in words, row["claim"]
        assert words.count("not-run: ours -") == len(rows) - 1
        assert ("inconclusive: ours 867 (n 3, 95% CI 829 ... 905), seed 869 \u00b1 0.5, "
                "rule within") in words


@pytest.mark.parametrize(("argv", "message"), [
    (["paper", "nope", "claims", "--out", "."], "paper: unknown paper 'nope'; accepted: niu"),
    (["paper", "shi", "claims", "--out", "/no/such/dir"], "--out: /no/such/dir is not a folder"),
    (["paper", "shi", "claims", "--out", ".", "--first", "3"],
     "--first: does not apply to shi claims; shi claims accepts --out, --csv"),
    (["paper", "shi", "fig11", "--out", ".", "--csv", "x.csv"], "--csv: does not apply to shi"),
])
def test_the_claims_command_refuses_in_one_line(argv, message, capsys):
    from ckptsim.cli import main

    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"ckptsim: error: {message}") and err.count("\n") == 1
