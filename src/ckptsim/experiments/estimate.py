"""How long a paper's runs will take, from measured seconds per run: the median of the runs
already in a store (measured where they ran), else the paper's own measurement scaled to the
options' size (`Paper.seconds_per_run`)."""

from __future__ import annotations

import statistics
from pathlib import Path

#: The fewest stored runs whose median is trusted over the paper's own measurement.
MIN_MEASURED = 3


def measured_seconds(store: Path) -> tuple[float, str] | None:
    """The median seconds of the runs already in `store` (their `run_seconds`, measured in the
    process that ran them) and where they were measured; None with fewer than `MIN_MEASURED`
    runs or no store."""
    from ckptsim.experiments.store import Store

    if not Store(store).exists():
        return None
    try:
        rows = Store(store).read(verify_jobs=False).rows.values()
    except Exception:  # a damaged store is the sweep's to report; estimate without it
        return None
    times = [float(r["run_seconds"]) for r in rows
             if r.get("status") == "ok" and r.get("run_seconds") is not None]
    if len(times) < MIN_MEASURED:
        return None
    return statistics.median(times), f"the median of {len(times)} runs in {store}"


def stored_runs(specs: dict[str, str], trace_dir: Path, store: Path) -> int:
    """How many runs of the experiment specs `specs` (name -> TOML text, as
    `Paper.specs` gives them; trace names read from `trace_dir`) `store` already holds,
    finished: the runs a paper command will reuse.  0 without a store; a spec that cannot be
    planned counts none (the command itself reports the problem when it runs it)."""
    import tempfile

    from ckptsim.errors import ConfigError
    from ckptsim.experiments.matrix import MatrixTooLarge
    from ckptsim.experiments.store import Store
    from ckptsim.experiments.sweep import plan_sweep

    if not specs or not Store(store).exists():
        return 0
    done = 0
    with tempfile.TemporaryDirectory() as folder:
        for name, text in specs.items():
            path = Path(folder) / f"{name}.toml"
            path.write_text(text)
            try:
                done += plan_sweep(path, store, trace_dir=Path(trace_dir).resolve()).done
            except (ConfigError, MatrixTooLarge, OSError, ValueError):
                continue
    return done


def format_seconds(seconds: float) -> str:
    """A duration as people read it: seconds, minutes or hours."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
