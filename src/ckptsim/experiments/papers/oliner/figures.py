"""Seed 004's figures from the rows of a family's runs: figN.csv (the mean and 95% interval
over the replications of each point) and figN.png, for the failure-count family (Figs. 3-5)
and the prediction-level families (Figs. 6-10)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ckptsim.experiments.papers.common import FigureOutput, write_csv
from ckptsim.experiments.papers.oliner.experiments import (
    CAPACITY_TRACE,
    FAMILIES,
    METRICS,
    PREDICTION,
    SPREAD,
    TRACES,
    Options,
    _span_days,
)
from ckptsim.experiments.papers.oliner.plots import capacity_figure, line_figure
from ckptsim.experiments.papers.oliner.replications import replication_rows, write_replications
from ckptsim.experiments.stats import mean_ci


def _points(rows: list[dict[str, Any]], x: str, keys: Sequence[str]
            ) -> list[dict[str, Any]]:
    """Rows averaged over seeds, one per (trace, load, the x value and `keys`), sorted."""
    groups: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for row in rows:
        key = (row["workload"], float(row["workload.load_scale"]),
               *(float(row[k]) for k in keys), float(row[x]))
        groups.setdefault(key, []).append(row)
    out = []
    for key in sorted(groups, key=lambda k: (list(TRACES).index(k[0]), *k[1:])):
        members = groups[key]
        point: dict[str, Any] = {"trace": key[0], "load_scale": key[1]}
        point.update({k.split(".")[-1]: v for k, v in zip(keys, key[2:-1], strict=True)})
        point[x.split(".")[-1]] = key[-1]
        for m in METRICS:
            point[m] = float(np.mean([float(r[m]) for r in members]))
        # The spread over replications (different thinnings of the log): the 95% half-width.
        for m in SPREAD:
            point[f"{m}_ci95"] = mean_ci([r[m] for r in members])[1]
        point["seeds"] = len(members)
        out.append(point)
    return out


XFAIL = "failures injected over the workload's span"


def _xlabel(opt: Options) -> str:
    return (XFAIL if opt.failure_span == "submit"
            else "failures per submit span, continued until the last job ends")


_LOAD_STYLE = {0: {"ls": "-"}, 1: {"ls": "--"}}


def _load_series(loads: Sequence[float]) -> list[tuple[str, dict[str, float], dict[str, Any]]]:
    return [(f"c = {c:g}", {"load_scale": c}, _LOAD_STYLE.get(i, {"ls": ":"}))
            for i, c in enumerate(loads)]


def _capacity_trace(figure: str, opt: Options) -> str:
    trace = CAPACITY_TRACE[figure]
    if trace in opt.traces:
        return trace
    return opt.traces[0]


# ----------------------------------------------------------------------------- figures
def _write(figure: str, out: Path, table: list[dict[str, Any]]) -> FigureOutput:
    write_csv(out / f"{figure}.csv", table)
    return FigureOutput(out / f"{figure}.csv", out / f"{figure}.png", table)


def failures_figures(rows: list[dict[str, Any]], out: Path, opt: Options,
                     wanted: Sequence[str]) -> list[FigureOutput]:
    """Figs. 3-5: slowdown and capacity vs the number of failures."""
    points = _points(rows, "workload.failure_count", ["param.confidence"])
    days = _span_days(opt)
    nodes = 128
    for p in points:
        if opt.failure_span == "run":
            # The failures came until the last job ended: over the makespan, as many as
            # happened (the mean over the replications of both).
            p["days"] = p["makespan"] / 86400.0
            p["node_days_per_failure"] = (nodes * p["days"] / p["failures"]
                                          if p["failures"] else float("inf"))
            continue
        p["days"] = days[p["trace"]]
        p["node_days_per_failure"] = (nodes * p["days"] / p["failure_count"]
                                      if p["failure_count"] else float("inf"))
    outputs = []
    c0 = opt.loads[0]
    if "fig3" in wanted:
        table = [p for p in points if abs(p["load_scale"] - c0) < 1e-9]
        styles = ({"color": "0.3"}, {"color": "tab:blue"}, {"color": "tab:orange"})
        line_figure(table, opt.traces, "failure_count", _xlabel(opt),
                     [(f"a = {a:g}" + (" (no prediction)" if a == 0 else ""),
                       {"confidence": a}, styles[i % 3]) for i, a in enumerate(PREDICTION)],
                     f"Average bounded slowdown vs failures, balancing, c = {c0:g} (Fig. 3)",
                     out / "fig3.png")
        outputs.append(_write("fig3", out, table))
    if "fig4" in wanted:
        table = [p for p in points if p["confidence"] in (0.0, 0.1)]
        series = []
        for i, c in enumerate(opt.loads):
            style = _LOAD_STYLE.get(i, {"ls": ":"})
            series += [(f"c = {c:g}, a = 0.1", {"load_scale": c, "confidence": 0.1},
                        {**style, "color": "tab:blue"}),
                       (f"c = {c:g}, a = 0", {"load_scale": c, "confidence": 0.0},
                        {**style, "color": "0.45"})]
        line_figure(table, opt.traces, "failure_count", _xlabel(opt), series,
                     "Average bounded slowdown vs failures, balancing a = 0.1 against no "
                     "prediction, by load (Fig. 4)", out / "fig4.png")
        outputs.append(_write("fig4", out, table))
    if "fig5" in wanted:
        trace = "SDSC" if "SDSC" in opt.traces else opt.traces[0]
        table = [p for p in points if p["trace"] == trace and p["confidence"] == 0.1]
        capacity_figure(table, trace, "failure_count", _xlabel(opt), opt.loads,
                         {"confidence": 0.1}, "Capacity vs failures, balancing a = 0.1 "
                                              "(Fig. 5)", out / "fig5.png")
        outputs.append(_write("fig5", out, table))
    return outputs


def _rate_text(opt: Options) -> str:
    return ("the seed's failure counts" if opt.rate == "seed"
            else "failures at the log's rate per node-day")


def level_figures(family: str, rows: list[dict[str, Any]], out: Path, opt: Options,
                  wanted: Sequence[str]) -> list[FigureOutput]:
    """Figs. 6-8 (balancing, confidence) and 9-10 (tie-break, accuracy)."""
    level = "confidence" if family == "balancing" else "accuracy"
    points = _points(rows, f"param.{level}", ["workload.failure_count"])
    runs = replication_rows(rows, f"param.{level}", ["workload.failure_count"], list(TRACES))
    name = "balancing" if family == "balancing" else "tie-breaking"
    slowdown, *capacity = FAMILIES[family]
    outputs = []
    if slowdown in wanted:
        line_figure(points, opt.traces, level, f"prediction {level} a",
                     _load_series(opt.loads),
                    f"Average bounded slowdown vs {level}, {name}, {_rate_text(opt)} "
                    f"(Fig. {slowdown.removeprefix('fig')})", out / f"{slowdown}.png")
        outputs.append(_write(slowdown, out, points))
        write_replications(slowdown, out, runs, points)
    for figure in capacity:
        if figure not in wanted:
            continue
        trace = _capacity_trace(figure, opt)
        table = [p for p in points if p["trace"] == trace]
        capacity_figure(table, trace, level, f"prediction {level} a", opt.loads, {},
                        f"Capacity vs {level}, {name}, {_rate_text(opt)} "
                        f"(Fig. {figure.removeprefix('fig')})", out / f"{figure}.png")
        outputs.append(_write(figure, out, table))
        write_replications(figure, out, runs, table)
    return outputs
