"""The bandwidth allotment kept up to date as co-allocated jobs start and end.

`LinkState` holds, for every link, the true and the estimated demand of each job using it
(see `ckptsim.platform.links` for the model) and each job's max-min fair rate fraction f.
`add` and `remove` return the jobs whose f changed, so that a simulator moves only their end
events.

**What is recomputed.**  A link *binds* when its true demand exceeds its capacity (beyond
`REL_TOL`); on a link that does not bind every job could run at f = 1, so its constraint is
redundant and the allotment is the max-min allotment under the binding links alone.  That
allotment decomposes over the connected components of the graph whose vertices are the jobs
and the binding links, with an edge where a job has traffic on a binding link; a job on no
binding link has f = 1.  Hence:

- ``add(j)`` can change only the component of j in the graph *after* the addition (the
  binding links j uses, the jobs on them, transitively); if j uses no binding link, only j
  itself (f = 1) and nobody else;
- ``remove(j)`` can change only the component of j in the graph *before* the removal, minus
  j (links only stop binding when a job leaves); if j used no binding link, nobody.

Each call recomputes exactly that set (`last_scope`) by progressive filling over its binding
links, and no other job: jobs whose links are disjoint from j's, or coupled to j only
through links that do not bind, are never touched.  With accurate estimates no link binds,
so every call costs O(links of j); otherwise O(jobs in the component), at most all the
co-allocated jobs.

The returned jobs are those whose f differs from before (exact comparison, so a value that
rounding alone moved counts as changed: a caller may move an end event for nothing, never
miss one), plus the added job; sorted by job id.

Admission uses the *estimated* demands: `residual(c)` is the capacity minus the estimated
demand of the jobs on link c (what the scheduler believes is used), and `fits` refuses a job
whose estimate exceeds it on some link, or that would use a saturated link (the seed's
scheduler skips clusters with saturated links while the congestion lasts).  Saturation is
the true state: a link is saturated when its true demand exceeds its capacity by more than
`REL_TOL`.  A job's demand is added to its links' totals when it starts, and the totals are
summed afresh (`math.fsum`, exactly) when one leaves, so they never drift over millions of
starts and ends.
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
                 "_shared", "_f", "last_scope", "recomputed", "_view")

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
        self._on: list[dict[int, float]] = [{} for _ in range(n)]  # link -> job -> demand
        self._est_on: list[dict[int, float]] = [{} for _ in range(n)]
        self._total = [0.0] * n
        self._est_total = [0.0] * n
        self._links: dict[int, tuple[tuple[int, float], ...]] = {}  # job -> (link, demand)
        self._shared = [[0] * n for _ in range(n)]  # jobs with traffic on both links
        self._f: dict[int, float] = {}
        #: The jobs whose f the last add/remove recomputed.
        self.last_scope: tuple[int, ...] = ()
        #: How many job allocations add/remove have recomputed in all.
        self.recomputed = 0
        # The totals' derived views (saturation, residuals, most saturated link), computed
        # when first asked for after an add or remove: schedulers ask at every pass.
        self._view: tuple[tuple[bool, ...], tuple[float, ...], int | None] | None = None

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
        self._view = None
        for c, v in pairs:
            self._on[c][job] = v
            self._total[c] += v
            row = self._shared[c]
            for c2, _ in pairs:
                row[c2] += 1
        for c, v in enumerate(est):
            if v > 0:
                self._est_on[c][job] = float(v)
                self._est_total[c] += v
        self._f[job] = 0.0  # new: always reported as changed
        links, jobs = self._component([c for c, _ in pairs])
        if job not in jobs:
            jobs.append(job)  # uses no binding link: a component of its own, f = 1
        return self._update(links, jobs)

    def remove(self, job: int) -> tuple[int, ...]:
        """Stop using the links; returns the other jobs whose rate fraction changed."""
        pairs = self._links.get(job)
        if pairs is None:
            raise DecisionError(job, "does not use the links")
        links, jobs = self._component([c for c, _ in pairs])  # before the removal
        del self._links[job], self._f[job]
        self._view = None
        # Totals are summed afresh (exactly) when a job leaves, so that they never drift.
        for c, _ in pairs:
            del self._on[c][job]
            self._total[c] = math.fsum(self._on[c].values())
            row = self._shared[c]
            for c2, _ in pairs:
                row[c2] -= 1
        for c, on in enumerate(self._est_on):
            if on.pop(job, None) is not None:
                self._est_total[c] = math.fsum(on.values())
        if jobs:
            jobs.remove(job)
        return self._update(links, jobs)

    def _update(self, links: list[int], jobs: list[int]) -> tuple[int, ...]:
        self.last_scope = tuple(jobs)
        self.recomputed += len(jobs)
        fresh = self._fill(links, jobs)
        changed = []
        f = self._f
        for j, v in fresh.items():
            if f[j] != v:
                f[j] = v
                changed.append(j)
        changed.sort()
        return tuple(changed)

    def _component(self, seeds: list[int]) -> tuple[list[int], list[int]]:
        """The binding links connected to the binding links among `seeds` through jobs that
        use two of them, and the jobs on those links (in link order, then arrival)."""
        total, limit, shared = self._total, self._limit, self._shared
        n = len(total)
        stack = [c for c in seeds if total[c] > limit[c]]
        if not stack:
            return [], []
        seen: set[int] = set()
        while stack:
            c = stack.pop()
            if c in seen:
                continue
            seen.add(c)
            row = shared[c]
            stack.extend(c2 for c2 in range(n)
                         if row[c2] and c2 not in seen and total[c2] > limit[c2])
        links = sorted(seen)
        jobs: dict[int, float] = {}
        for c in links:
            jobs.update(self._on[c])
        return links, list(jobs)

    def _fill(self, links: list[int], jobs: list[int]) -> dict[int, float]:
        """Max-min fair f of `jobs` (a whole component on `links`), by progressive filling
        over the links that bind."""
        out = dict.fromkeys(jobs, 1.0)
        total, limit, cap, on = self._total, self._limit, self.capacity, self._on
        binding = [c for c in links if total[c] > limit[c]]
        if not binding:
            return out
        # Every job on a binding link starts unfrozen, so the unfrozen demand is the total.
        rest = {c: total[c] for c in binding}
        count = {c: len(on[c]) for c in binding}
        used = dict.fromkeys(binding, 0.0)
        frozen: set[int] = set()
        while True:
            t = 1.0
            for c in binding:
                if count[c]:
                    level = (cap[c] - used[c]) / rest[c]
                    if level < t:
                        t = level
            if t >= 1.0:
                return out
            tight = [c for c in binding if count[c] and (cap[c] - used[c]) / rest[c] <= t * _TIE]
            for c in tight:
                for j in on[c]:
                    if j in frozen:
                        continue
                    frozen.add(j)
                    out[j] = t
                    for c2, v in self._links[j]:
                        if c2 in count:
                            k = count[c2] - 1
                            count[c2] = k
                            rest[c2] = rest[c2] - v if k else 0.0
                            used[c2] += t * v

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

    def traffic_on(self, link: int) -> dict[int, float]:
        """Job -> true traffic on `link`, in the order the jobs were added (read only)."""
        return self._on[link]

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

    def _views(self) -> tuple[tuple[bool, ...], tuple[float, ...], int | None]:
        view = self._view
        if view is None:
            total, limit, cap = self._total, self._limit, self.capacity
            sat = tuple([t > m for t, m in zip(total, limit, strict=True)])
            best = None
            for c, s in enumerate(sat):  # the highest subscription, lowest index on ties
                if s and (best is None or total[c] / cap[c] > total[best] / cap[best]):
                    best = c
            view = self._view = (sat, tuple([c - e for c, e in
                                             zip(cap, self._est_total, strict=True)]), best)
        return view

    def saturated_links(self) -> tuple[int, ...]:
        return tuple(c for c, s in enumerate(self._views()[0]) if s)

    def saturation(self) -> tuple[bool, ...]:
        """`saturated(c)` of every link, in link order."""
        return self._views()[0]

    def most_saturated(self) -> int | None:
        """The saturated link with the highest subscription (lowest index on ties)."""
        return self._views()[2]

    def residual(self, link: int) -> float:
        """Capacity minus the *estimated* demand on `link` (what admission may still use)."""
        return self.capacity[link] - self._est_total[link]

    def residuals(self) -> tuple[float, ...]:
        return self._views()[1]

    def fits(self, estimate: Sequence[float], skip_saturated: bool = True) -> bool:
        """Whether a job with this estimated traffic may be admitted: on every link it uses,
        the estimate is at most the residual and (with `skip_saturated`) the link is not
        saturated."""
        for c, e in enumerate(estimate):
            if e > 0 and (e > self.capacity[c] - self._est_total[c]
                          or (skip_saturated and self._total[c] > self._limit[c])):
                return False
        return True
