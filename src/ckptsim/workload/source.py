"""Naming a workload: a trace path or a generator, plus the transforms to apply.

One function used by the command line and by experiment specs, so both accept the same names:

- a path to an SWF trace (`.swf` or `.swf.gz`);
- a path to a Batsim JSON workload (`.json` or `.json.gz`, `ckptsim.workload.batsim`);
- `builtin`: the demo workload (Lublin-Feitelson model, 3,000 jobs, 128 nodes, seed 1);
- `lublin:n=N,seed=S,machine=P,typed=false,estimates=tsafrir` (any subset of the options;
  also `start_hour` and `max_est`, `LUBLIN_EXTRA`);
- `htc:days=D,seed=S,...`: bursty HTC submissions of a desktop pool (`ckptsim.workload.htc`,
  options in `htc.OPTIONS`).
- `grid:clusters=4,nodes=100,n=N,ppbw=300,error=0.5,info=1.0,load=0.7,seed=S,...`: the
  multi-cluster workload of seed 001 (`ckptsim.workload.grid`; `trace=PATH` gives a trace
  home clusters and bandwidths instead).

A generated workload records its generator and every option of it with the value used,
defaults included (`Workload.generator`, summary.json's `workload.generator`); `builtin` is
`lublin` with its defaults.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from ckptsim.errors import ConfigError, did_you_mean, shown, shown_key
from ckptsim.values import option_parts, parse_bool, parse_int
from ckptsim.workload import transforms
from ckptsim.workload.model import Workload

BUILTIN = {"n": 3000, "seed": 1, "machine": 128, "typed": False, "estimates": "tsafrir"}


def parse_generator(spec: str) -> dict[str, str]:
    """`lublin:n=2000,seed=3` -> {"n": "2000", "seed": "3"}."""
    _, _, rest = spec.partition(":")
    out: dict[str, str] = {}
    for part in option_parts("workload", rest, spec):
        key, sep, value = part.partition("=")
        key = key.strip()
        if not sep or not key:
            raise ConfigError("workload", f"expected key=value in {shown(spec)}, got {shown(part)}")
        if key in out:
            raise ConfigError(f"{spec.partition(':')[0].strip()}.{shown_key(key)}",
                              f"is given twice in {shown(spec)} ({shown_key(f'{key}={out[key]}')} "
                              f"and {shown_key(f'{key}={value.strip()}')}): give each option "
                              "once")
        out[key] = value.strip()
    return out


#: `NAME:...` that names no generator and no file: a mistyped generator, not a missing trace.
_PREFIX = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")


def _unknown_generator(spec: str) -> None:
    name, sep, _ = spec.partition(":")
    if sep and _PREFIX.fullmatch(name.strip()) and not Path(spec).expanduser().exists():
        if name.strip() == "builtin":
            raise ConfigError("workload", f"builtin takes no options, got {shown(spec)}; give "
                                          "'builtin' alone, or 'lublin:n=N,...' for a "
                                          "Lublin-Feitelson workload of your own")
        raise ConfigError("workload", f"unknown generator {shown(name.strip())}"
                                      f"{did_you_mean(name, [*GENERATORS, 'builtin'])} in "
                                      f"{shown(spec)} (and no such file); accepted generators: "
                                      f"{', '.join(GENERATORS)}, or builtin, or the path of "
                                      f"an SWF trace or of a Batsim JSON workload")


#: `lublin:` options besides the built-in workload's, none given by default: the hour of day
#: at time 0 of the model's daily arrival cycle (`LublinParams.start_hour`, 0: midnight) and
#: the 'tsafrir' estimate model's largest estimate (`max_est`, 18 h: longer runtimes are cut
#: to it).
LUBLIN_EXTRA = ("start_hour", "max_est")
LUBLIN_OPTIONS = (*BUILTIN, *LUBLIN_EXTRA)


def _lublin_options(options: Mapping[str, Any]) -> tuple[dict[str, Any], Any, dict[str, Any]]:
    """(the options over `BUILTIN`'s, the model's `LublinParams`, the estimate model's
    parameters) of `lublin:` options; an unknown one is refused naming it."""
    from dataclasses import replace

    from ckptsim.workload.lublin import LublinParams

    unknown = sorted(set(options) - set(LUBLIN_OPTIONS))
    if unknown:
        raise ConfigError(f"lublin.{shown_key(unknown[0])}", f"unknown option"
                          f"{did_you_mean(unknown[0], LUBLIN_OPTIONS)}; accepted: "
                          f"{', '.join(sorted(LUBLIN_OPTIONS))}")
    opts = {**BUILTIN, **options}
    params = LublinParams()
    if "start_hour" in options:
        params = replace(params, start_hour=parse_int("lublin.start_hour", opts["start_hour"]))
    estimate: dict[str, Any] = {}
    if "max_est" in options:
        if str(opts["estimates"]) != "tsafrir":
            raise ConfigError("lublin.max_est", f"is the 'tsafrir' estimate model's largest "
                                                f"estimate, not an option of estimates="
                                                f"{opts['estimates']}")
        try:
            estimate["max_est"] = float(opts["max_est"])
        except (TypeError, ValueError):
            raise ConfigError("lublin.max_est", f"expected seconds, got "
                                                f"{shown(opts['max_est'])}") from None
    return opts, params, estimate


def generate(options: Mapping[str, Any]) -> Workload:
    """The Lublin-Feitelson workload with the given options (defaults: `BUILTIN`)."""
    from ckptsim.workload.estimates_histogram import DEFAULT_MAX_EST
    from ckptsim.workload.lublin import generate_lublin

    opts, params, estimate = _lublin_options(options)
    used = {"n": parse_int("lublin.n", opts["n"], low=1),  # no jobs: all-zero metrics
            "machine": parse_int("lublin.machine", opts["machine"], low=1),
            "seed": parse_int("lublin.seed", opts["seed"]),
            "typed": parse_bool("lublin.typed", opts["typed"]),
            "estimates": str(opts["estimates"])}
    try:
        w = generate_lublin(used["n"], machine_size=used["machine"], seed=used["seed"],
                            typed=used["typed"], params=params, estimates=used["estimates"],
                            estimate_params=estimate or None)
    except ConfigError as exc:  # the model's own checks, under the option's name
        raise _lublin_key(exc) from None
    # max_est is the 'tsafrir' estimate model's only: None with another model.
    tsafrir = used["estimates"] == "tsafrir"
    return w.with_generator("lublin", {
        **used, "start_hour": params.start_hour,
        "max_est": int(estimate.get("max_est", DEFAULT_MAX_EST)) if tsafrir else None})


def _lublin_key(exc: ConfigError) -> ConfigError:
    """The model's error under the name of the option that set the value."""
    key = _GENERATOR_KEYS.get(exc.key, exc.key)
    return ConfigError(key if key.startswith("lublin.") else f"lublin.{key}", exc.message)


#: The generator's parameter names -> the options of `lublin:...`.
_GENERATOR_KEYS = {"n_jobs": "lublin.n", "machine_size": "lublin.machine"}


def _grid(options: Mapping[str, Any]) -> Workload:
    from ckptsim.workload.grid import from_options

    return from_options(options)


#: Workload generators by name: `NAME:key=value,...` -> NAME's function of the options.
def _htc(options: Mapping[str, Any]) -> Workload:
    from ckptsim.workload.htc import generate_from_options

    return generate_from_options(options)


GENERATORS: dict[str, Callable[[Mapping[str, Any]], Workload]] = {
    "lublin": generate,
    "grid": _grid,
    "htc": _htc,
}


def _check_lublin(options: Mapping[str, Any]) -> None:
    from dataclasses import replace

    from ckptsim.workload.estimates_histogram import _check_max_est

    opts, params, estimate = _lublin_options(options)
    try:
        replace(params, n_jobs=parse_int("lublin.n", opts["n"], low=1),
                machine_size=parse_int("lublin.machine", opts["machine"], low=1)).validate()
        if estimate:
            _check_max_est(estimate["max_est"])
    except ConfigError as exc:
        raise _lublin_key(exc) from None


def _check_grid(options: Mapping[str, Any]) -> None:
    from ckptsim.workload.grid import options_to_params

    if "trace" in options:
        raise ConfigError("grid.trace", "not in experiment specs (a trace given grid "
                                        "attributes is named on the command line: --workload "
                                        "grid:trace=PATH,...)")
    options_to_params(options)


def _check_htc(options: Mapping[str, Any]) -> None:
    from ckptsim.workload.htc import check_options

    check_options(options)


#: Generators an experiment spec may name, with a check of a set of their options (without
#: generating; raises ConfigError naming `NAME.option`).  A run's seed is the generator's.
CHECKS: dict[str, Callable[[Mapping[str, Any]], None]] = {
    "lublin": _check_lublin,
    "grid": _check_grid,
    "htc": _check_htc,
}


def fit_machine(w: Workload, machine_size: int, oversize: str = "skip") -> Workload:
    """A generated workload on a machine of `machine_size` nodes, as a trace read with that
    machine size: jobs larger than it are skipped (`oversize="skip"`) or clamped to it
    (`"clamp"`), counted in `skipped_too_large` / `clamped_too_large`.

    A grid workload's machine is its shape (clusters x nodes, the `GridShape` header the
    co-allocating scheduler follows): another size is refused.

    Raises:
        ConfigError: (key `machine_size`) the size is not in 1..MAX_NODES, or differs from a
            grid workload's shape.
    """
    from dataclasses import replace

    import numpy as np

    from ckptsim.limits import check_nodes
    from ckptsim.workload.grid import SHAPE_KEY

    machine = check_nodes("machine_size", machine_size)
    if SHAPE_KEY in w.header and machine != w.machine_size:
        raise ConfigError("machine_size", f"{machine} nodes differs from the grid's own "
                          f"machine, {w.machine_size} nodes ({w.header[SHAPE_KEY]}): a grid "
                          "workload's machine is its clusters x nodes; accepted: "
                          f"{w.machine_size}, or another grid's grid:clusters=C,nodes=N")
    too_large = w.size > machine
    count = int(np.count_nonzero(too_large))
    if oversize == "skip":  # one-node jobs always fit: some job is left
        out = w.subset(np.flatnonzero(~too_large), counts={"skipped_too_large": count})
    else:
        out = replace(w, size=np.minimum(w.size, machine),
                      counts={**w.counts, "clamped_too_large": count})
    if "jobs" in out.counts:
        out.counts["jobs"] = len(out)
    header = {**out.header, **{k: str(machine) for k in ("MaxProcs", "MaxNodes")
                               if k in out.header}}
    return replace(out, machine_size=machine, header=header)


def check_swf_options(spec: str, size_from: str | None, skip_bad_lines: bool) -> None:
    """Refuse `size_from` (given: not None) and `skip_bad_lines` for a workload `spec` that is
    no SWF trace: a generator's jobs have one size each and no lines, and a Batsim JSON
    workload has one size per job (`res`) and is read whole or refused.

    Raises:
        ConfigError: (key `size_from` or `skip_bad_lines`) naming the option, the workload and
            what it applies to.
    """
    if size_from is None and not skip_bad_lines:
        return
    if is_batsim(spec):
        what = f"{spec!r} is a Batsim JSON workload, whose jobs have one size (res) and "
        what += "no lines (a malformed job is refused)"
    else:
        what = f"{spec!r} is a generated workload, whose jobs have one size and no lines"
    accepted = "accepted: an SWF trace (.swf, .swf.gz; with grid:, trace=FILE.swf), or leave "
    if size_from is not None:
        raise ConfigError("size_from", f"{shown(size_from)} applies to an SWF trace (a job's "
                                       "requested or allocated processors, fields 8 and 5); "
                                       f"{what}; {accepted}the option out")
    raise ConfigError("skip_bad_lines", "applies to an SWF trace (malformed lines skipped and "
                                        f"counted); {what}; {accepted}the option out")


def is_batsim(path: str) -> bool:
    """Whether a workload path names a Batsim JSON workload (`.json` or `.json.gz`)."""
    return path.lower().endswith((".json", ".json.gz"))


def load_workload(
    spec: str,
    *,
    machine_size: int | None = None,
    oversize: str = "skip",
    size_from: str | None = None,
    skip_bad_lines: bool = False,
    window: tuple[float, float] | None = None,
    first: int | None = None,
    alpha: float | None = None,
    load_scale: float | None = None,
) -> Workload:
    """Read or generate a workload, then apply, in this order: the time window, the first-N
    selection, the estimate interpolation alpha and the load scale.

    `machine_size` and `oversize` apply to a generated workload as to a trace (`fit_machine`);
    `grid:trace=PATH` reads its trace with `oversize`, `size_from` and `skip_bad_lines`.
    `size_from` (None: "requested") and `skip_bad_lines` are an SWF trace's (`read_swf`): given
    with a generator or a Batsim JSON workload, they are refused (`check_swf_options`)."""
    if not isinstance(spec, str) or not spec.strip():
        raise ConfigError("workload", f"expected an SWF trace path, 'builtin' or a "
                                      f"generator ('lublin:n=N,...', 'htc:days=D,...', "
                                      f"'grid:n=N,...'), got {shown(spec)}")
    head, colon, _ = spec.partition(":")
    name = head.strip()  # `lublin :n=5` names lublin, as `_unknown_generator` reads it
    if spec == "builtin" or (name in GENERATORS and (colon or spec == name)):
        if oversize not in ("skip", "clamp"):
            raise ConfigError("oversize", f"must be one of 'skip', 'clamp', got {shown(oversize)}")
        options = parse_generator(spec) if spec != "builtin" else {}
        trace = options.get("trace") if name == "grid" else None
        if trace is None or is_batsim(str(trace)):
            check_swf_options(spec if trace is None else str(trace), size_from, skip_bad_lines)
        if spec == "builtin":
            w = generate({})
        elif name == "grid":
            from ckptsim.workload.grid import from_options

            w = from_options(options, oversize=oversize, size_from=size_from or "requested",
                             skip_bad_lines=skip_bad_lines)
        else:
            w = GENERATORS[name](options)
        if machine_size is not None:
            w = fit_machine(w, machine_size, oversize)
    elif is_batsim(spec):
        from ckptsim.workload.batsim import read_batsim

        check_swf_options(spec, size_from, skip_bad_lines)
        w = read_batsim(spec, machine_size=machine_size, oversize=oversize)
    else:
        from ckptsim.workload.swf import read_swf

        _unknown_generator(spec)
        w = read_swf(spec, machine_size=machine_size, oversize=oversize,
                     skip_bad_lines=skip_bad_lines, size_from=size_from or "requested")
    if window is not None:
        w = transforms.time_window(w, window[0], window[1])
    if first is not None:
        w = transforms.first_n(w, first)
    if alpha is not None:
        w = transforms.interpolate_estimates(w, alpha)
    if load_scale is not None:
        w = transforms.scale_load(w, load_scale)
    return w
