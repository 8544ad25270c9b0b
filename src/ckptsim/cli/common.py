"""Helpers shared by the commands: option parsing, tables, progress bars, outputs."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ckptsim.errors import ConfigError

PROGRESS_AFTER = 2.0  # seconds before a progress bar appears


def parse_set(items: Sequence[str] | None) -> dict[str, str]:
    """`--set key=value` options into a dict (values converted by the policy's types)."""
    out: dict[str, str] = {}
    for item in items or ():
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError("--set", f"expected key=value, got {item!r}")
        out[key.strip()] = value.strip()
    return out


def load_workload(args: argparse.Namespace) -> Any:
    """The workload named on the command line, with the requested transforms applied."""
    from ckptsim.workload.source import load_workload as load

    try:
        return load(args.workload, machine_size=args.machine_size, oversize=args.oversize,
                    size_from=args.size_from, skip_bad_lines=args.skip_bad_lines,
                    window=args.window, first=args.first, alpha=args.alpha,
                    load_scale=args.load_scale)
    except ConfigError as exc:
        if exc.key.startswith("lublin.") or exc.key == "workload":
            raise ConfigError(f"--workload {exc.key}", str(exc).partition(": ")[2]) from None
        raise


class Progress:
    """A progress bar that appears only when a run lasts more than a couple of seconds."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.t0 = time.perf_counter()
        self.bar: Any = None
        self.task: Any = None

    def __call__(self, done: int, total: int, now: float) -> None:
        if self.bar is None:
            if time.perf_counter() - self.t0 < PROGRESS_AFTER or not sys.stderr.isatty():
                return
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeRemainingColumn,
            )

            self.bar = Progress(TextColumn(self.label), BarColumn(), MofNCompleteColumn(),
                                TimeRemainingColumn(), transient=True)
            self.bar.start()
            self.task = self.bar.add_task(self.label, total=total)
        self.bar.update(self.task, completed=done)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()


def fmt(value: Any) -> str:
    if isinstance(value, float):
        if value != value:
            return "-"
        if abs(value) >= 1e5:
            return f"{value:,.0f}"
        return f"{value:.4g}" if abs(value) < 10 else f"{value:,.1f}"
    return str(value)


SUMMARY_ROWS = (
    ("jobs", "jobs"), ("jobs_killed", "jobs killed"), ("mean_wait", "mean wait (s)"),
    ("max_wait", "max wait (s)"), ("mean_response", "mean response (s)"),
    ("mean_bsld", "mean bounded slowdown"), ("mean_queue_length", "mean queue length"),
    ("utilization", "utilisation"), ("makespan", "makespan (s)"),
    ("backfill_ratio", "backfill ratio"),
)


def print_table(title: str, columns: list[str], rows: list[list[str]]) -> None:
    from rich.console import Console
    from rich.table import Table

    # On a terminal the table fits its width; into a pipe or a file it is as wide as it needs
    # (rich would otherwise cut it to 80 columns).
    console = Console() if sys.stdout.isatty() else Console(width=10_000)
    table = Table(title=title)
    for i, c in enumerate(columns):
        table.add_column(c, justify="left" if i == 0 else "right")
    for r in rows:
        table.add_row(*r)
    console.print(table)


def write_outputs(result: Any, out: Path) -> None:
    from ckptsim.records.io import write_jobs_csv, write_schedule_swf, write_summary_json

    out.mkdir(parents=True, exist_ok=True)
    write_jobs_csv(result.table, out / "jobs.csv")
    write_summary_json(result.summary_document(), out / "summary.json")
    write_schedule_swf(result.workload, result.table, out / "schedule.swf",
                       scheduler=result.scheduler)


def loader_line(w: Any) -> str:
    skipped = {k: v for k, v in sorted(w.counts.items())
               if v and (k.startswith("skipped") or k.endswith("missing")
                         or k in ("unsorted_submits", "clamped_too_large"))}
    return ", ".join(f"{k}={v}" for k, v in skipped.items()) or "no records dropped or changed"



class SweepProgress:
    """Runs done / total, failures and an ETA, on stderr when it is a terminal."""

    def __init__(self, total: int, done: int) -> None:
        self.bar: Any = None
        self.failed = 0
        self.count = 0
        if not sys.stderr.isatty() or total == done:
            return
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        self.bar = Progress(TextColumn("runs"), BarColumn(), MofNCompleteColumn(),
                            TextColumn("[red]{task.fields[failed]} failed"),
                            TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
                            console=Console(stderr=True), transient=True)
        self.bar.start()
        self.task = self.bar.add_task("runs", total=total, completed=done, failed=0)

    def update(self, row: dict[str, Any]) -> None:
        self.count += 1
        if row.get("status") != "ok":
            self.failed += 1
        if self.bar is not None:
            self.bar.update(self.task, advance=1, failed=self.failed)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()
            self.bar = None
