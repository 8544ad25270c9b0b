"""The report of a sweep: the spec's figures and one HTML page that needs no server.

    DIR/report/index.html      figures (embedded), summary table, run matrix, failures,
                               versions and seeds
    DIR/report/figures/NAME.png, NAME.svg

The page embeds its figures as data URIs, so the single file can be mailed or archived and
still shows everything; the PNG and SVG files are there for papers.  Everything the page
shows comes from the store (`sweep.json` and the run files), not from the traces.
"""

from __future__ import annotations

import base64
import html
import math
import platform
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ckptsim import __version__
from ckptsim.experiments.columns import short_names
from ckptsim.experiments.figures import draw
from ckptsim.experiments.results import group, shown_inputs
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


def make_report(store_dir: str | Path, out: str | Path | None = None) -> Report:
    """Draw the figures named in the store's spec and write the HTML page."""
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
            paths = draw(fig, rows, figdir, inputs)
        except ValueError as exc:
            report.notes.append(f"figure {fig.name}: {exc}")
            continue
        report.figures += paths
        sections.append(_figure_html(fig, paths[0], paths[1], inputs))
    notes = report.notes + [f"damaged per-job file {f} ({why}): rerun the sweep to recompute "
                            "its run" for f, why in loaded.damaged_jobs]
    page = _page(manifest, rows, inputs, metrics, sections, notes)
    folder.mkdir(parents=True, exist_ok=True)
    report.html.write_text(page, encoding="utf-8")
    return report


# ----------------------------------------------------------------------------- HTML
_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 80em; padding: 0 1em;
       color: #222; }
h1 { margin-bottom: 0.2em; } h2 { border-bottom: 1px solid #ccc; padding-bottom: 0.2em; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0.5em 0 1.5em; }
th, td { border: 1px solid #ddd; padding: 0.2em 0.5em; text-align: right; }
th { background: #f3f3f3; } td.text { text-align: left; }
tr.failed td { background: #fde8e8; } tr.missing td { color: #999; }
figure { margin: 1em 0 2em; } figure img { max-width: 100%; border: 1px solid #eee; }
figcaption { font-size: 0.9em; color: #555; }
pre { background: #f7f7f7; padding: 0.5em; overflow-x: auto; font-size: 0.8em; }
.muted { color: #666; }
"""


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


def _table(columns: Sequence[str], rows: Sequence[Sequence[Any]],
           classes: Sequence[str] | None = None, text_cols: int = 0) -> str:
    head = "".join(f"<th>{_esc(c)}</th>" for c in columns)
    body = []
    for i, r in enumerate(rows):
        cls = f' class="{classes[i]}"' if classes and classes[i] else ""
        cells = "".join(
            f'<td class="text">{_esc(v)}</td>' if j < text_cols else f"<td>{_esc(v)}</td>"
            for j, v in enumerate(r))
        body.append(f"<tr{cls}>{cells}</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def _figure_html(fig: FigureSpec, png: Path, svg: Path, columns: Sequence[str]) -> str:
    data = base64.b64encode(svg.read_bytes()).decode("ascii")

    def label(c: str) -> str:
        return short_names([c, *columns])[0] if c in columns else c

    what = f"{fig.y} against {label(fig.x)}"
    if fig.group_by:
        what += f", one {'bar' if fig.kind == 'bar' else 'line'} per {label(fig.group_by)}"
    if fig.facet_by:
        what += f", one panel per {label(fig.facet_by)}"
    if fig.where:
        what += "; only " + ", ".join(f"{label(k)} in {list(v)}" for k, v in fig.where.items())
    return (f'<figure id="{_esc(fig.name)}"><img alt="{_esc(fig.name)}" '
            f'src="data:image/svg+xml;base64,{data}">'
            f"<figcaption><b>{_esc(fig.name)}</b>: {_esc(what)}. Mean over replications, "
            f"error bars: 95% confidence interval. Files: "
            f'<a href="figures/{_esc(png.name)}">PNG</a>, '
            f'<a href="figures/{_esc(svg.name)}">SVG</a>.</figcaption></figure>')


def _page(manifest: dict[str, Any], rows: list[dict[str, Any]], inputs: list[str],
          metrics: list[str], figures: list[str], notes: list[str]) -> str:
    name = manifest.get("experiment", "sweep")
    matrix_ids = manifest.get("runs", [])
    by_id = {r["run_id"]: r for r in rows}
    ok = sum(r["status"] == "ok" for r in rows)
    failed = [r for r in rows if r["status"] != "ok"]
    missing = [rid for rid in matrix_ids if rid not in by_id]
    shown = shown_inputs(rows, inputs) or [c for c in ("workload", "scheduler") if c in inputs]
    labels = short_names([*shown, *inputs])[:len(shown)]
    parts = [f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
             f"<title>{_esc(name)} – ckptsim report</title><style>{_STYLE}</style></head><body>",
             f"<h1>{_esc(name)}</h1>"]
    if manifest.get("description"):
        parts.append(f"<p>{_esc(manifest['description'])}</p>")
    parts.append(f"<p class=\"muted\">{len(matrix_ids) or len(rows)} runs in the matrix: "
                 f"{ok} succeeded, {len(failed)} failed, {len(missing)} not run yet. "
                 f"Seeds: {_esc(', '.join(map(str, manifest.get('seeds', []))))}.</p>")
    for note in notes:
        parts.append(f"<p class=\"muted\">{_esc(note)}</p>")
    if figures:
        parts.append("<h2>Figures</h2>" + "".join(figures))

    parts.append("<h2>Summary</h2><p class=\"muted\">Mean ± 95% confidence interval "
                 "(Student t) over the successful runs of each configuration.</p>")
    summary = group(rows, shown, metrics, inputs)
    parts.append(_table(
        [*labels, "runs", "failed", *metrics],
        [[_fmt(g[c]) for c in shown] + [g["runs"], g["failed"]]
         + [_pm(g[m], g[f"{m}_ci95"]) for m in metrics] for g in summary],
        text_cols=len(shown)))

    parts.append("<h2>Run matrix</h2>")
    cols = ["run", *labels, "seed", "status", "simulation (s)"]
    table_rows, classes = [], []
    for rid in matrix_ids or list(by_id):
        r = by_id.get(rid)
        if r is None:
            table_rows.append([rid[:12], *([""] * len(shown)), "", "not run", ""])
            classes.append("missing")
            continue
        table_rows.append([rid[:12], *[_fmt(r.get(c)) for c in shown], r.get("seed"),
                           r["status"], _fmt(r.get("sim_seconds"))])
        classes.append("failed" if r["status"] != "ok" else "")
    parts.append(_table(cols, table_rows, classes, text_cols=1 + len(shown)))

    if failed:
        parts.append("<h2>Failures</h2>")
        for r in failed:
            parts.append(f"<details><summary>{_esc(r['run_id'][:12])}: "
                         f"{_esc(r.get('error_message') or '')}</summary>"
                         f"<pre>{_esc(r.get('error') or '')}</pre></details>")

    parts.append("<h2>Versions</h2>")
    made_with = sorted({str(r.get("ckptsim_version")) for r in rows})
    vers = [[k, v] for k, v in versions().items()]
    vers.append(["ckptsim of the runs", ", ".join(made_with)])
    parts.append(_table(["package", "version"], vers, text_cols=2))
    parts.append(f"<p class=\"muted\">Spec: {_esc(manifest.get('spec', ''))}; traces: "
                 f"{_esc(manifest.get('trace_dir', ''))}.</p></body></html>\n")
    return "\n".join(parts)


def _pm(mean: float, half: float) -> str:
    if math.isnan(mean):
        return "–"
    return _fmt(mean) if math.isnan(half) else f"{_fmt(mean)} ± {_fmt(half)}"
