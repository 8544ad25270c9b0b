"""What would decide a paper's inconclusive claims: for each part the claims table leaves
`inconclusive`, about how many replications (or workload seeds, weeks, windows: whatever `n`
counts) would let its rule decide, from the interval measured now.

The projection assumes the means stay where they are and the half-widths shrink as 1/sqrt(n):

- a threshold rule (`same-sign`, `at-most`, `at-least`, `factor-2`, and `within`, whose band is
  the seed's value plus or minus its margin): the interval straddles a threshold t; it clears
  it once the half-width is below |mean - t|, so n ~ n_now x (half-width / |mean - t|)^2;
- `flat`: the same for each difference whose interval straddles +-seed; the largest n;
- `best-at`: every point other than the best and its better neighbour must fall out of reach
  of the best (|mean - best| > half + best's half), so every half-width must shrink by the
  factor k = max((half + best's half) / |mean - best|) over those points: n ~ n_now x k^2;
- a part inconclusive only because fewer than `MIN_N` replications agree (or differ) needs
  `MIN_N`.

`share` and `crossing` parts are not projected.  A part whose mean sits on its threshold
(a near tie) needs more replications than any size affords: shown as "over 1,000".  The
functions are pure: CSV rows in, numbers out.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ckptsim.experiments.papers.base import Claim
from ckptsim.experiments.papers.claims import (
    MIN_N,
    CsvRow,
    Estimate,
    _points,
    estimate,
    flat_steps,
    grade,
    read_rows,
)

if TYPE_CHECKING:
    from ckptsim.experiments.papers.base import Paper

#: Above this many replications a projection is shown as "over 1,000".
MANY = 1000


def _scaled(n: int, half: float, distance: float) -> float:
    """n x (half / distance)^2: the replications that shrink `half` below `distance`."""
    if distance <= 0:
        return math.inf
    return n * (half / distance) ** 2


def _across(e: Estimate, thresholds: Sequence[float]) -> float:
    """The replications after which `e`'s interval no longer holds any of `thresholds`."""
    inside = [t for t in thresholds if e.low <= t <= e.high]
    return max((_scaled(e.n, e.half, abs(e.mean - t)) for t in inside), default=float(e.n))


def _thresholds(rule: str, seed: float, margin: float | None = None) -> tuple[float, ...]:
    if rule == "same-sign":
        return (0.0,)
    if rule == "factor-2":
        return tuple(sorted((seed / 2, seed * 2)))
    if rule == "within":
        assert margin is not None
        return (seed - margin, seed + margin)
    return (seed,)  # at-most, at-least


def _best_at(claim: Claim, rows: Sequence[CsvRow], metric: str) -> float:
    points = sorted(_points(claim, rows, metric), key=lambda p: p[0])
    if not all(math.isfinite(e.half) for _, e in points):
        return math.nan
    pick = max if claim.higher else min
    i = points.index(pick(points, key=lambda p: p[1].mean))
    best = points[i][1]
    neighbours = [j for j in (i - 1, i + 1) if 0 <= j < len(points)]
    kept = {i, *([pick(neighbours, key=lambda j: points[j][1].mean)] if neighbours else [])}
    factor = max(((e.half + best.half) / abs(e.mean - best.mean) if e.mean != best.mean
                  else math.inf) for j, (_, e) in enumerate(points) if j not in kept) \
        if len(points) > len(kept) else 0.0
    n = min(e.n for _, e in points)
    return n * max(factor, 1.0) ** 2


def _flat(claim: Claim, rows: Sequence[CsvRow], metric: str, seed: float) -> float:
    diffs = flat_steps(claim, rows, metric, _points(claim, rows, metric))
    if not all(math.isfinite(d.half) for d in diffs):
        return math.nan
    return max((_across(d, (-seed, seed)) for d in diffs), default=math.nan)


def needed(claim: Claim, rows: Sequence[CsvRow], metric: str, seed: float,
           margin: float | None = None) -> float:
    """About how many replications would decide this part of `claim` (NaN: the part is
    decided already, or its rule is not projected; inf: a near tie); `margin`: the within rule's."""
    if margin is None and isinstance(claim.margin, (int, float)):
        margin = float(claim.margin)  # the claim's one margin
    ours, n, low, high, verdict = grade(claim, rows, metric, seed, margin)
    if verdict != "inconclusive":
        return math.nan
    rule = claim.rule
    if rule in ("same-sign", "at-most", "at-least", "factor-2", "within"):
        e = estimate(claim, rows, metric)
        if e is None or not math.isfinite(e.half):
            return math.nan
        projected = _across(e, _thresholds(rule, seed, margin))
    elif rule == "best-at":
        projected = _best_at(claim, rows, metric)
    elif rule == "flat":
        projected = _flat(claim, rows, metric, seed)
    else:  # share, crossing
        return math.nan
    if math.isnan(projected):
        return projected
    return max(projected, float(MIN_N))


def count_text(n: float) -> str:
    """`~51`, `~1,000`, `~over 1,000`; NaN: `not projected`."""
    if math.isnan(n):
        return "not projected"
    if n > MANY:
        return f"~over {MANY:,}"
    return f"~{math.ceil(n - 1e-9):,}"


def claim_parts(claim: Claim, folder: Path) -> tuple[int, list[str]]:
    """(n now, one text per inconclusive part: ours, its interval and the projection)."""
    from ckptsim.experiments.papers.claims_table import (
        _parts,
        _seeds,
        check,
        margin_of,
        number,
        part_value,
    )

    check(claim)
    rows = read_rows(folder, claim)
    parts = _parts(claim, rows) if rows else []
    seeds = _seeds(claim)
    texts, ns = [], []
    for k, (label, metric, part) in enumerate(parts):
        if not part:
            continue
        seed = part_value(claim, seeds, parts, k, metric)
        margin = margin_of(claim, parts, k, metric)
        ours, n, low, high, verdict = grade(claim, part, metric, seed, margin)
        ns.append(n)
        if verdict != "inconclusive":
            continue
        where = f"{label}: " if label else ""
        if claim.rule == "best-at":
            figure = f"best {number(ours)}, " + (f"within reach {number(low)}-{number(high)}"
                                                 if math.isfinite(low) else "no interval")
        elif math.isfinite(low) and math.isfinite(high):
            figure = f"{number(ours)} ({number(low)} \u2026 {number(high)})"
        else:
            figure = f"{number(ours)} (no interval)"
        texts.append(f"{where}{figure}, "
                     f"{count_text(needed(claim, part, metric, seed, margin))}")
    return (min(ns) if ns else 0), texts


def markdown_table(paper: Paper, folder: Path) -> str:
    """The page's `decide` table: each claim with an inconclusive part, its n now and, per
    such part, our figure with its interval and about how many replications would decide."""
    from ckptsim.experiments.papers.tables import markdown

    rows = []
    for claim in paper.claims:
        n, texts = claim_parts(claim, folder)
        if texts:
            rows.append([claim.statement.replace("|", "\\|"), str(n),
                         "; ".join(texts).replace("|", "\\|")])
    if not rows:
        return "Every claim run is decided (none is inconclusive).\n"
    return markdown(["claim", "n now", "inconclusive parts: ours (95% interval), n that "
                                       "would decide"], rows)
