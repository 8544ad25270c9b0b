"""Trace figures: the runtime / estimate distribution of seed 000 Fig. 2."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np

from ckptsim.workload.model import Workload
from ckptsim.workload.stats import ratio_histogram, runtime_estimate_ratio


def plot_runtime_estimate_ratio(workloads: Mapping[str, Workload], path: str | Path) -> None:
    """Grouped bars of the fraction of jobs per runtime / estimate bin, one group per trace."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 3.8), dpi=150)
    names = list(workloads)
    width = 0.8 / max(len(names), 1)
    labels: list[str] = []
    for k, name in enumerate(names):
        hist = ratio_histogram(runtime_estimate_ratio(workloads[name]))
        labels = [f"{lo:.1f}-{hi:.1f}" if np.isfinite(hi) else f">{lo:.0f}"
                  for lo, hi in zip(hist["low"], hist["high"], strict=True)]
        x = np.arange(len(labels)) + (k - (len(names) - 1) / 2) * width
        ax.bar(x, np.array(hist["fraction"]) * 100, width=width, label=name)
    ax.set_xticks(np.arange(len(labels)), labels, rotation=45, ha="right")
    ax.set_xlabel("actual runtime / user estimate")
    ax.set_ylabel("jobs (%)")
    ax.set_title("Accuracy of runtime estimates")
    ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(path, metadata={"Software": None} if str(path).endswith(".png") else None)
    plt.close(fig)
