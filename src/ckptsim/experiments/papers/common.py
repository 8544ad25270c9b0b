"""What every paper's figures share: running a figure's spec through the sweep store, looking
runs up in its rows, writing the figure's CSV and saving its PNG."""

from __future__ import annotations

import csv
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ckptsim.errors import ConfigError

OnRow = Callable[[dict[str, Any]], None]


@dataclass(frozen=True)
class FigureOutput:
    csv: Path
    png: Path
    rows: list[dict[str, Any]]


def run_spec(name: str, text: str, out: Path, trace_dir: str | Path, jobs: int | None,
             on_row: OnRow | None = None, store: Path | None = None) -> list[dict[str, Any]]:
    """Write the spec `text` to out/NAME.toml, run what its store lacks on `jobs` processes
    (all cores by default) and return the rows of its runs.  A run that fails stops the figure
    with its error; an interrupted figure resumes from the runs already stored."""
    from ckptsim.experiments.execute import make_executor
    from ckptsim.experiments.store import load_results
    from ckptsim.experiments.sweep import plan_sweep, run_sweep

    out.mkdir(parents=True, exist_ok=True)
    spec_path = out / f"{name}.toml"
    spec_path.write_text(text)
    store = store or out / "store"
    plan = plan_sweep(spec_path, store, trace_dir=Path(trace_dir).resolve())
    result = run_sweep(plan, store, make_executor(jobs), on_row=on_row)
    if result.failed:
        first_failure = result.failures[0]
        raise ConfigError("sweep", f"{result.failed} run(s) failed, e.g. "
                                   f"{first_failure.get('workload')} x "
                                   f"{first_failure.get('scheduler')}: "
                                   f"{first_failure.get('error_message')}")
    rows, _ = load_results(store)
    wanted = {r.run_id for r in plan.runs}
    return [row for row in rows if row["run_id"] in wanted]


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


def save(fig: Any, path: Path) -> None:
    """Save without a timestamp or software tag, so the same figure gives the same bytes."""
    fig.tight_layout()
    fig.savefig(path, metadata={"Software": None})
    plt().close(fig)


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
