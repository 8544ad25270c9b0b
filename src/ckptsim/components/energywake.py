"""What the energy meter charges a job for the seconds it waits for its machines to wake up
(``energy:wake_charge``).

A job placed on a sleeping machine (or one going to sleep, or waking) holds its cores while
the machine wakes and waits that out as overhead (`EnergyMeter.on_start`).  The meter counts
those seconds as the machine's ``to_sleep`` / ``waking`` states.  What the job is charged for
them, in its ``energy`` (jobs.csv) and in ``energy_jobs_j``:

- ``active`` (the default): its share of the machine's active power, as for any second it
  holds the machine (so the jobs' energies can exceed ``energy_active_j``);
- ``waking``: its share of what the machine draws meanwhile (the rest of a sleep transition,
  then the wake-up: the transitions' energy spread over their time), seed 003's rule that an
  operation costs "the energy consumption of the resource during" it;
- ``none``: nothing.

Each woken node of the job gets windows ``(start, end, dw, bit)``: over [start, end) the
job's charge differs from the active share by dw watts; `correction` applies them to a
stretch of time the job held its nodes.
"""

from __future__ import annotations

from typing import Any

from ckptsim.platform.power import STATES

WAKING, TO_SLEEP = STATES.index("waking"), STATES.index("to_sleep")  # as in `machines`

WAKE_CHARGES = ("active", "waking", "none")

Window = tuple[float, float, float, int]


def windows(meter: Any, charge: str, m: int, s: int, until: float, node: int, now: float,
            ready: float) -> list[Window]:
    """The windows of `node` (of machine m, in state s with its transition ending at `until`
    before the job woke it) for a job that waits until `ready`."""
    bit = 1 << node
    share = meter.node_watts[node]
    if charge == "none":
        return [(now, ready, -share, bit)]
    cores = meter.masks[m].bit_count()
    out = []
    t = now
    if s == TO_SLEEP and until > now:
        end = min(until, ready)
        out.append((t, end, meter.watts[TO_SLEEP][m] / cores - share, bit))
        t = end
    if ready > t:
        out.append((t, ready, meter.watts[WAKING][m] / cores - share, bit))
    return out


def correction(held: dict[int, list[Window]], idx: int, held_mask: int, since: float,
               now: float, still: int) -> float:
    """Joules to add to job idx's energy for [since, now), during which it held `held_mask`;
    the windows that end by now, or whose node it no longer holds (`still`), are dropped."""
    wins = held[idx]
    extra = 0.0
    for a, b, dw, bit in wins:
        if bit & held_mask:
            lo = a if a > since else since
            hi = b if b < now else now
            if hi > lo:
                extra += dw * (hi - lo)
    kept = [w for w in wins if w[1] > now and w[3] & still]
    if kept:
        held[idx] = kept
    else:
        del held[idx]
    return extra
