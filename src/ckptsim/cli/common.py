"""Helpers shared by the commands: option parsing, tables, progress bars, outputs."""

from __future__ import annotations

import argparse
import logging
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ckptsim.errors import ConfigError, OutputError, shown, shown_key

PROGRESS_AFTER = 2.0  # seconds before a progress bar appears

#: The flags of `run` / `inspect` that set the library's keys, so that an error names what the
#: user typed: `--first: ...`, not `n: ...`.
WORKLOAD_FLAGS = {
    "n": "--first", "alpha": "--alpha", "c": "--load-scale", "start": "--window START",
    "end": "--window END", "start/end": "--window", "machine_size": "--machine-size",
    "oversize": "--oversize", "size_from": "--size-from", "skip_bad_lines": "--skip-bad-lines",
    "workload": "--workload",
}
SIMULATION_FLAGS = {
    "machine_size": "--machine-size", "overrun": "--overrun", "scheduler": "--scheduler",
    "failures": "--failures", "method": "--failures map", "platform": "--platform",
}


@contextmanager
def flag_names(keys: Mapping[str, str], prefixes: Mapping[str, str] | None = None
               ) -> Iterator[None]:
    """Re-raise a ConfigError under the command-line flag that sets its key: `keys` maps
    whole keys, `prefixes` key prefixes (`{"failures.": "--failures "}` turns
    `failures.path` into `--failures path`)."""
    try:
        yield
    except ConfigError as exc:
        flag = keys.get(exc.key)
        if flag is None:
            for prefix, replacement in (prefixes or {}).items():
                if exc.key.startswith(prefix):
                    flag = replacement + exc.key[len(prefix):]
                    break
        if flag is None:
            raise
        raise ConfigError(flag, exc.message) from None


def parse_components(items: Sequence[str] | None) -> dict[str, dict[str, Any]]:
    """`--component NAME:key=value,...` options into ``{name: {key: value}}``, validated now
    (`ckptsim.components.split_component` reads each)."""
    from ckptsim.components import get_component, split_component

    out: dict[str, dict[str, Any]] = {}
    for item in items or ():
        with flag_names({"component": "--component"}):
            name, values = split_component(item, where="--component")
            cls = get_component(name)
        if name in out:
            raise ConfigError(f"--component {name}", "given twice: give each component once")
        keys, prefixes = component_key_flags(name, cls)
        with flag_names(keys, prefixes):
            prm = cls.make_params(values)
        # A value parsed into a structure (the checkpoint plan) is passed on as made.
        out[name] = {k: getattr(prm, k) if k in getattr(cls, "parsed_params", ()) else v
                     for k, v in values.items()}
    return out


def component_key_flags(name: str, cls: Any) -> tuple[dict[str, str], dict[str, str]]:
    """(whole keys, key prefixes) of one component's errors -> `--component NAME:KEY`.  A
    component whose one parameter is a string parsed into a structure (the checkpoint
    component's `policy`) has the errors of that string, keyed by the component's name and
    by its options, named after that key: `--component checkpoint:policy`, `--component
    checkpoint:policy cost` (as `--component failures:source path`)."""
    if name == "failures":
        return failure_component_flags()
    names = {name, getattr(cls, "name", name)}
    parsed = getattr(cls, "parsed_params", ())
    if len(parsed) == 1:
        flag = f"--component {name}:{parsed[0]}"
        return ({**{n: flag for n in names}, **{f"{n}.{parsed[0]}": flag for n in names}},
                {f"{n}.": f"{flag} " for n in names})
    return {n: f"--component {name}" for n in names}, {f"{n}.": f"--component {name}:"
                                                        for n in names}


def component_flags(components: Mapping[str, Any]) -> tuple[dict[str, str], dict[str, str]]:
    """(whole keys, key prefixes) of the errors of the components given -> the flag that
    sets them (`component_key_flags`; the failures component's: `failure_flags`)."""
    from ckptsim.components import get_component

    keys: dict[str, str] = {}
    prefixes: dict[str, str] = {}
    for name in components:
        if name != "failures":
            more_keys, more_prefixes = component_key_flags(name, get_component(name))
            keys.update(more_keys)
            prefixes.update(more_prefixes)
    return keys, prefixes


def failure_flags(components: Mapping[str, Any]) -> tuple[dict[str, str], dict[str, str]]:
    """(whole keys, key prefixes) of the errors about the run's failures -> the flag the user
    typed: `--failures`, or `--component failures:...` when the failures component is given
    (then its source's options are named after `--component failures:source`)."""
    if "failures" in components:
        return failure_component_flags()
    return ({k: v for k, v in SIMULATION_FLAGS.items() if k in ("failures", "method")},
            {"failures.": "--failures "})


def failure_component_flags() -> tuple[dict[str, str], dict[str, str]]:
    """`failure_flags` of `--component failures:source=S[,count=N]`: its parameters by their
    names, the source's options after `--component failures:source` (as after --failures)."""
    flag = "--component failures:"
    return ({"failures": f"{flag}source", "failures.source": f"{flag}source",
             "failures.count": f"{flag}count", "failure_count": f"{flag}count",
             "method": f"{flag}source map"},
            {"failures.": f"{flag}source "})


def component_rows(result: Any) -> list[tuple[tuple[str, str], ...]]:
    """The summary rows of the run's registered components (`Component.rows`, else one per
    counter); the rows of components a policy attaches itself are the policy's."""
    from ckptsim.components import get_component
    from ckptsim.registry import REGISTRIES

    out = []
    registry = REGISTRIES["component"]
    for name in result.components:
        # Registered, loaded from outside the package, or installed (entry points are read
        # only for a name found nowhere else: reading them costs tens of milliseconds).
        if not (name in registry.classes or name in registry.plugins or registry.known(name)):
            continue
        cls = get_component(name)
        out.append(cls.rows or tuple((c, c.replace("_", " ")) for c in cls.counter_names))
    return out


def parse_set(items: Sequence[str] | None) -> dict[str, str]:
    """`--set key=value` options into a dict (values converted by the policy's types).  A key
    given twice is refused: the last one silently winning hides a typo in a long command."""
    out: dict[str, str] = {}
    for item in items or ():
        key, sep, value = item.partition("=")
        key, value = key.strip(), value.strip()
        if not sep or not key:
            raise ConfigError("--set", f"expected key=value, got {shown(item)}")
        if key in out:
            raise ConfigError(f"--set {shown_key(key)}",
                              f"given twice ({shown_key(f'{key}={out[key]}')} and "
                              f"{shown_key(f'{key}={value}')}): give each parameter once")
        out[key] = value
    return out


def load_workload(args: argparse.Namespace) -> Any:
    """The workload named on the command line, with the requested transforms applied."""
    from ckptsim.workload.source import GENERATORS
    from ckptsim.workload.source import load_workload as load

    # A generator's option error (`grid.ppbw`) is named `--workload grid.ppbw`.
    with flag_names(WORKLOAD_FLAGS, {f"{g}.": f"--workload {g}." for g in GENERATORS}):
        return load(args.workload, machine_size=args.machine_size, oversize=args.oversize,
                    size_from=args.size_from, skip_bad_lines=args.skip_bad_lines,
                    window=args.window, first=args.first, alpha=args.alpha,
                    load_scale=args.load_scale)


#: A command's outputs, by the two names that mark its folder.
FOLDER_MARKS = {("runs", "sweep.json"): "a results store (ckptsim sweep)",
                ("summary.json", "jobs.csv"): "a run's outputs (ckptsim run)",
                ("store", "manifest.json"): "a paper's figures and runs (ckptsim paper)"}


def check_folder_path(out: str, flag: str = "--out", own: str | None = None) -> None:
    """Refuse a folder path that names a file, or lies below one (or, with `own`, a first
    name of FOLDER_MARKS, that holds another command's outputs), before any work."""
    path = Path(out)
    for marks, what in FOLDER_MARKS.items():
        if own is not None and own not in marks and all((path / m).exists() for m in marks):
            raise ConfigError(flag, f"{out} holds {what}; give a folder of its own (the "
                                    "outputs of two commands are not mixed in one)")
    for at in (path, *path.parents):
        if at.exists():
            if not at.is_dir():
                what = "" if at == path else f" (in {out})"
                raise ConfigError(flag, f"{at} is a file, not a folder{what}")
            return


def output_folder(out: str | None, flag: str = "--out", own: str = "summary.json"
                  ) -> Path | None:
    """The folder `--out` names, created now, before any simulation, so that a path that
    cannot be written fails at once with the flag's name."""
    if out is None:
        return None
    if not out.strip():  # Path("") is the current folder: nobody means that by ""
        raise ConfigError(flag, "an empty path; give a folder (. for the current one)")
    check_folder_path(out, flag, own)
    path = Path(out)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(flag, f"cannot create the folder {out}: "
                                f"{exc.strerror or exc}") from None
    return path


def note(text: str) -> None:
    """A remark about the run on stderr (the tables stay clean on stdout)."""
    print(f"ckptsim: note: {text}", file=sys.stderr)


class _NoteHandler(logging.Handler):
    def emit(self, record: logging.LogRecord) -> None:
        note(record.getMessage())


@contextmanager
def library_notes() -> Iterator[None]:
    """Print what the library logs at INFO or above on the "ckptsim" logger as notes (e.g.
    that conservative's kernels are being compiled), for the duration of a command."""
    logger = logging.getLogger("ckptsim")
    handler = _NoteHandler(logging.INFO)
    level = logger.level
    logger.addHandler(handler)
    if logger.getEffectiveLevel() > logging.INFO:
        logger.setLevel(logging.INFO)
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)


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


def console(**options: Any) -> Any:
    """A rich console whose closed pipe (`| head`) is a BrokenPipeError, which `main` ends
    quietly as every command's (rich itself would exit with status 1)."""
    from rich.console import Console

    class _Console(Console):
        def on_broken_pipe(self) -> None:
            raise BrokenPipeError

    return _Console(**options)


def print_table(title: str, columns: list[str], rows: list[list[str]]) -> None:
    from rich.table import Table

    # On a terminal the table fits its width; into a pipe or a file it is as wide as it needs
    # (rich would otherwise cut it to 80 columns).
    out = console() if sys.stdout.isatty() else console(width=10_000)
    table = Table()
    for i, c in enumerate(columns):
        table.add_column(c, justify="left" if i == 0 else "right")
    for r in rows:
        table.add_row(*r)
    # The title on a line of its own: as a table title rich would wrap it to the table's
    # width, cutting a long trace path mid-word.
    out.print(title, style="italic", soft_wrap=True, markup=False, highlight=False)
    out.print(table)


#: The files a run may write besides jobs.csv, summary.json and schedule.swf: a run into a
#: folder that holds another run's removes those it does not write itself.
OPTIONAL_OUTPUTS = ("allocations.csv", "out_jobs.csv", "unavailability.csv")
#: Files drawn from a run's outputs into its folder by default (`ckptsim gantt DIR`): they
#: show the earlier run, so a new run into the folder removes them too.
GANTT_IMAGE = "gantt.png"
DRAWN_OUTPUTS = (GANTT_IMAGE,)


def write_outputs(result: Any, out: Path, allocations: Any = None, per: str = "job") -> None:
    """jobs.csv, summary.json, schedule.swf; with an `AllocationLog` also allocations.csv,
    out_jobs.csv (a row `per` job or attempt) and (when nodes left service)
    unavailability.csv.  A file of `OPTIONAL_OUTPUTS` left in `out` by an earlier run and not
    written by this one is removed, and so is a `DRAWN_OUTPUTS` image drawn from it, so the
    folder holds this run's files only."""
    from ckptsim.records.io import write_run

    try:
        out.mkdir(parents=True, exist_ok=True)
        for name in OPTIONAL_OUTPUTS + DRAWN_OUTPUTS:
            (out / name).unlink(missing_ok=True)
        write_run(result, out, allocations, per=per)
    except OSError as exc:
        where = exc.filename if exc.filename is not None else out
        raise OutputError(str(where), f"cannot write: {exc.strerror or exc}") from None


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
