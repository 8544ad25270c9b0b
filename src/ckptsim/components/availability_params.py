"""The parameters of the `availability` component (`components.availability`): their
declaration, their checks (files resolved, sources parsed) and the identity a run is keyed
by (files named by the SHA-256 of their bytes)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from ckptsim.errors import ConfigError
from ckptsim.params import identity_params, make_params, param
from ckptsim.platform.reboots import REDRAW
from ckptsim.platform.usermodel import is_model, model_text, parse_model

MODES = ("kill", "suspend")


@dataclasses.dataclass(frozen=True)
class AvailabilityParams:
    owners: str = param("", "interactive owners: 'model' (the pool's user model, docs/pool.md; "
                            "'model:KEY=VALUE,...' sets its parameters, e.g. "
                            "model:peak_rate=0.2) or a session CSV (machines <group>:<i> or "
                            "indices)")
    reboot: str = param("", "daily reboot of every group without its own reboot key: 'HH:MM', "
                            "'HH:MM-HH:MM' or 'mon-fri HH:MM' (empty: none)")
    reboot_duration: float = param(300.0, "seconds a reboot keeps the machines down", low=0.0,
                                   seconds=1.0)
    reboot_redraw: str = param("cluster", "the time of a reboot window ('03:00-05:00'): drawn "
                                          "once for every group and kept every day (cluster), "
                                          "or drawn anew every day (day)", choices=REDRAW,
                               added=True)
    maintenance: str = param("", "maintenance windows START-END[@GROUP];... in seconds")
    trace: str = param("", "availability trace: avt:path=FILE[,map=first|random][,start=S]"
                           "[,empty=down|skip] or fta:path=DIR[,platform=N][,map=...]"
                           "[,start=S]")
    failures: str = param("", "node failures as availability events: a failure source as "
                              "--failures takes (lanl:..., fta:..., synthetic:...)")
    on_unavailable: str = param("suspend", "a job whose machine an owner or the trace takes: "
                                           "kill, or suspend (resume within max_suspend)",
                                choices=MODES)
    max_suspend: float = param(600.0, "seconds a suspended job waits for its machines before "
                                      "it is killed (HTCondor's MaxSuspendTime)", low=0.0,
                               seconds=1.0)
    resume_after: float = param(0.0, "seconds its machines must stay free of owners before a "
                                      "suspended job resumes (HTCondor's idle period; 0: at "
                                      "once)", low=0.0, added=True, seconds=1.0)
    lead: float = param(0.0, "seconds before a reboot or maintenance window that "
                             "before_unavailable is called", low=0.0, seconds=1.0)
    epoch: str = param("2010-01-01", "wall-clock date-time of time 0 (reboot times, opening "
                                     "hours, the owner model, session date-times)")
    days: int | None = param(None, "days from time 0 with owners (model) and reboots (default: "
                                   "the last submission + 30 days; at most 36,500, MAX_DAYS)",
                             low=1)


def check_params(values: Any, *, base: Path | None = None,
                 where: str = "availability") -> AvailabilityParams:
    """The component's parameters from `values`, checked, files resolved against `base`."""
    from ckptsim.calendar import Calendar
    from ckptsim.platform.availability import parse_maintenance
    from ckptsim.platform.avt import parse_source
    from ckptsim.platform.reboots import RebootSchedule

    prm: AvailabilityParams = make_params(AvailabilityParams, values, where=where)
    if prm.days is not None:
        check_days(prm.days)
    changes: dict[str, Any] = {}
    if prm.trace:
        kind, opt = parse_source(prm.trace, base)
        changes["trace"] = f"{kind}:" + ",".join(f"{k}={v}" for k, v in opt.items())
    if prm.failures:
        from ckptsim.failures.source import check_failure_spec

        try:
            resolved = check_failure_spec(prm.failures, base=base)
        except ConfigError as exc:  # as this component's parameter, not --failures
            raise ConfigError("availability.failures", f"{exc.key}: {exc.message}"
                              ) from None
        if base is not None:
            changes["failures"] = resolved
    if is_model(prm.owners):  # one text for a model, so one run identity
        changes["owners"] = model_text(parse_model(prm.owners))
    elif prm.owners:
        path = Path(prm.owners).expanduser()
        if base is not None and not path.is_absolute():
            path = (base / path).resolve()
        if not path.is_file():
            raise ConfigError("availability.owners", f"expected 'model' or a session CSV; "
                                                     f"no such file: {path}")
        changes["owners"] = str(path)
    if prm.reboot:
        RebootSchedule.parse(prm.reboot, "availability.reboot", redraw=prm.reboot_redraw)
    parse_maintenance(prm.maintenance)
    try:
        Calendar(prm.epoch)
    except ConfigError as exc:
        raise ConfigError("availability.epoch", exc.message) from None
    return dataclasses.replace(prm, **changes)


def check_days(days: int, how: str = "") -> None:
    """Refuse more days of owners and reboots than `MAX_DAYS` (a century: the user model and
    the reboot times are drawn for every day), naming `availability.days`."""
    from ckptsim.limits import MAX_DAYS, check_count

    check_count("availability.days", days, MAX_DAYS, "MAX_DAYS", "days", how)


def params_identity(params: AvailabilityParams) -> dict[str, Any]:
    """The parameters, with files named by the SHA-256 of their bytes (moving a trace or a
    session file keeps the run) and failures as the failures component names them."""
    from ckptsim.failures.readers import fta_event_trace_path
    from ckptsim.hashing import file_sha256
    from ckptsim.platform.avt import parse_source

    doc: dict[str, Any] = identity_params(params)
    if params.trace:
        kind, opt = parse_source(params.trace)
        path = Path(opt.pop("path"))
        if opt.get("empty") == "down":  # the default, named: the same runs as without it
            del opt["empty"]
        data = fta_event_trace_path(path) if path.is_dir() else path
        doc["trace"] = {"kind": kind, **opt, "sha256": file_sha256(str(data))}
    if params.owners and not is_model(params.owners):
        doc["owners"] = {"sha256": file_sha256(params.owners)}
    if params.failures:
        from ckptsim.components.failures import FailureParams, Failures

        doc["failures"] = Failures.identity(FailureParams(source=params.failures))
    return doc
