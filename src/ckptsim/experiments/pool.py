"""The local process pool of a sweep.

Each worker process has a pipe to the sweep: it receives runs, executes them, writes their
per-job files (the store is on its disk) and sends back each row; the sweep records the rows
(one writer, `StoreWriter`).  Two runs are queued per worker, so a worker never waits for the
next one; once fewer runs are left than two per worker, one, so that workers finish together.
Which run goes next is `Dispatch`'s choice: the run expected to take longest, learned from
the runs finished so far, so that the sweep ends on its shortest runs.

Workers die with the sweep: on Linux the kernel kills a worker whose parent process dies
(`PR_SET_PDEATHSIG`; the parent is the fork server, which exits as soon as the sweep does),
and everywhere a thread of the worker waits on a pipe that only the sweep holds open and ends
the worker when it closes.  A worker that dies (killed, out of memory) fails the runs it had
and is replaced, so the sweep goes on.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any

from ckptsim.experiments.dispatch import Dispatch
from ckptsim.experiments.execute import ExecStats, OnRow, crashed_row, execute_run, load_key
from ckptsim.experiments.matrix import Run
from ckptsim.experiments.writer import StoreWriter, write_jobs_file

#: Runs sent to a worker ahead of its results (one near the end of the sweep).
QUEUE_PER_WORKER = 2

DIED = ("the worker process running this run died (killed or out of memory); runs queued "
        "on it are failed too")


def die_with_parent(lifeline: Connection) -> None:
    """Make this process end when the sweep does (see the module docstring)."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(Exception):
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)  # PR_SET_PDEATHSIG
    # The pipe's writing end is held by the sweep alone: reading it returns only when the
    # sweep is gone (before prctl above, too).

    def watch() -> None:
        with contextlib.suppress(BaseException):
            lifeline.recv_bytes()
        os._exit(1)

    threading.Thread(target=watch, daemon=True, name="ckptsim-lifeline").start()


@contextlib.contextmanager
def sigint_held() -> Any:
    """Hold a Ctrl-C until the block is done, then raise it: a worker's start interrupted
    half way left a child without the data it reads first (it printed "EOFError: Ran out of
    input") and a process the caller did not know of yet. (Python's handler, not a signal
    mask: the signal may reach another thread of this process.)"""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    old = signal.signal(signal.SIGINT, lambda signum, frame: caught.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)
    if caught:
        if callable(old):
            old(signal.SIGINT, None)  # Python's own handler raises KeyboardInterrupt
        elif old == signal.SIG_DFL:
            raise KeyboardInterrupt


def worker_main(conn: Connection, lifeline: Connection, jobs_dir: str) -> None:
    """A worker: run what arrives until told to stop, then report the CPU it used."""
    die_with_parent(lifeline)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the sweep decides what stops
    try:
        serve(conn, jobs_dir)
    except (BrokenPipeError, ConnectionResetError, EOFError):
        # The sweep is gone or stopped (killed, a full disk): nobody to report to, and
        # nothing to say on its terminal.
        os._exit(1)


def serve(conn: Connection, jobs_dir: str) -> None:
    """Receive runs, execute them and send back their rows until told to stop."""
    conn.send(("ready",))
    while True:
        try:
            run = conn.recv()
        except EOFError:
            return
        if run is None:
            break
        outcome = execute_run(run)
        ref = None
        if outcome.jobs is not None:
            try:
                ref = write_jobs_file(Path(jobs_dir), run.run_id, outcome.jobs)
            except OSError as exc:
                outcome.row.update(crashed_row(run, f"writing its per-job records failed: "
                                                    f"{exc}"))
        conn.send(("done", run.run_id, outcome.row, ref, outcome.cpu))
    t = os.times()
    conn.send(("bye", t.user + t.system))


#: What the pool's fork server imports before it forks workers (`nointr` first).
PRELOAD = ["ckptsim.experiments.nointr", "ckptsim.experiments.preload"]


def context() -> Any:
    # forkserver: workers fork from a clean process that has ckptsim imported (fast starts,
    # no locks inherited from the parent's threads); spawn where there is no fork.
    if "forkserver" in multiprocessing.get_all_start_methods():
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(PRELOAD)
        return ctx
    return multiprocessing.get_context("spawn")


def start_forkserver(preload: Sequence[str]) -> None:
    """Start multiprocessing's fork server with `preload` (`nointr` first) and return at once:
    the server imports in its own process.

    The server starts with SIGINT blocked, as Python starts its resource tracker: a Ctrl-C
    while it starts Python and imports stays pending until `nointr` ignores SIGINT and
    unblocks it, and is then dropped. Without this, a Ctrl-C in a sweep's first half second
    printed the server's KeyboardInterrupt traceback. This process blocks SIGINT only while
    it spawns the server; a Ctrl-C meanwhile reaches it as soon as that is done."""
    from multiprocessing import forkserver, resource_tracker

    multiprocessing.get_context("forkserver").set_forkserver_preload(list(preload))
    # The resource tracker first: starting it unblocks SIGINT (the server would then start
    # with it unblocked); started, `ensure_running` below leaves it alone.
    resource_tracker.ensure_running()
    mask = getattr(signal, "pthread_sigmask", None)
    old = mask(signal.SIG_BLOCK, {signal.SIGINT}) if mask else None
    try:
        forkserver.ensure_running()
    finally:
        if mask:
            mask(signal.SIG_SETMASK, old)


def map_processes(func: Callable[[Any], Any], items: Sequence[Any],
                  workers: int | None = None) -> list[Any]:
    """`[func(x) for x in items]` on `workers` processes (all cores by default), for work
    outside a store (a figure's runs that keep no records); an exception of `func` is raised
    here. The processes fork from the fork server, so they ignore SIGINT, and talk through
    pipes only: a Ctrl-C reaches this process alone, which terminates them and raises
    KeyboardInterrupt (the command says it stopped, in one line). A ProcessPoolExecutor's
    or a multiprocessing.Pool's workers printed tracebacks when stopped while they started
    (their queues' semaphores were gone), and the executor's shutdown could hang."""
    ctx = context()
    if ctx.get_start_method() == "forkserver":
        start_forkserver(PRELOAD)
    todo = deque(enumerate(items))
    results: list[Any] = [None] * len(todo)
    procs, busy = [], {}
    try:
        for _ in range(min(workers or os.cpu_count() or 1, len(todo))):
            here, there = ctx.Pipe()
            proc = ctx.Process(target=_map_worker, args=(there, func), daemon=True)
            with sigint_held():
                proc.start()
                procs.append(proc)
            there.close()
            busy[here] = todo.popleft()
            here.send(busy[here])
        while busy:
            for conn in wait(list(busy)):
                k, failed, value = conn.recv()
                if failed:
                    raise value
                results[k] = value
                del busy[conn]  # type: ignore[arg-type]
                if todo:
                    busy[conn] = todo.popleft()  # type: ignore[index]
                    conn.send(busy[conn])  # type: ignore[index, union-attr]
                else:
                    conn.send(None)  # type: ignore[union-attr]
    except BaseException:
        for proc in procs:
            proc.terminate()
        raise
    finally:
        for proc in procs:
            proc.join(timeout=5)
    return results


def _map_worker(conn: Connection, func: Callable[[Any], Any]) -> None:
    """A process of `map_processes`: apply `func` to what arrives until told to stop."""
    while True:
        try:
            task = conn.recv()
        except EOFError:  # the parent is gone
            return
        if task is None:
            return
        k, item = task
        try:
            conn.send((k, False, func(item)))
        except Exception as exc:  # raised in the parent, as `func` raised it
            try:
                conn.send((k, True, exc))
            except Exception:  # not picklable: its text
                conn.send((k, True, RuntimeError(f"{type(exc).__name__}: {exc}")))


@dataclass
class _Worker:
    process: Any
    conn: Connection
    queued: deque[Run] = field(default_factory=deque)
    key: Any = None
    ready: bool = False
    cpu: float | None = None


class PoolExecutor:
    """A local pool of `workers` processes (all cores by default)."""

    def __init__(self, workers: int | None = None) -> None:
        self.workers = max(1, workers or os.cpu_count() or 1)
        self.stats = ExecStats()
        # The fork server starts importing now, while the sweep plans and opens its store
        # (returns at once; the first worker's start waits for it if it is not ready).
        self._ctx = context()
        if self._ctx.get_start_method() == "forkserver":
            start_forkserver(PRELOAD)

    def execute(self, runs: Sequence[Run], writer: StoreWriter, on_row: OnRow) -> None:
        self.stats = ExecStats(worker_cpu=0.0)
        if not runs:
            return
        t0 = time.perf_counter()
        ctx = self._ctx
        life_r, life_w = ctx.Pipe(duplex=False)
        dispatch = Dispatch(runs)
        jobs_dir = str(writer.store.jobs_dir)
        pool: list[_Worker] = []

        def start() -> _Worker:
            ours, theirs = ctx.Pipe()
            p = ctx.Process(target=worker_main, args=(theirs, life_r, jobs_dir), daemon=True,
                            name="ckptsim-worker")
            with sigint_held():
                p.start()
                w = _Worker(p, ours)
                pool.append(w)
            theirs.close()
            return w

        def feed(w: _Worker) -> None:
            # Near the end, one run per worker at a time, so that workers finish together.
            ahead = QUEUE_PER_WORKER if dispatch.left >= QUEUE_PER_WORKER * len(pool) else 1
            while dispatch and len(w.queued) < ahead:
                run = dispatch.next(w.key)
                key = load_key(run)
                dispatch.move(w.key, key)
                w.key = key
                try:
                    w.conn.send(run)
                except OSError:  # the worker is gone; its sentinel says so next
                    w.queued.append(run)
                    return
                w.queued.append(run)

        def deliver(w: _Worker, msg: tuple[Any, ...]) -> None:
            if msg[0] == "ready":
                w.ready = True
                if all(x.ready for x in pool):
                    self.stats.startup_seconds = self.stats.startup_seconds or (
                        time.perf_counter() - t0)
            elif msg[0] == "done":
                _, run_id, row, ref, cpu = msg
                run = w.queued.popleft()
                assert run.run_id == run_id, "worker answered out of order"
                dispatch.done(run, row.get("run_seconds"))
                if ref is not None:
                    writer.written_jobs(run_id)
                writer.record(row, ref)
                self.stats.runs += 1
                self.stats.run_cpu += cpu
                on_row(row)
            elif msg[0] == "bye":
                w.cpu = msg[1]

        def bury(w: _Worker) -> None:
            pool.remove(w)
            dispatch.move(w.key, None)
            with contextlib.suppress(Exception):
                w.conn.close()
            w.process.join(timeout=5)
            for run in w.queued:
                row = crashed_row(run, DIED)
                writer.record(row)
                on_row(row)

        try:
            for _ in range(min(self.workers, len(runs))):
                feed(start())
            while any(w.queued for w in pool):
                ready = wait([w.conn for w in pool] + [w.process.sentinel for w in pool])
                for w in list(pool):
                    dead = w.process.sentinel in ready
                    if w.conn in ready or dead:
                        messages = []
                        try:
                            while w.conn.poll():
                                messages.append(w.conn.recv())
                        except Exception:  # closed, or a message that does not unpickle
                            dead = True
                        # Outside the try: an error of the store (a full disk) stops the
                        # sweep, it does not mean that the worker died.
                        for msg in messages:
                            deliver(w, msg)
                    if dead:
                        bury(w)
                        if dispatch:
                            feed(start())
                    else:
                        feed(w)
            self._finish(pool, deliver)
        except BaseException:
            for w in pool:
                with contextlib.suppress(Exception):
                    w.process.terminate()
            for w in pool:
                w.process.join(timeout=5)
            raise
        finally:
            life_w.close()
            life_r.close()

    def _finish(self, pool: list[_Worker], deliver: Any) -> None:
        """Stop the workers and collect the CPU time they report."""
        for w in pool:
            with contextlib.suppress(OSError):
                w.conn.send(None)
        for w in pool:
            with contextlib.suppress(EOFError, OSError):
                while w.cpu is None:
                    deliver(w, w.conn.recv())
            w.process.join(timeout=5)
            if w.process.is_alive():
                w.process.terminate()
                w.process.join()
            if w.cpu is not None and self.stats.worker_cpu is not None:
                self.stats.worker_cpu += w.cpu
            else:
                self.stats.worker_cpu = None
            w.conn.close()
