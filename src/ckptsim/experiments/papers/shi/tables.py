"""The tables of docs/results/shi.md, computed from the figures' CSVs in its folder
(`ckptsim paper shi tables --out docs/results/shi` rewrites them; see papers/tables.py)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from ckptsim.experiments.papers.shi.figures import CASES, SEED_FIGURES
from ckptsim.experiments.papers.tables import MINUS, Table, markdown, read

#: The comparisons of migration, as fig16.csv's column suffixes, in the page's order.
COMPARISONS = {"_vs_original": "the original scheduler",
               "": "checkpoint without migration: the job stops (`checkpoint`)",
               "_vs_keep": "checkpoint without migration: the job keeps its nodes "
                           "(`checkpoint-keep`)"}
READING_CASES = {"checkpoint": "checkpoint", "checkpoint_keep": "checkpoint-keep",
                 "original": "original"}


def _arrt(case: str) -> str:
    return f"arrt_{case.replace('-', '_')}"


def _num(value: float, digits: int = 1) -> str:
    if not isinstance(value, float) or not math.isfinite(value):
        return "-"
    return f"{value:,.{digits}f}".replace("-", MINUS)


def _pm(mean: Any, half: Any, digits: int = 1, unit: str = "") -> str:
    if not isinstance(mean, float) or not math.isfinite(mean):
        return "-"
    text = _num(mean, digits) + unit
    return text + (f" ± {half:.{digits}f}" if isinstance(half, float) and math.isfinite(half)
                   else "")


def _summary(rows: list[dict[str, Any]]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The rows of means of fig16.csv or arrivals.csv: the thesis's seeds and all seeds."""
    thesis = next(r for r in rows if r["seed"] == "thesis seeds")
    every = next(r for r in rows if isinstance(r["seed"], str) and r["seed"].endswith(" seeds")
                 and r["seed"] != "thesis seeds")
    return thesis, every


def headline(folder: Path) -> str:
    """Gain of migration (% of ARRT) over each other case, long and medium jobs: the mean
    over the thesis's five seeds and over all seeds with 95% intervals, on both ARRTs."""
    rows = read(folder, "fig16")
    thesis, every = _summary(rows)
    n = str(every["seed"]).split()[0]
    out = []
    for suffix, against in COMPARISONS.items():
        for cls in ("long", "medium"):
            key = f"gain_{cls}{suffix}_pct"
            ci = key.replace("_pct", "_ci95")
            pooled, pooled_ci = f"pooled_{key}", f"pooled_{ci}"
            seed = (f"{thesis[f'thesis_gain_{cls}_pct']:g}%" if not suffix else "-")
            out.append([against, cls, _pm(thesis[key], thesis[ci], unit="%"),
                        _pm(every[key], every[ci], unit="%"),
                        _pm(every[pooled], every[pooled_ci], unit="%"), seed])
    return markdown(["migration against", "class", "ARRT gain, thesis's 5 seeds",
                     f"ARRT gain, {n} seeds", f"pooled ARRT gain, {n} seeds", "thesis"], out)


def cases(folder: Path) -> str:
    """Figs. 11-15: ARRT of the four cases and the gains of migration, per seed."""
    header = ["figure (seed)"]
    columns: list[list[str]] = []
    for figure, seed in SEED_FIGURES.items():
        header.append(f"[{figure}](shi/{figure}.csv) ({seed})")
        table = read(folder, figure)
        allrows = {r["class"]: r for r in table if r["size_class"] == "all"}
        column = []
        for cls in ("long", "medium"):
            column.append(" / ".join(f"{allrows[cls][_arrt(c)]:.3g}" for c in CASES))
        for stem in ("gain_migration_pct", "gain_vs_keep_pct", "gain_vs_original_pct"):
            column.append(" / ".join(_num(allrows[c][stem]) + "%" for c in ("long", "medium")))
        columns.append(column)
    labels = ["ARRT long: " + " / ".join(CASES), "ARRT medium: " + " / ".join(CASES),
              "gain over `checkpoint`, long / medium", "gain over `checkpoint-keep`, long / "
              "medium", "gain over `original`, long / medium"]
    out = [[label, *(c[k] for c in columns)] for k, label in enumerate(labels)]
    return markdown(header, out)


def table3(folder: Path) -> str:
    """Table 3 beside the thesis's, per seed."""
    def triple(r: dict[str, Any], stem: str, digits: int = 1) -> str:
        return "/".join(f"{r[f'{stem}_{c}']:.{digits}f}".rstrip("0").rstrip(".")
                        if stem.startswith("thesis") else f"{r[f'{stem}_{c}']:.{digits}f}"
                        for c in ("short", "medium", "long"))

    out = []
    for r in read(folder, "table3"):
        fix = {k.replace("_pct", ""): v for k, v in r.items()}
        out.append([f"{r['seed']:g}", triple(fix, "jobs"), triple(fix, "thesis_jobs"),
                    triple(fix, "work"), triple(fix, "thesis_work"), triple(fix, "size"),
                    triple(fix, "thesis_size"), f"{r['interarrival_s']:,.0f}",
                    f"{r['thesis_interarrival_s']:,.0f}", f"{r['load']:.2f}"])
    return markdown(["seed", "% jobs S/M/L (here)", "thesis", "% work S/M/L (here)", "thesis",
                     "mean size S/M/L (here)", "thesis", "inter-arrival s (here)", "thesis",
                     "offered load (here)"], out)


def arrivals(folder: Path) -> str:
    """Mean inter-arrival time and offered load over the thesis's seeds and over all."""
    rows = read(folder, "arrivals")
    out = []
    for r in _summary(rows):
        name = "the thesis's five" if r["seed"] == "thesis seeds" else f"all {r['seed']}"
        out.append([name, f"{r['interarrival_s']:,.0f} ± {r['interarrival_s_ci95']:,.0f}",
                    f"{r['interarrival_s_sd']:,.0f}",
                    f"{r['load']:.2f} ± {r['load_ci95']:.2f}", f"{r['load_sd']:.2f}"])
    thesis = _summary(rows)[0]["thesis_interarrival_s"]
    out.append(["the thesis's Table 3 (its five)", f"{thesis:,.0f}", "-", "-", "-"])
    return markdown(["seeds", "mean inter-arrival (s), 95% CI", "sd over seeds (s)",
                     "offered load, 95% CI", "sd over seeds"], out)


def readings(folder: Path) -> str:
    """The readings figure: gain of migration over each case, per reading and class, on both
    ARRTs (mean over the seeds with the 95% interval of the paired gains)."""
    out = []
    for r in read(folder, "readings"):
        for kind, label in (("arrt", "ARRT"), ("pooled", "pooled ARRT")):
            out.append([str(r["reading"]), str(r["class"]), label,
                        *(_pm(r[f"{kind}_gain_vs_{c}_pct"], r[f"{kind}_gain_vs_{c}_ci"],
                              unit="%") for c in READING_CASES),
                        f"{r['seeds']:g}"])
    return markdown(["reading", "class", "metric",
                     *(f"gain over `{c}`" for c in READING_CASES.values()), "seeds"], out)


def traces(folder: Path) -> str:
    """The cases on real traces: ARRT of long and medium jobs."""
    out = []
    rows = read(folder, "traces")
    for t in dict.fromkeys(str(r["trace"]) for r in rows):
        allrows = {r["class"]: r for r in rows if r["trace"] == t and r["size_class"] == "all"}
        out.append([t, *(" / ".join(f"{allrows[cls][_arrt(c)]:.3g}" for c in CASES)
                         for cls in ("long", "medium"))])
    return markdown(["trace", "ARRT long: " + " / ".join(CASES),
                     "ARRT medium: " + " / ".join(CASES)], out)


TABLES: dict[str, Table] = {"headline": headline, "cases": cases, "table3": table3,
                            "arrivals": arrivals, "readings": readings, "traces": traces}
