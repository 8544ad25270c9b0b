"""ckptsim: trace-driven simulation of parallel job scheduling with checkpointing,
preemption, migration, failures and energy.

The plug-in API (docs/plugins.md), imported on first use so that ``import ckptsim`` stays
cheap:

    ckptsim.Scheduler, ckptsim.QueueScheduler     base classes of scheduling policies
    ckptsim.Component                             base class of components
    ckptsim.CheckpointPolicy, ckptsim.CostParams  base class of checkpoint policies, their costs
    ckptsim.param                                 a declared parameter
    ckptsim.simulate(workload, scheduler, ...)    one run (a name, a reference or a class)
    ckptsim.workload(text)                        a workload from any `--workload` string

Results as pandas DataFrames (docs/outputs.md, "pandas"; pandas is imported when they are
called):

    ckptsim.simulate(...).to_pandas()             a run's per-job records (jobs.csv's columns)
    ckptsim.load_run(DIR)                         a `ckptsim run --out DIR` folder
    ckptsim.load_results(DIR)                     a sweep's results store, one row per run
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"

#: Exported name -> (module, attribute), imported when first asked for.
_EXPORTS = {
    "Scheduler": ("ckptsim.policies.base", "Scheduler"),
    "QueueScheduler": ("ckptsim.policies.queue", "QueueScheduler"),
    "Component": ("ckptsim.engine.components", "Component"),
    "CheckpointPolicy": ("ckptsim.checkpointing.base", "CheckpointPolicy"),
    "CostParams": ("ckptsim.checkpointing.base", "CostParams"),
    "param": ("ckptsim.params", "param"),
    "simulate": ("ckptsim.runner", "simulate"),
    "RunResult": ("ckptsim.runner", "RunResult"),
    # The workload package is callable: ckptsim.workload("lublin:n=800").
    "workload": ("ckptsim", "workload"),
    "load_run": ("ckptsim.frames", "load_run"),
    "load_results": ("ckptsim.frames", "load_results"),
}

__all__ = ["__version__", *_EXPORTS]


def __getattr__(name: str) -> Any:
    target = _EXPORTS.get(name)
    if target is None:
        raise AttributeError(f"module 'ckptsim' has no attribute {name!r}")
    import importlib

    if name == "workload":  # a subpackage: importing it sets the attribute
        return importlib.import_module("ckptsim.workload")
    value = getattr(importlib.import_module(target[0]), target[1])
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS})
