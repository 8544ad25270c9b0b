"""How many of a desktop-pool run's owner changes a batch could take: those nothing else sees at
their instant.

    python benchmarks/count_owner_changes.py [--days 365] [--seed 1]

Runs seed 003's set-up (the year command of docs/performance.md, *Simulating a year of the
pool*: htc, owners, reboots, HTC energy, the power manager, the 24 h bound, C(60)) and counts
every owner change (a machine leaving or rejoining service, `Interruptions._apply_one`) and,
among them, the quiet ones: no job on the machine, no job waiting, none suspended.  Any other
change can start, suspend or resume a job at that instant, so only the quiet ones could be
applied in one compiled call between the events the scheduler sees; their share bounds what
batching them can save (docs/performance.md).  The run itself is unchanged (the count wraps
the method), its outputs are not written.
"""

from __future__ import annotations

import argparse
from typing import Any

from bench_pool import seed003_arguments  # beside this script

from ckptsim.cli import main as ckptsim_main
from ckptsim.components import interruptions


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--days", type=int, default=365)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    counts = {"changes": 0, "quiet": 0}
    apply_one = interruptions.Interruptions._apply_one

    def counted(self: Any, now: float, reason: str, m: int, d: int) -> None:
        sim = self.sim
        platform = sim.platform
        counts["changes"] += 1
        if not (self.masks[m] & ~(platform.free_mask | platform.down_idle)) \
                and not sim.policy.queue and not self.suspended:
            counts["quiet"] += 1
        apply_one(self, now, reason, m, d)

    interruptions.Interruptions._apply_one = counted  # type: ignore[method-assign]
    try:
        ckptsim_main(seed003_arguments(a.days, a.seed))
    finally:
        interruptions.Interruptions._apply_one = apply_one  # type: ignore[method-assign]
    n, quiet = counts["changes"], counts["quiet"]
    print(f"{n:,} owner changes over {a.days} days (seed {a.seed}); quiet: {quiet:,} "
          f"({quiet / max(n, 1):.1%})")


if __name__ == "__main__":
    main()
