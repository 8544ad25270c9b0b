"""The figures of seed 001 from the averaged runs (`jones.points`): figN.csv and figN.png.

Turnaround is the mean response time (submission to end), shown in hours; `improvement` is
1 - turnaround / turnaround of Migration Only (co-allocation off), the seed's measure, paired
by workload seed and averaged.  `X_ci` columns are 95% half-widths over the workload seeds
(`seeds`; NaN with one seed), drawn as error bars; the seed's 3-D surfaces (Figs. 1, 3, 5, 10,
12, 14) are drawn as heatmaps.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from ckptsim.experiments.papers.common import FigureOutput, plt, save, write_csv

Point = dict[str, Any]
HOUR = 3600.0
COLORS = {150.0: "tab:blue", 300.0: "tab:orange", 400.0: "tab:red"}


def _is(a: Any, b: Any) -> bool:
    if isinstance(b, float) or isinstance(a, float):
        return a is not None and abs(float(a) - float(b)) < 1e-9
    return bool(a == b)


def select(pts: list[Point], **match: Any) -> list[Point]:
    """The points whose fields equal `match`, sorted by error, info and overhead."""
    got = [p for p in pts if all(_is(p.get(k), v) for k, v in match.items())]
    return sorted(got, key=lambda p: (p["error"], p["info"], p["overhead"]))


def baseline(pts: list[Point]) -> float:
    """Turnaround of Migration Only (co-allocation off)."""
    return float(next(p["mean_response"] for p in pts if not p["coalloc"]))


def _row(p: Point, base: float, *keys: str) -> dict[str, Any]:
    row = {k: p[k] for k in ("ppbw", "error", *keys)}
    row["turnaround_h"] = p["mean_response"] / HOUR
    row["turnaround_ci"] = p["mean_response_ci"] / HOUR
    row["improvement"] = p["improvement"]
    row["improvement_ci"] = p["improvement_ci"]
    row["migration_only_h"] = base / HOUR
    row["seeds"] = p["seeds"]
    return row


def _bars(line: list[Point], key: str = "mean_response", scale: float = HOUR) -> list[float]:
    """Error-bar half-widths of a line (0 where unknown: one seed)."""
    return [0.0 if math.isnan(p[f"{key}_ci"]) else p[f"{key}_ci"] / scale for p in line]


def _line(ax: Any, xs: list[float], line: list[Point], **kw: Any) -> None:
    """The improvement over Migration Only (%), with its paired 95% interval."""
    ax.errorbar(xs, [100 * p["improvement"] for p in line], yerr=_bars(line, "improvement", 0.01),
                marker="o", ms=3, capsize=2, **kw)


def paired(a: Point, b: Point, base: float) -> tuple[float, float]:
    """b's turnaround gain over a, per workload seed, over Migration Only's mean turnaround
    `base` (`--paired mean`), or over that seed's own where b holds `pair_base`
    (`--paired seed`: then b's improvement less a's, seed by seed): its mean and 95%
    half-width."""
    from ckptsim.experiments.stats import mean_ci

    bases = b.get("pair_base")
    diffs = [(a["by_seed"][s] - t) / (base if bases is None else bases[s])
             for s, t in b["by_seed"].items()
             if s in a["by_seed"] and (bases is None or s in bases)]
    mean, half, _ = mean_ci(diffs)
    return mean, half


def _write(name: str, out: Path, rows: list[dict[str, Any]]) -> FigureOutput:
    write_csv(out / f"{name}.csv", rows)
    return FigureOutput(out / f"{name}.csv", out / f"{name}.png", rows)


def _axes(ncols: int = 1) -> tuple[Any, list[Any]]:
    pyplot = plt()
    fig = pyplot.figure(figsize=(6.0 * ncols, 4.2), dpi=130)
    return fig, [fig.add_subplot(1, ncols, k + 1) for k in range(ncols)]


def _migration_line(ax: Any, base: float) -> None:
    ax.axhline(0.0, color="k", ls="--", lw=1, label=f"Migration Only ({base / HOUR:.2f} h)")


def _finish(ax: Any, xlabel: str, title: str) -> None:
    ax.set_xlabel(xlabel)
    ax.set_ylabel("improvement over Migration Only (%)")
    ax.set_title(title, fontsize="medium")
    ax.grid(alpha=0.3)
    ax.legend(fontsize="x-small")


# ----------------------------------------------------------------------------- figs 1-6, 8
def _surface(pts: list[Point], out: Path, name: str, ppbw: float, y: str, ylabel: str,
             match: dict[str, Any], title: str,
             errors: tuple[float, ...] = (0.0, 0.2, 0.4, 0.5, 0.6, 0.8, 1.0)) -> FigureOutput:
    base = baseline(pts)
    grid = [p for p in select(pts, ppbw=ppbw, error_mode="uniform", coalloc=True, **match)
            if any(_is(p["error"], e) for e in errors)]
    xs = sorted({p["error"] for p in grid})
    ys = sorted({p[y] for p in grid})
    rows = [_row(p, base, y if y != "overhead" else "ctmr") for p in grid]
    if y == "overhead":
        for r, p in zip(rows, grid, strict=True):
            r["overhead_min"] = p["overhead"] / 60.0
            r["ctmr_checkpoints"] = p["ctmr_checkpoints"]
    fig, (ax,) = _axes()
    import numpy as np

    z = np.full((len(ys), len(xs)), np.nan)
    for p in grid:
        z[ys.index(p[y]), xs.index(p["error"])] = 100 * p["improvement"]
    scale = 100.0 if y == "info" else 1 / 60.0
    image = ax.imshow(z, origin="lower", aspect="auto", cmap="viridis")
    for p in grid:
        dark = image.norm(100 * p["improvement"]) < 0.6
        half = 100 * p["improvement_ci"]
        text = f"{100 * p['improvement']:.1f}" + ("" if math.isnan(half) else f"\n+-{half:.1f}")
        ax.text(xs.index(p["error"]), ys.index(p[y]), text, ha="center", va="center",
                fontsize=6, color="w" if dark else "k")
    ax.set_xticks(range(len(xs)), [f"{x * 100:g}" for x in xs])
    ax.set_yticks(range(len(ys)), [f"{v * scale:g}" for v in ys])
    ax.set_xlabel("PPBW error +-A (%)")
    ax.set_ylabel(ylabel)
    fig.colorbar(image, ax=ax, label="improvement over Migration Only (%)")
    ax.set_title(f"{title}\n(Migration Only: {base / HOUR:.2f} h)", fontsize="medium")
    save(fig, out / f"{name}.png")
    return _write(name, out, rows)


def _info_lines(pts: list[Point], out: Path, name: str, ppbw: float,
                title: str) -> FigureOutput:
    base = baseline(pts)
    fig, (ax,) = _axes()
    rows = []
    for err in (0.0, 0.5, 0.8, 1.0):
        line = select(pts, ppbw=ppbw, error=err, error_mode="uniform", coalloc=True, ctmr=False)
        rows += [_row(p, base, "info") for p in line]
        _line(ax, [p["info"] * 100 for p in line], line, label=f"@ {err:.0%} error")
    _migration_line(ax, base)
    _finish(ax, "information availability (%)", title)
    save(fig, out / f"{name}.png")
    return _write(name, out, rows)


def _by_error(pts: list[Point], out: Path, name: str, mode: str, title: str) -> FigureOutput:
    base = baseline(pts)
    fig, (ax,) = _axes()
    rows = []
    for ppbw, color in COLORS.items():
        line = select(pts, ppbw=ppbw, error_mode=mode, info=1.0, coalloc=True, ctmr=False)
        for p in line:
            row = _row(p, base)
            if mode == "uniform":
                row["rmspe"] = p["error"] * 100 / math.sqrt(3)
            rows.append(row)
        if mode == "fixed":  # against the opposite error, paired by seed
            opposite = {round(p["error"], 6): p for p in line}
            for row, p in zip(rows[-len(line):], line, strict=True):
                twin = opposite.get(round(-p["error"], 6))
                row["vs_opposite"], row["vs_opposite_ci"] = (
                    paired(twin, p, base) if twin is not None else (math.nan, math.nan))
        _line(ax, [p["error"] * 100 for p in line], line, color=color, label=f"{ppbw:g} Mbit/s")
    _migration_line(ax, base)
    xlabel = ("PPBW error +-A (%), uniform" if mode == "uniform"
              else "PPBW error of every job (%)")
    _finish(ax, xlabel, title)
    save(fig, out / f"{name}.png")
    return _write(name, out, rows)


def fig9(pts: list[Point], out: Path) -> FigureOutput:
    fig, (ax,) = _axes()
    right = ax.twinx()
    rows = []
    for ppbw, color in COLORS.items():
        line = select(pts, ppbw=ppbw, error_mode="fixed", coalloc=True, ctmr=False)
        rows += [{"ppbw": p["ppbw"], "error": p["error"],
                  "coalloc_slowdown": p["coalloc_slowdown"],
                  "coalloc_slowdown_ci": p["coalloc_slowdown_ci"],
                  "mean_coallocated": p["mean_coallocated"],
                  "saturated_time": p["saturated_time"], "seeds": p["seeds"]} for p in line]
        xs = [p["error"] * 100 for p in line]
        ax.errorbar(xs, [p["coalloc_slowdown"] for p in line],
                    yerr=_bars(line, "coalloc_slowdown", 1.0), marker="o", ms=3, capsize=2,
                    color=color, label=f"slowdown, {ppbw:g} Mbit/s")
        right.plot(xs, [p["mean_coallocated"] for p in line], ls=":", color=color,
                   label=f"co-allocated jobs, {ppbw:g}")
    ax.set_xlabel("PPBW error of every job (%)")
    ax.set_ylabel("slowdown factor of co-allocated jobs")
    right.set_ylabel("co-allocated jobs running (time average)")
    ax.set_title("Intermediate causes: slowdown and co-allocation (Fig. 9)", fontsize="medium")
    ax.grid(alpha=0.3)
    ax.legend(fontsize="x-small", loc="upper center")
    right.legend(fontsize="x-small", loc="upper right")
    save(fig, out / "fig9.png")
    return _write("fig9", out, rows)


# ----------------------------------------------------------------------------- figs 10-19
def _ctmr_lines(pts: list[Point], out: Path, name: str, ppbw: float,
                title: str) -> FigureOutput:
    base = baseline(pts)
    fig, (ax,) = _axes()
    rows = []
    off = select(pts, ppbw=ppbw, error_mode="uniform", info=1.0, coalloc=True, ctmr=False)
    off = [p for p in off if any(_is(p["error"], e) for e in
                                 (0.0, 0.2, 0.4, 0.6, 0.8, 1.0))]
    rows += [{**_row(p, base, "ctmr"), "overhead_min": 0.0, "ctmr_checkpoints": 0}
             for p in off]
    _line(ax, [p["error"] * 100 for p in off], off, color="0.4", label="without CTMR")
    for minutes in (0, 5, 10, 20, 30):
        line = select(pts, ppbw=ppbw, coalloc=True, ctmr=True, overhead=60.0 * minutes)
        line = [p for p in line if p["error"] in {p2["error"] for p2 in off}]
        rows += [{**_row(p, base, "ctmr"), "overhead_min": float(minutes),
                  "ctmr_checkpoints": p["ctmr_checkpoints"]} for p in line]
        _line(ax, [p["error"] * 100 for p in line], line, label=f"CTMR, {minutes} min")
    _migration_line(ax, base)
    _finish(ax, "PPBW error +-A (%)", title)
    save(fig, out / f"{name}.png")
    return _write(name, out, rows)


def fig16(pts: list[Point], out: Path) -> FigureOutput:
    """Improvement over Migration Only at 100% error: without CTMR, with CTMR at 5 and 10
    minutes, and the ideal case (no error)."""
    import numpy as np

    base = baseline(pts)
    rows = []
    variants = (("ideal (0% error)", 0.0, False, 0.0), ("no CTMR", 1.0, False, 0.0),
                ("CTMR 5 min", 1.0, True, 300.0), ("CTMR 10 min", 1.0, True, 600.0))
    for ppbw in COLORS:
        without = select(pts, ppbw=ppbw, error=1.0, error_mode="uniform", coalloc=True,
                         ctmr=False)[0]
        for label, err, ctmr, overhead in variants:
            match = {"ppbw": ppbw, "error": err, "error_mode": "uniform", "coalloc": True,
                     "ctmr": ctmr}
            if ctmr:
                match["overhead"] = overhead
            p = select(pts, **match)[0]
            gain, gain_ci = paired(without, p, base)
            rows.append({"ppbw": ppbw, "variant": label, "error": err,
                         "turnaround_h": p["mean_response"] / HOUR,
                         "turnaround_ci": p["mean_response_ci"] / HOUR,
                         "improvement": p["improvement"], "improvement_ci": p["improvement_ci"],
                         "vs_no_ctmr": gain, "vs_no_ctmr_ci": gain_ci,
                         "migration_only_h": base / HOUR, "seeds": p["seeds"]})
    fig, (ax,) = _axes()
    width = 0.2
    for k, (label, *_rest) in enumerate(variants):
        mine = [r for r in rows if r["variant"] == label]
        ax.bar(np.arange(3) + (k - 1.5) * width, [100 * r["improvement"] for r in mine],
               yerr=[0.0 if math.isnan(r["improvement_ci"]) else 100 * r["improvement_ci"]
                     for r in mine], capsize=2, width=width, label=label)
    ax.set_xticks(np.arange(3), [f"{p:g} Mbit/s" for p in COLORS])
    ax.axhline(0, color="k", lw=0.8)
    ax.set_ylabel("improvement over Migration Only (%)")
    ax.set_title("CTMR at 100% error, 5 and 10 min overhead (Fig. 16)", fontsize="medium")
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize="x-small")
    save(fig, out / "fig16.png")
    return _write("fig16", out, rows)


def _overhead_lines(pts: list[Point], out: Path, name: str, ppbw: float,
                    title: str) -> FigureOutput:
    base = baseline(pts)
    fig, (ax,) = _axes()
    rows = []
    for err, color in ((0.5, "tab:blue"), (1.0, "tab:red")):
        line = [p for p in select(pts, ppbw=ppbw, error=err, error_mode="uniform",
                                  coalloc=True, ctmr=True)]
        off = select(pts, ppbw=ppbw, error=err, error_mode="uniform", info=1.0, coalloc=True,
                     ctmr=False)[0]
        rows += [{**_row(p, base), "overhead_min": p["overhead"] / 60.0,
                  "ctmr_checkpoints": p["ctmr_checkpoints"],
                  "without_ctmr_h": off["mean_response"] / HOUR} for p in line]
        for row, p in zip(rows[-len(line):], line, strict=True):
            row["vs_no_ctmr"], row["vs_no_ctmr_ci"] = paired(off, p, base)
        _line(ax, [p["overhead"] / 60 for p in line], line, color=color,
              label=f"CTMR, {err:.0%} error")
        ax.axhline(100 * off["improvement"], color=color, ls=":",
                   label=f"without CTMR, {err:.0%} error")
    _migration_line(ax, base)
    _finish(ax, "checkpoint / restart overhead (min)", title)
    save(fig, out / f"{name}.png")
    return _write(name, out, rows)


def _make() -> dict[str, Callable[[list[Point], Path], FigureOutput]]:
    makers: dict[str, Callable[[list[Point], Path], FigureOutput]] = {}
    for k, ppbw in zip((1, 3, 5), COLORS, strict=True):
        makers[f"fig{k}"] = partial(
            _surface, name=f"fig{k}", ppbw=ppbw, y="info", ylabel="information availability (%)",
            match={"ctmr": False},
            title=f"Improvement vs error and information, {ppbw:g} Mbit/s (Fig. {k})",
            errors=(0.0, 0.5, 0.8, 1.0))
        makers[f"fig{k + 1}"] = partial(
            _info_lines, name=f"fig{k + 1}", ppbw=ppbw,
            title=f"Improvement vs information, {ppbw:g} Mbit/s (Fig. {k + 1})")
    makers["fig7"] = partial(_by_error, name="fig7", mode="fixed",
                             title="Over- vs underestimation (Fig. 7)")
    makers["fig8"] = partial(_by_error, name="fig8", mode="uniform",
                             title="Uniform error, every job informed (Fig. 8)")
    makers["fig9"] = fig9
    for k, ppbw in zip((10, 12, 14), COLORS, strict=True):
        makers[f"fig{k}"] = partial(
            _surface, name=f"fig{k}", ppbw=ppbw, y="overhead", ylabel="overhead (min)",
            match={"ctmr": True, "info": 1.0},
            title=f"CTMR: improvement vs error and overhead, {ppbw:g} Mbit/s (Fig. {k})")
        makers[f"fig{k + 1}"] = partial(
            _ctmr_lines, name=f"fig{k + 1}", ppbw=ppbw,
            title=f"CTMR at five overheads, {ppbw:g} Mbit/s (Fig. {k + 1})")
    makers["fig16"] = fig16
    for k, ppbw in zip((17, 18, 19), COLORS, strict=True):
        makers[f"fig{k}"] = partial(
            _overhead_lines, name=f"fig{k}", ppbw=ppbw,
            title=f"Improvement vs CTMR overhead, {ppbw:g} Mbit/s (Fig. {k})")
    return makers


FIGURE_MAKERS = _make()
