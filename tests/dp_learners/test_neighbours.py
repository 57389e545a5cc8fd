"""V/V′ on the bounds and classes paths: one replaced record moves only its own row.

For each kind of replacement (a row outside the declared bounds, a NaN,
a non-number entry, a label outside ``classes``, a string label among
numbers), the learner is fitted on V and on V′ with the same seeded noise
(tests only): the outputs other than the released weights — warnings,
exceptions, fitted attributes and their shapes — must be equal, and with
output perturbation (the same noise added to both minimisers) the
released weights of each problem must differ by at most the declared
sensitivity Δ (plus the public rounding grid). A batch statistic in the
map (a per-column min/max, say) would move every row and break it.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from sklearn_dpbo.dp_learners import DPLinearRegression, DPLogisticRegression

rng = np.random.default_rng(0)
X = rng.uniform(0, 10, size=(60, 3))
Y_BIN = (X[:, 0] > 5).astype(int)
Y_MULTI = np.minimum(X[:, 1] // 3.4, 2).astype(int)
Y_REG = X @ np.array([3.0, -2.0, 1.0])

REPLACEMENTS = {
    "outside the bounds": ([1e6, -1e6, 50.0], None),
    "NaN": ([np.nan, 1.0, 1.0], None),
    "a non-number": (["abc", 1.0, 1.0], None),
    "label outside classes": (None, 7),
}


def _neighbour(Xv, yv, kind):
    row, label = REPLACEMENTS[kind]
    X2, y2 = Xv.astype(object), yv.astype(object)
    if row is not None:
        X2[5] = row
    if label is not None:
        y2[5] = label
    return X2, y2


def _fit(est, Xv, yv):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            est.fit(Xv, yv)
            error = None
        except Exception as exc:  # noqa: BLE001 - compared between V and V′
            error = repr(exc)
    messages = sorted(str(w.message) for w in caught)
    state = {k: np.shape(v) for k, v in vars(est).items() if k.endswith("_")}
    return messages, error, state


CASES = [
    (DPLogisticRegression, Y_BIN, dict(classes=(0, 1))),
    (DPLogisticRegression, Y_MULTI, dict(classes=(0, 1, 2))),
    (DPLinearRegression, Y_REG, dict(target_bound=(-30, 40))),
]


@pytest.mark.parametrize("kind", list(REPLACEMENTS))
@pytest.mark.parametrize(("cls", "y", "params"), CASES)
def test_one_replaced_record(cls, y, params, kind):
    if cls is DPLinearRegression and kind == "label outside classes":
        kind = "NaN"  # no classes: the target path is the NaN one
    common = dict(bounds=(0.0, 10.0), epsilon=1.0, noise_random_state=3, **params)
    if cls is DPLogisticRegression:
        common["mechanism"] = "output"
    a, b = cls(**common), cls(**common)
    out_a = _fit(a, X.astype(object), y.astype(object))
    out_b = _fit(b, *_neighbour(X, y, kind))
    assert out_a == out_b
    assert out_a[1] is None
    W = np.atleast_2d(np.c_[np.atleast_2d(a.coef_), np.atleast_1d(a.intercept_)])
    W2 = np.atleast_2d(np.c_[np.atleast_2d(b.coef_), np.atleast_1d(b.intercept_)])
    grid = 2.0**-15 * a.sensitivity_  # ≥ the public rounding step, twice over
    assert (np.linalg.norm(W - W2, axis=1) <= a.sensitivity_ + grid).all()


@pytest.mark.filterwarnings("ignore::sklearn_dpbo.PrivacyLeakWarning")  # the seed
@pytest.mark.parametrize(("cls", "y", "params"), CASES)
def test_one_replaced_weighted_record(cls, y, params):
    # The weight is part of the record: row 5 and its weight replaced (50
    # counts as 1, NaN as 0); all other weights equal.
    common = dict(bounds=(0.0, 10.0), epsilon=1.0, noise_random_state=3, **params)
    if cls is DPLogisticRegression:
        common["mechanism"] = "output"
    w = np.linspace(0.1, 1.0, len(y))
    for new_weight in (50.0, np.nan):
        w2 = w.copy()
        w2[5] = new_weight
        X2 = X.copy()
        X2[5] = [9.0, 0.5, 7.0]
        a = cls(**common).fit(X, y, sample_weight=w)
        b = cls(**common).fit(X2, y, sample_weight=w2)
        W = np.atleast_2d(np.c_[np.atleast_2d(a.coef_), np.atleast_1d(a.intercept_)])
        W2 = np.atleast_2d(np.c_[np.atleast_2d(b.coef_), np.atleast_1d(b.intercept_)])
        grid = 2.0**-15 * a.sensitivity_
        assert (np.linalg.norm(W - W2, axis=1) <= a.sensitivity_ + grid).all()


@pytest.mark.filterwarnings("ignore::sklearn_dpbo.PrivacyLeakWarning")  # the seed
@pytest.mark.parametrize(("cls", "y", "params"), CASES)
def test_unit_weights_change_no_bit(cls, y, params):
    common = dict(bounds=(0.0, 10.0), noise_random_state=3, **params)
    a = cls(**common).fit(X, y)
    b = cls(**common).fit(X, y, sample_weight=np.ones(len(y)))
    assert np.array_equal(a.coef_, b.coef_)
    assert np.array_equal(a.intercept_, b.intercept_)
