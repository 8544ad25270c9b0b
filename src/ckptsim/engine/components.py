"""Components: the platform-side actors of a run (failures, owners, power managers, checkpoint
agents, energy meters), plugged into the engine instead of patching it.

A component is one class with a frozen dataclass of parameters (`Params`, declared with
`ckptsim.params.param` like a scheduler's), registered under a name with `@register_component`.
The simulator calls `attach(sim)` once, before the run: the component subscribes by overriding
hooks and schedules its own events with ``sim.at(t, callback, kind=...)`` (kinds of its own
are added with `ckptsim.engine.events.register_event_kind`).  It acts only through the public
API: the platform's `hold` / `release_hold`, the verbs (`sim.kill`, ...), `sim.nodes_changed()`.

Hooks (each optional; the simulator calls only those a component overrides, in the order the
components were given, before the policy's hook of the same name):

==========================  ==========================================================
``on_start(job)``           the job took nodes (start, resume, restart)
``on_release(job)``         the job gave nodes back (end, kill, checkpoint then requeue
                            or suspend, the source nodes of a migration)
``on_end(job)``             the job ended for good (DONE or KILLED)
``on_requeue(job, reason)`` the job lost its nodes and waits again
``on_checkpoint(job)``      a checkpoint began (the job is CHECKPOINTING)
``on_checkpointed(job)``    a checkpoint completed
``on_migrated(job)``        a migration completed
``on_nodes_changed(now)``   nodes left or rejoined service (``sim.nodes_changed()``)
``before_unavailable(...)`` ``(now, mask, at, reason)``: nodes `mask` will leave service
                            at `at` (a reboot, maintenance; the availability component's
                            `lead` seconds ahead)
``before_eviction(...)``    ``(now, job, reason)``: the availability component (or the
                            failures component) is about to kill the job (reason
                            "eviction" or "failure"), for any cause
``after_pass(now)``         after the scheduling pass of a timestamp
``at_end(now)``             the run is over
==========================  ==========================================================

`counters()` are merged into the run's metrics by the runner (two components counting the
same key is an error), `options()` is recorded in summary.json under the component's name
(`shared_options()` under the names of sections it fills for others), and
`identity(params)` is what experiment run ids hash.

The built-in components live above the engine, in the `ckptsim.components` package: importing
it adds its loader here (`add_loader`), which the registry calls on first use.  The engine
imports nothing of them.  Adding a component touches its own file and one line of that
package's loader.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from ckptsim.errors import ConfigError
from ckptsim.params import NoParams, identity_params, make_params
from ckptsim.registry import Registry

if TYPE_CHECKING:
    from ckptsim.engine.simulator import Simulator
    from ckptsim.engine.state import Job

#: The notification hooks a component may override.
HOOKS = ("on_start", "on_release", "on_end", "on_requeue", "on_checkpoint", "on_checkpointed",
         "on_migrated", "on_nodes_changed", "before_unavailable", "before_eviction",
         "after_pass", "at_end")


class Component:
    """Base class of components.  Subclasses set `name`, `Params` and override hooks."""

    #: The hooks the engine calls (a plug-in's method named like one but not one is noted).
    known_hooks: ClassVar[tuple[str, ...]] = HOOKS

    name: ClassVar[str] = ""
    Params: ClassVar[type] = NoParams
    description: ClassVar[str] = ""
    #: The counters `counters()` returns (metrics a spec may name).
    counter_names: ClassVar[tuple[str, ...]] = ()
    #: Workload-level spec keys that set a parameter (key -> parameter), e.g. the failures
    #: component's ``failures`` -> ``source``.  Their store columns are ``workload.<key>``;
    #: other parameters' columns are ``workload.<component>.<parameter>``.
    aliases: ClassVar[dict[str, str]] = {}
    #: (counter, label) rows `ckptsim run` prints when the run counted them.
    rows: ClassVar[tuple[tuple[str, str], ...]] = ()
    #: True: a run with this component can evict or bound jobs, and reports the HTC metrics
    #: (`ckptsim.metrics.htc`).
    htc_metrics: ClassVar[bool] = False
    #: The protocols of `ckptsim.engine.provides` this component implements, which others
    #: find with `sim.provider(protocol)`; an instance may narrow them.
    provides: tuple[type, ...] = ()

    def __init__(self, params: Any = None) -> None:
        self.params = params if params is not None else self.Params()
        self.sim: Simulator | None = None

    # --- life cycle -------------------------------------------------------------------------
    def attach(self, sim: Simulator) -> None:
        """Called once by the simulator, before the run: subscribe, schedule first events."""
        self.sim = sim

    def ready(self) -> None:
        """Called before the run once every component is attached (`Simulator.check_ready`):
        refuse what the run lacks (another component's service), so that a run that cannot
        go through fails before any event.  Nothing by default."""

    def counters(self) -> dict[str, Any]:
        """Numbers merged into the run's metrics."""
        return {}

    def options(self) -> dict[str, Any]:
        """What summary.json records of this component (its resolved parameters)."""
        return dataclasses.asdict(self.params)

    def shared_options(self) -> dict[str, Any]:
        """Sections summary.json records under `options` beside the components' own, for what
        this component does on behalf of another: the availability component given failures
        records `failures` as the failures component does.  None by default; a section that
        another component (or the run) records too is an error."""
        return {}

    def uses(self) -> tuple[type, ...]:
        """The classes whose code this component runs (a plug-in among them is recorded in
        summary.json with its file's SHA-256): its own, and the policies it drives."""
        return (type(self),)

    def job_columns(self) -> dict[str, Any]:
        """Per-job columns (name -> array in workload order) added to the run's records after
        the standard ones (jobs.csv); none by default."""
        return {}

    # --- what configures it -----------------------------------------------------------------
    @classmethod
    def make_params(cls, values: Mapping[str, Any], *, base: Path | None = None) -> Any:
        """Validate user values (strings or typed) into `Params`; `base` is the folder
        relative paths resolve against (a spec's trace folder)."""
        return make_params(cls.Params, values, where=cls.name)

    @classmethod
    def check_value(cls, param: str, value: Any, *, base: Path | None = None) -> Any:
        """One parameter's value checked alone (a spec checks each value of a grid axis, then
        every combination with `make_params`); returns it converted."""
        return getattr(make_params(cls.Params, {param: value}, where=cls.name), param)

    @classmethod
    def help_lines(cls) -> list[str]:
        """More lines `ckptsim components` prints under the parameters (none by default)."""
        return []

    @classmethod
    def identity(cls, params: Any) -> dict[str, Any]:
        """What determines the component's behaviour, hashed into experiment run ids (a
        parameter added after runs were recorded is left out at its default, as a policy's:
        `ckptsim.params.identity_params`)."""
        return identity_params(params)

    # --- hooks (override the ones needed) ---------------------------------------------------
    def on_start(self, job: Job) -> None:
        pass

    def on_release(self, job: Job) -> None:
        pass

    def on_end(self, job: Job) -> None:
        pass

    def on_requeue(self, job: Job, reason: str) -> None:
        pass

    def on_checkpoint(self, job: Job) -> None:
        pass

    def on_checkpointed(self, job: Job) -> None:
        pass

    def on_migrated(self, job: Job) -> None:
        pass

    def on_nodes_changed(self, now: float) -> None:
        pass

    def before_unavailable(self, now: float, mask: int, at: float, reason: str) -> None:
        pass

    def before_eviction(self, now: float, job: Job, reason: str) -> None:
        pass

    def after_pass(self, now: float) -> None:
        pass

    def at_end(self, now: float) -> None:
        pass


class HookLists:
    """Per hook, the bound methods of the components that override it (`sim.hooks.on_end`)."""

    __slots__ = ("on_start", "on_release", "on_end", "on_requeue", "on_checkpoint",
                 "on_checkpointed", "on_migrated", "on_nodes_changed", "before_unavailable",
                 "before_eviction", "after_pass", "at_end")

    def __init__(self, components: Sequence[Component] = ()) -> None:
        def bound(hook: str) -> list[Callable[..., None]]:
            return [getattr(c, hook) for c in components if overridden(c, hook)]

        self.on_start = bound("on_start")
        self.on_release = bound("on_release")
        self.on_end = bound("on_end")
        self.on_requeue = bound("on_requeue")
        self.on_checkpoint = bound("on_checkpoint")
        self.on_checkpointed = bound("on_checkpointed")
        self.on_migrated = bound("on_migrated")
        self.on_nodes_changed = bound("on_nodes_changed")
        self.before_unavailable = bound("before_unavailable")
        self.before_eviction = bound("before_eviction")
        self.after_pass = bound("after_pass")
        self.at_end = bound("at_end")


def overridden(component: Component, hook: str) -> bool:
    """True when the component's class overrides `hook` (and the component does not leave it
    out: its `unused_hooks`)."""
    return (getattr(type(component), hook) is not getattr(Component, hook)
            and hook not in getattr(component, "unused_hooks", ()))


_registry: Registry[type[Component]] = Registry("component", "component",
                                                lambda: _load_builtin(), base=Component)
_REGISTRY = _registry.classes


def register_component(cls: type[Component]) -> type[Component]:
    """Class decorator: make a component available under `cls.name`."""
    return _registry.register(cls)


def component_names() -> list[str]:
    return _registry.names()


def component_classes() -> dict[str, type[Component]]:
    """The built-in and installed components' classes by name (an entry point that does not
    load left out: `Registry.loadable`)."""
    return _registry.loadable()


def get_component(name: str) -> type[Component]:
    return _registry.get(name)


def split_component_name(text: str) -> tuple[str, str]:
    """A ``NAME[:key=value,...]`` component string's name (or a plug-in's reference,
    ``file.py:Class``) and its options as written."""
    return _registry.split(text)


def known_component(name: str) -> bool:
    """Whether `name` names a component in this process: a built-in's, an installed entry
    point's or a plug-in's loaded from its file (by a spec's component table)."""
    return name in component_names() or name in _registry.plugins


def portable_name(name: str) -> str:
    """The name a run's worker process builds the component by: its name, or for a plug-in
    loaded from a file (known by name only where it was loaded), its file reference."""
    if name in component_names():
        return name
    from ckptsim.plugins import reference_of

    return reference_of(get_component(name)) or name


def alias_keys() -> dict[str, tuple[str, str]]:
    """Workload-level keys that set a component's parameter: key -> (component, parameter)."""
    _load_builtin()
    return {key: (cls.name, p) for cls in _REGISTRY.values() for key, p in cls.aliases.items()}


def build_components(spec: Mapping[str, Mapping[str, Any]] | None,
                     *, base: Path | None = None) -> list[Component]:
    """Components from ``{name: {parameter: value}}``, in the mapping's order."""
    out = []
    for name, values in (spec or {}).items():
        cls = get_component(name)
        if not isinstance(values, Mapping):
            label = name if isinstance(name, str) else getattr(name, "__name__", repr(name))
            raise ConfigError(f"components.{label}", f"expected a mapping of its parameters "
                                                     f"({{parameter: value}}), got {values!r}")
        out.append(cls(cls.make_params(values, base=base)))
    return out


def check_fresh(component: Component) -> None:
    """Refuse a component object that ran a simulation already (`runner` marks those the
    caller made): what it kept would leak into the new run."""
    if getattr(component, "sim", None) is not None or getattr(component, "_ckptsim_ran", False):
        raise ConfigError("components", f"this {type(component).__name__} object has run a "
                          "simulation already: a component object serves one run; give a new "
                          "one, or its class")


def two_rate_models(first: Component, second: Component, by_policy: set[str],
                    policy: str | None) -> ConfigError:
    """The error of a second rate model, keyed ``components.NAME`` by the one the caller
    gave (the other may be the policy's own, e.g. the co-allocating scheduler's links)."""
    def who(c: Component) -> str:
        return f"{c.name!r} (the scheduler {policy or 'the policy'}'s own)" \
            if c.name in by_policy else repr(c.name)

    given = second if second.name not in by_policy else first
    return ConfigError(f"components.{given.name}", f"two rate models: {who(first)} and "
                       f"{who(second)}; a run has one (leave the component {given.name} out)")


class Counting(Protocol):
    """What `merge_counters` reads: a component, or its name and final counters."""

    @property
    def name(self) -> str: ...

    def counters(self) -> dict[str, Any]: ...


def merge_counters(components: Sequence[Counting], into: dict[str, Any],
                   policy: Counting | None = None) -> dict[str, Any]:
    """Add every component's counters to `into` (a run's metrics), then the policy's own.

    Raises:
        ConfigError: two components count the same key, or a counter has a metric's name
            (the policy's: a metric's or a component's counter's).
    """
    owner: dict[str, str] = {}
    for c in components:
        for key, value in c.counters().items():
            if key in owner:
                raise ConfigError("components", f"{c.name} and {owner[key]} both count "
                                                f"{key!r}")
            if key in into:
                raise ConfigError("components", f"{c.name} counts {key!r}, a metric of "
                                                "the run")
            owner[key] = c.name
            into[key] = value
    if policy is None:
        return into
    for key, value in policy.counters().items():
        if key in into:
            raise ConfigError("scheduler", f"{policy.name} counts {key!r}, a metric of the "
                                           "run" + (f" (a counter of {owner[key]})"
                                                    if key in owner else ""))
        into[key] = value
    return into


#: Functions that register the built-in components, added from above the engine (the
#: `ckptsim.components` package adds its own when imported); the registry calls them on first use.
_loaders: list[Callable[[], None]] = []


def add_loader(load: Callable[[], None]) -> None:
    """Have the registry call `load` (which registers components) before its first lookup."""
    if load not in _loaders:
        _loaders.append(load)


def _load_builtin() -> None:
    for load in _loaders:
        load()
