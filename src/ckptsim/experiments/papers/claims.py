"""The verdicts of a paper's claims, computed from the CSVs of its results folder.

Each `Claim` (papers/base.py) names its CSVs, rows and metrics; `evaluate` reads them and, for
each part of the claim (a metric, or a metric on one value of `by`), computes our figure, the
number of replications (or workload seeds, or traces) behind it and its 95% interval, then
the verdict by the claim's rule (`RULES`): `agrees`, `differs`, `inconclusive` (the interval
cannot decide) or `not-run` (the CSV or its rows are absent).  No part agrees or differs on
fewer than `MIN_N` replications.  `claims_table` makes the table of a paper's claims from them.

Our figure and its interval come from one of:

- rows that each carry a mean, its 95% half-width (`METRIC_ci` / `METRIC_ci95`; one at most
  1e-12 of the mean, the rounding error of identical replications, read as 0) and their
  number of replications (`seeds`, `replications` or `METRIC_n`; none: one run);
- rows that are each one replication (`Claim.unit` names them): the t interval of their mean
  (`stats.mean_ci`);
- a difference between two configurations (`Claim.versus`): per replication and then
  averaged where the rows are replications (paired), else from the two rows' own intervals
  taken as independent (half-widths added in quadrature; for a ratio, relative half-widths).

The functions are pure: CSV rows in, figures and verdicts out.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ckptsim.experiments.papers.base import Between, Claim
from ckptsim.experiments.stats import Z975, mean_ci
from ckptsim.experiments.stats import change as _change

VERDICTS = ("agrees", "differs", "inconclusive", "not-run")
#: No claim agrees or differs on fewer replications (or traces, or seeds) than this.
MIN_N = 3
NAN = math.nan
#: A row's half-width at most this share of its mean is the rounding error of a mean of
#: identical replications (e.g. 1.07e-14 on 120.515), not a spread: it is read as 0.
NOISE = 1e-12
CsvRow = dict[str, str]


@dataclass(frozen=True)
class Estimate:
    """A mean, the half-width of its 95% interval (NaN: unknown) and the replications behind."""

    mean: float
    half: float
    n: int

    @property
    def low(self) -> float:
        return self.mean - self.half

    @property
    def high(self) -> float:
        return self.mean + self.half


@dataclass(frozen=True)
class Line:
    """One row of a claims table."""

    claim: str
    seed: str
    ours: float
    n: int
    ci_low: float
    ci_high: float
    rule: str
    verdict: str


# ----------------------------------------------------------------------------- reading
def read_rows(folder: Path, claim: Claim) -> list[CsvRow] | None:
    """The rows of the claim's CSVs in `folder` that its `rows` select and `exclude` keeps;
    None when none of its CSVs exists."""
    names = (claim.csv,) if isinstance(claim.csv, str) else claim.csv
    found: list[CsvRow] = []
    exists = False
    for name in names:
        path = folder / f"{name}.csv"
        if not path.is_file():
            continue
        exists = True
        with open(path, newline="") as fh:
            found += list(csv.DictReader(fh))
    if not exists:
        return None
    return [r for r in found
            if all(matches(r.get(c, ""), v) for c, v in claim.rows.items())
            and not any(matches(r.get(c, ""), v) for c, v in claim.exclude.items())]


def matches(text: str, value: Any) -> bool:
    """Whether a CSV cell holds `value` (numbers compared as numbers; a tuple: any of them)."""
    if isinstance(value, tuple):
        return any(matches(text, v) for v in value)
    if isinstance(value, Between):
        return value.low <= number_of(text) <= value.high
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            return float(text) == float(value)
        except ValueError:
            return False
    return text == str(value)


def _param(text: str) -> float:
    """A swept value: a number, or the number after `=` (`p=0.2`)."""
    value = number_of(text)
    return value if not math.isnan(value) or "=" not in text else number_of(text.split("=")[-1])


def number_of(text: str | None) -> float:
    try:
        return float(text) if text not in (None, "") else NAN
    except ValueError:
        return NAN


def metric_value(row: CsvRow, metric: str) -> float:
    """The metric of a row: a column, `A - B` or `A / B` (the ratio less 1) of two columns."""
    for op in (" - ", " / "):
        if op in metric:
            a, b = (number_of(row.get(c.strip(), c.strip())) for c in metric.split(op))
            return a - b if op == " - " else a / b - 1.0
    return number_of(row.get(metric))


def own_estimate(row: CsvRow, metric: str) -> Estimate:
    """The mean a row carries, its half-width and its number of replications."""
    half = NAN
    if " - " not in metric and " / " not in metric:
        half = number_of(row.get(f"{metric}_ci") or row.get(f"{metric}_ci95"))
    n_text = row.get(f"{metric}_n") or row.get("seeds") or row.get("replications")
    n = int(number_of(n_text)) if math.isfinite(number_of(n_text)) else 1
    mean = metric_value(row, metric)
    if 0 < half <= NOISE * abs(mean):  # identical replications summed with rounding errors
        half = 0.0
    return Estimate(mean, half, n)


# ----------------------------------------------------------------------------- estimates
def _key(row: CsvRow, unit: str | tuple[str, ...]) -> tuple[str, ...]:
    return tuple(row.get(c, "") for c in ((unit,) if isinstance(unit, str) else unit))


def _single(rows: Sequence[CsvRow], metric: str) -> Estimate:
    if len(rows) != 1:
        raise ValueError(f"{len(rows)} rows where each carries its own mean: name their "
                         f"replications (unit), split them (by, param) or narrow the rows")
    return own_estimate(rows[0], metric)


def estimate(claim: Claim, rows: Sequence[CsvRow], metric: str) -> Estimate | None:
    """Our figure on `rows` (None: no rows): the claim's `versus` difference, or the mean over
    its `unit` replications, or the one row's own."""
    if claim.versus:
        column, base, compared = claim.versus
        return difference(claim, [r for r in rows if matches(r[column], base)],
                          [r for r in rows if matches(r[column], compared)], metric)
    if not rows:
        return None
    if claim.unit:
        mean, half, n = mean_ci([metric_value(r, metric) for r in rows])
        return Estimate(mean, half, n) if n else None
    return _single(rows, metric)


def difference(claim: Claim, base: Sequence[CsvRow], compared: Sequence[CsvRow],
               metric: str) -> Estimate | None:
    """compared - base (with `relative`, compared / base - 1): paired per `unit` where the
    rows are replications, else from the two rows' own intervals."""
    if not base or not compared:
        return None
    if claim.unit:
        first = {_key(r, claim.unit): metric_value(r, metric) for r in base}
        values = [_change(first[_key(r, claim.unit)], metric_value(r, metric), claim.relative)
                  for r in compared if _key(r, claim.unit) in first]
        mean, half, n = mean_ci(values)  # a unit whose change is undefined drops out
        return Estimate(mean, half, n) if n else None
    a, b = _single(base, metric), _single(compared, metric)
    if claim.relative:
        if a.mean == 0:  # no relative change from nothing: no figure to grade
            return Estimate(NAN, NAN, min(a.n, b.n))
        return Estimate(b.mean / a.mean - 1.0, _change_half(a, b, True), min(a.n, b.n))
    return Estimate(b.mean - a.mean, math.hypot(a.half, b.half), min(a.n, b.n))


def _points(claim: Claim, rows: Sequence[CsvRow], metric: str) -> list[tuple[float, Estimate]]:
    """(value of `param`, our figure there) in the order of `param`'s values."""
    values: list[str] = []
    for r in rows:
        if r[claim.param] not in values:
            values.append(r[claim.param])
    out = []
    for v in values:
        e = estimate(claim, [r for r in rows if r[claim.param] == v], metric)
        if e is not None:
            out.append((_param(v), e))
    return out


# ----------------------------------------------------------------------------- rules
def _band(e: Estimate, low: float, high: float) -> str:
    if not math.isfinite(e.half):
        return "inconclusive"
    if e.low >= low and e.high <= high:
        return "agrees"
    if e.high < low or e.low > high:
        return "differs"
    return "inconclusive"


def _sign(e: Estimate, seed: float) -> str:
    """`same-sign`: the seed's side of zero is open (a difference of exactly 0 is not of the
    seed's sign): agrees only with zero below the whole interval (above it, for "< 0"),
    differs when the interval lies at or beyond zero on the other side ([0, 0] included),
    else (zero inside it, or its end on the seed's side) inconclusive."""
    if not math.isfinite(e.half):
        return "inconclusive"
    sign = 1.0 if seed > 0 else -1.0
    near, far = sorted((e.low * sign, e.high * sign))
    if near > 0:
        return "agrees"
    if far <= 0:
        return "differs"
    return "inconclusive"


def combine(verdicts: Iterable[str]) -> str:
    found = set(verdicts)
    for verdict in ("differs", "not-run", "inconclusive"):
        if verdict in found:
            return verdict
    return "agrees"


def _wilson(k: int, n: int) -> tuple[float, float]:
    p, z2 = k / n, Z975 ** 2
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z975 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def grade(claim: Claim, rows: Sequence[CsvRow], metric: str, seed: float,
          margin: float | None = None) -> tuple[float, int, float, float, str]:
    """(ours, n, ci_low, ci_high, verdict) of one part by its rule (`margin`: the within rule's)."""
    rule = claim.rule
    if rule in ("flat", "best-at", "crossing"):
        ours, n, low, high, verdict = _swept(claim, rows, metric, seed)
    elif rule == "share":
        ours, n, low, high, verdict = _share(claim, rows, metric, seed)
    else:
        e = estimate(claim, rows, metric)
        if e is None:
            return NAN, 0, NAN, NAN, "not-run"
        ours, n, low, high = e.mean, e.n, e.low, e.high
        if math.isnan(e.mean):  # no figure (an empty cell): nothing to grade
            verdict = "inconclusive"
        elif rule == "within":
            band = claim.margin if margin is None else margin
            if not isinstance(band, (int, float)):
                raise ValueError("a claim of several margins grades a part on its own margin")
            verdict = _band(e, seed - band, seed + band)
        elif rule == "same-sign":
            verdict = _sign(e, seed)
        elif rule == "factor-2":
            verdict = _band(e, *sorted((seed / 2, seed * 2)))
        elif rule == "at-most":
            verdict = _band(e, -math.inf, seed)
        else:  # at-least
            verdict = _band(e, seed, math.inf)
    if verdict in ("agrees", "differs") and n < MIN_N:
        verdict = "inconclusive"
    return ours, n, low, high, verdict


def _share(claim: Claim, rows: Sequence[CsvRow], metric: str,
           seed: float) -> tuple[float, int, float, float, str]:
    if claim.versus:
        column, base, compared = claim.versus
        first = {_key(r, claim.unit): metric_value(r, metric) for r in rows
                 if matches(r[column], base)}
        values = [_change(first[_key(r, claim.unit)], metric_value(r, metric), claim.relative)
                  for r in rows if matches(r[column], compared) and _key(r, claim.unit) in first]
    else:
        values = [metric_value(r, metric) for r in rows]
    values = [v for v in values if math.isfinite(v)]
    if not values:
        return NAN, 0, NAN, NAN, "not-run"
    n = len(values)
    k = sum(1 for v in values if (v >= 0 if claim.higher else v <= 0))
    low, high = _wilson(k, n)
    verdict = "agrees" if k / n >= seed else "differs" if high < seed else "inconclusive"
    return k / n, n, low, high, verdict


def _swept(claim: Claim, rows: Sequence[CsvRow], metric: str,
           seed: float) -> tuple[float, int, float, float, str]:
    points = _points(claim, rows, metric)
    if not points:
        return NAN, 0, NAN, NAN, "not-run"
    n = min(e.n for _, e in points)
    known = all(math.isfinite(e.half) for _, e in points)
    if claim.rule == "flat":
        diffs = flat_steps(claim, rows, metric, points)
        if not diffs:
            return NAN, n, NAN, NAN, "inconclusive"
        worst = max(diffs, key=lambda d: abs(d.mean))
        return (worst.mean, n, worst.low, worst.high,
                combine(_band(d, -seed, seed) for d in diffs))
    points.sort(key=lambda p: p[0])
    xs = [x for x, _ in points]
    if claim.rule == "best-at":
        pick = max if claim.higher else min
        best_x, best = pick(points, key=lambda p: p[1].mean)
        if not known:
            return best_x, n, NAN, NAN, "inconclusive"
        near = [x for x, e in points if abs(e.mean - best.mean) <= e.half + best.half]
        low, high = min(near), max(near)
        if not _reaches(xs, low, high, seed):
            return best_x, n, low, high, "differs"
        adjacent = len(near) <= 2 and xs.index(high) - xs.index(low) <= 1
        return best_x, n, low, high, "agrees" if adjacent else "inconclusive"
    return _crossing(points, n, known, seed)


def _reaches(xs: Sequence[float], low: float, high: float, seed: float) -> bool:
    """Whether the span [low, high] of swept values reaches the seed's value: holds it, or,
    for a value between two swept ones (the seed's ~55 min where 45 and 60 were run), holds
    one of those two, the nearest the sweep can come to it."""
    if low <= seed <= high:
        return True
    below = [x for x in xs if x < seed]
    above = [x for x in xs if x > seed]
    if seed in xs or not below or not above:
        return False
    return low <= min(above) and high >= max(below)


def flat_steps(claim: Claim, rows: Sequence[CsvRow], metric: str,
               points: list[tuple[float, Estimate]]) -> list[Estimate]:
    """`flat`'s differences: each later value of `param` against the first, paired per `unit`
    where there is one, else from the two points' own intervals."""
    if claim.unit:
        return _paired_steps(claim, rows, metric)
    base = points[0][1]
    return [Estimate(_change(base.mean, e.mean, claim.relative),
                     _change_half(base, e, claim.relative), min(base.n, e.n))
            for _, e in points[1:]]


def _paired_steps(claim: Claim, rows: Sequence[CsvRow], metric: str) -> list[Estimate]:
    """Each later value of `param` against the first, paired per `unit` (`flat`)."""
    values: list[str] = []
    for r in rows:
        if r[claim.param] not in values:
            values.append(r[claim.param])
    first = [r for r in rows if r[claim.param] == values[0]]
    steps = (difference(claim, first, [r for r in rows if r[claim.param] == v], metric)
             for v in values[1:])
    return [e for e in steps if e is not None]


def _change_half(a: Estimate, b: Estimate, relative: bool) -> float:
    """The half-width of b - a, or of b / a (first order: the relative half-widths added in
    quadrature, written so that a compared mean of 0, a change of -100%, has one; NaN where
    a's is 0)."""
    if relative:
        if a.mean == 0:
            return NAN
        return math.hypot(b.half, b.mean / a.mean * a.half) / abs(a.mean)
    return math.hypot(a.half, b.half)


def _crossing(points: list[tuple[float, Estimate]], n: int, known: bool,
              seed: float) -> tuple[float, int, float, float, str]:
    sign = math.copysign(1.0, points[0][1].mean)
    k = next((i for i, (_, e) in enumerate(points) if e.mean * sign < 0), None)
    if k is None:  # no change of sign: differs where every interval keeps to one side
        decided = known and all(e.low * sign > 0 and e.high * sign > 0 for _, e in points)
        return NAN, n, NAN, NAN, "differs" if decided else "inconclusive"
    (x0, e0), (x1, e1) = points[k - 1], points[k]
    ours = x0 + (x1 - x0) * e0.mean / (e0.mean - e1.mean)
    if not known:
        return ours, n, NAN, NAN, "inconclusive"
    before = [x for x, e in points[:k] if e.low * sign > 0 and e.high * sign > 0]
    after = [x for x, e in points[k:] if e.low * sign < 0 and e.high * sign < 0]
    low = before[-1] if before else points[0][0]
    high = after[0] if after else points[-1][0]
    if not low <= seed <= high:
        return ours, n, low, high, "differs"
    return ours, n, low, high, "agrees" if before and after else "inconclusive"
