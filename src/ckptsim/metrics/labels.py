"""What a metric is called in words, with its unit: the rows of `ckptsim run`'s summary table
and the axes of figures (`metric_label`), and whether it can be negative (error bars of a
quantity that cannot be are clipped at zero: `nonnegative`)."""

from __future__ import annotations

import re

#: The summary table's rows (summary.json key, label), in the order `ckptsim run` prints them.
SUMMARY_ROWS = (
    ("jobs", "jobs"), ("jobs_killed", "jobs ended unfinished (killed for good)"),
    ("mean_wait", "mean wait (s)"), ("median_wait", "median wait (s)"),
    ("p95_wait", "95th percentile wait (s)"), ("max_wait", "max wait (s)"),
    ("mean_response", "mean response (s)"), ("mean_bsld", "mean bounded slowdown"),
    ("max_bsld", "max bounded slowdown"), ("mean_queue_length", "mean queue length"),
    ("utilization", "utilisation"), ("makespan", "makespan (s)"),
    ("backfill_ratio", "backfill ratio"),
)
CHECKPOINT_ROWS = (
    ("preempt_ratio", "preempt ratio"), ("checkpoints", "checkpoints"),
    ("node_checkpoints_per_node_day", "node-checkpoints per node-day"),
    ("wasted_ratio", "wasted ratio"),
)
HTC_ROWS = (
    ("mean_task_overhead_min", "mean task overhead (min)"), ("evictions", "evictions"),
    ("wasted_cpu_s", "wasted CPU time (s)"),
)
CLASS_ROWS = (
    ("arrt_short", "ARRT short jobs"), ("arrt_medium", "ARRT medium jobs"),
    ("arrt_long", "ARRT long jobs"), ("arrt_medium_long", "ARRT medium and long jobs"),
    ("slice_suspensions", "slice suspensions"), ("alc_checkpoints", "ALC checkpoints"),
    ("alc_migrations", "ALC migrations"),
)
LABELS = dict(SUMMARY_ROWS + CHECKPOINT_ROWS + HTC_ROWS + CLASS_ROWS)

#: Words for the parts of a metric's name that are abbreviations.
_WORDS = {"bsld": "bounded slowdown", "arrt": "ARRT", "htc": "HTC", "cpu": "CPU",
          "ci": "CI", "p95": "95th percentile", "ctmr": "CTMR", "alc": "ALC"}
#: Units written as a name's last part.
_UNITS = {"s": "s", "min": "min", "h": "h", "pct": "%", "kwh": "kWh", "mwh": "MWh",
          "j": "J", "gb": "GB", "mb": "MB"}
#: Parts of a name that mark a quantity that may be negative (a change, a gain, a benefit).
_SIGNED = re.compile(r"(^|_)(gain|benefit|change|improvement|diff|delta|difference|saving)s?"
                     r"(_|$)")


def metric_label(name: str) -> str:
    """A metric's label in words with its unit: the summary table's where it has one, else
    its name's parts as words (``energy_mwh`` -> ``energy (MWh)``)."""
    if name in LABELS:
        return LABELS[name]
    parts = [p for p in name.split("_") if p]
    unit = ""
    if len(parts) > 1 and parts[-1].lower() in _UNITS:
        unit = f" ({_UNITS[parts.pop().lower()]})"
    return " ".join(_WORDS.get(p.lower(), p) for p in parts) + unit if parts else name


def nonnegative(name: str) -> bool:
    """Whether the metric cannot be below zero (a time, a count, a ratio, an energy): not a
    gain, a change or a benefit, which may be."""
    return not _SIGNED.search(name.lower())
