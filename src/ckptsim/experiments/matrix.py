"""The run matrix: a spec expanded into `Run` records, each with a stable identity.

Order: workloads in spec order, then each workload's option grid, then schedulers in spec
order and each one's parameter grid, then seeds (fastest).  A run's identity (`run_id`) is the
SHA-256 of the canonical JSON of what determines its result -- the workload (a trace by the
SHA-256 of its bytes, a generator by its options), the transforms, the scheduler, its
resolved parameters (those added to a policy later left out at their default, so older runs
keep their ids), the overrun rule, the seed and the ckptsim version -- so the same run is
recognised whatever the workload is called, wherever the trace lies and whichever spec asks for
it.  Labels, metric choices and figures do not change a run's identity.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ckptsim import __version__
from ckptsim.checkpointing.plan import CheckpointPlan
from ckptsim.errors import ConfigError
from ckptsim.experiments import grid
from ckptsim.experiments.columns import PARAM_PREFIX, WORKLOAD_PREFIX, first_unmatched
from ckptsim.experiments.spec import (
    PLATFORM,
    TRANSFORM_OPTIONS,
    Spec,
    SpecError,
    WorkloadSpec,
)
from ckptsim.experiments.speccomp import (
    component_identity,
    component_option,
    made_components,
    portable,
    split_components,
)
from ckptsim.hashing import file_sha256  # also the name callers of this module import
from ckptsim.params import identity_params


@dataclass(frozen=True, eq=False)
class Run:
    """Everything a worker needs to execute one run (small and picklable)."""

    run_id: str
    experiment: str
    workload: str
    kind: str  # "trace" or a generator name
    path: str | None  # resolved trace path
    source: dict[str, Any]  # reader options (trace) or generator options (without seed)
    transforms: dict[str, Any]  # window, first, alpha, load_scale: the ones given
    scheduler: str  # label
    scheduler_name: str
    params: dict[str, Any]  # every parameter of the policy, defaults resolved
    seed: int
    overrun: str
    # Components by name, with the parameters the spec gives them (failures: source, count).
    components: dict[str, dict[str, Any]] = dataclasses.field(default_factory=dict)
    # The platform given (a built-in name or a resolved file path), None for the default.
    platform: str | None = None
    check: bool = False
    keep_jobs: bool = False
    columns: dict[str, Any] = dataclasses.field(default_factory=dict)
    # The SHA-256 of the plug-in files the run id hashes (scheduler, components, checkpoint
    # policies): a worker refuses to record a run whose plug-ins changed since.
    plugin_sha256: tuple[str, ...] = ()

    def describe(self) -> str:
        inputs = {k.split(".", 1)[-1]: v for k, v in self.columns.items()
                  if k.startswith((WORKLOAD_PREFIX, PARAM_PREFIX))}
        shown = ", ".join(f"{k}={v}" for k, v in inputs.items())
        return f"{self.workload} x {self.scheduler} seed={self.seed}" + (
            f" ({shown})" if shown else "")


def canonical_json(obj: Any) -> str:
    """Deterministic JSON: sorted keys, no spaces, floats by repr (inf as Infinity)."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), allow_nan=True)


def run_identity(workload: dict[str, Any], transforms: dict[str, Any], scheduler: str,
                 params: dict[str, Any], seed: int, overrun: str) -> str:
    doc = {"ckptsim": __version__, "workload": workload, "transforms": transforms,
           "scheduler": scheduler, "params": params, "seed": seed, "overrun": overrun}
    return hashlib.sha256(canonical_json(doc).encode()).hexdigest()


def _format(key: str, value: Any) -> Any:
    """A parameter value as stored in a column (windows become 'start-end' strings, a
    checkpoint plan its string form, as given)."""
    if key == "window":
        return f"{value[0]:g}-{value[1]:g}"
    if isinstance(value, CheckpointPlan):
        return value.text
    return value


def workload_points(w: WorkloadSpec
                    ) -> list[tuple[dict[str, Any], dict[str, Any], dict[str, Any], Any]]:
    """(source options, transforms, component options, platform or None) for every point of
    a workload's option grid (component options as given: ``failures``, ``dummy.step``...)."""
    out = []
    for point in grid.expand(w.options, w.zip):
        source = {k: v for k, v in point.items()
                  if k not in TRANSFORM_OPTIONS and k != PLATFORM
                  and component_option(k) is None}
        transforms = {k: point[k] for k in TRANSFORM_OPTIONS if k in point}
        components = {k: v for k, v in point.items() if component_option(k) is not None}
        out.append((source, transforms, components, point.get(PLATFORM)))
    return out


#: The most runs a sweep expands unless the command line asks for more (`--max-runs N`):
#: a matrix is built in memory (about 600 bytes a run) before anything runs.
MAX_RUNS = 100_000


class MatrixTooLarge(ConfigError):
    """A spec's matrix holds more runs than the limit allows (nothing was expanded)."""

    def __init__(self, spec: Spec, runs: int, limit: int) -> None:
        self.spec = spec
        self.runs = runs
        self.limit = limit
        super().__init__(str(spec.path), f"{runs:,} runs in the matrix, above the limit of "
                                         f"{limit:,} runs of one sweep; pass --max-runs "
                                         f"{runs} to allow them, or shrink the grid")


def matrix_size(spec: Spec) -> int:
    """The number of runs `build_matrix` gives, as a product of the grids' sizes: nothing is
    expanded, so a matrix of any size is counted at once."""
    n = 0
    for w in spec.workloads.values():
        points = sum(grid.size(s.params, s.zip) for s in spec.schedulers
                     if w.name in s.workloads)
        n += grid.size(w.options, w.zip) * points
    return n * len(spec.seeds)


def check_size(spec: Spec, limit: int | None = MAX_RUNS) -> int:
    """The size of the spec's matrix.

    Raises:
        MatrixTooLarge: it is above `limit` (None: no limit).
    """
    n = matrix_size(spec)
    if limit is not None and n > limit:
        raise MatrixTooLarge(spec, n, limit)
    return n


def build_matrix(spec: Spec) -> list[Run]:
    """Every run of the spec, in matrix order (plug-in files named inside values looked for
    beside the spec first, as when it was read).

    Raises:
        SpecError: two entries of the spec describe the same run, or a figure would average
            runs that differ in a parameter it does not name.
    """
    from ckptsim.plugins import files_relative_to

    with files_relative_to(Path(spec.path).resolve().parent):
        return _build_matrix(spec)


def _build_matrix(spec: Spec) -> list[Run]:
    from ckptsim.plugins import source_sha256
    from ckptsim.policies.base import get_scheduler, make_params, scheduler_identity

    runs: list[Run] = []
    for w in spec.workloads.values():
        identity: dict[str, Any] = {"kind": w.kind}
        if w.kind == "trace":
            assert w.path is not None
            identity["sha256"] = file_sha256(w.path)
        for source, transforms, options, platform in workload_points(w):
            wcols: dict[str, Any] = {"workload": w.name}
            wcols.update({WORKLOAD_PREFIX + k: _format(k, v) for k, v in
                          {**source, **transforms, **options}.items()})
            if platform is not None:
                wcols[WORKLOAD_PREFIX + PLATFORM] = platform.written
            components = made_components(split_components(options))
            # Runs without components (or a platform) keep the identities they had before
            # components (and platforms) existed.
            cid = component_identity(components)
            wid = {**identity, **source, **cid}
            shas = {d for c in cid.values() for d in c.get("plugin_sources", ())}
            if platform is not None:
                wid[PLATFORM] = platform.identity
            tid = {k: list(v) if k == "window" else v for k, v in transforms.items()}
            for s in spec.schedulers:
                if w.name not in s.workloads:
                    continue
                cls = get_scheduler(s.name)
                # A built-in's name; a plug-in's name and the SHA-256 of its source file.
                sid = scheduler_identity(s.name)
                own = source_sha256(cls)
                digests = tuple(sorted(shas | ({own} if own else set())))
                for point in grid.expand(s.params, s.zip):
                    prm = make_params(cls.Params, point)
                    params = dataclasses.asdict(prm)
                    key = identity_params(prm)
                    for seed in spec.seeds:
                        columns = {
                            "experiment": spec.name, **wcols, "scheduler": s.label,
                            "scheduler_name": s.name,
                            **{PARAM_PREFIX + k: v for k, v in params.items()},
                            "overrun": s.overrun, "seed": seed}
                        runs.append(Run(
                            run_id=run_identity(wid, tid, sid, key, seed, s.overrun),
                            experiment=spec.name, workload=w.name, kind=w.kind, path=w.path,
                            source=source, transforms=transforms,
                            components=portable(components),
                            platform=None if platform is None else platform.value,
                            scheduler=s.label,
                            scheduler_name=s.name, params=params, seed=seed,
                            overrun=s.overrun, check=spec.check, keep_jobs=spec.keep_jobs,
                            columns=columns, plugin_sha256=digests))
    problems = _duplicates(runs) + _figure_problems(spec, runs)
    if problems:
        raise SpecError(str(spec.path), problems)
    return runs


def _duplicates(runs: list[Run], most: int = 10) -> list[tuple[str, str]]:
    """One problem per pair of configurations that give the same runs (their seeds counted),
    at most `most`, then how many more pairs there are."""
    first: dict[str, Run] = {}
    pairs: dict[tuple[str, str], list[tuple[Run, Run]]] = {}
    for r in runs:
        if r.run_id in first:
            other = first[r.run_id]
            key = (r.describe().replace(f" seed={r.seed}", ""),
                   other.describe().replace(f" seed={other.seed}", ""))
            pairs.setdefault(key, []).append((r, other))
        else:
            first[r.run_id] = r
    problems = []
    for found in list(pairs.values())[:most]:
        r, other = found[0]
        # Configurations described alike (a grid value given twice) share a pair: count its
        # seeds, and how many entries give each run, apart.
        per_seed = Counter(dup.seed for dup, _ in found)
        copies = max(per_seed.values()) + 1
        more = len(per_seed) - 1
        text = f"{r.describe()} is the same run as {other.describe()}"
        if copies > 2:
            text += f" ({copies} configurations give it)"
        if more:
            text += f" (and at {more} more seed{'s' if more > 1 else ''})"
        problems.append(("runs", f"{text}; {'remove' if copies == 2 else 'keep'} one of them"))
    if len(pairs) > most:
        problems.append(("runs", f"... and {len(pairs) - most} more pair(s) of configurations "
                                 "that give the same runs"))
    return problems


def varying_columns(runs: list[Run]) -> list[str]:
    """Input columns that take more than one value over the runs (seed excluded)."""
    keys: list[str] = []
    for r in runs:
        keys += [k for k in r.columns if k not in keys]
    out = []
    for k in keys:
        if k in ("seed", "experiment", "scheduler_name"):
            continue
        values = {canonical_json(r.columns.get(k)) for r in runs}
        if len(values) > 1:
            out.append(k)
    return out


def matches(columns: dict[str, Any], where: dict[str, tuple[Any, ...]]) -> bool:
    """True when every `where` column holds one of its accepted values."""
    return all(_same_any(columns.get(k), accepted) for k, accepted in where.items())


def _same_any(value: Any, accepted: tuple[Any, ...]) -> bool:
    for a in accepted:
        if value == a or str(value) == str(a):
            return True
    return False


def _why_no_run(runs: list[Run], where: dict[str, tuple[Any, ...]], most: int = 12) -> str:
    """The first `where` key no run matches, with the values the runs have (None: the runs
    have no such column), or that the keys match only apart."""
    found = first_unmatched([r.columns for r in runs], where, lambda v, a: _same_any(v, (a,)))
    if found is None:
        return "each key matches some runs, but no run matches them all"
    key, values = found
    shown = ", ".join(values[:most]) + (", ..." if len(values) > most else "")
    return f"no run has {key} in {list(where[key])}; its values: {shown}"


def _figure_problems(spec: Spec, runs: list[Run]) -> list[tuple[str, str]]:
    """A figure point is the mean over seeds; any other input that varies inside one point
    would be averaged silently, so it must be named (x, group_by, facet_by or where)."""
    problems = []
    for i, fig in enumerate(spec.figures):
        chosen = [r for r in runs if matches(r.columns, fig.where)]
        loc = f"figures[{i}]"
        if not chosen:
            problems.append((f"{loc}.where", "selects no run of the matrix: "
                                             + _why_no_run(runs, fig.where)))
            continue
        named = {fig.x, fig.group_by, fig.facet_by, "seed", "experiment", *fig.where}
        cells: dict[str, list[Run]] = {}
        for r in chosen:
            key = canonical_json([r.columns.get(c) for c in (fig.facet_by, fig.group_by, fig.x)
                                  if c])
            cells.setdefault(key, []).append(r)
        mixed: list[str] = []
        for cell in cells.values():
            mixed += [c for c in varying_columns(cell) if c not in named and c not in mixed]
        if mixed:
            problems.append((loc, f"runs differing in {', '.join(mixed)} would be averaged "
                                  "into one point; name them in x, group_by, facet_by or "
                                  "where"))
    return problems
