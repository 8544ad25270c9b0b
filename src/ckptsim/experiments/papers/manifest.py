"""What a results folder's CSVs were made with: the manifest a paper command writes beside
them (FOLDER/manifest.json) and the check of it by the commands that read a folder.

A paper command records, for every CSV it writes, the figure it belongs to and the options it
was made with: each option of the paper that changes what the figure computes
(`PaperOption.recorded`: not where the runs happen nor where the inputs are read from) and that
the figure uses (`Paper.used_by`), at the value the figure read (`--full` is recorded through
what it sets: jobs per cluster, days, replications).  `tables` and `claims` warn of a folder
whose CSVs were made with different options, or where some CSVs are recorded and others not
(e.g. one figure rerun at `--first 2000` into a copy of a committed results folder), naming the
files and their options, and end their output with what the CSVs were made with.  They do not
refuse it: a results page may mix sizes on purpose (jones: its headline points at the seed's
size beside figures of 2,000 jobs per cluster).  A folder without a manifest (the committed
docs/results folders) is read as before; its options are said to be unrecorded.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ckptsim.errors import ConfigError

if TYPE_CHECKING:
    from ckptsim.experiments.papers.base import Paper

MANIFEST = "manifest.json"


def recorded_options(paper: Paper) -> list[tuple[str, str]]:
    """The (flag, options field) pairs a figure of `paper` may record, in the table's order."""
    from ckptsim.experiments.papers.base import SHARED_OPTIONS

    options = [*(o for o in SHARED_OPTIONS if o.flag in paper.uses), *paper.own_options]
    return [(o.flag, paper.option_fields.get(o.flag, o.dest)) for o in options if o.recorded]


def _plain(value: Any) -> Any:
    """A value as JSON holds it (tuples as lists, paths as text)."""
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    return value


def made_with(paper: Paper, figure: str | None, opt: Any,
              sets: Sequence[str] = ()) -> dict[str, Any]:
    """The options `figure` was made with, by flag (None: a file of no known figure, every
    recorded option); `sets`: the `--set` KEY=VALUE items that reached its runs (recorded
    only when there are some)."""
    out = {}
    for flag, name in recorded_options(paper):
        users = paper.used_by.get(flag)
        if figure is not None and users is not None and figure not in users:
            continue
        out[flag] = _plain(getattr(opt, name))
    if sets:
        out["--set"] = list(sets)
    return out


def figure_of(stem: str, figures: Sequence[str]) -> str | None:
    """The figure a CSV belongs to: its stem, or the longest figure it extends with - or _
    (fig4-replications, fig4_windows)."""
    for figure in sorted(figures, key=len, reverse=True):
        if stem == figure or stem.startswith((f"{figure}-", f"{figure}_")):
            return figure
    return None


def _csvs(folder: Path) -> dict[str, tuple[int, int]]:
    return {p.name: (p.stat().st_mtime_ns, p.stat().st_size)
            for p in folder.glob("*.csv") if p.is_file()} if folder.is_dir() else {}


def read(folder: Path) -> dict[str, Any] | None:
    """The folder's manifest, or None where it has none."""
    path = folder / MANIFEST
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text())
        if not isinstance(data, dict) or not isinstance(data.get("files"), dict):
            raise ValueError("no 'files' table")
    except ValueError as exc:
        raise ConfigError("--out", f"{path}: not a results manifest ({exc}); it records the "
                                   "options a paper command made the folder's CSVs with") \
            from None
    return data


def check_paper(folder: Path, paper: str) -> None:
    """Refuse a folder whose manifest is another paper's (before anything runs)."""
    data = read(folder)
    if data is not None and data.get("paper") != paper:
        raise ConfigError("--out", f"{folder} holds the figures of {data.get('paper')!r} "
                                   f"({MANIFEST}), not {paper}'s; give a folder of its own")


@contextlib.contextmanager
def recording(paper: Paper, figure: str, opt: Any, out: Path,
              sets: Mapping[str, Sequence[str]] | None = None) -> Iterator[list[Path]]:
    """Record in out/manifest.json every CSV written inside (the paths appended to the list it
    yields, and any CSV of the folder created or changed meanwhile), also when a figure fails
    part way; `sets`: figure -> the `--set` items that reached its runs."""
    before = _csvs(out)
    written: list[Path] = []
    try:
        yield written
    finally:
        after = _csvs(out)
        names = {p.name for p in written} | {n for n, s in after.items() if before.get(n) != s}
        record(paper, figure, opt, out, sorted(n for n in names if n in after), sets)


def record(paper: Paper, figure: str, opt: Any, out: Path, names: Iterable[str],
           sets: Mapping[str, Sequence[str]] | None = None) -> None:
    """Set the entries of the CSVs `names` of `out`, made by `paper` `figure` at `opt` (and
    `sets`, figure -> its `--set` items)."""
    names = list(names)
    if not names:
        return
    data = read(out) or {}
    files = dict(data.get("files", {})) if data.get("paper") == paper.name else {}
    figures = paper.wanted(figure)
    for name in names:
        owner = figure_of(Path(name).stem, figures)
        files[name] = {"figure": owner,
                       "options": made_with(paper, owner, opt, (sets or {}).get(owner, ()))}
    text = json.dumps({"paper": paper.name, "files": files}, indent=2, sort_keys=True)
    tmp = out / f".{MANIFEST}.tmp"
    tmp.write_text(text + "\n")
    tmp.replace(out / MANIFEST)


def shown(value: Any) -> str:
    if value is None:
        return "default"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return " ".join(shown(v) for v in value)
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _names(files: Sequence[str]) -> str:
    return ", ".join(files)


def check(folder: Path, paper: str, skip: Iterable[Path] = ()) -> tuple[str, str | None]:
    """What the CSVs of `folder` were made with: a line to print after the command's output,
    and, where its CSVs were made with different options or its manifest leaves some of them
    out, a warning naming each option's values with their files and the unrecorded CSVs
    (None: no mix)."""
    data = read(folder)
    unknown = f"{folder}: the options its CSVs were made with are unrecorded (no {MANIFEST})"
    if data is None:
        return unknown, None
    check_paper(folder, paper)
    skipped = {Path(p).resolve() for p in skip}
    csvs = sorted(n for n in _csvs(folder) if (folder / n).resolve() not in skipped)
    files = {n: e.get("options", {}) for n, e in data["files"].items() if n in csvs}
    if not files:
        return unknown, None
    values: dict[str, dict[str, list[str]]] = {}
    # A CSV made without --set holds the figures' own reading: "none" beside those with one
    # (not a figure computed without runs, which no --set reaches).
    from ckptsim.experiments.papers.base import get_paper

    unset = {n for n, e in data["files"].items() if e.get("figure") not in
             get_paper(paper).no_runs} if any("--set" in o for o in files.values()) else set()
    for name, options in sorted(files.items()):
        for flag, value in {**({"--set": "none"} if name in unset else {}), **options}.items():
            values.setdefault(flag, {}).setdefault(shown(value), []).append(name)
    mixed = {flag: by for flag, by in values.items() if len(by) > 1}
    same = ", ".join(f"{flag} {next(iter(by))}" for flag, by in sorted(values.items())
                     if len(by) == 1) or "the defaults"
    unrecorded = [n for n in csvs if n not in files]
    if not mixed and not unrecorded:
        return f"{folder}: its CSVs were made with {same} ({MANIFEST})", None
    parts = [f"{flag} " + "; ".join(f"{v} in {_names(names)}" for v, names in by.items())
             for flag, by in sorted(mixed.items())]
    if unrecorded:
        parts.append(f"{_names(sorted(files))} made with {same}; unrecorded: "
                     f"{_names(unrecorded)}")
    return (f"{folder}: its CSVs were made with different options ({MANIFEST}; see the "
            "warning)",
            f"{folder} mixes figures made with different options: {'. '.join(parts)}. They are "
            "read as they are: run the figures into one folder with the same options (a new "
            "folder, or rerun the others into this one) to compare one size")
