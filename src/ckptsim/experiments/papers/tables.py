"""The tables of a results page (docs/results/PAPER.md), computed from the figures' CSVs.

A page marks each generated table with an HTML comment naming it and an end marker:

    <!-- table: fig4 -->
    | ... the table ... |
    <!-- /table -->

`render_page` replaces what lies between the markers with the table computed from the CSVs in
the page's folder (docs/results/PAPER/), so the tables and the committed CSVs cannot drift apart
(a test renders every page and compares).  Every page may mark `claims`: its paper's claims
with their verdicts computed from those CSVs (`claims_table.markdown_table`, the output of
`ckptsim paper PAPER claims`).  `ckptsim paper PAPER tables --out FOLDER` rewrites the
page FOLDER.md from the CSVs in FOLDER.
"""

from __future__ import annotations

import csv
import math
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ckptsim.errors import ConfigError

Table = Callable[[Path], str]
MINUS = "\u2212"
_MARKED = re.compile(r"(<!-- table: (?P<name>[\w-]+) -->\n)(?P<body>.*?)(<!-- /table -->)",
                     flags=re.S)


class MissingCsv(ConfigError):
    """A CSV a page's table reads is missing: `command` (`ckptsim paper PAPER` then this)
    makes it."""

    def __init__(self, path: Path, command: str) -> None:
        self.path, self.command = path, command
        super().__init__("--out", f"{path} is missing: `ckptsim paper PAPER {command}` makes "
                                  "it")

    def naming(self, paper: str) -> ConfigError:
        """The same error naming the paper's command."""
        return ConfigError("--out", f"{self.path} is missing: `ckptsim paper {paper} "
                                    f"{self.command}` makes it")


def read(folder: Path, name: str, options: str = "") -> list[dict[str, Any]]:
    """The rows of folder/NAME.csv, numbers as floats; a missing CSV is refused naming the
    figure that makes it (NAME up to its first - or _: fig4 of fig4-replications, fig2 of
    fig2_shares), its `options` (those that make NAME's folder, e.g. --full) and --windows K
    for a `_windows` CSV."""
    path = folder / f"{name}.csv"
    if not path.exists():
        stem = Path(name).name
        figure = re.split(r"[-_]", stem)[0]
        extra = " --windows K" if stem.endswith("_windows") else ""
        raise MissingCsv(path, f"{figure}{options}{extra} --out {path.parent}")
    with open(path, newline="") as fh:
        return [{k: _number(v) for k, v in row.items()} for row in csv.DictReader(fh)]


def _number(text: str) -> Any:
    try:
        return float(text)
    except ValueError:
        return text


def markdown(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def render_page(text: str, folder: Path, tables: dict[str, Table]) -> str:
    """`text` with every marked table recomputed from the CSVs in `folder`."""
    def table(match: re.Match[str]) -> str:
        name = match.group("name")
        if name in ("claims", "decide") and name not in tables:  # every page's (its claims)
            from ckptsim.experiments.papers.base import get_paper

            return match.group(1) + get_paper(folder.name).page_tables()[name](folder) \
                + match.group(4)
        if name not in tables:
            raise ConfigError("table", f"the page names an unknown table {name!r}; known: "
                                       f"{', '.join(tables)}")
        try:
            body = tables[name](folder)
        except KeyError as exc:  # a CSV cut or from another version, not a traceback
            raise ConfigError("--out", f"{folder}: the table {name!r} needs "
                                       f"{exc.args[0]!r}, which its figures' CSVs lack (a "
                                       "damaged or older file?): run the figure again") from None
        return match.group(1) + body + match.group(4)

    return _MARKED.sub(table, text)


def marked(text: str) -> list[str]:
    """The names of the tables a page marks, in order."""
    return [m.group("name") for m in _MARKED.finditer(text)]


# ----------------------------------------------------------------------------- formats
def change(ratio: float, digits: int = 0) -> str:
    """A ratio to a baseline as a signed percentage: 0.74 -> "−26%", 1.166 -> "+17%"."""
    if not math.isfinite(ratio):
        return "-"
    value = (ratio - 1.0) * 100
    scale = 10 ** digits
    magnitude = math.floor(abs(value) * scale + 0.5) / scale  # halves away from zero
    if magnitude == 0:
        return "0%"
    return (MINUS if value < 0 else "+") + f"{magnitude:,.{digits}f}%"


def percent(share: float, digits: int = 1) -> str:
    """A share as a percentage: 0.0175 -> "1.8%"."""
    return f"{share * 100:.{digits}f}%" if math.isfinite(share) else "-"


def number(value: float, digits: int = 1) -> str:
    """A number with thousands separators and `digits` decimals (no decimals from 1,000)."""
    if not math.isfinite(value):
        return "-"
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    return f"{value:,.{digits}f}"


def days(seconds: float, digits: int = 1) -> str:
    return f"{seconds / 86400.0:.{digits}f} d"


def hours(seconds: float, digits: int = 1) -> str:
    return f"{seconds / 3600.0:.{digits}f} h"
