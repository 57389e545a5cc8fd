"""diffprivlib in the private-model mode where it does not import (main lane).

The diffprivlib models themselves are tested in ``tests_diffprivlib/`` by the
``dp-learners`` lane of ``.ci/version_smoke.py`` (scikit-learn < 1.8). Here,
on any scikit-learn, a diffprivlib model is refused with a clear error
before any row is read when diffprivlib cannot be imported.
"""

from __future__ import annotations

import sys

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin

from sklearn_dpbo import BudgetAccountant, DPBayesSearchCV
from sklearn_dpbo.dp_learners import DPLinearRegression, DPLogisticRegression
from sklearn_dpbo.model_selection import PrivateModel
from sklearn_dpbo.model_selection._private_model import _fit as pm
from sklearn_dpbo.model_selection._private_model._diffprivlib import (
    fit_dp_learner,
    is_diffprivlib,
    learner_assumption,
)


class _LogisticRegression(ClassifierMixin, BaseEstimator):
    """Stands in for diffprivlib.models.LogisticRegression (same module path)."""

    def __init__(self, epsilon=1.0, data_norm=1.0, C=1.0):
        self.epsilon = epsilon
        self.data_norm = data_norm
        self.C = C

    def fit(self, X, y):
        raise AssertionError("never fitted: refused before")


_LogisticRegression.__module__ = "diffprivlib.models.logistic_regression"


class _NoRead:
    shape = (50, 3)

    def __len__(self):
        return 50

    def __array__(self, *args, **kwargs):
        raise AssertionError("a row was read before the refusal")


def test_diffprivlib_refused_with_a_clear_error_when_it_does_not_import(
    monkeypatch,
):
    monkeypatch.setitem(sys.modules, "diffprivlib", None)  # import fails
    acct = BudgetAccountant(epsilon=5.0, delta=1e-4)
    search = DPBayesSearchCV(
        _LogisticRegression(),
        {"C": [0.1, 1.0]},
        method=PrivateModel(),
        epsilon=1.0,
        delta=1e-6,
        scoring="accuracy",
        n_iter=2,
        accountant=acct,
    )
    with pytest.raises(TypeError, match=r"cannot use diffprivlib here.*dp-learners"):
        search.fit(_NoRead(), np.zeros(50))
    assert acct.spent == (0.0, 0.0)


def test_dispatch_keeps_the_library_learners_path():
    ours = DPLogisticRegression(data_norm=1.0)
    assert is_diffprivlib(_LogisticRegression())
    assert not is_diffprivlib(ours)
    said = learner_assumption(ours, "its proof")
    assert said.startswith("its proof; its Newton solver reaches")
    assert "outside the guarantee" in said
    linear = DPLinearRegression(data_norm=1.0, target_bound=1.0)
    assert learner_assumption(linear, "its proof") == "its proof"
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2)) / 4
    y = (X[:, 0] > 0).astype(int)
    fitted = fit_dp_learner(ours, X, y, rng)
    assert fitted is ours and fitted.coef_.shape == (1, 2)


class LogisticRegression(ClassifierMixin, BaseEstimator):
    """Stands in for diffprivlib's LogisticRegression (same name and module):
    fitted, it predicts 1 where x_0 > 0, the rule the data below follows."""

    _parameter_constraints: dict = {}

    def __init__(self, epsilon=1.0, C=1.0):
        self.epsilon = epsilon
        self.C = C

    def fit(self, X, y):
        self.labels_seen_ = set(np.unique(y))
        self.classes_ = np.array([0, 1])
        return self

    def predict(self, X):
        return (np.asarray(X)[:, 0] > 0).astype(int)


LogisticRegression.__module__ = "diffprivlib.models.logistic_regression"


@pytest.mark.parametrize("labels", [(0, 1), (-1, 1), (2, 1), (False, True)])
def test_diffprivlib_labels_are_one_or_not_one_in_fit_and_validation(
    monkeypatch, labels
):
    # diffprivlib's LogisticRegression is fitted on y == 1; its validation
    # rows are scored against the same 0/1 labels (before, raw labels
    # {-1, 1} or {2, 1} against predictions in {0, 1}: every score the share
    # of one class). A dtype holding no numbers is refused before any read.
    monkeypatch.setattr(pm, "check_diffprivlib_learner", lambda est, names: None)
    monkeypatch.setattr(pm, "fit_dp_learner", lambda est, X, y, rng: est.fit(X, y))
    X = np.random.default_rng(0).uniform(-1, 1, size=(400, 2))
    y = np.where(X[:, 0] > 0, labels[1], labels[0])
    acct = BudgetAccountant(epsilon=100.0, delta=1e-4)
    search = DPBayesSearchCV(
        LogisticRegression(),
        {"C": [0.1, 1.0]},
        method=PrivateModel(strategy="split"),
        epsilon=50.0,
        scoring="accuracy",
        n_iter=2,
        release_score=True,
        accountant=acct,
    ).fit(X, y)
    assert search.best_score_ > 0.9  # 1 up to the score's noise at ε = 25
    assert search.best_estimator_.labels_seen_ == {0.0, 1.0}
    with pytest.raises(TypeError, match="labels 0/1"):
        search.fit(X, np.where(y == labels[1], "yes", "no"))
    assert acct.spent == (50.0, 0.0)
