"""What every paper's figures share: running a figure's spec through the sweep store, looking
runs up in its rows, writing the figure's CSV and saving its PNG."""

from __future__ import annotations

import contextlib
import csv
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ckptsim.errors import ConfigError, did_you_mean

OnRow = Callable[[dict[str, Any]], None]


#: The Dask cluster a paper command's sweeps run on (None: a local process pool); set by
#: `dask_cluster` around a paper's run, so that no paper's options need to carry it.
_DASK: ContextVar[tuple[str | None, float | None]] = ContextVar("ckptsim_paper_dask",
                                                               default=(None, None))


@contextlib.contextmanager
def dask_cluster(address: str | None, timeout: float | None = None) -> Iterator[None]:
    """Run the sweeps of the figures computed inside on the Dask cluster at `address` (a
    scheduler's address or "local"; None: the local pool), waiting `timeout` seconds for its
    scheduler (None: the default)."""
    token = _DASK.set((address, timeout))
    try:
        yield
    finally:
        _DASK.reset(token)


@dataclass(frozen=True)
class FigureOutput:
    csv: Path
    png: Path
    rows: list[dict[str, Any]]


def run_spec(name: str, text: str, out: Path, trace_dir: str | Path, jobs: int | None,
             on_row: OnRow | None = None, store: Path | None = None) -> list[dict[str, Any]]:
    """Write the spec `text` to out/NAME.toml, run what its store lacks on `jobs` processes
    (all cores by default; on a Dask cluster inside `dask_cluster`) and return the rows of
    its runs (with the values the command's `--set` gives them: `settings.apply`; a policy
    string given options by `--set checkpoint.policy.KEY=VALUE` under the spec's own, the
    name the figure knows its runs by).  A run that fails stops the figure with its error;
    an interrupted figure resumes from the runs already stored."""
    from ckptsim.experiments.execute import make_executor
    from ckptsim.experiments.matrix import MatrixTooLarge
    from ckptsim.experiments.papers import settings_policy
    from ckptsim.experiments.papers.settings import apply, current
    from ckptsim.experiments.preflight import preflight
    from ckptsim.experiments.store import load_results
    from ckptsim.experiments.sweep import plan_sweep, run_sweep

    out.mkdir(parents=True, exist_ok=True)
    spec_path = out / f"{name}.toml"
    spec_path.write_text(apply(text))
    store = store or out / "store"
    try:
        plan = plan_sweep(spec_path, store, trace_dir=Path(trace_dir).resolve())
    except MatrixTooLarge as exc:  # the paper's options chose the size: name the usual one
        raise ConfigError("--replications", f"{exc.runs:,} runs for {name}, above the limit "
                                            f"of {exc.limit:,} runs of one sweep; ask for "
                                            "fewer replications") from None
    preflight(plan.todo, str(spec_path))  # a configuration that cannot start: none runs
    address, timeout = _DASK.get()
    executor = make_executor(jobs, address, dask_timeout=timeout)
    result = run_sweep(plan, store, executor, on_row=on_row)
    if result.failed:
        first_failure = result.failures[0]
        raise ConfigError("sweep", f"{result.failed} run(s) failed, e.g. "
                                   f"{first_failure.get('workload')} x "
                                   f"{first_failure.get('scheduler')}: "
                                   f"{first_failure.get('error_message')}")
    rows, _ = load_results(store)
    # A run another spec stored first (the same inputs under other names, e.g. one of niu's
    # readings that is also a Fig. 4 point) keeps that spec's names in the store: the rows
    # come back under this spec's names, which its figure looks them up by.
    names = {r.run_id: {"experiment": r.experiment, "workload": r.workload,
                        "scheduler": r.scheduler} for r in plan.runs}
    policies = settings_policy.names(text, current().policy)
    return [{**row, **names[row["run_id"]],
             **{k: policies[row[k]] for k in settings_policy.COLUMNS if row.get(k) in policies}}
            for row in rows if row["run_id"] in names]


def find_family(figure: str, families: dict[str, tuple[str, ...]],
                accepted: list[str], paper: str) -> str:
    """The family a figure (or a family's own name) belongs to; an unknown one is refused
    naming the paper and the `accepted` values, each once (a family may share its figure's
    name)."""
    for family, figures in families.items():
        if figure == family or figure in figures:
            return family
    raise ConfigError("figure", f"unknown figure {figure!r} of {paper}"
                                f"{did_you_mean(figure, [*accepted, *families])}; accepted: "
                                f"{', '.join(dict.fromkeys([*accepted, 'all']))}")


def write_csv(path: Path, rows: list[dict[str, Any]]) -> None:
    """Rows as CSV, floats to 6 significant digits (stable across platforms)."""
    columns = list(rows[0]) if rows else []
    with open(path, "w", newline="") as fh:
        writer = csv.DictWriter(fh, columns, lineterminator="\n")
        writer.writeheader()
        for row in rows:
            writer.writerow({k: (f"{v:.6g}" if isinstance(v, float) else v)
                             for k, v in row.items()})


def plt() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as pyplot

    return pyplot


def figure(nrows: int, ncols: int, width: float, height: float, **kw: Any) -> tuple[Any, Any]:
    """A figure of nrows x ncols panels (a 2-D array of axes) laid out by matplotlib's
    constrained layout, which leaves room for a legend placed outside the panels."""
    return plt().subplots(nrows, ncols, figsize=(width, height), dpi=130, squeeze=False,
                          layout="constrained", **kw)


def legend_below(fig: Any, ax: Any, ncol: int) -> None:
    """One legend for the whole figure, below its panels, so that it covers no data."""
    handles, labels = ax.get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncol=ncol, fontsize="small",
               frameon=False)


def log_ratio_axis(ax: Any) -> None:
    """A log y axis for ratios, ticked at plain numbers (0.5, 0.75, 1, 1.5, 2, ...; finer when
    the data span less than a factor of 2).  Call it once the data are drawn."""
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter

    ax.set_yscale("log")
    low, high = ax.get_ylim()
    ticks = ([0.7, 0.8, 0.9, 0.95, 1, 1.05, 1.1, 1.2, 1.3, 1.4] if high / low < 2 else
             [0.1, 0.2, 0.3, 0.5, 0.75, 1, 1.5, 2, 3, 5, 7.5, 10, 20])
    ax.yaxis.set_major_locator(FixedLocator(ticks))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.yaxis.set_minor_formatter(NullFormatter())


def save(fig: Any, path: Path) -> None:
    """Save without a timestamp or software tag, so the same figure gives the same bytes."""
    if fig.get_layout_engine() is None:
        fig.tight_layout()
    fig.savefig(path, metadata={"Software": None})
    plt().close(fig)


def clipped(means: Any, halves: Any, floor: float = 0.0) -> Any:
    """Error bars (below, above) of 95% half-widths for a quantity that cannot go below
    `floor` (a time, an energy, a fraction): the part of an interval below it is not drawn.
    NaN half-widths (a single run) draw no bar and no caps."""
    import numpy as np

    m = np.asarray(means, dtype=float)
    h = np.asarray(halves, dtype=float)
    return np.vstack([np.clip(np.minimum(h, m - floor), 0.0, None), h])


def bars(ax: Any, groups: list[str], series: dict[str, list[float]], ylabel: str,
         reference: float | None = None) -> None:
    """Grouped bars, one group per entry of `groups` and one bar per series; the first series
    (the reference variant) in grey, the others along a colour ramp; an optional dotted
    reference line (e.g. 1.0 for values normalised to a baseline)."""
    import numpy as np

    width = 0.8 / max(len(series), 1)
    ramp = plt().get_cmap("viridis")(np.linspace(0.0, 0.9, max(len(series) - 1, 1)))
    for k, (label, values) in enumerate(series.items()):
        x = np.arange(len(groups)) + (k - (len(series) - 1) / 2) * width
        ax.bar(x, values, width=width, label=label, color="0.55" if k == 0 else ramp[k - 1])
    ax.set_xticks(np.arange(len(groups)), groups)
    ax.set_ylabel(ylabel)
    ax.grid(axis="y", alpha=0.3)
    ax.set_axisbelow(True)
    if reference is not None:
        ax.axhline(reference, color="k", ls=":", lw=1)


def find(rows: list[dict[str, Any]], **match: Any) -> dict[str, Any]:
    """The first row whose columns equal `match` (floats to 1e-9; use ** for dotted names)."""
    for row in rows:
        if all(same(row.get(k), v) for k, v in match.items()):
            return row
    raise KeyError(f"no run with {match}")


def same(a: Any, b: Any) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        try:
            return abs(float(a) - float(b)) < 1e-9
        except (TypeError, ValueError):
            return False
    return bool(a == b)
