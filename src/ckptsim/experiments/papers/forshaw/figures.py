"""The figures of seed 003 from the store rows of a family (`reduce`): figN.csv and figN.png.

Task overhead is the mean over completed tasks of (end - submit - duration), in minutes; energy
is the HTC-attributable energy (docs/energy.md), in MWh.  A policy's benefit (seed equation 5)
is computed per replication against that replication's None and Opt runs (the same seed: the
same users and jobs) and then averaged, with the 95% interval over the replications.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from ckptsim.experiments.benefit import paired_benefit_ci
from ckptsim.experiments.papers.common import (
    FigureOutput,
    clipped,
    figure,
    legend_below,
    save,
    write_csv,
)
from ckptsim.experiments.papers.forshaw import experiments as fw
from ckptsim.experiments.stats import mean_ci
from ckptsim.metrics.htc import benefit

Point = dict[str, Any]
#: metric -> (column stem, scale from the stored unit to the figure's unit)
SHOWN = {fw.OVERHEAD: ("overhead_min", 1 / 60.0), fw.ENERGY: ("energy_mwh", 1e-3),
         fw.UTILISATION: ("utilisation", 1.0)}
#: The seed's values of Figs. 4-5 (None; Opt, same for every duration in its figure).
SEED_NONE = {"overhead_min": 12.94, "energy_mwh": 112.0}
SEED_OPT = {"overhead_min": 3.48, "energy_mwh": 54.6}


def _value(row: dict[str, Any], metric: str) -> float:
    v = row.get(metric)
    return float(v) if v is not None else math.nan


def reduce(rows: list[dict[str, Any]], family: str, first: str = "interval",
           only: Sequence[int] | None = None) -> list[Point]:
    """One point per configuration of the family (None and Opt included): the mean and 95%
    interval of each shown metric, and of each benefit, over the replications (`first`:
    StartDelay's first checkpoint, as the runs were made; `only`: the checkpoint durations
    run, `Options.durations`)."""
    configs: dict[str, dict[str, Any]] = {"none": {"kind": "none", "d": 0, "value": None,
                                                   "variant": None}}
    for d in fw.durations_of(family, only):
        configs[fw.policy("opt", d)] = {"kind": "opt", "d": d, "value": None, "variant": None}
    for c in fw.configurations(family, only):
        configs.setdefault(fw.policy(c["kind"], c["d"], c["value"], c["variant"], first), c)
    by: dict[str, dict[int, dict[str, Any]]] = {}
    for row in rows:
        if row.get("status") != "ok":
            continue
        s = row.get("workload.checkpoint", row.get("workload.checkpoint.policy"))
        if s in configs:
            by.setdefault(s, {})[int(row["seed"])] = row
    none = by.get("none", {})
    points = []
    for s, c in configs.items():
        runs = by.get(s, {})
        if not runs:
            continue
        opt = by.get(fw.policy("opt", c["d"]), {}) if c["kind"] != "none" else {}
        point: Point = {"policy": s, **c, "seeds": len(runs)}
        # Each replication's values and benefits (FIG-replications.csv: what pairs them).
        point["runs"] = {k: {} for k in sorted(runs)}
        for metric, (stem, scale) in SHOWN.items():
            for k, r in runs.items():
                v = _value(r, metric)
                b = 0.0 if c["kind"] == "none" else (
                    benefit(v, _value(none[k], metric), _value(opt[k], metric))
                    if k in none and k in opt else math.nan)
                point["runs"][k].update({stem: v * scale, f"benefit_{stem}": b})
            mean, half, _ = mean_ci([_value(r, metric) * scale for r in runs.values()])
            point[stem], point[f"{stem}_ci"] = mean, half
            if c["kind"] == "none":  # v_x = v_none: no gain, by the definition
                point[f"benefit_{stem}"], point[f"benefit_{stem}_ci"] = 0.0, 0.0
                continue
            mean, half, _ = paired_benefit_ci(
                {k: _value(r, metric) for k, r in runs.items()},
                {k: _value(r, metric) for k, r in none.items()},
                {k: _value(r, metric) for k, r in opt.items()})
            point[f"benefit_{stem}"], point[f"benefit_{stem}_ci"] = mean, half
        points.append(point)
    return points


def _write(name: str, out: Path, rows: list[dict[str, Any]],
           runs: list[dict[str, Any]]) -> FigureOutput:
    """figN.csv (a row per configuration: means and 95% half-widths) and
    figN-replications.csv (a row per configuration and replication, `seed`: the claims pair
    two configurations by it)."""
    write_csv(out / f"{name}.csv", rows)
    write_csv(out / f"{name}-replications.csv", runs)
    return FigureOutput(out / f"{name}.csv", out / f"{name}.png", rows)


# ----------------------------------------------------------------------------- figs 4-5
def _baseline(pts: list[Point], out: Path, name: str, stem: str, ylabel: str,
              relative: bool = False) -> FigureOutput:
    """None and Opt at each duration, ours next to the seed's; `relative`: both drawn as a
    share of their None (the seed's energy is a year of its pool, ours the run's days)."""
    chosen = sorted((p for p in pts if p["kind"] in ("none", "opt")), key=lambda p: p["d"])
    none = next((p[stem] for p in chosen if p["kind"] == "none"), math.nan)
    rows, runs = [], []
    for p in chosen:
        seed = SEED_NONE[stem] if p["kind"] == "none" else SEED_OPT[stem]
        label = "None" if p["kind"] == "none" else f"Opt {p['d']} min"
        runs += [{"policy": label, "seed": k, "overhead_min": v["overhead_min"],
                  "energy_mwh": v["energy_mwh"]} for k, v in p["runs"].items()]
        rows.append({"policy": label,
                     stem: p[stem], f"{stem}_ci": p[f"{stem}_ci"], "seed": seed,
                     "relative_to_none": p[stem] / none if none else math.nan,
                     "seed_relative_to_none": seed / SEED_NONE[stem], "seeds": p["seeds"]})
    fig, axes = figure(1, 1, 6.0, 4.0)
    ax = axes[0][0]
    x = np.arange(len(rows))
    if relative:
        ours = [r["relative_to_none"] for r in rows]
        theirs = [r["seed_relative_to_none"] for r in rows]
        err = None
        ylabel = f"{ylabel}, share of None's"
    else:
        ours, theirs = [r[stem] for r in rows], [r["seed"] for r in rows]
        err = clipped(ours, [r[f"{stem}_ci"] for r in rows])  # no negative overheads
    ax.bar(x - 0.2, ours, 0.4, yerr=err, capsize=3, color="tab:blue",
           label="ckptsim (generated pool)")
    ax.bar(x + 0.2, theirs, 0.4, color="0.6", label="seed (Newcastle 2010)")
    ax.set_xticks(x, [r["policy"] for r in rows])
    ax.set_ylabel(ylabel)
    ax.grid(axis="y", alpha=0.3)
    ax.set_axisbelow(True)
    legend_below(fig, ax, 2)
    save(fig, out / f"{name}.png")
    return _write(name, out, rows, runs)


# ----------------------------------------------------------------------------- figs 6-12
PANELS = (("benefit_energy_mwh", "energy benefit"), ("benefit_overhead_min", "overhead benefit"),
          ("utilisation", "checkpoint utilisation"))
KIND_LABEL = {"fixed": "C(n)", "sr": "SR", "ccsr": "CCSR", "geometric": "Geometric",
              "minuteinhour": "MinuteInHour", "ratio": "Ratio", "startdelay": "StartDelay",
              "interarrival": "Interarrival"}


def _series_label(p: Point) -> str:
    label = f"{KIND_LABEL[p['kind']]}, {p['d']} min"
    v = p["variant"]
    if p["kind"] == "minuteinhour":
        label += f", r = {v} min"
    elif p["kind"] == "startdelay":
        label += f", C({v})"
    elif p["kind"] == "interarrival":
        label = f"{v[1]}, w = {v[0]} min"
    return label


def _sweep(pts: list[Point], out: Path, name: str, kinds: tuple[str, ...], xlabel: str,
           scale: float = 1.0) -> FigureOutput:
    chosen = [p for p in pts if p["kind"] in kinds]
    series: dict[str, list[Point]] = {}
    for p in chosen:
        series.setdefault(_series_label(p), []).append(p)
    rows, runs = [], []
    fig, axes = figure(1, 3, 15.0, 4.2)
    for label, members in series.items():
        members.sort(key=lambda p: p["value"])
        xs = [p["value"] * scale for p in members]
        for k, (col, title) in enumerate(PANELS):
            ax = axes[0][k]
            ys = np.array([p[col] for p in members])
            half = np.nan_to_num(np.array([p[f"{col}_ci"] for p in members]))
            ax.plot(xs, ys, marker="o", ms=3, label=label)
            ax.fill_between(xs, ys - half, ys + half, alpha=0.15)
            ax.set_title(title, fontsize="medium")
            ax.set_xlabel(xlabel)
            ax.grid(alpha=0.3)
        for p in members:
            variant = p["variant"]
            key = {"series": label, "kind": p["kind"], "duration_min": p["d"],
                   "value": p["value"],
                   "variant": "/".join(map(str, variant)) if isinstance(variant, tuple)
                   else variant}
            rows.append({**key, **{c: p[c] for col, _ in PANELS for c in (col, f"{col}_ci")},
                         "overhead_min": p["overhead_min"], "energy_mwh": p["energy_mwh"],
                         "seeds": p["seeds"]})
            runs += [{**key, "seed": k, **{col: v[col] for col, _ in PANELS},
                      "overhead_min": v["overhead_min"], "energy_mwh": v["energy_mwh"]}
                     for k, v in p["runs"].items()]
    means = [p[col] for p in chosen for col, _ in PANELS[:2] if math.isfinite(p[col])]
    low = max(min(means, default=0.0), -2.0)  # the mean curves, not their widest intervals
    for k in range(2):
        axes[0][k].axhline(0.0, color="k", lw=0.8, ls=":")
        axes[0][k].set_ylabel("benefit (1 = Opt, 0 = None)")
        axes[0][k].set_ylim(min(low, 0.0) - 0.1, 1.15)
    legend_below(fig, axes[0][0], 4)
    save(fig, out / f"{name}.png")
    return _write(name, out, rows, runs)


# ----------------------------------------------------------------------------- trace
def _trace(pts: list[Point], out: Path, name: str) -> FigureOutput:
    order = {"none": 0, "opt": 1, "fixed": 2, "ratio": 3}
    chosen = sorted(pts, key=lambda p: (order[p["kind"]], p["d"], p["value"] or 0))
    rows, runs = [], []
    for p in chosen:
        label = {"none": "None", "opt": f"Opt {p['d']} min"}.get(p["kind"])
        if label is None:
            label = (f"C({p['value']:g}) {p['d']} min" if p["kind"] == "fixed"
                     else f"Ratio({p['value']:g}) {p['d']} min")
        rows.append({"policy": label, **{c: p[c] for c in (
            "overhead_min", "overhead_min_ci", "energy_mwh", "energy_mwh_ci", "utilisation",
            "benefit_overhead_min", "benefit_overhead_min_ci", "benefit_energy_mwh",
            "benefit_energy_mwh_ci")}, "seeds": p["seeds"]})
        runs += [{"policy": label, "seed": k, **v} for k, v in p["runs"].items()]
    fig, axes = figure(1, 3, 17.0, 4.2)
    x = np.arange(len(rows))
    for k, (stem, ylabel) in enumerate((("overhead_min", "mean task overhead (min)"),
                                        ("energy_mwh", "HTC energy (MWh)"))):
        ax = axes[0][k]
        values = [r[stem] for r in rows]
        ax.bar(x, values, yerr=clipped(values, [r[f"{stem}_ci"] for r in rows]), capsize=3)
        ax.set_xticks(x, [r["policy"] for r in rows], rotation=45, ha="right",
                      fontsize="small")
        ax.set_ylabel(ylabel)
        ax.grid(axis="y", alpha=0.3)
    # The benefits, paired per replication: what the levels' wide intervals hide.
    ax = axes[0][2]
    shown = [r for r, p in zip(rows, chosen, strict=True) if p["kind"] not in ("none", "opt")]
    xs = np.arange(len(shown))
    for j, (stem, label) in enumerate((("benefit_overhead_min", "overhead"),
                                       ("benefit_energy_mwh", "energy"))):
        ax.bar(xs + (j - 0.5) * 0.4, [r[stem] for r in shown], 0.4, label=label,
               yerr=np.nan_to_num([r[f"{stem}_ci"] for r in shown]), capsize=3)
    ax.axhline(0.0, color="k", lw=0.8, ls=":")
    ax.set_xticks(xs, [r["policy"] for r in shown], rotation=45, ha="right", fontsize="small")
    ax.set_ylabel("benefit (1 = Opt, 0 = None), paired")
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize="small")
    save(fig, out / f"{name}.png")
    return _write(name, out, rows, runs)


FIGURE_MAKERS: dict[str, Callable[[list[Point], Path], FigureOutput]] = {
    "fig4": partial(_baseline, name="fig4", stem="overhead_min",
                    ylabel="mean task overhead (min)"),
    "fig5": partial(_baseline, name="fig5", stem="energy_mwh", ylabel="HTC energy",
                    relative=True),
    "fig6": partial(_sweep, name="fig6", kinds=("fixed",), xlabel="checkpoint interval n (min)"),
    "fig7": partial(_sweep, name="fig7", kinds=("fixed", "sr", "ccsr"),
                    xlabel="checkpoint interval n (min)"),
    "fig8": partial(_sweep, name="fig8", kinds=("geometric",), xlabel="common ratio r"),
    "fig9": partial(_sweep, name="fig9", kinds=("minuteinhour",),
                    xlabel="minute in the hour m"),
    "fig10": partial(_sweep, name="fig10", kinds=("ratio",),
                     xlabel="checkpoint share of execution p (%)", scale=100.0),
    "fig11": partial(_sweep, name="fig11", kinds=("startdelay",), xlabel="start delay d (min)"),
    "fig12": partial(_sweep, name="fig12", kinds=("interarrival",),
                     xlabel="arrival threshold l"),
    "trace": partial(_trace, name="trace"),
}
