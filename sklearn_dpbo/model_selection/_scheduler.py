"""An asynchronous, reproducible job loop on any joblib backend.

:func:`run_ordered` keeps up to ``window`` jobs in flight and gives their
results to a *driver* **in submission order**, so for a fixed ``window``
the sequence of jobs is the same whatever the backend, workers or load.
One ``Parallel(return_as="generator_unordered")`` call is fed from a queue
(:class:`_Feed`) that never blocks joblib's callback thread: it hands out
:class:`_Slot` tasks bound to the oldest queued job only when they run
(thread) or are pickled (process). Backends without generators run the
jobs in rounds; one worker runs them in the calling thread.
"""

from __future__ import annotations

import functools
import threading
import time
import uuid
import weakref
from collections import deque
from typing import Any, Callable, Iterator, NamedTuple

from joblib import Parallel, delayed, effective_n_jobs

IDLE_SECONDS = 0.002  # an idle process task sleeps this long (s)
WAIT_SECONDS = 0.05  # an idle thread slot waits at most this long for a job (s)


class Job(NamedTuple):
    """One unit of work: ``func(*args)`` and a public tag for the driver."""

    func: Callable
    args: tuple
    tag: Any = None


def default_window(n_jobs: Any) -> int:
    """Jobs in flight by default: max(4, 2 × workers), so that ``n_jobs`` of 1
    and 2 give the same jobs (and releases) and a free worker finds one."""
    return max(4, 2 * effective_n_jobs(n_jobs))


def _tagged(seq: int, func: Callable, args: tuple):
    return seq, func(*args)


def _idle(seconds: float):
    time.sleep(seconds)
    return None, None


class _Slot:
    """A task bound to the oldest queued job when it runs or is pickled;
    returns ``(seq, result)``, or ``(None, None)`` if it ran no job."""

    __name__ = "run_ordered_slot"  # joblib and Dask name tasks by it

    def __init__(self, feed: _Feed):
        self._feed = feed
        self._reduced = None  # what the first pickling gave (see __reduce__)

    def __call__(self):
        item = self._feed.take(wait=self._feed.wait_seconds)
        if item is None:
            return None, None
        seq, job = item
        return seq, job.func(*job.args)

    def __reduce__(self):
        # The first pickling decides, later ones repeat it (Dask may pickle
        # twice), so no job is taken twice or lost.
        if self._reduced is None:
            item = self._feed.take(wait=0.0)
            if item is None and self._feed.closed:  # the stream is ending
                self._reduced = functools.partial, (_idle, 0.0)
            elif item is None:  # bound when it runs if that is in this process
                token, idle = self._feed.token, self._feed.idle_seconds
                self._reduced = _unpickled_slot, (token, idle)
            else:
                seq, job = item
                self._reduced = functools.partial, (_tagged, seq, job.func, job.args)
        return self._reduced


# The running streams' feeds by token: a slot pickled with no job and
# unpickled in this process (in-process Dask workers) waits on its live feed.
_LIVE_FEEDS: weakref.WeakValueDictionary = weakref.WeakValueDictionary()


def _unpickled_slot(token: str, idle_seconds: float):
    feed = _LIVE_FEEDS.get(token)
    if feed is None:
        return functools.partial(_idle, idle_seconds)
    return _Slot(feed)


class _Feed:
    """The task iterator of one running :class:`joblib.Parallel` call."""

    def __init__(self, idle_seconds: float, wait_seconds: float):
        self.idle_seconds = idle_seconds
        self.wait_seconds = wait_seconds
        self._queue: deque = deque()
        self._cond = threading.Condition()
        self.closed = False
        self.token = uuid.uuid4().hex

    def put(self, seq: int, job: Job) -> None:
        with self._cond:
            if self.closed:
                raise RuntimeError(
                    "run_ordered: a job was submitted after the driver said it "
                    "was finished (a bug in the driver)."
                )
            self._queue.append((seq, job))
            self._cond.notify()

    def take(self, wait: float):
        """The oldest queued ``(seq, job)``; else wait up to ``wait`` s; else None."""
        with self._cond:
            if not self._queue and wait > 0 and not self.closed:
                self._cond.wait(wait)
            return self._queue.popleft() if self._queue else None

    def close(self) -> None:
        """No more jobs: queued ones are still handed out, then the end."""
        with self._cond:
            self.closed = True
            self._cond.notify_all()

    def __iter__(self) -> Iterator:
        return self

    def __next__(self):
        with self._cond:
            if self.closed and not self._queue:
                raise StopIteration
        return _Slot(self), (), {}  # a task as joblib's delayed gives it


def run_ordered(
    driver: Any,
    *,
    window: int,
    n_jobs: Any = None,
    pre_dispatch: Any = None,
) -> int:
    """Run the driver's jobs, at most ``window`` unprocessed at a time.

    The driver has ``next_job() -> Job or None`` (None: nothing to submit
    now), ``process(job, result)`` (called in submission order) and,
    optionally, ``finished() -> bool`` (True once no more jobs will come).
    ``n_jobs`` and ``pre_dispatch`` go to :class:`joblib.Parallel`
    (``"all"``: the whole window). Returns the number of jobs run.
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
        # Each round of submitted jobs runs at once; the driver sees the
        # same calls as with a stream.
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
        return in_rounds(lambda jobs_: [job.func(*job.args) for job in jobs_])

    if pre_dispatch is None or pre_dispatch == "all":
        # "all" would dispatch idle tasks for ever: the window at most.
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
        # A backend without generators (joblib's "multiprocessing").
        with Parallel(n_jobs=n_jobs, pre_dispatch=pre_dispatch) as rounds:
            return in_rounds(
                lambda r: rounds(delayed(job.func)(*job.args) for job in r)
            )

    finished = getattr(driver, "finished", None) or (lambda: False)
    feed = _Feed(IDLE_SECONDS, WAIT_SECONDS)
    top_up(feed.put)
    if state["submitted"] == 0:
        return 0
    if finished():
        feed.close()  # every job is queued already
    _LIVE_FEEDS[feed.token] = feed
    try:
        outputs = parallel(feed)
    except BaseException:
        feed.close()  # the feed must not outlive the stream
        _LIVE_FEEDS.pop(feed.token, None)
        raise
    try:
        for seq, result in outputs:
            if seq is None or seq < state["processed"] or seq in buffer:
                continue  # an idle task (or a job run twice by the backend)
            buffer[seq] = result
            drain(feed.put)
            if state["processed"] == state["submitted"] or finished():
                feed.close()  # nothing more to submit
    except BaseException as exc:
        # Closing the live generator would make joblib warn with counts that
        # depend on timing; throwing the error into it takes joblib's silent
        # abort path, which re-raises the same error.
        feed.close()
        try:
            outputs.throw(exc)
        except BaseException as again:
            if again is not exc:
                raise
        raise
    finally:
        _LIVE_FEEDS.pop(feed.token, None)
    return state["submitted"]
