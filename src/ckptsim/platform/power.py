"""Power profiles of machines: watts per power state and the costs of switching states.

A *machine* (a computer of a node group) has `cores` engine nodes with consecutive ids; its
power state is one of

* ``active``: awake and at least one of its cores held by a job (checkpoints and restarts
  included);
* ``idle``: awake, no core held;
* ``sleep`` (ACPI S3) or ``off``: put there by a power manager;
* ``waking`` / ``to_sleep``: the transitions, lasting ``wake_time`` / ``sleep_time`` seconds
  and costing ``wake_energy`` / ``sleep_energy`` joules (at a constant power over the
  transition; an instantaneous transition is a lump of energy).

`PowerProfile` holds the numbers; `parse_power` validates a user's table (a platform file's
``power = {...}`` or the energy component's parameters); `machine_blocks` lists the machines
of a platform as (first engine node, cores).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import Any

from ckptsim.errors import ConfigError, did_you_mean

#: Power states a machine can be in (the keys of the energy by state).
STATES = ("active", "idle", "sleep", "off", "waking", "to_sleep")
#: Keys of a power table: the states' watts (the first three required), then the transitions.
REQUIRED = ("active", "idle", "sleep")
OPTIONAL = ("off", "wake_time", "wake_energy", "sleep_time", "sleep_energy")
KEYS = REQUIRED + OPTIONAL


@dataclasses.dataclass(frozen=True)
class PowerProfile:
    """Watts of a machine in each state; seconds and joules of its transitions."""

    active: float
    idle: float
    sleep: float
    off: float = 0.0
    wake_time: float = 0.0
    wake_energy: float = 0.0
    sleep_time: float = 0.0
    sleep_energy: float = 0.0

    def power(self, state: str) -> float:
        """Watts in `state` (a transition: its energy spread over its time; 0 when instant)."""
        if state == "waking":
            return self.wake_energy / self.wake_time if self.wake_time > 0 else 0.0
        if state == "to_sleep":
            return self.sleep_energy / self.sleep_time if self.sleep_time > 0 else 0.0
        return float(getattr(self, state))

    def lump(self, state: str) -> float:
        """Joules of an instantaneous transition (0 for a state or a timed transition)."""
        if state == "waking" and self.wake_time == 0:
            return self.wake_energy
        if state == "to_sleep" and self.sleep_time == 0:
            return self.sleep_energy
        return 0.0


def parse_power(table: Mapping[str, object], where: str, rng_draw: Any = None) -> PowerProfile:
    """A `PowerProfile` from a table of numbers (``{active = 57, idle = 40, sleep = 2}``).

    A value may be a range ``[lo, hi]``, drawn uniformly from `rng_draw` (a numpy Generator:
    one machine's draw; seed 003's Legacy machines).  Every value must be finite and >= 0,
    and the watts in order (`check_order`: active >= idle >= sleep, off).

    Raises:
        ConfigError: naming `where` and the key: an unknown key, a missing state, a value that
            is not a number >= 0, watts out of order or a range without a generator.
    """
    if not isinstance(table, Mapping):
        raise ConfigError(where, f"expected a table of {', '.join(KEYS)}, got {table!r}")
    for key in table:
        if key not in KEYS:
            raise ConfigError(f"{where}.{key}", f"unknown key{did_you_mean(key, KEYS)}; "
                                                f"accepted: {', '.join(KEYS)}")
    missing = [k for k in REQUIRED if table.get(k) is None]
    if missing:
        raise ConfigError(where, f"power profile misses {', '.join(missing)}; a profile gives "
                                 f"{', '.join(REQUIRED)} (watts) and may give "
                                 f"{', '.join(OPTIONAL)}")
    bounds = {k: _bounds(table[k], f"{where}.{k}") for k in KEYS if table.get(k) is not None}
    check_order(bounds, where)
    values = {k: _value(table[k], f"{where}.{k}", rng_draw) for k in KEYS
              if table.get(k) is not None}
    return PowerProfile(**values)


#: The order of a profile's watts: (key, the key it is compared with, the one that must be
#: the larger, what breaking it would mean).
ORDER = (("active", "idle", "active", "a machine running a job draws at least its idle power"),
         ("sleep", "idle", "idle", "a sleeping machine draws no more than an idle one"),
         ("off", "idle", "idle", "a machine switched off draws no more than an idle one"))


def check_order(bounds: Mapping[str, tuple[float, float]], where: str) -> None:
    """Refuse watts that make no physical sense: active below idle, sleep or off above idle.

    `bounds` gives each key given its (lowest, highest) value (a number: twice the same); a
    range is refused when any of its draws could break the order.  Equal values are accepted
    (a machine without a sleep state, or whose load does not change its power).  `off` above
    `sleep` is accepted: the power manager uses one of the two (its `state`), and a machine's
    soft-off may draw as much as its sleep (wake-on-LAN).

    Raises:
        ConfigError: naming `where`, the key, both values and the accepted order.
    """
    for key, other, larger, why in ORDER:
        if key not in bounds or other not in bounds:
            continue
        big, small = (key, other) if larger == key else (other, key)
        if bounds[big][0] < bounds[small][1]:
            ranged = _ranged(bounds[key], bounds[other])
            raise ConfigError(f"{where}.{key}", f"{key} = {_shown(bounds[key])} W "
                              f"{'can be drawn ' if ranged else 'is '}"
                              f"{'below' if key == big else 'above'} {other} = "
                              f"{_shown(bounds[other])} W: {why}; accepted: {big} >= "
                              f"{small}" + (" (for every draw of a range: the lowest "
                                            f"{big} >= the highest {small})"
                                            if ranged else ""))


def _ranged(*bounds: tuple[float, float]) -> bool:
    return any(lo != hi for lo, hi in bounds)


def _shown(bound: tuple[float, float]) -> str:
    lo, hi = bound
    return f"{lo:g}" if lo == hi else f"[{lo:g}, {hi:g}]"


def _bounds(raw: object, key: str) -> tuple[float, float]:
    """(lowest, highest) value of a number or a range, checked as `_value` checks them."""
    if isinstance(raw, list | tuple):
        if len(raw) != 2:
            raise ConfigError(key, f"a range is [low, high], got {list(raw)!r}")
        lo, hi = (_number(v, key) for v in raw)
        if hi < lo:
            raise ConfigError(key, f"range [{lo:g}, {hi:g}] has low > high")
        return lo, hi
    value = _number(raw, key)
    return value, value


def _value(raw: object, key: str, rng_draw: Any) -> float:
    if isinstance(raw, list | tuple):
        lo, hi = _bounds(raw, key)
        if rng_draw is None:
            raise ConfigError(key, "a range needs a machine to draw for (give a number here)")
        return float(rng_draw.uniform(lo, hi)) if hi > lo else lo
    return _number(raw, key)


def _number(raw: object, key: str) -> float:
    if isinstance(raw, bool):
        raise ConfigError(key, f"expected a number >= 0, got {raw!r}")
    try:
        value = float(raw)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ConfigError(key, f"expected a number >= 0, got {raw!r}") from None
    if not (math.isfinite(value) and value >= 0):
        raise ConfigError(key, f"expected a finite number >= 0, got {raw!r}")
    return value


def machine_blocks(platform: Any) -> list[tuple[int, int]]:
    """The platform's machines as (first engine node, cores), in machine order.

    A platform describing machines (`platform.machines`, each with `first_node` and `cores`)
    gives them; any other platform is one single-core machine per engine node (the homogeneous
    machine of a trace: N machines of 1 core)."""
    machines = getattr(platform, "machines", None)
    if machines is None:
        return [(i, 1) for i in range(platform.n_nodes)]
    return [(int(m.first_node), int(m.cores)) for m in machines]


def has_power_profiles(platform: Any) -> bool:
    """Whether the platform's description gives any machine a power table."""
    table_of = getattr(platform, "power_table", None)
    if table_of is None:
        return False
    return any(table_of(i) is not None for i in range(len(machine_blocks(platform))))


#: Where a power table's ranges are drawn: for every machine, or once for every group (all
#: the machines of a cluster get the same draw: seed 003 says a cluster's computers are
#: provisioned together, "no significant variance within clusters").
DRAWS = ("machine", "group")


def platform_profiles(platform: Any, seed: int = 0, added: Mapping[str, float] | None = None,
                      added_where: str = "energy", per: str = "machine",
                      checks_only: bool = False) -> list[PowerProfile] | None:
    """Per machine, its power profile from the platform's description (`power_table(i)`), or
    None when the platform has no power profiles at all.  Ranges are drawn from the stream
    ``power`` of `seed`, per machine (`per` = ``machine``), or once per group and type
    (``group``: a group's first machine draws, the others share its profile).  `added` (keys
    of `OPTIONAL`: the energy component's ``wake_time`` and the like) replaces those keys in
    every machine's table.  `checks_only` (a simulator built to be checked): each table is
    read once, its first machine's draw shared by every machine of its type.

    Raises:
        ConfigError: some machines have a profile and others none; a table with `added` is
            refused (naming `added_where` and the key when the key is one of `added`).
    """
    table_of = getattr(platform, "power_table", None)
    if table_of is None:
        return None
    blocks = machine_blocks(platform)
    tables = [table_of(i) for i in range(len(blocks))]
    if all(t is None for t in tables):
        return None
    from ckptsim.rng import RandomStreams

    if per not in DRAWS:
        raise ConfigError(f"{added_where}.power_draw", f"unknown {per!r}; accepted: "
                                                       f"{', '.join(DRAWS)}")
    rng = RandomStreams(seed).stream("power")
    out: list[PowerProfile] = []
    keys = ([id(t) for t in tables] if checks_only else
            _draw_keys(platform, len(tables)) if per == "group" else list(range(len(tables))))
    drawn: dict[Any, PowerProfile] = {}
    for i, t in enumerate(tables):
        if t is None:
            raise ConfigError("platform", f"machine {i} has no power profile while others "
                                          "do: give every node type a power table")
        if keys[i] not in drawn:
            drawn[keys[i]] = _profile(t, i, rng, added, added_where)
        out.append(drawn[keys[i]])
    return out


def _draw_keys(platform: Any, n: int) -> list[Any]:
    """Per machine, what shares one draw of its ranges under ``per = group``: its group and
    its type (a machine without a group: itself)."""
    machines = getattr(platform, "machines", None)
    if machines is None:
        return list(range(n))
    return [(m.group, m.type_name) for m in machines]


def _profile(table: Mapping[str, object], i: int, rng: Any,
             added: Mapping[str, float] | None, added_where: str) -> PowerProfile:
    """Machine `i`'s profile from its type's `table` (its ranges drawn from `rng`), `added`
    replacing those keys (a problem they cause named at `added_where`)."""
    if not added:
        return parse_power(table, f"platform.machine[{i}].power", rng)
    try:
        return parse_power({**table, **added}, f"platform.machine[{i}].power", rng)
    except ConfigError as exc:
        key = exc.key.rpartition(".")[2]
        if key not in added:
            raise
        raise ConfigError(f"{added_where}.{key}", f"{exc.message} (with the power table "
                                                  f"of the platform's machine {i})") from None
