"""Tests of scorers with a declared range and sensitivity (TESTING P5)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.metrics import accuracy_score, mean_absolute_error

from sklearn_dpbo._scorers import DPScorer, get_dp_scorer, make_dp_scorer


class Lookup(ClassifierMixin, BaseEstimator):
    """Predicts the label stored in column 0 of X (so V controls y_pred)."""

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        return self

    def predict(self, X):
        return np.asarray(X)[:, 0].astype(int)


class LookupRegressor(RegressorMixin, BaseEstimator):
    def fit(self, X, y):
        return self

    def predict(self, X):
        return np.asarray(X)[:, 0].astype(float)


def _const_scorer(value):
    def scorer(estimator, X, y):
        return value

    return scorer


# ---------------------------------------------------------------------------
# DPScorer and make_dp_scorer
# ---------------------------------------------------------------------------
def test_make_dp_scorer_scores_and_clips():
    s = make_dp_scorer(accuracy_score, bounds=(0.0, 1.0), sensitivity="mean")
    assert isinstance(s, DPScorer) and s.name == "accuracy_score"
    X = np.array([[1], [0], [1], [1]])
    y = np.array([1, 1, 1, 0])
    assert s(Lookup().fit(X, y), X, y) == 0.5
    # A range narrower than the metric's: clipped into it.
    s = make_dp_scorer(accuracy_score, bounds=(0.6, 0.9))
    assert s(Lookup().fit(X, y), X, y) == 0.6
    assert s(Lookup().fit(X, y), X, np.array([1, 0, 1, 1])) == 0.9


def test_make_dp_scorer_greater_is_better_false():
    s = make_dp_scorer(mean_absolute_error, bounds=(-2.0, 0.0), greater_is_better=False)
    X = np.array([[0.5], [1.0], [3.0]])
    y = np.array([0.0, 1.0, 1.0])
    # MAE = (0.5 + 0 + 2)/3, negated.
    assert s(LookupRegressor(), X, y) == pytest.approx(-2.5 / 3, rel=1e-15)
    y_far = np.array([10.0, 10.0, 10.0])
    assert s(LookupRegressor(), X, y_far) == -2.0  # clipped
    assert s.sensitivity_for(3) == pytest.approx(2.0 / 3, rel=1e-12)


@pytest.mark.parametrize(
    "raw, expected",
    [
        (1.5, 1.0),
        (-3.0, 0.0),
        (0.25, 0.25),
        (float("nan"), 0.0),
        (float("inf"), 1.0),
        (-float("inf"), 0.0),
    ],
)
def test_dp_scorer_clipping_and_nan(raw, expected):
    s = DPScorer(_const_scorer(raw), bounds=(0.0, 1.0))
    out = s(None, None, None)
    assert out == expected and isinstance(out, float)


def test_nan_maps_to_lower_bound_of_custom_range():
    s = DPScorer(_const_scorer(float("nan")), bounds=(-5.0, 2.0))
    assert s(None, None, None) == -5.0


@pytest.mark.parametrize("m", [1, 2, 3, 7, 100, 12345])
@pytest.mark.parametrize("bounds", [(0.0, 1.0), (-1.0, 1.0), (-3.0, -0.5)])
def test_mean_sensitivity_is_range_over_m(m, bounds):
    s = DPScorer(_const_scorer(0.0), bounds=bounds, sensitivity="mean")
    expected = (bounds[1] - bounds[0]) / m
    got = s.sensitivity_for(m)
    # (hi − lo)/m, rounded up by at most a few ulps for the float mean.
    assert got >= expected
    assert got == pytest.approx(expected, rel=1e-12, abs=1e-15)


def test_constant_sensitivity():
    s = DPScorer(_const_scorer(0.0), bounds=(0.0, 1.0), sensitivity=0.05)
    assert s.sensitivity_for(10) == 0.05
    assert s.sensitivity_for(1000) == 0.05  # does not depend on m
    # Never more than the width of the range (clipping caps any change).
    s = DPScorer(_const_scorer(0.0), bounds=(0.0, 0.5), sensitivity=3.0)
    assert s.sensitivity_for(10) == 0.5


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"bounds": (1.0, 0.0)}, "low < high"),
        ({"bounds": (0.0, 0.0)}, "low < high"),
        ({"bounds": (0.0, float("inf"))}, "finite"),
        ({"bounds": (float("nan"), 1.0)}, "finite"),
        ({"bounds": (0.0, 1.0), "sensitivity": 0.0}, "sensitivity"),
        ({"bounds": (0.0, 1.0), "sensitivity": -0.1}, "sensitivity"),
        ({"bounds": (0.0, 1.0), "sensitivity": float("nan")}, "sensitivity"),
        ({"bounds": (0.0, 1.0), "sensitivity": float("inf")}, "sensitivity"),
    ],
)
def test_dp_scorer_bad_declarations(kwargs, match):
    with pytest.raises(ValueError, match=match):
        DPScorer(_const_scorer(0.0), **kwargs)


def test_bad_bounds_message_tells_what_to_pass():
    with pytest.raises(ValueError, match=r"bounds=\(0.0, 1.0\)"):
        make_dp_scorer(accuracy_score, bounds=(1, 0))


def test_repr_has_declarations_only():
    s = make_dp_scorer(accuracy_score, bounds=(0, 1), sensitivity=0.01)
    assert repr(s) == (
        "DPScorer(name='accuracy_score', bounds=(0.0, 1.0), sensitivity=0.01)"
    )


# ---------------------------------------------------------------------------
# get_dp_scorer
# ---------------------------------------------------------------------------
def test_get_dp_scorer_defaults_and_passthrough():
    s = get_dp_scorer(None, LogisticRegression())
    assert isinstance(s, DPScorer)
    assert s.name == "accuracy" and s.bounds == (0.0, 1.0) and s.sensitivity == "mean"
    assert get_dp_scorer("accuracy", LogisticRegression()).name == "accuracy"
    custom = make_dp_scorer(accuracy_score, bounds=(0, 1))
    assert get_dp_scorer(custom, Ridge()) is custom
    # A fresh scorer per call: no shared mutable default.
    assert get_dp_scorer(None, Lookup()) is not get_dp_scorer(None, Lookup())


def test_get_dp_scorer_refuses_regressor_default():
    with pytest.raises(ValueError) as info:
        get_dp_scorer(None, Ridge())
    msg = str(info.value)
    assert "make_dp_scorer" in msg and "bounds=" in msg and "sensitivity" in msg


@pytest.mark.parametrize("name", ["roc_auc", "neg_mean_squared_error", "f1", "r2"])
def test_get_dp_scorer_refuses_unknown_strings(name):
    with pytest.raises(ValueError) as info:
        get_dp_scorer(name, LogisticRegression())
    msg = str(info.value)
    assert repr(name) in msg
    assert "make_dp_scorer" in msg and "'accuracy'" in msg


@pytest.mark.parametrize(
    "scoring",
    [accuracy_score, lambda est, X, y: 1.0, ["accuracy"], {"a": "accuracy"}, 3],
)
def test_get_dp_scorer_refuses_plain_callables_and_others(scoring):
    with pytest.raises(TypeError) as info:
        get_dp_scorer(scoring, LogisticRegression())
    msg = str(info.value)
    assert "make_dp_scorer" in msg and "bounds=" in msg and "DPScorer" in msg


# ---------------------------------------------------------------------------
# P5: the declared sensitivity bounds every neighbouring change
# ---------------------------------------------------------------------------
def test_accuracy_sensitivity_exhaustive_small_m():
    """All m ≤ 2000, all counts: one swapped record moves accuracy ≤ Δ(m).

    The float mean is the trap: 1 − fl(2/3) > fl(1/3) (opendp#2923).
    accuracy_score is fl(k/m) (an exact integer count divided once by m);
    that is checked bit for bit on a sample, then used for the sweep.
    """
    s = get_dp_scorer(None, Lookup())
    rng = np.random.default_rng(0)
    for _ in range(60):
        m = int(rng.integers(1, 400))
        k = int(rng.integers(0, m + 1))
        y_pred = np.r_[np.zeros(k, dtype=int), np.ones(m - k, dtype=int)]
        assert accuracy_score(np.zeros(m, dtype=int), y_pred) == k / m
    for m in range(1, 2001):
        acc = np.arange(m + 1) / m  # every attainable accuracy on m records
        change = np.abs(np.diff(acc))  # one swap moves k by at most one
        assert change.max() <= s.sensitivity_for(m), m


def test_accuracy_sensitivity_random_neighbours_through_scorer():
    rng = np.random.default_rng(2015)
    s = get_dp_scorer(None, Lookup())
    est = Lookup().fit(np.zeros((2, 1)), np.array([0, 1]))
    worst = 0.0
    for _ in range(300):
        m = int(rng.choice([1, 2, 3, 5, 7, 10, 33, 100, 999]))
        n_classes = int(rng.integers(2, 5))
        X = rng.integers(0, n_classes, size=(m, 1))  # predictions
        y = rng.integers(0, n_classes, size=m)
        # Swap one record: new features (prediction) and new label.
        i = int(rng.integers(m))
        X2, y2 = X.copy(), y.copy()
        X2[i, 0] = rng.integers(0, n_classes)
        y2[i] = rng.integers(0, n_classes)
        change = abs(s(est, X, y) - s(est, X2, y2))
        delta = s.sensitivity_for(m)
        assert change <= delta
        worst = max(worst, change / delta)
    assert worst > 0.99  # some pairs are worst-case: the check has teeth


def test_half_the_sensitivity_is_caught():
    # The same property check rejects a scorer declaring half the truth.
    s = make_dp_scorer(accuracy_score, bounds=(0, 1), sensitivity="mean")
    violated = False
    for m, k in itertools.product(range(1, 20), range(19)):
        if k >= m:
            continue
        change = abs((k + 1) / m - k / m)
        violated |= change > s.sensitivity_for(m) / 2
    assert violated


@pytest.mark.parametrize("bounds", [(0.0, 1.0), (-1.0, 0.3), (-1e6, 1e6)])
def test_mean_of_bounded_terms_within_sensitivity(bounds):
    """A mean of m per-record terms in the range moves by at most Δ(m)."""
    lo, hi = bounds
    rng = np.random.default_rng(3)

    def mean_metric(y_true, y_pred):
        return float(np.mean(np.clip(y_true - y_pred, lo, hi)))

    s = make_dp_scorer(mean_metric, bounds=bounds, sensitivity="mean")
    est = LookupRegressor()
    for _ in range(400):
        m = int(rng.integers(1, 60))
        X = rng.uniform(-1, 1, size=(m, 1))
        y = rng.uniform(lo - 1, hi + 1, size=m)
        y2 = y.copy()
        i = int(rng.integers(m))
        y2[i] = rng.choice([lo - 5.0, hi + 5.0, rng.uniform(lo, hi)])
        assert abs(s(est, X, y) - s(est, X, y2)) <= s.sensitivity_for(m)
    assert math.isfinite(s.sensitivity_for(1))


def test_builtin_accuracy_fast_path_equals_accuracy_score():
    """The built-in accuracy's fast path returns exactly accuracy_score."""
    from sklearn_dpbo._scorers import _AccuracyScorer

    class Fixed:
        def __init__(self, pred):
            self.pred = pred

        def predict(self, X):
            return self.pred

    rng = np.random.default_rng(0)
    scorer = _AccuracyScorer()
    for m in [1, 2, 3, 7, 100, 449, 1000]:
        y = rng.integers(0, 4, m)
        pred = np.where(rng.random(m) < 0.7, y, rng.integers(0, 4, m))
        assert scorer(Fixed(pred), None, y) == accuracy_score(y, pred)
        assert scorer(Fixed(pred.astype(bool)), None, y.astype(bool)) == (
            accuracy_score(y.astype(bool), pred.astype(bool))
        )
    # Non-integer labels take sklearn's path (and its checks).
    y = np.array(["a", "b", "a"])
    assert scorer(Fixed(np.array(["a", "a", "a"])), None, y) == accuracy_score(
        y, ["a", "a", "a"]
    )
