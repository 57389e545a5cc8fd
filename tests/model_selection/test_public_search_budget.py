"""The row budget of the public search (``PrivateSelection(public_budget=b)``).

- Fit counts: every candidate gets public fold 0; once every fold-0 result
  is in, the other folds go to the best candidates by fold-0 score, as many
  as the remaining rows pay for (at least ``shortlist_size``), so the fold
  fits use at most b · n_iter · n_train rows (hand-computed cases).
- The racing margin still applies within the budget; failed candidates
  never get more folds; only candidates with every fold are shortlisted.
- Determinism: the evaluations depend on the window, never on timing
  (sequential, loky and threading backends give the same transcript).
- Public only: the whole public transcript, shortlist included, is the same
  for neighbouring validation sets, and is decided before the validation
  set is read; a real search respects the cap.
- The defaults ``public_cv="auto"``, ``public_budget="auto"``: 2 public
  folds with the budget 0.75 from ``LARGE_TRAIN_ROWS`` training rows, else
  exactly the search of ``public_cv=3, public_budget=None`` (same
  transcript, same releases); the validation set's size plays no part.
"""

from __future__ import annotations

import math

import joblib
import numpy as np
import pytest
from conftest import NOISE_SEED_WARNING
from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression
from sklearn.utils._param_validation import InvalidParameterError

import sklearn_dpbo.model_selection._private_selection as private_selection
from sklearn_dpbo import DPBayesSearchCV
from sklearn_dpbo.bo._acquisition import ucb_beta
from sklearn_dpbo.model_selection import PrivateSelection
from sklearn_dpbo.model_selection._context import SearchData
from sklearn_dpbo.model_selection._public_search import (
    LARGE_TRAIN_ROWS,
    PublicSearch,
    resolve_public_signal,
)
from sklearn_dpbo.model_selection._scheduler import Job, run_ordered

pytestmark = [
    pytest.mark.usefixtures("single_blas_thread"),
    pytest.mark.filterwarnings(NOISE_SEED_WARNING),
]


def _fold_score(fold0, j, k):
    return (fold0[j] if k == 0 else 0.5, None, 0.0, 0.0)


def _budget_search(
    fold0,
    *,
    budget,
    racing=None,
    size=2,
    fold_rows=(60, 60, 60),
    n_train=90,
    window=1,
    n_jobs=1,
):
    """A PublicSearch over far-apart candidates proposed in rank order (flat
    GP); fold 0 of candidate j scores ``fold0[j]`` (NaN: failed fit), the
    other folds 0.5. Returns the search after the run and the jobs run."""
    n = len(fold0)
    ran = []

    def fold_job(j, k):
        ran.append((j, k))
        return Job(_fold_score, (fold0, j, k), tag=(j, k))

    search = PublicSearch(
        np.eye(n),
        n_iter=n,
        beta=lambda t: 1.0,
        tie_break=np.arange(n),
        fold_job=fold_job,
        n_folds=len(fold_rows),
        fold0_size=50,  # margin 0.1 · z on (0, 1)
        bounds=(0.0, 1.0),
        to_gp=lambda s: 0.0,
        racing=racing,
        shortlist_size=size,
        kernel="matern52",
        length_scale=0.01,
        noise=0.01,
        budget=budget,
        fold_rows=fold_rows,
        n_train=n_train,
    )
    run_ordered(search, window=window, n_jobs=n_jobs)
    return search, ran


FOLD0 = [0.70, 0.90, 0.60, 0.95, 0.80, 0.85, 0.50, 0.88]


def test_the_rows_left_after_fold_0_go_to_the_best_fold_0_scores():
    # 8 candidates, 3 folds of 60 fitting rows, 90 training rows, b = 1:
    # 8 · 90 = 720 rows; fold 0 takes 8 · 60 = 480; each further candidate
    # costs 2 · 60 = 120 rows: 240 // 120 = 2 more candidates, the two best
    # fold-0 scores (0.95: candidate 3, 0.90: candidate 1); shortlist_size 1.
    search, ran = _budget_search(FOLD0, budget=1.0, size=1)
    assert sorted(search.contenders) == [1, 3]
    assert search.folds_run().tolist() == [1, 3, 1, 3, 1, 1, 1, 1]
    assert search.rows_used() == 720 <= 1.0 * 8 * 90
    # Fold 0 of everyone first, then the others (one round at the end).
    assert ran[:8] == [(j, 0) for j in range(8)]
    assert sorted(ran[8:]) == [(1, 1), (1, 2), (3, 1), (3, 2)]
    # b = 1.5 pays for 2 more (1080 - 480 = 600 rows: 5 candidates).
    search, _ = _budget_search(FOLD0, budget=1.5, size=1)
    assert sorted(search.contenders) == [1, 3, 4, 5, 7]
    assert search.rows_used() == 1080
    # A budget that pays for all: every candidate gets every fold.
    search, _ = _budget_search(FOLD0, budget=10.0)
    assert search.folds_run().tolist() == [3] * 8


def test_a_budget_for_no_more_than_the_shortlist_runs_no_more_folds():
    # b = 0.5 does not even pay for fold 0 of everyone (360 < 480 rows), and
    # b = 1 with shortlist_size = 2 pays for exactly 2 more candidates:
    # more folds could not change the shortlist (a set), so none is run and
    # fold 0 decides (a single public hold-out), best first.
    for budget, size in ((0.5, 3), (1.0, 2)):
        search, ran = _budget_search(FOLD0, budget=budget, size=size)
        assert ran == [(j, 0) for j in range(8)]
        assert search.folds_run().tolist() == [1] * 8
        assert search.shortlist() == [3, 1, 7][:size]
        assert search.rows_used() == 480
    # One candidate more than the shortlist: 3 get every fold (b = 1.5 pays
    # for 5, shortlist_size 4 < 5).
    search, _ = _budget_search(FOLD0, budget=1.5, size=4)
    assert search.folds_run().tolist() == [1, 3, 1, 3, 3, 3, 1, 3]


def test_only_candidates_with_every_fold_are_shortlisted_best_mean_first():
    fold0 = [0.70, 0.90, 0.60, 0.95, 0.80, 0.85, 0.50, 0.88]
    search, _ = _budget_search(fold0, budget=1.5, size=3)
    # Folds 1 and 2 score 0.5: the mean keeps the fold-0 order.
    assert search.shortlist() == [3, 1, 7]
    evaluated, scores = search.split_scores()
    not_run = [j for j in evaluated if j not in search.contenders]
    assert np.isnan(scores[not_run, 1:]).all()
    assert not np.isnan(scores[sorted(search.contenders)]).any()


def test_the_racing_margin_still_applies_within_the_budget():
    # z = 1, n0 = 50 on (0, 1): margin 0.1 below the 2nd best fold-0 score
    # (0.90): candidates below 0.80 get no more folds even if paid for.
    search, _ = _budget_search(FOLD0, budget=10.0, racing=1.0)
    assert sorted(search.contenders) == [1, 3, 4, 5, 7]
    assert search.folds_run().tolist() == [1, 3, 1, 3, 3, 3, 1, 3]
    search, _ = _budget_search(FOLD0, budget=10.0, racing=0.0, size=1)
    assert sorted(search.contenders) == [3]


def test_a_failed_candidate_gets_no_more_folds_and_no_place():
    nan = float("nan")
    fold0 = [nan, 0.90, 0.60, 0.95]
    search, ran = _budget_search(fold0, budget=10.0, size=2, n_train=90)
    assert 0 not in search.contenders and (0, 1) not in ran
    assert search.shortlist() == [3, 1]


def test_the_gp_sees_fold_0_scores_while_it_runs():
    # In budget mode the value of every candidate at proposal time is its
    # fold-0 score (the later folds come after the last proposal).
    observed = []
    fold0 = [0.3, 0.9, 0.6, 0.95]

    def to_gp(s):
        observed.append(s)
        return s

    n = len(fold0)
    search = PublicSearch(
        np.eye(n),
        n_iter=n,
        beta=lambda t: 1.0,
        tie_break=np.arange(n),
        fold_job=lambda j, k: Job(_fold_score, (fold0, j, k), tag=(j, k)),
        n_folds=3,
        fold0_size=50,
        bounds=(0.0, 1.0),
        to_gp=to_gp,
        racing=None,
        shortlist_size=2,
        kernel="matern52",
        length_scale=0.01,
        noise=0.01,
        budget=1.0,
        fold_rows=(60, 60, 60),
        n_train=90,
    )
    run_ordered(search, window=1, n_jobs=1)
    assert search.gp.n_observed == n
    assert observed[:n] == fold0


def _smooth_problem(seed=3, n=40):
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n, 2))
    values = 0.5 + 0.3 * np.sin(5 * X[:, 0]) * np.cos(3 * X[:, 1])
    return X, values, rng.permutation(n)


def _scored(values, j, k):
    return float(values[j] + 0.01 * (k - 1)), None, 0.0, 0.0


def _transcript(window, n_jobs, backend=None):
    X, values, ranks = _smooth_problem()
    search = PublicSearch(
        X,
        n_iter=16,
        beta=lambda t: ucb_beta(t, len(X), 0.1),
        tie_break=ranks,
        fold_job=lambda j, k: Job(_scored, (values, j, k), tag=(j, k)),
        n_folds=3,
        fold0_size=50,
        bounds=(0.0, 1.0),
        to_gp=lambda s: s,
        racing=0.5,
        shortlist_size=3,
        kernel="matern52",
        length_scale=0.2,
        noise=0.01,
        budget=1.0,
        fold_rows=(60, 60, 60),
        n_train=90,
    )
    if backend is None:
        run_ordered(search, window=window, n_jobs=n_jobs)
    else:
        with joblib.parallel_backend(backend, n_jobs=n_jobs):
            run_ordered(search, window=window, n_jobs=n_jobs)
    evaluated, scores = search.split_scores()
    return (
        search.gp.index[: search.gp.n_rows].tolist(),
        evaluated,
        np.nan_to_num(scores, nan=-1.0).tolist(),
        search.shortlist(),
    )


def test_the_budgeted_search_depends_on_the_window_never_on_timing():
    reference = _transcript(window=6, n_jobs=1)
    assert _transcript(window=6, n_jobs=2) == reference
    assert _transcript(window=6, n_jobs=3, backend="threading") == reference
    # 16 · 90 rows: fold 0 of the distinct candidates, then 2 folds each
    # for as many as the rest pays for (at least the shortlist's 3).
    n_evaluated = len(reference[1])
    n_full = sum(1 for row in reference[2] if -1.0 not in row)
    assert n_full >= 3
    assert 60 * n_evaluated + 120 * n_full <= 16 * 90 or n_full == 3


# ---------------------------------------------------------------------------
# The search
# ---------------------------------------------------------------------------
SPACE = {"C": (1e-3, 1e2, "log-uniform")}


def _search(**kw):
    mode = PrivateSelection(
        public_budget=kw.pop("public_budget", 1.5), racing=kw.pop("racing", 0.5)
    )
    params = dict(n_iter=12, n_candidates=64, random_state=0, noise_random_state=1)
    params.update(kw)
    return DPBayesSearchCV(
        LogisticRegression(max_iter=200), SPACE, method=mode, **params
    )


def test_a_real_search_keeps_its_public_fits_under_the_cap(scaled_cancer_split):
    X_tr, y_tr, X_va, y_va = scaled_cancer_split
    s = _search().fit(X_tr, y_tr, X_val=X_va, y_val=y_va)
    n_train = len(y_tr)
    folds = s.cv_results_["n_public_folds"]
    # 3 stratified folds: each fit uses at least n_train - ceil(n_train / 3)
    # rows; the cap is 1.5 · 12 · n_train rows.
    assert folds.sum() * (n_train - math.ceil(n_train / 3)) <= 1.5 * 12 * n_train
    assert (folds == 3).sum() >= 3 and set(folds.tolist()) <= {1, 3}
    # The shortlist is taken among the candidates with every fold.
    kept = s.cv_results_["shortlisted"]
    assert (folds[kept] == 3).all() and kept.sum() == len(s.shortlist_)
    # Fewer public fits than every fold of every candidate.
    r = _search(public_budget=None, racing=None)
    r.fit(X_tr, y_tr, X_val=X_va, y_val=y_va)
    assert folds.sum() < r.cv_results_["n_public_folds"].sum() == 3 * len(folds)
    # A budget that pays for no more than the shortlist: fold 0 decides.
    h = _search(public_budget=0.5).fit(X_tr, y_tr, X_val=X_va, y_val=y_va)
    assert (h.cv_results_["n_public_folds"] == 1).all()
    kept = h.cv_results_["shortlisted"]
    top = np.argsort(-h.cv_results_["split0_public_cv_score"], kind="stable")[:3]
    assert kept.sum() == 3
    np.testing.assert_array_equal(
        np.sort(h.cv_results_["split0_public_cv_score"][kept]),
        np.sort(h.cv_results_["split0_public_cv_score"][top]),
    )


def test_the_budgeted_transcript_is_public(scaled_cancer_split, monkeypatch):
    X_tr, y_tr, X_va, y_va = scaled_cancer_split
    y_nb = y_va.copy()
    y_nb[0] = 1 - y_nb[0]
    X_nb = X_va.copy()
    X_nb[0] = X_nb[0] * 100.0
    a = _search(n_jobs=2).fit(X_tr, y_tr, X_val=X_va, y_val=y_va)
    b = _search(n_jobs=1).fit(X_tr, y_tr, X_val=X_nb, y_val=y_nb)
    for key in ("candidate_index", "n_public_folds", "split0_public_cv_score"):
        np.testing.assert_array_equal(a.cv_results_[key], b.cv_results_[key])
    np.testing.assert_array_equal(a.shortlist_, b.shortlist_)
    # Every public job (fold-0 round, the budget's round, the shortlist's
    # fits) comes before the validation read.
    events = []

    class Recorded(private_selection.PublicSearch):
        def process(self, job, result):
            events.append("public")
            super().process(job, result)

    real_read = SearchData._read

    def read(self):
        if self._on_private_read is not None:
            events.append("read")
        real_read(self)

    monkeypatch.setattr(private_selection, "PublicSearch", Recorded)
    monkeypatch.setattr(SearchData, "_read", read)
    _search().fit(X_tr, y_tr, X_val=X_va, y_val=y_va)
    assert events.count("read") == 1 and "public" not in events[events.index("read") :]


@pytest.mark.parametrize("bad", [0, -1.0])
def test_public_budget_must_be_positive(scaled_cancer_split, bad):
    X_tr, y_tr, X_va, y_va = scaled_cancer_split
    with pytest.raises(InvalidParameterError, match="public_budget"):
        _search(public_budget=bad).fit(X_tr, y_tr, X_val=X_va, y_val=y_va)


@pytest.mark.parametrize("bad", ["fast", "AUTO"])
def test_public_budget_strings_other_than_auto_are_refused(scaled_cancer_split, bad):
    X_tr, y_tr, X_va, y_va = scaled_cancer_split
    with pytest.raises(InvalidParameterError, match="public_budget"):
        _search(public_budget=bad).fit(X_tr, y_tr, X_val=X_va, y_val=y_va)


# ---------------------------------------------------------------------------
# The defaults public_cv="auto", public_budget="auto"
# ---------------------------------------------------------------------------
def test_auto_resolves_on_the_public_training_set_size_only():
    mode = PrivateSelection()
    assert (mode.public_cv, mode.public_budget) == ("auto", "auto")
    assert LARGE_TRAIN_ROWS == 20_000
    assert resolve_public_signal("auto", "auto", LARGE_TRAIN_ROWS - 1) == (3, None)
    assert resolve_public_signal("auto", "auto", LARGE_TRAIN_ROWS) == (2, 0.75)
    assert resolve_public_signal("auto", "auto", 10**7) == (2, 0.75)
    # Each "auto" alone: the folds follow the rule; the budget only with
    # public_cv="auto" (0.75 is a budget for 2 folds).
    assert resolve_public_signal("auto", None, 10**6) == (2, None)
    assert resolve_public_signal("auto", 0.5, 10**6) == (2, 0.5)
    assert resolve_public_signal(3, "auto", 10**6) == (3, None)
    assert resolve_public_signal(5, "auto", 10) == (5, None)
    # Explicit values are kept as they are, whatever the size.
    assert resolve_public_signal(4, 0.7, 10) == (4, 0.7)
    assert resolve_public_signal(3, None, 10**6) == (3, None)


@pytest.mark.parametrize("bad", ["fast", "AUTO", 1])
def test_public_cv_values_other_than_auto_or_a_splitter_are_refused(
    scaled_cancer_split, bad
):
    X_tr, y_tr, X_va, y_va = scaled_cancer_split
    mode = PrivateSelection(public_cv=bad)
    search = DPBayesSearchCV(LogisticRegression(), SPACE, method=mode, n_iter=2)
    with pytest.raises(InvalidParameterError, match="public_cv"):
        search.fit(X_tr, y_tr, X_val=X_va, y_val=y_va)


def test_a_zero_budget_is_a_single_hold_out_at_any_n_iter():
    # budget 0: fold 0 of every candidate and nothing else, the shortlist
    # the best fold-0 scores, even where b = 0.7 would pay for more folds
    # (here: b = 1.5 runs 5 more).
    fold0 = FOLD0 * 3  # 24 candidates
    search, ran = _budget_search(fold0, budget=0.0, size=3, racing=0.5)
    assert ran == [(j, 0) for j in range(len(fold0))]
    assert search.folds_run().tolist() == [1] * len(fold0)
    assert search.shortlist() == [3, 11, 19]  # 0.95 three times, public order
    assert search.rows_used() == 60 * len(fold0)
    wider, _ = _budget_search(fold0, budget=1.5, size=3, racing=None)
    assert wider.folds_run().sum() > len(fold0)


def _fit_pair(X_tr, y_tr, X_va, y_va, estimator=None, **kw):
    """The default search and the same search with each ``kw`` value, a
    ``PrivateSelection`` keyword dict, all seeded alike."""
    out = {}
    for label, mode_kw in {"auto": {}, **kw}.items():
        s = DPBayesSearchCV(
            LogisticRegression(max_iter=200) if estimator is None else estimator,
            SPACE,
            method=PrivateSelection(**mode_kw),
            n_iter=8,
            n_candidates=64,
            random_state=0,
            noise_random_state=1,
        )
        out[label] = s.fit(X_tr, y_tr, X_val=X_va, y_val=y_va)
    return out


def _assert_same_search(a, b, n_folds):
    for key in ("candidate_index", "n_public_folds", "shortlisted"):
        np.testing.assert_array_equal(a.cv_results_[key], b.cv_results_[key])
    for k in range(n_folds):
        key = f"split{k}_public_cv_score"
        np.testing.assert_array_equal(a.cv_results_[key], b.cv_results_[key])
    assert f"split{n_folds}_public_cv_score" not in a.cv_results_
    np.testing.assert_array_equal(a.shortlist_, b.shortlist_)
    assert a.best_index_ == b.best_index_
    assert a.best_score_ == b.best_score_


def test_auto_below_the_threshold_is_exactly_the_racing_search(
    scaled_cancer_split, monkeypatch
):
    # 300 training rows: the search is the one of public_cv=3,
    # public_budget=None (same public table, shortlist and releases), and
    # the rule is given the training rows only (the validation set's size
    # plays no part).
    X_tr, y_tr, X_va, y_va = scaled_cancer_split
    sizes = []

    def spy(public_cv, public_budget, n_train):
        sizes.append(n_train)
        return resolve_public_signal(public_cv, public_budget, n_train)

    monkeypatch.setattr(private_selection, "resolve_public_signal", spy)
    fits = _fit_pair(X_tr, y_tr, X_va, y_va, none=dict(public_cv=3, public_budget=None))
    assert sizes == [len(y_tr)] * 2
    assert (fits["none"].cv_results_["n_public_folds"] == 3).sum() >= 3
    _assert_same_search(fits["auto"], fits["none"], 3)


class _Trivial(LogisticRegression):
    """``LogisticRegression``'s parameters, a fit that looks at one feature's
    mean only: a cheap estimator for 20,000 rows."""

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        self.t_ = float(np.mean(X[:, 0])) + np.log10(self.C) / 10
        return self

    def predict(self, X):
        return self.classes_[(X[:, 0] > self.t_).astype(int)]


@pytest.fixture(scope="module")
def large_split():
    # LARGE_TRAIN_ROWS training rows, 400 validation rows.
    X, y = make_classification(
        n_samples=LARGE_TRAIN_ROWS + 400, n_features=4, random_state=0
    )
    n = LARGE_TRAIN_ROWS
    return X[:n], y[:n], X[n:], y[n:]


def test_auto_at_the_threshold_is_two_folds_with_budget_0_75(large_split):
    X_tr, y_tr, X_va, y_va = large_split
    fits = _fit_pair(
        X_tr,
        y_tr,
        X_va,
        y_va,
        estimator=_Trivial(),
        set=dict(public_cv=2, public_budget=0.75),
        none=dict(public_cv=3, public_budget=None),
    )
    auto = fits["auto"]
    _assert_same_search(auto, fits["set"], 2)
    # 0.75 · 8 · 20,000 rows: fold 0 of every candidate (10,000 rows each),
    # then fold 1 for as many as the remaining rows pay for.
    folds = auto.cv_results_["n_public_folds"]
    assert set(folds.tolist()) <= {1, 2} and (folds == 2).sum() >= 3
    assert 10_000 * folds.sum() <= 0.75 * 8 * LARGE_TRAIN_ROWS
    # The racing search on 3 folds is another search.
    assert "split2_public_cv_score" in fits["none"].cv_results_
    # One row fewer: the racing search on 3 folds again.
    fewer = _fit_pair(
        X_tr[:-1],
        y_tr[:-1],
        X_va,
        y_va,
        estimator=_Trivial(),
        none=dict(public_cv=3, public_budget=None),
    )
    _assert_same_search(fewer["auto"], fewer["none"], 3)
