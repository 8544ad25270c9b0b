"""Parameters of `coalloc` (seed 001's multi-cluster meta-scheduler and its CTMR agent).

The last nine are readings of the seed that drive its results, each a documented option
whose default is the reading the scheduler has always used (docs/grid.md, "Model options"):
`admit_cut` (the mesh cut Module 1 admits with), `ctmr_waiting` (what "a waiting job could
immediately make use of the freed resources" checks), `ctmr_steps` (one checkpoint at a time
or all at one instant), `cpfrac_cost` (what the CPfrac test weighs: the whole overhead O
or the checkpoint's O/2), `predict` (what EASY plans a restarted job with: its whole
estimate or what remains of it), `overhead_links` (whether a restart's traffic loads the links
during its restart overhead), `phi` (the all-to-all share of a job's traffic), `vacated`
(whether a queue whose reserved job started on other clusters starts the jobs behind it in
the same pass or at the next scheduling event), `ctmr_restoring` (whether the CTMR agent may
checkpoint a job still restoring its image after a restart).  The communication share
kappa is the workload's (`grid:kappa=`).
"""

from __future__ import annotations

import dataclasses

from ckptsim.policies.base import param
from ckptsim.policies.coalloc_place import CUTS

#: Readings of the CTMR agent's waiting-job check (`ctmr_waiting`).
WAITING = ("nodes", "dispatch")
#: Readings of the CTMR agent's iteration (`ctmr_steps`).
STEPS = ("batch", "seed")
#: Readings of the cost the CTMR agent's CPfrac test weighs (`cpfrac_cost`).
CPFRAC_COSTS = ("overhead", "checkpoint")
#: What EASY plans a requeued job's run with (`predict`).
PREDICTS = ("estimate", "remaining")
#: When a queue whose reserved job started on other clusters looks at its next jobs
#: (`vacated`).
VACATED = ("next", "now")
#: The overhead phases in which a co-allocated job's traffic loads the links
#: (`overhead_links`).
OVERHEAD_LINKS = ("restart", "none")
#: Whether a job still in its restart overhead is a CTMR candidate (`ctmr_restoring`).
RESTORING = ("allow", "skip")


@dataclasses.dataclass(frozen=True)
class CoallocParams:
    coalloc: bool = param(True, "co-allocate jobs across clusters using their PPBW estimates "
                                "(false: the seed's 'Migration Only')")
    remote: bool = param(True, "run a waiting job whole on another cluster (the seed's "
                               "'migration')")
    skip_saturated: bool = param(True, "do not co-allocate over a saturated link while it is")
    ctmr: bool = param(False, "the selective checkpoint-terminate-migrate-restart agent")
    overhead: float = param(600.0, "checkpoint + restart overhead O (s), O/2 each", low=0.0,
                            seconds=1.0)
    overhead_known: bool = param(True, "the agent knows O (false: it assumes 30 min)")
    cpfrac: float = param(0.04, "checkpoint a job only if O < cpfrac * its remaining time",
                          low=0.0, high=1.0)
    admit_cut: str = param("worst", "mesh cut Module 1 admits a co-allocation with: worst (the "
                                    "largest cut a block of k ranks can make, wherever it "
                                    "falls) or real (also the split's actual cut, the one "
                                    "the links book)", choices=CUTS, added=True)
    ctmr_waiting: str = param("nodes", "CTMR's waiting-job check: nodes (the smallest waiting "
                                       "job fits the free nodes plus the candidate's on one "
                                       "cluster) or dispatch (a waiting job the scheduler "
                                       "would start there: reservations, priority order, "
                                       "bandwidth of a co-allocation)", choices=WAITING,
                              added=True)
    ctmr_steps: str = param("batch", "CTMR's iteration: batch (checkpoint every candidate at "
                                     "one instant) or seed (one checkpoint, wait for it, "
                                     "reschedule, re-evaluate)", choices=STEPS, added=True)
    cpfrac_cost: str = param("overhead", "the cost CTMR's CPfrac test weighs against cpfrac * "
                                         "the remaining time: overhead (O, checkpoint + "
                                         "restart) or checkpoint (O/2, the seed's 'time "
                                         "required to CP')", choices=CPFRAC_COSTS, added=True)
    predict: str = param("estimate", "what the EASY rules plan a job restarted after a CTMR "
                                     "checkpoint with: estimate (its whole runtime estimate) "
                                     "or remaining (its restart overhead plus the estimate "
                                     "minus the work it kept)", choices=PREDICTS, added=True)
    overhead_links: str = param("restart", "the overheads during which a co-allocated job's "
                                           "traffic loads the links: restart (a restart enters "
                                           "them when it takes its nodes, so during its O/2 of "
                                           "restart overhead; a checkpoint leaves them at once) "
                                           "or none (a restart books its estimate then but "
                                           "enters with its traffic when its overhead ends)",
                                choices=OVERHEAD_LINKS, added=True)
    phi: float = param(0.5, "weight of the all-to-all personalized pattern in a co-allocated "
                            "job's link traffic, the 2-D mesh's being 1 - phi (the seed says "
                            "both, with no weights): in the links' true traffic and in "
                            "Module 1's admission alike", low=0.0, high=1.0, added=True)
    vacated: str = param("next", "when a cluster's reserved job starts on other clusters "
                                 "(remote or co-allocated): next (the jobs behind it are looked "
                                 "at in the next pass, at the next arrival or end) or now (the "
                                 "cluster's local phase and the whole pass run again at once)",
                         choices=VACATED, added=True)
    ctmr_restoring: str = param("allow", "whether CTMR may checkpoint a job still in its O/2 of "
                                         "restart overhead (restoring its image, on the links "
                                         "under overhead_links=restart): allow, or skip (no "
                                         "candidate until its overhead ends; the next job on "
                                         "the link is looked at)", choices=RESTORING,
                                added=True)
