"""Figure `readings` of seed 002: the thesis's cases under each reading of the model that the
thesis leaves open (docs/schedulers.md, "scojo-pect: readings of seed 002"), on the thesis's
five Lublin-Feitelson workloads.  Not part of `all`.

- "checkpoint without migration": the job stops at each checkpoint, gives its nodes back and
  restarts only on them (`without_migration=stop`, today's case `checkpoint`), or it pays the
  checkpoint's time and runs on, keeping its nodes (`without_migration=continue`, case
  `checkpoint-keep`);
- Young's delta from the ALC checkpoint's cost (`interval_size=app`) or the system image's,
  as the thesis's formula (`interval_size=sys`, suffix `-sys`);
- the checkpoint size S_app / S_sys mapped to [0.2, 0.95] (`ratio_low`, `ratio_high`) or, as
  the thesis's eq. 4, to [0, 1] (suffix `-01`).

Each row is a (reading, class) pair: the mean ARRT of every case over the seeds, and the gain
of migration over each of the other cases, paired by seed with its 95% interval, on the ARRT
as the mean of the per-job ratios (`arrt_*`) and as the ratio of the means (`arrt_pooled_*`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ckptsim.experiments.papers.common import FigureOutput, plt, save, write_csv
from ckptsim.experiments.stats import mean_ci

#: Cases of the figure: label -> parameters of `scojo-pect` (TOML).
CASES = {"original": 'checkpoint = "off"',
         "checkpoint": 'checkpoint = "alc", migration = false',
         "checkpoint-keep": 'checkpoint = "alc", migration = false, '
                            'without_migration = "continue"',
         "migration": 'checkpoint = "alc", migration = true'}
#: Readings: suffix -> (name, extra parameters of every case with checkpoints).
READINGS = {"": ("today's", ""),
            "-sys": ("interval_size=sys", 'interval_size = "sys"'),
            "-01": ("S_app/S_sys in [0, 1]", "ratio_low = 0, ratio_high = 1")}
CLASSES = ("long", "medium")
METRICS = ("arrt_long", "arrt_medium", "arrt_pooled_long", "arrt_pooled_medium",
           "alc_checkpoints", "alc_migrations", "utilization")


def labels() -> list[tuple[str, str]]:
    """(label, parameters) of every run of a seed; the original has no readings."""
    out = [("original", CASES["original"])]
    for suffix, (_, extra) in READINGS.items():
        for case in ("checkpoint", "checkpoint-keep", "migration"):
            params = CASES[case] + (f", {extra}" if extra else "")
            out.append((case + suffix, params))
    return out


def spec_text(n: int, machine: int, estimates: str, seeds: Sequence[int]) -> str:
    lines = ['name = "shi-readings"', f"seeds = {list(seeds)}",
             "metrics = [" + ", ".join(f'"{m}"' for m in METRICS) + "]", "",
             "[workloads.lublin]", 'generator = "lublin"', f"n = {n}",
             f"machine = {machine}", f'estimates = "{estimates}"', ""]
    for label, params in labels():
        lines += ["[[schedulers]]", 'name = "scojo-pect"', f'label = "{label}"',
                  f"params = {{ {params} }}", ""]
    return "\n".join(lines)


def runs_of(seeds: Sequence[int]) -> int:
    return len(labels()) * len(seeds)


def _gain(before: float, after: float) -> float:
    return 100.0 * (before - after) / before if before else float("nan")


def readings_figure(rows: list[dict[str, Any]], out: Path) -> FigureOutput:
    """readings.csv and readings.png (see the module)."""
    by: dict[tuple[str, int], dict[str, Any]] = {}
    for r in rows:
        if r.get("status") == "ok":
            by[(r["scheduler"], int(r["seed"]))] = r
    seeds = sorted({s for _, s in by})
    table = []
    for suffix, (reading, _) in READINGS.items():
        cases = {c: c + suffix if c != "original" else c for c in CASES}
        for cls in CLASSES:
            row: dict[str, Any] = {"reading": reading, "class": cls}
            for metric in (f"arrt_{cls}", f"arrt_pooled_{cls}"):
                kind = "pooled" if "pooled" in metric else "arrt"
                values = {c: [float(by[(label, s)][metric]) for s in seeds
                              if (label, s) in by] for c, label in cases.items()}
                for c in CASES:
                    row[f"{kind}_{c.replace('-', '_')}"] = (float(np.mean(values[c]))
                                                           if values[c] else np.nan)
                for c in ("checkpoint", "checkpoint-keep", "original"):
                    pairs = zip(values[c], values["migration"], strict=False)
                    mean, half, n = mean_ci([_gain(b, a) for b, a in pairs])
                    name = c.replace("-", "_")
                    row[f"{kind}_gain_vs_{name}_pct"] = mean
                    row[f"{kind}_gain_vs_{name}_ci"] = half
                row["seeds"] = n
            table.append(row)
    write_csv(out / "readings.csv", table)
    fig = plt().figure(figsize=(9.0, 4.2), dpi=130)
    for k, cls in enumerate(CLASSES):
        ax = fig.add_subplot(1, 2, k + 1)
        part = [r for r in table if r["class"] == cls]
        x = np.arange(len(part))
        for j, (c, colour) in enumerate((("checkpoint", "tab:blue"),
                                         ("checkpoint_keep", "tab:green"),
                                         ("original", "0.55"))):
            ys = [r[f"arrt_gain_vs_{c}_pct"] for r in part]
            err = [0.0 if np.isnan(r[f"arrt_gain_vs_{c}_ci"]) else r[f"arrt_gain_vs_{c}_ci"]
                   for r in part]
            ax.bar(x + (j - 1) * 0.27, ys, width=0.25, yerr=err, capsize=2, color=colour,
                   label=f"vs {c.replace('_', '-')}")
        ax.set_xticks(x, [r["reading"] for r in part], fontsize="x-small")
        ax.axhline(0, color="k", lw=0.8)
        ax.set_ylabel("gain of migration in ARRT (%)")
        ax.set_title(f"{cls} jobs", fontsize="small")
        ax.grid(axis="y", alpha=0.3)
        ax.legend(fontsize="x-small")
    fig.suptitle(f"Migration against each case, per reading of the model ({len(seeds)} "
                 "workloads, 95% intervals)", fontsize="medium")
    fig.tight_layout()
    save(fig, out / "readings.png")
    return FigureOutput(out / "readings.csv", out / "readings.png", table)
