"""Checkpoint plans given as a table (a spec's ``[...components.checkpoint.policy]``): the
table read into a `CheckpointPlan` (`plan_from_table`), each of its values checked alone
(`table_value`, for a spec's grid axes), and a component's `policy` value, whatever its form,
made the plan (`plan_value`).  The string form and the plan itself are in
`ckptsim.checkpointing.plan`."""

from __future__ import annotations

import dataclasses
from typing import Any

from ckptsim.checkpointing import plan as _plan
from ckptsim.checkpointing.base import CheckpointPolicy, CostParams, get_policy, known_policy
from ckptsim.checkpointing.plan import (
    COST_KEYS,
    CheckpointPlan,
    accepted_parts,
    structured_plan,
)
from ckptsim.errors import ConfigError, did_you_mean, shown
from ckptsim.params import make_params
from ckptsim.plugins import located, reference_of

#: The keys of a plan given as a table, besides the cost options and the parts' sub-tables.
TABLE_KEYS = ("interval", "skip", "proactive")


def plan_from_table(table: Any, *, where: str = "checkpoint.policy") -> CheckpointPlan:
    """A `CheckpointPlan` from a table (a spec's ``[...components.checkpoint.policy]``)::

        interval = "fixed"            # an interval policy (default: none, unless skip or
        skip = ["closedcluster"]      #   proactive policies are given)
        proactive = ["scheduled"]     # skip and proactive policies: a name or a list
        cost = 60                     # the cost options: cost, bandwidth, memory, constant,
        mtbf = 86400                  #   restart, mtbf
        [...policy.fixed]             # a part's own options, in a table of its name
        interval = 1800

    Its `text` is the equivalent string (the parts in the order interval, skip, proactive,
    the cost options after the first part's own options): ``fixed:interval=1800,cost=60,
    mtbf=86400+closedcluster+scheduled``.  Errors name the key below `where`.
    """
    if isinstance(table, CheckpointPlan):
        return table
    if not isinstance(table, dict):
        raise ConfigError(where, f"expected a table (interval, skip, proactive, the cost "
                                 f"options, a table of options per part), got {shown(table)}")
    slots: list[tuple[str, str]] = []  # (name, the key naming it)
    for key in TABLE_KEYS:
        if key in table:
            value = table_value((key,), table[key], where=where)
            slots += [(n, key) for n in (value.split("+") if value else [])]
    if not slots:
        slots = [("none", "interval")]
    subtables = {k: v for k, v in table.items() if isinstance(v, dict)}
    for key, value in table.items():
        if key not in TABLE_KEYS and key not in subtables:
            table_value((key,), value, where=where)
    parts: list[tuple[type[CheckpointPolicy], dict[str, Any]]] = []
    refs: list[str] = []  # as written: the plan's text (its identity)
    loads: list[str] = []  # as the runs load them (`plugins.located`)
    seen: dict[str, str] = {}
    for name, key in slots:
        cls = get_policy(name)
        if cls.name in seen:
            raise ConfigError(f"{where}.{key}", f"{cls.name} is given twice (also in "
                                                f"{seen[cls.name]})")
        seen[cls.name] = key
        own: dict[str, Any] = {}
        for sub in dict.fromkeys((name, cls.name)):
            for opt, value in subtables.get(sub, {}).items():
                own[opt] = table_value((sub, opt), value, where=where)
        # A table's keys have no order: the plan's text (which run ids hash) lists a part's
        # options in the order of its parameters, and the cost options in CostParams's.
        order = [f.name for f in dataclasses.fields(cls.Params)]
        own = dict(sorted(own.items(), key=lambda kv: order.index(kv[0])
                          if kv[0] in order else len(order)))
        parts.append((cls, own))
        refs.append(name)
        loads.append(located(name))
    for sub in subtables:
        if not any(sub in (n, get_policy(n).name) for n, _ in slots):
            named = ", ".join(get_policy(n).name for n, _ in slots)
            raise ConfigError(f"{where}.{sub}", f"options of {sub}, which the plan does not "
                                                f"name (give it as interval, skip or "
                                                f"proactive); the plan's parts: {named} (a "
                                                f"part's options are a table named after it)")
    cost = {k: table[k] for k in COST_KEYS if k in table}
    if parts:
        parts[0] = (parts[0][0], {**parts[0][1], **cost})
    text = "+".join(ref + (":" + ",".join(f"{k}={_text(v)}" for k, v in values.items())
                           if values else "")
                    for ref, (_, values) in zip(refs, parts, strict=True))
    try:
        return structured_plan(parts, loads, text)
    except ConfigError as exc:
        raise ConfigError(_table_key(exc.key, parts, refs, where), exc.message) from None


def plan_value(value: Any, where: str = "checkpoint.policy") -> CheckpointPlan:
    """A checkpoint component's `policy` value as the plan: the plan made before, a table
    (`plan_from_table`, errors keyed below `where`), or a string parsed (another scalar as
    its text, as before)."""
    if isinstance(value, CheckpointPlan):
        return value
    if isinstance(value, dict):
        return plan_from_table(value, where=where)
    if isinstance(value, type):  # a policy class, from Python
        value = _named(value, where)
    # through the module: the one string parser, `plan.parse_plan`
    return _plan.parse_plan(value if isinstance(value, str) else str(value))


def _named(cls: type, key: str) -> str:
    """A checkpoint policy class given from Python: its name (a built-in), the reference
    that loads it again (a plug-in, `ckptsim.plugins.reference_of`), else (a class defined
    in a notebook or the interpreter) the name it is registered under for this process."""
    if not issubclass(cls, CheckpointPolicy):
        raise ConfigError(key, f"{cls.__qualname__} is not a checkpoint policy class (a "
                               f"subclass of ckptsim.CheckpointPolicy)")
    if cls.__module__.partition(".")[0] == "ckptsim":
        return cls.name
    return reference_of(cls) or get_policy(cls).name


def _text(value: Any) -> str:
    """A table's value as the string form writes it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _table_key(key: str, parts: list[tuple[type[CheckpointPolicy], dict[str, Any]]],
               refs: list[str], where: str) -> str:
    """The table key of an error about a plan (``checkpoint.cost`` -> ``where.cost``)."""
    option = key.removeprefix("checkpoint").removeprefix(".")
    if not option or option in COST_KEYS:
        return f"{where}.{option}" if option else where
    part, _, option = option.rpartition(":")  # `scheduled:margin`: a part's own option
    for (cls, values), ref in zip(parts, refs, strict=True):
        fields = {f.name for f in dataclasses.fields(cls.Params)}
        if (not part or part == cls.name) and (option in values or option in fields):
            return f"{where}.{ref}.{option}"
    return where


def table_value(path: tuple[str, ...], value: Any, *, where: str = "checkpoint.policy"
                ) -> Any:
    """One value of a plan table checked alone (`path`: its key below the table, ``("cost",)``
    or ``("fixed", "interval")``), as the plan takes it: a number as given (a grid axis's
    values stay numbers), skip and proactive names joined by ``+``.

    Raises:
        ConfigError: keyed by the value's place below `where`.
    """
    key = f"{where}.{'.'.join(path)}"
    if len(path) == 1 and path[0] in TABLE_KEYS:
        slot = path[0]
        if isinstance(value, type):  # policy classes, from Python
            value = _named(value, key)
        elif isinstance(value, list):
            value = [_named(v, key) if isinstance(v, type) else v for v in value]
        names = value
        if isinstance(value, str):  # a name, or names joined by + (as a column holds them)
            names = [value] if slot == "interval" else [n for n in value.split("+")
                                                        if n.strip()]
        if slot == "interval" and not isinstance(value, str):
            raise ConfigError(key, f"expected the name of an interval policy, got {shown(value)}")
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise ConfigError(key, f"expected a name or a list of names of {slot} policies, "
                                   f"got {shown(value)}")
        names = [n.strip() for n in names]
        kind = "interval" if slot == "interval" else slot
        for name in names:
            if not known_policy(name):
                raise ConfigError(key, f"unknown checkpoint policy {shown(name)}; accepted: "
                                       f"{accepted_parts()}")
            cls = get_policy(name)
            if cls.kind != kind:
                article = "an" if kind == "interval" else "a"
                raise ConfigError(key, f"{name} is a {cls.kind} policy, not {article} {kind} "
                                       f"policy; accepted: {accepted_parts()}")
        return "+".join(names)
    if len(path) == 1:
        if path[0] not in COST_KEYS:
            near = did_you_mean(path[0], [*TABLE_KEYS, *COST_KEYS])
            raise ConfigError(key, f"unknown key{near}; accepted: {', '.join(TABLE_KEYS)}, "
                                   f"the cost options ({', '.join(COST_KEYS)}) and a table of a "
                                   f"part's own options, named after it")
        _checked(CostParams, path[0], value, key)
        return value
    if len(path) == 2:
        name, option = path
        if not known_policy(name):
            raise ConfigError(f"{where}.{name}", f"unknown checkpoint policy {shown(name)}; "
                                                 f"accepted: {accepted_parts()}; a plug-in's "
                                                 "options go in a table named after its "
                                                 "name (its class's `name`), beside the "
                                                 "reference that names its file")
        cls = get_policy(name)
        fields = [f.name for f in dataclasses.fields(cls.Params) if f.name not in COST_KEYS]
        if option in COST_KEYS:
            raise ConfigError(key, f"a cost option applies to the whole plan: give it as "
                                   f"{where}.{option}")
        if option not in fields:
            raise ConfigError(key, f"unknown option of {cls.name}"
                                   f"{did_you_mean(option, fields)}; accepted: "
                                   f"{', '.join(fields) or 'none'}")
        _checked(cls.Params, option, value, key)
        return value
    raise ConfigError(key, "expected a value of the plan or of a part's table")


def _checked(params: type, option: str, value: Any, key: str) -> None:
    if isinstance(value, (list, dict)):
        raise ConfigError(key, f"expected one value, got {shown(value)}")
    try:
        make_params(params, {option: value}, where="checkpoint")
    except ConfigError as exc:
        raise ConfigError(key, exc.message) from None
