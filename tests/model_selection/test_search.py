"""End-to-end behaviour of DPBayesSearchCV: fitted attributes, delegation,
privacy report and budget split, input routes, refit on training rows only,
utility sanity and parallel determinism."""

from __future__ import annotations

import math
import warnings

import joblib
import numpy as np
import pytest
from _modekw import with_mode
from conftest import NOISE_SEED_WARNING, RowSpyClassifier, make_spy_scorer
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer, make_classification
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score
from sklearn.model_selection import (
    GroupShuffleSplit,
    KFold,
    LeaveOneOut,
    PredefinedSplit,
    ShuffleSplit,
    StratifiedKFold,
    StratifiedShuffleSplit,
    train_test_split,
)
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC
from sklearn.utils.validation import check_is_fitted

from sklearn_dpbo import BudgetAccountant, DPBayesSearchCV, UselessReleaseWarning
from sklearn_dpbo.model_selection import PrivateSelection
from sklearn_dpbo.privacy import DPScorer, PrivacyReport
from sklearn_dpbo.privacy._scorers import ROW_INDEPENDENCE

pytestmark = [
    pytest.mark.usefixtures("single_blas_thread"),
    # noise_random_state (tests only) makes releases reproducible; fit warns.
    pytest.mark.filterwarnings(NOISE_SEED_WARNING),
]

METHODS = ["private-selection", "gp-ucb"]
SVC_SPACE = {
    "svc__C": (1e-1, 1e3, "log-uniform"),
    "svc__gamma": (1e-4, 1e-1, "log-uniform"),
}
LR_GRID = {"logisticregression__C": [1e-3, 1e-2, 1e-1, 1.0]}


def svc_search(method, **kw):
    params = dict(
        method=method,
        n_iter=6,
        n_candidates=32,
        random_state=0,
        noise_random_state=0,
    )
    params.update(kw)
    params = with_mode(params.pop("method"), params)
    return DPBayesSearchCV(make_pipeline(StandardScaler(), SVC()), SVC_SPACE, **params)


def lr_search(method="private-selection", **kw):
    params = dict(n_iter=3, random_state=0, noise_random_state=0)
    params.update(kw)
    params = with_mode(method, params, public_cv=2)
    return DPBayesSearchCV(
        make_pipeline(StandardScaler(), LogisticRegression()), LR_GRID, **params
    )


_FITTED: dict = {}


@pytest.fixture(scope="module")
def fitted(cancer_split, digits_split):
    """Fitted SVC searches, one per (dataset, method), shared by the tests."""
    splits = {"breast_cancer": cancer_split, "digits": digits_split}

    def get(dataset, method):
        key = (dataset, method)
        if key not in _FITTED:
            X_tr, y_tr, X_va, y_va = splits[dataset]
            search = svc_search(method).fit(X_tr, y_tr, X_val=X_va, y_val=y_va)
            _FITTED[key] = (search, splits[dataset])
        return _FITTED[key]

    yield get
    _FITTED.clear()


# ---------------------------------------------------------------------------
# 1. End to end
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("dataset", ["breast_cancer", "digits"])
def test_end_to_end_fitted_attributes(fitted, dataset, method):
    search, (X_tr, y_tr, X_va, y_va) = fitted(dataset, method)

    assert isinstance(search.candidate_params_, list)
    assert 1 < len(search.candidate_params_) <= 32
    assert all(isinstance(p, dict) for p in search.candidate_params_)
    assert all(set(p) == set(SVC_SPACE) for p in search.candidate_params_)

    assert type(search.best_candidate_index_) is int
    assert 0 <= search.best_candidate_index_ < len(search.candidate_params_)
    assert isinstance(search.best_params_, dict)
    assert search.best_params_ == search.candidate_params_[search.best_candidate_index_]
    assert type(search.best_index_) is int
    if method == "private-selection":
        # As in scikit-learn: best_index_ is the released candidate's row.
        assert search.cv_results_["params"][search.best_index_] == search.best_params_
        row = search.best_index_
        assert search.cv_results_["candidate_index"][row] == (
            search.best_candidate_index_
        )
    else:  # no cv_results_: best_index_ indexes candidate_params_
        assert search.best_index_ == search.best_candidate_index_
    assert search.n_splits_ == 1 and search.multimetric_ is False
    assert 1e-1 <= search.best_params_["svc__C"] <= 1e3
    assert 1e-4 <= search.best_params_["svc__gamma"] <= 1e-1

    assert type(search.best_score_) is float
    assert 0.0 <= search.best_score_ <= 1.0

    assert isinstance(search.scorer_, DPScorer)
    assert search.scorer_.bounds == (0.0, 1.0)
    assert search.n_validation_ == len(y_va)
    assert isinstance(search.refit_time_, float)
    if method == "private-selection":  # the restored fit, timed before the read
        assert search.refit_time_ >= 0
    else:  # a refit after the read: its time is not kept (issue 19)
        assert np.isnan(search.refit_time_)
    assert isinstance(search.privacy_report_, PrivacyReport)

    if method == "private-selection":
        shortlist = search.shortlist_
        assert isinstance(shortlist, np.ndarray)
        assert np.issubdtype(shortlist.dtype, np.integer)
        assert 1 <= len(shortlist) <= 5
        assert len(set(shortlist.tolist())) == len(shortlist)
        assert shortlist.min() >= 0
        assert shortlist.max() < len(search.candidate_params_)
        assert search.best_candidate_index_ in shortlist.tolist()
    else:
        # The evaluated sequence of GP-UCB is private: no shortlist is kept.
        assert not hasattr(search, "shortlist_")

    # best_estimator_: a fitted clone of the pipeline with best_params_.
    best = search.best_estimator_
    assert isinstance(best, Pipeline)
    assert best is not search.estimator
    check_is_fitted(best)
    best_svc = best.named_steps["svc"]
    assert best_svc.C == search.best_params_["svc__C"]
    assert best_svc.gamma == search.best_params_["svc__gamma"]
    # The user's estimator is never fitted or modified.
    assert not hasattr(search.estimator.named_steps["svc"], "support_")
    assert search.estimator.named_steps["svc"].C == 1.0


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("dataset", ["breast_cancer", "digits"])
def test_end_to_end_delegation(fitted, dataset, method):
    search, (X_tr, y_tr, X_va, y_va) = fitted(dataset, method)
    best = search.best_estimator_
    X_new = X_va[:40]

    np.testing.assert_array_equal(search.predict(X_new), best.predict(X_new))
    np.testing.assert_array_equal(
        search.decision_function(X_new), best.decision_function(X_new)
    )
    assert search.score(X_va, y_va) == pytest.approx(
        accuracy_score(y_va, best.predict(X_va)), abs=1e-15
    )
    np.testing.assert_array_equal(search.classes_, np.unique(y_tr))
    assert search.n_features_in_ == X_tr.shape[1]
    # SVC() has no probability=True: delegation must not invent predict_proba.
    assert not hasattr(search, "predict_proba")
    assert not hasattr(search, "transform")


def test_predict_proba_delegation(cancer_split):
    X_tr, y_tr, X_va, y_va = cancer_split
    for search in (lr_search(), lr_search("gp-ucb")):
        search.fit(X_tr, y_tr, X_val=X_va, y_val=y_va)
        best = search.best_estimator_
        for name in ("predict_proba", "predict_log_proba", "decision_function"):
            assert hasattr(search, name), name
            np.testing.assert_allclose(
                getattr(search, name)(X_va[:25]),
                getattr(best, name)(X_va[:25]),
                rtol=0,
                atol=0,
            )
        proba = search.predict_proba(X_va[:25])
        np.testing.assert_allclose(proba.sum(axis=1), 1.0)


def test_unfitted_and_refit_false(cancer_split):
    X_tr, y_tr, X_va, y_va = cancer_split
    search = lr_search()
    for name in ("classes_", "n_features_in_", "best_params_"):
        assert not hasattr(search, name)
    with pytest.raises(Exception, match="not fitted"):
        search.predict(X_va)

    search = lr_search(refit=False).fit(X_tr, y_tr, X_val=X_va, y_val=y_va)
    assert not hasattr(search, "best_estimator_")
    assert search.best_params_ == search.cv_results_["params"][search.best_index_]
    with pytest.raises(AttributeError, match="has no attribute 'predict'") as info:
        search.predict(X_va)
    assert "refit=False" in str(info.value.__cause__)  # says what to do
    assert not hasattr(search, "predict")


# ---------------------------------------------------------------------------
# Privacy report and budget split
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize(
    "budget_split, release_score",
    [(0.5, True), (0.3, True), (0.8, False)],
)
def test_privacy_report_budget_split(cancer_split, method, budget_split, release_score):
    X_tr, y_tr, X_va, y_va = cancer_split
    epsilon, delta = 2.0, 1e-5
    search = lr_search(
        method,
        epsilon=epsilon,
        delta=delta,
        budget_split=budget_split,
        release_score=release_score,
    ).fit(X_tr, y_tr, X_val=X_va, y_val=y_va)
    report = search.privacy_report_
    releases = report.releases
    quantities = [r["quantity"] for r in releases]

    if release_score:
        assert quantities == ["best_params_", "best_score_"]
        assert hasattr(search, "best_score_")
        eps_expected = [epsilon * budget_split, epsilon * (1 - budget_split)]
        delta_split = [delta * budget_split, delta * (1 - budget_split)]
    else:
        # The whole budget goes to best_params_; no best_score_ is released.
        assert quantities == ["best_params_"]
        assert not hasattr(search, "best_score_")
        eps_expected = [epsilon]
        delta_split = [delta]
    if method == "private-selection":
        delta_expected = [0.0] * len(releases)  # pure epsilon-DP
        assert report.delta == 0.0
    else:
        delta_expected = delta_split
        assert report.delta == pytest.approx(delta, rel=1e-12)

    for r, e, d in zip(releases, eps_expected, delta_expected):
        assert r["epsilon"] == pytest.approx(e, rel=1e-12)
        assert r["delta"] == pytest.approx(d, rel=1e-12, abs=0)
        for key in ("mechanism", "guarantee", "assumption", "reference"):
            assert isinstance(r[key], str) and r[key]
        assert math.isfinite(r["sensitivity"]) and r["sensitivity"] > 0
        assert math.isfinite(r["noise_scale"]) and r["noise_scale"] > 0
        assert "value" not in r
    assert report.epsilon == pytest.approx(epsilon, rel=1e-12)
    if method == "private-selection":
        assert all(r["assumption"] == ROW_INDEPENDENCE for r in releases)
        assert all(r["guarantee"] == "pure epsilon-DP" for r in releases)
        # Swap-one sensitivity of accuracy is 1/m.
        assert releases[0]["sensitivity"] == pytest.approx(1 / len(y_va))
    else:
        assert all("Assumption 1" in r["assumption"] for r in releases)

    d = report.to_dict()
    assert d["method"] == method
    assert d["epsilon"] == pytest.approx(epsilon)
    assert [r["quantity"] for r in d["releases"]] == quantities
    text = str(report)
    for q in quantities:
        assert q in text
    assert ("best_score_" in text) == release_score


def test_quickstart_report_is_one_line_per_release_and_explain_has_the_rest():
    """README's Quickstart: ``print(search.privacy_report_)`` is short (a
    header with the total, then one line per release); ``explain()`` holds
    the neighbouring relation, the sensitivities, the sources, and the
    assumption shared by both releases, once."""
    X, y = load_breast_cancer(return_X_y=True)
    X_tr, X_va, y_tr, y_va = train_test_split(X, y, test_size=0.3, random_state=0)
    search = DPBayesSearchCV(
        make_pipeline(StandardScaler(), LogisticRegression()),
        {"logisticregression__C": (1e-3, 1e2, "log-uniform")},
        epsilon=1.0,
        delta=1e-5,
        n_iter=10,
        random_state=0,
        noise_random_state=0,
    ).fit(X_tr, y_tr, X_val=X_va, y_val=y_va)
    report = search.privacy_report_
    text = str(report)
    lines = text.splitlines()
    assert len(lines) <= 12 and len(text) <= 900, text
    assert lines[0].startswith(
        "Privacy report (method='private-selection'): total epsilon=1, delta=0"
    )
    assert lines[0].endswith("; full text: privacy_report_.explain()")
    assert len(lines) == 1 + len(report.releases)
    for line, r in zip(lines[1:], report.releases):
        assert line == (
            f"- {r['quantity']}: {r['mechanism']}, pure epsilon-DP, "
            f"epsilon=0.5, delta=0, noise scale={r['noise_scale']:.4g}; "
            "assumes row independence, by construction"
        )
    assert ROW_INDEPENDENCE not in text and report.neighbouring not in text

    full = report.explain()
    assert full.count(ROW_INDEPENDENCE) == 1  # shared by both releases
    assert f"neighbouring data sets: {report.neighbouring}" in full
    for r in report.releases:
        assert f"sensitivity={r['sensitivity']:.4g}" in full
        assert f"assumes [1]; source: {r['reference']}" in full


# ---------------------------------------------------------------------------
# Utility sanity
# ---------------------------------------------------------------------------


def test_private_selection_utility_at_large_epsilon(cancer_split):
    """At epsilon=50 the released candidate is (nearly) the best shortlisted one.

    Permute-and-flip with epsilon_1 = 25 and sensitivity 1/173 picks a
    candidate 0.03 below the best with probability < 5 * exp(-64); the
    Laplace noise on the score has scale 1/(173 * 25) < 2.5e-4.
    """
    X_tr, y_tr, X_va, y_va = cancer_split
    search = svc_search("private-selection", epsilon=50.0, n_iter=8).fit(
        X_tr, y_tr, X_val=X_va, y_val=y_va
    )
    raw = {}
    for j in search.shortlist_.tolist():
        est = clone(search.estimator).set_params(**search.candidate_params_[j])
        est.fit(X_tr, y_tr)
        raw[j] = accuracy_score(y_va, est.predict(X_va))
    best_raw = max(raw.values())
    best = search.best_candidate_index_
    assert raw[best] >= best_raw - 0.03
    assert abs(search.best_score_ - raw[best]) <= 0.03
    # The refit model is the released candidate fitted on the training set.
    assert search.score(X_va, y_va) == pytest.approx(raw[best])


# ---------------------------------------------------------------------------
# 2. Input routes, refusals, refit on training rows only
# ---------------------------------------------------------------------------


def _routes(X, y, train_ids, val_ids):
    fold = np.full(len(X), -1)
    fold[val_ids] = 0
    ss = ShuffleSplit(n_splits=1, test_size=0.3, random_state=0)
    ss_train, ss_val = next(ss.split(X, y))
    return {
        "X_val": (
            dict(X=X[train_ids], y=y[train_ids], X_val=X[val_ids], y_val=y[val_ids]),
            None,
            train_ids,
            val_ids,
        ),
        "PredefinedSplit": (dict(X=X, y=y), PredefinedSplit(fold), train_ids, val_ids),
        "list": (dict(X=X, y=y), [(train_ids, val_ids)], train_ids, val_ids),
        "ShuffleSplit": (dict(X=X, y=y), ss, np.sort(ss_train), np.sort(ss_val)),
    }


def spy_search(method, cv=None, space=None, **kw):
    params = dict(
        method=method,
        cv=cv,
        scoring=make_spy_scorer(),
        n_iter=3,
        random_state=0,
        noise_random_state=0,
    )
    params.update(kw)
    params = with_mode(params.pop("method"), params, public_cv=2)
    space = {"C": [0.01, 0.1, 1.0, 10.0]} if space is None else space
    return DPBayesSearchCV(RowSpyClassifier(), space, **params)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("route", ["X_val", "PredefinedSplit", "list", "ShuffleSplit"])
def test_input_routes_touch_validation_rows_only_through_scorer(
    id_data, spy_log, method, route
):
    X, y, train_ids, val_ids = id_data
    data, cv, train_ids, val_ids = _routes(X, y, train_ids, val_ids)[route]
    search = spy_search(method, cv=cv)
    search.fit(data.pop("X"), data.pop("y"), **data)
    train_set, val_set = set(train_ids.tolist()), set(val_ids.tolist())
    assert search.n_validation_ == len(val_ids)

    fits = [e for e in spy_log if e[0] == "fit"]
    assert len(fits) >= 2
    for _, ids, in_scorer in fits:
        assert set(ids) <= train_set, "a fit saw validation rows"
        assert not in_scorer
    # The refit (the last fit) uses every training row, and nothing else.
    assert sorted(fits[-1][1]) == sorted(train_set)
    np.testing.assert_array_equal(search.best_estimator_.fit_row_ids_, train_ids)

    # Validation rows reach the estimator only inside the DP scorer, one
    # record at a time (the spy is not on the row-wise list: isolation).
    predicted = set()
    for entry in spy_log:
        if entry[0] == "predict" and set(entry[1]) & val_set:
            assert entry[2], "validation rows predicted outside the scorer"
            assert len(entry[1]) == 1, "a validation batch was predicted at once"
            predicted |= set(entry[1])
    assert predicted == val_set
    val_scores = [e for e in spy_log if e[0] == "score" and set(e[1]) & val_set]
    assert val_scores, "the validation set was never scored"
    for _, ids in val_scores:
        assert len(ids) == 1 and set(ids) <= val_set
    # Public scores (the public cross-validation of private-selection, and the
    # pre-flight check of the score on public rows in every mode) stay inside
    # the training set.
    public = [e for e in spy_log if e[0] == "score" and not set(e[1]) & val_set]
    assert public and all(set(e[1]) <= train_set for e in public)


@pytest.mark.parametrize("method", METHODS)
def test_routes_agree(id_data, method):
    """X_val/y_val and cv=[(train, val)] on the same rows give the same release."""
    X, y, train_ids, val_ids = id_data
    a = spy_search(method).fit(
        X[train_ids], y[train_ids], X_val=X[val_ids], y_val=y[val_ids]
    )
    b = spy_search(method, cv=[(train_ids, val_ids)]).fit(X, y)
    assert a.best_index_ == b.best_index_
    assert a.best_score_ == b.best_score_


REFUSED_CV = [
    (5, "exactly one"),
    (KFold(5), "exactly one"),
    (StratifiedKFold(3), "exactly one"),
    (ShuffleSplit(n_splits=3, random_state=0), "exactly one"),
    (LeaveOneOut(), "exactly one"),
]


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize(
    "cv, match", REFUSED_CV, ids=["5", "KFold", "SKFold", "SS3", "LOO"]
)
def test_several_folds_refused(id_data, spy_log, method, cv, match):
    X, y, _, _ = id_data
    with pytest.raises(ValueError, match=match) as info:
        spy_search(method, cv=cv).fit(X, y)
    msg = str(info.value)
    assert "X_val" in msg or "PredefinedSplit" in msg or "n_splits=1" in msg
    assert spy_log == []


def test_predefined_split_with_two_folds_refused(id_data, spy_log):
    X, y, _, _ = id_data
    fold = np.arange(len(X)) % 2
    with pytest.raises(ValueError, match="exactly one") as info:
        spy_search("private-selection", cv=PredefinedSplit(fold)).fit(X, y)
    assert "X_val" in str(info.value)
    assert spy_log == []


def test_one_split_refusals_say_why_and_what_to_do(id_data, spy_log):
    """Issue 22: k folds as a list, a generator or an int, and cv=1, are
    refused with the reason (a row validated in one split is a public
    training row in another) and what to pass instead."""
    X, y, _, _ = id_data
    rows = np.arange(len(X))
    halves = [(rows[::2], rows[1::2]), (rows[1::2], rows[::2])]
    for cv in (halves, (split for split in halves), KFold(3), 4):
        with pytest.raises(ValueError, match="exactly one") as info:
            spy_search("private-selection", cv=cv).fit(X, y)
        msg = str(info.value)
        assert "a training row in another" in msg and "public" in msg, msg
        assert "Pass one split instead" in msg and "X_val" in msg
    with pytest.raises(ValueError, match="cv=1 is not one split") as info:
        spy_search("private-selection", cv=1).fit(X, y)
    assert "ShuffleSplit(n_splits=1" in str(info.value)
    assert spy_log == []


class _HalfSplit:
    """A custom splitter (no scikit-learn base class): the first half trains."""

    def split(self, X, y=None, groups=None):
        n = len(X)
        yield np.arange(n // 2), np.arange(n // 2, n)

    def get_n_splits(self, X=None, y=None, groups=None):
        return 1


class _FeatureSplit(_HalfSplit):
    """Reads the features: validation = rows with a negative first feature."""

    def split(self, X, y=None, groups=None):
        first = np.asarray(X)[:, 0]
        yield np.flatnonzero(first >= 0), np.flatnonzero(first < 0)


class _OneTimeSplitter:
    """Like scikit-learn's tests' OneTimeSplitter: a one-pass, one-split cv."""

    def __init__(self, n_samples):
        self.indices = iter(
            ShuffleSplit(n_splits=1, test_size=0.3, random_state=0).split(
                np.zeros((n_samples, 1))
            )
        )

    def split(self, X=None, y=None, groups=None):
        yield from self.indices

    def get_n_splits(self, X=None, y=None, groups=None):
        return 1


def test_any_splitter_yielding_one_split_from_public_information(id_data, spy_log):
    """Issue 22: any splitter is accepted if it yields exactly one split from
    the number of rows alone (it is called on placeholders that give no
    value); one that reads a value of X or y, or whose get_n_splits
    disagrees with its split, is refused before any row is read."""
    X, y, _, _ = id_data
    search = spy_search("private-selection", cv=_HalfSplit(), shortlist="grid")
    search.fit(X, y)
    np.testing.assert_array_equal(
        search.best_estimator_.fit_row_ids_, np.arange(len(X) // 2)
    )
    assert search.n_validation_ == len(X) - len(X) // 2
    one_time = spy_search("private-selection", shortlist="grid")
    one_time.set_params(cv=_OneTimeSplitter(len(X))).fit(X, y)
    assert one_time.n_validation_ == math.ceil(0.3 * len(X))
    spy_log.clear()
    with pytest.raises(ValueError, match="reads the features or labels") as info:
        spy_search("private-selection", cv=_FeatureSplit()).fit(X, y)
    assert "X_val" in str(info.value)

    class BrokenKFold(KFold):
        def get_n_splits(self, *args, **kw):
            return 1

    with pytest.raises(ValueError, match="inconsistent results. Expected 1"):
        spy_search("private-selection", cv=BrokenKFold(3)).fit(X, y)
    assert spy_log == []


class _LabelSortedSplit(ShuffleSplit):
    """A ShuffleSplit subclass whose split reads y: validation = last 30 % by label.

    Refused because it reads a label (a value of the y placeholder), not
    because it is a subclass."""

    def split(self, X, y=None, groups=None):
        order = np.argsort(np.asarray(y), kind="stable")
        cut = int(0.7 * len(order))
        yield np.sort(order[:cut]), np.sort(order[cut:])


def _one_split_cvs(n):
    fold = np.full(n, -1)
    fold[np.arange(n) % 3 == 0] = 0
    rows = np.arange(n)
    return {
        "list": [(rows[rows % 3 != 0], rows[rows % 3 == 0])],
        "PredefinedSplit": PredefinedSplit(fold),
        "ShuffleSplit": ShuffleSplit(n_splits=1, test_size=0.3, random_state=0),
        "GroupShuffleSplit": GroupShuffleSplit(
            n_splits=1, test_size=0.3, random_state=0
        ),
        "StratifiedShuffleSplit": StratifiedShuffleSplit(
            n_splits=1, test_size=0.3, random_state=0
        ),
        "label-reading subclass": _LabelSortedSplit(n_splits=1),
    }


@pytest.mark.parametrize(
    "name",
    [
        "list",
        "PredefinedSplit",
        "ShuffleSplit",
        "GroupShuffleSplit",
        "StratifiedShuffleSplit",
        "label-reading subclass",
    ],
)
def test_swapped_validation_label_never_changes_training_rows(id_data, spy_log, name):
    """F3 (V/V'): the training rows are the same on V and V', or cv is refused.

    V' swaps the label of one validation record. A label-dependent split
    (stratified, or any splitter reading y) re-partitions the rows; it must
    be refused before any data is read, with the reason and what to use.
    """
    X, y, _, _ = id_data
    cv = _one_split_cvs(len(X))[name]
    # Public groups reach the group splitter (and only it).
    kw = {"groups": np.arange(len(X)) // 4} if name == "GroupShuffleSplit" else {}
    # Two candidates: the split, not the search, is under test (5 fits each).
    search = spy_search(
        "private-selection", cv=cv, space={"C": [0.1, 1.0]}, shortlist="grid"
    )
    try:
        search.fit(X, y, **kw)
    except ValueError as exc:
        msg = str(exc)
        assert "refused" in msg and "label" in msg, msg
        assert "X_val" in msg and "ShuffleSplit(n_splits=1)" in msg
        assert spy_log == []  # refused before any row reached an estimator
        assert name in ("StratifiedShuffleSplit", "label-reading subclass")
        return
    train = search.best_estimator_.fit_row_ids_
    val = np.setdiff1d(np.arange(len(X)), train)
    assert len(val) > 0
    for i in val[:: max(1, len(val) // 4)]:
        y_swapped = y.copy()
        y_swapped[i] = 1 - y_swapped[i]
        other = clone(search).fit(X, y_swapped, **kw)
        np.testing.assert_array_equal(other.best_estimator_.fit_row_ids_, train)


def test_groups_reach_the_splitter_only(id_data, spy_log):
    """fit(groups=...) splits by public groups; the estimator never sees them."""
    X, y, _, _ = id_data
    groups = np.arange(len(X)) // 4
    cv = GroupShuffleSplit(n_splits=1, test_size=0.3, random_state=0)
    search = spy_search("private-selection", cv=cv, shortlist="grid")
    search.fit(X, y, groups=groups)  # RowSpyClassifier.fit takes no groups
    train = search.best_estimator_.fit_row_ids_
    expected, _ = next(cv.split(X, y, groups))
    np.testing.assert_array_equal(train, np.sort(expected))
    # No group is split between training and validation.
    val = np.setdiff1d(np.arange(len(X)), train)
    assert not set(groups[train]) & set(groups[val])
    with pytest.raises(ValueError, match="groups=groups"):
        clone(search).fit(X, y)
    Xt, yt = X[:100], y[:100]
    with pytest.raises(ValueError, match="only by cv's splitter"):
        spy_search("private-selection").fit(
            Xt, yt, X_val=X[100:], y_val=y[100:], groups=groups[:100]
        )


@pytest.mark.parametrize(
    "method, kw, match",
    [
        ("gp-ucb", {}, r"best_params_ .*exceeds.*method='private-selection'"),
        ("private-selection", dict(epsilon=0.01), r"m=80 rows.*larger validation"),
    ],
)
def test_useless_release_is_warned_before_data(id_data, spy_log, method, kw, match):
    """F7: a release whose noise scale exceeds the score range is warned about
    from public settings and m, before any row reaches an estimator or scorer."""
    X, y, train_ids, val_ids = id_data
    acc = BudgetAccountant(epsilon=10.0, delta=1e-3)
    search = spy_search(method, accountant=acc, **kw)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UselessReleaseWarning)
        with pytest.raises(UselessReleaseWarning, match=match):
            search.fit(X[train_ids], y[train_ids], X_val=X[val_ids], y_val=y[val_ids])
    assert spy_log == [] and acc.history == ()


@pytest.mark.parametrize(
    "method, kw", [("gp-ucb", dict(epsilon=1000.0)), ("private-selection", {})]
)
def test_no_useless_release_warning_when_noise_fits_the_range(id_data, method, kw):
    X, y, train_ids, val_ids = id_data
    with warnings.catch_warnings():
        warnings.simplefilter("error", UselessReleaseWarning)
        spy_search(method, **kw).fit(
            X[train_ids], y[train_ids], X_val=X[val_ids], y_val=y[val_ids]
        )


@pytest.mark.parametrize("noise", [0.01, 0.0])
def test_gp_ucb_report_uses_the_corrected_beta_and_states_its_assumptions(
    id_data, noise
):
    """F9: Δ_μ uses β_{T+1} = 2 log(|Λ|(T+1)²π²/δ₁) (δ/6 per dataset), and
    Algorithm 2's report says that the search is GP-UCB, not de Freitas et
    al.'s optimiser."""
    X, y, train_ids, val_ids = id_data
    extra = dict(noise_free_constants=(1.0, 0.5)) if noise == 0 else {}
    search = spy_search(
        "gp-ucb", noise=noise, epsilon=1.0, delta=1e-5, n_iter=3, **extra
    ).fit(X[train_ids], y[train_ids], X_val=X[val_ids], y_val=y[val_ids])
    params, score = search.privacy_report_.releases
    # |Λ| = 4, T = 3, δ₁ = 5e-6, k1 = 0.95, scale = 0.25 (spy scorer in [0, 1]).
    beta_4 = 2 * math.log(4 * 16 * math.pi**2 / 5e-6)
    c = 2 * math.sqrt(0.05 * math.log(3 * 4 / 5e-6))
    assert params["sensitivity"] == pytest.approx(
        0.25 * (2 * math.sqrt(beta_4) + c), rel=1e-12
    )
    if noise > 0:
        assert "2 log(|Lambda| t^2 pi^2 / delta)" in score["assumption"]
    else:
        assert "which is GP-UCB" in score["assumption"]
        assert "their own optimiser" in score["assumption"]
        assert "delta/4" in score["assumption"]


def test_validation_set_missing_or_doubled(id_data, spy_log):
    X, y, train_ids, val_ids = id_data
    Xt, yt, Xv, yv = X[train_ids], y[train_ids], X[val_ids], y[val_ids]
    with pytest.raises(ValueError, match="X_val") as info:
        spy_search("private-selection").fit(Xt, yt)
    assert "cv" in str(info.value)  # says how to give a validation set
    with pytest.raises(ValueError, match="not both"):
        spy_search("private-selection", cv=[(train_ids, val_ids)]).fit(
            X, y, X_val=Xv, y_val=yv
        )
    with pytest.raises(ValueError, match="y_val"):
        spy_search("private-selection").fit(Xt, yt, X_val=Xv)
    with pytest.raises(ValueError, match="features"):
        spy_search("gp-ucb").fit(Xt, yt, X_val=Xv[:, :5], y_val=yv)
    assert spy_log == []


def test_fit_params_restricted_to_training_rows(id_data):
    """Sample-aligned fit params are cut to the training rows of the cv split."""
    X, y, train_ids, val_ids = id_data
    seen = []

    class WeightSpy(RowSpyClassifier):
        def fit(self, X, y, sample_weight=None):
            seen.append((len(X), None if sample_weight is None else len(sample_weight)))
            np.testing.assert_array_equal(sample_weight, np.asarray(X)[:, 0])
            return super().fit(X, y)

    search = DPBayesSearchCV(
        WeightSpy(),
        {"C": [0.1, 1.0]},
        cv=[(train_ids, val_ids)],
        scoring=make_spy_scorer(),
        n_iter=2,
        method=PrivateSelection(public_cv=2),
        random_state=0,
    )
    with pytest.warns(UserWarning, match="goes to estimator.fit only"):
        search.fit(X, y, sample_weight=X[:, 0].copy())
    assert seen and all(n == w for n, w in seen)
    assert seen[-1][0] == len(train_ids)


# ---------------------------------------------------------------------------
# 4. Parallelism does not change the releases
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("method", METHODS)
def test_n_jobs_and_backend_do_not_change_releases(cancer_split, method):
    X_tr, y_tr, X_va, y_va = cancer_split
    kw = dict(n_iter=5, n_candidates=16)

    def release(**extra):
        s = svc_search(method, **kw, **extra).fit(X_tr, y_tr, X_val=X_va, y_val=y_va)
        out = (s.best_index_, s.best_score_, s.best_params_)
        if method == "private-selection":
            out += (s.shortlist_.tolist(),)
        return out

    sequential = release(n_jobs=1)
    assert release(n_jobs=2) == sequential
    with joblib.parallel_backend("threading", n_jobs=2):
        assert release(n_jobs=2) == sequential
    with joblib.parallel_backend("threading"):
        assert release(n_jobs=-1) == sequential
    if method == "private-selection":
        # The releases are not constant: another noise seed moves the noisy
        # score (gp-ucb's score noise is so large that it is usually clipped).
        assert release(n_jobs=1, noise_random_state=1)[1] != sequential[1]


@pytest.mark.parametrize("m", [5, 10])
def test_small_validation_set_is_announced_before_the_read(m):
    """Issue 19 (item 7): a 5-row validation set released 0.546 and a 10-row
    set 1.0, silently. The Laplace scale Δ/ε₂ = 1/(m·0.5) is 40 % / 20 % of
    accuracy's range: announced from m, ε and the bounds, before the read."""
    X, y = make_classification(n_samples=100 + m, n_features=4, random_state=0)
    acc = BudgetAccountant(epsilon=10.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UselessReleaseWarning)
        with pytest.raises(UselessReleaseWarning, match=rf"m={m} rows"):
            DPBayesSearchCV(
                LogisticRegression(), {"C": [0.1, 1.0]}, accountant=acc
            ).fit(X[:100], y[:100], X_val=X[100:], y_val=y[100:])
    assert acc.history == ()


def test_other_metric_release_is_announced_with_its_own_range():
    """An extra metric's release (neg_log_loss, range [log 1e-3, 0]) is
    checked with its own range and share of ε."""
    X, y = make_classification(n_samples=115, n_features=4, random_state=0)
    search = DPBayesSearchCV(
        LogisticRegression(),
        {"C": [0.1, 1.0]},
        scoring={"accuracy": "accuracy", "ll": "neg_log_loss"},
        refit="accuracy",
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UselessReleaseWarning)
        search.fit(X[:100], y[:100], X_val=X[100:], y_val=y[100:])
    texts = [str(w.message) for w in caught if w.category is UselessReleaseWarning]
    assert any("'neg_log_loss" in t for t in texts), texts


def test_no_announcement_for_a_usable_validation_set():
    X, y = make_classification(n_samples=1100, n_features=4, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UselessReleaseWarning)
        DPBayesSearchCV(LogisticRegression(), {"C": [0.1, 1.0]}).fit(
            X[:100], y[:100], X_val=X[100:], y_val=y[100:]
        )
