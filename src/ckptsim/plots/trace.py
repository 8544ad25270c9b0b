"""Trace figures: the runtime / estimate distribution of seed 000 Fig. 2."""

from __future__ import annotations

import gzip
import io
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from ckptsim.errors import ConfigError, OutputError
from ckptsim.workload.model import Workload
from ckptsim.workload.stats import ratio_histogram, runtime_estimate_ratio


def image_types() -> list[str]:
    """The file name suffixes matplotlib can write (png, svg, pdf, ...), sorted."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.backend_bases import FigureCanvasBase

    return sorted(FigureCanvasBase.get_supported_filetypes())


def check_image_path(path: str | Path) -> None:
    """Raise unless `path` names an image type matplotlib writes, in an existing folder, so
    that a figure fails before the work that draws it, not after.

    Raises:
        ConfigError: (key "path") the suffix is missing or not an image type.
        OutputError: the folder does not exist or is not a folder.
    """
    p = Path(path)
    suffix = p.suffix.lower().lstrip(".")
    accepted = image_types()
    if suffix not in accepted:
        what = f"unknown image type '.{suffix}'" if suffix else "no image type suffix"
        raise ConfigError("path", f"{path}: {what}; accepted: "
                                  f"{', '.join('.' + t for t in accepted)}")
    folder = p.parent
    if not folder.is_dir():
        raise OutputError(str(path), f"cannot write: the folder {folder} does not exist"
                          if not folder.exists() else f"cannot write: {folder} is not a folder")


def save_image(fig: Any, path: str | Path, png_software: bool = False) -> None:
    """Write `fig` to `path`, its type by the suffix, so that the same figure gives the same
    bytes: no date (SVG, PDF, PostScript), no random ids (SVG), no gzip time stamp (`.svgz`),
    no software tag (PNG, unless `png_software`). A write that fails, or a backend that
    cannot run (`.pgf` without LaTeX), is an OutputError naming the path.
    """
    import matplotlib

    suffix = Path(path).suffix.lower()
    metadata: dict[str, Any] | None = {
        ".png": None if png_software else {"Software": None},
        ".svg": {"Date": None, "Creator": None}, ".svgz": {"Date": None, "Creator": None},
        ".pdf": {"CreationDate": None, "Creator": None, "Producer": None},
    }.get(suffix)
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    try:
        # PostScript takes its date from SOURCE_DATE_EPOCH only.
        os.environ.setdefault("SOURCE_DATE_EPOCH", "0")
        with matplotlib.rc_context({"svg.hashsalt": "ckptsim"}):
            if suffix == ".svgz":
                text = io.BytesIO()
                fig.savefig(text, format="svg", metadata=metadata)
                Path(path).write_bytes(gzip.compress(text.getvalue(), mtime=0))
            elif metadata is not None:
                fig.savefig(path, metadata=metadata)
            else:
                fig.savefig(path)
    except OSError as exc:
        raise OutputError(str(path), f"cannot write: {exc.strerror or exc}") from None
    except RuntimeError as exc:
        raise OutputError(str(path), f"cannot write: {exc}") from None
    finally:
        if epoch is None:
            del os.environ["SOURCE_DATE_EPOCH"]


def plot_runtime_estimate_ratio(workloads: Mapping[str, Workload], path: str | Path) -> None:
    """Grouped bars of the fraction of jobs per runtime / estimate bin, one group per trace.

    Raises:
        ConfigError, OutputError: see `check_image_path`; OutputError also when writing fails.
    """
    check_image_path(path)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 3.8), dpi=150, layout="constrained")
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
    ax.grid(axis="y", alpha=0.3)
    ax.set_axisbelow(True)
    # Beside the axes, so that it covers no bar.
    fig.legend(loc="outside right center", fontsize="small")
    try:
        save_image(fig, path)
    finally:
        plt.close(fig)
