"""diffprivlib models in the private-model mode (the ``dp-learners`` lane).

Collected only by ``.ci/version_smoke.py --lane dp-learners`` (a venv with
scikit-learn < 1.8 and diffprivlib): ``testpaths = tests`` keeps the main run
from collecting this folder, and ``tests/model_selection/
test_private_model_diffprivlib_refusal.py`` checks there that diffprivlib is
refused with a clear error when it does not import. Nothing here is skipped:
a missing diffprivlib fails the lane.
"""

from __future__ import annotations

import secrets

import diffprivlib
import numpy as np
import pytest
from diffprivlib.accountant import BudgetAccountant as DPLAccountant
from diffprivlib.mechanisms.base import DPMechanism
from diffprivlib.models import GaussianNB, LinearRegression, LogisticRegression
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split

from sklearn_dpbo import BudgetAccountant, DPBayesSearchCV, make_dp_scorer
from sklearn_dpbo.model_selection import PrivateModel
from sklearn_dpbo.model_selection._private_model._diffprivlib import (
    DIFFPRIVLIB_ASSUMPTION,
)

C_GRID = {"C": list(np.logspace(-2, 3, 12))}


def _public_scale(X):
    """A public affine map per feature, a constant column, then 1/2.

    The per-feature centres and scales stand in for public domain knowledge
    (here read from the bundled data set, outside the private computation).
    The constant column carries the intercept inside the regularised weights.
    Rows are not forced into the unit ball: diffprivlib clips each row to
    ``data_norm`` = 1 inside the private fit.
    """
    Z = (X - X.mean(axis=0)) / X.std(axis=0)
    return np.hstack([Z, np.ones((len(Z), 1))]) / 2


def _cancer():
    X, y = load_breast_cancer(return_X_y=True)
    return train_test_split(_public_scale(X), y, test_size=0.3, random_state=0)


def _search(estimator, grid=None, **kw):
    return DPBayesSearchCV(
        estimator,
        C_GRID if grid is None else grid,
        method=kw.pop("method", PrivateModel(strategy="random-stopping")),
        epsilon=kw.pop("epsilon", 1.0),
        delta=1e-6,
        scoring=kw.pop("scoring", "accuracy"),
        n_iter=kw.pop("n_iter", 12),
        random_state=0,
        **kw,
    )


def _logreg(**kw):
    return LogisticRegression(data_norm=1.0, fit_intercept=False, **kw)


class _NoRead:
    """Rows that must not be read: any access fails the test."""

    shape = (100, 31)

    def __len__(self):
        return 100

    def __array__(self, *args, **kwargs):
        raise AssertionError("a row was read before the refusal")

    def __getitem__(self, item):
        raise AssertionError("a row was read before the refusal")


def test_environment_is_the_supported_one():
    import sklearn

    major, minor = (int(v) for v in sklearn.__version__.split(".")[:2])
    assert (major, minor) < (1, 8)
    assert diffprivlib.__version__ >= "0.6"


def test_logistic_regression_tuned_over_C_end_to_end_on_breast_cancer():
    X_tr, X_te, y_tr, y_te = _cancer()
    acct = BudgetAccountant(epsilon=10.0, delta=1e-4)
    s = _search(_logreg(), epsilon=8.0, accountant=acct).fit(X_tr, y_tr)
    model = s.best_estimator_
    assert type(model) is LogisticRegression
    assert s.strategy_ == "random-stopping"
    # ε₀ = ε/(2 + η), no refit. At ε = 8, δ = 1e-6 no cap fits the
    # logarithmic law's tail, so distribution="auto" runs η = 0.5 here
    assert s.privacy_report_.stopping["shape"] == 0.5
    assert model.epsilon == pytest.approx(8.0 / 2.5)
    assert model.C == s.best_params_["C"]
    assert list(model.classes_) == [0, 1]
    assert acct.spent[0] == pytest.approx(8.0)
    assert 0 < s.privacy_report_.delta <= 1e-6
    # far above the majority rate (0.632): 60 such fits gave 0.807 to 0.959,
    # mean 0.911 (measure_accuracy.py --fits 60 --eps 8, 2026-11-24)
    assert model.score(X_te, y_te) > 0.75
    assert 0.0 <= s.best_score_ <= 1.0
    (release,) = s.privacy_report_.releases
    assert release["assumption"] == DIFFPRIVLIB_ASSUMPTION["LogisticRegression"]
    assert "diffprivlib" in str(s.privacy_report_)


@pytest.mark.parametrize("strategy", ["split", "default"])
def test_pure_strategies_set_the_fit_epsilon(strategy):
    X_tr, _, y_tr, _ = _cancer()
    grid = {"C": [1.0, 10.0, 100.0]}
    s = _search(_logreg(), grid, method=PrivateModel(strategy=strategy), n_iter=3)
    s.fit(X_tr, y_tr)
    expected = 1.0 / 3 if strategy == "split" else 1.0
    assert s.best_estimator_.epsilon == pytest.approx(expected)
    assert s.best_estimator_.accountant.spent_budget == [(pytest.approx(expected), 0)]


def _record_mechanism_rngs(monkeypatch) -> list:
    """The random source of every diffprivlib mechanism built from now on."""
    rngs = []
    init = DPMechanism.__init__

    def spy(self, *args, **kwargs):
        init(self, *args, **kwargs)
        rngs.append(self._rng)

    monkeypatch.setattr(DPMechanism, "__init__", spy)
    return rngs


def test_linear_regression_is_accepted_with_symmetric_bounds(monkeypatch):
    rngs = _record_mechanism_rngs(monkeypatch)
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(2000, 3))
    y = np.clip(X @ [0.5, -0.3, 0.2] + 0.05 * rng.normal(size=2000), -1, 1)
    X[0, 0] = 50.0  # outside the bounds: clipped per row before diffprivlib
    X[1, 1] = np.nan  # non-finite: the row becomes 0
    est = LinearRegression(bounds_X=(-1, 1), bounds_y=(-1, 1), fit_intercept=False)
    s = _search(
        est,
        {"copy_X": [True]},
        method=PrivateModel(strategy="default"),
        scoring=make_dp_scorer("neg_mean_squared_error", error_clip=2.0),
        epsilon=8.0,
        n_iter=1,
    ).fit(X, y)
    model = s.best_estimator_
    assert type(model) is LinearRegression
    assert model.epsilon == pytest.approx(8.0)
    assert np.isfinite(model.coef_).all() and model.intercept_ == 0.0
    (release,) = s.privacy_report_.releases
    assert release["assumption"] == DIFFPRIVLIB_ASSUMPTION["LinearRegression"]
    # 1 + d + d(d+1)/2 = 10 Laplace draws, all from the OS CSPRNG
    assert len(rngs) == 10
    assert all(isinstance(r, secrets.SystemRandom) for r in rngs)


@pytest.mark.parametrize(
    "estimator,grid,error,match",
    [
        (LogisticRegression(fit_intercept=False), None, ValueError, "data_norm=None"),
        (LogisticRegression(data_norm=5.0, fit_intercept=False), None, ValueError,
         "0 < data_norm <= 1"),
        (LogisticRegression(data_norm=1.0), None, ValueError, "fit_intercept=True"),
        (_logreg(random_state=0), None, ValueError, "random_state must be None"),
        (_logreg(), {"epsilon": [0.5, 1.0]}, ValueError, "does not search"),
        (_logreg(), {"data_norm": [0.5, 1.0]}, ValueError, "does not search"),
        (_logreg(warm_start=True), None, ValueError, "warm_start"),
        (LinearRegression(fit_intercept=False, bounds_y=(-1, 1)), {"copy_X": [True]},
         ValueError, "bounds_X=None"),
        (LinearRegression(fit_intercept=False, bounds_X=(-1, 1)), {"copy_X": [True]},
         ValueError, "bounds_y=None"),
        (LinearRegression(fit_intercept=False, bounds_X=(0, 1), bounds_y=(-1, 1)),
         {"copy_X": [True]}, ValueError, "issue #105"),
        (LinearRegression(bounds_X=(-1, 1), bounds_y=(-1, 1)), {"copy_X": [True]},
         ValueError, "fit_intercept=True"),
        (GaussianNB(bounds=(-1, 1)), {"var_smoothing": [1e-9]}, TypeError,
         "LogisticRegression and LinearRegression only"),
    ],
)  # fmt: skip
def test_refusals_before_any_row_is_read(estimator, grid, error, match):
    acct = BudgetAccountant(epsilon=5.0, delta=1e-4)
    with pytest.raises(error, match=match):
        _search(estimator, grid, accountant=acct, n_iter=2).fit(
            _NoRead(), np.zeros(100)
        )
    assert acct.spent == (0.0, 0.0)


def test_process_global_state_is_untouched_and_noise_is_secure(monkeypatch):
    X_tr, _, y_tr, _ = _cancer()
    default = DPLAccountant.load_default(None)  # the process-wide default
    before = list(default.spent_budget)
    estimator = _logreg()  # built now: its accountant parameter is the default
    np_state = np.random.get_state()  # noqa: NPY002 (the legacy global state)
    rngs = _record_mechanism_rngs(monkeypatch)
    s = _search(estimator).fit(X_tr, y_tr)
    assert DPLAccountant.load_default(None) is default
    assert default.spent_budget == before  # never charged
    assert estimator.accountant is default  # the user's object is not modified
    after = np.random.get_state()  # noqa: NPY002
    assert after[0] == np_state[0] and (after[1] == np_state[1]).all()
    assert rngs and all(isinstance(r, secrets.SystemRandom) for r in rngs)
    # the released model's own accountant records its one fit (ε₀, public),
    # not the number of runs K
    assert s.best_estimator_.accountant is not default
    assert s.best_estimator_.accountant.spent_budget == [(pytest.approx(0.5), 0)]


def test_released_model_holds_only_public_or_released_attributes():
    """V/V′: a training part with one class only, and its neighbour with both.

    Every fitted attribute of the released model other than the released
    weights is the same on both (no n_iter_, classes_ always [0, 1], one
    accountant entry), and neither fit fails.
    """
    rng = np.random.default_rng(1)
    X = rng.uniform(-0.5, 0.5, size=(200, 3))
    y = np.zeros(200, dtype=int)
    y_prime = y.copy()
    y_prime[0] = 1  # replace one row's label
    # "default" without a released score: every row trains the one model
    mode = PrivateModel(strategy="default")
    fitted = []
    for labels in (y, y_prime):
        s = _search(
            _logreg(), {"C": [1.0]}, method=mode, n_iter=1, release_score=False
        ).fit(X, labels)
        assert not hasattr(s, "best_score_")
        fitted.append(s.best_estimator_)
    unfitted = vars(_logreg())
    released = {"coef_", "intercept_"}
    for model in fitted:
        assert set(vars(model)) - set(unfitted) == {"n_features_in_"} | released
        assert list(model.classes_) == [0, 1]
        assert list(model.intercept_) == [0.0]  # fit_intercept=False
    a, b = (
        {k: v for k, v in vars(m).items() if k not in released | {"accountant"}}
        for m in fitted
    )
    assert a.keys() == b.keys()
    for key in a:
        assert np.array_equal(np.asarray(a[key]), np.asarray(b[key])), key
    assert [m.accountant.spent_budget for m in fitted] == [[(1.0, 0)], [(1.0, 0)]]


def test_rows_reach_diffprivlib_bounded_finite_and_labels_public(monkeypatch):
    """What diffprivlib's own fit receives: clipped finite rows, public labels."""
    from sklearn.base import clone

    from sklearn_dpbo.model_selection._private_model._diffprivlib import fit_dp_learner

    seen = {}
    for cls in (LinearRegression, LogisticRegression):
        original = cls.fit

        def capture(self, X, y, sample_weight=None, _original=original):
            seen[type(self).__name__] = (np.array(X), np.array(y))
            return _original(self, X, y)

        monkeypatch.setattr(cls, "fit", capture)
    X = np.array([[50.0, 0.1], [np.nan, 0.2], [-0.3, -9.0], [0.2, 0.4]] * 10)
    y = np.array([7.0, np.inf, -3.0, 0.5] * 10)
    est = LinearRegression(bounds_X=(-1, 1), bounds_y=(-2, 2), fit_intercept=False)
    fit_dp_learner(clone(est), X, y, rng=None)
    Xs, ys = seen["LinearRegression"]
    assert np.isfinite(Xs).all() and np.abs(Xs).max() <= 1.0
    assert np.isfinite(ys).all() and np.abs(ys).max() <= 2.0
    assert (Xs[1] == 0).all() and ys[1] == 0.0  # the non-finite rows became 0

    labels = np.array([1, 2, 1, 0] * 10)  # 2 is not the positive label
    fit_dp_learner(clone(_logreg()), X, labels, rng=None)
    Xl, yl = seen["LogisticRegression"]
    assert Xl.shape == (42, 2) and (Xl[-2:] == 0).all()
    assert list(yl[-2:]) == [0, 1] and set(yl) == {0, 1}
    assert list(yl[:4]) == [1, 0, 1, 0]


# Adversarial review of 2026-11-25: what showed the private number of runs K
# (or values of the private objective) outside the releases.


@pytest.mark.parametrize("setting", ["own n_jobs", "parallel_config", "verbose"])
def test_runs_leave_no_output_whatever_n_jobs_or_verbose(setting, capfd):
    """diffprivlib's n_jobs (its own, or a joblib parallel_config around fit)
    fitted in worker processes whose warnings reached the terminal once per
    run; verbose printed the solver's trace (from Fortran on SciPy < 1.15).
    The mode fits with n_jobs=1 and verbose=0 and puts the user's values
    back on the released model."""
    import warnings

    from joblib import parallel_config

    X_tr, _, y_tr, _ = _cancer()
    kw = {"n_jobs": 2} if setting == "own n_jobs" else {}
    kw |= {"verbose": 2} if setting == "verbose" else {}
    search = _search(_logreg(max_iter=2, **kw), n_iter=4)  # runs warn: no convergence
    capfd.readouterr()
    with warnings.catch_warnings():
        warnings.simplefilter("always")  # what PYTHONWARNINGS=always does
        if setting == "parallel_config":
            with parallel_config(n_jobs=2):
                search.fit(X_tr, y_tr)
        else:
            search.fit(X_tr, y_tr)
    out, err = capfd.readouterr()
    assert (out, err) == ("", "")
    model = search.best_estimator_
    assert (model.n_jobs, model.verbose) == (kw.get("n_jobs"), kw.get("verbose", 0))


def test_a_bad_candidate_is_refused_before_any_budget_is_spent():
    """C = −1 in the grid failed inside the sealed run, or not, depending on
    whether random stopping drew it. The candidates are checked after the
    containers' types and shapes (a well-formed X: the refusal comes from the
    grid alone)."""
    acct = BudgetAccountant(epsilon=5.0, delta=1e-4)
    with pytest.raises(ValueError, match=r"candidate \{'C': -1"):
        _search(_logreg(), {"C": [1.0, 2.0, -1.0]}, accountant=acct, n_iter=3).fit(
            np.zeros((100, 31)), np.zeros(100)
        )
    assert acct.spent == (0.0, 0.0)
