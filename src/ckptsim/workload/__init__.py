"""Workloads: the `Workload` model, SWF traces, generators and transforms.

The package is also callable: ``ckptsim.workload(text, **options)`` is
`ckptsim.workload.source.load_workload` (any string `--workload` accepts: a trace path,
``builtin``, ``lublin:...``, ``grid:...``, ``htc:...``).
"""

from __future__ import annotations

import sys
import types
from typing import Any


class _CallableModule(types.ModuleType):
    def __call__(self, text: str, **options: Any) -> Any:
        """The workload `text` names, with `load_workload`'s options (first=, alpha=...)."""
        from ckptsim.workload.source import load_workload

        return load_workload(text, **options)


sys.modules[__name__].__class__ = _CallableModule
