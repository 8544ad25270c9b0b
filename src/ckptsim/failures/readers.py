"""Readers of real failure logs: the LANL failure data (CFDR) and Failure Trace Archive files.

Both readers return a `FailureTrace` of failure starts relative to the start of the chosen
window, with the repair duration the log records, and count in `counts` every record they
skipped or found odd, so that a summary can say what happened to the log.  They never return an
empty trace: a file without records, or a selection (system, platform, nodes, window) that keeps
no failure, is an error that says what the file holds instead.  A malformed record is an error
naming the file, the line and the field; nothing is silently dropped.

Windows.  `start` and `end` accept either a number, read as seconds after the first failure of
the selection, or an absolute time: a `datetime`, a `date`, or a string in ISO form
(`2004-01-01`, `2004-01-01 12:00`) or in the LANL form (`1/1/2004 12:00`).  The window is
[start, end); times in the result are seconds from `start`, or from the first selected failure
when no start is given, and the trace's span is `end - start` (or runs to the last failure).

LANL times are local wall-clock times at Los Alamos (US Mountain time), which jump by an hour at
daylight-saving changes; FTA times are Unix seconds (UTC).  See docs/failures.md.

Modules.  This module is where users and the rest of the package import the readers from (and
`ckptsim.failures`, which re-exports them); the code lives in `ckptsim.failures.lanl` (the LANL
reader and its daylight-saving clock), `ckptsim.failures.fta` (the Failure Trace Archive reader
and its fast column splitter) and `ckptsim.failures.logs` (what both share: the file's text, the
window bounds, the window and the trace built from a selection).
"""

from __future__ import annotations

# Besides the public names, the private names other modules import from here stay importable:
# the AVT reader reads its files with `_read_text`; tests reach the LANL clock and the FTA column
# splitters.
from ckptsim.failures.fta import fta_event_trace_path, read_fta
from ckptsim.failures.fta_columns import (
    _fast_fta_columns,  # noqa: F401
    _fta_header,  # noqa: F401
    _slow_fta_columns,  # noqa: F401
)
from ckptsim.failures.lanl import (
    LANL_NODE_COLUMNS,
    LANL_SYSTEM_STRIDE,  # noqa: F401
    _lanl_seconds,  # noqa: F401
    lanl_systems,
    read_lanl_cfdr,
)
from ckptsim.failures.logs import (
    TimeSpec,
    _read_text,  # noqa: F401
)

__all__ = ["LANL_NODE_COLUMNS", "TimeSpec", "fta_event_trace_path", "lanl_systems",
           "read_fta", "read_lanl_cfdr"]
