"""Short text and HTML summaries of workloads, run results and run folders, for the
interpreter and notebooks (`__repr__`, `_repr_html_`): a few lines each, never arrays.

Only the standard library is used here, so showing a result costs no import."""

from __future__ import annotations

import html
import math
import numbers
from typing import Any

#: The metrics a run's summary shows, in order (those the run has).
KEY_METRICS = ("jobs_completed", "jobs_killed", "mean_wait", "mean_bsld", "utilization",
               "makespan", "checkpoints", "failures", "energy_kwh")


def number(x: Any) -> str:
    """A metric as a person reads it: integers with thousands separators, large floats to
    the unit, others to four significant digits."""
    if isinstance(x, bool) or not isinstance(x, numbers.Real):
        return str(x)
    if isinstance(x, numbers.Integral):
        return f"{int(x):,}"
    x = float(x)
    if not math.isfinite(x) or abs(x) >= 1e15:
        return f"{x:.4g}"
    if x == int(x) and abs(x) < 1e15:
        return f"{int(x):,}"
    return f"{x:,.0f}" if abs(x) >= 1000 else f"{x:.4g}"


def html_table(title: str, rows: list[tuple[str, Any]]) -> str:
    """A two-column table (name, value) under a caption, every text escaped."""
    body = "".join(f"<tr><th style=\"text-align:left\">{html.escape(k)}</th>"
                   f"<td style=\"text-align:left\">{html.escape(str(v))}</td></tr>"
                   for k, v in rows)
    return (f"<table><caption style=\"text-align:left\"><b>{html.escape(title)}</b></caption>"
            f"{body}</table>")


def _listed(items: Any, empty: str = "none") -> str:
    items = list(items)
    return "; ".join(map(str, items)) if items else empty


def workload_rows(w: Any) -> list[tuple[str, Any]]:
    rows: list[tuple[str, Any]] = [
        ("source", w.source or "(unnamed)"),
        ("jobs", number(w.n_jobs)),
        ("machine size", number(w.machine_size)),
    ]
    if w.n_jobs:
        first, last = float(w.submit[0]), float(w.submit[-1])
        rows.append(("submits", f"{number(first)} to {number(last)} s "
                                f"({(last - first) / 86400:.3g} days)"))
        rows.append(("offered load", number(w.offered_load())))
    rows.append(("transforms", _listed(w.transforms)))
    if w.extra:
        rows.append(("extra columns", ", ".join(w.extra)))
    return rows


def workload_repr(w: Any) -> str:
    text = f"Workload(source={w.source!r}, jobs={w.n_jobs}, machine_size={w.machine_size}"
    if w.transforms:
        text += f", transforms={len(w.transforms)}"
    if w.extra:
        text += f", extra={list(w.extra)}"
    return text + ")"


def result_rows(r: Any) -> list[tuple[str, Any]]:
    rows: list[tuple[str, Any]] = [
        ("scheduler", r.scheduler),
        ("parameters", _listed(f"{k}={v}" for k, v in r.params.items())),
        ("workload", r.workload.source or "(unnamed)"),
        ("jobs", number(len(r.table))),
        ("machine size", number(r.options.get("machine_size", r.table.machine_size))),
    ]
    if r.components:
        rows.append(("components", ", ".join(r.components)))
    rows += [(k, number(r.summary[k])) for k in KEY_METRICS if k in r.summary]
    rows.append(("simulated in", f"{r.wall_seconds:.3g} s ({number(r.events)} events)"))
    return rows


def result_repr(r: Any) -> str:
    # Without thousands separators: the repr's own separator is the comma.
    shown = ", ".join(f"{k}={number(r.summary[k]).replace(',', '_')}"
                      for k in ("mean_wait", "mean_bsld") if k in r.summary)
    return (f"RunResult(scheduler={r.scheduler!r}, workload={r.workload.source!r}, "
            f"jobs={len(r.table)}" + (f", {shown}" if shown else "") + ")")


def run_folder_rows(f: Any) -> list[tuple[str, Any]]:
    s = f.summary
    w = s.get("workload", {}) if isinstance(s.get("workload"), dict) else {}
    metrics = s.get("metrics", {}) if isinstance(s.get("metrics"), dict) else {}
    rows: list[tuple[str, Any]] = [
        ("scheduler", s.get("scheduler", "?")),
        ("workload", w.get("source", "?")),
        ("jobs", number(len(f.jobs))),
        ("machine size", number(s.get("options", {}).get("machine_size", "?"))),
    ]
    rows += [(k, number(metrics[k])) for k in KEY_METRICS if k in metrics]
    for name in ("allocations", "unavailability", "out_jobs"):
        frame = getattr(f, name)
        rows.append((name, "not recorded" if frame is None else f"{len(frame):,} rows"))
    return rows
