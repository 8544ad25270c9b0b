"""The largest sizes and times ckptsim accepts, and the checks that apply them.

Every size a user gives -- a machine size (`--machine-size`, an SWF header, a platform file, a
generator's option), a number of jobs or days to generate -- and every time
read from a trace is checked here, so that a typo ends in an error naming the option (or the
file, line and field), the value and the limit rather than in a multi-gigabyte allocation, a
hang or an overflow.  The limits and their reasons are in docs/workloads.md and
docs/platforms.md.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from ckptsim.errors import ConfigError, WorkloadError

if TYPE_CHECKING:  # numpy is imported where a column is checked: `params` reads MAX_SECONDS
    import numpy as np

#: Largest time a trace may hold (SWF submit, run and requested times; availability and failure
#: traces; durations): 1e10 s, about 317 years; real traces stay below 3e9.  Larger values are
#: unit mistakes (milliseconds) or corruption, and the simulated clock grows with them.
MAX_SECONDS = 1e10

#: Most nodes of a simulated machine (engine nodes: processors, or cores of a platform's
#: machines): 2**20 = 1,048,576, eleven times the largest trace shipped (CEA-Curie, 93,312).
#: The free set keeps one mask per block of 1,024 nodes over all the blocks below it, so its
#: memory grows with the square of the nodes: about 140 MB at the limit, 2 GB at 4 million.
MAX_NODES = 1 << 20

#: Most jobs a generator may make (lublin: n; grid: clusters x n; htc: about mean x days):
#: 4,000,000, 2.5 times seed 001's grid workload (4 x 400,000) and five times CEA-Curie's
#: 773,138.  Generating them takes about 2 GB (Lublin: ~450 bytes a job); a run, more.
MAX_JOBS = 4_000_000

#: Largest memory footprint a generator may give a job (htc: memory_min, memory_max): 1e12 MB,
#: an exabyte; written in KB into the SWF's used_memory, which stays finite (x 1024).
MAX_MEMORY_MB = 1e12

#: Most days a generator may cover (htc: days; the pool's user model): 36,500, a century,
#: well inside MAX_SECONDS (days are simulated seconds from time 0).
MAX_DAYS = 36_500


def check_nodes(key: str, value: Any, what: str = "") -> int:
    """`value` as a number of nodes in 1..MAX_NODES, else a ConfigError naming `key`."""
    if isinstance(value, bool):
        raise ConfigError(key, f"expected an integer >= 1, got {value!r}")
    try:
        n = int(value)
    except (TypeError, ValueError, OverflowError):
        raise ConfigError(key, f"expected an integer >= 1, got {value!r}") from None
    if n < 1:
        raise ConfigError(key, f"expected an integer >= 1, got {value!r}")
    if n > MAX_NODES:
        raise ConfigError(key, f"{what or n} nodes is more than the largest machine accepted, "
                               f"{MAX_NODES} (MAX_NODES)")
    return n


def header_nodes(where: str, key: str, digits: str) -> int:
    """A trace header's size (`key`: MaxProcs, MaxNodes; `digits`: its leading integer), else
    a ConfigError under `machine_size`, the option that replaces it."""
    digits = digits.lstrip("0") or "0"
    if len(digits) > 18 or int(digits) > MAX_NODES:  # not int() first: 4,300 digits at most
        shown = digits if len(digits) <= 24 else f"{digits[:12]}... ({len(digits)} digits)"
        raise ConfigError("machine_size", f"{where}: the header's {key}, {shown}, is more than "
                                          f"the largest machine accepted, {MAX_NODES} "
                                          f"(MAX_NODES): give a machine size of at most "
                                          f"{MAX_NODES}")
    return int(digits)


def check_count(key: str, value: int, limit: int, name: str, unit: str, how: str = ""
                ) -> None:
    """Refuse `value` above `limit` (the constant `name`), a ConfigError naming `key`; `how`
    says how the value comes about, e.g. "4 clusters x 2000000 jobs"."""
    if value > limit:
        shown = f"{how} = {value}" if how else f"{value}"
        raise ConfigError(key, f"{shown} {unit} is more than the limit, {limit} ({name})")


def check_time(value: float, *, path: str, line: int | None, field: str | None,
               what: str = "time", hint: str = "a unit mistake?") -> None:
    """Refuse a time (or a duration) beyond MAX_SECONDS either side of 0, naming the file, the
    line and the field."""
    if not abs(value) <= MAX_SECONDS:  # NaN too
        raise WorkloadError(_beyond(value, what, hint), path=path, line=line, field=field)


def check_times(values: np.ndarray, lines: list[int], *, path: str, field: str,
                what: str = "time") -> None:
    """`check_time` over a column (`lines[i]`: the line of `values[i]`); NaN is let through
    (a reader's mark of a missing value)."""
    import numpy as np

    bad = np.abs(values) > MAX_SECONDS
    if bad.any():
        i = int(np.argmax(bad))
        raise WorkloadError(_beyond(float(values[i]), what, "a unit mistake?"), path=path,
                            line=lines[i], field=field)


def check_generated(key: str, values: np.ndarray, cause: str, what: str, accepted: str
                    ) -> None:
    """Refuse a generated column (run times, submit times) whose largest value is beyond
    MAX_SECONDS, or not finite: a ConfigError naming `key`, the generator's option that
    makes it so (`cause`, e.g. "runtime=1e+300"), and saying what is `accepted`."""
    import numpy as np

    largest = float(np.max(values, initial=0.0))
    if not largest <= MAX_SECONDS:  # inf and NaN too
        shown = f"{largest:g} s" if math.isfinite(largest) else "more than 1e+308 s"
        raise ConfigError(key, f"{cause} makes {what} {shown}, beyond the largest time "
                               f"accepted, {MAX_SECONDS:g} s (317 years; MAX_SECONDS); "
                               f"accepted: {accepted}")


def _beyond(value: float, what: str, hint: str) -> str:
    shown = f"{value:g}" if math.isfinite(value) else repr(value)
    return (f"{what} {shown} s is beyond the largest accepted, {MAX_SECONDS:g} s (317 years; "
            f"MAX_SECONDS): {hint}")


__all__ = ["MAX_DAYS", "MAX_JOBS", "MAX_NODES", "MAX_SECONDS", "check_count",
           "check_generated", "check_nodes", "check_time", "check_times", "header_nodes"]
