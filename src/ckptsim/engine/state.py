"""The job state machine shared by every system.

::

    PENDING --submit--> QUEUED --start--> RUNNING --end--> DONE
                          ^                 |  |  |
                          |   (requeue)     |  |  +--kill(requeue=False) / limit--> KILLED
                          +-----------------+  |
                          |  kill / preempt    +--checkpoint--> CHECKPOINTING
                          |                    |                   |  then=requeue  -> QUEUED
                          |                    |                   |  then=suspend  -> SUSPENDED
                          |                    |                   |  then=continue -> RUNNING
                          |                    +--migrate--> MIGRATING --done--> RUNNING
    SUSPENDED --start/resume--> RUNNING

A job carries its useful progress `work_done` (seconds of work at rate 1), the progress saved
by its last completed checkpoint `work_saved`, and a progress `rate` (1.0 normally, lower when
a shared resource is oversubscribed, 0 when frozen).  While RUNNING, progress accrues from
`anchor` on: at time t >= anchor the job has done `work_done + rate * (t - anchor)`.  A restart
overhead simply moves `anchor` past the segment start, so the nodes are held but no useful
work is done.  A kill rolls `work_done` back to `work_saved`; the difference is lost work.
"""

from __future__ import annotations

from enum import IntEnum

from ckptsim.errors import InvariantError


class JobState(IntEnum):
    PENDING = 0  # not yet submitted
    QUEUED = 1  # waiting in the scheduler's queue
    RUNNING = 2  # holds nodes; progressing (after any restart overhead)
    CHECKPOINTING = 3  # holds nodes; writing a checkpoint, no progress
    SUSPENDED = 4  # checkpointed and set aside by the policy; holds no nodes
    MIGRATING = 5  # holds its old and new nodes while it moves; no progress
    DONE = 6  # finished all its work
    KILLED = 7  # terminated for good (run-time limit, or a kill without requeue)


#: Allowed transitions: state -> states reachable from it by one engine verb or event.
TRANSITIONS: dict[JobState, frozenset[JobState]] = {
    JobState.PENDING: frozenset({JobState.QUEUED}),
    JobState.QUEUED: frozenset({JobState.RUNNING}),
    JobState.RUNNING: frozenset(
        {JobState.DONE, JobState.KILLED, JobState.QUEUED, JobState.CHECKPOINTING,
         JobState.MIGRATING}
    ),
    JobState.CHECKPOINTING: frozenset(
        {JobState.QUEUED, JobState.SUSPENDED, JobState.RUNNING, JobState.KILLED}
    ),
    JobState.SUSPENDED: frozenset({JobState.RUNNING}),
    JobState.MIGRATING: frozenset({JobState.RUNNING, JobState.QUEUED, JobState.KILLED}),
    JobState.DONE: frozenset(),
    JobState.KILLED: frozenset(),
}

#: `ALLOWED[state]`: the states reachable from `state` (TRANSITIONS as a list, for speed).
ALLOWED: list[frozenset[JobState]] = [TRANSITIONS[s] for s in sorted(TRANSITIONS)]


def _entries(target: JobState) -> tuple[bool, ...]:
    """`_entries(t)[s]`: whether TRANSITIONS allows s -> t (a tuple test is the cheapest)."""
    return tuple(target in ALLOWED[s] for s in range(len(ALLOWED)))


#: The transitions of the hottest paths, from TRANSITIONS: `TO_RUNNING[state]` is True when
#: `state -> RUNNING` is allowed (submission, start, end).
TO_QUEUED = _entries(JobState.QUEUED)
TO_RUNNING = _entries(JobState.RUNNING)
TO_DONE = _entries(JobState.DONE)
TO_KILLED = _entries(JobState.KILLED)


def move(job: Job, new: JobState) -> None:
    """Change a job's state, refusing a transition `TRANSITIONS` does not list.

    The one place the engine changes a job's state (its hottest paths -- submission, start,
    end -- inline the same test, on `TO_QUEUED`, `TO_RUNNING`, `TO_DONE`, `TO_KILLED`).  A
    refused transition is an engine bug, not a policy's mistake: the verbs refuse bad requests
    before getting here.
    """
    if new not in ALLOWED[job.state]:
        bad_transition(job, new)
    job.state = new


def bad_transition(job: Job, new: JobState) -> None:
    raise InvariantError(f"job {job.id}: {job.state.name} -> {new.name} is not a transition "
                         "of the job state machine")


#: States in which a job holds nodes.
HOLDS_NODES = frozenset({JobState.RUNNING, JobState.CHECKPOINTING, JobState.MIGRATING})
#: States in which a job waits for the scheduler (counted in wait time and queue length).
WAITING = frozenset({JobState.QUEUED, JobState.SUSPENDED})
TERMINAL = frozenset({JobState.DONE, JobState.KILLED})

# Module-level aliases: IntEnum attribute lookups are slow on the hot path.
PENDING = JobState.PENDING
QUEUED = JobState.QUEUED
RUNNING = JobState.RUNNING
CHECKPOINTING = JobState.CHECKPOINTING
SUSPENDED = JobState.SUSPENDED
MIGRATING = JobState.MIGRATING
DONE = JobState.DONE
KILLED = JobState.KILLED


#: Per-job values a job keeps unless the engine restarts, checkpoints, kills, migrates or slows
#: it down (see `Simulator.marked`): the defaults of `Job`'s rarely written fields.
RARE_DEFAULTS: dict[str, float | int] = {
    "overhead": 0.0, "lost_work": 0.0, "n_checkpoints": 0, "n_preemptions": 0, "n_kills": 0,
    "n_restarts": 0, "n_migrations": 0,
}


class Job:
    """One job's simulation state. Created by the engine from a workload row.

    The engine is the only code that changes the fields below `state`; policies read them and
    may use `pred_end` and `tag` for their own bookkeeping.

    Fields every job uses live in slots.  Fields that only preempted, checkpointed or migrated
    jobs touch (the counters, `work_saved`, `overhead`, ...) default to class attributes and
    land in a per-instance dict on first write, so a plain replay of hundreds of thousands of
    jobs neither initialises nor stores them.
    """

    __slots__ = (
        "index", "id", "submit", "runtime", "estimate", "size", "work_target",
        "state", "mask", "start", "end", "status", "work_done", "rate", "anchor",
        "seg_start", "seg_end", "queued_since", "wait", "backfilled", "version",
        "pred_end", "tag", "__dict__",
    )

    # Defaults of the rarely written fields (see the class docstring).
    new_mask = 0  # destination nodes while MIGRATING and still holding its source nodes
    work_saved = 0.0  # progress at the last completed checkpoint
    pending_save = 0.0  # progress captured by a checkpoint in flight
    overhead = 0.0  # seconds of checkpoint / restart / migration overhead
    lost_work = 0.0  # seconds of useful work lost to kills
    n_checkpoints = 0
    n_preemptions = 0
    n_kills = 0
    n_restarts = 0
    n_migrations = 0
    rate_changed = False
    then = ""  # what follows the checkpoint in flight
    # An overhead given as an amount of work progressing at the job's rate (restart,
    # checkpoint or migration): `ovh_left` is what remained at time `ovh_mark`, the phase
    # began at `ovh_start`, and `anchor` is its projected end (inf while the rate is 0).
    ovh_rated = False
    ovh_left = 0.0
    ovh_mark = 0.0
    ovh_start = 0.0
    past_segments: list[tuple[float, float]] | None = None  # closed before the last one

    def __init__(self, index: int, job_id: int, submit: float, runtime: float,
                 estimate: float, size: int, work_target: float) -> None:
        self.index = index
        self.id = job_id
        self.submit = submit
        self.runtime = runtime
        self.estimate = estimate
        self.size = size
        # Useful work after which the job ends: its runtime, or its estimate when the
        # run-time limit is enforced (overrun=kill) and the job would run past it.
        self.work_target = work_target
        self.state = PENDING
        self.mask = 0  # bitmask of the nodes held
        self.start: float | None = None  # first start
        self.end: float | None = None
        self.status = ""
        # Useful work done at `anchor` (not updated while the job runs: `progress(now)`).
        self.work_done = 0.0
        self.rate = 1.0
        self.anchor = 0.0
        # The node-holding interval in progress or last closed: [seg_start, seg_end), with
        # seg_end None while the job holds nodes (or never did); earlier ones in
        # `past_segments`.  See `segments`.
        self.seg_start = 0.0
        self.seg_end: float | None = None
        self.queued_since = submit
        self.wait = 0.0
        self.backfilled = False
        self.version = 0  # bumped to invalidate a scheduled end / overhead event
        self.pred_end = 0.0  # the policy's predicted end time
        self.tag: object = None  # free for the policy

    @property
    def segments(self) -> list[tuple[float, float]]:
        """The closed node-holding intervals (start, end), in time order."""
        out = list(self.past_segments or ())
        if self.seg_end is not None:
            out.append((self.seg_start, self.seg_end))
        return out

    def progress(self, now: float) -> float:
        """Useful work done by time `now` (valid in any state)."""
        if self.state == RUNNING and now > self.anchor:
            return self.work_done + self.rate * (now - self.anchor)
        return self.work_done

    def __repr__(self) -> str:
        return (f"Job(id={self.id}, state={self.state.name}, size={self.size}, "
                f"submit={self.submit:g}, runtime={self.runtime:g})")
