"""Platform descriptions: the TOML format, the built-in platforms, and building a `Platform`.

A description is data: node **types** (cores, relative speed, power table) and node **groups**
(a group = a cluster: a number of machines of one type, optional opening hours, an optional
link to a central switch with a capacity, an optional daily reboot).  The format is
documented in docs/platforms.md:

    name = "pool"
    [types.normal]
    cores = 2
    power = { active = 57, idle = 40, sleep = 2 }
    [[groups]]
    name = "library"
    machines = 40
    type = "normal"
    hours = "mon-fri 08:00-20:00"
    link = { capacity = 1e9 }

`load_description(value)` takes a built-in name (`machine`, `bgl`, `grid:clusters=4,nodes=100`,
the shipped pools `newcastle` and `smallpool`) or a path to a TOML file.  `build_platform`
turns it into the `Platform` the engine runs on: an engine node is one core, a machine of a
group has `cores` consecutive engine nodes (`ckptsim.platform.groups`).

Every problem is refused with a `ConfigError` naming the file, the line, the key and what is
accepted; nothing is silently ignored.
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ckptsim import tomllines
from ckptsim.errors import ConfigError, did_you_mean
from ckptsim.limits import MAX_NODES, check_nodes
from ckptsim.values import option_parts

#: Names of the built-in platforms (`grid` takes options: `grid:clusters=4,nodes=100`).
BUILTINS = ("machine", "bgl", "grid", "newcastle", "smallpool")
TOP_KEYS = ("name", "description", "types", "groups")
TYPE_KEYS = ("cores", "speed", "power")
GROUP_KEYS = ("name", "machines", "type", "hours", "link", "reboot")
LINK_KEYS = ("capacity",)
GRID_KEYS = ("clusters", "nodes", "link")
#: Seed 001's links: 1 Gbit/s, the grid built-in's default.
DEFAULT_LINK = 1e9


@dataclass(frozen=True)
class NodeType:
    """A kind of machine: `cores` engine nodes each, a relative `speed` (stored; applied by
    the `speed` component, `ckptsim.components.speed`), and its raw `power` table (validated
    by the power layer) or None."""

    name: str
    cores: int = 1
    speed: float = 1.0
    power: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class Group:
    """A cluster: `machines` machines of type `type`; `hours` (opening hours text, see
    `ckptsim.platform.hours`), `link` (capacity of its link to the central switch, bit/s) and
    `reboot` (daily reboot schedule, see `ckptsim.platform.reboots`) are optional."""

    name: str
    machines: int
    type: str
    hours: str | None = None
    link: float | None = None
    reboot: str | None = None


@dataclass(frozen=True)
class Description:
    """A platform as data.  `kind` is "groups" (types and groups), "machine" (the trace's
    homogeneous machine, sized when built) or "torus" (the BG/L machine)."""

    name: str
    kind: str = "groups"
    types: tuple[NodeType, ...] = ()
    groups: tuple[Group, ...] = ()
    source: str = ""  # the file it was read from, or the built-in's text
    text: str = ""  # the file's text (hashed into experiment run ids)

    def type_of(self, name: str) -> NodeType:
        for t in self.types:
            if t.name == name:
                return t
        raise KeyError(name)

    @property
    def n_machines(self) -> int:
        return sum(g.machines for g in self.groups)

    @property
    def n_nodes(self) -> int:
        """Engine nodes (cores) of every machine."""
        return sum(g.machines * self.type_of(g.type).cores for g in self.groups)

    def summary(self) -> dict[str, Any]:
        """What summary.json records of the platform."""
        return {"name": self.name, "source": self.source, "groups": len(self.groups),
                "machines": self.n_machines, "nodes": self.n_nodes}


# ----------------------------------------------------------------------------- problems
class _Where:
    """Names a location in a platform file: `FILE, line N: key`."""

    def __init__(self, source: str, text: str) -> None:
        from ckptsim.tomllines import key_lines

        self.source = source
        self.lines = key_lines(text) if text else {}

    def key(self, loc: str) -> str:
        from ckptsim.tomllines import line_of

        line = line_of(self.lines, loc) if self.lines else None
        where = self.source
        if line is not None:
            where += f", line {line}"
        return f"{where}: {loc}" if where else loc

    def error(self, loc: str, message: str) -> ConfigError:
        return ConfigError(self.key(loc), message)


def _unknown(where: _Where, loc: str, table: Mapping[str, Any], accepted: tuple[str, ...]
             ) -> None:
    for key in table:
        if key not in accepted:
            raise where.error(f"{loc}{key}", f"unknown key{did_you_mean(key, accepted)}; "
                                                f"accepted: {', '.join(accepted)}")


def _count(where: _Where, loc: str, value: Any, low: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise where.error(loc, f"expected an integer >= {low}, got {value!r}")
    return value


def _positive(where: _Where, loc: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not math.isfinite(value) or value <= 0:
        raise where.error(loc, f"expected a finite number > 0, got {value!r}")
    return float(value)


def _text(where: _Where, loc: str, value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise where.error(loc, f"expected a non-empty string, got {value!r}")
    return value


# ----------------------------------------------------------------------------- parsing
def parse_description(doc: Mapping[str, Any], source: str = "", text: str = "") -> Description:
    """Validate a platform document (as read by `tomllib`)."""
    from ckptsim.platform.hours import OpeningHours
    from ckptsim.platform.reboots import RebootSchedule

    where = _Where(source, text)
    _unknown(where, "", doc, TOP_KEYS)
    name = _text(where, "name", doc["name"]) if "name" in doc else (
        Path(source).stem.removesuffix(".toml") if source else "platform")
    if "description" in doc:
        _text(where, "description", doc["description"])
    raw_types = doc.get("types", {})
    if not isinstance(raw_types, dict) or not raw_types:
        raise where.error("types", "expected at least one [types.NAME] table")
    types = []
    for tname, t in raw_types.items():
        loc = f"types.{tname}"
        if not isinstance(t, dict):
            raise where.error(loc, f"expected a table with keys {', '.join(TYPE_KEYS)}")
        _unknown(where, f"{loc}.", t, TYPE_KEYS)
        cores = _count(where, f"{loc}.cores", t.get("cores", 1))
        speed = _positive(where, f"{loc}.speed", t.get("speed", 1.0))
        power = t.get("power")
        if power is not None:
            if not isinstance(power, dict):
                raise where.error(f"{loc}.power", f"expected a table such as {{ active = 57, "
                                                  f"idle = 40, sleep = 2 }}, got {power!r}")
            _check_power(where, f"{loc}.power", power)
        types.append(NodeType(tname, cores, speed, power))
    type_names = [t.name for t in types]
    raw_groups = doc.get("groups", [])
    if not isinstance(raw_groups, list) or not raw_groups:
        raise where.error("groups", "expected at least one [[groups]] entry")
    groups: list[Group] = []
    total = 0
    for i, g in enumerate(raw_groups):
        loc = f"groups[{i}]"
        if not isinstance(g, dict):
            raise where.error(loc, f"expected a table with keys {', '.join(GROUP_KEYS)}")
        _unknown(where, f"{loc}.", g, GROUP_KEYS)
        for key in ("name", "machines", "type"):
            if key not in g:
                raise where.error(f"{loc}.{key}", "missing (name, machines and type are "
                                                  "required)")
        gname = _text(where, f"{loc}.name", g["name"])
        if gname in [x.name for x in groups]:
            raise where.error(f"{loc}.name", f"group name {gname!r} is used twice")
        machines = _count(where, f"{loc}.machines", g["machines"])
        gtype = g["type"]
        if gtype not in type_names:
            raise where.error(f"{loc}.type", f"unknown type {gtype!r}; accepted: "
                                             f"{', '.join(type_names)}")
        hours = None
        if "hours" in g:
            hours = _text(where, f"{loc}.hours", g["hours"])
            try:
                OpeningHours.parse(hours, key="hours")
            except ConfigError as exc:
                raise where.error(f"{loc}.hours", exc.message) from None
        link = None
        if "link" in g:
            raw = g["link"]
            if not isinstance(raw, dict) or "capacity" not in raw:
                raise where.error(f"{loc}.link", f"expected a table {{ capacity = BITS_PER_S "
                                                 f"}}, got {raw!r}")
            _unknown(where, f"{loc}.link.", raw, LINK_KEYS)
            link = _positive(where, f"{loc}.link.capacity", raw["capacity"])
        reboot = None
        if "reboot" in g:
            reboot = _text(where, f"{loc}.reboot", g["reboot"])
            try:
                RebootSchedule.parse(reboot, key="reboot")
            except ConfigError as exc:
                raise where.error(f"{loc}.reboot", exc.message) from None
        groups.append(Group(gname, machines, gtype, hours, link, reboot))
        total += machines * next(t.cores for t in types if t.name == gtype)
        if total > MAX_NODES:
            raise where.error(f"{loc}.machines", f"the groups up to this one have {total} "
                                                 f"nodes (machines x cores), more than the "
                                                 f"largest machine accepted, {MAX_NODES} "
                                                 f"(MAX_NODES)")
    return Description(name=name, types=tuple(types), groups=tuple(groups), source=source,
                       text=text)


def _check_power(where: _Where, loc: str, table: Mapping[str, Any]) -> None:
    """The power layer validates a profile (states, ranges) when it is present."""
    try:
        from ckptsim.platform import power  # type: ignore[attr-defined]
    except ImportError:
        return
    import numpy as np

    try:
        power.parse_power(table, loc, np.random.default_rng(0))
    except ConfigError as exc:
        raise where.error(exc.key if exc.key.startswith(loc) else loc, exc.message) from None


def read_description(path: str | Path) -> Description:
    """Read a platform file (TOML)."""
    p = Path(path)
    where = str(path)
    try:
        raw = p.read_bytes()
    except FileNotFoundError:
        raise ConfigError("platform", f"{where}: no such file; accepted: a platform file or "
                                      f"a built-in name ({', '.join(BUILTINS)})") from None
    except OSError as exc:
        raise ConfigError("platform", f"{where}: cannot read: {exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise ConfigError(f"{where}, line {line}", "not UTF-8 text (a platform file is "
                                                   "TOML)") from None
    try:
        doc = tomllines.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(where, f"not valid TOML: {exc}") from None
    return parse_description(doc, where, text)


def _grid(options: str, text: str) -> Description:
    values: dict[str, str] = {}
    for part in option_parts("platform", options, text):
        key, sep, value = part.partition("=")
        key = key.strip()
        if not sep or key not in GRID_KEYS:
            raise ConfigError("platform", f"{text!r}: expected grid:clusters=C,nodes=N"
                                          f"[,link=BITS_PER_S|none]; accepted keys: "
                                          f"{', '.join(GRID_KEYS)}, got {part!r}"
                                          f"{did_you_mean(key, GRID_KEYS) if sep else ''}")
        if key in values:
            raise ConfigError("platform", f"grid.{key} is given twice")
        values[key] = value.strip()

    def integer(key: str, default: int) -> int:
        raw = values.get(key, str(default))
        try:
            n = int(raw)
        except ValueError:
            n = 0
        if n < 1:
            raise ConfigError("platform", f"grid.{key}: expected an integer >= 1, got {raw!r}")
        return n

    clusters, nodes = integer("clusters", 4), integer("nodes", 100)
    check_nodes("platform", clusters * nodes, f"grid: {clusters} clusters x {nodes} nodes = "
                                              f"{clusters * nodes}")
    link: float | None = DEFAULT_LINK
    raw = values.get("link")
    if raw is not None:
        if raw.lower() == "none":
            link = None
        else:
            try:
                link = float(raw)
            except ValueError:
                link = -1.0
            if not math.isfinite(link) or link <= 0:
                raise ConfigError("platform", f"grid.link: expected a capacity in bit/s > 0 "
                                                  f"or none, got {raw!r}")
    groups = tuple(Group(f"cluster{c}", nodes, "node", link=link) for c in range(clusters))
    return Description(name="grid", types=(NodeType("node"),), groups=groups, source=text)


def load_description(value: str | Path) -> Description:
    """A built-in platform by name, or a platform file."""
    text = str(value).strip()
    kind, sep, options = text.partition(":")
    if kind == "machine" and not sep:
        return Description(name="machine", kind="machine", source="machine")
    if kind == "bgl" and not sep:
        return Description(name="bgl", kind="torus", source="bgl")
    if kind == "grid":
        return _grid(options, text)
    if kind in ("newcastle", "smallpool") and not sep:
        from ckptsim.platform.pools import pool_file

        d = read_description(pool_file(kind))
        return Description(name=d.name, types=d.types, groups=d.groups, source=kind,
                           text=d.text)
    p = Path(text).expanduser()
    if p.suffix.lower() == ".toml" or p.exists() or "/" in text:
        return read_description(p)
    raise ConfigError("platform", f"unknown platform {text!r}{did_you_mean(text, BUILTINS)}; "
                                  f"accepted: a platform file "
                                  f"(.toml) or {', '.join(BUILTINS)} (grid:clusters=C,nodes=N)")


def build_platform(desc: Description, *, n_nodes: int | None = None) -> Any:
    """The `Platform` a description stands for.  `n_nodes` sizes the `machine` built-in (the
    trace's machine); other platforms have their own size."""
    from ckptsim.platform.base import Platform, TorusPlatform
    from ckptsim.platform.groups import GroupedPlatform

    if desc.kind == "machine":
        if n_nodes is None:
            raise ConfigError("platform", "the machine platform needs a size (the trace's "
                                          "machine, or --machine-size)")
        return Platform(n_nodes)
    if desc.kind == "torus":
        from ckptsim.platform.torus import Torus

        return TorusPlatform(Torus((4, 4, 8), wraparound=True))
    return GroupedPlatform(desc)


def resolve_platform(value: str | Path | Description | None, workload: Any,
                     machine_size: int | None = None) -> Any:
    """The platform a run is asked for, or None for the scheduler's own (the default).

    Raises:
        ConfigError: a bad description, or a job of the workload wider than the platform.
    """
    if value is None:
        return None
    desc = value if isinstance(value, Description) else load_description(value)
    n = machine_size if machine_size is not None else int(workload.machine_size)
    platform = build_platform(desc, n_nodes=n)
    if machine_size is not None and machine_size != platform.n_nodes:
        raise ConfigError("machine_size", f"{machine_size} nodes asked for, but the platform "
                                          f"{desc.name} has {platform.n_nodes}")
    sizes = workload.size
    if len(sizes) and int(sizes.max()) > platform.n_nodes:
        i = int(sizes.argmax())
        raise ConfigError("platform", f"job {int(workload.job_id[i])} needs {int(sizes[i])} "
                                      f"nodes but the platform {desc.name} has "
                                      f"{platform.n_nodes} (engine nodes are cores); "
                                      f"accepted: a platform of at least {int(sizes[i])} nodes")
    return platform


__all__ = ["BUILTINS", "DEFAULT_LINK", "Description", "Group", "NodeType", "build_platform",
           "load_description", "parse_description", "read_description", "resolve_platform"]
