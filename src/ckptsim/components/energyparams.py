"""The energy meter's parameters (component "energy", `ckptsim.components.energy`): one power
profile for every machine, or additions to the platform's own power tables, and the options
of what is charged to whom."""

from __future__ import annotations

import dataclasses
from typing import Any

from ckptsim.components.energywake import WAKE_CHARGES
from ckptsim.errors import ConfigError
from ckptsim.params import param
from ckptsim.platform.power import DRAWS, KEYS, OPTIONAL, REQUIRED, PowerProfile, parse_power


@dataclasses.dataclass(frozen=True)
class EnergyParams:
    active: float | None = param(None, "watts of an active machine (with idle and sleep: one "
                                       "profile for every machine; default: the platform's)",
                                 low=0.0)
    idle: float | None = param(None, "watts of an idle machine", low=0.0)
    sleep: float | None = param(None, "watts of a sleeping machine", low=0.0)
    off: float | None = param(None, "watts of a machine switched off (default 0; this key and "
                                    "the transitions' alone are added to the platform's "
                                    "power tables)", low=0.0)
    wake_time: float | None = param(None, "seconds to wake up (default 0)", low=0.0, seconds=1.0)
    wake_energy: float | None = param(None, "joules of a wake-up (default 0)", low=0.0)
    sleep_time: float | None = param(None, "seconds to go to sleep (default 0)", low=0.0,
                                     seconds=1.0)
    sleep_energy: float | None = param(None, "joules of going to sleep (default 0)", low=0.0)
    power_draw: str = param("machine", "where the ranges of the platform's power tables (seed "
                                       "003's Legacy computers: [100, 180] W) are drawn: for "
                                       "every machine, or once for every group (a cluster's "
                                       "computers alike)", choices=DRAWS, added=True)
    log: bool = param(False, "keep every machine's state intervals (for checks)")
    htc: bool = param(False, "also report the HTC-attributable energy (energy_htc_*, seed "
                             "003; docs/energy.md)")
    htc_shared: str = param("difference", "what an HTC job is charged while an interactive "
                                          "user is at its machine: P_active - P_idle, or "
                                          "P_active", choices=("difference", "active"))
    owners: str = param("idle", "power state of a machine an interactive user holds while no "
                                "job runs on it: idle (P_idle) or active (P_active)",
                        choices=("idle", "active"))

    wake_charge: str = param("active", "what a job placed on a sleeping machine is charged for "
                                       "the wake-up it waits out: its share of P_active, of what "
                                       "the machine draws while waking, or nothing",
                             choices=WAKE_CHARGES)

    def profile(self) -> PowerProfile | None:
        """The profile the parameters give, or None when they give none (or only `added`)."""
        table = {k: getattr(self, k) for k in KEYS if getattr(self, k) is not None}
        if not any(k in table for k in REQUIRED):
            return None
        missing = [k for k in REQUIRED if k not in table]
        if missing:
            raise ConfigError("energy", f"power profile misses {', '.join(missing)}: give "
                              f"{', '.join(REQUIRED)} together (one profile for every "
                              f"machine), or only {', '.join(OPTIONAL)} to add them to the "
                              "platform's own power tables")
        return parse_power(table, "energy")

    def added(self) -> dict[str, float]:
        """The keys of `OPTIONAL` given without a profile: they replace those keys in every
        machine's table of the platform (``--platform newcastle --component
        energy:wake_time=60``)."""
        if any(getattr(self, k) is not None for k in REQUIRED):
            return {}
        return {k: getattr(self, k) for k in OPTIONAL if getattr(self, k) is not None}


#: The attribution options, and where the platform's ranges are drawn, with their defaults
#: (left out of identities there: runs without them keep their ids; summary.json records
#: them as every option).
ATTRIBUTION_DEFAULTS = {"htc": False, "htc_shared": "difference", "owners": "idle",
                        "wake_charge": "active", "power_draw": "machine"}


def without_default_options(doc: dict[str, Any]) -> dict[str, Any]:
    """`doc` without the options of `ATTRIBUTION_DEFAULTS` left at their defaults."""
    return {k: v for k, v in doc.items()
            if k not in ATTRIBUTION_DEFAULTS or v != ATTRIBUTION_DEFAULTS[k]}
