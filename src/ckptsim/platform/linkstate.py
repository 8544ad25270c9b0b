"""The bandwidth allotment kept up to date as co-allocated jobs start and end.

`LinkState` holds, for every link, the true and the estimated demand of each job using it
(see `ckptsim.platform.links` for the model) and each job's max-min fair rate fraction f.
`add` and `remove` return the jobs whose f changed, so that a simulator moves only their end
events.

**What is recomputed.**  The max-min allotment decomposes over the connected components of
the graph whose vertices are jobs and links, with an edge where a job has positive true
demand on a link: f of a job depends only on the jobs and links of its component.  Adding job
j can change only the component j joins (the union of the components of j's links, plus j);
removing j can change only the jobs still reachable from j's links (the piece or pieces that
the old component splits into).  So each call recomputes exactly that component (its jobs are
`last_scope`) and no other job: jobs whose links are all disjoint from j's are never touched.
Inside the component, when no link's demand exceeds its capacity every f is 1 and no filling
is run; otherwise progressive filling runs over the component's oversubscribed links only.
With 4 links a component has at most 4 links, so a call costs O(jobs in the component).

The returned jobs are those whose f differs from before (exact comparison, so a value that
rounding alone moved counts as changed: a caller may move an end event for nothing, never
miss one), plus the added job; sorted by job id.

Admission uses the *estimated* demands: `residual(c)` is the capacity minus the estimated
demand of the jobs on link c (what the scheduler believes is used), and `fits` refuses a job
whose estimate exceeds it on some link, or that would use a saturated link (the seed's
scheduler skips clusters with saturated links while the congestion lasts).  Saturation is
the true state: a link is saturated when its true demand exceeds its capacity by more than
`REL_TOL`.  Link totals are summed afresh (`math.fsum`, exact) at every change, so they never
drift over millions of starts and ends.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ckptsim.errors import ConfigError, DecisionError
from ckptsim.platform.links import REL_TOL, progress_rate

__all__ = ["LinkState"]

_TIE = 1.0 + 1e-12  # links whose fill level is within this factor bind together


class LinkState:
    """Demands and max-min fair rate fractions of the jobs using a grid's links."""

    __slots__ = ("capacity", "_limit", "_on", "_est_on", "_total", "_est_total", "_links",
                 "_f", "last_scope", "recomputed")

    def __init__(self, capacity: Sequence[float]) -> None:
        caps = tuple(capacity)
        if not caps:
            raise ConfigError("grid.capacity", "need at least one link")
        for c in caps:
            if isinstance(c, bool) or not isinstance(c, (int, float)) \
                    or not math.isfinite(c) or c <= 0:
                raise ConfigError("grid.capacity",
                                  f"must be a finite number > 0 (Mbit/s), got {c!r}")
        self.capacity: tuple[float, ...] = tuple(float(c) for c in caps)
        self._limit = tuple(c * (1.0 + REL_TOL) for c in self.capacity)
        n = len(caps)
        self._on: list[dict[int, float]] = [{} for _ in range(n)]
        self._est_on: list[dict[int, float]] = [{} for _ in range(n)]
        self._total = [0.0] * n
        self._est_total = [0.0] * n
        self._links: dict[int, tuple[tuple[int, float], ...]] = {}
        self._f: dict[int, float] = {}
        #: The jobs whose f the last add/remove recomputed (its component).
        self.last_scope: tuple[int, ...] = ()
        #: How many job allocations add/remove have recomputed in all.
        self.recomputed = 0

    # ----------------------------------------------------------------------- changes
    def add(self, job: int, demand: Sequence[float],
            estimate: Sequence[float] | None = None) -> tuple[int, ...]:
        """Start using the links: `demand[c]` is the job's true traffic on link c,
        `estimate[c]` what the scheduler believes it is (default: the true one).  Returns the
        jobs whose rate fraction changed, `job` included."""
        if job in self._f:
            raise DecisionError(job, "already uses the links")
        est = demand if estimate is None else estimate
        n = len(self.capacity)
        if len(demand) != n or len(est) != n:
            raise DecisionError(job, f"needs a demand and an estimate for each of the {n} "
                                     f"links, got {len(demand)} and {len(est)}")
        for v in (*demand, *est):
            if not v >= 0.0 or v == math.inf:
                raise DecisionError(job, f"link demands must be finite and >= 0, got "
                                         f"{list(demand)} / {list(est)}")
        pairs = tuple((c, float(v)) for c, v in enumerate(demand) if v > 0)
        self._links[job] = pairs
        for c, v in pairs:
            self._on[c][job] = v
            self._total[c] = math.fsum(self._on[c].values())
        for c, v in enumerate(est):
            if v > 0:
                self._est_on[c][job] = float(v)
                self._est_total[c] = math.fsum(self._est_on[c].values())
        self._f[job] = 0.0  # new: always reported as changed
        return self._update([c for c, _ in pairs], job)

    def remove(self, job: int) -> tuple[int, ...]:
        """Stop using the links; returns the other jobs whose rate fraction changed."""
        pairs = self._links.pop(job, None)
        if pairs is None:
            raise DecisionError(job, "does not use the links")
        del self._f[job]
        for c, _ in pairs:
            del self._on[c][job]
            self._total[c] = math.fsum(self._on[c].values())
        for c, on in enumerate(self._est_on):
            if on.pop(job, None) is not None:
                self._est_total[c] = math.fsum(on.values())
        return self._update([c for c, _ in pairs], None)

    def _update(self, seeds: list[int], new: int | None) -> tuple[int, ...]:
        links, jobs = self._component(seeds)
        if new is not None and new not in jobs:
            jobs.append(new)  # a job without link traffic is a component of its own
        self.last_scope = tuple(jobs)
        self.recomputed += len(jobs)
        fresh = self._fill(links, jobs)
        changed = []
        f = self._f
        for j, v in fresh.items():
            if f[j] != v:
                f[j] = v
                changed.append(j)
        return tuple(sorted(changed))

    def _component(self, seeds: list[int]) -> tuple[list[int], list[int]]:
        """The links and jobs connected to the links `seeds` (jobs in discovery order)."""
        seen: set[int] = set()
        stack = list(seeds)
        jobs: dict[int, None] = {}
        while stack:
            c = stack.pop()
            if c in seen:
                continue
            seen.add(c)
            for j in self._on[c]:
                if j not in jobs:
                    jobs[j] = None
                    stack.extend(c2 for c2, _ in self._links[j] if c2 not in seen)
        return sorted(seen), list(jobs)

    def _fill(self, links: list[int], jobs: list[int]) -> dict[int, float]:
        """Max-min fair f of `jobs` (a whole component on `links`), by progressive filling
        over the oversubscribed links."""
        out = dict.fromkeys(jobs, 1.0)
        binding = [c for c in links if self._total[c] > self._limit[c]]
        if not binding:
            return out
        active: dict[int, None] = {}
        for c in binding:
            active.update(dict.fromkeys(self._on[c]))
        rest = dict.fromkeys(binding, 0.0)
        count = dict.fromkeys(binding, 0)
        used = dict.fromkeys(binding, 0.0)
        for j in active:
            for c, v in self._links[j]:
                if c in rest:
                    rest[c] += v
                    count[c] += 1
        cap = self.capacity
        while active:
            level = {c: (cap[c] - used[c]) / rest[c] for c in binding if count[c]}
            t = min(level.values(), default=1.0)
            if t >= 1.0:
                break
            for c, lv in level.items():
                if lv > t * _TIE:
                    continue
                for j in self._on[c]:
                    if j not in active:
                        continue
                    del active[j]
                    out[j] = t
                    for c2, v in self._links[j]:
                        if c2 in rest:
                            count[c2] -= 1
                            rest[c2] = rest[c2] - v if count[c2] else 0.0
                            used[c2] += t * v
        return out

    # ----------------------------------------------------------------------- queries
    def __contains__(self, job: object) -> bool:
        return job in self._f

    def __len__(self) -> int:
        return len(self._f)

    def fraction(self, job: int) -> float:
        """The job's bandwidth fraction f in (0, 1]."""
        return self._f[job]

    def rate(self, job: int, kappa: float) -> float:
        """The job's progress rate (dedicated seconds per second) for communication share
        kappa: 1 / ((1 - kappa) + kappa / f)."""
        return float(progress_rate(self._f[job], kappa))

    def demand(self, job: int) -> tuple[float, ...]:
        """The job's true traffic on each link."""
        out = [0.0] * len(self.capacity)
        for c, v in self._links[job]:
            out[c] = v
        return tuple(out)

    def estimate(self, job: int) -> tuple[float, ...]:
        """The job's estimated traffic on each link."""
        return tuple(on.get(job, 0.0) for on in self._est_on)

    def jobs_on(self, link: int) -> tuple[int, ...]:
        """The jobs with true traffic on `link`, in the order they were added."""
        return tuple(self._on[link])

    def load(self, link: int) -> float:
        """True demand on `link` (may exceed its capacity)."""
        return self._total[link]

    def allotted(self, link: int) -> float:
        """Bandwidth actually used on `link`: sum of f_j * D_j(link)."""
        f = self._f
        return math.fsum(f[j] * v for j, v in self._on[link].items())

    def subscription(self, link: int) -> float:
        """True demand over capacity (> 1 when oversubscribed)."""
        return self._total[link] / self.capacity[link]

    def saturated(self, link: int) -> bool:
        """True demand exceeds the capacity (beyond `REL_TOL`)."""
        return self._total[link] > self._limit[link]

    def saturated_links(self) -> tuple[int, ...]:
        return tuple(c for c in range(len(self.capacity)) if self.saturated(c))

    def most_saturated(self) -> int | None:
        """The saturated link with the highest subscription (lowest index on ties)."""
        best = None
        for c in self.saturated_links():
            if best is None or self.subscription(c) > self.subscription(best):
                best = c
        return best

    def residual(self, link: int) -> float:
        """Capacity minus the *estimated* demand on `link` (what admission may still use)."""
        return self.capacity[link] - self._est_total[link]

    def residuals(self) -> tuple[float, ...]:
        return tuple(self.residual(c) for c in range(len(self.capacity)))

    def fits(self, estimate: Sequence[float], skip_saturated: bool = True) -> bool:
        """Whether a job with this estimated traffic may be admitted: on every link it uses,
        the estimate is at most the residual and (with `skip_saturated`) the link is not
        saturated."""
        for c, e in enumerate(estimate):
            if e > 0 and (e > self.capacity[c] - self._est_total[c]
                          or (skip_saturated and self._total[c] > self._limit[c])):
                return False
        return True
