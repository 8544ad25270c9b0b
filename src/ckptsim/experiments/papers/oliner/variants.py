"""Seed 004's readings as options (`ckptsim paper oliner options`): does the max form of P_f
(section 4.1), the balancing variant that holds the head for a stable partition, per-node
tie-break draws (section 4.2), re-packing migrated jobs with the fault-aware placement
instead of plain MFP, or a predictor that takes a failure at the scheduling instant as past
change the slowdown?  One family, at the first load scale and the
prediction figures' failure counts, against the defaults (the runs of Figs. 6 and 9, shared
through the store)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ckptsim.experiments.papers.common import FigureOutput, write_csv
from ckptsim.experiments.papers.oliner.plots import line_figure
from ckptsim.experiments.stats import mean_ci

if TYPE_CHECKING:
    from ckptsim.experiments.papers.oliner.experiments import Options

#: The variants: label, scheduler, extra parameters (none: the default reading).
VARIANTS: tuple[tuple[str, str, dict[str, Any]], ...] = (
    ("balancing (product P_f)", "bgl-balancing", {}),
    ("balancing, max P_f", "bgl-balancing", {"pf": "max"}),
    ("balancing, hold at P_f >= 0.5", "bgl-balancing", {"hold": 0.5}),
    ("balancing, fault-aware re-pack", "bgl-balancing", {"repack": "policy"}),
    ("balancing, a failure at now is past", "bgl-balancing", {"at_now": "past"}),
    ("tie-break (draw per box)", "bgl-tiebreak", {}),
    ("tie-break, draw per node", "bgl-tiebreak", {"draws": "node"}),
    ("tie-break, fault-aware re-pack", "bgl-tiebreak", {"repack": "policy"}),
    ("tie-break, a failure at now is past", "bgl-tiebreak", {"at_now": "past"}),
)
STYLES = ({"color": "tab:blue"}, {"color": "tab:cyan", "ls": "--"},
          {"color": "tab:purple", "ls": ":"}, {"color": "tab:green", "ls": "-."},
          {"color": "tab:olive", "ls": (0, (5, 1, 1, 1))},
          {"color": "tab:orange"}, {"color": "tab:red", "ls": "--"},
          {"color": "tab:brown", "ls": "-."}, {"color": "tab:pink", "ls": (0, (5, 1, 1, 1))})
#: The default reading of each scheduler: its variant without extra parameters.
DEFAULTS = {name: label for label, name, extra in VARIANTS if not extra}


def _toml(value: Any) -> str:
    return f'"{value}"' if isinstance(value, str) else f"{value:g}"


def schedulers_text(levels: str, tiebreak: dict[str, Any] | None = None) -> str:
    """The [[schedulers]] of the family; `levels` is the TOML list of prediction levels,
    `tiebreak` the parameters every `bgl-tiebreak` variant also gets (`--predictor-draws`)."""
    out = []
    for label, name, extra in VARIANTS:
        level = "confidence" if name == "bgl-balancing" else "accuracy"
        given = {**extra, **(tiebreak or {})} if name == "bgl-tiebreak" else extra
        params = ", ".join([f"{level} = {levels}", *(f"{k} = {_toml(v)}"
                                                      for k, v in given.items())])
        out += ["[[schedulers]]", f'name = "{name}"', f'label = "{label}"',
                f"params = {{ {params} }}", ""]
    return "\n".join(out)


def _given(row: dict[str, Any], key: str, default: Any) -> Any:
    """A parameter's value in a store row: `default` where the column is absent or empty (a
    parameter left at its default out of the run's identity)."""
    value = row.get(f"param.{key}")
    return default if value is None or (isinstance(value, float) and math.isnan(value)) \
        else value


def _variant(row: dict[str, Any]) -> str:
    for label, name, extra in VARIANTS:
        if row["scheduler_name"] != name:
            continue
        if _given(row, "repack", "mfp") != extra.get("repack", "mfp") \
                or _given(row, "at_now", "ahead") != extra.get("at_now", "ahead"):
            continue
        if name == "bgl-balancing" and (row["param.pf"] != extra.get("pf", "product")
                                        or (_given(row, "hold", None) is not None)
                                        != ("hold" in extra)):
            continue
        if name == "bgl-tiebreak" and row["param.draws"] != extra.get("draws", "box"):
            continue
        return label
    raise KeyError(f"run {row.get('run_id')} is none of the variants")


def options_figure(rows: list[dict[str, Any]], out: Path, opt: Options) -> FigureOutput:
    """Bounded slowdown against the prediction level for every variant (mean and 95% interval
    over the replications)."""
    from ckptsim.experiments.papers.oliner.experiments import TRACES

    groups: dict[tuple[str, str, float], list[dict[str, Any]]] = {}
    for row in rows:
        level = row["param.confidence" if row["scheduler_name"] == "bgl-balancing"
                    else "param.accuracy"]
        groups.setdefault((row["workload"], _variant(row), float(level)), []).append(row)
    labels = [label for label, _, _ in VARIANTS]
    table = []
    for key in sorted(groups, key=lambda k: (list(TRACES).index(k[0]), labels.index(k[1]),
                                             k[2])):
        members = groups[key]
        mean, half, _ = mean_ci([r["mean_response_bsld"] for r in members])
        table.append({"trace": key[0], "variant": key[1], "variant_index": labels.index(key[1]),
                      "level": key[2], "load_scale": float(members[0]["workload.load_scale"]),
                      "failure_count": float(members[0]["workload.failure_count"]),
                      "mean_response_bsld": mean, "mean_response_bsld_ci95": half,
                      "mean_wait": float(np.mean([r["mean_wait"] for r in members])),
                      "capacity_utilized": float(np.mean([r["capacity_utilized"]
                                                          for r in members])),
                      "seeds": len(members)})
    write_csv(out / "options.csv", table)
    series = [(label, {"variant_index": float(i)}, STYLES[i]) for i, label in enumerate(labels)]
    line_figure(table, opt.traces, "level", "prediction confidence / accuracy a", series,
                f"The seed's readings as options, c = {opt.loads[0]:g}, at the prediction "
                f"figures' failure counts", out / "options.png")
    return FigureOutput(out / "options.csv", out / "options.png", table)
