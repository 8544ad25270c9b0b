"""The `[[figures]]` of an experiment spec: each entry checked (its keys, its kind, the
columns it names, resolved to store columns; its metric) into a `FigureSpec`.  Problems are
collected, as for the rest of the spec (`ckptsim.experiments.spec`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ckptsim.errors import did_you_mean
from ckptsim.experiments.columns import resolve
from ckptsim.experiments.specvalues import _NAME, _Problems, _scalar, _unknown

FIGURE_KINDS = ("line", "bar")
FIGURE_KEYS = ("name", "kind", "x", "y", "group_by", "facet_by", "where", "title", "xlabel",
               "ylabel", "logx", "logy")


@dataclass(frozen=True)
class FigureSpec:
    """One `[[figures]]` entry; column names are resolved to store columns."""

    name: str
    kind: str
    x: str
    y: str
    group_by: str | None = None
    facet_by: str | None = None
    where: dict[str, tuple[Any, ...]] = field(default_factory=dict)
    title: str = ""
    xlabel: str = ""
    ylabel: str = ""
    logx: bool = False
    logy: bool = False


def _figures(problems: _Problems, doc: dict[str, Any], columns: list[str],
             metrics: list[str]) -> list[FigureSpec]:
    entries = doc.get("figures", [])
    if not isinstance(entries, list):
        problems.add("figures", "expected [[figures]] entries")
        return []
    out: list[FigureSpec] = []
    for i, entry in enumerate(entries):
        loc = f"figures[{i}]"
        if not isinstance(entry, dict):
            problems.add(loc, "expected a table")
            continue
        _unknown(problems, f"{loc}.", entry, FIGURE_KEYS)
        name = _scalar(problems, entry, "name", str, f"figure{i + 1}", f"{loc}.")
        if not _NAME.match(name):
            problems.add(f"{loc}.name", f"use letters, digits, '_', '.', '-' only, got {name!r}")
        if name in [f.name for f in out]:
            problems.add(f"{loc}.name", f"figure name {name!r} is used twice")
        kind = _scalar(problems, entry, "kind", str, "line", f"{loc}.")
        if kind not in FIGURE_KINDS:
            problems.add(f"{loc}.kind", f"got {kind!r}; accepted: {', '.join(FIGURE_KINDS)}")

        def col(key: str, required: bool = False, loc: str = loc,
                entry: dict[str, Any] = entry) -> str | None:
            if key not in entry:
                if required:
                    problems.add(f"{loc}.{key}", "missing; name a parameter column")
                return None
            if not isinstance(entry[key], str):
                problems.add(f"{loc}.{key}", f"expected one column name, got {entry[key]!r} "
                                             f"(x, group_by and facet_by name one column each)")
                return None
            try:
                return resolve(entry[key], columns)
            except KeyError as exc:
                problems.add(f"{loc}.{key}", str(exc.args[0]))
                return None

        x, group_by, facet_by = col("x", True), col("group_by"), col("facet_by")
        y = entry.get("y")
        if y not in metrics:
            problems.add(f"{loc}.y", f"expected a metric, got {y!r}"
                                     f"{did_you_mean(y, metrics)}; accepted: "
                                     f"{', '.join(metrics)}")
        where = _figure_where(problems, f"{loc}.where", entry.get("where", {}), columns)
        texts = {k: _scalar(problems, entry, k, str, "", f"{loc}.")
                 for k in ("title", "xlabel", "ylabel")}
        logs = {k: _scalar(problems, entry, k, bool, False, f"{loc}.") for k in ("logx", "logy")}
        if x is not None and isinstance(y, str):
            out.append(FigureSpec(name=name, kind=kind, x=x, y=y, group_by=group_by,
                                  facet_by=facet_by, where=where, **texts, **logs))
    return out


def _figure_where(problems: _Problems, loc: str, table: Any, columns: list[str]
                  ) -> dict[str, tuple[Any, ...]]:
    if not isinstance(table, dict):
        problems.add(loc, f"expected a table of column = value(s), got {table!r}")
        return {}
    out = {}
    for key, value in table.items():
        try:
            column = resolve(key, columns)
        except KeyError as exc:
            problems.add(f"{loc}.{key}", str(exc.args[0]))
            continue
        out[column] = tuple(value) if isinstance(value, list) else (value,)
    return out
