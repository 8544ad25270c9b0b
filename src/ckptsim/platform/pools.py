"""The pools shipped with the package (platform files in `ckptsim/platform/data`).

- `newcastle`: the default pool resembling seed 003's (1,359 computers in 35 clusters);
- `smallpool`: 10 computers in 3 clusters, for tests and examples.

`user_clusters` turns the groups of a platform document (as read by `tomllib`) into what the
user-session generator needs; the platform description layer validates the documents.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any

from ckptsim.errors import ConfigError
from ckptsim.platform.hours import OpeningHours
from ckptsim.platform.users import UserCluster

POOLS = ("newcastle", "smallpool")


def pool_file(name: str) -> Path:
    """Path of a shipped pool's platform file."""
    if name not in POOLS:
        raise ConfigError("platform", f"unknown pool {name!r}; accepted: {', '.join(POOLS)}")
    return Path(str(resources.files("ckptsim.platform") / "data" / f"{name}.toml"))


def user_clusters(doc: dict[str, Any]) -> list[UserCluster]:
    """One `UserCluster` per `[[groups]]` entry (hours default to "24h")."""
    out = []
    for i, g in enumerate(doc.get("groups", [])):
        out.append(UserCluster(str(g["name"]), int(g["machines"]),
                               OpeningHours.parse(g.get("hours", "24h"),
                                                  key=f"groups[{i}].hours")))
    return out


__all__ = ["POOLS", "pool_file", "user_clusters"]
