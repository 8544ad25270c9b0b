"""Naming a failure source on the command line or in a spec: `KIND:key=value,...`.

- `lanl:path=FILE,system=20[,count=4000][,map=modulo|random][,transient=false][,seed=0]`:
  the LANL failure records, one system, optionally rescaled to `count` failures over the
  simulated span (seed 004), mapped onto the simulated nodes.
- `fta:path=FILE_OR_FOLDER[,platform=N][,count=...][,map=...][,transient=...][,seed=...]`:
  a Failure Trace Archive event trace.
- `synthetic:mtbf=SECONDS[,dist=weibull|exponential][,shape=0.7][,repair_mean=0]
  [,repair_cv=1][,seed=0]`: per-node failure processes over the simulated span.

Trace failures keep their repair times unless `transient=true` (the seed-004 model: the node
is usable again at once).  Counts of what was done end up in the trace's `counts` / `notes`.
"""

from __future__ import annotations

from typing import Any

from ckptsim.errors import ConfigError
from ckptsim.failures.model import FailureTrace
from ckptsim.values import parse_bool, parse_int

KINDS = ("lanl", "fta", "synthetic")
_COMMON = {"count", "map", "transient", "seed"}
_KEYS = {
    "lanl": {"path", "system"} | _COMMON,
    "fta": {"path", "platform"} | _COMMON,
    "synthetic": {"mtbf", "dist", "shape", "repair_mean", "repair_cv", "seed"},
}


def parse_failure_spec(spec: str) -> tuple[str, dict[str, str]]:
    kind, _, rest = spec.partition(":")
    if kind not in KINDS:
        raise ConfigError("failures", f"unknown failure source {kind!r}; accepted: "
                                      f"{', '.join(KINDS)} (e.g. lanl:path=FILE,system=20)")
    options: dict[str, str] = {}
    for part in filter(None, (p.strip() for p in rest.split(","))):
        key, sep, value = part.partition("=")
        if not sep:
            raise ConfigError("failures", f"expected key=value in {spec!r}, got {part!r}")
        options[key.strip()] = value.strip()
    unknown = sorted(set(options) - _KEYS[kind])
    if unknown:
        raise ConfigError(f"failures.{unknown[0]}", f"unknown option of {kind}; accepted: "
                                                    f"{', '.join(sorted(_KEYS[kind]))}")
    return kind, options


def _float(key: str, value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        raise ConfigError(key, f"expected a number, got {value!r}") from None


def load_failures(spec: str, *, n_nodes: int, span: float) -> FailureTrace:
    """The failures named by `spec`, on nodes 0..n_nodes-1 over a period of `span` seconds."""
    from ckptsim.failures import transforms

    kind, opt = parse_failure_spec(spec)
    seed = parse_int("failures.seed", opt.get("seed", 0))
    if kind == "synthetic":
        from ckptsim.failures.synthetic import synthetic_failures

        if "mtbf" not in opt:
            raise ConfigError("failures.mtbf", "synthetic failures need mtbf=SECONDS (mean "
                                               "time between failures of one node)")
        return synthetic_failures(
            n_nodes, span, mtbf=_float("failures.mtbf", opt["mtbf"]),
            distribution=opt.get("dist", "weibull"),
            shape=_float("failures.shape", opt.get("shape", 0.7)),
            repair_mean=_float("failures.repair_mean", opt.get("repair_mean", 0.0)),
            repair_cv=_float("failures.repair_cv", opt.get("repair_cv", 1.0)), seed=seed)
    if "path" not in opt:
        raise ConfigError("failures.path", f"{kind} failures need path=FILE")
    if kind == "lanl":
        from ckptsim.failures.readers import read_lanl_cfdr

        system = parse_int("failures.system", opt["system"]) if "system" in opt else None
        trace = read_lanl_cfdr(opt["path"], system=system)
    else:
        from ckptsim.failures.readers import read_fta

        platform = parse_int("failures.platform", opt["platform"]) if "platform" in opt else None
        trace = read_fta(opt["path"], platform=platform)
    if "count" in opt:
        trace = transforms.rescale_count(trace, parse_int("failures.count", opt["count"]),
                                         span=span, seed=seed)
    method = opt.get("map", "modulo")
    trace = transforms.map_nodes(trace, n_nodes, method=method, seed=seed)
    if parse_bool("failures.transient", opt.get("transient", "false")):
        trace = transforms.transient(trace)
    return trace
