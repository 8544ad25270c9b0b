"""Seed 002's figures from the runs of `ckptsim.experiments.papers.shi`: the reductions of the
sweep rows into CSV tables and their PNG plots, each beside the thesis's numbers."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ckptsim.experiments.papers.common import FigureOutput, find, plt, save, write_csv
from ckptsim.experiments.stats import mean_ci

#: The cases: the original scheduler, checkpoints without migration under its two readings
#: (the job stops at a checkpoint and restarts only on its own nodes; the checkpoint costs its
#: time and the job keeps its nodes) and checkpoints with migration.
CASES = ("original", "checkpoint", "checkpoint-keep", "migration")
CASE_COLOURS = {"original": "0.55", "checkpoint": "tab:blue", "checkpoint-keep": "tab:green",
                "migration": "tab:orange"}
#: Gains of migration: column stem -> the case it is measured against.
VERSUS = {"": "checkpoint", "_vs_keep": "checkpoint-keep", "_vs_original": "original"}
SIZES = ("narrow", "midsize", "wide")
#: Figs. 11-15 and the seed each shows.
SEED_FIGURES = {"fig11": 71, "fig12": 31, "fig13": 7, "fig14": 23, "fig15": 13}
#: The thesis's gains from migration, % of ARRT (long, medium), per seed (Figs. 11-15).
THESIS_GAIN = {71: (2.20, 4.41), 31: (1.21, 3.75), 7: (1.06, 2.02), 23: (1.64, 4.13),
               13: (1.74, 4.56)}
#: Its averages over the seeds (Fig. 16): about 1.5% for long and 4% for medium jobs.
THESIS_MEAN_GAIN = {"long": 1.5, "medium": 4.0}
#: Table 3 of the thesis: % jobs, % work, mean size (short, medium, long), inter-arrival (s).
THESIS_TABLE3 = {
    71: ((64, 19.5, 16.5), (0.5, 26, 73.5), (9, 17, 19), 810),
    23: ((65, 19, 16), (0.5, 27, 72.5), (9, 17, 20), 1038),
    31: ((63, 20, 17), (0.5, 25, 74.5), (9, 16, 20), 860),
    13: ((64, 19, 17), (0.4, 26.5, 73.1), (9, 17, 20), 798),
    7: ((64, 20, 16), (0.5, 26, 73.5), (8, 17, 21), 840),
}
CLASSES = ("short", "medium", "long")


def gain(before: float, after: float) -> float:
    """Improvement of ARRT from `before` to `after`, % of `before`."""
    return 100.0 * (before - after) / before if before else float("nan")


# ----------------------------------------------------------------------------- Table 3
def table3_figure(rows: list[dict[str, Any]], out: Path, n: int = 10000) -> FigureOutput:
    """Table 3 beside the thesis's: CSV with `thesis_` columns, bars of ours against its."""
    table = []
    for row in rows:
        jobs, work, size, gap = THESIS_TABLE3[row["seed"]]
        thesis: dict[str, Any] = {}
        for k, c in enumerate(CLASSES):
            thesis[f"thesis_jobs_{c}_pct"] = float(jobs[k])
            thesis[f"thesis_work_{c}_pct"] = float(work[k])
            thesis[f"thesis_size_{c}"] = float(size[k])
        thesis["thesis_interarrival_s"] = float(gap)
        table.append({**row, **thesis})
    write_csv(out / "table3.csv", table)
    pyplot = plt()
    fig, axes = pyplot.subplots(1, 4, figsize=(16, 3.6), dpi=130)
    groups = [("jobs", "% of jobs"), ("work", "% of work"), ("size", "mean job size")]
    x = np.arange(len(table))
    for ax, (key, label) in zip(axes[:3], groups, strict=True):
        for k, c in enumerate(CLASSES):
            ours = [r[f"{key}_{c}" + ("_pct" if key != "size" else "")] for r in table]
            theirs = [r[f"thesis_{key}_{c}" + ("_pct" if key != "size" else "")]
                      for r in table]
            colour = ("tab:green", "tab:blue", "tab:red")[k]
            ax.bar(x + (k - 1) * 0.27, ours, width=0.25, color=colour, label=c)
            ax.scatter(x + (k - 1) * 0.27, theirs, marker="_", s=120, color="k", zorder=3)
        ax.set_xticks(x, [str(r["seed"]) for r in table])
        ax.set_xlabel("seed")
        ax.set_ylabel(label)
    axes[-1].bar(x, [r["interarrival_s"] for r in table], width=0.5, color="0.55")
    axes[-1].scatter(x, [r["thesis_interarrival_s"] for r in table], marker="_", s=200,
                     color="k", zorder=3, label="thesis")
    axes[-1].set_xticks(x, [str(r["seed"]) for r in table])
    axes[-1].set_xlabel("seed")
    axes[-1].set_ylabel("mean inter-arrival (s)")
    axes[0].legend(fontsize="x-small")
    axes[-1].legend(fontsize="x-small")
    fig.suptitle(f"Lublin-Feitelson workloads, {n:,} jobs (bars) and the thesis's Table 3 "
                 "(black marks, 10,000 jobs)", fontsize="medium")
    save(fig, out / "table3.png")
    return FigureOutput(out / "table3.csv", out / "table3.png", table)


# ----------------------------------------------------------------------------- arrivals
def arrivals_figure(rows: list[dict[str, Any]], out: Path, n: int = 10000,
                    machine: int = 128) -> FigureOutput:
    """The mean inter-arrival time and offered load of every seed (the thesis's five first),
    and their mean, 95% half-width and standard deviation over the thesis's seeds and over all
    of them, beside the thesis's Table 3 (its five seeds' mean: 869 s)."""
    table: list[dict[str, Any]] = []
    for r in rows:
        seed = int(r["seed"])
        table.append({"seed": seed, "thesis_seed": int(seed in THESIS_TABLE3),
                      "interarrival_s": r["interarrival_s"], "load": r["load"],
                      "thesis_interarrival_s": (float(THESIS_TABLE3[seed][3])
                                                if seed in THESIS_TABLE3 else float("nan"))})
    thesis_mean = float(np.mean([v[3] for v in THESIS_TABLE3.values()]))
    summary = []
    for name, members in (("thesis seeds", [r for r in table if r["thesis_seed"]]),
                          (f"{len(table)} seeds", table)):
        row: dict[str, Any] = {"seed": name, "thesis_seed": "", "seeds": len(members)}
        for key in ("interarrival_s", "load"):
            values = [r[key] for r in members]
            mean, half, _ = mean_ci(values)
            row[key] = mean
            row[f"{key}_ci95"] = half
            row[f"{key}_sd"] = float(np.std(values, ddof=1)) if len(values) > 1 else np.nan
        row["thesis_interarrival_s"] = thesis_mean
        summary.append(row)
    columns = list(dict.fromkeys(k for r in table + summary for k in r))
    write_csv(out / "arrivals.csv", [{k: r.get(k, "") for k in columns} for r in table + summary])
    pyplot = plt()
    fig, axes = pyplot.subplots(1, 2, figsize=(13, 3.8), dpi=130)
    x = np.arange(len(table))
    colours = ["tab:orange" if r["thesis_seed"] else "0.6" for r in table]
    for ax, key, label in ((axes[0], "interarrival_s", "mean inter-arrival time (s)"),
                           (axes[1], "load", "offered load (work / capacity)")):
        ax.bar(x, [r[key] for r in table], color=colours, width=0.7)
        ax.axhline(summary[-1][key], color="k", lw=0.9, ls="--",
                   label=f"mean of the {len(table)} seeds")
        ax.set_xticks(x, [str(r["seed"]) for r in table], fontsize="x-small")
        ax.set_xlabel("seed (the thesis's five in orange)")
        ax.set_ylabel(label)
    axes[0].scatter(x[:len(THESIS_TABLE3)], [r["thesis_interarrival_s"] for r in table
                                             if r["thesis_seed"]],
                    marker="_", s=150, color="k", zorder=3, label="thesis, per seed")
    axes[0].axhline(thesis_mean, color="tab:red", lw=0.9, label="thesis, mean (869 s)")
    axes[0].legend(fontsize="x-small")
    axes[1].legend(fontsize="x-small")
    fig.suptitle(f"Arrivals of the Lublin-Feitelson workloads, {n:,} jobs on {machine} nodes, "
                 "per seed", fontsize="medium")
    save(fig, out / "arrivals.png")
    return FigureOutput(out / "arrivals.csv", out / "arrivals.png", table + summary)


# ----------------------------------------------------------------------------- Figs. 11-15
def _arrt(row: dict[str, Any], cls: str, size: str) -> float:
    key = f"arrt_{cls}" if size == "all" else f"arrt_{cls}_{size}"
    value = row.get(key)
    return float(value) if value is not None else float("nan")


def _column(case: str) -> str:
    return case.replace("-", "_")


def _case_table(rows: list[dict[str, Any]], match: dict[str, Any], **label: Any
                ) -> list[dict[str, Any]]:
    """ARRT of long and medium jobs by size class and case, with the gains of migration over
    checkpoints that stop the job (`gain_migration_pct`), that keep its nodes
    (`gain_vs_keep_pct`) and over the original (`gain_vs_original_pct`)."""
    runs = {case: find(rows, scheduler=case, **match) for case in CASES}
    table = []
    for cls in ("long", "medium"):
        for size in (*SIZES, "all"):
            values = {case: _arrt(runs[case], cls, size) for case in CASES}
            table.append({**label, "class": cls, "size_class": size,
                          **{f"arrt_{_column(case)}": values[case] for case in CASES},
                          "gain_migration_pct": gain(values["checkpoint"],
                                                     values["migration"]),
                          "gain_vs_keep_pct": gain(values["checkpoint-keep"],
                                                   values["migration"]),
                          "gain_vs_original_pct": gain(values["original"],
                                                       values["migration"])})
    return table


def _case_panels(axes: Any, table: list[dict[str, Any]], title: str) -> None:
    groups = (*SIZES, "all")
    for ax, cls in zip(axes, ("long", "medium"), strict=True):
        x = np.arange(len(groups))
        for k, case in enumerate(CASES):
            values = [next(r[f"arrt_{_column(case)}"] for r in table
                           if r["class"] == cls and r["size_class"] == g) for g in groups]
            ax.bar(x + (k - 1.5) * 0.2, values, width=0.19, color=CASE_COLOURS[case],
                   label=case)
        ax.set_xticks(x, list(groups))
        ax.set_ylabel("average relative response time")
        ax.set_title(f"{cls} jobs, {title}", fontsize="small")
        ax.grid(axis="y", alpha=0.3)


def case_figure(figure: str, rows: list[dict[str, Any]], out: Path) -> FigureOutput:
    """Figs. 11-15: ARRT of long and medium jobs by size class, three cases, one seed."""
    seed = SEED_FIGURES[figure]
    table = _case_table(rows, {"seed": seed}, seed=seed)
    def gains(column: str) -> str:
        return " / ".join(f"{next(r[column] for r in table if r['class'] == c and r['size_class'] == 'all'):.1f}%"  # noqa: E501
                          for c in ("long", "medium"))

    thesis = THESIS_GAIN[seed]
    pyplot = plt()
    fig, axes = pyplot.subplots(1, 2, figsize=(11, 4.0), dpi=130)
    _case_panels(axes, table, f"seed {seed}")
    axes[0].legend(fontsize="x-small")
    fig.suptitle(f"Fig. {figure.removeprefix('fig')}: gain from migration, long / medium, over "
                 f"checkpoints that stop the job {gains('gain_migration_pct')}, that keep its "
                 f"nodes {gains('gain_vs_keep_pct')},\nover the original "
                 f"{gains('gain_vs_original_pct')} (thesis, over checkpoints: "
                 f"{thesis[0]:.2f}% / {thesis[1]:.2f}%)", fontsize="small")
    save(fig, out / f"{figure}.png")
    write_csv(out / f"{figure}.csv", table)
    return FigureOutput(out / f"{figure}.csv", out / f"{figure}.png", table)


# ----------------------------------------------------------------------------- Fig. 16
#: ARRT kinds of Fig. 16's columns: prefix -> metric stem (the mean of the per-job ratios, and
#: the ratio of the means).
ARRT_KINDS = {"": "arrt", "pooled_": "arrt_pooled"}
VERSUS_LABELS = {"": "over checkpoints that stop the job",
                 "_vs_keep": "over checkpoints that keep the nodes",
                 "_vs_original": "over the original"}


def gain_figure(rows: list[dict[str, Any]], seeds: Sequence[int], out: Path) -> FigureOutput:
    """Fig. 16: gains from migration per seed, over each other case and on both ARRTs
    (`gain_CLASS[_vs_keep|_vs_original]_pct`, `pooled_gain_...`), and their mean with a 95%
    interval over the thesis's five seeds and over all the seeds run (the thesis's five
    first)."""
    table: list[dict[str, Any]] = []
    for seed in seeds:
        runs = {case: find(rows, scheduler=case, seed=seed) for case in CASES}
        row: dict[str, Any] = {"seed": seed}
        for cls in ("long", "medium"):
            for prefix, stem in ARRT_KINDS.items():
                after = float(runs["migration"].get(f"{stem}_{cls}", "nan"))
                for suffix, case in VERSUS.items():
                    row[f"{prefix}gain_{cls}{suffix}_pct"] = gain(
                        float(runs[case].get(f"{stem}_{cls}", "nan")), after)
            row[f"thesis_gain_{cls}_pct"] = (THESIS_GAIN[seed][cls == "medium"]
                                             if seed in THESIS_GAIN else float("nan"))
        table.append(row)
    summary = []
    for name, members in (("thesis seeds", [r for r in table if r["seed"] in THESIS_GAIN]),
                          (f"{len(table)} seeds", table)):
        row = {"seed": name}
        for cls in ("long", "medium"):
            for prefix in ARRT_KINDS:
                for suffix in VERSUS:
                    key = f"{prefix}gain_{cls}{suffix}_pct"
                    mean, half, _ = mean_ci([r[key] for r in members])
                    row[key] = mean
                    row[key.replace("_pct", "_ci95")] = half
            row[f"thesis_gain_{cls}_pct"] = THESIS_MEAN_GAIN[cls]
        summary.append(row)
    columns = list(dict.fromkeys(k for r in table + summary for k in r))
    write_csv(out / "fig16.csv", [{k: r.get(k, "") for k in columns} for r in table + summary])
    pyplot = plt()
    fig, axes = pyplot.subplots(1, 2, figsize=(12, 4.8), dpi=130,
                                gridspec_kw={"width_ratios": [3, 2]})
    thesis_rows = [r for r in table if r["seed"] in THESIS_GAIN]
    x = np.arange(len(thesis_rows))
    bars = [(cls, suffix) for cls in ("long", "medium") for suffix in ("", "_vs_keep")]
    for k, (cls, suffix) in enumerate(bars):
        colour = ("tab:red", "tab:blue")[cls == "medium"]
        offset = (k - 1.5) * 0.2
        axes[0].bar(x + offset, [r[f"gain_{cls}{suffix}_pct"] for r in thesis_rows],
                    width=0.19, color=colour, hatch="//" if suffix else None,
                    edgecolor="white" if suffix else None,
                    label=f"{cls}, {VERSUS_LABELS[suffix]}")
        axes[0].scatter(x + offset, [r[f"thesis_gain_{cls}_pct"] for r in thesis_rows],
                        marker="_", s=150, color="k", zorder=3,
                        label="thesis (over its checkpoint case)" if k == 0 else None)
    axes[0].set_xticks(x, [str(r["seed"]) for r in thesis_rows])
    axes[0].set_xlabel("seed (the thesis's five)")
    axes[0].set_ylabel("ARRT gain from migration (%)")
    axes[0].axhline(0.0, color="k", lw=0.8)
    axes[0].legend(fontsize="x-small", loc="upper center", bbox_to_anchor=(0.5, -0.16),
                   ncol=3)
    last = summary[-1]
    for j, suffix in enumerate(VERSUS):
        for k, cls in enumerate(("long", "medium")):
            colour = ("tab:red", "tab:blue")[k]
            xpos = j + (k - 0.5) * 0.3
            axes[1].errorbar([xpos], [last[f"gain_{cls}{suffix}_pct"]],
                             yerr=[last[f"gain_{cls}{suffix}_ci95"]], fmt="o", color=colour,
                             capsize=4, label=cls if j == 0 else None)
            if suffix != "_vs_original":
                axes[1].scatter([xpos], [THESIS_MEAN_GAIN[cls]], marker="_", s=200,
                                color="k", zorder=3,
                                label="thesis" if (j, k) == (0, 0) else None)
    axes[1].set_xticks(range(len(VERSUS)), ["over stopping\ncheckpoints",
                                            "over checkpoints\nkeeping nodes",
                                            "over the\noriginal"], fontsize="x-small")
    axes[1].set_xlim(-0.6, len(VERSUS) - 0.4)
    axes[1].axhline(0.0, color="k", lw=0.8)
    axes[1].set_ylabel("ARRT gain from migration (%)")
    axes[1].legend(fontsize="x-small")
    axes[1].set_title(f"mean and 95% CI over {len(table)} seeds", fontsize="small")
    fig.suptitle("Fig. 16: gain from migration per seed (bars) and the thesis's (black marks)",
                 fontsize="medium")
    save(fig, out / "fig16.png")
    return FigureOutput(out / "fig16.csv", out / "fig16.png", table + summary)


# ----------------------------------------------------------------------------- traces
def trace_figure(rows: list[dict[str, Any]], traces: Sequence[str], out: Path
                 ) -> FigureOutput:
    """The three cases on real traces: ARRT of long and medium jobs by size class."""
    table: list[dict[str, Any]] = []
    for t in traces:
        part = _case_table(rows, {"workload": t}, trace=t)
        runs = {case: find(rows, scheduler=case, workload=t) for case in CASES}
        for row in part:
            for case in CASES:
                row[f"migrations_{_column(case)}"] = runs[case].get("alc_migrations")
                row[f"checkpoints_{_column(case)}"] = runs[case].get("alc_checkpoints")
                row[f"utilization_{_column(case)}"] = runs[case].get("utilization")
        table += part
    write_csv(out / "traces.csv", table)
    pyplot = plt()
    fig, axes = pyplot.subplots(len(traces), 2, figsize=(10, 3.6 * len(traces)), dpi=130,
                                squeeze=False)
    for ax_row, t in zip(axes, traces, strict=True):
        _case_panels(ax_row, [r for r in table if r["trace"] == t], t)
    axes[0][0].legend(fontsize="x-small")
    fig.suptitle("The four cases on real traces (classes by the users' estimates)",
                 fontsize="medium")
    save(fig, out / "traces.png")
    return FigureOutput(out / "traces.csv", out / "traces.png", table)
