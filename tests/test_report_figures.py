"""The figures of `report`: axes in words with units, every figure titled, error bars of a
quantity that cannot be negative stopped at zero, log axes with plain tick labels."""

from __future__ import annotations

import numpy as np
import pytest

from ckptsim.experiments.figures import _errors, draw
from ckptsim.experiments.spec import FigureSpec
from ckptsim.metrics.labels import metric_label, nonnegative


@pytest.mark.parametrize("name, label", [
    ("mean_bsld", "mean bounded slowdown"), ("mean_wait", "mean wait (s)"),
    ("energy_mwh", "energy (MWh)"), ("mean_task_overhead_min", "mean task overhead (min)"),
    ("gain_long_pct", "gain long (%)"), ("arrt_pooled_long", "ARRT pooled long"),
    ("ctmr_checkpoints", "CTMR checkpoints"), ("x", "x")])
def test_metric_labels_are_words_with_units(name, label):
    assert metric_label(name) == label


@pytest.mark.parametrize("name, sign", [
    ("mean_wait", True), ("utilization", True), ("energy_mwh", True), ("mean_bsld", True),
    ("gain_long_pct", False), ("benefit_energy", False), ("improvement", False),
    ("wait_change", False)])
def test_which_metrics_cannot_be_negative(name, sign):
    assert nonnegative(name) is sign


def test_error_bars_stop_at_the_floor():
    points = [(1, 1.0, 3.0, 5), (2, 10.0, 3.0, 5), (3, 2.0, float("nan"), 1)]
    below, above = _errors(points, 0.0)
    # A single run draws no bar (NaN), not a zero-length one whose caps look certain.
    assert list(below[:2]) == [1.0, 3.0] and list(above[:2]) == [3.0, 3.0]
    assert np.isnan(below[2]) and np.isnan(above[2])
    below, above = _errors(points)  # a signed quantity: the whole interval
    assert list(below[:2]) == [3.0, 3.0] and np.isnan(below[2])
    assert _errors([(1, 1.0, float("nan"), 1)], 0.0) is None


def _drawn(monkeypatch, tmp_path, fig: FigureSpec, rows):
    from matplotlib.figure import Figure

    seen = []
    real = Figure.savefig

    def capture(self, *args, **kwargs):
        seen.append(self)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Figure, "savefig", capture)
    draw(fig, rows, tmp_path)
    return seen[0]


def test_report_figures_are_titled_and_labelled_in_words(monkeypatch, tmp_path):
    rows = [{"status": "ok", "scheduler.p": p, "seed": s, "mean_wait": w}
            for p, s, w in [(0.1, 1, 10.0), (0.1, 2, 90.0), (0.1, 3, 20.0),
                            (0.2, 1, 100.0), (0.2, 2, 110.0), (0.2, 3, 120.0)]]
    fig = FigureSpec(name="f", kind="line", x="scheduler.p", y="mean_wait", logy=True)
    figure = _drawn(monkeypatch, tmp_path, fig, rows)
    ax = figure.axes[0]
    assert ax.get_ylabel() == "mean wait (s)"
    assert figure._suptitle.get_text() == "mean wait (s) against scheduler.p"
    assert ax.yaxis.get_major_formatter()(1000.0, 0) == "1000"
    # The first point's interval (mean 40, half-width > 40) stops at zero.
    (bars,) = [c for c in ax.containers]
    low = min(seg[0][1] for seg in bars.lines[2][0].get_segments())
    assert low == pytest.approx(0.0)
    assert (tmp_path / "f.png").is_file() and (tmp_path / "f.svg").is_file()


def test_a_spec_title_and_labels_win(monkeypatch, tmp_path):
    rows = [{"status": "ok", "x": x, "seed": 1, "gain": g} for x, g in [(1, -5.0), (2, 3.0)]]
    fig = FigureSpec(name="g", kind="bar", x="x", y="gain", title="T", ylabel="Y", xlabel="X")
    figure = _drawn(monkeypatch, tmp_path, fig, rows)
    assert figure._suptitle.get_text() == "T"
    assert figure.axes[0].get_ylabel() == "Y" and figure.axes[0].get_xlabel() == "X"
    assert np.isfinite([b.get_height() for b in figure.axes[0].patches]).all()


def test_page_error_bars_stop_at_zero():
    from ckptsim.experiments.papers.common import clipped

    below, above = clipped([83.6, 5.0, 2.0], [226.0, 1.0, float("nan")])
    assert list(below[:2]) == [83.6, 1.0] and list(above[:2]) == [226.0, 1.0]
    assert np.isnan(below[2]) and np.isnan(above[2])  # a single run: no bar, no caps


@pytest.mark.parametrize("kind", ["line", "bar"])
def test_a_group_keeps_its_colour_in_every_panel_and_the_legend_names_all(
        monkeypatch, tmp_path, kind):
    """Panels holding different groups (a plug-in's parameter as the facet: the built-in
    scheduler has no such parameter, so its runs form a panel of their own) colour each
    group alike everywhere, and the one legend names every group, not the first panel's."""
    from matplotlib.colors import to_hex

    rows = [{"status": "ok", "scheduler": s, "backfill": b, "n": n, "seed": seed,
             "mean_wait": float(n + seed)}
            for s, b in [("easy", None), ("mine", True), ("mine", False)]
            for n in (500, 1000) for seed in (1, 2)]
    fig = FigureSpec(name="c", kind=kind, x="n", y="mean_wait", group_by="scheduler",
                     facet_by="backfill")
    figure = _drawn(monkeypatch, tmp_path, fig, rows)
    panels = [ax for ax in figure.axes if ax.get_title()]
    assert [ax.get_title() for ax in panels] == [
        "backfill = None", "backfill = True", "backfill = False"]

    def colours(ax):
        out = {}
        for c in ax.containers:
            if c.get_label().startswith("_"):
                continue
            artist = c.lines[0] if kind == "line" else c.patches[0]
            out[c.get_label()] = to_hex(artist.get_color() if kind == "line"
                                        else artist.get_facecolor())
        return out

    easy, mine_true, mine_false = (colours(ax) for ax in panels)
    assert set(easy) == {"easy"} and set(mine_true) == set(mine_false) == {"mine"}
    assert mine_true["mine"] == mine_false["mine"] != easy["easy"]
    (legend,) = figure.legends
    assert [t.get_text() for t in legend.get_texts()] == ["easy", "mine"]


def test_runs_without_the_group_column_are_named_in_the_legend(monkeypatch, tmp_path):
    """A built-in beside a plug-in whose parameter is the group: the built-in's runs have no
    such column and are the group "None" in the legend, as a panel's title names them."""
    rows = [{"status": "ok", "scheduler": s, "most": m, "seed": seed, "mean_wait": 1.0 + seed}
            for s, m in [("easy", None), ("mine", 0), ("mine", 2)] for seed in (1, 2)]
    fig = FigureSpec(name="n", kind="bar", x="scheduler", y="mean_wait", group_by="most")
    figure = _drawn(monkeypatch, tmp_path, fig, rows)
    (legend,) = figure.legends
    assert [t.get_text() for t in legend.get_texts()] == ["None", "0", "2"]
    plain = FigureSpec(name="p", kind="bar", x="scheduler", y="mean_wait")
    assert not _drawn(monkeypatch, tmp_path, plain, rows).legends


def test_a_point_with_an_infinite_mean_is_named_not_drawn(tmp_path):
    """A run whose metric is inf makes its point's mean inf: the figure leaves it out (an
    infinite bar would break the axes) and the page's caption names it."""
    from ckptsim.experiments.figures import figure_data, infinite_points, without_value
    from ckptsim.experiments.report import _figure

    rows = [{"status": "ok", "scheduler": k, "seed": s, "mean_bsld": v}
            for k, s, v in [("easy", 1, 2.0), ("easy", 2, float("inf")), ("cons", 1, 3.0),
                            ("cons", 2, 5.0)]]
    fig = FigureSpec(name="b", kind="bar", x="scheduler", y="mean_bsld")
    assert [p[:2] + p[3:] for p in figure_data(fig, rows)[None][None]] == [
        ("easy", float("inf"), 2), ("cons", 4.0, 2)]
    assert without_value(fig, rows) == (0, 4)
    assert infinite_points(fig, rows) == [(None, None, "easy", float("inf"))]
    png, svg = draw(fig, rows, tmp_path)
    caption = _figure(fig, png, svg, ["scheduler"], without_value(fig, rows),
                      infinite_points(fig, rows))["caption"]
    assert ("Not drawn, as a run's value of mean_bsld is infinite: scheduler = easy "
            "(mean inf).") in caption


def test_the_caption_names_the_failed_runs_and_the_points_they_empty(tmp_path):
    """Failed runs are left out of a figure's points; the caption counts them and names a
    point where every run failed, which the figure cannot show (here x = 3)."""
    from ckptsim.experiments.figures import failed_points
    from ckptsim.experiments.report import _figure

    rows = [{"status": st, "scheduler": k, "p": p, "seed": s, "mean_wait": 10.0 * s}
            for k in ("easy", "cons") for p in (1, 2, 3) for s in (1, 2)
            for st in ["failed" if p == 3 and k == "cons" or (p, s) == (2, 1) else "ok"]]
    fig = FigureSpec(name="w", kind="line", x="p", y="mean_wait", group_by="scheduler")
    assert failed_points(fig, rows) == (4, [(None, "cons", 3)])
    png, svg = draw(fig, rows, tmp_path)
    caption = _figure(fig, png, svg, ["scheduler", "p"],
                      failed=failed_points(fig, rows))["caption"]
    assert caption.endswith("4 runs it selects failed and are left out. No point where every "
                            "run failed: scheduler = cons, p = 3.")
    only = FigureSpec(name="w", kind="line", x="p", y="mean_wait", where={"p": (2,)})
    assert failed_points(only, rows) == (2, [])


def test_long_values_are_written_on_several_lines(monkeypatch, tmp_path):
    """A failure source or a checkpoint plan as x, panel or legend value is broken after its
    commas: unbroken, the tick labels overlapped and squeezed the axes to nothing."""
    import warnings

    long = "synthetic:mtbf=2000000,repair_mean=86400,shape=1.0,repair_cv=0.5,dist=weibull"
    short = "synthetic:mtbf=500000,repair_mean=3600"
    rows = [{"status": "ok", "workload.failures": f, "scheduler": k, "seed": 1,
             "mean_wait": w} for f, k, w in [(long, "easy", 5.0), (short, "easy", 2.0),
                                             (long, "cons", 4.0), (short, "cons", 1.0)]]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # matplotlib warned that the layout collapsed
        bars = _drawn(monkeypatch, tmp_path, FigureSpec(
            name="b", kind="bar", x="workload.failures", y="mean_wait", facet_by="scheduler"),
            rows)
        panels = _drawn(monkeypatch, tmp_path, FigureSpec(
            name="p", kind="line", x="scheduler", y="mean_wait",
            facet_by="workload.failures", group_by="workload.failures"), rows)
    ticks = [t.get_text() for t in bars.axes[0].get_xticklabels()]
    assert ticks == ["synthetic:mtbf=2000000,\nrepair_mean=86400,\nshape=1.0,repair_cv=0.5,"
                     "\ndist=weibull", "synthetic:mtbf=500000,\nrepair_mean=3600"]
    assert panels.axes[0].get_title() == "workload.failures = " + ticks[0]
    assert [t.get_text() for t in panels.legends[0].get_texts()] == ticks


def test_a_point_of_one_run_has_no_error_bar_and_the_caption_says_which(tmp_path):
    """A point over a single run has no interval: no bar and no caps are drawn (a
    zero-length bar would look certain), and the caption names it; when every point is one
    run, the caption says there are no intervals instead of promising error bars."""
    from ckptsim.experiments.figures import figure_data, single_points
    from ckptsim.experiments.report import _figure

    rows = [{"status": "ok", "scheduler": k, "seed": s, "mean_wait": 10.0 * s + len(k)}
            for k, seeds in [("easy", (1, 2, 3)), ("cons", (1,))] for s in seeds]
    fig = FigureSpec(name="w", kind="line", x="scheduler", y="mean_wait")
    data = figure_data(fig, rows)
    assert single_points(data) == ([(None, None, "cons")], 2)
    png, svg = draw(fig, rows, tmp_path, data=data)
    caption = _figure(fig, png, svg, ["scheduler"], single=single_points(data))["caption"]
    assert "error bars: 95% confidence interval. No error bar where a point is one run: " \
           "scheduler = cons." in caption
    one = [r for r in rows if r["seed"] == 1]
    data = figure_data(fig, one)
    png, svg = draw(fig, one, tmp_path, data=data)
    caption = _figure(fig, png, svg, ["scheduler"], single=single_points(data))["caption"]
    assert "One run per point: no replications, so no confidence interval." in caption
    assert "error bars" not in caption


def test_a_single_run_draws_no_cap(tmp_path):
    """The line figure's error bars: the point of one run has no bar segment and no cap."""
    import matplotlib
    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    from ckptsim.experiments.figures import _lines

    ax = Figure().subplots()
    _lines(ax, {None: [(1, 5.0, 1.0, 3), (2, 6.0, float("nan"), 1)]}, {None: ("C0", None)}, 0.0)
    caps = [c for c in ax.get_children() if isinstance(c, matplotlib.lines.Line2D)
            and c.get_marker() == "_"]
    ys = sorted(float(y) for c in caps for y in c.get_ydata() if np.isfinite(float(y)))
    assert ys == [4.0, 6.0]  # the caps of the first point only (mean 5 ± 1)
