"""The tables of docs/results/forshaw.md, computed from the figures' CSVs (see tables.py)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from ckptsim.experiments.papers.tables import Table, markdown, read


def _pm(mean: float, half: float, digits: int = 2) -> str:
    if not math.isfinite(mean):
        return "-"
    text = f"{mean:.{digits}f}".replace("-", "\u2212")
    return text + (f" ± {half:.{digits}f}" if math.isfinite(half) else "")


def _baseline(name: str, stem: str, unit: str) -> Table:
    def table(folder: Path) -> str:
        rows = [[str(r["policy"]), _pm(r[stem], r[f"{stem}_ci"]), f"{r['seed']:g}",
                 f"{r['relative_to_none']:.2f}", f"{r['seed_relative_to_none']:.2f}",
                 f"{int(r['seeds'])}"] for r in read(folder, name, _made_by(name))]
        return markdown(["policy", f"ours ({unit}, mean ± 95% CI)", f"seed ({unit})",
                         "ours / None", "seed / None", "replications"], rows)
    return table


def _made_by(name: str) -> str:
    """The options of the command that makes the CSV NAME: full/ holds the `--full` runs."""
    return " --full" if name.startswith("full/") else ""


def _series(rows: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        out.setdefault(str(r["series"]), []).append(r)
    return out


def _best(members: list[dict[str, Any]], col: str) -> dict[str, Any]:
    finite = [r for r in members if isinstance(r[col], float) and math.isfinite(r[col])]
    return max(finite, key=lambda r: r[col]) if finite else members[0]


def _sweep(name: str, x: str, scale: float = 1.0) -> Table:
    """Per series: the parameter value with the largest overhead benefit and the largest
    energy benefit, those benefits (mean ± 95% CI), and the utilisation there."""
    def table(folder: Path) -> str:
        rows = []
        for label, members in _series(read(folder, name, _made_by(name))).items():
            bo = _best(members, "benefit_overhead_min")
            be = _best(members, "benefit_energy_mwh")
            rows.append([label, f"{bo['value'] * scale:g}",
                         _pm(bo["benefit_overhead_min"], bo["benefit_overhead_min_ci"]),
                         f"{be['value'] * scale:g}",
                         _pm(be["benefit_energy_mwh"], be["benefit_energy_mwh_ci"]),
                         _pm(be["utilisation"], be["utilisation_ci"], 3)])
        return markdown(["series", f"best {x} (overhead)", "overhead benefit",
                         f"best {x} (energy)", "energy benefit", "utilisation there"], rows)
    return table


def trace(folder: Path) -> str:
    rows = [[str(r["policy"]), _pm(r["overhead_min"], r["overhead_min_ci"]),
             _pm(r["energy_mwh"], r["energy_mwh_ci"], 3),
             # Benefits paired per replication (a run committed before their intervals were
             # written has none: shown without).
             _pm(r["benefit_overhead_min"], r.get("benefit_overhead_min_ci", math.nan)),
             _pm(r["benefit_energy_mwh"], r.get("benefit_energy_mwh_ci", math.nan)),
             _pm(r["utilisation"], math.nan, 3)] for r in read(folder, "trace")]
    return markdown(["policy", "task overhead (min)", "HTC energy (MWh)", "overhead benefit",
                     "energy benefit", "utilisation"], rows)


TABLES: dict[str, Table] = {
    "fig4": _baseline("fig4", "overhead_min", "min"),
    "fig5": _baseline("fig5", "energy_mwh", "MWh"),
    "fig6": _sweep("fig6", "n (min)"),
    "fig7": _sweep("fig7", "n (min)"),
    "fig8": _sweep("fig8", "r"),
    "fig9": _sweep("fig9", "m"),
    "fig10": _sweep("fig10", "p (%)", 100.0),
    "fig11": _sweep("fig11", "d (min)"),
    "fig12": _sweep("fig12", "l"),
    "trace": trace,
    # The families run at the seed's year (`--full`, 5 replications), in full/.
    "full-fig4": _baseline("full/fig4", "overhead_min", "min"),
    "full-fig5": _baseline("full/fig5", "energy_mwh", "MWh"),
    "full-fig6": _sweep("full/fig6", "n (min)"),
    "full-fig7": _sweep("full/fig7", "n (min)"),
    "full-fig8": _sweep("full/fig8", "r"),
    "full-fig9": _sweep("full/fig9", "m"),
    "full-fig10": _sweep("full/fig10", "p (%)", 100.0),
    "full-fig11": _sweep("full/fig11", "d (min)"),
    "full-fig12": _sweep("full/fig12", "l"),
}
