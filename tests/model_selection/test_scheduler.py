"""The asynchronous public search: scheduler, racing, reproducibility, privacy.

- :func:`run_ordered` hands results to its driver in submission order, so
  the sequence of jobs is the same whatever the completion order (jobs with
  scrambled durations, on the sequential, loky and threading backends);
  the window bounds the jobs in flight; a failing job raises.
- :class:`PublicSearch` with one job in flight is exactly the synchronous
  GP-UCB loop (``_bo.bayesian_optimisation``) on a deterministic objective;
  with a wider window it is reproducible across backends and ``n_jobs``.
- Racing follows its rule (hand-computed margins).
- The search: the scheduler runs before the validation set is read (no
  private value can reach a scheduling decision), the public transcript is
  the same for neighbouring validation sets, ``batch_size`` fixes the
  releases across ``n_jobs``, and ``best_estimator_`` is the scored fit,
  restored from a snapshot taken before the validation read.
"""

from __future__ import annotations

import math
import pickle
import threading
import time

import joblib
import numpy as np
import pytest
from conftest import NOISE_SEED_WARNING, JobList
from sklearn.linear_model import LogisticRegression

import sklearn_dpbo.model_selection._evaluation as evaluation
import sklearn_dpbo.model_selection._private_selection as private_selection
import sklearn_dpbo.model_selection._scheduler as scheduler
from sklearn_dpbo import DPBayesSearchCV
from sklearn_dpbo.bo._acquisition import ucb_beta
from sklearn_dpbo.bo._bo import bayesian_optimisation
from sklearn_dpbo.model_selection import PrivateSelection
from sklearn_dpbo.model_selection._context import SearchData
from sklearn_dpbo.model_selection._public_search import PublicSearch
from sklearn_dpbo.model_selection._scheduler import (
    Job,
    _Feed,
    _Slot,
    default_window,
    run_ordered,
)

pytestmark = [
    pytest.mark.usefixtures("single_blas_thread"),
    # noise_random_state (tests only) makes releases reproducible; fit warns.
    pytest.mark.filterwarnings(NOISE_SEED_WARNING),
]

# ---------------------------------------------------------------------------
# run_ordered
# ---------------------------------------------------------------------------


def _slow_square(x: int, seconds: float) -> int:
    time.sleep(seconds)
    return x * x


def _fails(x: int) -> int:
    raise ValueError(f"job {x} failed on purpose")


class ChainDriver:
    """Each new job's input depends on every result processed so far."""

    def __init__(self, n: int, durations: np.ndarray, window: int):
        self.n, self.durations, self.window = n, durations, window
        self.submitted: list[int] = []
        self.processed: list[int] = []
        self.results: list[int] = []
        self.max_unprocessed = 0

    def next_job(self):
        if len(self.submitted) == self.n:
            return None
        unprocessed = len(self.submitted) - len(self.processed)
        self.max_unprocessed = max(self.max_unprocessed, unprocessed + 1)
        x = (len(self.submitted) * 7 + sum(self.results)) % 97
        k = len(self.submitted)
        self.submitted.append(x)
        return Job(_slow_square, (x, float(self.durations[k])), tag=k)

    def process(self, job, result):
        self.processed.append(job.tag)
        self.results.append(result)


def _chain(n_jobs, window=5, backend=None, n=24):
    # Durations scrambled so that later jobs often finish first.
    durations = np.random.default_rng(0).uniform(0.0, 0.02, size=n)
    driver = ChainDriver(n, durations, window)
    if backend is None:
        assert run_ordered(driver, window=window, n_jobs=n_jobs) == n
    else:
        with joblib.parallel_backend(backend, n_jobs=n_jobs):
            assert run_ordered(driver, window=window, n_jobs=n_jobs) == n
    return driver


def test_results_are_processed_in_submission_order_on_every_backend():
    reference = _chain(n_jobs=1)
    assert reference.processed == list(range(24))
    assert reference.max_unprocessed <= 5
    for kwargs in (
        dict(n_jobs=2),
        dict(n_jobs=3, backend="threading"),
        dict(n_jobs=4, backend="threading"),
    ):
        run = _chain(**kwargs)
        assert run.processed == list(range(24)), kwargs
        assert run.submitted == reference.submitted, kwargs
        assert run.results == reference.results, kwargs
        assert run.max_unprocessed <= 5


@pytest.mark.parametrize("pre_dispatch", ["all", 1, "n_jobs", None])
def test_any_pre_dispatch_terminates_with_the_same_sequence(pre_dispatch):
    # "all" must not dispatch the feed's idle tasks for ever.
    reference = _chain(n_jobs=1, n=8)
    durations = np.random.default_rng(0).uniform(0.0, 0.02, size=8)
    driver = ChainDriver(8, durations, 5)
    run_ordered(driver, window=5, n_jobs=2, pre_dispatch=pre_dispatch)
    assert driver.submitted == reference.submitted


def test_another_window_gives_another_sequence():
    # Power check: the inputs depend on the results processed so far, so the
    # window (how many are pending at each decision) changes the sequence.
    assert _chain(n_jobs=1, window=1).submitted != _chain(n_jobs=1).submitted


def test_window_bounds_the_jobs_running_at_once():
    running = [0, 0]  # now, max
    lock = threading.Lock()

    def tracked(x):
        with lock:
            running[0] += 1
            running[1] = max(running[1], running[0])
        time.sleep(0.01)
        with lock:
            running[0] -= 1
        return x

    class Driver:
        def __init__(self):
            self.k = 0

        def next_job(self):
            if self.k == 20:
                return None
            self.k += 1
            return Job(tracked, (self.k,))

        def process(self, job, result):
            pass

    with joblib.parallel_backend("threading", n_jobs=8):
        run_ordered(Driver(), window=3, n_jobs=8)
    assert running[1] == 3  # never more than the window, and it is used


@pytest.mark.ends_loky_pool  # n_jobs=2
@pytest.mark.parametrize("n_jobs", [1, 2])
def test_a_failing_job_raises_its_error(n_jobs):
    class Driver:
        def __init__(self):
            self.k = 0

        def next_job(self):
            self.k += 1
            if self.k > 6:
                return None
            return Job(_fails if self.k == 3 else abs, (self.k,))

        def process(self, job, result):
            pass

    with pytest.raises(ValueError, match="job 3 failed on purpose"):
        run_ordered(Driver(), window=4, n_jobs=n_jobs)


def test_a_slot_takes_the_oldest_job_when_it_is_pickled_not_before():
    feed = _Feed(idle_seconds=0.0, wait_seconds=0.0)
    early, late = _Slot(feed), _Slot(feed)  # handed out before any job exists
    idle = pickle.loads(pickle.dumps(early))
    assert idle() == (None, None)  # nothing queued: an idle task
    feed.put(0, Job(_slow_square, (3, 0.0)))
    feed.put(1, Job(_slow_square, (4, 0.0)))
    # Pickled (sent to a worker process) later: each slot takes the oldest
    # job queued at that moment.
    assert pickle.loads(pickle.dumps(late))() == (0, 9)
    assert pickle.loads(pickle.dumps(_Slot(feed)))() == (1, 16)
    # Pickled again (Dask may pickle a task twice and keep the second), a
    # slot repeats its first payload: no job is taken twice or lost.
    feed.put(2, Job(_slow_square, (5, 0.0)))
    assert pickle.loads(pickle.dumps(late))() == (0, 9)
    assert pickle.loads(pickle.dumps(early))() == (None, None)
    assert pickle.loads(pickle.dumps(_Slot(feed)))() == (2, 25)


def test_a_slot_pickled_with_no_job_waits_for_one_if_unpickled_here():
    # A Dask cluster with in-process workers pickles every task: a slot
    # pickled while no job is queued becomes, in this process and while its
    # stream runs, a slot of the live feed (it waits for the next job); in
    # another process or after the stream it is an idle task.
    feed = _Feed(idle_seconds=0.0, wait_seconds=30.0)
    payload = pickle.dumps(_Slot(feed))
    assert pickle.loads(payload)() == (None, None)  # no live stream: idle
    scheduler._LIVE_FEEDS[feed.token] = feed
    try:
        slot = pickle.loads(payload)
        out = {}
        worker = threading.Thread(target=lambda: out.update(r=slot()))
        worker.start()
        time.sleep(0.05)
        feed.put(2, Job(_slow_square, (6, 0.0)))
        worker.join(timeout=10)
        assert not worker.is_alive() and out["r"] == (2, 36)
    finally:
        del scheduler._LIVE_FEEDS[feed.token]


@pytest.mark.parametrize("fail", [False, True])
def test_a_stream_leaves_no_live_feed_behind(fail):
    jobs = [
        Job(_fails if fail else _slow_square, (i,) if fail else (i, 0.0))
        for i in range(6)
    ]
    with joblib.parallel_backend("threading", n_jobs=2):
        if fail:
            with pytest.raises(ValueError, match="on purpose"):
                run_ordered(JobList(jobs), window=3, n_jobs=2)
        else:
            assert run_ordered(JobList(jobs), window=3, n_jobs=2) == 6
    assert len(scheduler._LIVE_FEEDS) == 0


class _Processed(JobList):
    """A JobList that counts its processed results (and may hide finished)."""

    def __init__(self, jobs, *, says_finished=True):
        super().__init__(jobs)
        if not says_finished:
            self.finished = None  # no finished(): the stream's old ending


@pytest.mark.parametrize("says_finished", [True, False])
def test_the_feed_closes_as_soon_as_the_driver_is_finished(monkeypatch, says_finished):
    # A driver that says it will submit nothing more lets the feed close
    # with jobs still queued (they are still handed out), so the stream ends
    # with its last result instead of idling until it is processed. Power
    # check: without finished(), the feed closes only after the last result.
    closed_after = []
    driver = _Processed(
        [Job(_slow_square, (i, 0.01)) for i in range(6)], says_finished=says_finished
    )

    class Recorded(_Feed):
        def close(self):
            if not self.closed:
                closed_after.append(len(driver.results))
            super().close()

    monkeypatch.setattr(scheduler, "_Feed", Recorded)
    with joblib.parallel_backend("threading", n_jobs=2):
        assert run_ordered(driver, window=6, n_jobs=2) == 6
    assert driver.results == [i * i for i in range(6)]
    assert closed_after == ([0] if says_finished else [6])


def test_a_closed_feed_hands_out_its_queued_jobs_then_ends():
    feed = _Feed(idle_seconds=0.5, wait_seconds=30.0)
    feed.put(0, Job(_slow_square, (2, 0.0)))
    feed.close()
    slot, args, kwargs = next(feed)  # a job is queued: a slot
    assert pickle.loads(pickle.dumps(slot))() == (0, 4)
    late = _Slot(feed)
    assert late() == (None, None)  # closed and empty: no wait
    idle = pickle.loads(pickle.dumps(late))
    assert idle.args == (0.0,)  # and no idle time
    with pytest.raises(StopIteration):
        next(feed)


def test_a_slot_in_a_thread_waits_for_a_job_and_is_woken_by_put_or_close():
    feed = _Feed(idle_seconds=0.0, wait_seconds=30.0)
    out = {}

    def run(name):
        out[name] = _Slot(feed)()

    woken = threading.Thread(target=run, args=("put",))
    woken.start()
    time.sleep(0.05)
    feed.put(7, Job(_slow_square, (5, 0.0)))
    woken.join(timeout=10)
    assert not woken.is_alive() and out["put"] == (7, 25)
    closed = threading.Thread(target=run, args=("close",))
    closed.start()
    time.sleep(0.05)
    feed.close()
    closed.join(timeout=10)
    assert not closed.is_alive() and out["close"] == (None, None)
    with pytest.raises(StopIteration):
        next(feed)  # closed and empty: the stream ends


def test_default_window():
    assert default_window(1) == default_window(2) == 4
    assert default_window(8) == 16 and default_window(3) == 6
    with pytest.raises(ValueError, match="window"):
        run_ordered(ChainDriver(1, np.zeros(1), 1), window=0)


# ---------------------------------------------------------------------------
# PublicSearch against the synchronous loop
# ---------------------------------------------------------------------------


def _problem(seed=3, n=60):
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n, 2))
    values = np.sin(5 * X[:, 0]) * np.cos(3 * X[:, 1]) + 0.1 * rng.normal(size=n)
    ranks = rng.permutation(n)
    return X, values, ranks


def _fold_value(values, j, k, n_folds):
    # Deterministic fold scores whose mean is values[j].
    offsets = np.linspace(-0.05, 0.05, n_folds) if n_folds > 1 else [0.0]
    return float(values[j] + offsets[k])


def _public_search(X, values, ranks, *, n_folds, racing, n_iter=20, size=3):
    def fold_job(j, k):
        return Job(_scored, (values, j, k, n_folds), tag=(j, k))

    return PublicSearch(
        X,
        n_iter=n_iter,
        beta=lambda t: ucb_beta(t, len(X), 0.1),
        tie_break=ranks,
        fold_job=fold_job,
        n_folds=n_folds,
        fold0_size=50,
        bounds=(-2.0, 2.0),
        to_gp=lambda s: s,
        racing=racing,
        shortlist_size=size,
        kernel="matern52",
        length_scale=0.2,
        noise=0.01,
    )


def _scored(values, j, k, n_folds):
    return _fold_value(values, j, k, n_folds), None, 0.0, 0.0


@pytest.mark.parametrize("n_folds", [1, 3])
def test_one_candidate_in_flight_is_the_synchronous_gp_ucb(n_folds):
    X, values, ranks = _problem()
    driver = _public_search(X, values, ranks, n_folds=n_folds, racing=None)
    run_ordered(driver, window=n_folds, n_jobs=1)
    trace = bayesian_optimisation(
        lambda idx: [values[j] for j in idx],
        X,
        n_iter=20,
        beta=lambda t: ucb_beta(t, len(X), 0.1),
        tie_break=ranks,
        noise=0.01,
    )
    assert driver.gp.n_observed == 20
    np.testing.assert_array_equal(driver.gp.index[:20], trace.indices)
    np.testing.assert_allclose(driver.gp.mean, trace.gp.mean, atol=1e-12)
    evaluated, scores = driver.split_scores()
    assert evaluated == list(dict.fromkeys(trace.indices.tolist()))
    np.testing.assert_allclose(scores.mean(axis=1), values[evaluated], atol=1e-12)


def test_asynchronous_search_is_reproducible_across_backends():
    X, values, ranks = _problem()

    def run(**kw):
        driver = _public_search(X, values, ranks, n_folds=3, racing=1.0, n_iter=24)
        backend = kw.pop("backend", None)
        if backend:
            with joblib.parallel_backend(backend, n_jobs=kw["n_jobs"]):
                run_ordered(driver, window=6, **kw)
        else:
            run_ordered(driver, window=6, **kw)
        return driver.gp.index[: driver.gp.n_rows].tolist(), driver.shortlist()

    reference = run(n_jobs=1)
    assert run(n_jobs=2) == reference
    assert run(n_jobs=3, backend="threading") == reference
    # Pending points change the proposals: a wider window is another search.
    narrow = _public_search(X, values, ranks, n_folds=3, racing=1.0, n_iter=24)
    run_ordered(narrow, window=1, n_jobs=1)
    assert narrow.gp.index[:24].tolist() != reference[0]


# ---------------------------------------------------------------------------
# Racing
# ---------------------------------------------------------------------------


class Table:
    """A driver stub whose fold scores come from a table."""

    def __init__(self, fold0, racing, size=2, fold0_size=50, n_folds=3):
        self.fold0 = fold0

        def fold_job(j, k):
            return Job(
                lambda: (fold0[j] if k == 0 else 0.5, None, 0.0, 0.0), (), tag=(j, k)
            )

        n = len(fold0)
        self.search = PublicSearch(
            np.eye(n),  # far-apart candidates
            n_iter=n,
            beta=lambda t: 1.0,
            tie_break=np.arange(n),
            fold_job=fold_job,
            n_folds=n_folds,
            fold0_size=fold0_size,
            bounds=(0.0, 1.0),
            to_gp=lambda s: 0.0,  # flat GP: candidates proposed in rank order
            racing=racing,
            shortlist_size=size,
            kernel="matern52",
            length_scale=0.01,
            noise=0.01,
        )
        run_ordered(self.search, window=1, n_jobs=1)

    @property
    def raced(self):
        return [j for j in self.search.order if j not in self.search.contenders]


def test_racing_margin_is_z_times_the_largest_sd_of_a_difference():
    # bounds (0, 1), n0 = 50: sd of a difference of two fold-0 means <=
    # 1/sqrt(2 * 50) = 0.1, so z = 1 gives a margin of 0.1 below the 2nd best
    # contender's fold-0 score (shortlist_size = 2).
    t = Table([0.9, 0.8, 0.71, 0.69, 0.95, 0.60], racing=1.0)
    assert t.search.margin == pytest.approx(0.1)
    # 0.9 and 0.8 are contenders (fewer than 2 before them); 0.71 >= 0.8 - 0.1
    # is one too; 0.69 < 0.8 - 0.1 is raced out; 0.95 joins (2nd best is now
    # 0.9); 0.60 < 0.9 - 0.1 is raced out.
    assert t.raced == [3, 5]
    evaluated, scores = t.search.split_scores()
    assert (
        np.isnan(scores[[3, 5], 1:]).all() and not np.isnan(scores[[0, 1, 2, 4]]).any()
    )
    assert t.search.folds_run().tolist() == [3, 3, 3, 1, 3, 1]
    # z = 2 doubles the margin: 0.69 >= 0.8 - 0.2 stays, 0.60 < 0.9 - 0.2 not.
    assert Table([0.9, 0.8, 0.71, 0.69, 0.95, 0.60], racing=2.0).raced == [5]
    # No racing: every candidate gets every fold.
    assert Table([0.9, 0.8, 0.71, 0.69, 0.95, 0.60], racing=None).raced == []
    # A larger fold shrinks the margin: n0 = 5000 gives 0.01.
    t = Table([0.9, 0.8, 0.795, 0.789], racing=1.0, fold0_size=5000)
    assert t.search.margin == pytest.approx(0.01) and t.raced == [3]


def test_only_contenders_are_shortlisted_best_mean_first():
    t = Table([0.9, 0.8, 0.99, 0.2], racing=1.0, size=2)
    # Folds 1, 2 score 0.5 for everyone: means 0.633, 0.6, 0.663; 0.2 raced out.
    assert t.raced == [3]
    assert t.search.shortlist() == [2, 0]
    assert math.isclose(t.search.final[3], 0.0)


# ---------------------------------------------------------------------------
# The search: public scheduling, reproducibility, the restored fit
# ---------------------------------------------------------------------------

SPACE = {"C": (1e-3, 1e2, "log-uniform")}


def _search(**kw):
    params = dict(n_iter=8, n_candidates=32, random_state=0, noise_random_state=1)
    params.update(kw)
    return DPBayesSearchCV(LogisticRegression(max_iter=200), SPACE, **params)


def test_every_scheduling_decision_precedes_the_validation_read(
    scaled_cancer_split, monkeypatch
):
    # The stream's first stage (the public search: every decision) is over
    # before the validation set is read; after the read come only the
    # shortlist's validation scores, a fixed list.
    X_tr, y_tr, X_va, y_va = scaled_cancer_split
    events = []

    class Recorded(private_selection.PublicSearch):
        def next_job(self):
            job = super().next_job()
            if job is not None:
                events.append("public job")
            return job

        def process(self, job, result):
            events.append("public result")
            super().process(job, result)

    real_score = evaluation.score_private

    def score(*args):
        events.append("validation score")
        return real_score(*args)

    real_read = SearchData._read

    def read(self):
        if self._on_private_read is not None:
            events.append("validation read")
        real_read(self)

    monkeypatch.setattr(private_selection, "PublicSearch", Recorded)
    monkeypatch.setattr(evaluation, "score_private", score)
    monkeypatch.setattr(SearchData, "_read", read)
    s = _search().fit(X_tr, y_tr, X_val=X_va, y_val=y_va)
    read_at = events.index("validation read")
    assert set(events[:read_at]) == {"public job", "public result"}
    assert events[read_at + 1 :] == ["validation score"] * len(s.shortlist_)
    assert events.count("validation read") == 1


def test_public_transcript_is_the_same_for_neighbouring_validation_sets(
    scaled_cancer_split,
):
    X_tr, y_tr, X_va, y_va = scaled_cancer_split
    y_nb = y_va.copy()
    y_nb[0] = 1 - y_nb[0]  # V' differs from V in one record
    X_nb = X_va.copy()
    X_nb[0] = X_nb[0] * 100.0
    a = _search(n_jobs=2).fit(X_tr, y_tr, X_val=X_va, y_val=y_va)
    b = _search(n_jobs=2).fit(X_tr, y_tr, X_val=X_nb, y_val=y_nb)
    for key in ("candidate_index", "n_public_folds", "split0_public_cv_score"):
        np.testing.assert_array_equal(a.cv_results_[key], b.cv_results_[key])
    np.testing.assert_array_equal(a.shortlist_, b.shortlist_)


@pytest.mark.parametrize("batch_size", [2, 5])
def test_fixed_batch_size_gives_the_same_releases_for_every_n_jobs(
    scaled_cancer_split, batch_size
):
    # batch_size=2 is smaller than the shortlist (3): its fits on the
    # training set cannot all be in flight at once (the stream must not end
    # before the last one is submitted).
    X_tr, y_tr, X_va, y_va = scaled_cancer_split

    def release(**kw):
        s = _search(method=PrivateSelection(batch_size=batch_size), **kw)
        s.fit(X_tr, y_tr, X_val=X_va, y_val=y_va)
        return (
            s.best_index_,
            s.best_score_,
            s.shortlist_.tolist(),
            s.cv_results_["candidate_index"].tolist(),
        )

    reference = release(n_jobs=1)
    assert release(n_jobs=2) == reference
    with joblib.parallel_backend("threading", n_jobs=4):
        assert release(n_jobs=4) == reference


def test_score_here_rule_against_hand_computed_estimates():
    # rows checked with n_train=200: k=32, 3*32 + 8 = 104.
    assert evaluation._score_here(1, 10.0, 200, 10**6)  # one worker: always
    assert evaluation._score_here(2, 0.001, 200, 100)  # 0.001 * 1 s
    assert evaluation._score_here(2, 0.019, 200, 104)  # 0.019 s
    assert not evaluation._score_here(2, 0.021, 200, 104)  # 0.021 s
    assert not evaluation._score_here(2, 0.001, 200, 104 * 21)  # 0.021 s
    assert evaluation._score_here(2, 0.001, 200, 104 * 19)  # 0.019 s
    # n_train=5: k=5, 15 + 5 = 20 rows checked
    assert not evaluation._score_here(2, 0.001, 5, 20 * 21)
    assert evaluation._score_here(2, 0.001, 5, 20 * 19)
    # Isolated scoring (issue 19): per predict call. k = 32 rows checked in
    # 4 + 8 = 12 calls; 0.012 s -> 1 ms a call -> m = 20 costs 0.020 s.
    assert evaluation._score_here(2, 0.012, 200, 20, isolated=True)
    assert not evaluation._score_here(2, 0.012, 200, 21, isolated=True)
    # k = 1 public row: 1 batch call + 1 single = 2 calls.
    assert evaluation._score_here(2, 0.002, 1, 20, isolated=True)
    assert not evaluation._score_here(2, 0.002, 1, 21, isolated=True)


def test_record_blocks_depend_on_public_sizes_only():
    blocks = evaluation.record_blocks(10_000, 2)  # 8 blocks of 1,250
    assert [len(b) for b in blocks] == [1250] * 8
    np.testing.assert_array_equal(np.concatenate(blocks), np.arange(10_000))
    assert [len(b) for b in evaluation.record_blocks(600, 2)] == [300, 300]
    assert [len(b) for b in evaluation.record_blocks(100, 8)] == [100]


@pytest.mark.parametrize(
    "method", [PrivateSelection(), PrivateSelection(shortlist="grid")]
)
def test_validation_scores_here_or_in_workers_give_the_same_releases(
    scaled_cancer_split, monkeypatch, method
):
    # Scored here (cheap) or sent to loky workers: the same utilities and
    # releases. The count of score_private calls in this process tells the
    # paths apart (a worker runs a pickled copy): a power check that the
    # switch does what it says.
    X_tr, y_tr, X_va, y_va = scaled_cancer_split
    calls = []
    real_score = evaluation.score_private

    def score(*args):
        calls.append(1)
        return real_score(*args)

    monkeypatch.setattr(evaluation, "score_private", score)

    def release(limit):
        monkeypatch.setattr(evaluation, "SCORE_HERE_SECONDS", limit)
        calls.clear()
        s = _search(method=method, n_jobs=2, n_candidates=8)
        s.fit(X_tr, y_tr, X_val=X_va, y_val=y_va)
        return (s.best_index_, s.best_score_, s.shortlist_.tolist()), len(calls)

    here, n_here = release(math.inf)
    workers, n_workers = release(-1.0)
    assert here == workers
    assert n_here == len(here[2]) and n_workers == 0


def test_where_to_score_is_decided_before_the_validation_read(
    scaled_cancer_split, monkeypatch
):
    X_tr, y_tr, X_va, y_va = scaled_cancer_split
    events = []
    real_here, real_read = evaluation._score_here, SearchData._read

    def here(*args, **kwargs):
        events.append("decide")
        return real_here(*args, **kwargs)

    def read(self):
        if self._on_private_read is not None:
            events.append("validation read")
        real_read(self)

    monkeypatch.setattr(evaluation, "_score_here", here)
    monkeypatch.setattr(SearchData, "_read", read)
    _search(n_jobs=2).fit(X_tr, y_tr, X_val=X_va, y_val=y_va)
    assert events == ["decide", "validation read"]


class RemembersWhatItPredicts(LogisticRegression):
    """Stores the rows of its last ``predict``: a mutation a refit reuse must
    never carry from the validation set into ``best_estimator_``."""

    n_fits = 0

    def fit(self, X, y, **kw):
        type(self).n_fits += 1
        return super().fit(X, y, **kw)

    def predict(self, X):
        self.last_seen_ = np.array(X, copy=True)
        return super().predict(X)


def test_best_estimator_is_the_scored_fit_restored_from_before_the_read(
    scaled_cancer_split,
):
    X_tr, y_tr, X_va, y_va = scaled_cancer_split
    X_nb = X_va.copy()
    X_nb[0] += 1000.0

    def fit(X_val):
        RemembersWhatItPredicts.n_fits = 0
        s = DPBayesSearchCV(
            RemembersWhatItPredicts(max_iter=200),
            SPACE,
            n_iter=6,
            n_candidates=16,
            random_state=0,
            noise_random_state=1,
            n_jobs=1,  # in-process: scoring runs on the very fitted objects
        )
        s.fit(X_tr, y_tr, X_val=X_val, y_val=y_va)
        return s

    a, b = fit(X_va), fit(X_nb)
    folds = int(a.cv_results_["n_public_folds"].sum())
    # Public fold fits + one fit per shortlisted candidate: no refit.
    assert RemembersWhatItPredicts.n_fits == folds + len(a.shortlist_)
    assert a.best_index_ == b.best_index_
    # The restored model saw training rows only (the public-rows check).
    seen = a.best_estimator_.last_seen_
    assert not any((row == X_va).all(axis=1).any() for row in seen)
    assert pickle.dumps(a.best_estimator_) == pickle.dumps(b.best_estimator_)
    assert a.refit_time_ > 0
    # Without refit there is no model and no snapshot.
    s = DPBayesSearchCV(LogisticRegression(max_iter=200), SPACE, n_iter=4, refit=False)
    s.fit(X_tr, y_tr, X_val=X_va, y_val=y_va)
    assert not hasattr(s, "best_estimator_")
