"""The private-model mode with a ρ-zCDP learner (``_private_model/_zcdp.py``).

Random stopping over DPGradientDescentLogisticRegression is accounted in
Rényi DP: the report's event (``RepeatAndSelectDpEvent(ZCDpEvent(ρ₀),
E[K], η)``) run through ``dp_accounting``'s RdpAccountant gives the
search's ε at δ − (the cap's δ), within its coarser order grid; the learner
fitted by the search is the ρ₀ the report states; the refusals come before
any budget is spent; neighbours differ in the releases only.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from sklearn.datasets import make_classification

import sklearn_dpbo.model_selection._private_model._fit as pm
from sklearn_dpbo import BudgetAccountant, DPBayesSearchCV
from sklearn_dpbo.dp_learners import DPGradientDescentLogisticRegression
from sklearn_dpbo.dp_learners._gd import rho_for
from sklearn_dpbo.model_selection import PrivateModel
from sklearn_dpbo.privacy._rdp import zcdp_epsilon

GRID = {"C": [0.1, 1.0, 10.0], "max_iter": [5, 10]}
N = 200


def _data():
    X, y = make_classification(N, 4, n_informative=3, n_redundant=0, random_state=0)
    return X / np.abs(X).max(), y


def _search(method=None, grid=GRID, **kw):
    kw.setdefault("delta", 1e-5)
    return DPBayesSearchCV(
        DPGradientDescentLogisticRegression(data_norm=2.0, max_iter=5),
        grid,
        method=method or PrivateModel(strategy="random-stopping"),
        epsilon=kw.pop("epsilon", 2.0),
        scoring="accuracy",
        n_iter=6,
        random_state=0,
        **kw,
    )


@pytest.mark.parametrize("dist", ["logarithmic", "negative-binomial", "geometric"])
def test_random_stopping_is_accounted_in_rdp(dist):
    dpa = pytest.importorskip("dp_accounting")
    acct = BudgetAccountant(epsilon=2.0, delta=1e-5)
    mode = PrivateModel(strategy="random-stopping", distribution=dist)
    s = _search(mode, accountant=acct).fit(*_data())
    report, stop = s.privacy_report_, s.privacy_report_.stopping
    assert s.strategy_ == "random-stopping"
    assert acct.spent == (2.0, 1e-5) and report.delta == 1e-5
    assert 0 < stop["added_delta"] <= 1e-6  # the cap's share: 10 % of δ
    rho = stop["rho_run"]
    assert s.best_estimator_.rho_ == rho
    # the run's score noise is rho-zCDP: epsilon_run = sqrt(2 rho)
    assert stop["epsilon_run"] == pytest.approx(np.sqrt(2 * rho))
    acc = dpa.rdp.RdpAccountant()
    acc.compose(report.to_dp_event())
    theirs = acc.get_epsilon(1e-5 - stop["added_delta"])
    # our order grid is finer than theirs: their epsilon of the same event
    # is at most a few % above the search's and never below it by more
    # than rounding
    assert 2.0 * (1 - 1e-4) <= theirs <= 2.0 * 1.03
    # per fit, as (epsilon, 1e-5): more than the pure rule's epsilon/(2 + eta)
    # (E[K] = 6 here; at E[K] = 30 with eta = 0 the two are about equal)
    assert zcdp_epsilon(rho, 1e-5) > 2.0 / (2 + stop["shape"])


def test_one_candidate_is_the_default_at_the_whole_budget():
    s = _search(PrivateModel(), grid={"C": [1.0]}).fit(*_data())
    assert s.strategy_ == "default"
    assert s.best_estimator_.rho_ == rho_for(2.0, 1e-5)
    assert zcdp_epsilon(s.best_estimator_.rho_, 1e-5) <= 2.0
    assert s.privacy_report_.delta == 1e-5


def test_auto_with_one_candidate_fits_that_candidate():
    s = _search(PrivateModel(), grid={"C": [0.003]}).fit(*_data())
    assert s.strategy_ == "default" and s.best_params_ == {"C": 0.003}
    assert s.best_estimator_.C == 0.003  # the learner's own C is 1.0
    assert "the one candidate" in s.privacy_report_.explain()


@pytest.mark.parametrize(
    "kw, match",
    [
        (dict(method=PrivateModel(strategy="split")), "split"),
        (dict(delta=0.0), "delta > 0"),
        (dict(grid={"delta": [1e-5, 1e-6]}), "delta"),
        # even rho -> 0 costs more than epsilon (the conversion's log terms)
        (dict(epsilon=2e-5, delta=1e-6), "too small for random stopping"),
    ],
)
def test_refusals_come_before_any_budget(kw, match):
    acct = BudgetAccountant(epsilon=4.0, delta=1e-4)
    with pytest.raises(ValueError, match=match):
        _search(accountant=acct, **kw).fit(*_data())
    assert acct.history == ()


@pytest.mark.parametrize("change", ["flipped", "non-finite"])
def test_neighbours_differ_in_the_releases_only(change):
    X, y = _data()
    train, val = pm.split_rows(N, 0.3, 0)
    released = {"best_params_", "best_index_", "best_estimator_", "best_score_"}
    for row in (int(train[0]), int(val[0])):
        X2, y2 = X.copy(), y.copy()
        if change == "flipped":
            X2[row], y2[row] = -X[row], 1 - y[row]
        else:
            X2[row], y2[row] = np.nan, 7
        fitted = []
        for Xs, ys in ((X, y), (X2, y2)):
            with pytest.warns(Warning):  # seeded noise: PrivacyLeakWarning
                s = _search(noise_random_state=11).fit(Xs, ys)
            for name in released:
                vars(s).pop(name, None)
            fitted.append(s)
        a, b = fitted
        assert set(vars(a)) == set(vars(b))
        for name in vars(a):
            if name.endswith("_"):
                assert repr(getattr(a, name)) == repr(getattr(b, name)), name
        assert pickle.dumps(a) == pickle.dumps(b)
