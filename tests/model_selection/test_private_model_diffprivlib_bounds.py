"""diffprivlib's LinearRegression bounds are checked before the charge.

Before, any pair passed: a list (diffprivlib's check_bounds raises
TypeError), bounds_X whose length is neither 1 nor d (np.clip raises) or
lower and upper of different lengths failed inside the sealed run, the
budget spent and nothing released (rule 6); bounds_y of length k > 1 made
the one target k targets, which diffprivlib 0.6.6 prices below its epsilon.
Runs in the main lane: a stand-in with diffprivlib's class name and module.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import BaseEstimator, RegressorMixin

from sklearn_dpbo import BudgetAccountant, DPBayesSearchCV, make_dp_scorer
from sklearn_dpbo.model_selection import PrivateModel
from sklearn_dpbo.model_selection._private_model import _diffprivlib as dpl
from sklearn_dpbo.model_selection._private_model import _fit as pm
from sklearn_dpbo.model_selection._sealed import PrivateComputationError


class LinearRegression(RegressorMixin, BaseEstimator):
    """Stands in for diffprivlib.models.LinearRegression; never fitted."""

    _parameter_constraints: dict = {}

    def __init__(
        self, *, epsilon=1.0, bounds_X=None, bounds_y=None, fit_intercept=False,
        copy_X=True, random_state=None,
    ):  # fmt: skip
        self.epsilon = epsilon
        self.bounds_X = bounds_X
        self.bounds_y = bounds_y
        self.fit_intercept = fit_intercept
        self.copy_X = copy_X
        self.random_state = random_state

    def fit(self, X, y):
        raise AssertionError("never fitted here")


LinearRegression.__module__ = "diffprivlib.models.linear_regression"


def _fit(bounds_X, bounds_y, monkeypatch, acct):
    monkeypatch.setattr(dpl, "_models", lambda: {"LinearRegression": LinearRegression})

    def fit_dp_learner(est, X, y, rng):
        raise AssertionError("reached the private fit")

    monkeypatch.setattr(pm, "fit_dp_learner", fit_dp_learner)
    search = DPBayesSearchCV(
        LinearRegression(bounds_X=bounds_X, bounds_y=bounds_y),
        {"copy_X": [True, False]},
        method=PrivateModel(),
        epsilon=1.0,
        scoring=make_dp_scorer("neg_mean_squared_error", error_clip=2.0),
        n_iter=2,
        accountant=acct,
    )
    X = np.random.default_rng(0).uniform(-1, 1, size=(60, 2))
    search.fit(X, X[:, 0])


@pytest.mark.parametrize(
    "bounds_X, bounds_y, error, match",
    [
        ([-1.0, 1.0], (-1.0, 1.0), TypeError, "bounds_X must be a tuple"),
        ((-1.0, 1.0), [-1.0, 1.0], TypeError, "bounds_y must be a tuple"),
        (([-1.0] * 3, [1.0] * 3), (-1.0, 1.0), ValueError, "3 bounds per side for 2"),
        (([-1.0] * 2, 1.0), (-1.0, 1.0), ValueError, "same length"),
        ((-1.0, 1.0), ([-1.0] * 4, [1.0] * 4), ValueError, "one .lower, upper. pair"),
    ],
)
def test_bounds_refused_before_the_charge(
    bounds_X, bounds_y, error, match, monkeypatch
):
    acct = BudgetAccountant(epsilon=5.0, delta=1e-4)
    with pytest.raises(error, match=match):
        _fit(bounds_X, bounds_y, monkeypatch, acct)
    assert acct.spent == (0.0, 0.0)


@pytest.mark.parametrize("bounds_X", [(-1.0, 1.0), ((-1.0, -2.0), (1.0, 2.0))])
def test_valid_bounds_reach_the_private_fit(bounds_X, monkeypatch):
    acct = BudgetAccountant(epsilon=5.0, delta=1e-4)
    with pytest.raises(PrivateComputationError):  # the stand-in's fit raised
        _fit(bounds_X, (-1.0, 1.0), monkeypatch, acct)
    assert acct.spent[0] > 0  # charged: the checks let it through
