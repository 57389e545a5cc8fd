"""Drop-in parity with GridSearchCV (issue 10): the behaviours added for it.

The port of scikit-learn's own tests is ``tests/conformance/``; this file
checks what that port cannot: the budget of several metrics, that the
public ``cv_results_`` is exactly cross-validation inside the training set,
the Pipeline-step refusal that remains, metadata routing and the GridSearchCV keywords.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from conftest import NOISE_SEED_WARNING
from sklearn import config_context
from sklearn.base import clone
from sklearn.datasets import make_classification
from sklearn.decomposition import PCA
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import (
    ShuffleSplit,
    StratifiedKFold,
    cross_val_score,
    cross_validate,
)
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils._mocking import CheckingClassifier

from sklearn_dpbo import BudgetAccountant, DPBayesSearchCV, make_dp_scorer
from sklearn_dpbo.model_selection import PrivateSelection
from sklearn_dpbo.privacy import RowIndependenceError

X, y = make_classification(n_samples=240, n_features=6, random_state=0)
X_tr, y_tr, X_va, y_va = X[:160], y[:160], X[160:], y[160:]
SPACE = {"C": [0.01, 0.1, 1.0, 10.0]}


def _search(**kw):
    kw.setdefault("random_state", 0)
    return DPBayesSearchCV(LogisticRegression(), SPACE, **kw)


# ---------------------------------------------------------------------------
# Several metrics
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("budget_split", [0.5, 0.3])
def test_several_metrics_one_release_each_within_the_total(budget_split):
    ledger = BudgetAccountant(epsilon=1.0, delta=0.0)
    s = _search(
        scoring={"acc": "accuracy", "acc_again": "accuracy", "ramp": "neg_ramp_loss"},
        refit="acc",
        budget_split=budget_split,
        accountant=ledger,
    ).fit(X_tr, y_tr, X_val=X_va, y_val=y_va)
    report = s.privacy_report_.to_dict()
    quantities = [r["quantity"] for r in report["releases"]]
    assert quantities == [
        "best_params_",
        "best_score_",
        "best_scores_['acc_again']",
        "best_scores_['ramp']",
    ]
    eps = [r["epsilon"] for r in report["releases"]]
    # Selection gets b·E, every score release (1 − b)·E, E = ε/(b + k(1 − b)).
    E = 1.0 / (budget_split + 3 * (1 - budget_split))
    assert eps[0] == pytest.approx(budget_split * E, rel=1e-12)
    assert eps[1:] == pytest.approx([(1 - budget_split) * E] * 3, rel=1e-12)
    assert math.fsum(eps) <= 1.0 and math.fsum(eps) == pytest.approx(1.0)
    # Charged once, for all of them, equal to the report.
    assert len(ledger.history) == 1
    assert ledger.spent[0] == pytest.approx(report["epsilon"], rel=1e-12)
    # Each metric's own sensitivity (1/m for both kinds) and range.
    assert set(s.best_scores_) == {"acc", "acc_again", "ramp"}
    assert s.best_scores_["acc"] == s.best_score_
    assert 0.0 <= s.best_scores_["acc_again"] <= 1.0
    assert -1.0 <= s.best_scores_["ramp"] <= 0.0
    for r in report["releases"]:
        # (the Laplace grid rounds Δ up by at most a few 1e-6, relatively)
        assert r["sensitivity"] == pytest.approx(1 / 80, rel=1e-5)
    for r in report["releases"][1:]:  # Laplace: b = Δ/ε for each metric
        assert r["noise_scale"] == pytest.approx(r["sensitivity"] / r["epsilon"])


def _batch_dependent(y_true, out):
    # Each record's value depends on how many records are scored together:
    # not a per-record score.
    return (np.asarray(out) == np.asarray(y_true)) * (len(y_true) > 8)


@pytest.mark.parametrize("shortlist", ["bo", "grid"])
def test_other_metric_checked_on_public_rows_before_the_validation_read(shortlist):
    """The other metrics' public-rows check runs before the read, like the
    selection metric's: a row-dependent extra metric is refused with its
    own error, nothing charged (it used to arrive after the read, sealed as
    PrivateComputationError, with the budget spent)."""
    ledger = BudgetAccountant(epsilon=1.0, delta=0.0)
    search = _search(
        scoring={
            "acc": "accuracy",
            "batchy": make_dp_scorer(_batch_dependent, bounds=(0, 1)),
        },
        refit="acc",
        method=PrivateSelection(shortlist=shortlist),
        accountant=ledger,
    )
    with pytest.raises(RowIndependenceError):
        search.fit(X_tr, y_tr, X_val=X_va, y_val=y_va)
    assert ledger.spent == (0.0, 0.0)


_FITS: list = []


class CountingLogReg(LogisticRegression):
    """Records the size of every fit (module level: picklable)."""

    def fit(self, X, y, **kw):
        _FITS.append(len(y))
        return super().fit(X, y, **kw)


def test_other_metrics_score_the_restored_fit_without_refitting():
    def run(estimator):
        _FITS.clear()
        s = DPBayesSearchCV(
            estimator,
            SPACE,
            scoring={"acc": "accuracy", "ramp": "neg_ramp_loss"},
            refit="acc",
            random_state=0,
            n_iter=4,
        ).fit(X_tr, y_tr, X_val=X_va, y_val=y_va)
        assert set(s.best_scores_) == {"acc", "ramp"}
        return int(s.cv_results_["n_public_folds"].sum()), len(s.shortlist_)

    # Public folds + the shortlist's fits on the training set, nothing else:
    # the other metric and best_estimator_ use the restored pre-read fit.
    folds, shortlisted = run(CountingLogReg())
    assert len(_FITS) == folds + shortlisted

    class Unpicklable(CountingLogReg):  # a local class cannot be pickled
        pass

    # No snapshot: the other metric's release and best_estimator_ refit.
    folds, shortlisted = run(Unpicklable())
    assert len(_FITS) == folds + shortlisted + 2


def test_several_metrics_refit_and_mode_are_checked_before_data():
    ledger = BudgetAccountant(epsilon=5.0, delta=1e-3)
    base = dict(scoring=["accuracy", "neg_ramp_loss"], accountant=ledger)
    with pytest.raises(ValueError, match="refit must be set to a scorer key"):
        _search(refit=True, **base).fit(X_tr, y_tr, X_val=X_va, y_val=y_va)
    with pytest.raises(ValueError, match="method='private-selection' only"):
        _search(refit="accuracy", method="gp-ucb", **base).fit(
            X_tr, y_tr, X_val=X_va, y_val=y_va
        )
    with pytest.raises(ValueError, match="'error_score' parameter"):
        _search(refit="accuracy", error_score="ignore", **base).fit(
            X_tr, y_tr, X_val=X_va, y_val=y_va
        )
    assert ledger.history == ()


@pytest.mark.parametrize("error_score", [0.5, np.nan])
def test_several_metrics_error_score_need_not_lie_in_any_range(error_score):
    # error_score is the public cross-validation score of a candidate whose
    # fit on the public training set failed; such a candidate is never
    # scored on the validation set, so no metric's range constrains it
    # (np.nan is allowed with several metrics, as with one).
    from sklearn.exceptions import FitFailedWarning

    space = {"C": [0.1, 1.0, -1.0]}  # C < 0 fails to fit
    s = DPBayesSearchCV(
        LogisticRegression(),
        space,
        scoring=["accuracy", "neg_ramp_loss"],
        refit="accuracy",
        error_score=error_score,
        random_state=0,
    )
    with pytest.warns(FitFailedWarning, match="C"):
        s.fit(X_tr, y_tr, X_val=X_va, y_val=y_va)
    assert s.best_params_["C"] > 0
    assert set(s.best_scores_) == {"accuracy", "neg_ramp_loss"}


def test_several_metrics_without_score_release_spend_on_selection_only():
    s = _search(
        scoring=["accuracy", "neg_ramp_loss"], refit="accuracy", release_score=False
    ).fit(X_tr, y_tr, X_val=X_va, y_val=y_va)
    assert [r["quantity"] for r in s.privacy_report_.releases] == ["best_params_"]
    assert s.privacy_report_.epsilon == 1.0
    assert not hasattr(s, "best_scores_")


# ---------------------------------------------------------------------------
# Grids that swap Pipeline steps
# ---------------------------------------------------------------------------
def test_list_of_dicts_swapping_steps_is_checked_with_each_step_substituted():
    from sklearn.svm import LinearSVC
    from sklearn.tree import DecisionTreeClassifier

    pipe = make_pipeline(StandardScaler(), LogisticRegression())
    spaces = [
        {"logisticregression": [LinearSVC()], "logisticregression__C": [0.1, 1.0]},
        {
            "logisticregression": [DecisionTreeClassifier()],
            "logisticregression__max_depth": range(1, 3),
        },
    ]
    s = DPBayesSearchCV(
        pipe, spaces, method=PrivateSelection(shortlist="grid"), random_state=0
    )
    s.fit(X_tr, y_tr, X_val=X_va, y_val=y_va)
    assert len(s.candidate_params_) == 4
    step = s.best_estimator_.steps[-1][1]
    assert isinstance(step, (LinearSVC, DecisionTreeClassifier))
    assert step is not s.best_params_["logisticregression"]  # cloned
    # A parameter the substituted step does not have is refused, by name.
    bad = [{"logisticregression": [LinearSVC()], "logisticregression__max_depth": [1]}]
    with pytest.raises(ValueError, match=r"\['logisticregression__max_depth'\]"):
        DPBayesSearchCV(pipe, bad).fit(X_tr, y_tr, X_val=X_va, y_val=y_va)


# ---------------------------------------------------------------------------
# The public cv_results_
# ---------------------------------------------------------------------------
def test_public_cv_results_is_cross_validation_inside_the_training_set():
    s = _search(method=PrivateSelection(public_cv=StratifiedKFold(3))).fit(
        X_tr, y_tr, X_val=X_va, y_val=y_va
    )
    res = s.cv_results_
    assert len(res["params"]) >= 1
    for i, params in enumerate(res["params"]):
        assert params == s.candidate_params_[res["candidate_index"][i]]
        expected = cross_val_score(
            clone(LogisticRegression()).set_params(**params),
            X_tr,
            y_tr,
            cv=StratifiedKFold(3),
            scoring="accuracy",
        )
        got = [res[f"split{k}_public_cv_score"][i] for k in range(3)]
        np.testing.assert_allclose(got, expected, rtol=1e-12)
        assert res["mean_public_cv_score"][i] == pytest.approx(expected.mean())
    # The shortlist is the best public candidates.
    assert set(res["candidate_index"][res["shortlisted"]]) == set(s.shortlist_)
    # scikit-learn's conventions: best_index_ is the released candidate's row,
    # one split, one metric, and the public folds' fit and score times.
    assert res["params"][s.best_index_] == s.best_params_
    assert res["candidate_index"][s.best_index_] == s.best_candidate_index_
    assert s.n_splits_ == 1 and s.multimetric_ is False
    for column in ("mean_fit_time", "std_fit_time", "mean_score_time"):
        assert res[column].shape == (len(res["params"]),)
        assert np.isfinite(res[column]).all() and (res[column] >= 0).all()
    assert (res["mean_fit_time"] > 0).all()  # every row fitted at least one fold
    ranks = res["rank_public_cv_score"]
    assert set(ranks[res["shortlisted"]]) <= set(range(1, len(s.shortlist_) + 1))


@pytest.mark.parametrize(
    "kw",
    [
        dict(method="gp-ucb", n_iter=3),
        dict(method=PrivateSelection(shortlist="grid")),
    ],
)
def test_no_cv_results_says_why(kw):
    s = _search(**kw)
    with pytest.raises(AttributeError, match="not fitted"):
        _ = s.cv_results_
    s.fit(X_tr, y_tr, X_val=X_va, y_val=y_va)
    assert not hasattr(s, "cv_results_")
    with pytest.raises(AttributeError, match="only method='private-selection'"):
        _ = s.cv_results_


# ---------------------------------------------------------------------------
# The search as a Pipeline step: a documented pitfall
# ---------------------------------------------------------------------------
def test_search_as_pipeline_step_refused_when_x_val_shape_differs():
    """The search cannot see that a Pipeline called it (it inspects no stack
    frame): an X_val whose number of features differs from the transformed
    X is refused, before any data is read and before any charge; the other
    cases are documented (docs/coming_from_gridsearchcv.md)."""
    ledger = BudgetAccountant(epsilon=1.0, delta=0.0)
    pipe = make_pipeline(PCA(n_components=2), _search(accountant=ledger))
    with pytest.raises(ValueError, match=r"X has \(2,\) features per row but X_val"):
        pipe.fit(X_tr, y_tr, dpbayessearchcv__X_val=X_va, dpbayessearchcv__y_val=y_va)
    assert ledger.history == ()
    # The right pattern: preprocessing inside the searched estimator.
    DPBayesSearchCV(
        make_pipeline(StandardScaler(), LogisticRegression()),
        {"logisticregression__C": [0.1, 1.0]},
    ).fit(X_tr, y_tr, X_val=X_va, y_val=y_va)


# ---------------------------------------------------------------------------
# Metadata routing and fit parameters
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("routing", [False, True])
def test_cross_validate_routes_sample_weight_to_the_estimator(routing):
    w = np.arange(240) % 4 + 1.0
    seen = []

    class Recording(CheckingClassifier):
        def fit(self, X, y, sample_weight=None):
            seen.append(None if sample_weight is None else len(sample_weight))
            return super().fit(X, y)

        def predict(self, X):  # row-wise (CheckingClassifier's is random)
            return np.full(len(X), self.classes_[0])

    with config_context(enable_metadata_routing=routing):
        est = Recording()
        if routing:
            est.set_fit_request(sample_weight=True)
        s = DPBayesSearchCV(
            est,
            {"foo_param": [0, 1]},
            cv=ShuffleSplit(n_splits=1, test_size=0.25, random_state=0),
            method=PrivateSelection(public_cv=2),
            n_iter=2,
            random_state=0,
        )
        if routing:  # as any scikit-learn estimator's score: say it is ignored
            s.set_score_request(sample_weight=False)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            cross_validate(s, X, y, params={"sample_weight": w}, cv=2)
    # Every fit received the weights of exactly the rows it was fitted on:
    # outer fold 120 rows -> search training 90 -> public folds 45.
    assert seen and set(seen) <= {90, 45}
    # Without routing, fit says where the weights went (never to the
    # validation score); with routing the user has said it (set_fit_request).
    said = [w for w in caught if "goes to estimator.fit only" in str(w.message)]
    assert len(said) == (2 if not routing else 0)  # once per outer fit
    if said:
        assert said[0].category is UserWarning
        assert "no per-record sensitivity bound" in str(said[0].message)


@pytest.mark.parametrize("routing", [False, True])
def test_score_takes_no_metadata_and_says_what_to_do(routing):
    s = _search(n_iter=2).fit(X_tr, y_tr, X_val=X_va, y_val=y_va)
    w = np.ones(len(y_va))
    with config_context(enable_metadata_routing=routing):
        with pytest.raises(ValueError, match="takes no metadata") as info:
            s.score(X_va, y_va, sample_weight=w)
        assert s.score(X_va, y_va) == s.score(X_va, y_va)  # no params: scores
    msg = str(info.value)
    assert "unweighted" in msg and "accuracy_score(y, search.predict(X)" in msg


def test_gridsearch_keywords_explain_what_to_use():
    for name, words in [
        ("param_grid", "search_spaces"),
        ("param_distributions", "search_spaces"),
        ("return_train_score", "never"),
        # scikit-optimize's BayesSearchCV and Optuna's OptunaSearchCV (issue 22)
        ("n_trials", "n_iter=30"),
        ("timeout", "n_iter"),
        ("optimizer_kwargs", "method=PrivateSelection("),
        ("n_points", "batch_size=4"),
    ]:
        # The constructor refuses them as Python refuses any unknown keyword;
        with pytest.raises(TypeError, match=f"unexpected keyword argument '{name}'"):
            DPBayesSearchCV(LogisticRegression(), SPACE, **{name: {"C": [1]}})
        # set_params says what to use instead.
        with pytest.raises(ValueError, match=f"Invalid parameter '{name}'") as info:
            _search().set_params(**{name: {"C": [1]}})
        assert words in str(info.value) or "void" in str(info.value)
    # Only private-selection's "bo" shortlist fills cv_results_ with public
    # cross-validation scores: the hint says so.
    with pytest.raises(ValueError, match="shortlist='bo'"):
        _search().set_params(return_train_score=True)
    with pytest.raises(TypeError, match="unexpected keyword argument 'nonsense'"):
        DPBayesSearchCV(LogisticRegression(), SPACE, nonsense=1)
    with pytest.raises(ValueError, match="Invalid parameter 'nonsense'"):
        _search().set_params(nonsense=1)
    # Cloning, pickling and get_params are unaffected by the check.
    s = _search()
    assert repr(clone(s).get_params()) == repr(s.get_params())


@pytest.mark.filterwarnings(NOISE_SEED_WARNING)
def test_unfrozen_distribution_refused_before_data():
    from scipy.stats import loguniform

    ledger = BudgetAccountant(epsilon=1.0, delta=0.0)
    s = DPBayesSearchCV(LogisticRegression(), {"C": loguniform}, accountant=ledger)
    with pytest.raises(TypeError, match="freeze it"):
        s.fit(X_tr, y_tr, X_val=X_va, y_val=y_va)
    assert ledger.history == ()


def test_several_metrics_refit_false_says_why():
    """Issue 22: GridSearchCV's multi-metric refit=False has no equivalent
    (a selection is always released); the refusal says why and what to do."""
    for refit in (False, True):
        key = "refit must be set to a scorer key"
        with pytest.raises(ValueError, match=key) as info:
            _search(scoring=["accuracy", "neg_log_loss"], refit=refit).fit(
                X_tr, y_tr, X_val=X_va, y_val=y_va
            )
        msg = str(info.value)
        assert f"refit={refit!r} is refused" in msg
        assert "always selected and released" in msg and "Pass refit='<name>'" in msg


def test_make_dp_scorer_sensitivity_keyword_says_what_to_use():
    for score in ("accuracy", lambda y_true, out: np.ones(len(out))):
        with pytest.raises(TypeError, match="takes no sensitivity=") as info:
            make_dp_scorer(score, sensitivity=0.01)
        assert "bounds=(low, high)" in str(info.value)
        assert "sensitivity_for(m)" in str(info.value)
