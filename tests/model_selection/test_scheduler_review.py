"""Review of the asynchronous stream (issue 13): how it stops, and racing.

- When the driver raises while the joblib generator is live (a public
  check failing between the stages, an interruption during the validation
  scores), the stream stops without joblib's "tasks ... cancelled"
  UserWarning: that warning would be noise on a public error, and after the
  validation read its counts come from the timing of private work.
"""

from __future__ import annotations

import math
import pickle
import time
import warnings

import numpy as np
import pytest
from conftest import NOISE_SEED_WARNING, JobList
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.linear_model import LogisticRegression as _LR

from sklearn_dpbo import DPBayesSearchCV
from sklearn_dpbo.model_selection._public_search import PublicSearch
from sklearn_dpbo.model_selection._scheduler import Job, run_ordered

pytestmark = [
    pytest.mark.usefixtures("single_blas_thread"),
    pytest.mark.filterwarnings(NOISE_SEED_WARNING),
]

JOBLIB_EARLY_EXIT = "adjusting the input task iterator"


class _RaisesOnResult:
    """Submits short jobs; raises ``error`` when the 3rd result is processed."""

    def __init__(self, error: BaseException):
        self.error = error
        self.n = 0

    def next_job(self):
        if self.n >= 20:
            return None
        self.n += 1
        return Job(time.sleep, (0.005,), tag=self.n)

    def process(self, job, result):
        if job.tag == 3:
            raise self.error


@pytest.mark.ends_loky_pool  # backend="loky"
@pytest.mark.parametrize("backend", ["loky", "threading"])
@pytest.mark.parametrize("error", [ValueError("public check"), KeyboardInterrupt()])
def test_a_driver_error_stops_the_stream_without_a_joblib_warning(backend, error):
    import joblib

    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        with joblib.parallel_config(backend=backend):
            with pytest.raises(type(error)):
                run_ordered(_RaisesOnResult(error), window=4, n_jobs=2)
    assert not [w for w in seen if JOBLIB_EARLY_EXIT in str(w.message)]


class _NeverFits(ClassifierMixin, BaseEstimator):
    def __init__(self, C=1.0):
        self.C = C

    def fit(self, X, y):
        raise RuntimeError("cannot fit")


def test_every_public_fit_failing_raises_only_the_librarys_error(scaled_cancer_split):
    X_tr, y_tr, X_va, y_va = scaled_cancer_split
    search = DPBayesSearchCV(
        _NeverFits(),
        {"C": (1e-3, 1e2, "log-uniform")},
        n_iter=4,
        n_candidates=8,
        random_state=0,
        noise_random_state=1,
        error_score=np.nan,
        n_jobs=2,
    )
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        with pytest.raises(ValueError, match="Every candidate evaluated"):
            search.fit(X_tr, y_tr, X_val=X_va, y_val=y_va)
    assert not [w for w in seen if JOBLIB_EARLY_EXIT in str(w.message)]


# ---------------------------------------------------------------------------
# Racing with failed folds
# ---------------------------------------------------------------------------


def _table_search(fold_scores, *, racing, size):
    """A PublicSearch over far-apart candidates proposed in rank order (flat
    GP), one job in flight; ``fold_scores[j][k]`` is candidate j on fold k
    (NaN: a failed fit with error_score=NaN)."""
    n, n_folds = len(fold_scores), len(fold_scores[0])

    def fold_job(j, k):
        return Job(lambda: (fold_scores[j][k], None, 0.0, 0.0), (), tag=(j, k))

    search = PublicSearch(
        np.eye(n),
        n_iter=n,
        beta=lambda t: 1.0,
        tie_break=np.arange(n),
        fold_job=fold_job,
        n_folds=n_folds,
        fold0_size=50,  # margin 0.1 for z = 1 on (0, 1)
        bounds=(0.0, 1.0),
        to_gp=lambda s: 0.0,
        racing=racing,
        shortlist_size=size,
        kernel="matern52",
        length_scale=0.01,
        noise=0.01,
    )
    run_ordered(search, window=1, n_jobs=1)
    return search


def test_a_contender_that_failed_a_fold_does_not_race_others_out():
    # Candidate 0 is best on fold 0 but fails on fold 1: it can never be
    # shortlisted, so it must not hold a shortlist place in the racing rule.
    # Candidate 2 (0.6 < 0.8 - 0.1) is raced out only if 0 still counts.
    nan = float("nan")
    scores = [[0.9, nan, 0.9], [0.8, 0.8, 0.8], [0.6, 0.6, 0.6]]
    unraced = _table_search(scores, racing=None, size=2)
    raced = _table_search(scores, racing=1.0, size=2)
    assert unraced.shortlist() == [1, 2]
    assert raced.shortlist() == unraced.shortlist()
    # A candidate failing fold 0 holds no place either.
    scores = [[nan, 0.9, 0.9], [0.8, 0.8, 0.8], [0.9, 0.9, 0.9], [0.75, 0.7, 0.7]]
    assert _table_search(scores, racing=1.0, size=2).shortlist() == [2, 1]
    assert _table_search(scores, racing=0.0, size=2).shortlist() == [2, 1]
    # Without failures the rule is unchanged: 0.6 is raced out by 0.9, 0.8.
    scores = [[0.9, 0.9, 0.9], [0.8, 0.8, 0.8], [0.6, 0.6, 0.6]]
    assert _table_search(scores, racing=1.0, size=2).folds_run().tolist() == [3, 3, 1]


# ---------------------------------------------------------------------------
# Backends without generators (joblib's "multiprocessing")
# ---------------------------------------------------------------------------


class _Chain:
    """Each job's input is the sum of the results so far: any reordering or
    lost job changes the results."""

    def __init__(self, n: int = 10):
        self.n, self.i, self.total, self.results = n, 0, 0, []

    def next_job(self):
        if self.i >= self.n:
            return None
        self.i += 1
        return Job(_plus_one_squared, (self.total % 97,), tag=self.i)

    def process(self, job, result):
        self.results.append(result)
        self.total += result


def _plus_one_squared(x: int) -> int:
    return (x + 1) ** 2


def test_a_backend_without_generators_runs_the_same_sequence():
    import joblib

    reference = _Chain()
    run_ordered(reference, window=3, n_jobs=1)
    chain = _Chain()
    with joblib.parallel_config(backend="multiprocessing"):
        assert run_ordered(chain, window=3, n_jobs=2) == 10
    assert chain.results == reference.results


# ---------------------------------------------------------------------------
# After the validation read: errors in the stream, the restored fit
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("n_jobs, here_seconds", [(1, 0.02), (2, math.inf), (2, -1.0)])
def test_a_validation_score_error_in_the_stream_is_sealed(
    scaled_cancer_split, monkeypatch, n_jobs, here_seconds
):
    # The error's message carries a value computed from the validation set;
    # the search must replace it (type and message) whatever V is, and the
    # parallel call must stop without a warning of its own. Scores computed
    # in this thread (here_seconds=inf) and in the workers (-1).
    import joblib

    import sklearn_dpbo.model_selection._evaluation as evaluation
    from sklearn_dpbo.model_selection._sealed import PrivateComputationError

    X_tr, y_tr, X_va, y_va = scaled_cancer_split

    def leaky_score(model, records, scorer):
        raise ValueError(f"secret mean {float(np.mean(records.X)):.6f}")

    # In this thread (score_private) and in the workers, where a model off
    # the row-wise list is scored by blocks of records (_private_values).
    monkeypatch.setattr(evaluation, "score_private", leaky_score)
    monkeypatch.setattr(evaluation, "_private_values", leaky_score)
    monkeypatch.setattr(evaluation, "SCORE_HERE_SECONDS", here_seconds)
    messages = []
    for X_val in (X_va, X_va + 1.0):  # V and a V' that shifts the message
        search = DPBayesSearchCV(
            _LR(max_iter=200),
            {"C": (1e-3, 1e2, "log-uniform")},
            n_iter=4,
            n_candidates=8,
            random_state=0,
            noise_random_state=1,
            n_jobs=n_jobs,
        )
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            with joblib.parallel_config(backend="threading"):
                with pytest.raises(PrivateComputationError) as info:
                    search.fit(X_tr, y_tr, X_val=X_val, y_val=y_va)
        assert info.value.__cause__ is None and info.value.__suppress_context__
        assert "secret" not in str(info.value)
        assert not hasattr(search, "best_estimator_")
        assert not [w for w in seen if JOBLIB_EARLY_EXIT in str(w.message)]
        messages.append(str(info.value))
    assert messages[0] == messages[1]


# ---------------------------------------------------------------------------
# scikit-learn conventions
# ---------------------------------------------------------------------------


def test_racing_is_a_plain_nested_parameter(scaled_cancer_split):
    from sklearn.base import clone

    from sklearn_dpbo.model_selection import PrivateSelection

    X_tr, y_tr, X_va, y_va = scaled_cancer_split
    search = DPBayesSearchCV(
        _LR(max_iter=200),
        {"C": (1e-3, 1e2, "log-uniform")},
        method=PrivateSelection(racing=None, shortlist_size=2),
        n_iter=12,
        n_candidates=32,
        random_state=0,
        noise_random_state=1,
    )
    assert search.get_params()["method__racing"] is None
    assert clone(search).method.racing is None
    search.set_params(method__racing=-1.0)
    with pytest.raises(ValueError, match="racing"):
        search.fit(X_tr, y_tr, X_val=X_va, y_val=y_va)
    search.set_params(method__racing=0.0)
    search.fit(X_tr, y_tr, X_val=X_va, y_val=y_va)
    res = search.cv_results_
    n_run = res["n_public_folds"]
    assert n_run.min() == 1 and n_run.max() == 3  # some raced out (z = 0)
    splits = np.column_stack(
        [res[f"split{k}_public_cv_score"] for k in range(n_run.max())]
    )
    # Un-run folds are NaN, run folds are scores; the mean is over run folds.
    assert (np.isnan(splits).sum(axis=1) == n_run.max() - n_run).all()
    np.testing.assert_allclose(
        res["mean_public_cv_score"],
        [row[:r].mean() for row, r in zip(splits, n_run)],
    )
    assert (n_run[res["shortlisted"]] == n_run.max()).all()
    # The fitted search pickles without the snapshot and predicts the same.
    restored = pickle.loads(pickle.dumps(search))
    assert not [k for k in vars(restored) if "selected_fit" in k]
    np.testing.assert_array_equal(restored.predict(X_va), search.predict(X_va))


def test_a_stream_whose_first_tasks_are_refused_leaves_no_live_feed():
    # parallel(feed) itself raises (the backend refuses the first task, or
    # an interruption while the first tasks are dispatched): the registry
    # of live feeds must not keep the dead stream's feed while the caller
    # holds the traceback.
    import joblib
    from joblib._parallel_backends import ThreadingBackend

    import sklearn_dpbo.model_selection._scheduler as scheduler

    class Refusing(ThreadingBackend):
        def submit(self, func, callback=None):
            raise RuntimeError("refused on purpose")

        apply_async = submit  # joblib < 1.5 calls apply_async

    jobs = [Job(_plus_one_squared, (i,)) for i in range(4)]
    with joblib.parallel_config(backend=Refusing()):
        with pytest.raises(RuntimeError, match="refused on purpose") as info:
            run_ordered(JobList(jobs), window=3, n_jobs=2)
    assert info.value.__traceback__ is not None  # its frames are alive
    assert len(scheduler._LIVE_FEEDS) == 0


@pytest.mark.parametrize("backend", ["loky", "multiprocessing", "threading"])
def test_validation_scores_in_workers_under_an_explicit_backend(
    scaled_cancer_split, monkeypatch, backend
):
    # Under joblib.parallel_config(backend=...) every Parallel shares the
    # config's backend object: run_ordered's own Parallel terminated it
    # (loky: _workers = None; multiprocessing: its pool) while the search's
    # managed ctx.parallel still held it, so scoring the validation set in
    # the workers afterwards failed (sealed as PrivateComputationError,
    # budget spent). The same releases as scoring in this thread.
    import joblib

    import sklearn_dpbo.model_selection._evaluation as evaluation
    from sklearn_dpbo.model_selection import PrivateSelection

    X_tr, y_tr, X_va, y_va = scaled_cancer_split

    def release(limit):
        monkeypatch.setattr(evaluation, "SCORE_HERE_SECONDS", limit)
        search = DPBayesSearchCV(
            _LR(max_iter=200),
            {"C": (1e-3, 1e2, "log-uniform")},
            method=PrivateSelection(batch_size=2),
            n_iter=4,
            n_candidates=8,
            random_state=0,
            noise_random_state=1,
            n_jobs=2,
        )
        with joblib.parallel_config(backend=backend):
            search.fit(X_tr, y_tr, X_val=X_va, y_val=y_va)
        return search.best_index_, search.best_score_, search.shortlist_.tolist()

    assert release(-1.0) == release(math.inf)
