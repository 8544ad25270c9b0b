"""The Paper interface: what a seed paper's reproduction declares, and the registry that holds
the reproductions.

A paper is one package folder under `ckptsim/experiments/papers/` whose `__init__.py` defines a
`Paper` subclass registered with `@register`: its name and seed, the options of `ckptsim paper`
it uses (shared ones by flag, its own as `PaperOption`s), its figures and what `all` runs, its
options dataclass, how it runs a figure (the experiment specs it builds, and the reduction of
their rows into FIGURE.csv and FIGURE.png), its results page's generated tables and its claims
(`Claim`: what the seed states, and where in the committed CSVs that is compared).  Every
package folder is found and imported by the registry: adding a paper touches nothing else.
The `__init__.py` stays light (no numpy, no matplotlib): the command line reads every paper's
declaration to build its options, and imports a paper's modules only when it runs.
"""

from __future__ import annotations

import importlib
import math
import pkgutil
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from ckptsim.registry import Registry

if TYPE_CHECKING:
    from ckptsim.experiments.papers.common import FigureOutput, OnRow
    from ckptsim.experiments.papers.tables import Table


@dataclass(frozen=True)
class PaperOption:
    """One option of `ckptsim paper`: its flag, its help line, the value it takes when not given
    (None: the paper's own) and argparse's other arguments.  `papers` (the papers that use it)
    is filled in by the command line from the papers' declarations.  `recorded`: whether the
    figures record it in their folder's manifest (`manifest`): every option that changes what
    a figure computes; not those of where the inputs are read from, nor `--full`, recorded
    through the values it sets."""

    flag: str
    help: str
    default: Any = None
    kwargs: Mapping[str, Any] = field(default_factory=dict)
    papers: tuple[str, ...] = ()
    recorded: bool = True

    @property
    def dest(self) -> str:
        return self.flag.lstrip("-").replace("-", "_")


_INT_N = {"type": int, "metavar": "N"}

#: The options every paper may use (declared once; a paper names those it uses in `uses`).
#: `--out`, `--jobs`, `--dask`, `--dask-timeout` and `--yes` are every paper's.
SHARED_OPTIONS = (
    PaperOption("--out", "output folder (figN.csv, figN.png, the sweep's store); required",
                kwargs={"required": True, "metavar": "DIR"}),
    PaperOption("--jobs", "processes (default: all cores; 0: in this process)", kwargs=_INT_N),
    PaperOption("--dask", "run the figures' sweeps on a Dask cluster: a scheduler's address "
                "(tcp://HOST:8786, e.g. one started with dask-jobqueue) or local (a "
                "LocalCluster of --jobs workers; all cores without --jobs or with 0); "
                "default: a local process pool",
                kwargs={"metavar": "ADDRESS"}),
    PaperOption("--dask-timeout", "seconds to wait for the --dask scheduler to answer "
                "(default 5)", kwargs={"type": float, "metavar": "SECONDS"}),
    PaperOption("--yes", "start without asking, however long the runs are estimated to take "
                "(without it a paper command estimated over an hour of CPU asks first, and "
                "stops when it cannot ask)", kwargs={"action": "store_true"}),
    PaperOption("--trace-dir", "folder holding the PWA traces (default ../shared/data/traces; "
                "forshaw: the Microsoft availability trace is looked for beside it)",
                default="../shared/data/traces", kwargs={"metavar": "DIR"}, recorded=False),
    PaperOption("--traces", "trace names (niu default: SDSC-BLUE CTC-SP2 HPC2N SDSC-SP2 KTH-SP2 "
                "CEA-Curie; oliner default: SDSC NASA LUBLIN-256; shi default: SDSC-SP2 "
                "KTH-SP2)", kwargs={"nargs": "+", "metavar": "NAME"}),
    PaperOption("--first", "only the first N jobs of each trace (default: all; shi: also N "
                "jobs per generated workload instead of the default 10,000)", kwargs=_INT_N),
    PaperOption("--estimates", "oliner: exact (default, every workload scheduled with its run "
                "times) or requested (the requested times where the trace has them: SDSC); "
                "shi: the generated jobs' estimates, exact (default: the thesis's jobs have "
                "none and are classified by their runtimes), tsafrir or f", default="exact",
                kwargs={"metavar": "KIND"}),
    PaperOption("--replications", "seeds per point (oliner: each thins the failure log "
                "differently; jones, forshaw: each draws another workload, and forshaw other "
                "users); figures show the mean (default 1; jones 5, with --full 1; forshaw 10, "
                "with --full 50)",
                kwargs=_INT_N),
    PaperOption("--full", "the seed's size (default off; jones: 400,000 jobs per cluster; "
                "forshaw: a year, 50 replications; hours of runs)",
                kwargs={"action": "store_true"}, recorded=False),
    PaperOption("--set", "a parameter of the figures' runs (repeatable): KEY=VALUE sets the "
                "scheduler parameter KEY on every run whose scheduler declares it (`ckptsim "
                "schedulers`), COMPONENT.KEY=VALUE a component's (`ckptsim components`), "
                "checkpoint.policy.KEY=VALUE an option of the checkpoint policies in every "
                "policy string whose policy declares it (`scheduled:late=adopt`), values "
                "read as `ckptsim run --set` reads them; in the specs FAMILY.toml and "
                "the run ids, so a reading's runs stay apart in the store (default: the "
                "figures' own; refused: a parameter a figure varies, or one the paper sets "
                "with an option of its own)",
                kwargs={"action": "append", "metavar": "KEY=VALUE"}, recorded=False),
)
EVERY_PAPER = ("--out", "--jobs", "--dask", "--dask-timeout", "--yes", "--set")

#: The rules a claim is judged by (`Claim.rule`).  Each compares the seed's value with our
#: figure and its 95% interval (`claims.py` computes both from the CSVs); a verdict is `agrees`,
#: `differs`, `inconclusive` (the interval cannot decide) or `not-run` (no CSV or no rows), and
#: never `agrees` or `differs` on fewer than 3 replications, nor on a figure without an interval
#: or a value (`inconclusive`).
RULES: dict[str, str] = {
    "within": "our 95% interval lies within the claim's margin of the seed's value, the band "
             "seed - margin to seed + margin (agrees), wholly outside that band (differs), or "
             "across its edge (inconclusive); every `within` claim states its margin",
    "same-sign": "our interval lies wholly on the seed's side of zero, zero excluded "
                 "(agrees), wholly on the other side or at zero, [0, 0] included (differs: a "
                 "difference of exactly zero has not the seed's sign), or holds zero with "
                 "values of the seed's sign (inconclusive)",
    "factor-2": "our interval lies within a factor of 2 of the seed's value (agrees), wholly "
                "outside that band (differs), or across its edge (inconclusive)",
    "at-most": "our interval lies at or below the seed's value (agrees), wholly above it "
               "(differs), or across it (inconclusive)",
    "at-least": "our interval lies at or above the seed's value (agrees), wholly below it "
                "(differs), or across it (inconclusive)",
    "flat": "every row's difference from the first row (relative with `relative`) lies within "
            "+-the seed's value, each difference's interval decided against that band as in "
            "`factor-2`: agrees when every one lies inside, differs when any lies wholly "
            "outside, else inconclusive (ours: the difference of largest magnitude)",
    "share": "the ordering holds (the value, or the paired difference, at or below zero; at "
             "or above with `higher`) on at least the seed's share of the replications, seeds "
             "or groups (agrees: the share counted, not its interval), or the share's 95% "
             "Wilson interval lies below it (differs), else inconclusive",
    "best-at": "the best row (lowest; highest with `higher`; of equal means the first "
               "value of `param`) and every row whose interval "
               "overlaps its interval span at most two neighbouring values of `param` around "
               "the seed's value (agrees; a value between two swept ones: either of them), "
               "the seed's value lies outside their span (differs), else inconclusive",
    "crossing": "the metric changes sign along `param` between the last value whose interval "
                "lies wholly on the first side and the first whose interval lies wholly on "
                "the other: the seed's value inside that span agrees, outside differs, inside "
                "it without a value wholly on each side inconclusive; no change of sign "
                "differs where every interval lies wholly on the first side",
}


@dataclass(frozen=True)
class Between:
    """A `Claim.rows` value: the numbers from `low` to `high`, both included."""

    low: float
    high: float


@dataclass(frozen=True)
class Claim:
    """One claim of a seed paper, as data: the seed's statement and value(s) and where in the
    results folder's CSVs (docs/results/PAPER/CSV.csv, or several of the same columns) our
    figure comes from.  Its verdict is computed (`claims.evaluate`), never written by hand.

    - `seed`: the seed's value, or one per part (a part per metric, then per value of `by`);
      with `by_values`, one per value of `by` named there, so a CSV that holds only some of
      them (a figure run for one trace) still grades those.
    - `rows`: column -> value or tuple of values the rows are selected by (empty: every row);
      `exclude` the same for rows dropped (e.g. a CSV's summary rows).
    - `metrics`: the columns compared, each a part graded on its own; a metric may be
      `A - B` or `A / B` of two columns of one row (the ratio less 1).
    - `unit`: the column(s) naming a replication, workload seed or trace: each selected row
      is one, and our figure is their mean with its t interval.  Left empty, each row carries
      its own mean, 95% half-width (column `METRIC_ci` or `METRIC_ci95`) and number of
      replications (`seeds`, `replications` or `METRIC_n`; none: 1).
    - `versus`: (column, baseline, compared): the difference compared - baseline (the ratio
      less 1 with `relative`), paired per `unit` where there is one; without, from the two
      rows' own intervals, combined as independent (half-widths in quadrature).
    - `param`, `higher`: the swept column of `best-at` and `crossing`, and the sense of better.
    - `margin`: `within`'s equivalence margin, in the metric's unit: one value, or one per
      part as `seed`.  Required by `within` (a seed's value merely inside a wide interval
      establishes nothing), refused by the other rules; 0 asks for the seed's value exactly.
    - `note`: prose that explains the verdict (it never overrules it).
    """

    statement: str
    seed: float | tuple[float, ...]
    csv: str | tuple[str, ...]
    metrics: tuple[str, ...]
    rule: str
    rows: Mapping[str, Any] = field(default_factory=dict)
    exclude: Mapping[str, Any] = field(default_factory=dict)
    by: str = ""
    by_values: tuple[str, ...] = ()
    unit: str | tuple[str, ...] = ""
    versus: tuple[str, Any, Any] | tuple[()] = ()
    relative: bool = False
    param: str = ""
    higher: bool = False
    margin: float | tuple[float, ...] | None = None
    note: str = ""

    def __post_init__(self) -> None:
        if self.rule not in RULES:
            renamed = " (in-ci is now named within)" if self.rule == "in-ci" else ""
            raise ValueError(f"{self.statement!r}: unknown rule {self.rule!r}{renamed}; known: "
                             f"{', '.join(RULES)}")
        if (self.rule == "within") != (self.margin is not None):
            raise ValueError(f"{self.statement!r}: " + (
                "rule 'within' needs a margin (the band around the seed's value within which "
                "our interval agrees)" if self.rule == "within"
                else f"margin belongs to rule 'within'; rule {self.rule} takes none"))
        if self.margin is None:
            return
        margins = self.margin if isinstance(self.margin, tuple) else (self.margin,)
        if not (margins and all(0 <= m < math.inf for m in margins)):
            raise ValueError(f"{self.statement!r}: a margin is a finite number >= 0, or several")


class Paper:
    """A seed paper's reproduction.  Subclasses set the class attributes and implement
    `figures`, `wanted`, `options` and `run`; `specs`, `runs_of`, `tables` and `detail` have
    defaults."""

    #: The name on the command line (`ckptsim paper NAME`) and of the results page.
    name: ClassVar[str] = ""
    #: The seed's number ("000") and what it is about (the paper argument's help).
    seed: ClassVar[str] = ""
    about: ClassVar[str] = ""
    #: What the figure argument accepts (its help).
    figure_help: ClassVar[str] = ""
    #: The shared options it uses besides --out and --jobs (`SHARED_OPTIONS`), in that order.
    uses: ClassVar[tuple[str, ...]] = ()
    #: The options only it uses.
    own_options: ClassVar[tuple[PaperOption, ...]] = ()
    #: The options of `uses` and `own_options` only some of its figures use: flag -> those
    #: figures (an option not named here is every figure's).  A figure, a family or `all`
    #: refuses such an option, given, when none of the figures it runs (`wanted`) uses it.
    used_by: ClassVar[Mapping[str, tuple[str, ...]]] = {}
    #: Its claims, from its results page.
    claims: ClassVar[tuple[Claim, ...]] = ()
    #: flag -> the field of its options dataclass that holds the value the figures read,
    #: where that is not the flag's own name (recorded in the folder's manifest).
    option_fields: ClassVar[Mapping[str, str]] = {}
    #: The parameters of its runs (a scheduler's KEY, a component's COMPONENT.KEY) one of its
    #: own options sets: `--set KEY=VALUE` refuses them, naming that option.
    set_flags: ClassVar[Mapping[str, str]] = {}
    #: Its figures computed without runs (from the traces or workloads themselves), which no
    #: `--set` reaches.
    no_runs: ClassVar[tuple[str, ...]] = ()

    def figures(self) -> tuple[str, ...]:
        """The figures' names (`all` runs these)."""
        raise NotImplementedError

    def wanted(self, figure: str) -> list[str]:
        """The figures `figure` (a figure, a family or `all`) runs; an unknown one is refused
        (ConfigError) naming the accepted values."""
        raise NotImplementedError

    def options(self, given: Any) -> Any:
        """The paper's options dataclass from the command's values (`given.DEST`, every option
        left out at its shared default or None), checked; a bad value is refused naming its
        option."""
        raise NotImplementedError

    def specs(self, figure: str, opt: Any) -> dict[str, str]:
        """The experiment specs `figure` runs, by name (NAME.toml in the output folder), as
        TOML text: the runs as data, which `ckptsim sweep` can rerun or extend.  Figures the
        paper computes directly (e.g. a trace's own properties) need none."""
        return {}

    def direct_runs(self, figure: str, opt: Any) -> list[tuple[str, str, dict[str, Any]]]:
        """The runs `figure` makes itself rather than through a spec, as (scheduler, label,
        parameters), which `--set` checks and sets as a spec's (`settings.scheduler_params`);
        default: none."""
        return []

    def runs_of(self, figure: str, opt: Any) -> int | None:
        """How many runs `figure` holds (for a progress bar); None: not counted ahead (each
        figure is then reported with its own time)."""
        return None

    def check(self, figure: str, opt: Any) -> None:
        """Refuse options the figure cannot run with (a `ConfigError` naming the option),
        before its runs are counted and timed; `run` checks again.  Default: nothing."""

    def trace_folder(self, opt: Any, out: Path) -> Path:
        """The folder the specs' trace names are read from: `--trace-dir` where the paper
        takes one, else the output folder (a paper of generated workloads)."""
        return Path(getattr(opt, "trace_dir", None) or out)

    def run(self, figure: str, out: Path, opt: Any,
            on_row: OnRow | None = None) -> Iterable[FigureOutput]:
        """Compute `figure` into `out`: write each experiment spec it builds, run it through the
        sweep store, reduce the rows into FIGURE.csv and FIGURE.png; yield or return what was
        written."""
        raise NotImplementedError

    def tables(self) -> Mapping[str, Table] | None:
        """The generated tables of docs/results/NAME.md by name (`ckptsim paper NAME tables`),
        or None when the page has none."""
        return None

    def page_tables(self) -> dict[str, Table]:
        """Every table docs/results/NAME.md may mark: the paper's own (`tables`), `claims`,
        its claims with their computed verdicts (`claims_table.markdown_table`), and `decide`,
        what would decide the inconclusive ones (`decide.markdown_table`)."""
        from ckptsim.experiments.papers import decide
        from ckptsim.experiments.papers.claims_table import markdown_table

        return {**(self.tables() or {}), "claims": lambda folder: markdown_table(self, folder),
                "decide": lambda folder: decide.markdown_table(self, folder)}

    def detail(self, opt: Any) -> str:
        """What the final line says after the time (e.g. the size of the runs)."""
        return ""

    def seconds_per_run(self, opt: Any) -> tuple[float, str] | None:
        """The CPU seconds one run of the paper takes at `opt`'s size, scaled from a
        measurement, and where that was measured (for the estimate `ckptsim paper` prints
        before it starts); None: not known (the runs are counted only).  Runs already in the
        output folder's store replace it with their own measured median."""
        return None


def _load() -> None:
    """Import every package folder of ckptsim.experiments.papers (each registers its paper)."""
    package = importlib.import_module("ckptsim.experiments.papers")
    for info in pkgutil.iter_modules(package.__path__):
        if info.ispkg:
            importlib.import_module(f"{package.__name__}.{info.name}")



class FamilyPaper(Paper):
    """A paper whose figures come in families of experiments, computed by the module
    `experiments` beside its declaration (imported when a figure runs): its `FAMILIES` (family
    -> figures), `spec_text(family, opt)`, `runs_of(figure, opt)` and `run_figures(figure, out,
    opt, on_row=)`; with `has_tables`, its module `tables` holds the page's `TABLES`."""

    has_tables: ClassVar[bool] = False

    def _module(self, name: str) -> Any:
        return importlib.import_module(f"{type(self).__module__}.{name}")

    def specs(self, figure: str, opt: Any) -> dict[str, str]:
        experiments = self._module("experiments")
        figures = self.wanted(figure)
        families = getattr(experiments, "ALL_FAMILIES", experiments.FAMILIES)
        return {family: experiments.spec_text(family, opt)
                for family, members in families.items() if any(f in members for f in figures)}

    def runs_of(self, figure: str, opt: Any) -> int | None:
        return int(self._module("experiments").runs_of(figure, opt))

    def check(self, figure: str, opt: Any) -> None:
        check = getattr(self._module("experiments"), "check", None)
        if check is not None:
            check(opt)

    def run(self, figure: str, out: Path, opt: Any,
            on_row: OnRow | None = None) -> Iterable[FigureOutput]:
        return self._module("experiments").run_figures(figure, out, opt, on_row=on_row)

    def tables(self) -> Mapping[str, Table] | None:
        return self._module("tables").TABLES if self.has_tables else None

papers: Registry[type[Paper]] = Registry("paper", "paper", _load)
register: Callable[[type[Paper]], type[Paper]] = papers.register


def all_papers() -> list[Paper]:
    """Every registered paper, in the order of their seeds."""
    return sorted((papers.get(name)() for name in papers.names()),
                  key=lambda p: (p.seed, p.name))


def get_paper(name: str) -> Paper:
    return papers.get(name)()
