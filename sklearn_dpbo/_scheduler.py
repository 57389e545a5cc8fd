"""An asynchronous, reproducible job loop on any joblib backend.

:func:`run_ordered` keeps up to ``window`` jobs submitted at once and
gives their results to a *driver* **in submission order**; after each
result the driver may submit more jobs (e.g. propose the next candidate of
a Bayesian optimisation given the finished and the pending ones). The
workers never wait for a whole batch: while the oldest job runs, the
others are already computing.

Why submission order. Results arrive in an order that depends on timing.
Handing them to the driver in submission order makes every decision a
function of the results alone: for a fixed ``window`` the sequence of jobs
is the same whatever the backend, the number of workers or the machine's
load. Timing only changes *when* a job runs, never *which* jobs run. A
slow oldest job can hold back the next decisions (the other results wait
in a buffer); the window keeps the workers busy meanwhile.

How it runs on joblib. One :class:`joblib.Parallel` call with
``return_as="generator_unordered"`` is fed from a queue while it runs
(:class:`_Feed`). joblib pulls the next task when a worker finishes, in a
callback thread and under its own lock, so the feed must never block: when
the queue is momentarily empty it hands out a short idle task, and when
the driver has nothing more to submit it ends the stream. This uses only
joblib's public interface, so it runs on every backend with generators
(loky, threading, Dask through ``joblib.parallel_config("dask")``). A
backend without them (joblib's "multiprocessing") runs the jobs in rounds,
one parallel call per round of submitted jobs: the same sequence of jobs,
with a barrier per round. With one worker the jobs run in the calling
thread, in order, with no idle task.

Several stages can share one stream (:class:`Then`): the next stage's
jobs are built in the calling thread once every job of the previous stage
is processed. ``"private-selection"`` runs its public search (every
scheduling decision: training set only) and then, after its public checks
and the first read of the validation set, the fixed list of the
shortlisted candidates' validation scores, whose results only the
releases use. Modes whose decisions depend on validation scores
(``"gp-ucb"``, ``"lipschitz"``) keep their synchronous loops.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from typing import Any, Callable, Iterator, Optional, Protocol

from joblib import Parallel, delayed, effective_n_jobs

__all__ = ["Job", "Driver", "JobList", "Then", "run_ordered", "default_window"]

# A worker with nothing to do sleeps this long before asking again (s).
IDLE_SECONDS = 0.002


class Job:
    """One unit of work: ``func(*args)`` and a public tag for the driver."""

    __slots__ = ("func", "args", "tag")

    def __init__(self, func: Callable, args: tuple, tag: Any = None):
        self.func = func
        self.args = args
        self.tag = tag


class Driver(Protocol):
    """What :func:`run_ordered` asks of its caller."""

    def next_job(self) -> Optional[Job]:
        """The next job to submit now, or None (nothing to submit for now)."""

    def process(self, job: Job, result: Any) -> None:
        """Take the result of ``job`` (called in submission order)."""


class JobList:
    """A driver with a fixed list of jobs; ``results`` in submission order."""

    def __init__(self, jobs):
        self.jobs = deque(jobs)
        self.results: list = []

    def next_job(self) -> Optional[Job]:
        return self.jobs.popleft() if self.jobs else None

    def process(self, job: Job, result: Any) -> None:
        self.results.append(result)


class Then:
    """A driver: the jobs of ``first``, then those of the driver ``then()`` gives.

    ``then()`` is called once, in the calling thread, when every job of
    ``first`` has been processed and ``first`` has nothing more to submit
    (e.g. to check what the first stage produced before the next one
    starts); it returns the second driver, or None. Both stages run in the
    same :func:`run_ordered` stream, without a second parallel call.
    """

    def __init__(self, first: Driver, then: Callable[[], Optional[Driver]]):
        self.first = first
        self.then = then
        self.second: Optional[Driver] = None
        self._in_flight = 0  # jobs of the first stage not yet processed

    def next_job(self) -> Optional[Job]:
        if self.second is None:
            job = self.first.next_job()
            if job is not None:
                self._in_flight += 1
                return job
            if self._in_flight:
                return None  # the first stage may still submit more
            self.second = self.then() or JobList(())
        return self.second.next_job()

    def process(self, job: Job, result: Any) -> None:
        if self.second is None:
            self._in_flight -= 1
            self.first.process(job, result)
        else:
            self.second.process(job, result)


def default_window(n_jobs: Any) -> int:
    """Jobs in flight by default: max(4, 2 × workers).

    Two per worker, so that a worker that finishes usually finds a job
    ready while results wait to be taken in order; never less than 4, so
    that ``n_jobs`` of 1 and 2 give the same sequence of jobs (hence the
    same releases). Chosen by measurement: a wider window (3 × workers)
    kept Dask workers a little busier, but every pending job is a proposal
    made without its result, and on the utility benchmark (60 seeds,
    ``benchmarks/bench_utility.py --batch-sizes``) a window of 4 had lower
    regret than 6 on every task. Under ``joblib.parallel_config("dask")``
    the workers are the cluster's threads.
    """
    return max(4, 2 * effective_n_jobs(n_jobs))


def _tagged(seq: int, func: Callable, args: tuple):
    return seq, func(*args)


def _idle(seconds: float):
    time.sleep(seconds)
    return None, None


class _Feed:
    """The task iterator of one running :class:`joblib.Parallel` call.

    ``__next__`` is called by joblib (from its callback threads, under its
    lock) and never blocks: a queued task, else an idle task, else (once
    :meth:`close` was called and the queue is empty) the end of the stream.
    """

    def __init__(self, idle_seconds: float):
        self._queue: deque = deque()
        self._closed = threading.Event()
        self._idle = delayed(_idle)(idle_seconds)

    def put(self, task) -> None:
        self._queue.append(task)

    def close(self) -> None:
        self._closed.set()

    def __iter__(self) -> Iterator:
        return self

    def __next__(self):
        try:
            return self._queue.popleft()
        except IndexError:
            if self._closed.is_set():
                raise StopIteration from None
            return self._idle


def run_ordered(
    driver: Driver,
    *,
    window: int,
    n_jobs: Any = None,
    pre_dispatch: Any = None,
) -> int:
    """Run the driver's jobs, at most ``window`` unprocessed at a time.

    Parameters
    ----------
    driver : Driver
        ``next_job()`` is asked for jobs while fewer than ``window`` are
        submitted and not yet processed; ``process(job, result)`` receives
        the results in submission order. The loop ends when every
        submitted job is processed and ``next_job()`` returns None.
    window : int
        Jobs submitted and not yet processed, at most. The sequence of jobs
        depends on ``window`` and on the results, never on timing.
    n_jobs : int or None
        Passed to :class:`joblib.Parallel` (the active backend is used).
    pre_dispatch : int or str, default="2*n_jobs"
        Passed to :class:`joblib.Parallel`: the tasks dispatched to the
        backend ahead of the free workers (part of the window); ``"all"``
        means the whole window.

    Returns
    -------
    n_done : int
        The number of jobs run.
    """
    if window < 1:
        raise ValueError(f"window must be >= 1; got {window}.")
    jobs: dict[int, Job] = {}
    buffer: dict[int, Any] = {}
    state = {"submitted": 0, "processed": 0}

    def top_up(put: Callable[[int, Job], None]) -> None:
        while state["submitted"] - state["processed"] < window:
            job = driver.next_job()
            if job is None:
                return
            seq = state["submitted"]
            jobs[seq] = job
            state["submitted"] = seq + 1
            put(seq, job)

    def drain(put: Callable[[int, Job], None]) -> None:
        # Results in submission order; each may let the driver submit more.
        while state["processed"] in buffer:
            seq = state["processed"]
            result = buffer.pop(seq)
            job = jobs.pop(seq)
            state["processed"] = seq + 1
            driver.process(job, result)
            top_up(put)

    def in_rounds(run_all: Callable[[list], list]) -> int:
        # The submitted jobs run as one round (``run_all``), then their
        # results are processed in order; what the driver submits meanwhile
        # is the next round. The driver sees the same calls as with a stream.
        pending: list = []

        def put(seq, job):
            pending.append(job)

        top_up(put)
        while pending:
            first = state["processed"]
            this_round = list(pending)
            pending.clear()
            for i, result in enumerate(run_all(this_round)):
                buffer[first + i] = result
            drain(put)
        return state["submitted"]

    if effective_n_jobs(n_jobs) == 1:
        # In the calling thread, in order, with no idle task: rounds run
        # one job after the other (the driver sees the same calls).
        return in_rounds(lambda jobs_: [job.func(*job.args) for job in jobs_])

    if pre_dispatch is None or pre_dispatch == "all":
        # The feed never runs out before it is closed: "all" would dispatch
        # idle tasks for ever. Everything submitted is at most the window.
        pre_dispatch = window if pre_dispatch == "all" else "2*n_jobs"
    try:
        parallel = Parallel(
            n_jobs=n_jobs,
            batch_size=1,
            pre_dispatch=pre_dispatch,
            return_as="generator_unordered",
        )
    except ValueError as exc:
        if "return_as" not in str(exc):
            raise
        # A backend without generators (joblib's "multiprocessing"): each
        # round of submitted jobs is one parallel call.
        with Parallel(n_jobs=n_jobs, pre_dispatch=pre_dispatch) as rounds:
            return in_rounds(
                lambda r: rounds(delayed(job.func)(*job.args) for job in r)
            )

    feed = _Feed(IDLE_SECONDS)

    def put(seq, job):
        feed.put(delayed(_tagged)(seq, job.func, job.args))

    top_up(put)
    if state["submitted"] == 0:
        return 0
    outputs = parallel(feed)
    try:
        for seq, result in outputs:
            if seq is None:
                continue  # an idle task
            buffer[seq] = result
            drain(put)
            if state["processed"] == state["submitted"]:
                feed.close()  # nothing pending and nothing more to submit
    except BaseException as exc:
        # The driver raised (or the caller was interrupted) while the
        # generator is live. Closing it would make joblib warn that tasks
        # were cancelled, with counts that depend on timing (after the
        # validation read: the timing of private work). Throwing the error
        # into it takes joblib's abort path instead, which stops the workers
        # silently and re-raises the same error.
        feed.close()
        try:
            outputs.throw(exc)
        except BaseException as again:
            if again is not exc:
                raise
        raise
    return state["submitted"]
