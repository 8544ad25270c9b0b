"""What a run records of its allocations, with `--out`: every attempt of every job (a span during
which it holds a fixed set of nodes) and the machines' down time by reason.

`AllocationRecorder` is a component that watches a run (its hooks and the platform's
`hold_observer`) and fills an `AllocationLog`; the runner attaches it only when asked
(`simulate(..., recorders=[...])`), so a run without `--out` pays nothing, and it adds nothing
to the run's metrics, options or identity.  The writers:

- `allocations.csv`: ``job_id, attempt, start, end, nodes, ended``;
- `unavailability.csv`: ``reason, start, end, nodes`` (written when nodes left service);
- `out_jobs.csv`: Batsim's job output (what evalys's ``JobSet.from_csv`` reads).

Node sets are written in Batsim's interval-set form (``0-3 8 10-11``).
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ckptsim.engine.components import Component
from ckptsim.engine.state import DONE, KILLED, QUEUED, SUSPENDED
from ckptsim.errors import ConfigError
from ckptsim.records.nodesets import mask_of, node_text
from ckptsim.values import number_text

if TYPE_CHECKING:
    from ckptsim.engine.simulator import Simulator
    from ckptsim.engine.state import Job
    from ckptsim.records.jobs import JobTable

ALLOCATION_COLUMNS = ("job_id", "attempt", "start", "end", "nodes", "ended")
UNAVAILABILITY_COLUMNS = ("reason", "start", "end", "nodes")
BATSIM_COLUMNS = ("job_id", "workload_name", "profile", "submission_time",
                  "requested_number_of_resources", "requested_time", "success", "final_state",
                  "starting_time", "execution_time", "finish_time", "waiting_time",
                  "turnaround_time", "stretch", "allocated_resources", "consumed_energy",
                  "metadata")

#: Rows formatted and written at once by the writers of records (allocations.csv,
#: out_jobs.csv): their memory is bounded whatever the run's size.
CHUNK_ROWS = 65536

#: How an attempt ended (allocations.csv's `ended`).
ENDED = {
    "completed": "the job did its work",
    "checkpointed": "a checkpoint completed and the job waits again",
    "suspended": "a checkpoint completed and the job was set aside (resumed later)",
    "migrated": "the job moved to other nodes (a new attempt begins at once)",
    "preempted": "the scheduler stopped the job without a checkpoint; it waits again",
    "failure": "a node failure killed the job",
    "eviction": "the machines were taken back (owner, reboot, maintenance, trace)",
    "killed": "the job reached its estimate (--overrun kill)",
    "bad": "the execution-time bound removed the job (--component bound)",
}
#: A reason given to `kill` / `on_requeue` -> the attempt's `ended`.
_REASONS = {"checkpoint": "checkpointed", "preempt": "preempted"}


num = number_text  # a time as jobs.csv writes it


#: Distinct node sets whose text a recorder keeps to give again (`AllocationRecorder._text`);
#: then it starts afresh, so that it holds at most this many of a large machine's big masks.
TEXTS_KEPT = 4096
TEXTS_BITS = 1 << 14
class AllocationLog:
    """The attempts and the down time of one run, in the order they ended: `rows` holds
    ``(job_id, attempt, start, end, nodes, ended)`` per attempt, nodes in the interval-set
    form (``0-3 8``; `masks` gives them as int bitmasks), and `down` ``(reason, start, end,
    nodes)`` per span of down time (nodes as an int bitmask).  Rows given nodes as an int
    bitmask are read too."""

    def __init__(self) -> None:
        self.rows: list[tuple[int, int, float, float, str | int, str]] = []
        self.down: list[tuple[str, float, float, int]] = []  # reason, start, end, nodes
        self._texts: list[str] | None = None

    def column(self, k: int) -> list[Any]:
        """The k-th field of every row (0 job_id, 1 attempt, 2 start, 3 end, 4 nodes,
        5 ended)."""
        return [row[k] for row in self.rows]

    @property
    def job_ids(self) -> list[int]:
        return self.column(0)

    @property
    def attempts(self) -> list[int]:
        return self.column(1)

    @property
    def starts(self) -> list[float]:
        return self.column(2)

    @property
    def ends(self) -> list[float]:
        return self.column(3)

    @property
    def masks(self) -> list[int]:
        """Each attempt's nodes as an int bitmask."""
        return [mask_of(n) if type(n) is str else n for n in self.column(4)]

    @property
    def ended(self) -> list[str]:
        return self.column(5)

    def order(self) -> list[int]:
        """The rows' indices by start, then job, then attempt (allocations.csv's order)."""
        import numpy as np

        rows, n = self.rows, len(self.rows)
        return np.lexsort((np.fromiter((r[1] for r in rows), np.int64, n),
                           np.fromiter((r[0] for r in rows), np.int64, n),
                           np.fromiter((r[2] for r in rows), np.float64, n))).tolist()

    def node_texts(self) -> list[str]:
        """Each attempt's nodes in the interval-set form (as recorded; a row given an int
        bitmask is written out once per distinct node set)."""
        if self._texts is None or len(self._texts) != len(self.rows):
            cache: dict[int, str] = {}
            texts = []
            add = texts.append
            for row in self.rows:
                text = row[4]
                if type(text) is not str:
                    mask = text
                    text = cache.get(mask)
                    if text is None:
                        text = cache[mask] = node_text(mask)
                add(text)
            self._texts = texts
        return self._texts


class AllocationRecorder(Component):
    """Records every attempt of every job and every span of down time into `log`."""

    name = "allocations"

    def __init__(self, log: AllocationLog | None = None) -> None:
        super().__init__()
        self.log = log if log is not None else AllocationLog()
        # job index -> (start, nodes, attempt) of its open attempt
        self.open: dict[int, tuple[float, int, int]] = {}
        self.count: dict[int, int] = {}  # job index -> attempts closed, for jobs that wait again
        self.last: dict[int, int] = {}  # job index -> its last closed row (to name `ended`)
        self.down_open: dict[str, dict[int, float]] = {}  # reason -> node -> since when
        # The attempts' node sets are kept as text, one object per distinct set (`_text`: a
        # node set of a large machine is an int of kilobytes, the text of one interval a few
        # bytes; a year of a desktop pool records a million rows of a few thousand distinct
        # sets); the down time's as ints, one object per distinct set.
        self.texts: dict[int, str] = {}
        self.same: dict[int, int] = {}

    def attach(self, sim: Simulator) -> None:
        if self.log.rows or self.log.down:  # a second run would add to the first's rows
            raise ConfigError("recorders", f"this AllocationLog holds a run already "
                                           f"({len(self.log.rows):,} attempts): a log records "
                                           "one run; give each run a new AllocationLog()")
        super().attach(sim)
        platform = sim.platform
        for reason, mask in platform.holds().items():  # held before the recorder came
            self._held(reason, mask, True)
        platform.hold_observer = self._held

    # --- attempts -----------------------------------------------------------------------
    def _close(self, job: Job, ended: str) -> None:
        index = job.index
        start, mask, attempt = self.open.pop(index)
        rows = self.log.rows
        self.last[index] = len(rows)
        self.count[index] = attempt
        rows.append((job.id, attempt, start, self.sim.now,  # type: ignore[union-attr]
                     self._text(mask), ended))

    def _text(self, mask: int) -> str:
        """A node set in the interval-set form, once per distinct set among the last
        `TEXTS_KEPT` (the same text object for all its rows); a set reaching beyond node
        `TEXTS_BITS` is written out each time (hashing its kilobytes costs about as much)."""
        if mask.bit_length() > TEXTS_BITS:
            return node_text(mask)
        texts = self.texts
        text = texts.get(mask)
        if text is None:
            if len(texts) >= TEXTS_KEPT:
                texts.clear()
            text = texts[mask] = node_text(mask)
        return text

    def _open(self, job: Job) -> None:
        index = job.index
        self.open[index] = (self.sim.now, job.mask,  # type: ignore[union-attr]
                            self.count.get(index, 0) + 1)

    def on_start(self, job: Job) -> None:
        index = job.index
        now = self.sim.now  # type: ignore[union-attr]
        held = self.open.get(index)
        if held is not None:
            if held[0] == now and held[1] == job.mask:
                return  # a move's new nodes, already opened when the old ones went back
            self._close(job, "migrated")  # a move that holds its source: both sets now
        self.open[index] = (now, job.mask, self.count.get(index, 0) + 1)

    def on_release(self, job: Job) -> None:
        state = job.state
        if state is DONE and not job.mask:  # the common case, inlined
            held = self.open.pop(job.index, None)
            if held is not None:
                status = job.status
                self.log.rows.append((job.id, held[2], held[0], self.sim.now,  # type: ignore[union-attr]
                                      self._text(held[1]), _REASONS.get(status, status)))
            return
        if job.index not in self.open:
            return
        if job.mask:  # a move gave back its old nodes and runs on its new ones
            self._close(job, "migrated")
            self._open(job)
        elif state is DONE or state is KILLED:
            self._close(job, _REASONS.get(job.status, job.status))
        elif state is SUSPENDED:
            self._close(job, "suspended")
        elif state is QUEUED:
            self._close(job, "requeued")  # named by on_requeue, which follows
        else:
            self._close(job, state.name.lower())

    def on_requeue(self, job: Job, reason: str) -> None:
        k = self.last.get(job.index)
        rows = self.log.rows
        if k is not None and rows[k][5] == "requeued":
            rows[k] = (*rows[k][:5], _REASONS.get(reason, reason))

    # --- down time ----------------------------------------------------------------------
    def _held(self, reason: str, mask: int, held: bool) -> None:
        """Nodes taken (`held`) or given back by `reason`: each node's down time opens and
        closes on its own (a node already held stays open from its first hold); the nodes
        given back at once that went down at one time make one row."""
        now = self.sim.now  # type: ignore[union-attr]
        since = self.down_open.setdefault(reason, {})
        bits = mask
        if held:
            while bits:
                low = bits & -bits
                node = low.bit_length() - 1
                if node not in since:
                    since[node] = now
                bits ^= low
            return
        back: dict[float, int] = {}
        while bits:
            low = bits & -bits
            start = since.pop(low.bit_length() - 1, None)
            if start is not None:
                back[start] = back.get(start, 0) | low
            bits ^= low
        same = self.same
        for start in sorted(back):
            mask = back[start]
            self.log.down.append((reason, start, now, same.setdefault(mask, mask)))

    def at_end(self, now: float) -> None:
        sim = self.sim
        for index in list(self.open):  # nothing holds nodes after a run; kept for safety
            job = sim.jobs[index] if sim is not None else None  # type: ignore[union-attr]
            if job is not None:
                self._close(job, "running")
        # A hold still in place ends with the run, at its last job's end: the clock may
        # have gone on to an event due later that changed nothing (an owner's logout, which is
        # not applied after the run's end), and that instant is no end of the hold.
        ends = [j.end for j in sim.jobs if j.end is not None] if sim is not None else []
        end = max(ends, default=now)
        for reason, since in self.down_open.items():
            open_at: dict[float, int] = {}
            for node, start in since.items():
                open_at[start] = open_at.get(start, 0) | (1 << node)
            for start in sorted(open_at):
                self.log.down.append((reason, start, max(end, start), open_at[start]))
        self.down_open = {}
        if sim is not None:
            sim.platform.hold_observer = None
        # The bookkeeping of the run is of no use after it: a recorder the caller made is kept
        # after the run (`simulate` keeps what such objects hold), and with it these tables,
        # one entry per job stopped once (tens of MB for a year of the pool), until the
        # outputs are written.
        self.open, self.count, self.last, self.texts, self.same = {}, {}, {}, {}, {}


# --- writers ----------------------------------------------------------------------------
def write_allocations(log: AllocationLog, path: Path) -> None:
    """allocations.csv: one row per attempt, by start time (then job, then attempt)."""
    rows = log.rows
    order = log.order()
    texts = log.node_texts()
    # No field holds a comma or a quote: the lines are what a csv writer gives.
    with open(path, "w", newline="") as f:
        f.write(",".join(ALLOCATION_COLUMNS) + "\n")
        for part in range(0, len(order), CHUNK_ROWS):  # in parts: a bounded memory
            lines = []
            add = lines.append
            for i in order[part:part + CHUNK_ROWS]:
                job_id, attempt, start, end, _, ended = rows[i]
                add(f"{job_id},{attempt},{num(start)},{num(end)},{texts[i]},{ended}\n")
            f.write("".join(lines))


def write_unavailability(log: AllocationLog, path: Path) -> bool:
    """unavailability.csv: one row per span of down time (reason, start, end, nodes); written
    only when nodes left service (else a file left at `path` by an earlier run is removed: it
    would read as this run's down time).  Returns whether it was written."""
    if not log.down:
        path.unlink(missing_ok=True)
        return False
    rows = sorted(log.down, key=lambda r: (r[1], r[0], r[2], r[3]))
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(UNAVAILABILITY_COLUMNS)
        w.writerows((reason, num(start), num(end), node_text(mask))
                    for reason, start, end, mask in rows)
    return True


def write_records(log: AllocationLog, table: JobTable, out: Path, per: str = "job",
                  workload: Any = None) -> list[str]:
    """Write allocations.csv, out_jobs.csv (a row `per` job or attempt, see
    `ckptsim.records.batsim_jobs`; from the `workload`: its SWF requested times, so that a
    job without one has Batsim's walltime -1, and a Batsim file's ids as written) and (when
    nodes left service) unavailability.csv into `out`; returns the names written."""
    from ckptsim.records.batsim_jobs import write_batsim_jobs, written_ids
    from ckptsim.workload.model import SWF_INDEX

    write_allocations(log, out / "allocations.csv")
    requested = ids = None
    if workload is not None:
        requested = workload.fields[:, SWF_INDEX["requested_time"]]
        ids = written_ids(workload)
    write_batsim_jobs(table, log, out / "out_jobs.csv", per=per, requested=requested,
                      ids=ids)
    names = ["allocations.csv", "out_jobs.csv"]
    if write_unavailability(log, out / "unavailability.csv"):
        names.append("unavailability.csv")
    return names
