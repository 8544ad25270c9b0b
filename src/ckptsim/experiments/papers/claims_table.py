"""The claims table of a paper: every claim's parts graded on the CSVs of a results folder
(`claims.grade`), one row each, formatted deterministically for the terminal, a CSV file and
the results page (the same CSVs give the same bytes).

A claim of several parts (several metrics, or one metric on each value of `by`) gets a row of
its own first, which agrees only if every part agrees; any part that differs makes it differ.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ckptsim.experiments.papers.base import RULES, Claim
from ckptsim.experiments.papers.claims import (
    NAN,
    CsvRow,
    Line,
    combine,
    grade,
    number_of,
    read_rows,
)

if TYPE_CHECKING:
    from ckptsim.experiments.papers.base import Paper

COLUMNS = ("claim", "seed", "ours", "n", "ci_low", "ci_high", "rule", "verdict")


def columns_of(metric: str) -> list[str]:
    """The columns a metric reads (a number in `A - 1` is not one)."""
    names = [c.strip() for op in (" - ", " / ") if op in metric for c in metric.split(op)]
    return [c for c in names or [metric] if math.isnan(number_of(c))]


def _parts(claim: Claim, every: Sequence[CsvRow]) -> list[tuple[str, str, list[CsvRow]]]:
    """(label, metric, rows) of each part: a metric (on the rows that have its columns), then
    a value of `by`."""
    out = []
    for metric in claim.metrics:
        label = metric if len(claim.metrics) > 1 else ""
        rows = [r for r in every if all(c in r for c in columns_of(metric))]
        if not claim.by:
            out.append((label, metric, list(rows)))
            continue
        groups: list[str] = []
        for r in rows:
            if r[claim.by] not in groups:
                groups.append(r[claim.by])
        for g in groups:
            out.append((", ".join(x for x in (label, f"{claim.by} {g}") if x), metric,
                        [r for r in rows if r[claim.by] == g]))
    return out


def check(claim: Claim) -> None:
    """Refuse a declaration the evaluator cannot compute (ValueError)."""
    if claim.rule not in RULES:
        raise ValueError(f"unknown rule {claim.rule!r}; known: {', '.join(RULES)}")
    if claim.rule in ("flat", "best-at", "crossing") and not claim.param:
        raise ValueError(f"rule {claim.rule} needs param (the swept column)")
    if claim.rule == "share" and claim.versus and not claim.unit:
        raise ValueError("rule share with versus needs unit (what is paired)")
    if claim.rule == "same-sign" and 0 in _seeds(claim):
        raise ValueError("rule same-sign needs a seed value with a sign")
    if not claim.metrics:
        raise ValueError("a claim names at least one metric")
    if claim.by_values and (not claim.by or len(_seeds(claim)) != len(claim.by_values)):
        raise ValueError("by_values needs by and one seed value per value named")


def _values(value: float | tuple[float, ...]) -> tuple[float, ...]:
    return value if isinstance(value, tuple) else (value,)


def _seeds(claim: Claim) -> tuple[float, ...]:
    return _values(claim.seed)


def _margins(claim: Claim) -> tuple[float, ...]:
    """The within rule's margins (one, or one per part as the seed's values); other rules: none."""
    return () if claim.margin is None else _values(claim.margin)


def seed_of(claim: Claim, seeds: tuple[float, ...], n_parts: int, k: int,
            metric: str) -> float:
    """The seed's value for part `k`: one for all, one per part, or one per metric."""
    return (seeds[0] if len(seeds) == 1 else seeds[k] if len(seeds) == n_parts
            else seeds[claim.metrics.index(metric)])


def part_value(claim: Claim, values: tuple[float, ...],
               parts: Sequence[tuple[str, str, list[CsvRow]]], k: int, metric: str) -> float:
    """The seed's value (or the within rule's margin) for part `k`: one per value of
    `by_values` (the part's own), else as `seed_of`."""
    part = parts[k][2]
    if claim.by_values and part and len(values) == len(claim.by_values):
        return dict(zip(claim.by_values, values, strict=True))[part[0][claim.by]]
    return seed_of(claim, values, len(parts), k, metric)


def margin_of(claim: Claim, parts: Sequence[tuple[str, str, list[CsvRow]]], k: int,
              metric: str) -> float | None:
    """The within rule's margin for part `k` (None: the rule takes none): one for all, one per value
    of `by_values`, one per part, or one per metric."""
    margins = _margins(claim)
    if not margins:
        return None
    if not claim.by_values and len(margins) not in (1, len(claim.metrics), len(parts)):
        raise ValueError(f"{claim.statement!r}: {len(margins)} margins for "
                         f"{len(claim.metrics)} metrics and {len(parts)} parts")
    return part_value(claim, margins, parts, k, metric)


def _unrun(claim: Claim, seeds: tuple[float, ...]) -> Line:
    """The one row of a claim none of whose rows is run."""
    margins = _margins(claim)
    each = len(margins) == len(seeds) > 1  # one margin per seed value: each with its own
    text = "/".join(seed_text(claim.rule, s, margins[i] if each else None)
                    for i, s in enumerate(seeds))
    if len(margins) == 1:
        text += f" \u00b1 {number(margins[0])}"
    return Line(claim.statement, text, NAN, 0, NAN, NAN, claim.rule, "not-run")


def evaluate_claim(claim: Claim, folder: Path) -> list[Line]:
    """The claims table's rows of one claim on the CSVs in `folder`."""
    check(claim)
    rows = read_rows(folder, claim)
    seeds = _seeds(claim)
    parts = _parts(claim, rows) if rows else []
    if not parts:  # no CSV, or none of the rows the claim compares
        return [_unrun(claim, seeds)]
    if claim.by_values:
        # One seed value per named value of `by`: each part takes its own, whichever are run.
        parts = [p for p in parts if not p[2] or p[2][0][claim.by] in claim.by_values]
        if not parts:
            return [_unrun(claim, seeds)]
    elif len(seeds) not in (1, len(claim.metrics), len(parts)):
        raise ValueError(f"{claim.statement!r}: {len(seeds)} seed values for "
                         f"{len(claim.metrics)} metrics and {len(parts)} parts")
    lines = []
    for k, (label, metric, part) in enumerate(parts):
        seed = part_value(claim, seeds, parts, k, metric)
        margin = margin_of(claim, parts, k, metric)
        text = f"{claim.statement} [{label}]" if label else claim.statement
        if not part:  # the CSV lacks this metric's columns
            lines.append(Line(text, seed_text(claim.rule, seed, margin), NAN, 0, NAN, NAN,
                              claim.rule, "not-run"))
            continue
        try:
            ours, n, low, high, verdict = grade(claim, part, metric, seed, margin)
        except ValueError as exc:
            raise ValueError(f"{claim.statement!r} ({metric}): {exc}") from None
        lines.append(Line(text, seed_text(claim.rule, seed, margin), ours, n, low, high,
                          claim.rule, verdict))
    if len(lines) == 1:
        return lines
    head = Line(claim.statement, "", NAN, min(line.n for line in lines), NAN, NAN, claim.rule,
                combine(line.verdict for line in lines))
    return [head, *lines]


def evaluate(claims: Iterable[Claim], folder: Path) -> list[Line]:
    """Every claim's rows on the CSVs in `folder`, in the order declared."""
    return [line for claim in claims for line in evaluate_claim(claim, folder)]


# ----------------------------------------------------------------------------- formats
def number(x: float) -> str:
    """Three significant digits, no exponent, no trailing zeros; NaN: empty."""
    if math.isnan(x):
        return ""
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if x == 0:
        return "0"
    digits = max(0, min(6, 2 - math.floor(math.log10(abs(x)))))
    text = f"{x:.{digits}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def seed_text(rule: str, seed: float, margin: float | None = None) -> str:
    """The seed column: the seed's value as its rule reads it (`within`: with its margin)."""
    if rule == "same-sign":
        return "< 0" if seed < 0 else "> 0"
    prefix = {"at-most": "\u2264 ", "at-least": "\u2265 ", "share": "\u2265 ",
              "flat": "\u00b1 "}.get(rule, "")
    return prefix + number(seed) + (f" \u00b1 {number(margin)}" if margin is not None else "")


def cells(line: Line) -> list[str]:
    return [line.claim, line.seed, number(line.ours), str(line.n), number(line.ci_low),
            number(line.ci_high), line.rule, line.verdict]


def write_csv(lines: Sequence[Line], path: Path) -> None:
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(COLUMNS)
        w.writerows(cells(line) for line in lines)


def markdown_table(paper: Paper, folder: Path) -> str:
    """The page's claims table: `ckptsim paper NAME claims` on `folder`, as Markdown."""
    from ckptsim.experiments.papers.tables import markdown

    rows = [[c.replace("|", "\\|") or "-" for c in cells(line)]
            for line in evaluate(paper.claims, folder)]
    return markdown(COLUMNS, rows)
