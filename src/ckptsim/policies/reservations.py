"""Compiled kernels of conservative backfilling: the waiting jobs' reservations and the
free-node profile as numpy arrays, placed by loops compiled with numba.

The waiting jobs are the rows of `Q` (float64, one row per job, `nq` rows in use), kept in
rebuild order, i.e. sorted by (reserved start, estimate > 0, queue key):

    Q[i] = (start or inf, estimate > 0 (0 or 1), queue key, size, estimate, job index)

Every value is an integer or a time, exact in a float64.  The profile is the step function
`F[k]` free nodes over [T[k], T[k + 1]) (the last step lasts forever), `n` steps in use; the
same step function as `ckptsim.policies.profile.Profile`, whose pure-Python `place` and
`place_run` are the reference these loops follow step for step (tests compare them).

A rebuild places every row, in order, at its earliest fit in a profile built afresh from the
running jobs; jobs of one (size, estimate) search on from where the last one of their kind was
placed and a run of them is placed several at a time (see `ckptsim.policies.conservative`).
Numba compiles these functions on first use and caches the machine code next to this file
(`cache=True`), so only the first run on a machine pays for the compilation.  When it does
compile (not when it loads the code from its cache), `COMPILING` is logged once per process at
INFO on this module's logger (the command line prints it as a note on stderr; the library
itself prints nothing).
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as np
from numba import njit
from numba.core import event

INF = np.inf
START, POSITIVE, KEY, SIZE, ESTIMATE, INDEX = range(6)
COLUMNS = 6

COMPILING = "compiling conservative backfilling's kernels (once; cached for later runs) ..."


class _CompileNotice(event.Listener):
    """Logs `COMPILING` when numba starts compiling a kernel of this module.  Numba fires
    "numba:compile" only after its cache had no code for the signature, so a run that loads
    the kernels from the cache says nothing."""

    def __init__(self) -> None:
        self.told = False

    def on_start(self, ev: Any) -> None:
        if self.told:
            return
        dispatcher = (ev.data or {}).get("dispatcher")
        if getattr(getattr(dispatcher, "py_func", None), "__module__", None) != __name__:
            return
        self.told = True
        logging.getLogger(__name__).info(COMPILING)

    def on_end(self, ev: Any) -> None:
        pass


event.register("numba:compile", _CompileNotice())


@njit(cache=True)
def _bisect_right(T, n, t, lo):  # pragma: no cover - compiled
    hi = n
    while lo < hi:
        mid = (lo + hi) >> 1
        if t < T[mid]:
            hi = mid
        else:
            lo = mid + 1
    return lo


@njit(cache=True)
def _bisect_left(T, n, t, lo):  # pragma: no cover - compiled
    hi = n
    while lo < hi:
        mid = (lo + hi) >> 1
        if T[mid] < t:
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit(cache=True)
def _place(T, F, n, size, duration, k, count):  # pragma: no cover - compiled
    """`Profile.place` from step k on: reserve up to `count` jobs side by side at the earliest
    fit.  Returns (start, copies, k of the start, steps in use); the arrays must hold one more
    step.  (inf, count) if none ever fits; zero-length jobs take nothing."""
    while True:
        while k < n and F[k] < size:
            k += 1
        if k == n:
            return INF, count, k, n
        if duration <= 0:
            return T[k], count, k, n
        end = T[k] + duration
        j = _bisect_left(T, n, end, k + 1)
        low = F[k]
        last = k
        for x in range(k + 1, j):
            f = F[x]
            if f <= low:
                low = f
                last = x
        if low >= size:
            break
        # No start up to the last step lacking nodes fits: its window holds that step.
        k = last + 1
    copies = low // size
    if copies > count:
        copies = count
    take = copies * size
    if j == n or T[j] != end:
        for x in range(n, j, -1):
            T[x] = T[x - 1]
            F[x] = F[x - 1]
        T[j] = end
        F[j] = F[j - 1]
        n += 1
    for x in range(k, j):
        F[x] -= take
    return T[k], copies, k, n


@njit(cache=True)
def _precedes(a, b, c, x, y, z):  # pragma: no cover - compiled
    """Whether a row of (start a, estimate > 0 b, queue key c) sorts before one of (x, y, z)."""
    return a < x or (a == x and (b < y or (b == y and c < z)))


@njit(cache=True)
def _put(Q, lo, hi, a, b, c, d, e, f):  # pragma: no cover - compiled
    """Move rows lo .. hi - 1 one row down and write (a, b, c, d, e, f) at row lo."""
    for x in range(hi, lo, -1):
        for y in range(COLUMNS):
            Q[x, y] = Q[x - 1, y]
    Q[lo, 0] = a
    Q[lo, 1] = b
    Q[lo, 2] = c
    Q[lo, 3] = d
    Q[lo, 4] = e
    Q[lo, 5] = f


@njit(cache=True)
def _sort_rows(Q, nq):  # pragma: no cover - compiled
    """Insertion sort of the rows into rebuild order (by start, estimate > 0, queue key):
    after a rebuild they are nearly sorted (cost: rows + rows moved past each other)."""
    for i in range(1, nq):
        a = Q[i, 0]
        b = Q[i, 1]
        c = Q[i, 2]
        j = i
        while j > 0 and _precedes(a, b, c, Q[j - 1, 0], Q[j - 1, 1], Q[j - 1, 2]):
            j -= 1
        if j < i:
            _put(Q, j, i, a, b, c, Q[i, 3], Q[i, 4], Q[i, 5])


@njit(cache=True)
def rebuild(Q, nq, now, free_now, R, nr, firsts):  # pragma: no cover - compiled
    """Re-place every waiting job, in rebuild order, into the profile of the running jobs
    (`free_now` nodes free now, and the `nr` rows of R: (predicted end, size, job index) in
    order of predicted end; those ending at or before now count as free now), then sort the
    rows into rebuild order again.

    Rows reserved for the first time (start inf before) write (job index, start) into
    `firsts`.  Returns the profile (T, F, steps in use) and how many firsts were written."""
    cap = nr + nq + 16
    T = np.empty(cap, np.float64)
    F = np.empty(cap, np.int64)
    T[0] = now
    F[0] = free_now
    n = 1
    for o in range(nr):
        t = R[o, 0]
        c = np.int64(R[o, 1])
        if t <= now:
            F[0] += c
        elif t == T[n - 1]:
            F[n - 1] += c
        else:
            T[n] = t
            F[n] = F[n - 1] + c
            n += 1
    # Kinds (size, estimate) seen in this rebuild and the start of the last one placed: a
    # lower bound for the next one.  A queue holds few kinds at a time.
    ks = np.empty(nq + 1, np.int64)
    kd = np.empty(nq + 1, np.float64)
    kb = np.empty(nq + 1, np.float64)
    nk = 0
    nf = 0
    i = 0
    while i < nq:
        s = np.int64(Q[i, SIZE])
        d = Q[i, ESTIMATE]
        j = i + 1
        while j < nq and Q[j, SIZE] == s and Q[j, ESTIMATE] == d:
            j += 1
        u = 0
        while u < nk and (ks[u] != s or kd[u] != d):
            u += 1
        if u == nk:
            ks[u] = s
            kd[u] = d
            kb[u] = now
            nk += 1
        low = kb[u]
        count = j - i
        t = INF
        if low < INF:
            k = _bisect_right(T, n, low, 0) - 1
            if k < 0:
                k = 0
        while count > 0:
            if low < INF:
                t, copies, k, n = _place(T, F, n, s, d, k, count)
            else:
                copies = count
            for x in range(i, i + copies):
                if Q[x, START] == INF:
                    firsts[nf, 0] = Q[x, INDEX]
                    firsts[nf, 1] = t
                    nf += 1
                Q[x, START] = t
            i += copies
            count -= copies
        kb[u] = t
    _sort_rows(Q, nq)
    return T, F, n, nf


@njit(cache=True)
def advance(T, F, n, now):  # pragma: no cover - compiled
    """`Profile.advance`: drop the steps that ended before now; returns the steps in use."""
    if now <= T[0]:
        return n
    k = _bisect_left(T, n, now, 0)
    drop = k if k < n and T[k] == now else k - 1
    if drop > 0:
        for x in range(drop, n):
            T[x - drop] = T[x]
            F[x - drop] = F[x]
        n -= drop
    T[0] = now
    return n


@njit(cache=True)
def insert(Q, nq, start, positive, key, size, estimate, index):  # pragma: no cover
    """Insert a row at its place in rebuild order (Q must hold one more row); returns the
    rows in use."""
    lo = 0
    hi = nq
    while lo < hi:  # the first row that sorts after the new one
        mid = (lo + hi) >> 1
        if _precedes(Q[mid, 0], Q[mid, 1], Q[mid, 2], start, positive, key):
            lo = mid + 1
        else:
            hi = mid
    _put(Q, lo, nq, start, positive, key, size, estimate, index)
    return nq + 1


@njit(cache=True)
def place(Q, nq, T, F, n, now, size, estimate, key, index):  # pragma: no cover - compiled
    """Place a new job at its earliest fit in the kept profile, from now on, and insert its
    row into Q (which must hold one more row; the profile, two more steps).  Returns its
    start and the profile's steps in use."""
    n = advance(T, F, n, now)
    t, _, _, n = _place(T, F, n, np.int64(size), estimate, 0, 1)
    insert(Q, nq, t, 1.0 if estimate > 0 else 0.0, key, size, estimate, index)
    return t, n


@njit(cache=True)
def tidy(T, F, n):  # pragma: no cover - compiled
    """`Profile.tidy`'s merge: drop breakpoints between steps of equal value; returns the
    steps in use."""
    if n == 0:
        return 0
    m = 1
    for x in range(1, n):
        if F[x] != F[m - 1]:
            T[m] = T[x]
            F[m] = F[x]
            m += 1
    return m


@njit(cache=True)
def take_due(Q, nq, now, free, zero_running, out):  # pragma: no cover - compiled
    """The rows reserved at or before now that fit `free` nodes, in rebuild order: zero-length
    jobs first; if one of them cannot start yet while a zero-length job runs (it ends at this
    instant and triggers another pass), the longer jobs wait for that pass (see
    `ckptsim.policies.due.take_due`, the same rule over tuples).  Writes (queue key, job
    index) of each into `out`, removes their rows and returns (how many, rows left)."""
    m = 0
    while m < nq and Q[m, 0] <= now:
        m += 1
    c = 0
    for i in range(m):
        size = Q[i, 3]
        if size > free:
            if Q[i, 1] == 0 and zero_running:
                break
            continue
        out[c, 0] = Q[i, 2]
        out[c, 1] = Q[i, 5]
        c += 1
        free -= size
        Q[i, 0] = -INF  # marks the row taken
        if Q[i, 4] <= 0:
            zero_running = True
    if c == 0:
        return 0, nq
    w = 0
    for i in range(nq):
        if Q[i, 0] != -INF:
            if w != i:
                for y in range(COLUMNS):
                    Q[w, y] = Q[i, y]
            w += 1
    return c, w


@njit(cache=True)
def run_add(R, nr, end, size, index):  # pragma: no cover - compiled
    """Insert a running job's row (predicted end, size, job index) in order of predicted end
    (after those ending at the same time); R must hold one more row.  Returns the rows."""
    x = _bisect_right(R[:, 0], nr, end, 0)
    for y in range(nr, x, -1):
        R[y, 0] = R[y - 1, 0]
        R[y, 1] = R[y - 1, 1]
        R[y, 2] = R[y - 1, 2]
    R[x, 0] = end
    R[x, 1] = size
    R[x, 2] = index
    return nr + 1


@njit(cache=True)
def run_remove(R, nr, end, index):  # pragma: no cover - compiled
    """Remove the row of the running job `index` (predicted end `end`); returns the rows."""
    x = _bisect_left(R[:, 0], nr, end, 0)
    while R[x, 2] != index:
        x += 1
    for y in range(x, nr - 1):
        R[y, 0] = R[y + 1, 0]
        R[y, 1] = R[y + 1, 1]
        R[y, 2] = R[y + 1, 2]
    return nr - 1


def grow(a: np.ndarray, need: int) -> np.ndarray:
    """`a` if it holds `need` rows, else a copy with room for at least twice as many."""
    if a.shape[0] >= need:
        return a
    out = np.empty((max(2 * need, 64),) + a.shape[1:], a.dtype)
    out[: a.shape[0]] = a
    return out
