"""The application-level checkpoint (ALC) cost model of seed 002 (Shi 2009, section 4.2), as
pure functions.

* **Checkpoint size.** ``S_app = a * S_sys``: `S_sys` is the job's memory (its system-level
  image) and `a` the share an application-level checkpoint keeps.  `a` comes from gamma(2, 1)
  bounded to its 20% and 95% quantiles, mapped linearly onto [0.2, 0.95] (the addendum's
  reading of the thesis's formula (4), whose printed constants are inconsistent):
  ``a = low + (high - low) * (x - q20) / (q95 - q20)`` with x ~ gamma(2, 1) truncated to
  [q20, q95] (drawn by inverting the CDF of a uniform in [0.2, 0.95]).
* **Costs.** checkpoint ``S_app / 70 MB/s + 0.5 s`` (write bandwidth, coordination);
  migration ``S_app / 30 MB/s + T_min``.
* **Interval.** T_opt comes from the platform's checkpoint-interval policy (by default
  `young`: ``sqrt(2 * delta * M)`` with delta the checkpoint cost and M the MTBF, 200 h for
  the thesis's 128 nodes, in seconds throughout; `young:reading=literal` is the thesis's
  printed ``20 * sqrt(delta)``).  Each interval is drawn from a normal distribution around
  T_opt (variance 2 in the thesis; `positions`).
* **Memory model** for jobs whose trace gives none (generated workloads): per-node memory
  log-uniform in [low, high] MB, times the job's nodes.

Everything is vectorised over jobs and seeded by the caller's generator.  The scheduler draws
all of it once per run (`ckptsim.policies.scojo.checkpoints`), so the three cases of the
thesis (no checkpoints, checkpoints, checkpoints with migration) see the same checkpoints.
"""

from __future__ import annotations

import math

import numpy as np

#: CDF levels of gamma(2, 1) bounding the size ratio's draw (the thesis's 20% and 95%).
CDF_LOW = 0.2
CDF_HIGH = 0.95
#: Shortest interval between checkpoints, s (a normal draw may fall below zero).
MIN_INTERVAL = 1.0
MB_PER_KB = 1.0 / 1024.0


def gamma2_cdf(x: np.ndarray | float) -> np.ndarray:
    """CDF of gamma(shape 2, scale 1): 1 - exp(-x) (1 + x) for x >= 0."""
    x = np.maximum(np.asarray(x, dtype=np.float64), 0.0)
    return 1.0 - np.exp(-x) * (1.0 + x)


def gamma2_quantile(p: np.ndarray | float) -> np.ndarray:
    """Inverse of `gamma2_cdf` for p in (0, 1), by Newton's method (to ~1e-12)."""
    p = np.asarray(p, dtype=np.float64)
    if np.any((p <= 0.0) | (p >= 1.0)):
        raise ValueError("gamma2_quantile needs probabilities strictly between 0 and 1")
    x = np.full_like(p, 2.0)  # the mode is 1, the mean 2: Newton converges from here
    for _ in range(60):
        density = x * np.exp(-x)
        step = (gamma2_cdf(x) - p) / np.maximum(density, 1e-300)
        x = np.maximum(x - step, x / 2.0)
        if np.all(np.abs(step) <= 1e-13 * np.maximum(x, 1.0)):
            break
    return x


Q_LOW = float(gamma2_quantile(CDF_LOW))  # 0.8244
Q_HIGH = float(gamma2_quantile(CDF_HIGH))  # 4.7439


def size_ratio(u: np.ndarray, low: float = 0.2, high: float = 0.95) -> np.ndarray:
    """S_app / S_sys for uniforms `u` in [0, 1): the bounded gamma(2, 1) mapping."""
    x = gamma2_quantile(CDF_LOW + (CDF_HIGH - CDF_LOW) * np.asarray(u, dtype=np.float64))
    return low + (high - low) * (x - Q_LOW) / (Q_HIGH - Q_LOW)


def memory_model(rng: np.random.Generator, size: np.ndarray, low: float,
                 high: float) -> np.ndarray:
    """S_sys, MB: per-node memory log-uniform in [low, high] MB, times the job's nodes."""
    per_node = np.exp(rng.uniform(math.log(low), math.log(high), len(size)))
    return per_node * np.asarray(size, dtype=np.float64)


def trace_memory(used_kb: np.ndarray, requested_kb: np.ndarray,
                 size: np.ndarray) -> np.ndarray:
    """S_sys, MB, from the SWF memory fields (KB per processor: used, else requested);
    NaN where the trace gives neither."""
    per_proc = np.where(used_kb > 0, used_kb, np.where(requested_kb > 0, requested_kb, np.nan))
    return per_proc * MB_PER_KB * np.asarray(size, dtype=np.float64)


def checkpoint_cost(s_app: np.ndarray, bandwidth: float = 70.0,
                    coordination: float = 0.5) -> np.ndarray:
    """Seconds to write an ALC checkpoint of `s_app` MB: S_app / bandwidth + coordination."""
    return np.asarray(s_app, dtype=np.float64) / bandwidth + coordination


def migration_cost(s_app: np.ndarray, bandwidth: float = 30.0,
                   t_min: float = 1.0) -> np.ndarray:
    """Seconds to move a checkpoint of `s_app` MB to other nodes: S_app / bandwidth + T_min."""
    return np.asarray(s_app, dtype=np.float64) / bandwidth + t_min


def positions(rng: np.random.Generator, t_opt: np.ndarray, work: np.ndarray,
              variance: float) -> tuple[np.ndarray, np.ndarray]:
    """Checkpoint positions, in seconds of useful work, of every job.

    Job i checkpoints after intervals drawn from N(t_opt[i], variance) (at least
    `MIN_INTERVAL`), cumulated, as long as the position is below its `work[i]`.  Returns the
    positions of all jobs concatenated in job order and the offsets (length n + 1) of each
    job's slice.  Jobs draw in order, so a job's positions depend only on the generator's
    state when its turn comes.
    """
    t_opt = np.asarray(t_opt, dtype=np.float64)
    work = np.asarray(work, dtype=np.float64)
    sd = math.sqrt(variance)
    out: list[np.ndarray] = []
    offsets = np.zeros(len(t_opt) + 1, dtype=np.int64)
    for i, (mu, w) in enumerate(zip(t_opt.tolist(), work.tolist(), strict=True)):
        chunks: list[np.ndarray] = []
        total = 0.0
        while total < w:
            # Enough draws to pass w with near certainty; more are drawn if not.
            n = int((w - total) / max(mu - 4.0 * sd, MIN_INTERVAL)) + 2
            steps = np.maximum(rng.normal(mu, sd, n) if sd > 0 else np.full(n, mu),
                               MIN_INTERVAL)
            pos = total + np.cumsum(steps)
            chunks.append(pos[pos < w])
            total = float(pos[-1])
        job = np.concatenate(chunks) if chunks else np.empty(0)
        out.append(job)
        offsets[i + 1] = offsets[i] + len(job)
    flat = np.concatenate(out) if out else np.empty(0)
    return flat, offsets
