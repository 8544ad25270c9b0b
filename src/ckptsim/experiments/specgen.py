"""Generator workloads in experiment specs (other than the built-in `lublin`): each option's
values checked with the workload's other single values against the generator's own
validation (`ckptsim.workload.source.CHECKS`), then every combination of the grid.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ckptsim.errors import ConfigError, shown
from ckptsim.experiments import grid
from ckptsim.experiments.speccomp import component_option
from ckptsim.workload.source import CHECKS as GENERATOR_CHECKS

if TYPE_CHECKING:
    from ckptsim.experiments.specvalues import _Problems


def _reserved() -> tuple[str, ...]:
    """Workload keys that are the spec's structure or transforms, not generator options."""
    from ckptsim.experiments.specworkloads import PLATFORM, TRANSFORM_OPTIONS

    return ("generator", "seed", "zip", "components", PLATFORM, *TRANSFORM_OPTIONS)


def _generator_key(key: str) -> bool:
    """A workload option that is the generator's own (not a transform, a component's
    parameter or the spec's structure)."""
    return key not in _reserved() and component_option(key) is None


def generator_options(kind: str, w: dict[str, Any]) -> dict[str, Callable[[Any], Any]]:
    """Checks of the options a generator workload gives, each value with the workload's
    single-valued options against the generator's own validation
    (`ckptsim.workload.source.CHECKS`); what depends on other axes is left to the
    combinations (`check_points`)."""
    def valid(key: str, v: Any) -> bool:
        try:
            GENERATOR_CHECKS[kind]({key: v})
        except ConfigError:
            return False
        return True

    # The single values that are valid alone: the context each value is checked in.
    scalars = {k: v for k, v in w.items() if _generator_key(k)
               and isinstance(v, (str, int, float, bool)) and valid(k, v)}

    def checker(key: str) -> Callable[[Any], Any]:
        def check(v: Any) -> Any:
            if not isinstance(v, (str, int, float, bool)):
                raise _bad(f"expected a number, a string or true/false, got {shown(v)}")
            try:
                GENERATOR_CHECKS[kind]({**{k: x for k, x in scalars.items() if k != key},
                                        key: v})
            except ConfigError as exc:
                if exc.key == f"{kind}.{key}":
                    raise _bad(str(exc)) from None
            return v
        return check
    return {key: checker(key) for key in w if _generator_key(key)}


def check_points(problems: _Problems, loc: str, kind: str, axes: dict[str, list[Any]],
                 zips: tuple[tuple[str, ...], ...]) -> None:
    """Each value was checked alone; the generator may also refuse some combinations."""
    bad: list[str] = []
    seen: set[str] = set()
    for point in grid.expand(axes, zips):
        options = {k: v for k, v in point.items() if _generator_key(k)}
        key = repr(sorted(options.items()))
        if key in seen:
            continue
        seen.add(key)
        try:
            GENERATOR_CHECKS[kind](options)
        except ConfigError as exc:
            bad.append(f"{options}: {exc}")
    for msg in bad[:5]:
        problems.add(loc, msg)
    if len(bad) > 5:
        problems.add(loc, f"... and {len(bad) - 5} more refused combinations")


def _bad(message: str) -> Exception:
    from ckptsim.experiments.specvalues import Bad

    return Bad(message)


__all__ = ["check_points", "generator_options"]
