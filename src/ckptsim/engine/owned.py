"""The engine's fields of a job, guarded under `--check`.

A job's fields other than `pred_end` and `tag` (and attributes of a policy's own) are the
engine's: it changes them through its verbs, keeping its events, the platform's nodes and the
records in step.  A plug-in that writes one itself (`job.state = RUNNING`, `job.start = now`,
`job.mask = 0`) leaves them out of step: jobs that never end, wrong start times in the
records, nodes nobody holds.  With the invariant checker on, the simulator makes its jobs
`GuardedJob`s, which refuse such a write where it is made, naming the field, the plug-in's file
and line and the verb to call instead.  Without it nothing is checked: a plain replay pays for
no test on its hottest writes.
"""

from __future__ import annotations

from sys import _getframe

from ckptsim.engine.state import Job
from ckptsim.errors import DecisionError

#: Fields a policy may write for its own bookkeeping.
FREE = frozenset({"pred_end", "tag"})

#: The workload's values, copied into the job when it is made.
WORKLOAD = frozenset({"index", "id", "submit", "runtime", "estimate", "size", "work_target"})

#: The engine's fields: the slots and the class-level defaults of the rarely written ones.
OWNED = frozenset(
    {name for name in Job.__slots__ if name != "__dict__"}
    | {name for name, value in vars(Job).items()
       if not name.startswith("_") and not callable(value) and not isinstance(value, property)
       and name not in Job.__slots__}
) - FREE

_STOP = "sim.kill(job, reason, requeue=False) to end it early (the engine ends it when its " \
        "work is done)"
_SAVE = "sim.checkpoint(job, duration) to save its progress, or, from a component, " \
        "sim.save_progress(job, work)"
_MOVE = "sim.start(job, mask=...) to choose its nodes, sim.migrate([(job, new_mask)]) to move it"

#: The verb to call instead of writing a field, by field.
VERBS: dict[str, str] = {
    "state": "sim.start(job) to start it; sim.kill, sim.checkpoint or sim.evict to stop it",
    "start": "sim.start(job), which records the start", "backfilled": "sim.start(job, "
    "backfilled=True)", "end": _STOP, "status": _STOP, "mask": _MOVE, "new_mask": _MOVE,
    "rate": "sim.set_rate(job, rate)", "work_done": _SAVE, "anchor": _SAVE,
    "work_saved": _SAVE, "pending_save": _SAVE, "overhead": "sim.start(job, overhead=...), "
    "sim.checkpoint(job, duration) or sim.delay(job, seconds)",
}


def instead(field: str) -> str:
    """What a plug-in does instead of writing `field` of a job."""
    if field in WORKLOAD:
        return ("it is the workload's: change the workload before the run (ckptsim.workload's "
                "transforms), or keep a value of the policy's own in job.tag")
    return "call " + VERBS.get(field, "the engine's verbs (sim.start, sim.checkpoint, "
                                      "sim.kill, sim.migrate, sim.set_rate)")


#: The ids of the globals of ckptsim's modules seen writing a job (one set test per write).
_OWN: set[int] = set()


class GuardedJob(Job):
    """A job whose engine fields only ckptsim's own code writes (the checker's jobs)."""

    __slots__ = ()

    def __setattr__(self, name: str, value: object) -> None:
        if name in OWNED:
            caller = _getframe(1)
            if id(caller.f_globals) not in _OWN:
                module = caller.f_globals.get("__name__", "")
                if module != "ckptsim" and not module.startswith("ckptsim."):
                    raise outside_write(self, name, caller.f_code.co_filename,
                                        caller.f_lineno, caller.f_code.co_qualname)
                _OWN.add(id(caller.f_globals))
        object.__setattr__(self, name, value)


def outside_write(job: Job, field: str, file: str, line: int, where: str) -> DecisionError:
    """The error of a job's engine field written outside ckptsim (by a plug-in)."""
    return DecisionError(
        job.id, f"job.{field} written by {where} ({file}, line {line}): the engine owns "
                f"this field and keeps its events, nodes and records in step with it; "
                f"{instead(field)} (only job.pred_end, job.tag and attributes of the "
                f"policy's own are free to write; docs/plugins.md)")
