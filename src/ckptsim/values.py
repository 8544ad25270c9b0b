"""Parsing user-given values (command line, specs) with errors that name the key."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ckptsim.errors import ConfigError, shown

TRUE = ("1", "true", "yes", "on")
FALSE = ("0", "false", "no", "off")


def number_text(x: float) -> str:
    """A number of seconds as ckptsim writes it (jobs.csv, SWF notes): whole numbers without a
    decimal point, others the shortest text that reads back exactly."""
    x = float(x)
    return str(int(x)) if x.is_integer() else repr(x)


def option_parts(key: str, options: str, text: str) -> Iterator[str]:
    """The stripped ``key=value`` parts of `options` (the part of `text` after ``KIND:``),
    none when it is blank; an empty part (two commas in a row, or one at either end) is refused,
    most likely a typo, under `key`."""
    if not options.strip():
        return
    for part in options.split(","):
        part = part.strip()
        if not part:
            raise ConfigError(key, f"empty option in {shown(text)}: give key=value options "
                                   "separated by single commas")
        yield part


def parse_bool(key: str, value: Any) -> bool:
    """true/false, yes/no, on/off, 1/0 (any case), or a bool."""
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in TRUE:
        return True
    if text in FALSE:
        return False
    raise ConfigError(key, f"expected true or false, got {shown(value)}")


def parse_int(key: str, value: Any, *, low: int | None = None) -> int:
    """An integer (a whole float is accepted; a bool or a fraction is not), >= `low` if given."""
    try:
        if isinstance(value, bool) or (isinstance(value, float) and not value.is_integer()):
            raise ValueError
        number = int(value.strip()) if isinstance(value, str) else int(value)
    except (TypeError, ValueError):
        raise ConfigError(key, f"expected an integer, got {shown(value)}") from None
    if low is not None and number < low:
        raise ConfigError(key, f"expected an integer >= {low}, got {shown(value)}")
    return number
