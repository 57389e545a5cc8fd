"""DPBayesSearchCV(method="federated-ldp") end to end, with V/V' checks.

Neighbouring validation sets differ in *one owner's* records (user-level
unit). With the test-only ``noise_random_state`` the discrete Laplace draws
do not depend on the reported value, so a change of one owner's records
must change exactly her report, by exactly the change of her clipped
score, and everything before her round not at all; an owner never asked
must change nothing.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from _leaks import Secrets, walk
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_dpbo import (
    BudgetAccountant,
    BudgetError,
    DPBayesSearchCV,
    PrivacyLeakWarning,
)
from sklearn_dpbo.model_selection import _federated as federated_module
from sklearn_dpbo.model_selection._federated import owner_order

N_OWNERS, PER_OWNER, N_ITER = 30, 5, 12
SPACE = {"logisticregression__C": [float(c) for c in np.logspace(-4, 1, 8)]}


@pytest.fixture(scope="module")
def data():
    X, y = load_breast_cancer(return_X_y=True)
    X_tr, X_va, y_tr, y_va = train_test_split(
        X, y, train_size=150, test_size=N_OWNERS * PER_OWNER, random_state=0, stratify=y
    )
    groups = np.repeat(np.arange(100, 100 + N_OWNERS), PER_OWNER)
    return X_tr, y_tr, X_va, y_va, groups


def _search(**kw):
    est = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000))
    params = dict(
        method="federated-ldp",
        n_iter=N_ITER,
        epsilon=1.0,
        random_state=0,
        noise_random_state=0,
    )
    params.update(kw)
    return DPBayesSearchCV(est, SPACE, **params)


def _fit(data, X_va=None, y_va=None, **kw):
    X_tr, y_tr, X0, y0, groups = data
    s = _search(**kw)
    with pytest.warns(PrivacyLeakWarning):
        s.fit(
            X_tr,
            y_tr,
            X_val=X0 if X_va is None else X_va,
            y_val=y0 if y_va is None else y_va,
            val_groups=groups,
        )
    return s


@pytest.fixture(scope="module")
def base(data):
    return _fit(data)


def _observable(s):
    r = s.cv_results_
    return (
        s.best_index_,
        s.best_score_,
        r["candidate_index"].tolist(),
        r["owner"].tolist(),
        r["noisy_test_score"].tolist(),
    )


def _owner_rows(groups, owner):
    return np.flatnonzero(groups == owner)


def test_end_to_end_report_and_results(data, base):
    s = base
    rep = s.privacy_report_
    assert rep.method == "federated-ldp" and rep.epsilon == 1.0 and rep.delta == 0.0
    (release,) = rep.releases
    assert "per owner" in release["guarantee"]
    assert f"{N_ITER} distinct owners asked once" in release["assumption"]
    assert release["sensitivity"] == 1.0  # accuracy in [0, 1]
    r = s.cv_results_
    assert len(r["params"]) == N_ITER == len(set(r["owner"].tolist()))
    assert set(r["owner"].tolist()) <= set(data[4].tolist())
    assert 0.0 <= s.best_score_ <= 1.0
    assert s.best_params_ == s.candidate_params_[s.best_candidate_index_]
    # As in scikit-learn: best_index_ is a row of cv_results_ (the learner
    # recommends an evaluated candidate).
    assert r["params"][s.best_index_] == s.best_params_
    # No time measured after the first owner was asked is published.
    for column in ("mean_fit_time", "std_fit_time", "mean_score_time"):
        assert np.isnan(r[column]).all() and len(r[column]) == N_ITER
    assert s.best_estimator_.predict(data[0][:3]).shape == (3,)


def test_owner_never_asked_changes_nothing(data, base):
    X_tr, y_tr, X_va, y_va, groups = data
    order, _ = owner_order(groups, _search()._check_settings().seed)
    assert order[:N_ITER].tolist() == base.cv_results_["owner"].tolist()
    silent = order[-1]
    rows = _owner_rows(groups, silent)
    X2, y2 = X_va.copy(), y_va.copy()
    X2[rows] = X2[rows] * 3.0 + 7.0
    y2[rows] = 1 - y2[rows]
    assert _observable(_fit(data, X2, y2)) == _observable(base)


def test_asked_owner_moves_only_her_report(data, base):
    X_tr, y_tr, X_va, y_va, groups = data
    r = 4
    owner = base.cv_results_["owner"][r]
    rows = _owner_rows(groups, owner)
    y2 = y_va.copy()
    y2[rows] = 1 - y2[rows]  # her accuracy becomes 1 − accuracy
    other = _fit(data, y_va=y2)
    a, b = base.cv_results_, other.cv_results_
    np.testing.assert_array_equal(
        a["candidate_index"][: r + 1], b["candidate_index"][: r + 1]
    )
    np.testing.assert_array_equal(a["noisy_test_score"][:r], b["noisy_test_score"][:r])
    # Her score s becomes 1 − s; the noise draw is the same (seeded), so the
    # reports differ by exactly (1 − s) − s on the grid.
    est = base.estimator.set_params(**base.candidate_params_[a["candidate_index"][r]])
    est.fit(X_tr, y_tr)
    s_own = float((est.predict(X_va[rows]) == y_va[rows]).mean())
    diff = b["noisy_test_score"][r] - a["noisy_test_score"][r]
    assert diff == pytest.approx(1.0 - 2.0 * s_own, abs=1e-5)
    assert s_own != 0.5


def test_failing_owner_counts_as_the_lower_bound(data, base):
    # V': her labels are a class no model predicts (accuracy 0 = the lower
    # bound). V'': her features are NaN, so predict raises. Same outputs,
    # and fit does not raise.
    X_tr, y_tr, X_va, y_va, groups = data
    owner = base.cv_results_["owner"][2]
    rows = _owner_rows(groups, owner)
    y_zero = y_va.copy()
    y_zero[rows] = 7
    X_nan = X_va.copy()
    X_nan[rows] = np.nan
    zero, failing = _fit(data, y_va=y_zero), _fit(data, X_va=X_nan)
    assert _observable(zero) == _observable(failing)
    assert _observable(zero) != _observable(base)


def test_no_raw_owner_score_reachable(data, base):
    X_tr, y_tr, X_va, y_va, groups = data
    s = base
    raw = []
    for j, owner in zip(s.cv_results_["candidate_index"], s.cv_results_["owner"]):
        est = s.estimator.set_params(**s.candidate_params_[j]).fit(X_tr, y_tr)
        rows = _owner_rows(groups, owner)
        raw.append(float((est.predict(X_va[rows]) == y_va[rows]).mean()))
    # Accuracies of 5 records are k/5; 0 and 1 are public bounds.
    secrets = Secrets([v for v in raw if 0.0 < v < 1.0], public=(0.0, 1.0, 0.5))
    for path, _, obj in walk(s):
        if isinstance(obj, (float, np.floating)):
            assert not secrets.match_float(obj), path
        elif isinstance(obj, np.ndarray) and obj.dtype.kind == "f":
            assert not secrets.match_array(obj), path
    assert not secrets.match_bytes(pickle.dumps(s))


def test_refusals_spend_nothing(data):
    X_tr, y_tr, X_va, y_va, groups = data
    acc = BudgetAccountant(epsilon=10.0)
    s = _search(n_iter=N_OWNERS + 1, accountant=acc, noise_random_state=None)
    with pytest.raises(ValueError, match="exceeds the number of owners"):
        s.fit(X_tr, y_tr, X_val=X_va, y_val=y_va, val_groups=groups)
    assert acc.spent == (0.0, 0.0)
    with pytest.raises(ValueError, match="val_groups"):
        _search(noise_random_state=None).fit(X_tr, y_tr, X_val=X_va, y_val=y_va)
    with pytest.raises(ValueError, match="val_groups"):
        _search(method="private-selection", noise_random_state=None).fit(
            X_tr, y_tr, X_val=X_va, y_val=y_va, val_groups=groups
        )
    with pytest.raises(ValueError, match="one owner id per validation record"):
        _search(noise_random_state=None, accountant=acc).fit(
            X_tr, y_tr, X_val=X_va, y_val=y_va, val_groups=groups[:-1]
        )
    assert acc.spent == (0.0, 0.0)


# ---------------------------------------------------------------------------
# Issue 19, N6: asking the same owners in a second fit is refused or charged
# ---------------------------------------------------------------------------
def _fit_on(s, data, groups=None):
    X_tr, y_tr, X_va, y_va, g = data
    return s.fit(
        X_tr, y_tr, X_val=X_va, y_val=y_va, val_groups=g if groups is None else groups
    )


@pytest.fixture
def asks(monkeypatch):
    """Counts the owners asked (calls of the owner's side)."""
    calls = []
    original = federated_module._owner_report

    def counted(ctx, params, rows, randomizer):
        calls.append(len(rows))
        return original(ctx, params, rows, randomizer)

    monkeypatch.setattr(federated_module, "_owner_report", counted)
    return calls


def test_second_fit_on_the_same_owners_refused_without_accountant(data, asks):
    s = _fit_on(_search(noise_random_state=None), data)
    assert len(asks) == N_ITER
    with pytest.raises(ValueError, match="already asked by an earlier fit") as info:
        _fit_on(s, data)
    assert len(asks) == N_ITER  # refused before any owner was asked
    message = str(info.value)
    assert f"{N_ITER} of the {N_ITER} owners" in message
    assert "Nothing was asked or spent" in message and "clone(search)" in message
    # The refusal is public and stays: a third try is refused too.
    with pytest.raises(ValueError, match="already asked"):
        _fit_on(s, data)
    assert len(asks) == N_ITER


def test_second_fit_charged_to_the_accountant_that_recorded_the_first(data, asks):
    acc = BudgetAccountant(epsilon=2.5)
    s = _search(noise_random_state=None, accountant=acc)
    first = _fit_on(s, data).privacy_report_.releases[0]["assumption"]
    assert "none of them asked by an earlier fit" in first
    second = _fit_on(s, data).privacy_report_.releases[0]["assumption"]
    assert f"{N_ITER} of them asked by earlier fits" in second
    assert "sum of the epsilons" in second
    assert acc.spent == (2.0, 0.0)  # epsilon = 1 per fit, each owner 2 x 1
    assert len(asks) == 2 * N_ITER
    with pytest.raises(BudgetError):  # a third ask would exceed 2.5
        _fit_on(s, data)
    assert acc.spent == (2.0, 0.0) and len(asks) == 2 * N_ITER


def test_an_accountant_that_did_not_record_the_first_fit_is_refused(data, asks):
    s = _fit_on(_search(noise_random_state=None), data)  # no accountant
    acc = BudgetAccountant(epsilon=10.0)
    s.set_params(accountant=acc)
    with pytest.raises(ValueError, match="already asked"):
        _fit_on(s, data)
    assert acc.spent == (0.0, 0.0) and len(asks) == N_ITER
    # Recorded by one accountant, then another one: refused too.
    acc1, acc2 = BudgetAccountant(epsilon=10.0), BudgetAccountant(epsilon=10.0)
    t = _fit_on(_search(noise_random_state=None, accountant=acc1), data)
    t.set_params(accountant=acc2)
    with pytest.raises(ValueError, match="already asked"):
        _fit_on(t, data)
    assert acc1.spent == (1.0, 0.0) and acc2.spent == (0.0, 0.0)


def test_any_overlap_is_refused(data, asks):
    _, _, _, _, groups = data
    s = _fit_on(_search(noise_random_state=None), data)
    first = set(s.cv_results_["owner"].tolist())
    s.set_params(random_state=1)  # another public order of the same owners
    order, _ = owner_order(groups, s._check_settings().seed)
    again = first & set(order[:N_ITER].tolist())
    assert 0 < len(again) < N_ITER  # a partial overlap
    with pytest.raises(ValueError, match=f"{len(again)} of the {N_ITER} owners"):
        _fit_on(s, data)
    assert len(asks) == N_ITER


def test_new_owners_and_clone_are_explicit_choices(data, asks):
    _, _, _, _, groups = data
    s = _fit_on(_search(noise_random_state=None), data)
    # Other owner ids: nobody asked before, allowed.
    _fit_on(s, data, groups=groups + 1000)
    assert len(asks) == 2 * N_ITER
    # A clone is a new estimator (scikit-learn semantics): it remembers
    # nothing, so asking the same owners through it is the user's choice
    # (their guarantee becomes 2 epsilon; the docs say so).
    _fit_on(clone(s), data)
    assert len(asks) == 3 * N_ITER
    # The estimator itself still refuses both sets of owners.
    for g in (groups, groups + 1000):
        with pytest.raises(ValueError, match="already asked"):
            _fit_on(s, data, groups=g)
    assert len(asks) == 3 * N_ITER


def test_pickled_search_remembers_the_owners(data, asks):
    s = _fit_on(_search(noise_random_state=None), data)
    restored = pickle.loads(pickle.dumps(s))
    with pytest.raises(ValueError, match="already asked"):
        _fit_on(restored, data)
    assert len(asks) == N_ITER


def test_an_interrupted_fit_counts_its_owners_as_asked(data, monkeypatch):
    def interrupted(ctx, params, rows, randomizer):
        _ = ctx.data.X_val  # the owner's records are read
        raise KeyboardInterrupt

    monkeypatch.setattr(federated_module, "_owner_report", interrupted)
    s = _search(noise_random_state=None)
    with pytest.raises(KeyboardInterrupt):
        _fit_on(s, data)
    monkeypatch.undo()
    with pytest.raises(ValueError, match=f"{N_ITER} of the {N_ITER} owners"):
        _fit_on(s, data)
