"""The public search of ``"private-selection"``: asynchronous BO with racing.

**Training set only** (public). GP-UCB over the candidate set (Srinivas et
al. 2010) with β_t = 2 log(|Λ| t² π² / (3δ)), δ = 0.1, as an asynchronous
batch (GP-BUCB, Desautels et al. 2014): a job is one candidate on one
public fold, results taken in submission order
(:func:`~._scheduler.run_ordered`), so the evaluations depend on the
window, never on timing. Racing and the row budget (successive halving,
Jamieson & Talwalkar 2016): :class:`~._modes.PrivateSelection`. The GP
observes a contender's mean and a raced-out candidate's fold-0 score.
"""

from __future__ import annotations

import math
from collections import deque
from typing import Callable, Optional, Sequence

import numpy as np

from ..bo._acquisition import argmax, upper_confidence_bound
from ..bo._gp import IncrementalGP
from ._scheduler import Job

#: From this many training rows, "auto" is 2 public folds and budget 0.75.
LARGE_TRAIN_ROWS = 20_000


def resolve_public_signal(public_cv, public_budget, n_train: int) -> tuple:
    """``(public_cv, public_budget)`` with "auto" resolved from n_train."""
    large = int(n_train) >= LARGE_TRAIN_ROWS
    auto_cv = isinstance(public_cv, str) and public_cv == "auto"
    if isinstance(public_budget, str) and public_budget == "auto":
        public_budget = 0.75 if large and auto_cv else None
    if auto_cv:
        public_cv = 2 if large else 3
    return public_cv, public_budget


class PublicSearch:
    """Driver of :func:`~._scheduler.run_ordered` for the public BO.

    ``fold_job(j, k)`` is the Job of candidate j on public fold k, with
    result ``(score, why, fit_time, score_time)``; ``to_gp`` maps a public
    score to GP units; ``finish(shortlist)`` gives the jobs (tags ``("fit",
    j)``) run once every public result is in, kept in ``fitted[j]``.
    """

    def __init__(
        self,
        X: np.ndarray,
        *,
        n_iter: int,
        beta: Callable[[int], float],
        tie_break: np.ndarray,
        fold_job: Callable[[int, int], Job],
        n_folds: int,
        fold0_size: int,
        bounds: tuple,
        to_gp: Callable[[float], float],
        racing: Optional[float],
        shortlist_size: int,
        kernel: str,
        length_scale: float,
        noise: float,
        budget: Optional[float] = None,
        fold_rows: Optional[Sequence[int]] = None,
        n_train: Optional[int] = None,
        on_candidate: Optional[Callable[[int], None]] = None,
        finish: Optional[Callable[[list], list]] = None,
    ):
        self.n_iter = int(n_iter)
        self.beta = beta
        self.tie_break = tie_break
        self.fold_job = fold_job
        self.n_folds = int(n_folds)
        self.racing = racing
        self.shortlist_size = int(shortlist_size)
        self.to_gp = to_gp
        self.on_candidate = on_candidate
        low, high = bounds
        self.margin = (
            math.inf
            if racing is None
            else float(racing) * (high - low) / math.sqrt(2.0 * max(fold0_size, 1))
        )
        self.budget = None if budget is None else float(budget)
        if self.budget is not None:
            self.fold_rows = [int(r) for r in fold_rows]
            self.budget_rows = self.budget * self.n_iter * int(n_train)
        self.end_phase = self.budget is None  # True once it is out (or none)
        self.holdout: set = set()  # shortlisted on fold 0 alone (budget)
        self.gp = IncrementalGP(
            X, kernel=kernel, length_scale=length_scale, noise=noise, max_points=n_iter
        )
        self.n_proposed = 0
        self.n_started = 0  # candidates whose fold 0 was processed
        self.jobs: deque = deque()  # ready jobs (later folds first, FIFO)
        self.scores: dict[int, list[float]] = {}  # raw fold scores (NaN: not run)
        self.times: dict[int, list[tuple]] = {}  # (fit, score) seconds per fold
        self.order: list[int] = []  # candidates in first-proposal order
        self.contenders: dict[int, None] = {}  # every fold scheduled (ordered)
        self.final: dict[int, float] = {}  # GP value once known
        self.rows: deque = deque()  # GP rows awaiting their value, in add order
        self.remaining: dict[int, int] = {}  # folds still to process
        self.failures: list[str] = []  # public reasons of failed fits
        self.failed: set[int] = set()  # candidates with a NaN (failed) fold
        self.finish = finish
        self.fitted: dict = {}  # results of the finish jobs, by candidate
        self.n_in_flight = 0  # jobs handed out and not yet processed
        self.finished_ = False  # the finish jobs are out: nothing more comes

    # -- Driver interface ---------------------------------------------------
    def next_job(self) -> Optional[Job]:
        while not self.jobs and self.n_proposed < self.n_iter:
            self._propose()
        if not self.jobs and self.n_in_flight == 0 and not self.end_phase:
            # Every fold-0 result is in: the rest of the row budget.
            self.end_phase = True
            self.jobs.extend(self._budget_jobs())
        if not self.jobs and self.n_in_flight == 0 and self.finish is not None:
            # The shortlist is final: its fits go through the same stream.
            finish, self.finish = self.finish, None
            self.jobs.extend(finish(self.shortlist()))
            self.finished_ = True
        if not self.jobs:
            return None
        self.n_in_flight += 1
        return self.jobs.popleft()

    def finished(self) -> bool:
        """True once every finish job is handed out."""
        return self.finished_ and not self.jobs

    def process(self, job: Job, result) -> None:
        self.n_in_flight -= 1
        if job.tag[0] == "fit":
            self.fitted[job.tag[1]] = result
            return
        j, k = job.tag
        score, why, fit_time, score_time = result
        self.times[j][k] = (float(fit_time), float(score_time))
        if why is not None:
            self.failures.append(why)
        self.scores[j][k] = float(score)
        if math.isnan(self.scores[j][k]):
            self.failed.add(j)  # can never be shortlisted
        self.remaining[j] -= 1
        if k == 0:
            self.n_started += 1
            if self._promote(j):
                self.contenders[j] = None
                if self.racing is not None:
                    for f in range(1, self.n_folds):
                        self.jobs.append(self.fold_job(j, f))
                    self.remaining[j] += self.n_folds - 1
            if self.on_candidate is not None:
                self.on_candidate(self.n_started)
        if self.remaining[j] == 0:
            # A contender's value is its mean over the folds (NaN if a fold
            # failed with error_score=NaN), a raced-out candidate's its fold 0.
            fold_scores = self.scores[j] if j in self.contenders else self.scores[j][:1]
            self.final[j] = self.to_gp(float(np.mean(fold_scores)))
            self._observe_ready()

    # -- internals ------------------------------------------------------------
    def _propose(self) -> None:
        t = self.n_proposed + 1
        acq = upper_confidence_bound(self.gp.mean, self.gp.std, self.beta(t))
        j = int(argmax(acq, self.tie_break))
        self.gp.add(j)  # GP-BUCB: the variance sees the pending point
        self.rows.append(j)
        self.n_proposed = t
        if j in self.scores:
            self._observe_ready()  # a repeat: its value is (or will be) known
            return
        self.order.append(j)
        self.scores[j] = [math.nan] * self.n_folds
        self.times[j] = [(math.nan, math.nan)] * self.n_folds
        if self.racing is None and self.budget is None:
            self.remaining[j] = self.n_folds
            self.jobs.extend(self.fold_job(j, f) for f in range(self.n_folds))
        else:
            self.remaining[j] = 1
            self.jobs.append(self.fold_job(j, 0))

    def rows_used(self) -> int:
        """Training rows of the public fold fits run (or queued) so far."""
        rows = getattr(self, "fold_rows", None)
        if rows is None:
            return 0
        return sum(rows[k] for j in self.order for k in range(self._n_run(j)))

    def _budget_jobs(self) -> list:
        """The other folds of the most promising candidates (budget mode)."""
        ranked = sorted(
            (j for j in self.order if j not in self.failed),
            key=lambda j: (-self.scores[j][0], self.tie_break[j]),
        )
        if self.racing is not None and len(ranked) > self.shortlist_size:
            floor = self.scores[ranked[self.shortlist_size - 1]][0] - self.margin
            ranked = [j for j in ranked if self.scores[j][0] >= floor]
        extra = sum(self.fold_rows[1:])
        left = self.budget_rows - self.rows_used()
        n_more = int(left // extra) if extra > 0 else len(ranked)
        jobs = []
        if n_more <= self.shortlist_size:
            # More folds could not change the shortlist (a set): fold 0 decides.
            self.holdout = set(ranked[: self.shortlist_size])
            self.contenders.update(dict.fromkeys(ranked[: self.shortlist_size]))
            return jobs
        for j in ranked[:n_more]:
            self.contenders[j] = None
            self.remaining[j] += self.n_folds - 1
            jobs.extend(self.fold_job(j, k) for k in range(1, self.n_folds))
        return jobs

    def _promote(self, j: int) -> bool:
        # Contenders with a failed fold hold no shortlist place in the rule.
        if self.budget is not None:
            return False  # decided when every fold-0 result is in
        if self.racing is None:
            return True
        if j in self.failed:
            return False
        first = sorted(
            (self.scores[c][0] for c in self.contenders if c not in self.failed),
            reverse=True,
        )
        if len(first) < self.shortlist_size:
            return True
        return self.scores[j][0] >= first[self.shortlist_size - 1] - self.margin

    def _observe_ready(self) -> None:
        while self.rows and self.rows[0] in self.final:
            self.gp.observe(self.final[self.rows.popleft()])

    # -- results --------------------------------------------------------------
    def shortlist(self) -> list[int]:
        """Contenders with a finite mean, best first (ties: public order)."""
        means = {
            c: float(np.mean(self.scores[c][: self._n_run(c)]))
            for c in self.contenders
            if not np.isnan(self.scores[c][: self._n_run(c)]).any()
        }
        ranked = sorted(means, key=lambda c: (-means[c], self.tie_break[c]))
        return ranked[: self.shortlist_size]

    def split_scores(self) -> tuple[list[int], np.ndarray]:
        """Evaluated candidates (first-proposal order) and their fold scores
        (NaN where a fold was not run)."""
        return list(self.order), np.asarray(
            [self.scores[j] for j in self.order], dtype=float
        ).reshape(len(self.order), self.n_folds)

    def fold_times(self) -> tuple[np.ndarray, np.ndarray]:
        """Fit and score seconds of every evaluated candidate's public folds
        (first-proposal order; NaN where a fold was not run)."""
        times = np.asarray([self.times[j] for j in self.order], dtype=float)
        times = times.reshape(len(self.order), self.n_folds, 2)
        return times[:, :, 0], times[:, :, 1]

    def folds_run(self) -> np.ndarray:
        """Number of public folds run per evaluated candidate."""
        return np.asarray([self._n_run(j) for j in self.order], dtype=int)

    def _n_run(self, j: int) -> int:
        """Public folds run (or queued) for candidate ``j``."""
        if j in self.contenders and j not in self.holdout:
            return self.n_folds
        return 1
