"""The console's lines on what the readers did: the workload's `loader:` line and its
counterparts for the failure log, the availability trace and the owners' sessions."""

from __future__ import annotations

from typing import Any

#: Loader counts worth a mention: records dropped or changed by the reader (a Batsim file's
#: jobs numbered 1..n, `ids_renumbered`, when its ids are not all job numbers), jobs a generator
#: changed after drawing them (Lublin: sizes capped to the machine; the Tsafrir estimate
#: model: runtimes truncated to the largest estimate, estimates raised), and job sizes a
#: scheduler changed to fit its machine (BG/L: scaled to the torus, rounded up to boxes).
_SHOWN_COUNTS = ("unsorted_submits", "clamped_too_large", "ids_renumbered", "lublin_size_capped",
                 "estimate_runtime_truncated", "estimate_raised", "sizes_scaled",
                 "sizes_rounded_to_box")


def loader_line(w: Any) -> str:
    """What the reader did to the trace (counts over every record read, before `--window`
    and `--first`), and what the scheduler did to job sizes."""
    changed = {k: v for k, v in sorted(w.counts.items())
               if v and (k.startswith("skipped") or k.endswith("missing")
                         or k in _SHOWN_COUNTS)}
    text = ", ".join(f"{k}={v}" for k, v in changed.items()) or "no records dropped or changed"
    if "records" in w.counts:
        text = f"{w.counts['records']} records read; {text}"
    return text


#: Counts of the failure and availability readers that are totals or say something of the
#: records kept without changing them: left off their console lines (summary.json has them).
_READER_TOTALS = ("records", "failures", "sessions", "intervals", "replayed_intervals",
                  "zero_repair", "duplicates", "overlapping", "down_time_mismatch")


def reader_lines(options: dict[str, Any]) -> list[str]:
    """The counterparts of the `loader:` line for the failure log (`options.failures.loader`),
    the availability trace and the owners' session CSV (`options.availability.trace_loader`,
    `owners_loader`) of a run: records read, the records each rule dropped or changed, what
    was kept; and what the failures' transforms counted (`options.failures.transform_counts`)."""
    failures = options.get("failures", {})
    counted = "; ".join(f"{t['transform']}: " + ", ".join(f"{k}={v}" for k, v in t.items()
                                                         if k != "transform")
                        for t in failures.get("transform_counts", ()) if len(t) > 1)
    lines = []
    availability = options.get("availability", {})
    for label, counts, kept, what in (
            ("failures loader", failures.get("loader"), "failures",
             "failures kept"),
            ("availability trace loader", availability.get("trace_loader"),
             "replayed_intervals", "intervals replayed"),
            ("availability owners loader", availability.get("owners_loader"), "sessions",
             "sessions kept")):
        if not counts:
            continue
        changed = ", ".join(f"{k}={v}" for k, v in counts.items()
                            if v and k not in _READER_TOTALS)
        lines.append(f"{label}: {counts['records']} records read; "
                     f"{changed or 'no records dropped or changed'}; {counts[kept]} {what}")
    if counted:  # after the failure log's line
        lines.insert(1 if failures.get("loader") else 0, f"failures transforms: {counted}")
    return lines
