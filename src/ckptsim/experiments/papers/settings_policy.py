"""`ckptsim paper NAME FIGURE --set checkpoint.policy.KEY=VALUE`: an option of the checkpoint
policies themselves (`scheduled:late=adopt`, `opt:cost=60,restart=600`) on every run whose
policy declares it, for `settings`, which checks the value and edits the specs.

The key is the option's path: the component `checkpoint`, its parameter `policy` (the plan
string, `fixed:interval=1800,cost=60+scheduled`), and KEY, an option of one of the string's
parts: one step below `--set COMPONENT.KEY`, which sets the whole string.  KEY is set in each
part whose policy declares it as an option of its own (`late`: scheduled's, `save`: opt's);
a cost option (cost, bandwidth, memory, constant, restart, mtbf, suspended), which belongs to
the whole combination, once in the plan: in the part that gives it, else in the part that
gives the other cost options, else in the first; in every plan but `none` alone, which never
saves.  A string with no such part is left as it is, and its runs keep their ids.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import Any

PREFIX = "checkpoint.policy."
#: The row columns that hold a run's policy string (`experiments.matrix`).
COLUMNS = ("workload.checkpoint", "workload.checkpoint.policy")


def cost_keys() -> tuple[str, ...]:
    from ckptsim.checkpointing.plan import COST_KEYS

    return COST_KEYS


def parts_of(text: str) -> list[tuple[str, type, dict[str, str]]]:
    """Each ``NAME[:key=value,...]`` part of a plan string: its text, class and options."""
    from ckptsim.checkpointing.base import split_part
    from ckptsim.checkpointing.plan import split_plan

    return [(part, *split_part(part, text)) for part in split_plan(text)]


def own_keys(cls: type) -> list[str]:
    """The options a policy declares besides the cost options."""
    return [f.name for f in dataclasses.fields(cls.Params) if f.name not in cost_keys()]


def _targets(parts: list[tuple[str, type, dict[str, str]]], key: str) -> list[int]:
    """The parts of a plan `key` is set in (none: the plan does not declare it)."""
    if key in cost_keys():
        if [cls.name for _, cls, _ in parts] == ["none"]:
            return []
        given = [i for i, (_, _, values) in enumerate(parts) if key in values]
        costs = [i for i, (_, _, values) in enumerate(parts)
                 if any(k in cost_keys() for k in values)]
        return (given or costs or [0])[:1]
    return [i for i, (_, cls, _) in enumerate(parts) if key in own_keys(cls)]


def declaring(text: str, key: str) -> list[tuple[str, Any]]:
    """(policy name, its value of `key`: given, else the default) for each part of the plan
    string `text` that `key` reaches (empty: the plan does not declare it)."""
    from ckptsim.params import make_params

    parts = parts_of(text)
    cost = {k: v for _, _, values in parts for k, v in values.items() if k in cost_keys()}
    out = []
    for i in _targets(parts, key):
        _, cls, values = parts[i]
        own = {k: v for k, v in values.items() if k not in cost_keys()}
        params = make_params(cls.Params, {**own, **cost}, where="checkpoint")
        out.append((cls.name, getattr(params, key)))
    return out


def set_option(text: str, key: str, value: str) -> str:
    """The plan string `text` with `key=value` in the parts `key` reaches (as it is when it
    declares no `key`)."""
    from ckptsim.checkpointing.base import split_name

    parts = parts_of(text)
    texts = [part for part, _, _ in parts]
    for i in _targets(parts, key):
        part = texts[i]
        rest = split_name(part)[1]
        if not rest.strip():
            head = part.rstrip()
            texts[i] = f"{head}{'' if head.endswith(':') else ':'}{key}={value}"
            continue
        head, items = part[:len(part) - len(rest)], rest.split(",")
        at = next((j for j, item in enumerate(items)
                   if item.partition("=")[0].strip() == key), None)
        if at is None:
            items.append(f"{key}={value}")
        else:
            items[at] = f"{key}={value}"
        texts[i] = head + ",".join(items)
    return "+".join(texts)


def set_options(value: Any, options: Mapping[str, str]) -> Any:
    """A checkpoint component's `policy` value (a plan string, or a spec's list of them) with
    `options` (KEY -> value text) set in each string that declares them."""
    if isinstance(value, list):
        return [set_options(v, options) for v in value]
    if not isinstance(value, str):
        return value  # a plan given as a table: as it is
    for key, text in options.items():
        value = set_option(value, key, text)
    return value


def strings(value: Any) -> list[str]:
    """The plan strings of a checkpoint component's `policy` value."""
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str)]
    return [value] if isinstance(value, str) else []


def text_of(value: Any) -> str:
    """A checked value as a policy string writes it (a number as short as it reads back)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and math.isfinite(value) and value.is_integer() \
            and abs(value) < 1e15:
        return str(int(value))
    return repr(value) if isinstance(value, float) else str(value)


def keys_of(names: list[str]) -> str:
    """What the policies `names` take, for a message."""
    from ckptsim.checkpointing.base import get_policy

    own = "; ".join(f"{n} takes {', '.join(own_keys(get_policy(n))) or 'no option of its own'}"
                    for n in names)
    return (f"{own}; and each plan but none alone the cost options "
            f"{', '.join(cost_keys())}")


def plans(runs: Any) -> list[str]:
    """The plan strings of the runs (`settings.Runs`), each once."""
    return list(dict.fromkeys(s for _, values in runs.components.get("checkpoint", [])
                              for s in strings(values.get("policy"))))


def reached(runs: Any, key: str) -> dict[str, list[tuple[str, Any]]]:
    """The plan strings of the runs that declare `key`, each with `declaring`'s values."""
    out = {s: declaring(s, key) for s in plans(runs)}
    return {s: v for s, v in out.items() if v}


def checked(what: str, runs: Any, shown: str, value: str, before: Mapping[str, str]) -> str:
    """The value of `--set checkpoint.policy.KEY=VALUE` (`shown`: the item's key) as the
    policy strings write it, checked as `settings` checks a parameter against every string
    of the runs that declares KEY (`before`: the options set by the items before it)."""
    from ckptsim.components import get_component
    from ckptsim.errors import ConfigError
    from ckptsim.experiments.papers.settings import _checked, _make, _refuse_varied

    key = shown.removeprefix(PREFIX)
    if not plans(runs):
        have = ", ".join(sorted(runs.components)) or "none"
        raise ConfigError(f"--set {shown}", f"the runs of {what} have no checkpoint policy "
                                            f"(no checkpoint component; their components: "
                                            f"{have})")
    found = reached(runs, key)
    if not found:
        names = list(dict.fromkeys(c.name for s in plans(runs) for _, c, _ in parts_of(s)))
        raise ConfigError(f"--set {shown}", f"no checkpoint policy of {what} takes {key}: "
                                            f"{keys_of(names)}")
    by: dict[str, list[tuple[str, Any]]] = {}  # policy (any: a cost option) -> its values
    for s, values in found.items():
        for name, v in values:
            by.setdefault("" if key in cost_keys() else name, []).append((s, v))
    text = ""
    for name, values in by.items():
        _refuse_varied(what, shown, values)
        cls = next(c for s, _ in values for _, c, _ in parts_of(s) if c.name == name or
                   not name)
        text = text_of(_checked(shown, key, value, lambda v, c=cls:
                                _make(c.Params, v, "checkpoint")))
    checkpoint = get_component("checkpoint")
    for s in found:
        try:
            checkpoint.make_params({"policy": set_options(s, {**before, key: text})})
        except ConfigError as exc:
            raise ConfigError(f"--set {shown}", f"{exc.message} (in {s!r})") from None
    return text


def names(text: str, options: Mapping[str, str]) -> dict[str, str]:
    """The plan strings of the spec `text` that `options` reach: as its runs have them -> as
    the spec writes them (the name its figures know the runs by)."""
    import tomllib

    from ckptsim.experiments.papers.settings import _components

    if not options:
        return {}
    out = {}
    for workload in tomllib.loads(text).get("workloads", {}).values():
        for s in strings(_components(workload).get("checkpoint", {}).get("policy")):
            new = set_options(s, options)
            if new != s:
                out[new] = s
    return out
