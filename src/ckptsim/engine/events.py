"""Event kinds and their priorities.

Events are ordered by ``(time, priority, sequence)``: at equal times the lower priority number
is applied first, and at equal priorities the event created first.  Nothing depends on chance or
dict order.  After every event of a timestamp has been applied, the policy gets one scheduling
pass (and another one if that pass created more events at the same time, e.g. a zero-length job).

==========  ========================  =====================================================
priority    event                     why in this place
==========  ========================  =====================================================
0           job end                   a finishing job frees its nodes before anything else
1           node failure / repair     a failure at the instant a job ends does not kill it
2           overhead done             checkpoint and migration completions, after failures
                                      (a failure at that instant loses the checkpoint)
3           job submission            arrivals see the nodes freed at the same instant
4           policy timer              wake-ups requested by the policy (e.g. a reservation)
(last)      scheduling pass           once per timestamp, after all of the above
==========  ========================  =====================================================
"""

from __future__ import annotations

PRIO_END = 0
PRIO_FAILURE = 1
PRIO_OVERHEAD = 2
PRIO_SUBMIT = 3
PRIO_TIMER = 4

PRIORITY_TABLE: tuple[tuple[int, str], ...] = (
    (PRIO_END, "job end"),
    (PRIO_FAILURE, "node failure / repair"),
    (PRIO_OVERHEAD, "checkpoint / migration done"),
    (PRIO_SUBMIT, "job submission"),
    (PRIO_TIMER, "policy timer"),
)
