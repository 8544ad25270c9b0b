"""Where in a TOML text a key is: line numbers for the locations of the problems found in
experiment specs and platform files.

tomllib keeps no positions; this scan covers what specs use (headers, `key = value`, dotted
keys) and gives up quietly otherwise.
"""

from __future__ import annotations

import re
import tomllib
from typing import Any

_HEADER = re.compile(r"^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")
_KEY = re.compile(r"^\s*([A-Za-z0-9_.\-\"' ]+?)\s*=")


def _split_key(key: str) -> list[str]:
    return [part.strip().strip("\"'") for part in key.split(".")]


def key_lines(text: str) -> dict[tuple[str, ...], int]:
    """Line numbers of tables and keys, by path (array tables get their index), so that a
    problem can say where in the file it is.  tomllib keeps no positions; this scan covers
    what specs use (headers, `key = value`, dotted keys) and gives up quietly otherwise."""
    lines: dict[tuple[str, ...], int] = {}
    counters: dict[tuple[str, ...], int] = {}
    table: tuple[str, ...] = ()
    depth = 0  # open brackets of a multi-line value: its lines hold no keys
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.split("#", 1)[0] if '"' not in line and "'" not in line else line
        if depth == 0:
            m = _HEADER.match(line)
            if m and "=" not in m.group(2):
                parts = tuple(_split_key(m.group(2)))
                bare = parts
                if m.group(1) == "[[":
                    counters[parts] = counters.get(parts, -1) + 1
                    parts = (*parts[:-1], f"{parts[-1]}[{counters[parts]}]")
                table = tuple(_expand_arrays(parts, counters))
                lines.setdefault(table, number)
                # The tables a header creates without a header of their own (`workload` of
                # `[workload.x]`) and an array table as a whole (`scheduler` of
                # `[[scheduler]]`) are where their first header is: a misspelt section name
                # is then found by its line too.
                for end in range(1, len(table)):
                    lines.setdefault(table[:end], number)
                lines.setdefault((*table[:-1], bare[-1]), number)
                continue
            m = _KEY.match(line)
            if m:
                lines.setdefault((*table, *_split_key(m.group(1))), number)
        depth += stripped.count("[") - stripped.count("]")
        depth = max(depth, 0)
    return lines


def _expand_arrays(parts: tuple[str, ...], counters: dict[tuple[str, ...], int]) -> list[str]:
    """A sub-table of an array table (`[schedulers.params]`) belongs to its last element."""
    out: list[str] = []
    for i, part in enumerate(parts):
        prefix = tuple(p.split("[")[0] for p in parts[: i + 1])
        if "[" not in part and prefix in counters and i < len(parts) - 1:
            out.append(f"{part}[{counters[prefix]}]")
        else:
            out.append(part)
    return out


def line_of(lines: dict[tuple[str, ...], int], loc: str) -> int | None:
    """The line of `loc` (e.g. `schedulers[1].params.p[2]`), or of its nearest parent."""
    parts = loc.split(".")
    while parts:
        bare = [*parts[:-1], re.sub(r"(\[\d+\])+$", "", parts[-1])]
        for candidate in (parts, bare):
            found = lines.get(tuple(candidate))
            if found is not None:
                return found
        parts = parts[:-1]
    return None


def loads(text: str) -> dict[str, Any]:
    """`tomllib.loads`, with a document nested too deep for its recursive parser (arrays or
    inline tables thousands deep) raised as a `tomllib.TOMLDecodeError` too."""
    try:
        return tomllib.loads(text)
    except RecursionError:
        raise tomllib.TOMLDecodeError("arrays or tables nested too deep to read") from None
