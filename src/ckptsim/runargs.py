"""The arguments of `ckptsim.simulate` checked before anything runs: a value of the wrong kind
gets a ConfigError naming the argument and what it takes, instead of an AttributeError or a
TypeError from deep inside the run (or, for some, being read in a way nobody meant)."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from ckptsim.errors import ConfigError


def as_workload(workload: Any) -> Any:
    """`workload` as a `Workload`: one already, or what `ckptsim.workload` reads from a
    string or a path (a trace, ``builtin``, a generator)."""
    from ckptsim.workload.model import Workload

    if isinstance(workload, Workload):
        return workload
    if isinstance(workload, (str, os.PathLike)):
        from ckptsim.workload.source import load_workload

        return load_workload(os.fspath(workload))
    raise ConfigError("workload", f"expected a Workload (ckptsim.workload(...)), a trace path "
                                  f"or a generator string ('lublin:n=500'), got {_kind(workload)}")


def check_arguments(*, params: Any, machine_size: Any, overrun: Any, check: Any, daily: Any,
          progress: Any, seed: Any, platform: Any, components: Any, failures: Any,
          failure_count: Any, recorders: Any) -> None:
    """Refuse the arguments of `simulate` whose kind is wrong (their values are checked
    where they are used, as the command line's are)."""
    from ckptsim.platform.base import Platform
    from ckptsim.platform.description import Description

    if params is not None and not isinstance(params, Mapping):
        raise ConfigError("params", f"expected a mapping of the scheduler's parameters to "
                                    f"values ({{'requeue': 'front'}}), got {_kind(params)}")
    _integer("machine_size", machine_size, "a number of nodes")
    _integer("seed", seed, "a seed")
    _integer("failure_count", failure_count, "a number of failures")
    for name, value in (("check", check), ("daily", daily)):
        if not isinstance(value, bool):
            raise ConfigError(name, f"expected True or False, got {_kind(value)}")
    if not isinstance(overrun, str):
        raise ConfigError("overrun", f"expected 'extend' or 'kill', got {_kind(overrun)}")
    if progress is not None and not callable(progress):
        raise ConfigError("progress", f"expected a function progress(done, total, now), got "
                                      f"{_kind(progress)}")
    if platform is not None and not isinstance(platform, (Platform, str, os.PathLike,
                                                          Description)):
        raise ConfigError("platform", f"expected a Platform, a built-in platform's name or a "
                                      f"platform file, got {_kind(platform)}")
    if components is None or isinstance(components, (str, bytes)):
        raise ConfigError("components", f"expected a list of components (objects, classes or "
                                        f"texts 'NAME:key=value,...') or a mapping {{name: "
                                        f"{{parameter: value}}}}, got {_kind(components)}")
    if isinstance(recorders, (str, bytes)) or not hasattr(recorders, "__iter__"):
        raise ConfigError("recorders", f"expected a list of components, got "
                                       f"{_kind(recorders)}")
    if failures is not None and not isinstance(failures, str) and not all(
            hasattr(failures, column) for column in ("time", "node", "repair")):
        raise ConfigError("failures", f"expected a source string ('lanl:path=...', "
                                      f"'synthetic:mtbf=...') or a table with time, node and "
                                      f"repair columns (a FailureTrace, a DataFrame), got "
                                      f"{_kind(failures)}")
    if failure_count is not None and failures is not None and not isinstance(failures, str):
        raise ConfigError("failure_count", "takes failures from a source string; a table of "
                                           "failures is used as it is (cut it first)")


def _integer(name: str, value: Any, what: str) -> None:
    import numbers

    if value is not None and (isinstance(value, bool) or not isinstance(value, numbers.Integral)):
        raise ConfigError(name, f"expected an integer ({what}), got {_kind(value)}")


def _kind(value: Any) -> str:
    """A value as an error shows it: short, with its type."""
    text = repr(value)
    text = text if len(text) <= 60 else text[:57] + "..."
    return f"{text} ({type(value).__name__})"


def component_of(item: Any) -> Any:
    """One entry of `simulate(components=[...])`: a component, a component class (built
    with its default parameters, as `{Class: {}}` is), or ``--component``'s text
    (``"NAME:key=value,..."``)."""
    from ckptsim.components import Component, build_components, split_component

    if isinstance(item, Component):
        return item
    if isinstance(item, type) and issubclass(item, Component):
        return build_components({item: {}})[0]  # type: ignore[dict-item]
    if isinstance(item, str):
        name, values = split_component(item)
        return build_components({name: values})[0]
    raise ConfigError("components", f"expected Component objects or classes, or texts "
                                    f"NAME:key=value,..., got {item!r} (components by name: "
                                    "also a mapping {name: {parameter: value}})")


def run_components(components: Mapping[str, Mapping[str, Any]] | Sequence[Any],
                   failures: Any, failure_count: int | None,
                   checkpoint: Any = None) -> list[Any]:
    """The components of a run, the failures and checkpoint shorthands included (the
    checkpoint component after those named, as ``ckptsim run --checkpoint`` adds it)."""
    from ckptsim.components import build_components

    if isinstance(components, Mapping):
        spec = dict(components)
        comps: list[Any] = []
    else:
        spec = {}
        comps = [component_of(c) for c in components]
    if isinstance(failures, str) or failure_count is not None:
        if "failures" in spec or any(c.name == "failures" for c in comps):
            raise ConfigError("failures", "given both as a component and as failures=")
        spec = {"failures": {"source": failures or "", "count": failure_count}, **spec}
    if checkpoint is not None:
        if "checkpoint" in spec or any(c.name == "checkpoint" for c in comps):
            raise ConfigError("checkpoint", "given both as a component and as checkpoint=")
        spec["checkpoint"] = {"policy": checkpoint}
    built = build_components(spec)
    if failures is not None and not isinstance(failures, str):
        from ckptsim.components.failures import Failures

        built.insert(0, Failures(trace=failures))
    return built + comps
