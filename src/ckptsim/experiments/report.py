"""The report of a sweep: the spec's figures and one HTML page that needs no server.

    DIR/report/index.html      figures (embedded), summary table, run matrix, failures,
                               versions and seeds
    DIR/report/figures/NAME.png, NAME.svg
    DIR/report/figures/gantt-RUN.png, DIR/report/gantt/RUN/   with `gantt=RUN`

The page embeds its figures as data URIs, so the single file can be mailed or archived and
still shows everything; the PNG and SVG files are there for papers.  Everything the page
shows comes from the store (`sweep.json` and the run files), not from the traces -- except
the Gantt chart of the run named by `gantt`, which is simulated again (experiments/rerun.py)
since a sweep does not record which nodes its jobs held.  The page is the Jinja2 template
templates/report.html filled in with the values computed here.
"""

from __future__ import annotations

import base64
import functools
import html
import math
import platform
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ckptsim import __version__
from ckptsim.experiments.columns import short_names
from ckptsim.experiments.figures import (
    draw,
    failed_points,
    figure_data,
    infinite_points,
    single_points,
    without_value,
)
from ckptsim.experiments.results import PARTIAL_NOTE, group, partial, shown_inputs
from ckptsim.experiments.spec import DEFAULT_METRICS, FigureSpec
from ckptsim.experiments.store import load_store


@dataclass
class Report:
    html: Path
    figures: list[Path] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # figures that could not be drawn, etc.
    damaged_jobs: list[tuple[str, str]] = field(default_factory=list)  # (file, why)
    unchecked: list[str] = field(default_factory=list)  # run tables without a SHA-256


def versions() -> dict[str, str]:
    import matplotlib
    import numpy
    import pyarrow

    return {"ckptsim": __version__, "python": platform.python_version(),
            "numpy": numpy.__version__, "pyarrow": pyarrow.__version__,
            "matplotlib": matplotlib.__version__}


def make_report(store_dir: str | Path, out: str | Path | None = None,
                gantt: str | None = None) -> Report:
    """Draw the figures named in the store's spec and write the HTML page; with `gantt` (a
    run id of the store, or a unique prefix of one) also the Gantt chart of that run.

    Raises:
        ConfigError: (key --gantt) `gantt` names no run, or several, or a run that cannot be
            simulated again (see `rerun.rerun_schedule`).
    """
    loaded = load_store(store_dir)
    rows, manifest = loaded.rows, loaded.manifest
    folder = Path(out) if out is not None else Path(store_dir) / "report"
    figdir = folder / "figures"
    inputs = manifest.get("inputs") or []
    metrics = manifest.get("metrics") or list(DEFAULT_METRICS)
    report = Report(html=folder / "index.html", damaged_jobs=loaded.damaged_jobs,
                    unchecked=loaded.unchecked)
    sections = []
    for doc in manifest.get("figures", []):
        fig = FigureSpec(**{**doc, "where": {k: tuple(v) for k, v in doc["where"].items()}})
        try:
            data = figure_data(fig, rows)  # the points, computed once for the figure's parts
            paths = draw(fig, rows, figdir, inputs, data)
        except ValueError as exc:
            report.notes.append(f"figure {fig.name}: {exc}")
            continue
        report.figures += paths
        sections.append(_figure(fig, paths[0], paths[1], inputs, without_value(fig, rows),
                                infinite_points(fig, rows, data),
                                failed_points(fig, rows, data), single_points(data)))
    chart = None
    if gantt is not None:
        chart = _gantt(store_dir, gantt, rows, manifest, folder, report)
    notes = report.notes + [f"damaged per-job file {f} ({why}): rerun the sweep to recompute "
                            "its run" for f, why in loaded.damaged_jobs]
    page = _page(manifest, rows, inputs, metrics, sections, notes, chart)
    folder.mkdir(parents=True, exist_ok=True)
    report.html.write_text(page, encoding="utf-8")
    return report


# ----------------------------------------------------------------------------- HTML
_TEMPLATES = Path(__file__).resolve().parent / "templates"


@functools.lru_cache(maxsize=1)
def _template() -> Any:
    import jinja2

    env = jinja2.Environment(loader=jinja2.FileSystemLoader(_TEMPLATES), autoescape=False,
                             trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True,
                             undefined=jinja2.StrictUndefined)
    # Escaped as html.escape does (quotes too), every value explicitly: `esc`.
    env.filters["esc"] = _esc
    return env.get_template("report.html")


def _esc(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _fmt(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        if math.isnan(value):
            return "–"
        if value != 0 and (abs(value) >= 1e6 or abs(value) < 1e-3):
            return f"{value:.4g}"
        return f"{value:,.4g}" if abs(value) < 1000 else f"{value:,.0f}"
    return str(value)


def _figure(fig: FigureSpec, png: Path, svg: Path, columns: Sequence[str],
            missing: tuple[int, int] = (0, 0),
            infinite: Sequence[tuple[Any, Any, Any, float]] = (),
            failed: tuple[int, Sequence[tuple[Any, Any, Any]]] = (0, ()),
            single: tuple[Sequence[tuple[Any, Any, Any]], int] = ((), 0)) -> dict[str, Any]:
    """A figure of the page: its SVG embedded, its caption, links to its files; `missing`:
    (runs without a value of its metric, runs it shows); `infinite`: the points not drawn
    since their mean is infinite (`figures.infinite_points`); `failed`: the failed runs it
    selects and the points they leave without a run (`figures.failed_points`); `single`: the
    points of one run, drawn without an error bar, and the points drawn
    (`figures.single_points`)."""
    data = base64.b64encode(svg.read_bytes()).decode("ascii")

    def label(c: str) -> str:
        return short_names([c, *columns])[0] if c in columns else c

    what = f"{fig.y} against {label(fig.x)}"
    if fig.group_by:
        what += f", one {'bar' if fig.kind == 'bar' else 'line'} per {label(fig.group_by)}"
    if fig.facet_by:
        what += f", one panel per {label(fig.facet_by)}"
    if fig.where:
        what += "; only " + ", ".join(
            f"{label(k)} = {' or '.join(str(x) for x in v)}" for k, v in fig.where.items())
    if single[0] and len(single[0]) == single[1]:
        caption = f"{what}. One run per point: no replications, so no confidence interval."
    else:
        caption = f"{what}. Mean over replications, error bars: 95% confidence interval."
    if missing[0]:
        caption += (f" {missing[0]} of the {missing[1]} runs it shows have no value of "
                    f"{fig.y} (missing or NaN): each point is the mean over its runs that "
                    "have one.")
    def where(facet: Any, g: Any, x: Any) -> str:
        at = [(fig.facet_by, facet), (fig.group_by, g), (fig.x, x)]
        return ", ".join(f"{label(c)} = {v}" for c, v in at if c)

    if single[0] and len(single[0]) < single[1]:
        shown = "; ".join(where(*p) for p in single[0][:5])
        more = len(single[0]) - 5
        caption += (f" No error bar where a point is one run: {shown}"
                    f"{f' and {more} more' if more > 0 else ''}.")
    if failed[0]:
        caption += (f" {failed[0]} run{'s' if failed[0] > 1 else ''} it selects failed and "
                    f"{'are' if failed[0] > 1 else 'is'} left out.")
        if failed[1]:
            caption += (" No point where every run failed: "
                        + "; ".join(where(*p) for p in failed[1]) + ".")
    if infinite:
        caption += (f" Not drawn, as a run's value of {fig.y} is infinite: "
                    + "; ".join(f"{where(f, g, x)} (mean {_fmt(m)})" for f, g, x, m in infinite)
                    + ".")
    return {"name": fig.name, "mime": "image/svg+xml", "data": data, "caption": caption,
            "links": [("PNG", f"figures/{png.name}"), ("SVG", f"figures/{svg.name}")]}


def _gantt(store_dir: str | Path, wanted: str, rows: list[dict[str, Any]],
           manifest: dict[str, Any], folder: Path, report: Report) -> dict[str, Any]:
    """The Gantt chart of the run `wanted` names, simulated again, as a figure of the page."""
    from ckptsim.experiments.rerun import find_run_id, rerun_schedule
    from ckptsim.plots.gantt import plot_gantt

    by_id = {r["run_id"]: r for r in rows}
    run_id = find_run_id(store_dir, wanted, list(dict.fromkeys([*manifest.get("runs", []),
                                                                 *by_id])))
    short = run_id[:12]
    row = by_id.get(run_id)
    if row is None or row.get("status") != "ok":
        from ckptsim.errors import ConfigError

        raise ConfigError("--gantt", f"run {short} has no result in {store_dir} "
                                     f"({'not run yet' if row is None else 'it failed'}): "
                                     "choose a run whose status is ok")
    rerun = rerun_schedule(store_dir, run_id, folder / "gantt" / short, row)
    if rerun.differences:
        report.notes.append(f"the Gantt chart's run {short} simulated again differs from the "
                            f"stored run ({'; '.join(rerun.differences[:3])}): a trace or "
                            "ckptsim changed since the sweep")
    png = folder / "figures" / f"gantt-{short}.png"
    png.parent.mkdir(parents=True, exist_ok=True)
    # Coloured by how attempts ended where they end in more than one way, else by job.
    color = "ended" if len(rerun.endings) > 1 else "job"
    drawn = plot_gantt(rerun.folder, png, color=color)
    report.figures.append(png)
    what = ", ".join(f"{k}={_fmt(row.get(k))}" for k in shown_inputs(rows, manifest.get(
        "inputs") or []) if k in row)
    return {"name": f"gantt-{short}", "run": short, "mime": "image/png",
            "data": base64.b64encode(png.read_bytes()).decode("ascii"),
            "caption": f"run {short} ({what or row.get('workload')}, seed {row.get('seed')}) "
                       f"simulated again: {drawn.attempts} attempts of jobs, each on its nodes, "
                       f"coloured by {'how it ended' if color == 'ended' else 'job'}; "
                       "shaded: nodes down. Records: "
                       f"gantt/{short}/ (ckptsim gantt draws windows of it).",
            "links": [("PNG", f"figures/{png.name}")]}


def _page(manifest: dict[str, Any], rows: list[dict[str, Any]], inputs: list[str],
          metrics: list[str], figures: list[dict[str, Any]], notes: list[str],
          gantt: dict[str, Any] | None = None) -> str:
    matrix_ids = manifest.get("runs", [])
    by_id = {r["run_id"]: r for r in rows}
    failed = [r for r in rows if r["status"] != "ok"]
    shown = shown_inputs(rows, inputs) or [c for c in ("workload", "scheduler") if c in inputs]
    labels = short_names([*shown, *inputs])[:len(shown)]

    summary = group(rows, shown, metrics, inputs)
    summary_rows = [[_fmt(g[c]) for c in shown] + [g["runs"], g["failed"]]
                    + [_pm(g[m], g[f"{m}_ci95"]) + (f" (n={g[f'{m}_n']})" if partial(g, m)
                                                     else "") for m in metrics]
                    for g in summary]
    if any(partial(g, m) for g in summary for m in metrics):
        notes = [*notes, f"summary table: {PARTIAL_NOTE}"]

    table_rows, classes = [], []
    for rid in matrix_ids or list(by_id):
        r = by_id.get(rid)
        if r is None:
            table_rows.append([rid[:12], *([""] * len(shown)), "", "not run"])
            classes.append("missing")
            continue
        # No wall-clock column (`TIMING_COLUMNS`): two sweeps of one spec give one page.
        table_rows.append([rid[:12], *[_fmt(r.get(c)) for c in shown], r.get("seed"),
                           r["status"]])
        classes.append("failed" if r["status"] != "ok" else "")

    vers = [[k, v] for k, v in versions().items()]
    vers.append(["ckptsim of the runs",
                 ", ".join(sorted({str(r.get("ckptsim_version")) for r in rows}))])
    return str(_template().render(
        name=manifest.get("experiment", "sweep"), description=manifest.get("description"),
        matrix_runs=len(matrix_ids) or len(rows), ok=len(rows) - len(failed), failed=failed,
        missing=sum(rid not in by_id for rid in matrix_ids),
        seeds=", ".join(map(str, manifest.get("seeds", []))), notes=notes, figures=figures,
        gantt=gantt,
        summary={"columns": [*labels, "runs", "failed", *metrics], "rows": summary_rows,
                 "text_cols": len(shown)},
        matrix={"columns": ["run", *labels, "seed", "status"],
                "rows": table_rows, "classes": classes, "text_cols": 1 + len(shown)},
        versions=vers, spec=manifest.get("spec", ""), trace_dir=manifest.get("trace_dir", "")))


def _pm(mean: float, half: float) -> str:
    if math.isnan(mean):
        return "–"
    return _fmt(mean) if math.isnan(half) else f"{_fmt(mean)} ± {_fmt(half)}"
