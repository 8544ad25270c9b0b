"""What a compiled kernel saves on one event's step, called from the event loop one event at a
time or given a whole batch of events.

    python benchmarks/bench_kernel_call.py [--steps N] [--machines M] [--repeat R]

The step is the energy meter's per-machine state change (`MachineStates._close` of
`ckptsim.components.machines`: one interval's energy added, the machine's new state and
time), the commonest step of a year of the desktop pool (millions of owner changes).  Three
ways, each over the same N (machine, time, new state) changes of M machines:

- `python`: the package's own `MachineStates._close`, one call per change;
- `numba, per call`: the same arithmetic as a numba kernel on numpy arrays, one call per
  change (what a kernel called from the Python event loop costs);
- `numba, batched`: one call of a kernel that loops over all N changes.

It prints microseconds per step and checks that the three give the same energy sums (added in
the same order, so bit for bit).  The per-call kernel is no faster than Python: the dispatch of
a numba call with a handful of array arguments costs more than the step itself, so a kernel
only pays when the loop over events runs inside it (docs/performance.md).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from numba import njit

from ckptsim.components.machines import MachineStates

N_STATES = 6


@njit(cache=False)
def close_one(state, since, watts, lumps, energy, m, t, new):  # pragma: no cover - compiled
    s = state[m]
    e = watts[s, m] * (t - since[m]) + lumps[s, m]
    energy[s, m] += e
    state[m] = new
    since[m] = t


@njit(cache=False)
def close_many(state, since, watts, lumps, energy, ms, ts, news):  # pragma: no cover
    for i in range(ms.size):
        m = ms[i]
        s = state[m]
        e = watts[s, m] * (ts[i] - since[m]) + lumps[s, m]
        energy[s, m] += e
        state[m] = news[i]
        since[m] = ts[i]


def changes(n: int, machines: int, seed: int = 1) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    ms = rng.integers(0, machines, n)
    ts = np.cumsum(rng.exponential(10.0, n))
    news = rng.integers(0, N_STATES, n)
    return ms, ts, news


def python_states(machines: int, watts: np.ndarray, lumps: np.ndarray) -> MachineStates:
    ms = MachineStates.__new__(MachineStates)
    ms.state = [0] * machines
    ms.since = [0.0] * machines
    ms.watts = watts.tolist()
    ms.lumps = lumps.tolist()
    ms.energy = [[0.0] * machines for _ in range(N_STATES)]
    ms.log = None
    return ms


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--steps", type=int, default=1_000_000)
    ap.add_argument("--machines", type=int, default=1359)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    rng = np.random.default_rng(0)
    watts = rng.uniform(2.0, 120.0, (N_STATES, a.machines))
    lumps = rng.uniform(0.0, 50.0, (N_STATES, a.machines))
    ms, ts, news = changes(a.steps, a.machines)
    m_list, t_list, n_list = ms.tolist(), ts.tolist(), news.tolist()
    # Compiled before timing (on arrays of their own; numba does not check bounds).
    close_one(np.zeros(1, np.int64), np.zeros(1), watts[:, :1].copy(), lumps[:, :1].copy(),
              np.zeros((N_STATES, 1)), 0, 1.0, 1)
    close_many(np.zeros(1, np.int64), np.zeros(1), watts[:, :1].copy(), lumps[:, :1].copy(),
               np.zeros((N_STATES, 1)), np.zeros(1, ms.dtype), ts[:1], news[:1])
    best: dict[str, float] = {}
    sums: dict[str, np.ndarray] = {}
    for _ in range(a.repeat):
        py = python_states(a.machines, watts, lumps)
        close = py._close
        t0 = time.process_time()
        for m, t, new in zip(m_list, t_list, n_list, strict=True):
            close(m, t, new)
        best["python"] = min(best.get("python", 1e9), time.process_time() - t0)
        sums["python"] = np.array(py.energy)

        arrays = (np.zeros(a.machines, np.int64), np.zeros(a.machines), watts, lumps,
                  np.zeros((N_STATES, a.machines)))
        t0 = time.process_time()
        for m, t, new in zip(m_list, t_list, n_list, strict=True):
            close_one(*arrays, m, t, new)
        best["numba, per call"] = min(best.get("numba, per call", 1e9),
                                      time.process_time() - t0)
        sums["numba, per call"] = arrays[4].copy()

        arrays = (np.zeros(a.machines, np.int64), np.zeros(a.machines), watts, lumps,
                  np.zeros((N_STATES, a.machines)))
        t0 = time.process_time()
        close_many(*arrays, ms, ts, news)
        best["numba, batched"] = min(best.get("numba, batched", 1e9), time.process_time() - t0)
        sums["numba, batched"] = arrays[4].copy()
    print(f"{a.steps:,} state changes of {a.machines:,} machines, best of {a.repeat} (CPU):")
    for name, seconds in best.items():
        same = np.array_equal(sums[name], sums["python"])
        print(f"  {name:16} {seconds * 1e6 / a.steps:7.3f} us a step"
              f"  ({seconds:.3f} s; energy sums {'identical' if same else 'DIFFER'})")
        if not same:
            raise SystemExit(1)


if __name__ == "__main__":
    main()
