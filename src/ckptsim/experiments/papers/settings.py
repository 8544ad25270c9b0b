"""`ckptsim paper NAME FIGURE --set KEY=VALUE`: a reading of the model set on every run of
the figures, without a spec written by hand.

`--set KEY=VALUE` sets the scheduler parameter KEY on every run whose scheduler declares it
(`ckptsim schedulers` lists them); `--set COMPONENT.KEY=VALUE` the parameter KEY of the
component COMPONENT on every workload whose runs have that component (`ckptsim components`);
`--set checkpoint.policy.KEY=VALUE` the option KEY of the checkpoint policies themselves in
every run's policy string whose policy declares it (`settings_policy`).
Each value is read and checked as `ckptsim run --set` / `--component` and a sweep spec read
it (`make_params`), and goes into the experiment specs the figures write (FAMILY.toml) and run:
the runs' parameters, so their run ids (and the sweep store) keep a reading's runs apart from
the default's.  Refused, in one line: a key no scheduler (no component) of the figures'
runs declares, a bad value, a key the paper sets with an option of its own
(`Paper.set_flags`), and a parameter the figures vary (a swept value, or one that differs
between their runs of one scheduler or between their workloads: what the figure compares).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import math
import re
import tomllib
from collections.abc import Iterator, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ckptsim.errors import ConfigError
from ckptsim.experiments.papers import settings_policy as sp
from ckptsim.experiments.papers.settings_policy import PREFIX as POLICY

if TYPE_CHECKING:
    from ckptsim.experiments.papers.base import Paper


@dataclass(frozen=True)
class Settings:
    """What `--set` sets: scheduler name -> {key: value}, component -> {key: value} (values
    as a spec gives them), the KEY=VALUE items as given, and the checkpoint policies' options
    (KEY -> value as a policy string writes it)."""

    schedulers: dict[str, dict[str, Any]] = field(default_factory=dict)
    components: dict[str, dict[str, Any]] = field(default_factory=dict)
    given: tuple[str, ...] = ()
    policy: dict[str, str] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.given)


NONE = Settings()
_CURRENT: ContextVar[Settings] = ContextVar("ckptsim_paper_settings", default=NONE)


@contextlib.contextmanager
def using(settings: Settings) -> Iterator[None]:
    """Give every run of the figures computed inside the values of `settings`."""
    token = _CURRENT.set(settings)
    try:
        yield
    finally:
        _CURRENT.reset(token)


def current() -> Settings:
    return _CURRENT.get()


# ----------------------------------------------------------------------------- the runs
@dataclass(frozen=True)
class Runs:
    """The runs of a command, as its specs (and `Paper.direct_runs`) declare them:
    `schedulers`, one (name, label, params) per [[schedulers]] entry; `components`,
    component -> [(workload, params)]."""

    schedulers: list[tuple[str, str, dict[str, Any]]]
    components: dict[str, list[tuple[str, dict[str, Any]]]]


def runs_of(paper: Paper, figure: str, opt: Any) -> Runs:
    schedulers: list[tuple[str, str, dict[str, Any]]] = []
    components: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    for text in paper.specs(figure, opt).values():
        spec = tomllib.loads(text)
        for entry in spec.get("schedulers", []):
            schedulers.append((entry["name"], entry.get("label", entry["name"]),
                               dict(entry.get("params", {}))))
        for name, workload in spec.get("workloads", {}).items():
            for component, values in _components(workload).items():
                components.setdefault(component, []).append((name, values))
    schedulers += paper.direct_runs(figure, opt)
    return Runs(schedulers, components)


def _components(workload: dict[str, Any]) -> dict[str, dict[str, Any]]:
    given = workload.get("components", {})
    if not isinstance(given, dict):
        return {}
    return {name: dict(values) if isinstance(values, dict) else {}
            for name, values in given.items()}


# ----------------------------------------------------------------------------- checking
def resolve(paper: Paper, figure: str, opt: Any, items: Sequence[str] | None) -> Settings:
    """The `--set` items of `paper FIGURE`, checked against its runs (a `ConfigError` under
    `--set KEY` otherwise)."""
    from ckptsim.cli.common import parse_set

    given = parse_set(items)
    if not given:
        return NONE
    what = f"{paper.name} {figure}"
    for key in given:
        flag = paper.set_flags.get(key)
        if flag is not None:
            raise ConfigError(f"--set {key}", f"{paper.name} sets it with an option of its own: "
                                              f"use {flag}")
    runs = runs_of(paper, figure, opt)
    if not runs.schedulers:
        raise ConfigError("--set", f"{what} runs no simulations (its figures are computed from "
                                   "the traces or workloads themselves): nothing to set")
    schedulers: dict[str, dict[str, Any]] = {}
    components: dict[str, dict[str, Any]] = {}
    policy: dict[str, str] = {}
    for key, value in given.items():
        if key.startswith(POLICY):
            policy[key.removeprefix(POLICY)] = sp.checked(what, runs, key, value, policy)
        elif "." in key:
            component, _, name = key.partition(".")
            components.setdefault(component, {})[name] = _component_value(
                what, runs, component, name, value)
        else:
            for scheduler, typed in _scheduler_values(what, runs, key, value).items():
                schedulers.setdefault(scheduler, {})[key] = typed
    return Settings(schedulers, components, tuple(f"{k}={v}" for k, v in given.items()),
                    policy)


def _fields(cls: type) -> list[str]:
    return [f.name for f in dataclasses.fields(cls)]


def _scheduler_values(what: str, runs: Runs, key: str, value: str) -> dict[str, Any]:
    from ckptsim.policies.base import get_scheduler

    names = list(dict.fromkeys(name for name, _, _ in runs.schedulers))
    classes = {name: get_scheduler(name) for name in names}
    declaring = [n for n in names if key in _fields(classes[n].Params)]
    if not declaring:
        takes = "; ".join(f"{n} takes {', '.join(_fields(classes[n].Params)) or 'nothing'}"
                          for n in names)
        parts = sorted(runs.components)
        also = (f" (COMPONENT.KEY sets a component's parameter; its runs' components: "
                f"{', '.join(parts)})" if parts else "")
        raise ConfigError(f"--set {key}", f"no scheduler of {what} takes {key}: {takes}{also}")
    out = {}
    for name in declaring:
        cls = classes[name]
        default = next(f.default for f in dataclasses.fields(cls.Params) if f.name == key)
        _refuse_varied(what, key, [(name if label == name else f"{name} {label}",
                                    params.get(key, default))
                                   for n, label, params in runs.schedulers if n == name])
        out[name] = _checked(key, key, value, lambda values, c=cls, n=name:
                             _make(c.Params, values, n))
    return out


def _component_value(what: str, runs: Runs, component: str, key: str, value: str) -> Any:
    from ckptsim.components import get_component

    shown = f"{component}.{key}"
    if component not in runs.components:
        have = ", ".join(sorted(runs.components)) or "none"
        raise ConfigError(f"--set {shown}", f"the runs of {what} have no component "
                                            f"{component!r}; their components: {have}")
    cls = get_component(component)
    if key not in _fields(cls.Params):
        raise ConfigError(f"--set {shown}", f"component {component} takes no {key}; it takes "
                                            f"{', '.join(_fields(cls.Params)) or 'nothing'}")
    default = next(f.default for f in dataclasses.fields(cls.Params) if f.name == key)
    _refuse_varied(what, shown, [(f"workload {w}", v.get(key, default))
                                 for w, v in runs.components[component]])
    return _checked(shown, key, value, cls.make_params)


def _make(cls: type, values: dict[str, Any], where: str) -> Any:
    from ckptsim.params import make_params

    return make_params(cls, values, where=where)


def _checked(shown: str, name: str, value: str, make: Any) -> Any:
    """The value of the parameter `name` as a spec gives it, once `make` (the parameters' own
    reading, {name: value} -> parameters) accepts it: true/false and numbers typed, anything
    else (a choice, `none`) as the text given."""
    try:
        params = make({name: value})
    except ConfigError as exc:
        if exc.key.rpartition(".")[2] == name:
            raise ConfigError(f"--set {shown}", exc.message) from None
        return value  # refused for want of the others' values: the runs have them
    typed = getattr(params, name)
    if isinstance(typed, (bool, int, float)):
        return typed
    return value


def _refuse_varied(what: str, key: str, values: list[tuple[str, Any]]) -> None:
    """Refuse a parameter the runs sweep (a list) or give different values: the figures
    compare them."""
    swept = [(where, v) for where, v in values if isinstance(v, list)]
    if swept:
        where, v = swept[0]
        raise ConfigError(f"--set {key}", f"{what} sweeps it ({where}: {_value(v)}): a figure's "
                                          "swept parameter is what it plots and cannot be set")
    first: dict[str, str] = {}
    for where, v in values:
        first.setdefault(_value(v), where)
    if len(first) > 1:
        shown = "; ".join(f"{v} in {where}" for v, where in first.items())
        raise ConfigError(f"--set {key}", f"{what} gives its runs different values of it "
                                          f"({shown}): it is what the figures compare and "
                                          "cannot be set")


def _value(v: Any) -> str:
    return toml_value(v) if v is not None else "none"


# ----------------------------------------------------------------------------- specs
def toml_value(v: Any) -> str:
    """A value as TOML writes it (a spec's values: numbers, text, true/false, lists)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        return repr(v) if math.isfinite(v) else ("inf" if v > 0 else "-inf")
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{_key(k)} = {toml_value(x)}" for k, x in v.items()) + " }"
    raise TypeError(f"no TOML for {v!r}")


def _key(k: str) -> str:
    return k if re.fullmatch(r"[A-Za-z0-9_-]+", k) else json.dumps(k)


_HEADER = re.compile(r"^\s*\[(\[?)([^\[\]]+)\]\]?\s*(#.*)?$")
_LINE = re.compile(r"^\s*([A-Za-z0-9_\-\"'. ]+?)\s*=")


def _path(text: str) -> tuple[str, ...]:
    return tuple(a if a else b for a, b in re.findall(r'"([^"]*)"|([^.\s"]+)', text))


def apply(text: str, settings: Settings | None = None) -> str:
    """The spec `text` with the values of `settings` (default: those of the command, `using`)
    on its runs: each [[schedulers]] entry's `params` and each workload's components; the
    text as it is without any."""
    settings = current() if settings is None else settings
    if not settings:
        return text
    spec = tomllib.loads(text)
    entries = iter(spec.get("schedulers", []))
    lines = text.split("\n")
    blocks: list[tuple[tuple[str, ...], int, int, bool]] = []
    start, path, array = 0, (), False
    for i, line in enumerate(lines):
        m = _HEADER.match(line)
        if m:
            blocks.append((path, start, i, array))
            start, path, array = i, _path(m.group(2)), bool(m.group(1))
    blocks.append((path, start, len(lines), array))
    edits: dict[int, list[str]] = {}  # line -> the lines that replace it
    for path, begin, end, array in blocks:
        if array and path == ("schedulers",):
            entry = next(entries)
            own = settings.schedulers.get(entry["name"], {})
            if own:
                _set_inline(lines, edits, begin, end, "params",
                            {**entry.get("params", {}), **own}, after="name")
        elif len(path) == 4 and path[0] == "workloads" and path[2] == "components":
            given = _components(spec["workloads"][path[1]]).get(path[3], {})
            for key, value in _own(settings, path[3], given).items():
                _set_line(lines, edits, begin, end, key, value)
        elif len(path) in (2, 3) and path[0] == "workloads":
            given = _components(spec["workloads"][path[1]])
            prefix = "components." if len(path) == 2 else ""
            if len(path) == 3 and path[2] != "components":
                continue
            for component, values in given.items():
                own = _own(settings, component, values)
                if own:  # given here inline (else in a table of its own)
                    _set_inline(lines, edits, begin, end, prefix + component,
                                {**values, **own}, insert=False)
    out: list[str] = []
    for i, line in enumerate(lines):
        out += edits.get(i, [line])
    return "\n".join(out)


def _own(settings: Settings, component: str, given: dict[str, Any]) -> dict[str, Any]:
    """The values `settings` gives a workload's `component` (`given`: its values in the
    spec): its parameters, and a checkpoint policy string's options where they reach it."""
    own = dict(settings.components.get(component, {}))
    if component == "checkpoint" and settings.policy and "policy" not in own:
        policy = sp.set_options(given.get("policy"), settings.policy)
        if policy != given.get("policy"):
            own["policy"] = policy
    return own


def _find(lines: list[str], begin: int, end: int, key: str) -> int | None:
    for i in range(begin + 1, end):
        m = _LINE.match(lines[i])
        if m and _path(m.group(1)) == _path(key):
            return i
    return None


def _set_inline(lines: list[str], edits: dict[int, list[str]], begin: int, end: int,
                key: str, values: dict[str, Any], after: str = "", insert: bool = True) -> None:
    line = f"{key} = {toml_value(values)}"
    at = _find(lines, begin, end, key)
    if at is not None:
        edits[at] = [line]
        return
    if not insert:
        return
    anchor = _find(lines, begin, end, after) if after else None
    anchor = begin if anchor is None else anchor
    edits[anchor] = [*edits.get(anchor, [lines[anchor]]), line]


def _set_line(lines: list[str], edits: dict[int, list[str]], begin: int, end: int, key: str,
              value: Any) -> None:
    line = f"{_key(key)} = {toml_value(value)}"
    at = _find(lines, begin, end, key)
    if at is not None:
        edits[at] = [line]
        return
    last = max((i for i in range(begin, end) if lines[i].strip()), default=begin)
    edits[last] = [*edits.get(last, [lines[last]]), line]


def scheduler_params(name: str, params: dict[str, Any]) -> dict[str, Any]:
    """The parameters of a run a figure makes itself (not through a spec) with the values
    the command sets on its scheduler."""
    own = current().schedulers.get(name)
    return {**params, **own} if own else params


def applied(paper: Paper, figure: str, opt: Any, settings: Settings) -> list[str]:
    """The KEY=VALUE items of `settings` that reach the runs of `figure` (one figure)."""
    if not settings:
        return []
    runs = runs_of(paper, figure, opt)
    names = {name for name, _, _ in runs.schedulers}
    out = []
    for item in settings.given:
        key = item.partition("=")[0]
        if key.startswith(POLICY):
            hit = bool(sp.reached(runs, key.removeprefix(POLICY)))
        elif "." in key:
            hit = key.partition(".")[0] in runs.components
        else:
            hit = any(key in settings.schedulers.get(n, {}) for n in names)
        if hit:
            out.append(item)
    return out
