"""scikit-learn's own search tests, ported to DPBayesSearchCV.

A port of ``sklearn/model_selection/tests/test_search.py`` (the copy that
ships with the installed scikit-learn). ``UPSTREAM`` maps every upstream
test function to one of

``"ported"``
    Runs against DPBayesSearchCV with the original assertions. Adapted only
    where one fixed split or a private release must change something: one
    ``cv=[(train, val)]`` split (or ``X_val=``) instead of k folds, ε = 1,
    a data size large enough that the DP selection is not a coin flip, a
    per-record scorer instead of a refused one, and ``noise_random_state``
    only where two fits must agree bit for bit.
``"refused by design"``
    The behaviour tested would void the guarantee (raw validation scores,
    refit callables reading them, weighted private scores, k folds, ...).
    The port asserts a refusal whose message says why and what to do.
``"not applicable"``
    Tests of scikit-learn internals that DPBayesSearchCV does not have
    (ParameterSampler, BaseSearchCV subclassing). Nothing is marked so
    because a package is missing: the array-API port runs on
    ``array_api_strict`` (a test dependency).

Upstream's mocks score with ``estimator.score``, one aggregate number. A
private score is a mean of per-record values ``record_score(y_true, out)``
(``out`` the model's predict, predict_proba or decision_function), checked
on public training rows to be row independent before any validation row is
read. So the port uses :class:`RowwiseMockClassifier` (upstream's score on
every row), :func:`constant_score` for ``CheckingClassifier`` (whose
predictions are random per batch) and a per-record clipped absolute error
for regressors; estimators with no predict are refused by design.

``test_every_upstream_test_is_tallied`` reads the upstream file and fails
if a test function is missing from the table (or the table names one that
does not exist), so the counts cannot drift. Run the suite and print the
counts with::

    PYTHONPATH=$PWD python -m pytest tests/conformance -q -p no:cacheprovider
    PYTHONPATH=$PWD python tests/conformance/test_sklearn_search.py
"""

from __future__ import annotations

import ast
import os
import pickle
import re
import sys
import warnings
from collections import Counter

import numpy as np
import pytest
import sklearn
from scipy.stats import uniform
from sklearn import config_context
from sklearn.base import BaseEstimator, ClassifierMixin, clone, is_classifier
from sklearn.compose import ColumnTransformer
from sklearn.datasets import make_blobs, make_classification
from sklearn.dummy import DummyClassifier
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.exceptions import FitFailedWarning
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LinearRegression, LogisticRegression, SGDClassifier
from sklearn.metrics import accuracy_score, make_scorer
from sklearn.metrics.pairwise import euclidean_distances
from sklearn.model_selection import (
    GroupKFold,
    GroupShuffleSplit,
    KFold,
    LeaveOneGroupOut,
    LeavePGroupsOut,
    ParameterGrid,
    ShuffleSplit,
    StratifiedKFold,
    StratifiedShuffleSplit,
    train_test_split,
)
from sklearn.naive_bayes import ComplementNB
from sklearn.neighbors import KNeighborsClassifier, LocalOutlierFactor
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import (
    OneHotEncoder,
    OrdinalEncoder,
    SplineTransformer,
    StandardScaler,
)
from sklearn.svm import SVC, LinearSVC
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils._mocking import CheckingClassifier, MockDataFrame
from sklearn.utils._testing import (
    MinimalClassifier,
    MinimalRegressor,
    MinimalTransformer,
    assert_array_almost_equal,
    assert_array_equal,
)
from sklearn.utils.fixes import CSR_CONTAINERS

from sklearn_dpbo import BudgetAccountant, DPBayesSearchCV
from sklearn_dpbo.model_selection import PrivateSelection
from sklearn_dpbo.privacy import DPScorer, RowIndependenceError

UPSTREAM_FILE = os.path.join(
    os.path.dirname(sklearn.__file__), "model_selection", "tests", "test_search.py"
)

P, R, NA = "ported", "refused by design", "not applicable"
UPSTREAM = {
    "test_validate_parameter_input": (P, "search_spaces type errors, same messages"),
    "test_parameter_grid": (P, "candidate_params_ follows ParameterGrid, {} too"),
    "test_grid_search": (P, "row-wise mock; DP selection breaks ties"),
    "test_grid_search_pipeline_steps": (P, "classifiers: r2 is not a DP score"),
    "test_SearchCV_with_fit_params": (P, "fit params checked in every fit"),
    "test_grid_search_no_score": (P, "scoring=None is accuracy, not .score"),
    "test_grid_search_score_method": (R, "roc_auc is not a per-record score"),
    "test_grid_search_groups": (P, "GroupShuffleSplit(n_splits=1) only"),
    "test_classes__property": (P, "regressor scored per record"),
    "test_trivial_cv_results_attr": (P, "public cv_results_"),
    "test_no_refit": (P, "several metrics need refit='<name>'"),
    "test_grid_search_error": (P, "X/y length mismatch"),
    "test_grid_search_one_grid_point": (P, "refit on the training set only"),
    "test_grid_search_when_param_grid_includes_range": (P, "range is a grid"),
    "test_grid_search_bad_param_grid": (P, "same errors and messages"),
    "test_grid_search_sparse": (P, "seeded noise so both fits agree"),
    "test_grid_search_sparse_scoring": (R, "f1 is not a per-record score"),
    "test_grid_search_precomputed_kernel": (P, "cv split and X_val"),
    "test_grid_search_precomputed_kernel_error_nonsquare": (P, "refused"),
    "test_refit": (P, "accuracy: precision is not a per-record score"),
    "test_refit_callable": (R, "a callable reads raw validation scores"),
    "test_refit_callable_invalid_type": (R, "refit callables are refused"),
    "test_refit_callable_out_bound": (R, "refit callables are refused"),
    "test_refit_callable_multi_metric": (R, "refit callables are refused"),
    "test_gridsearch_nd": (P, "constant score; the mock declares multi-output"),
    "test_X_as_list": (P, "one split"),
    "test_y_as_list": (P, "one split"),
    "test_pandas_input": (P, "one split"),
    "test_unsupervised_grid_search": (R, "ARI/FMS are not per-record scores"),
    "test_gridsearch_no_predict": (R, "no predict: no per-record score"),
    "test_param_sampler": (NA, "no ParameterSampler: Sobol points, public seed"),
    "test_grid_search_cv_results": (P, "public columns; no test/train columns"),
    "test_random_search_cv_results": (R, "raw test scores and train scores"),
    "test_search_default_iid": (R, "raw per-fold test scores"),
    "test_grid_search_cv_results_multimetric": (R, "raw test scores per metric"),
    "test_random_search_cv_results_multimetric": (R, "raw test scores"),
    "test_search_cv_score_samples_error": (P, "delegation error message"),
    "test_unsupported_sample_weight_scorer": (R, "weighted private scores"),
    "test_search_cv_sample_weight_equivalence": (R, "weighted private scores"),
    "test_search_cv_score_samples_method": (P, "accuracy: precision refused"),
    "test_search_cv_results_rank_tie_breaking": (R, "return_train_score"),
    "test_search_cv_results_none_param": (P, "public cv_results_"),
    "test_search_cv_timing": (P, "times of the public folds; no '< 1 s' check"),
    "test_grid_search_correct_score_results": (R, "raw per-fold test scores"),
    "test_pickle": (P, ""),
    "test_grid_search_with_multioutput_data": (R, "raw per-fold test scores"),
    "test_predict_proba_disabled": (P, "empty grid"),
    "test_grid_search_allows_nans": (P, ""),
    "test_grid_search_failing_classifier": (P, "public fits; public cv scores"),
    "test_grid_search_classifier_all_fits_fail": (P, "raises before data"),
    "test_grid_search_failing_classifier_raise": (P, ""),
    "test_parameters_sampler_replacement": (NA, "no ParameterSampler"),
    "test_stochastic_gradient_loss_param": (P, ""),
    "test_search_train_scores_set_to_false": (P, ""),
    "test_grid_search_cv_splits_consistency": (R, "several folds"),
    "test_transform_inverse_transform_round_trip": (P, ""),
    "test_custom_run_search": (NA, "not a BaseSearchCV subclass"),
    "test__custom_fit_no_run_search": (NA, "not a BaseSearchCV subclass"),
    "test_empty_cv_iterator_error": (P, "same message"),
    "test_random_search_bad_cv": (P, "same message; any splitter, no data read"),
    "test_searchcv_raise_warning_with_non_finite_score": (
        R,
        "aggregate callable scorer (no per-record bound)",
    ),
    "test_callable_multimetric_confusion_matrix": (R, "callable scoring"),
    "test_callable_multimetric_same_as_list_of_strings": (R, "callable scoring"),
    "test_callable_single_metric_same_as_single_string": (R, "callable scoring"),
    "test_callable_multimetric_error_on_invalid_key": (R, "callable scoring"),
    "test_callable_multimetric_error_failing_clf": (R, "callable scoring"),
    "test_callable_multimetric_clf_all_fits_fail": (R, "callable scoring"),
    "test_n_features_in": (P, ""),
    "test_search_cv_pairwise_property_delegated_to_base_estimator": (P, ""),
    "test_search_cv__pairwise_property_delegated_to_base_estimator": (P, ""),
    "test_search_cv_pairwise_property_equivalence_of_precomputed": (P, ""),
    "test_scalar_fit_param": (P, ""),
    "test_scalar_fit_param_compat": (P, "X_val passed by the user"),
    "test_search_cv_using_minimal_compatible_estimator": (P, "score unclipped"),
    "test_search_cv_verbose_3": (R, "no score is ever printed"),
    "test_search_estimator_param": (P, "step and its parameter in one grid"),
    "test_search_with_2d_array": (R, "a tuple is a range, not a grid"),
    "test_search_html_repr": (P, ""),
    "test_multi_metric_search_forwards_metadata": (R, "scorer metadata"),
    "test_score_rejects_params_with_no_routing_enabled": (
        P,
        "same ValueError, with routing too: score takes no metadata",
    ),
    "test_cv_results_dtype_issue_29074": (R, "score-only: no per-record score"),
    "test_search_with_estimators_issue_29157": (P, "public cv_results_"),
    "test_cv_results_multi_size_array": (P, "public cv_results_"),
    "test_array_api_search_cv_classifier": (
        P,
        "array_api_strict, CPU; a non-CPU device is refused",
    ),
    "test_yield_masked_array_for_each_param": (P, "the public cv_results_'s columns"),
    "test_yield_masked_array_no_runtime_warning": (P, "the public cv_results_"),
    "test_search_callbacks_no_propagation": (R, "callbacks see private tasks"),
    "test_search_callbacks_propagation": (R, "callbacks see private tasks"),
    "test_search_callbacks_receive_sample_weight": (R, "callbacks see private tasks"),
    "test_search_callbacks_receive_search_instance": (R, "callbacks see private tasks"),
    "test_search_callbacks_with_partial_fit_failures": (
        R,
        "callbacks see private tasks",
    ),
}

SEEDED = pytest.mark.filterwarnings(
    "ignore:noise_random_state is set:sklearn_dpbo.PrivacyLeakWarning"
)


def upstream_test_names() -> list[str]:
    with open(UPSTREAM_FILE, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    return [
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test_")
    ]


def test_every_upstream_test_is_tallied():
    names = upstream_test_names()
    assert len(names) == len(set(names))
    assert set(names) == set(UPSTREAM), (
        set(names) ^ set(UPSTREAM),
        "update UPSTREAM: every upstream test needs a status and a reason",
    )
    for name, (status, reason) in UPSTREAM.items():
        assert status in (P, R, NA), name
        assert status == P or reason, f"{name}: say why"
        if status != NA:
            # Every ported or refused test has its port in this module.
            assert callable(globals().get(name)), f"{name} has no port here"


# ---------------------------------------------------------------------------
# Helpers: the upstream fixtures, one split, per-record scorers
# ---------------------------------------------------------------------------
class MockClassifier(ClassifierMixin, BaseEstimator):
    """Upstream's dummy classifier (score 1 if foo_param > 1, else 0)."""

    def __init__(self, foo_param=0):
        self.foo_param = foo_param

    def fit(self, X, Y):
        assert len(X) == len(Y)
        self.classes_ = np.unique(Y)
        return self

    def predict(self, T):
        return T.shape[0]

    def transform(self, X):
        return X + self.foo_param

    def inverse_transform(self, X):
        return X - self.foo_param

    predict_proba = predict
    predict_log_proba = predict
    decision_function = predict

    def score(self, X=None, Y=None):
        return 1.0 if self.foo_param > 1 else 0.0

    def get_params(self, deep=False):
        return {"foo_param": self.foo_param}

    def set_params(self, **params):
        self.foo_param = params["foo_param"]
        return self


class LinearSVCNoScore(LinearSVC):
    """A LinearSVC classifier that has no score method."""

    @property
    def score(self):
        raise AttributeError


# Upstream's 4-row data, tiled so that the validation set is large enough
# for the DP selection to find the best candidate (gap 1 = 100 Δ at m = 100).
X4 = np.array([[-1, -1], [-2, -1], [1, 1], [2, 1]])
y4 = np.array([1, 1, 2, 2])
X = np.tile(X4, (50, 1))
y = np.tile(y4, 50)


def one_split(n: int) -> list:
    """One fixed (train, validation) split: even rows / odd rows."""
    return [(np.arange(0, n, 2), np.arange(1, n, 2))]


class RowwiseMockClassifier(MockClassifier):
    """Upstream's mock with a row-wise ``predict``: upstream's score per row.

    Upstream's ``predict`` returns the batch size ``T.shape[0]``, which is
    not a per-record output (a record's value would depend on how many
    records are scored with it): it is refused (:func:`test_grid_search`).
    Here every row predicts upstream's score, 1 if foo_param > 1 else 0, so
    the per-record score :func:`prediction_score` averages to upstream's
    ``score``.
    """

    def predict(self, T):
        return np.full(len(T), self.score())

    predict_proba = predict
    predict_log_proba = predict
    decision_function = predict


def _prediction(y_true, out):
    return np.asarray(out, dtype=float)


def prediction_score() -> DPScorer:
    """The prediction is the record's value (in [0, 1]): with
    :class:`RowwiseMockClassifier` the mean is upstream's ``score``."""
    return DPScorer(_prediction, bounds=(0.0, 1.0), name="prediction")


def _one(y_true, out):
    return np.ones(len(out))


def constant_score() -> DPScorer:
    """Every record scores 1, as ``CheckingClassifier.score`` (constant per
    candidate). ``CheckingClassifier`` predicts at random per batch, so a
    score that reads its predictions is not row independent and is refused
    (asserted in :func:`test_X_as_list`)."""
    return DPScorer(_one, bounds=(0.0, 1.0), name="constant")


def _neg_clipped_abs_error(y_true, y_pred):
    err = np.abs(np.asarray(y_true, dtype=float) - np.asarray(y_pred, dtype=float))
    return -np.minimum(err, 1.0)


def neg_clipped_abs_error() -> DPScorer:
    """A per-record regression score: −min(|y − ŷ|, 1) per record, in [−1, 0]."""
    return DPScorer(_neg_clipped_abs_error, bounds=(-1.0, 0.0), name="neg_clip_mae")


def search(estimator, spaces, **kwargs) -> DPBayesSearchCV:
    kwargs.setdefault("epsilon", 1.0)
    return DPBayesSearchCV(estimator, spaces, **kwargs)


def assert_refused(exc_info, *words):
    """The refusal names the problem and says what to do instead."""
    msg = str(exc_info.value)
    for word in words:
        assert word.lower() in msg.lower(), (word, msg)
    todo = ("use ", "pass ", "instead", "remove ", "wrap ", "give ", "fix ")
    assert any(w in msg.lower() for w in todo), msg


# ---------------------------------------------------------------------------
# Ported
# ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "input, error_type, error_message",
    [
        (0, TypeError, r"Parameter .* a dict or a list, got: 0 of type int"),
        ([{"foo": [0]}, 0], TypeError, r"Parameter .* is not a dict \(0\)"),
        (
            {"foo": 0},
            TypeError,
            r"Parameter grid for parameter 'foo' needs to be "
            r"a list or a numpy array.*",
        ),
    ],
)
def test_validate_parameter_input(input, error_type, error_message):
    with pytest.raises(error_type, match=error_message):
        search(MockClassifier(), input, cv=one_split(len(X))).fit(X, y)


def test_parameter_grid():
    for grid in (
        {"foo_param": [1, 2, 3]},
        {},
        [{"foo_param": [1, 10]}, {}, {"foo_param": [5]}],
    ):
        s = search(
            CheckingClassifier(),
            grid,
            scoring=constant_score(),
            method=PrivateSelection(shortlist="grid"),
            cv=one_split(len(X)),
        ).fit(X, y)
        assert s.candidate_params_ == list(ParameterGrid(grid))


def test_grid_search():
    # Upstream's MockClassifier predicts the batch size: not a per-record
    # output, refused on public rows before any validation row is read.
    with pytest.raises(ValueError, match="public training set") as info:
        search(
            MockClassifier(),
            {"foo_param": [1, 2, 3]},
            scoring=prediction_score(),
            cv=one_split(len(X)),
        ).fit(X, y)
    assert "one value per record" in str(info.value)
    grid_search = search(
        RowwiseMockClassifier(),
        {"foo_param": [1, 2, 3]},
        scoring=prediction_score(),
        cv=one_split(len(X)),
        verbose=3,
    )
    grid_search.fit(X, y)
    # Ties (2 and 3 both score 1) are broken by the DP selection.
    assert grid_search.best_estimator_.foo_param in (2, 3)
    assert_array_equal(
        sorted(grid_search.cv_results_["param_foo_param"].data), [1, 2, 3]
    )
    grid_search.score(X, y)
    grid_search.predict_proba(X)
    grid_search.decision_function(X)
    grid_search.transform(X)
    grid_search.scoring = "sklearn"
    with pytest.raises(ValueError):
        grid_search.fit(X, y)


def test_grid_search_pipeline_steps():
    Xc, yc = make_classification(n_samples=200, random_state=0)
    pipe = Pipeline([("clf", LogisticRegression())])
    param_grid = {"clf": [LogisticRegression(), DecisionTreeClassifier()]}
    grid_search = search(pipe, param_grid, cv=one_split(200))
    grid_search.fit(Xc, yc)
    results = grid_search.cv_results_
    by_index = dict(zip(results["candidate_index"], results["param_clf"]))
    assert isinstance(by_index[0], LogisticRegression)
    assert isinstance(by_index[1], DecisionTreeClassifier)
    assert not hasattr(by_index[0], "coef_")
    assert not hasattr(by_index[1], "tree_")
    assert by_index[0] is not grid_search.best_estimator_
    assert not hasattr(param_grid["clf"][0], "coef_")
    assert not hasattr(param_grid["clf"][1], "tree_")


def test_SearchCV_with_fit_params():
    X10 = np.arange(100).reshape(10, 10)
    y10 = np.array([0] * 5 + [1] * 5)
    clf = CheckingClassifier(expected_fit_params=["spam", "eggs"])
    searcher = search(
        clf,
        {"foo_param": [1, 2, 3]},
        scoring=constant_score(),
        cv=one_split(10),
        method=PrivateSelection(public_cv=2),
    )
    with pytest.raises(AssertionError, match=r"Expected fit parameter\(s\) \['eggs'\]"):
        searcher.fit(X10, y10, spam=np.ones(10))
    with pytest.raises(AssertionError, match="Fit parameter spam has length 1"):
        searcher.fit(X10, y10, spam=np.ones(1), eggs=np.zeros(10))
    searcher.fit(X10, y10, spam=np.ones(10), eggs=np.zeros(10))


@SEEDED
def test_grid_search_no_score():
    Xb, yb = make_blobs(n_samples=200, random_state=0, centers=2)
    Cs = [0.1, 1, 10]
    kw = dict(scoring="accuracy", cv=one_split(200), noise_random_state=0)
    kw["random_state"] = 0  # the same public candidate order and folds
    grid_search = search(LinearSVC(random_state=0), {"C": Cs}, **kw).fit(Xb, yb)
    no_score = search(LinearSVCNoScore(random_state=0), {"C": Cs}, **kw).fit(Xb, yb)
    assert no_score.best_params_ == grid_search.best_params_
    assert grid_search.score(Xb, yb) == no_score.score(Xb, yb)
    # Difference by design: scoring=None is accuracy for every classifier
    # (estimator.score has no declared range), so no error here.
    search(LinearSVCNoScore(), {"C": Cs}, cv=one_split(200)).fit(Xb, yb)


def test_grid_search_groups():
    # groups reach the splitter (never the estimator). One split only: the
    # group splitters that give several folds are refused, as are the
    # stratified ones (they read every label, the validation labels too).
    rng = np.random.RandomState(0)
    X_, y_ = make_classification(n_samples=15, n_classes=2, random_state=0)
    groups = rng.randint(0, 3, 15)
    clf = LinearSVC(random_state=0)
    grid = {"C": [1]}
    kw = dict(method=PrivateSelection(public_cv=2), refit=False)
    cv = GroupShuffleSplit(n_splits=1, test_size=1, random_state=0)
    gs = search(clf, grid, cv=cv, **kw)
    with pytest.raises(ValueError, match="groups"):
        gs.fit(X_, y_)
    gs.fit(X_, y_, groups=groups)
    # The validation rows are exactly one whole group, as the splitter says.
    _, val = next(cv.split(X_, y_, groups))
    assert gs.n_validation_ == len(val) == np.sum(groups == groups[val[0]])
    with config_context(enable_metadata_routing=True):  # the same with routing
        assert search(clf, grid, cv=cv, **kw).fit(
            X_, y_, groups=groups
        ).n_validation_ == len(val)
    for cv in (
        LeaveOneGroupOut(),
        LeavePGroupsOut(2),
        GroupKFold(n_splits=3),
        GroupShuffleSplit(),
    ):
        with pytest.raises(ValueError) as info:
            search(clf, grid, cv=cv, **kw).fit(X_, y_, groups=groups)
        assert_refused(info, "split")
    for cv in (StratifiedKFold(), StratifiedShuffleSplit(n_splits=1)):
        with pytest.raises(ValueError) as info:
            search(clf, grid, cv=cv, **kw).fit(X_, y_)
        assert_refused(info, "split")


def test_classes__property():
    X10 = np.arange(100).reshape(10, 10)
    y10 = np.array([0] * 5 + [1] * 5)
    Cs = [0.1, 1, 10]
    kw = dict(cv=one_split(10), method=PrivateSelection(public_cv=2))
    gs = search(LinearSVC(random_state=0), {"C": Cs}, **kw).fit(X10, y10)
    assert_array_equal(gs.best_estimator_.classes_, gs.classes_)
    from sklearn.linear_model import Ridge

    gs = search(
        Ridge(), {"alpha": [1.0, 2.0]}, scoring=neg_clipped_abs_error(), **kw
    ).fit(X10, y10)
    assert not hasattr(gs, "classes_")
    gs = search(LinearSVC(random_state=0), {"C": Cs}, **kw)
    assert not hasattr(gs, "classes_")
    gs = search(LinearSVC(random_state=0), {"C": Cs}, refit=False, **kw)
    gs.fit(X10, y10)
    assert not hasattr(gs, "classes_")


def test_trivial_cv_results_attr():
    kw = dict(scoring=prediction_score(), cv=one_split(len(X)))
    grid_search = search(RowwiseMockClassifier(), {"foo_param": [1]}, **kw).fit(X, y)
    assert hasattr(grid_search, "cv_results_")
    random_search = search(RowwiseMockClassifier(), {"foo_param": [0]}, n_iter=1, **kw)
    assert hasattr(random_search.fit(X, y), "cv_results_")


def test_no_refit():
    clf = RowwiseMockClassifier()
    grid_search = search(
        clf,
        {"foo_param": [1, 2, 3]},
        refit=False,
        scoring=prediction_score(),
        cv=one_split(len(X)),
    ).fit(X, y)
    assert (
        not hasattr(grid_search, "best_estimator_")
        and hasattr(grid_search, "best_index_")
        and hasattr(grid_search, "best_params_")
    )
    for fn_name in (
        "predict",
        "predict_proba",
        "predict_log_proba",
        "transform",
        "inverse_transform",
    ):
        outer_msg = f"has no attribute '{fn_name}'"
        inner_msg = (
            f"`refit=False`. {fn_name} is available only after "
            "refitting on the best parameters"
        )
        with pytest.raises(AttributeError, match=outer_msg) as exec_info:
            getattr(grid_search, fn_name)(X)
        assert isinstance(exec_info.value.__cause__, AttributeError)
        assert inner_msg in str(exec_info.value.__cause__)
    error_msg = (
        "For multi-metric scoring, the parameter refit must be set to a scorer key"
    )
    # refit=False too: the private selection needs its metric named.
    for refit in [True, False, "recall", "accuracy"]:
        with pytest.raises(ValueError, match=error_msg):
            search(
                clf, {}, refit=refit, scoring={"acc": "accuracy", "prec": "precision"}
            ).fit(X, y)


def test_grid_search_error():
    X_, y_ = make_classification(n_samples=200, n_features=100, random_state=0)
    cv = search(LinearSVC(), {"C": [0.1, 1.0]}, cv=one_split(180))
    with pytest.raises(ValueError):
        cv.fit(X_[:180], y_)


def test_grid_search_one_grid_point():
    X_, y_ = make_classification(n_samples=200, n_features=100, random_state=0)
    param_dict = {"C": [1.0], "kernel": ["rbf"], "gamma": [0.1]}
    cv = search(SVC(gamma="auto"), param_dict)
    cv.fit(X_[:150], y_[:150], X_val=X_[150:], y_val=y_[150:])
    clf = SVC(C=1.0, kernel="rbf", gamma=0.1).fit(X_[:150], y_[:150])
    assert_array_equal(clf.dual_coef_, cv.best_estimator_.dual_coef_)


def test_grid_search_when_param_grid_includes_range():
    grid_search = search(
        RowwiseMockClassifier(),
        {"foo_param": range(1, 4)},
        scoring=prediction_score(),
        cv=one_split(len(X)),
    ).fit(X, y)
    assert grid_search.best_estimator_.foo_param in (2, 3)  # tie: DP selection


def test_grid_search_bad_param_grid():
    X_, y_ = make_classification(n_samples=10, n_features=5, random_state=0)
    kw = dict(cv=one_split(10))
    error_msg = re.escape(
        "Parameter grid for parameter 'C' needs to be a list or "
        "a numpy array, but got 1 (of type int) instead. Single "
        "values need to be wrapped in a list with one element."
    )
    with pytest.raises(TypeError, match=error_msg):
        search(SVC(gamma="auto"), {"C": 1}, **kw).fit(X_, y_)
    error_msg = re.escape(
        "Parameter grid for parameter 'C' need to be a non-empty sequence, got: []"
    )
    with pytest.raises(ValueError, match=error_msg):
        search(SVC(), {"C": []}, **kw).fit(X_, y_)
    error_msg = re.escape(
        "Parameter grid for parameter 'C' needs to be a list or a numpy array, "
        "but got '1,2,3' (of type str) instead. Single values need to be "
        "wrapped in a list with one element."
    )
    with pytest.raises(TypeError, match=error_msg):
        search(SVC(gamma="auto"), {"C": "1,2,3"}, **kw).fit(X_, y_)
    with pytest.raises(ValueError):
        search(SVC(), {"C": np.ones((3, 2))}, **kw).fit(X_, y_)


@SEEDED
@pytest.mark.parametrize("csr_container", CSR_CONTAINERS)
def test_grid_search_sparse(csr_container):
    X_, y_ = make_classification(n_samples=200, n_features=100, random_state=0)
    kw = dict(cv=one_split(180), noise_random_state=0, random_state=0)
    cv = search(LinearSVC(), {"C": [0.1, 1.0]}, **kw)
    cv.fit(X_[:180], y_[:180])
    y_pred = cv.predict(X_[180:])
    C = cv.best_estimator_.C
    X_ = csr_container(X_)
    cv = search(LinearSVC(), {"C": [0.1, 1.0]}, **kw)
    cv.fit(X_[:180].tocoo(), y_[:180])
    y_pred2 = cv.predict(X_[180:])
    C2 = cv.best_estimator_.C
    assert np.mean(y_pred == y_pred2) >= 0.9
    assert C == C2


def test_grid_search_precomputed_kernel():
    X_, y_ = make_classification(n_samples=200, n_features=100, random_state=0)
    K_train = np.dot(X_[:180], X_[:180].T)
    y_train = y_[:180]
    K_test = np.dot(X_[180:], X_[:180].T)
    y_test = y_[180:]
    clf = SVC(kernel="precomputed")
    # One split of the training kernel (sliced on both axes) ...
    cv = search(clf, {"C": [0.1, 1.0]}, cv=one_split(180))
    cv.fit(K_train, y_train)
    assert cv.best_score_ >= 0
    # ... the refit model was trained on the split's training rows: its
    # test kernel is against those rows.
    train_rows = one_split(180)[0][0]
    y_pred = cv.predict(K_test[:, train_rows])
    assert np.mean(y_pred == y_test) >= 0
    with pytest.raises(ValueError):
        cv.fit(K_train.tolist(), y_train)
    # ... or the validation-vs-training kernel as X_val.
    cv = search(clf, {"C": [0.1, 1.0]})
    cv.fit(
        K_train[:150, :150], y_train[:150], X_val=K_train[150:, :150], y_val=y_[150:180]
    )
    assert cv.predict(K_test[:, :150]).shape == y_test.shape


def test_grid_search_precomputed_kernel_error_nonsquare():
    K_train = np.zeros((10, 20))
    y_train = np.ones((10,))
    cv = search(SVC(kernel="precomputed"), {"C": [0.1, 1.0]}, cv=one_split(10))
    with pytest.raises(ValueError):
        cv.fit(K_train, y_train)
    with pytest.raises(ValueError, match="square"):
        search(SVC(kernel="precomputed"), {"C": [0.1]}).fit(
            K_train, y_train, X_val=np.zeros((4, 10)), y_val=np.ones(4)
        )


class BrokenClassifier(BaseEstimator):
    """Broken classifier that cannot be fit twice"""

    def __init__(self, parameter=None):
        self.parameter = parameter

    def fit(self, X, y):
        assert not hasattr(self, "has_been_fit_")
        self.has_been_fit_ = True

    def predict(self, X):
        return np.zeros(X.shape[0])


class BrokenClassifierReturningSelf(BrokenClassifier):
    def fit(self, X, y):
        super().fit(X, y)
        return self


@pytest.mark.parametrize(
    "Broken",
    [
        BrokenClassifier,
        BrokenClassifierReturningSelf,
    ],
)
def test_refit(Broken):
    X10 = np.arange(100).reshape(10, 10)
    y10 = np.array([0] * 5 + [1] * 5)
    clf = search(
        Broken(),
        [{"parameter": [0, 1]}],
        scoring="accuracy",
        refit=True,
        cv=one_split(10),
        method=PrivateSelection(public_cv=2),
    )
    clf.fit(X10, y10)


class _MultiOutputChecking(CheckingClassifier):
    """Declares multi-output support: a target of several columns per row
    is refused, from its shape, for an estimator that does not."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        return tags


def test_gridsearch_nd():
    X_4d = np.arange(10 * 5 * 3 * 2).reshape(10, 5, 3, 2)
    y_3d = np.arange(10 * 7 * 11).reshape(10, 7, 11)
    with pytest.raises(ValueError, match=r"y has shape \(10, 7, 11\).*multi-output"):
        search(CheckingClassifier(), {"foo_param": [1]}, cv=one_split(10)).fit(
            X_4d, y_3d
        )
    clf = _MultiOutputChecking(
        check_X=lambda x: x.shape[1:] == (5, 3, 2),
        check_y=lambda x: x.shape[1:] == (7, 11),
        methods_to_check=["fit"],
    )
    grid_search = search(
        clf,
        {"foo_param": [1, 2, 3]},
        scoring=constant_score(),
        cv=one_split(10),
        method=PrivateSelection(public_cv=2),
    )
    grid_search.fit(X_4d, y_3d).score(X4, y4)
    assert hasattr(grid_search, "cv_results_")


def test_X_as_list():
    X10 = np.arange(100).reshape(10, 10)
    y10 = np.array([0] * 5 + [1] * 5)
    clf = CheckingClassifier(
        check_X=lambda x: isinstance(x, list), methods_to_check=["fit"]
    )
    kw = dict(cv=one_split(10), method=PrivateSelection(public_cv=2))
    # Upstream's default (here accuracy) reads CheckingClassifier's random
    # predictions, which change with the batch: refused before any data.
    with pytest.raises(RowIndependenceError, match="row"):
        search(clf, {"foo_param": [1, 2, 3]}, **kw).fit(X10.tolist(), y10)
    grid_search = search(clf, {"foo_param": [1, 2, 3]}, scoring=constant_score(), **kw)
    grid_search.fit(X10.tolist(), y10).score(X10, y10)
    assert hasattr(grid_search, "cv_results_")


def test_y_as_list():
    X10 = np.arange(100).reshape(10, 10)
    y10 = np.array([0] * 5 + [1] * 5)
    clf = CheckingClassifier(
        check_y=lambda x: isinstance(x, list), methods_to_check=["fit"]
    )
    grid_search = search(
        clf,
        {"foo_param": [1, 2, 3]},
        scoring=constant_score(),
        cv=one_split(10),
        method=PrivateSelection(public_cv=2),
    )
    grid_search.fit(X10, y10.tolist()).score(X10, y10)
    assert hasattr(grid_search, "cv_results_")


def test_pandas_input():
    types = [(MockDataFrame, MockDataFrame)]
    try:
        from pandas import DataFrame, Series

        types.append((DataFrame, Series))
    except ImportError:
        pass
    X10 = np.arange(100).reshape(10, 10)
    y10 = np.array([0] * 5 + [1] * 5)
    for InputFeatureType, TargetType in types:
        X_df, y_ser = InputFeatureType(X10), TargetType(y10)
        clf = CheckingClassifier(
            check_X=lambda x, t=InputFeatureType: isinstance(x, t),
            check_y=lambda x, t=TargetType: isinstance(x, t),
        )
        grid_search = search(
            clf,
            {"foo_param": [1, 2, 3]},
            scoring=constant_score(),
            cv=one_split(10),
            method=PrivateSelection(public_cv=2),
        )
        grid_search.fit(X_df, y_ser).score(X_df, y_ser)
        grid_search.predict(X_df)
        assert hasattr(grid_search, "cv_results_")


def _no_response_refused(estimator, X_, y_, scoring):
    """A model without the scorer's response method cannot be scored per
    record: refused on public training rows, before any validation read."""
    ledger = BudgetAccountant(epsilon=2.0, delta=0.0)
    s = search(
        estimator,
        {},
        scoring=scoring,
        cv=one_split(len(X_)),
        accountant=ledger,
        method=PrivateSelection(shortlist="grid"),
    )
    with pytest.raises(ValueError) as info:
        s.fit(X_, y_)
    assert_refused(info, "has no attribute 'predict'", "public training set")
    assert ledger.history == ()  # nothing charged


def test_gridsearch_no_predict():
    # Upstream scores KernelDensity with an aggregate callable reading
    # estimator.bandwidth. A private score is a mean of per-record values
    # computed from a record's label and the model's output for it (predict,
    # predict_proba or decision_function); KernelDensity has none of them.
    from sklearn.neighbors import KernelDensity

    X_, _ = make_blobs(
        n_samples=200,
        cluster_std=0.1,
        random_state=1,
        centers=[[0, 1], [1, 0], [0, 0]],
    )
    y_ = np.zeros(len(X_))  # KernelDensity ignores y
    scoring = DPScorer(_one, bounds=(0.0, 42.0), name="custom")
    _no_response_refused(KernelDensity(bandwidth=0.1), X_, y_, scoring)
    # Aggregate callables are refused as scoring, with the reason.
    with pytest.raises(TypeError) as info:
        search(
            KernelDensity(),
            dict(bandwidth=[0.01, 0.1, 1]),
            scoring=lambda est, X, y=None: 42 if est.bandwidth == 0.1 else 0,
            cv=one_split(200),
        ).fit(X_, y_)
    assert_refused(info, "aggregate", "per-record")


def test_grid_search_cv_results():
    X_, y_ = make_classification(n_samples=100, n_features=4, random_state=42)
    params = [
        dict(kernel=["rbf"], C=[1, 10], gamma=[0.1, 1]),
        dict(kernel=["poly"], degree=[1, 2]),
    ]
    s = search(SVC(), params, cv=one_split(100), n_iter=6, random_state=0)
    cv_results = s.fit(X_, y_).cv_results_
    n = len(cv_results["params"])
    assert 1 <= n <= 6
    param_keys = ("param_C", "param_degree", "param_gamma", "param_kernel")
    score_keys = (
        "mean_public_cv_score",
        "std_public_cv_score",
        "rank_public_cv_score",
        "split0_public_cv_score",
        "split1_public_cv_score",
        "split2_public_cv_score",
    )
    time_keys = ("mean_fit_time", "std_fit_time", "mean_score_time", "std_score_time")
    assert sorted(cv_results) == sorted(
        param_keys
        + score_keys
        + time_keys
        + ("params", "candidate_index", "shortlisted", "n_public_folds")
    )
    assert all(cv_results[k].shape == (n,) for k in param_keys + score_keys)
    assert all(np.all(cv_results[k] >= 0) for k in time_keys)  # public folds
    # Racing: a candidate raced out after public fold 0 has NaN in the
    # folds it did not run.
    run = cv_results["n_public_folds"]
    assert set(run) <= {1, 3} and (run == 3).sum() >= 3
    assert all(cv_results["rank_public_cv_score"] >= 1)
    assert cv_results["rank_public_cv_score"].dtype == np.int32
    for k in score_keys:
        assert not isinstance(cv_results[k], np.ma.MaskedArray)
        if not k.startswith("rank"):
            assert cv_results[k].dtype == np.float64
            ran = run > int(k[5]) if k.startswith("split") else run > 0
            assert np.all((cv_results[k][ran] >= 0) & (cv_results[k][ran] <= 1))
            assert np.isnan(cv_results[k][~ran]).all()
    kinds = {"param_C": "i", "param_degree": "i", "param_gamma": "f"}
    for key in param_keys:
        assert isinstance(cv_results[key], np.ma.MaskedArray)
        assert cv_results[key].dtype.kind == kinds.get(key, "O")
    for i in range(n):
        poly = cv_results["param_kernel"][i] == "poly"
        assert cv_results["param_C"].mask[i] == poly
        assert cv_results["param_gamma"].mask[i] == poly
        assert cv_results["param_degree"].mask[i] != poly
    # The public scores are what cross-validation inside the training set
    # gives (the three public folds are the search's own, seeded publicly).
    # (A raced-out candidate's mean is its fold-0 score.)
    assert np.allclose(
        cv_results["mean_public_cv_score"],
        np.nanmean([cv_results[f"split{k}_public_cv_score"] for k in range(3)], axis=0),
    )
    with pytest.raises(KeyError, match="never published"):
        cv_results["mean_test_score"]


def test_search_cv_score_samples_error():
    X_, y_ = make_blobs(n_samples=100, n_features=4, random_state=42)
    s = search(DecisionTreeClassifier(), {"max_depth": [5, 10]}, cv=one_split(100)).fit(
        X_, y_
    )
    outer_msg = f"'{s.__class__.__name__}' has no attribute 'score_samples'"
    inner_msg = "'DecisionTreeClassifier' object has no attribute 'score_samples'"
    with pytest.raises(AttributeError, match=outer_msg) as exec_info:
        s.score_samples(X_)
    assert isinstance(exec_info.value.__cause__, AttributeError)
    assert inner_msg == str(exec_info.value.__cause__)


def test_search_cv_score_samples_method():
    rng = np.random.RandomState(42)
    n_samples, n_outliers = 300, 45
    X_ = make_blobs(
        n_samples=n_samples - n_outliers,
        n_features=2,
        centers=[[0, 0], [0, 0]],
        cluster_std=0.5,
        random_state=0,
    )[0]
    X_ = np.concatenate([X_, rng.uniform(low=-6, high=6, size=(n_outliers, 2))])
    y_true = np.array([1] * n_samples)
    y_true[-n_outliers:] = -1
    s = search(
        LocalOutlierFactor(novelty=True),
        {"n_neighbors": [5, 10]},
        scoring="accuracy",
        cv=one_split(n_samples),
    ).fit(X_, y_true)
    train = one_split(n_samples)[0][0]
    est = clone(LocalOutlierFactor(novelty=True)).set_params(**s.best_params_)
    est.fit(X_[train], y_true[train])
    assert_array_almost_equal(est.score_samples(X_), s.score_samples(X_))
    assert_array_almost_equal(est.predict(X_), s.predict(X_))


def test_search_cv_results_none_param():
    X_ = [[1], [2], [3], [4], [5], [6], [7], [8], [9], [10]]
    y_ = [0, 0, 0, 0, 1, 0, 0, 0, 1, 1]
    s = search(
        DecisionTreeClassifier(),
        {"random_state": [0, None]},
        cv=one_split(10),
        method=PrivateSelection(public_cv=2),
        n_iter=2,
    ).fit(X_, y_)
    col = s.cv_results_["param_random_state"]
    assert [col[i] for i in np.argsort(s.cv_results_["candidate_index"])] == [0, None]


def test_pickle():
    grid_search = search(
        RowwiseMockClassifier(),
        {"foo_param": [1, 2, 3]},
        refit=True,
        scoring=prediction_score(),
        cv=one_split(len(X)),
    ).fit(X, y)
    pickled = pickle.loads(pickle.dumps(grid_search))
    assert_array_almost_equal(grid_search.predict(X), pickled.predict(X))


def test_predict_proba_disabled():
    X_ = np.arange(40).reshape(10, -1)
    y_ = [0, 0, 1, 1, 1] * 2
    gs = search(SVC(), {}, cv=one_split(10), method=PrivateSelection(public_cv=2)).fit(
        X_, y_
    )
    assert not hasattr(gs, "predict_proba")


def test_grid_search_allows_nans():
    X_ = np.arange(40, dtype=np.float64).reshape(10, -1)
    X_[2, :] = np.nan
    y_ = [0, 0, 1, 1, 1, 0, 0, 1, 1, 1]
    p = Pipeline(
        [
            ("imputer", SimpleImputer(strategy="mean", missing_values=np.nan)),
            ("classifier", RowwiseMockClassifier()),
        ]
    )
    search(
        p,
        {"classifier__foo_param": [1, 2, 3]},
        scoring=prediction_score(),
        cv=one_split(10),
        method=PrivateSelection(public_cv=2),
    ).fit(X_, y_)


class FailingClassifier(BaseEstimator):
    """Classifier that raises a ValueError on fit()"""

    FAILING_PARAMETER = 2

    def __init__(self, parameter=None):
        self.parameter = parameter

    def fit(self, X, y=None):
        if self.parameter == FailingClassifier.FAILING_PARAMETER:
            raise ValueError("Failing classifier failed as required")
        return self

    def predict(self, X):
        return np.zeros(X.shape[0])

    def score(self, X=None, Y=None):
        return 0.0


FAILING_SPLIT = [(np.arange(40), np.arange(40, 60))]


def test_grid_search_failing_classifier():
    # error_score governs fits of public candidates on the public training
    # set: public information, so scikit-learn's semantics apply there (a
    # FitFailedWarning naming the failures, the public scores set to
    # error_score). A failed candidate is never scored on the validation set.
    X_, y_ = make_classification(n_samples=60, n_features=10, random_state=0)
    failing = FailingClassifier.FAILING_PARAMETER
    for error_score in (0.0, float("nan")):
        gs = search(
            FailingClassifier(),
            [{"parameter": [0, 1, 2]}],
            scoring="accuracy",
            refit=False,
            error_score=error_score,
            cv=FAILING_SPLIT,
            random_state=0,
        )
        # With error_score=nan the failed candidate's fold 0 is NaN, so it can
        # never be shortlisted and racing skips its other folds (1 of 7
        # fits); with a number it stays in the race (3 of 9, as upstream).
        failed_fits, fits = (1, 7) if np.isnan(error_score) else (3, 9)
        warning_message = re.compile(
            rf"{failed_fits} fits failed out of a total of {fits} fits of public "
            rf"candidates on the public training set.+error_score={error_score}.+"
            rf"never scored on the validation set.+{failed_fits} fits failed "
            "with: ValueError: Failing classifier failed as required",
            flags=re.DOTALL,
        )
        with pytest.warns(FitFailedWarning, match=warning_message):
            gs.fit(X_, y_)
        res = gs.cv_results_
        failed = np.asarray(res["param_parameter"]) == failing
        scores = np.array([res[f"split{k}_public_cv_score"] for k in range(3)]).T
        assert failed.sum() == 1
        if np.isnan(error_score):
            assert np.all(np.isnan(scores[failed]))
        else:
            assert np.all(scores[failed] == error_score)
        assert np.all(np.isfinite(scores[~failed]))
        # Succeeded candidates rank above the failed one, which ranks last.
        ranks = res["rank_public_cv_score"]
        assert np.all(ranks[~failed] <= 2) and ranks[failed][0] == 3
        assert gs.best_params_["parameter"] != failing
        assert failing not in [
            gs.candidate_params_[i]["parameter"] for i in gs.shortlist_
        ]
    # method="gp-ucb": every candidate after the first is chosen from
    # validation scores, so it is private and its fit failure is silent
    # (it scores the range's low end), even with error_score="raise".
    attempts = []

    class Recording(FailingClassifier):
        def fit(self, X, y=None):
            attempts.append(self.parameter)
            return super().fit(X, y)

    private_failures = 0
    for seed in range(3):
        attempts.clear()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            search(
                Recording(),
                {"parameter": [0, 1, 2]},
                method="gp-ucb",
                delta=1e-5,
                n_iter=8,
                scoring="accuracy",
                error_score="raise",
                refit=False,
                random_state=seed,
                cv=FAILING_SPLIT,
            ).fit(X_, y_)
        assert not [w for w in caught if issubclass(w.category, FitFailedWarning)]
        assert attempts[0] != failing  # the first (public) candidate fits
        private_failures += attempts[1:].count(failing)
    assert private_failures > 0  # a failing private fit was attempted


def test_grid_search_classifier_all_fits_fail():
    # Every candidate fails on the public training set: fit raises before
    # the validation set is read, and nothing is charged.
    X_, y_ = make_classification(n_samples=60, n_features=10, random_state=0)
    ledger = BudgetAccountant(epsilon=1.0, delta=0.0)
    gs = search(
        FailingClassifier(),
        [{"parameter": [FailingClassifier.FAILING_PARAMETER] * 3}],
        scoring="accuracy",
        error_score=0.0,
        cv=FAILING_SPLIT,
        accountant=ledger,
    )
    with pytest.warns(FitFailedWarning, match="Failing classifier failed"):
        with pytest.raises(ValueError, match="failed to fit.+no budget was spent"):
            gs.fit(X_, y_)
    assert ledger.history == ()
    assert not hasattr(gs, "best_params_")


def test_grid_search_failing_classifier_raise():
    X_, y_ = make_classification(n_samples=20, n_features=10, random_state=0)
    gs = search(
        FailingClassifier(),
        [{"parameter": [0, 1, 2]}],
        scoring="accuracy",
        refit=False,
        error_score="raise",
        cv=one_split(20),
        n_iter=3,
    )
    with pytest.raises(ValueError):
        gs.fit(X_, y_)


def test_stochastic_gradient_loss_param():
    X_ = np.arange(24).reshape(12, -1)
    y_ = [0, 0, 0, 1, 1, 1] * 2
    kw = dict(cv=one_split(12), method=PrivateSelection(public_cv=2))
    clf = search(SGDClassifier(loss="hinge"), {"loss": ["log_loss"]}, **kw)
    assert not hasattr(clf, "predict_proba")
    clf.fit(X_, y_)
    clf.predict_proba(X_)
    clf.predict_log_proba(X_)
    clf = search(SGDClassifier(loss="hinge"), {"loss": ["hinge"]}, **kw)
    assert not hasattr(clf, "predict_proba")
    clf.fit(X_, y_)
    assert not hasattr(clf, "predict_proba")


def test_search_train_scores_set_to_false():
    X_ = np.arange(12).reshape(12, -1)
    y_ = [0, 0, 0, 1, 1, 1] * 2
    gs = search(LinearSVC(random_state=0), {"C": [0.1, 0.2]}, cv=one_split(12))
    gs.set_params(method=PrivateSelection(public_cv=2)).fit(X_, y_)


def test_transform_inverse_transform_round_trip():
    grid_search = search(
        RowwiseMockClassifier(),
        {"foo_param": [1, 2, 3]},
        scoring=prediction_score(),
        cv=one_split(len(X)),
        verbose=3,
    )
    grid_search.fit(X, y)
    assert_array_equal(X, grid_search.inverse_transform(grid_search.transform(X)))


def test_empty_cv_iterator_error():
    cv = KFold(n_splits=3).split(X)
    [u for u in cv]  # consume it
    s = search(LogisticRegression(), {"C": [1e-3, 1e-2, 1e-1]}, cv=cv, n_jobs=2)
    with pytest.raises(
        ValueError,
        match=(
            "No fits were performed. "
            "Was the CV iterator empty\\? "
            "Were there no candidates\\?"
        ),
    ):
        s.fit(X[:100], y[:100])


def test_random_search_bad_cv():
    # Any splitter is called on placeholders that give no value; upstream's
    # inconsistent KFold is caught by the same check, with the same message.
    class BrokenKFold(KFold):
        def get_n_splits(self, *args, **kw):
            return 1

    s = search(LogisticRegression(), {"C": [1e-3, 1e-2]}, cv=BrokenKFold(n_splits=3))
    with pytest.raises(
        ValueError,
        match=(
            "cv.split and cv.get_n_splits return "
            "inconsistent results. Expected \\d+ "
            "splits, got \\d+"
        ),
    ):
        s.fit(X[:100], y[:100])


def test_n_features_in():
    n_features = 4
    X_, y_ = make_classification(n_features=n_features, random_state=0)
    gbdt = HistGradientBoostingClassifier()
    gs = search(gbdt, {"max_iter": [3, 4]}, cv=one_split(100))
    rs = search(gbdt, {"max_iter": (3, 4)}, n_iter=1, cv=one_split(100))
    assert not hasattr(gs, "n_features_in_")
    assert not hasattr(rs, "n_features_in_")
    gs.fit(X_, y_)
    rs.fit(X_, y_)
    assert gs.n_features_in_ == n_features
    assert rs.n_features_in_ == n_features


@pytest.mark.parametrize("pairwise", [True, False])
def test_search_cv_pairwise_property_delegated_to_base_estimator(pairwise):
    class TestEstimator(BaseEstimator):
        def __sklearn_tags__(self):
            tags = super().__sklearn_tags__()
            tags.input_tags.pairwise = pairwise
            return tags

    cv = search(TestEstimator(), {"n_neighbors": [10]})
    assert pairwise == cv.__sklearn_tags__().input_tags.pairwise


def test_search_cv__pairwise_property_delegated_to_base_estimator():
    class EstimatorPairwise(BaseEstimator):
        def __init__(self, pairwise=True):
            self.pairwise = pairwise

        def __sklearn_tags__(self):
            tags = super().__sklearn_tags__()
            tags.input_tags.pairwise = self.pairwise
            return tags

    est = EstimatorPairwise()
    for setting in [True, False]:
        est.set_params(pairwise=setting)
        cv = search(est, {"n_neighbors": [10]})
        assert setting == cv.__sklearn_tags__().input_tags.pairwise


@SEEDED
def test_search_cv_pairwise_property_equivalence_of_precomputed():
    X_, y_ = make_classification(n_samples=100, random_state=0)
    kw = dict(cv=one_split(100), noise_random_state=0, random_state=0)
    cv = search(KNeighborsClassifier(), {"n_neighbors": [10]}, **kw).fit(X_, y_)
    preds_original = cv.predict(X_)
    X_pre = euclidean_distances(X_)
    cv = search(
        KNeighborsClassifier(metric="precomputed"), {"n_neighbors": [10]}, **kw
    ).fit(X_pre, y_)
    train = one_split(100)[0][0]
    preds_precomputed = cv.predict(X_pre[:, train])
    assert (preds_original == preds_precomputed).all()


@pytest.mark.parametrize("returns_self", [False, True])
@pytest.mark.parametrize("param_search", [{"a": [0.1, 0.01]}, {"a": uniform(1, 3)}])
def test_scalar_fit_param(param_search, returns_self):
    class TestEstimator(ClassifierMixin, BaseEstimator):
        def __init__(self, a=None):
            self.a = a

        def fit(self, X, y, r=None):
            self.r_ = r
            return self if returns_self else None

        def predict(self, X):
            return np.zeros(shape=(len(X)))

    model = search(TestEstimator(), param_search, n_candidates=8, cv=one_split(100))
    X_, y_ = make_classification(random_state=42)
    model.fit(X_, y_, r=42)
    assert model.best_estimator_.r_ == 42


@pytest.mark.parametrize(
    "param_search", [{"alpha": [0.1, 0.01]}, {"alpha": uniform(0.01, 0.1)}]
)
def test_scalar_fit_param_compat(param_search):
    X_train, X_valid, y_train, y_valid = train_test_split(
        *make_classification(random_state=42), random_state=42
    )

    class _FitParamClassifier(SGDClassifier):
        def fit(
            self,
            X,
            y,
            sample_weight=None,
            tuple_of_arrays=None,
            scalar_param=None,
            callable_param=None,
        ):
            super().fit(X, y, sample_weight=sample_weight)
            assert scalar_param > 0
            assert callable(callable_param)
            assert isinstance(tuple_of_arrays, tuple)
            assert tuple_of_arrays[0].ndim == 2
            assert tuple_of_arrays[1].ndim == 1
            return self

    def _fit_param_callable():
        pass

    model = search(_FitParamClassifier(), param_search, n_candidates=8)
    fit_params = {
        "tuple_of_arrays": (X_valid, y_valid),
        "callable_param": _fit_param_callable,
        "scalar_param": 42,
    }
    model.fit(X_train, y_train, X_val=X_valid, y_val=y_valid, **fit_params)


@pytest.mark.parametrize("Predictor", [MinimalRegressor, MinimalClassifier])
@pytest.mark.parametrize("grid", [True, False])
def test_search_cv_using_minimal_compatible_estimator(Predictor, grid):
    from sklearn.metrics import r2_score

    rng = np.random.RandomState(0)
    X_, y_ = rng.randn(50, 2), np.array([0] * 10 + [1] * 40)
    model = Pipeline(
        [("transformer", MinimalTransformer()), ("predictor", Predictor())]
    )
    params = {"transformer__param": [1, 10], "predictor__parama": [1, 10]}
    if not grid:
        params = {"transformer__param": (1, 10), "predictor__parama": (1, 10)}
    scoring = None if Predictor is MinimalClassifier else neg_clipped_abs_error()
    s = search(
        model, params, error_score="raise", scoring=scoring, cv=one_split(50)
    ).fit(X_, y_)
    assert s.best_params_.keys() == params.keys()
    y_pred = s.predict(X_)
    if is_classifier(s):
        assert_array_equal(y_pred, 1)
        assert s.score(X_, y_) == pytest.approx(accuracy_score(y_, y_pred))
    else:
        train = one_split(50)[0][0]
        assert np.allclose(y_pred, y_[train].mean())
        mae = -np.mean(np.minimum(np.abs(y_ - y_pred), 1.0))
        assert s.score(X_, y_) == pytest.approx(mae)
        assert r2_score(y_, y_pred) == pytest.approx(0.0, abs=1e-12)
        # score() on the user's own data is not clipped into the bounds.
        s.set_params(scoring=DPScorer(_neg_clipped_abs_error, bounds=(-0.1, 0.0)))
        assert s.fit(X_, y_).score(X_, y_) == pytest.approx(mae)
        assert mae < -0.1


def test_search_estimator_param():
    X_, y_ = make_classification(random_state=42)
    params = {"clf": [LinearSVC()], "clf__C": [0.01]}
    orig_C = params["clf"][0].C
    pipe = Pipeline([("trs", MinimalTransformer()), ("clf", None)])
    gs = search(pipe, params, refit=True, cv=one_split(100), scoring="accuracy").fit(
        X_, y_
    )
    assert params["clf"][0].C == orig_C
    assert gs.best_estimator_.named_steps["clf"].C == 0.01


def test_search_html_repr():
    X_, y_ = make_classification(random_state=42)
    pipeline = Pipeline([("scale", StandardScaler()), ("clf", DummyClassifier())])
    param_grid = {"clf": [DummyClassifier(), LogisticRegression()]}
    kw = dict(cv=one_split(100), method=PrivateSelection(shortlist="grid"))
    s = search(pipeline, param_grid, refit=False, **kw)
    with config_context(display="diagram"):
        assert "<div>DummyClassifier</div>" in s._repr_html_()
    s.fit(X_, y_)
    with config_context(display="diagram"):
        assert "<div>DummyClassifier</div>" in s._repr_html_()
    # Fitted with refit=True shows the best estimator (which one is chosen
    # is a DP release; LogisticRegression wins by a wide margin here).
    s = search(pipeline, {"clf": [LogisticRegression()]}, refit=True, **kw)
    s.fit(X_, y_)
    with config_context(display="diagram"):
        repr_html = s._repr_html_()
        assert "<div>DummyClassifier</div>" not in repr_html
        assert "<div>LogisticRegression</div>" in repr_html
        assert "best_estimator_" in repr_html


def test_score_rejects_params_with_no_routing_enabled():
    X_, y_ = make_classification(random_state=42)
    gs = search(LinearSVC(), {"C": [1]}, cv=one_split(100)).fit(X_, y_)
    # The same ValueError; its message says that routing would not help
    # (the metric is the unweighted per-record mean) and what to do.
    with pytest.raises(ValueError, match="takes no metadata") as info:
        gs.score(X_, y_, metadata=1)
    assert_refused(info, "unweighted")
    with config_context(enable_metadata_routing=True):
        with pytest.raises(ValueError, match="takes no metadata"):
            gs.score(X_, y_, metadata=1)


def test_cv_results_dtype_issue_29074():
    class MetaEstimator(BaseEstimator, ClassifierMixin):
        def __init__(
            self,
            base_clf,
            parameter1=None,
            parameter2=None,
            parameter3=None,
            parameter4=None,
        ):
            self.base_clf = base_clf
            self.parameter1 = parameter1
            self.parameter2 = parameter2
            self.parameter3 = parameter3
            self.parameter4 = parameter4

        def fit(self, X, y=None):
            self.base_clf.fit(X, y)
            return self

        def score(self, X, y):
            return self.base_clf.score(X, y)

    class PredictingMetaEstimator(MetaEstimator):
        def predict(self, X):
            return self.base_clf.predict(X)

    param_grid = {
        "parameter1": [None, {"option": "A"}, {"option": "B"}],
        "parameter2": [None, [1, 2]],
        "parameter3": [{"a": 1}],
        "parameter4": ["str1", "str2"],
    }
    X_, y_ = make_blobs(random_state=0)
    # Upstream's MetaEstimator has only score(): it cannot be scored per
    # record, refused before any data is read.
    _no_response_refused(MetaEstimator(LogisticRegression()), X_, y_, "accuracy")
    # With predict, the public cv_results_ keeps its object dtype.
    gs = search(
        PredictingMetaEstimator(LogisticRegression()),
        param_grid,
        scoring="accuracy",
        cv=one_split(100),
        n_iter=4,
    )
    gs.fit(X_, y_)
    for param in param_grid:
        assert gs.cv_results_[f"param_{param}"].dtype == object


def test_search_with_estimators_issue_29157():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame(
        {
            "numeric_1": [1, 2, 3, 4, 5, 6],
            "object_1": ["a", "a", "a", "a", "a", "a"],
            "target": [1.0, 4.1, 2.0, 3.0, 1.0, 2.0],
        }
    )
    X_ = df.drop("target", axis=1)
    y_ = df["target"]
    enc = ColumnTransformer(
        [("enc", OneHotEncoder(sparse_output=False), ["object_1"])],
        remainder="passthrough",
    )
    pipe = Pipeline([("enc", enc), ("regressor", LinearRegression())])
    grid_params = {"enc__enc": [OneHotEncoder(sparse_output=False), OrdinalEncoder()]}
    gs = search(
        pipe,
        grid_params,
        scoring=neg_clipped_abs_error(),
        cv=one_split(6),
        method=PrivateSelection(public_cv=2),
    )
    gs.fit(X_, y_)
    assert gs.cv_results_["param_enc__enc"].dtype == object


def test_cv_results_multi_size_array():
    n_features = 10
    X_, y_ = make_classification(n_features=10, random_state=0)
    pipe = make_pipeline(
        SplineTransformer(extrapolation="periodic"), LogisticRegression()
    )
    knots_list = [
        np.linspace(0, np.pi * 2, n_knots).reshape((-1, n_features))
        for n_knots in [n_features * i for i in [10, 11, 12]]
    ]
    gs = search(
        pipe, {"splinetransformer__knots": knots_list}, cv=one_split(100), n_iter=3
    )
    gs.fit(X_, y_)
    assert gs.cv_results_["param_splinetransformer__knots"].dtype == object


# ---------------------------------------------------------------------------
# Refused by design: each asserts a refusal that says why and what to do
# ---------------------------------------------------------------------------
BLOBS = make_blobs(n_samples=60, random_state=0, centers=2)


def _refused_scoring(scoring, *words):
    Xb, yb = BLOBS
    with pytest.raises((ValueError, TypeError)) as info:
        search(LinearSVC(), {"C": [1]}, scoring=scoring, cv=one_split(60)).fit(Xb, yb)
    assert_refused(info, *words)


def test_grid_search_score_method():
    _refused_scoring("roc_auc", "roc_auc")


def test_grid_search_sparse_scoring():
    _refused_scoring("f1", "f1")


def test_unsupervised_grid_search():
    _refused_scoring("adjusted_rand_score", "adjusted_rand_score")
    from sklearn.cluster import KMeans

    Xb, _ = BLOBS
    with pytest.raises(ValueError) as info:
        search(KMeans(n_init=1), {"n_clusters": [2, 3]}, cv=one_split(60)).fit(Xb)
    assert_refused(info, "scoring")


def _refit_callable_refused(refit, scoring="accuracy"):
    Xb, yb = BLOBS
    with pytest.raises(ValueError) as info:
        search(
            LinearSVC(), {"C": [1, 10]}, refit=refit, scoring=scoring, cv=one_split(60)
        ).fit(Xb, yb)
    assert_refused(info, "callable", "raw validation scores")


def test_refit_callable():
    _refit_callable_refused(lambda cv_results: 0)


def test_refit_callable_invalid_type():
    _refit_callable_refused(lambda cv_results: None)


def test_refit_callable_out_bound():
    _refit_callable_refused(lambda cv_results: 2)


def test_refit_callable_multi_metric():
    _refit_callable_refused(lambda cv_results: 0, scoring=["accuracy"])


def _raw_score_columns_refused(key, **kwargs):
    Xb, yb = BLOBS
    s = search(LinearSVC(), {"C": [1, 10]}, cv=one_split(60), **kwargs).fit(Xb, yb)
    with pytest.raises(KeyError) as info:
        s.cv_results_[key]
    msg = str(info.value)
    assert "never published" in msg and "best_score_" in msg


def test_random_search_cv_results():
    _raw_score_columns_refused("mean_train_score")
    with pytest.raises(ValueError) as info:
        search(LinearSVC(), {"C": [1]}).set_params(return_train_score=True)
    assert_refused(info, "return_train_score")


def test_search_default_iid():
    _raw_score_columns_refused("split0_test_score")


def test_grid_search_cv_results_multimetric():
    _raw_score_columns_refused(
        "mean_test_acc", scoring={"acc": "accuracy"}, refit="acc"
    )


def test_random_search_cv_results_multimetric():
    _raw_score_columns_refused(
        "rank_test_acc", scoring={"acc": "accuracy"}, refit="acc"
    )


def test_grid_search_correct_score_results():
    _raw_score_columns_refused("split1_test_score")


def test_grid_search_with_multioutput_data():
    _raw_score_columns_refused("split0_test_score")


def test_search_cv_timing():
    # Upstream's data, tiled for one split; C=0 fails to fit (error_score=0).
    X_ = np.tile([[1], [2], [3], [4]], (10, 1))
    y_ = np.tile([0, 1, 1, 0], 10)
    s = search(
        LinearSVC(random_state=0),
        {"C": [0, 1]},
        cv=one_split(40),
        error_score=0,
        n_iter=2,
        method=PrivateSelection(public_cv=2),
    )
    with pytest.warns(FitFailedWarning):
        s.fit(X_, y_)
    res = s.cv_results_  # the public folds inside the training set
    assert sorted(p["C"] for p in res["params"]) == [0, 1]
    for key in ["mean_fit_time", "std_fit_time"]:
        assert np.all(res[key] >= 0)
    failed = np.array([p["C"] == 0 for p in res["params"]])
    for key in ["mean_score_time", "std_score_time"]:
        assert np.all(res[key][~failed] >= 0)
        assert np.all(res[key][failed] == 0.0)  # a failed fit is not scored
    # (upstream's "< 1 s" checks are left out: no timing assertions here)
    assert isinstance(s.refit_time_, float) and s.refit_time_ >= 0


def _scorer_metadata_refused():
    # A DPScorer requests no metadata (its per-record function gets y_true
    # and the model's output only); a scikit-learn scorer with a request,
    # given as the per-record function, is refused before any data.
    assert not hasattr(DPScorer(_one, bounds=(0, 1)), "set_score_request")
    Xb, yb = BLOBS
    ledger = BudgetAccountant(epsilon=1.0, delta=0.0)
    with config_context(enable_metadata_routing=True):
        scorer = DPScorer(
            make_scorer(accuracy_score).set_score_request(sample_weight=True),
            bounds=(0.0, 1.0),
            name="weighted",
        )
        s = search(
            LinearSVC(), {"C": [1]}, scoring=scorer, cv=one_split(60), accountant=ledger
        )
        with pytest.raises(ValueError) as info:
            s.fit(Xb, yb, sample_weight=np.ones(60))
    assert_refused(info, "sample_weight", "per-record sensitivity")
    assert ledger.history == ()


def test_unsupported_sample_weight_scorer():
    _scorer_metadata_refused()


def test_search_cv_sample_weight_equivalence():
    _scorer_metadata_refused()
    # Weights still reach the estimator's fit (the public training rows).
    Xb, yb = BLOBS
    with config_context(enable_metadata_routing=True):
        est = LogisticRegression().set_fit_request(sample_weight=True)
        s = search(est, {"C": [1]}, cv=one_split(60), refit=True)
        s.fit(Xb, yb, sample_weight=np.arange(60) % 3)


def test_multi_metric_search_forwards_metadata():
    _scorer_metadata_refused()


def test_search_cv_results_rank_tie_breaking():
    with pytest.raises(ValueError) as info:
        search(SVC(), {"C": [1, 1.001]}).set_params(return_train_score=True)
    assert_refused(info, "return_train_score", "raw validation scores")


def test_grid_search_cv_splits_consistency():
    Xb, yb = BLOBS
    for cv in (3, KFold(n_splits=3), ShuffleSplit(n_splits=2)):
        with pytest.raises(ValueError) as info:
            search(LinearSVC(), {"C": [1]}, cv=cv).fit(Xb, yb)
        assert_refused(info, "one", "split")


def _callable_scoring_refused():
    def scoring(est, X, y):
        return {"acc": accuracy_score(y, est.predict(X))}

    _refused_scoring(scoring, "scoring")


def test_callable_multimetric_confusion_matrix():
    _callable_scoring_refused()


def test_callable_multimetric_same_as_list_of_strings():
    _callable_scoring_refused()


def test_callable_single_metric_same_as_single_string():
    _callable_scoring_refused()


def test_callable_multimetric_error_on_invalid_key():
    _callable_scoring_refused()


def test_callable_multimetric_error_failing_clf():
    _callable_scoring_refused()


def test_callable_multimetric_clf_all_fits_fail():
    _callable_scoring_refused()


def test_search_cv_verbose_3(capsys):
    Xb, yb = BLOBS
    search(LinearSVC(), {"C": [0.1, 1]}, cv=one_split(60), verbose=3).fit(Xb, yb)
    out = capsys.readouterr().out
    assert "[DPBayesSearchCV]" in out
    assert "score=" not in out and "C=" not in out  # no score, no candidate
    with pytest.raises(ValueError) as info:
        search(LinearSVC(), {"C": [1]}).set_params(return_train_score=True)
    assert_refused(info, "return_train_score")


def test_search_with_2d_array():
    parameter_grid = {
        "vect__ngram_range": ((1, 1), (1, 2)),
        "vect__norm": ("l1", "l2"),
    }
    pipeline = Pipeline([("vect", TfidfVectorizer()), ("clf", ComplementNB())])
    s = search(pipeline, parameter_grid, cv=one_split(10))
    data = ["one", "two", "three", "four", "five"] * 2
    with pytest.raises(ValueError) as info:
        s.fit(data, [0, 0, 1, 0, 1] * 2)
    assert_refused(info, "tuple is a range", "use a list for a grid")
    # As lists they are grids, as in GridSearchCV.
    grid = {"vect__ngram_range": [(1, 1), (1, 2)], "vect__norm": ["l1", "l2"]}
    s = search(
        pipeline, grid, cv=one_split(10), method=PrivateSelection(public_cv=2), n_iter=3
    )
    s.fit(data, [0, 0, 1, 0, 1] * 2)
    assert s.cv_results_["param_vect__ngram_range"].dtype == object


def test_searchcv_raise_warning_with_non_finite_score():
    # Upstream's FailingScorer returns one aggregate number per call (NaN
    # every fifth call): it declares no per-record range, so it is refused.
    # A per-record DPScorer's failing or non-finite record scores the range's
    # low end silently: a warning would say whether a validation record failed.
    class FailingScorer:
        def __init__(self):
            self.n_counts = 0

        def __call__(self, estimator, X, y):
            self.n_counts += 1
            return np.nan if self.n_counts % 5 == 0 else 1

    _refused_scoring(FailingScorer(), "make_dp_scorer")


# Upstream's cases for its masked-array helper; here the param_* columns of
# the public cv_results_ (sklearn_dpbo's own helper) must match them.
one_hot_encoder = OneHotEncoder()
ordinal_encoder = OrdinalEncoder()
ma_with_tuples = np.ma.MaskedArray(np.empty(2), mask=True, dtype=object)
ma_with_tuples[0] = (1, 2)
ma_with_tuples[1] = (3, 4)


def _param_columns(candidate_params):
    from sklearn_dpbo.model_selection._cv_results import public_cv_results

    n = len(candidate_params)
    return public_cv_results(
        candidate_params,
        np.zeros((n, 1)),
        candidate_index=range(n),
        shortlisted=[False] * n,
    )


@pytest.mark.parametrize(
    ("candidate_params", "expected"),
    [
        pytest.param(
            [{"foo": 1}, {"foo": 2}],
            [("param_foo", np.ma.MaskedArray(np.array([1, 2])))],
            id="simple numeric, single param",
        ),
        pytest.param(
            [{"foo": 1, "bar": 3}, {"foo": 2, "bar": 4}, {"foo": 3}],
            [
                ("param_foo", np.ma.MaskedArray(np.array([1, 2, 3]))),
                (
                    "param_bar",
                    np.ma.MaskedArray(np.array([3, 4, 0]), mask=[False, False, True]),
                ),
            ],
            id="simple numeric, one param is missing in one round",
        ),
        pytest.param(
            [{"foo": [[1], [2], [3]]}, {"foo": [[1], [2]]}],
            [
                (
                    "param_foo",
                    np.ma.MaskedArray([[[1], [2], [3]], [[1], [2]]], dtype=object),
                )
            ],
            id="lists of different lengths",
        ),
        pytest.param(
            [{"foo": (1, 2)}, {"foo": (3, 4)}],
            [("param_foo", ma_with_tuples)],
            id="lists tuples",
        ),
        pytest.param(
            [{"foo": ordinal_encoder}, {"foo": one_hot_encoder}],
            [
                (
                    "param_foo",
                    np.ma.MaskedArray([ordinal_encoder, one_hot_encoder], dtype=object),
                )
            ],
            id="estimators",
        ),
    ],
)
def test_yield_masked_array_for_each_param(candidate_params, expected):
    result = _param_columns(candidate_params)
    for expected_key, expected_value in expected:
        value = result[expected_key]
        assert value.dtype == expected_value.dtype
        np.testing.assert_array_equal(value, expected_value)
        np.testing.assert_array_equal(value.mask, expected_value.mask)


def test_yield_masked_array_no_runtime_warning():
    candidate_params = [{"param": i} for i in range(1000)]
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        _param_columns(candidate_params)


def _array_api_combinations():
    """Upstream's combinations whose namespace is installed here.

    array_api_strict (a test dependency) gives a CPU device and a non-CPU
    one ("device1"); torch, cupy and dpnp are not test dependencies: their
    CPU and non-CPU devices behave as array_api_strict's here (accepted on
    the CPU, refused elsewhere with the reason).
    """
    from sklearn.utils._array_api import yield_namespace_device_dtype_combinations

    return [
        c
        for c in yield_namespace_device_dtype_combinations()
        if c[0] in ("numpy", "array_api_strict")
    ]


@pytest.mark.parametrize(
    "array_namespace, device_name, dtype_name", _array_api_combinations()
)
def test_array_api_search_cv_classifier(array_namespace, device_name, dtype_name):
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
    from sklearn.utils._testing import _array_api_for_tests

    xp, device = _array_api_for_tests(array_namespace, device_name, dtype_name)
    X_np = np.arange(100).reshape((10, 10)).astype(dtype_name)
    X_xp = xp.asarray(X_np, device=device)
    y_xp = xp.asarray(np.array([0] * 5 + [1] * 5), device=device)
    on_cpu = "cpu" in str(getattr(X_xp, "device", "cpu")).lower()
    with config_context(array_api_dispatch=True):
        searcher = search(
            LinearDiscriminantAnalysis(),
            {"tol": [1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7]},
            cv=[(np.array([0, 1, 2, 5, 6, 7]), np.array([3, 4, 8, 9]))],
            method=PrivateSelection(public_cv=2),
            error_score="raise",
            n_iter=3,
        )
        if not on_cpu:
            # Every validation record is scored on its own with NumPy on the
            # CPU: a device array is refused before any row is read.
            with pytest.raises(ValueError) as info:
                searcher.fit(X_xp, y_xp)
            assert_refused(info, "device", "on its own", "CPU")
            return
        searcher.fit(X_xp, y_xp)
        searcher.score(X_xp, y_xp)


def _callbacks_refused():
    from sklearn.linear_model import LogisticRegression as LR

    s = search(LR(), {"C": [1]})
    # No set_callbacks, as scikit-learn's estimators without callback
    # support (an outer search's propagated callbacks are then dropped, with
    # scikit-learn's warning); calling it says why.
    assert not hasattr(s, "set_callbacks")
    with pytest.raises(AttributeError, match="set_callbacks") as info:
        s.set_callbacks(object())
    cause = info.value.__cause__
    assert isinstance(cause, AttributeError)
    for word in ("private", "validation scoring", "timing", "Use verbose"):
        assert word in str(cause), (word, str(cause))


def test_search_callbacks_no_propagation():
    _callbacks_refused()


def test_search_callbacks_propagation():
    _callbacks_refused()


def test_search_callbacks_receive_sample_weight():
    _callbacks_refused()


def test_search_callbacks_receive_search_instance():
    _callbacks_refused()


def test_search_callbacks_with_partial_fit_failures():
    _callbacks_refused()


if __name__ == "__main__":  # print the tally
    counts = Counter(status for status, _ in UPSTREAM.values())
    print(f"{len(UPSTREAM)} upstream tests ({UPSTREAM_FILE}):")
    for status in (P, R, NA):
        print(f"  {status}: {counts[status]}")
    sys.exit(0)
