"""Workloads: the `Workload` model, SWF traces, generators and transforms.

The package is also callable: ``ckptsim.workload(text, **options)`` is
`ckptsim.workload.source.load_workload` (any string `--workload` accepts: a trace path,
``builtin``, ``lublin:...``, ``grid:...``, ``htc:...``).
"""

from __future__ import annotations

import os
import sys
import types
from typing import Any

#: The keys of the transforms' errors -> the option of `ckptsim.workload` that set them.
_OPTION_OF = {"n": "first", "c": "load_scale", "start": "window", "end": "window",
              "start/end": "window"}


class _CallableModule(types.ModuleType):
    def __call__(self, text: str | os.PathLike[str], **options: Any) -> Any:
        """The workload `text` names (a string, or a trace's path), with `load_workload`'s
        options (first=, alpha=, window=(start, end), ...); an error names the option."""
        from ckptsim.errors import ConfigError
        from ckptsim.workload.source import load_workload

        window = options.get("window")
        if window is not None and (isinstance(window, (str, bytes)) or
                                   not hasattr(window, "__len__") or len(window) != 2):
            raise ConfigError("window", f"expected (start, end) in seconds, got {window!r}")
        try:
            return load_workload(os.fspath(text) if isinstance(text, os.PathLike) else text,
                                 **options)
        except ConfigError as exc:
            if exc.key in _OPTION_OF:
                raise ConfigError(_OPTION_OF[exc.key], exc.message) from None
            raise


sys.modules[__name__].__class__ = _CallableModule
