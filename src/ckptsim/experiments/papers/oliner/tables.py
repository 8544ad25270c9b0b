"""The tables of docs/results/oliner.md (seed 004), computed from the figures' CSVs (see
`ckptsim.experiments.papers.tables`).  Means are over the replications; "±" is the 95%
half-width of the mean (Student t) from the CSVs' `_ci95` columns.  The prediction figures at
the failure log's own rate are read from the page folder's `lograte/` subfolder."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from ckptsim.experiments.papers.tables import Table, change, markdown, number, read


def _traces(rows: list[dict[str, Any]]) -> list[str]:
    out: list[str] = []
    for r in rows:
        if r["trace"] not in out:
            out.append(r["trace"])
    return out


def _loads(rows: list[dict[str, Any]]) -> list[float]:
    return sorted({float(r["load_scale"]) for r in rows})


def _pm(mean: float, half: float, digits: int = 0) -> str:
    if not math.isfinite(half):
        return number(mean, digits)
    return f"{number(mean, digits)} ± {number(half, digits)}"


def _at(rows: list[dict[str, Any]], **match: float | str) -> dict[str, Any] | None:
    for r in rows:
        if all(r[k] == v if isinstance(v, str) else abs(float(r[k]) - v) < 1e-9
               for k, v in match.items()):
            return r
    return None


def _rise(ratio: float) -> str:
    """A ratio to the slowdown without failures: a change, or "×N" from ten times on."""
    return f"×{ratio:,.0f}" if ratio >= 10 else change(ratio)


def _excludes(r: dict[str, Any], base: dict[str, Any]) -> bool:
    """The 95% interval of `r`'s slowdown lies wholly on one side of `base`'s mean."""
    half = r["mean_response_bsld_ci95"]
    return math.isfinite(half) and abs(r["mean_response_bsld"] - base["mean_response_bsld"]) > half


def failures(folder: Path) -> str:
    """Figs. 3-4: slowdown without prediction against the number of failures, and a = 0.1."""
    rows = read(folder, "fig4")
    out = []
    for t in _traces(rows):
        for c in _loads(rows):
            mine = [r for r in rows if r["trace"] == t and abs(r["load_scale"] - c) < 1e-9]
            zero = {int(r["failure_count"]): r for r in mine if r["confidence"] == 0.0}
            pred = {int(r["failure_count"]): r for r in mine if r["confidence"] == 0.1}
            base = zero[0]["mean_response_bsld"]
            cells = [t, f"{c:g}", _pm(base, zero[0]["mean_response_bsld_ci95"], 1)]
            for n in (500, 1000, 2000):
                cells.append(_rise(zero[n]["mean_response_bsld"] / base) if n in zero else "-")
            if 1000 in pred:
                r, b = pred[1000], zero[1000]
                cells.append(change(r["mean_response_bsld"] / b["mean_response_bsld"])
                             + ("" if _excludes(r, b) else " (within the interval)"))
            else:
                cells.append("-")
            ratios = {n: pred[n]["mean_response_bsld"] / zero[n]["mean_response_bsld"]
                      for n in pred if n > 0 and n in zero}
            if ratios:
                best = min(ratios, key=ratios.__getitem__)
                worst = max(ratios, key=ratios.__getitem__)
                cells.append(f"{change(ratios[best])} ({best:,}) / "
                             f"{change(ratios[worst])} ({worst:,})")
            else:
                cells.append("-")
            out.append(cells)
    return markdown(["workload", "c", "no failures (± 95%)", "500 failures", "1,000", "2,000",
                     "a = 0.1 vs a = 0 at 1,000", "best / worst of a = 0.1 (count)"], out)


def capacity_by_count(folder: Path) -> str:
    """Fig. 5: capacity of SDSC at 0, 1,000 and 4,000 failures."""
    rows = read(folder, "fig5")
    out = []
    for c in _loads(rows):
        for n in (0.0, 1000.0, 4000.0):
            r = _at(rows, load_scale=c, failure_count=n)
            if r is None:
                continue
            out.append([f"{c:g}", f"{int(n):,}", *(_pm(r[m], r[f"{m}_ci95"], 3) for m in (
                "capacity_utilized", "capacity_unused", "capacity_lost")),
                number(r["mean_response_bsld"], 0)])
    return markdown(["c", "failures", "utilised", "unused", "lost", "bounded slowdown"], out)


def _levels(folder: Path, figure: str, level: str) -> str:
    rows = read(folder, figure)
    out = []
    for t in _traces(rows):
        for c in _loads(rows):
            mine = [r for r in rows if r["trace"] == t and abs(r["load_scale"] - c) < 1e-9]
            base = _at(mine, **{level: 0.0})
            on = [r for r in mine if r[level] > 0]
            if base is None or not on:
                continue
            b = base["mean_response_bsld"]
            best = min(on, key=lambda r: r["mean_response_bsld"])
            first = _at(mine, **{level: 0.1})
            last = _at(mine, **{level: 1.0})
            mean_on = sum(r["mean_response_bsld"] for r in on) / len(on)
            clear = sum(_excludes(r, base) for r in on)
            out.append([t, f"{c:g}", f"{int(base['failure_count']):,}",
                        _pm(b, base["mean_response_bsld_ci95"], 1 if b < 100 else 0),
                        change(first["mean_response_bsld"] / b) if first else "-",
                        f"{change(best['mean_response_bsld'] / b)} ({best[level]:g})",
                        change(last["mean_response_bsld"] / b) if last else "-",
                        change(mean_on / b), f"{clear} of {len(on)}"])
    return markdown(["workload", "c", "failures", "a = 0 (± 95%)", "a = 0.1", "best (a)",
                     "a = 1.0", "mean over a > 0", "points a > 0 whose interval excludes "
                     "a = 0's mean"], out)


def _pct(x: float) -> str:
    return change(1.0 + x)


def _paired_levels(folder: Path, figure: str, level: str) -> str:
    """Each level against a = 0, paired per replication (figN-replications.csv): the mean
    change in slowdown with its 95% interval, and how many levels' intervals lie wholly below
    (better) or above (worse) zero."""
    from ckptsim.experiments.stats import mean_ci

    rows = read(folder, f"{figure}-replications")
    out = []
    for t in _traces(rows):
        for c in _loads(rows):
            mine = [r for r in rows if r["trace"] == t and abs(r["load_scale"] - c) < 1e-9]
            base = {r["seed"]: r["mean_response_bsld"] for r in mine if r[level] == 0.0}
            steps = {}
            for a in sorted({r[level] for r in mine if r[level] > 0}):
                steps[a] = mean_ci([r["mean_response_bsld"] / base[r["seed"]] - 1.0
                                    for r in mine if r[level] == a and r["seed"] in base])
            if not base or not steps:
                continue
            best = min(steps, key=lambda a: steps[a][0])
            below = sum(m + h < 0 for m, h, _ in steps.values())
            above = sum(m - h > 0 for m, h, _ in steps.values())
            first = steps.get(0.1)
            out.append([t, f"{c:g}", str(min(n for _, _, n in steps.values())),
                        f"{_pct(first[0])} ± {number(100 * first[1])} pt" if first else "-",
                        f"{_pct(steps[best][0])} ± {number(100 * steps[best][1])} pt "
                        f"({best:g})", f"{below} of {len(steps)}",
                        f"{above} of {len(steps)}"])
    return markdown(["workload", "c", "replications", "a = 0.1 (± 95%)", "best (a)",
                     "levels better than a = 0", "levels worse than a = 0"], out)


def _capacity_levels(folder: Path, figure: str, level: str) -> str:
    rows = read(folder, figure)
    out = []
    for c in _loads(rows):
        mine = [r for r in rows if abs(r["load_scale"] - c) < 1e-9]
        lo, hi = _at(mine, **{level: 0.0}), _at(mine, **{level: 1.0})
        if lo is None or hi is None:
            continue
        out.append([str(lo["trace"]), f"{c:g}",
                    *(f"{_pm(lo[m], lo[f'{m}_ci95'], 3)} → {_pm(hi[m], hi[f'{m}_ci95'], 3)}"
                      for m in ("capacity_utilized", "capacity_lost"))])
    return markdown(["workload", "c", "utilised, a = 0 → 1", "lost, a = 0 → 1"], out)


def options(folder: Path) -> str:
    """The seed's readings as options against the defaults."""
    from ckptsim.experiments.papers.oliner.variants import DEFAULTS as defaults
    from ckptsim.experiments.papers.oliner.variants import VARIANTS

    rows = read(folder, "options")
    out = []
    for t in _traces(rows):
        mine = [r for r in rows if r["trace"] == t]
        zero = _at(mine, level=0.0)
        if zero is None:
            continue

        def mean_on(label: str, mine: list[dict[str, Any]] = mine) -> float:
            on = [r["mean_response_bsld"] for r in mine if r["variant"] == label
                  and r["level"] > 0]
            return sum(on) / len(on) if on else float("nan")

        for k, (label, name, _) in enumerate(VARIANTS):
            on = [r for r in mine if r["variant"] == label and r["level"] > 0]
            if not on:
                continue
            best = min(on, key=lambda r: r["mean_response_bsld"])
            default = defaults[name]
            out.append([t if k == 0 else "", label,
                        change(mean_on(label) / zero["mean_response_bsld"]),
                        f"{change(best['mean_response_bsld'] / zero['mean_response_bsld'])} "
                        f"({best['level']:g})",
                        "-" if label == default else change(mean_on(label) / mean_on(default))])
    return markdown(["workload", "variant", "mean over a > 0 vs a = 0", "best (a)",
                     "vs its default reading"], out)


def _lograte(table: Table) -> Table:
    return lambda folder: table(folder / "lograte")


def _slowdown(figure: str, level: str) -> Table:
    return lambda folder: _levels(folder, figure, level)


def _capacity(figure: str, level: str) -> Table:
    return lambda folder: _capacity_levels(folder, figure, level)


TABLES: dict[str, Table] = {
    "fig3-4": failures, "fig5": capacity_by_count,
    "fig6": _slowdown("fig6", "confidence"),
    "fig6-paired": lambda folder: _paired_levels(folder, "fig6", "confidence"),
    "fig9-paired": lambda folder: _paired_levels(folder, "fig9", "accuracy"),
    "fig7": _capacity("fig7", "confidence"),
    "fig8": _capacity("fig8", "confidence"), "fig9": _slowdown("fig9", "accuracy"),
    "fig10": _capacity("fig10", "accuracy"),
    "lograte-fig6": _lograte(_slowdown("fig6", "confidence")),
    "lograte-fig9": _lograte(_slowdown("fig9", "accuracy")),
    "lograte-fig7": _lograte(_capacity("fig7", "confidence")),
    "lograte-fig8": _lograte(_capacity("fig8", "confidence")),
    "lograte-fig10": _lograte(_capacity("fig10", "accuracy")),
    "options": options,
}
