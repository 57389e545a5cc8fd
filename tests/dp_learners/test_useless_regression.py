"""DPLinearRegression says, before any row is read, when its noise swamps the signal.

Issue 37 item 4: the expected squared error from the noise alone (public
arithmetic: n, d, ε, α, the bounds) against the variance the target
bounds allow; above it, ``UselessReleaseWarning``. On diabetes at ε = 4
a setting with a positive test R² is shown.
"""

from __future__ import annotations

import random
import warnings

import numpy as np
import pytest
from sklearn.datasets import load_diabetes
from sklearn.model_selection import train_test_split

from sklearn_dpbo.dp_learners import DPLinearRegression
from sklearn_dpbo.privacy import UselessReleaseWarning


def test_noise_error_by_hand():
    # n = 100, d = 1, no intercept, norm 1, targets [−1, 1], α = 1, ε = 1:
    # G = R(RB/√α + B) = 2, Δ = 2G/(nα) = 0.04 (+ 4e-10 solver slack),
    # E[(b·x)²] = (p + 1)(Δ/ε)²R² = 2 · 0.0016 = 0.0032; variance bound 1.
    est = DPLinearRegression(data_norm=1.0, fit_intercept=False, alpha=1.0)
    noise, variance = est._noise_error(100, 1)
    assert noise == pytest.approx(0.0032, rel=1e-7)
    assert variance == 1.0
    # target (0, 10): half-width 5, both scale by 25
    est.set_params(target_bound=(0, 10))
    assert est._noise_error(100, 1) == pytest.approx((0.08, 25.0), rel=1e-7)


class _Rows:
    """A container whose shape is public and whose values must not be read."""

    shape = (309, 10)

    def __array__(self, *a, **k):
        raise RuntimeError("rows read")


def _diabetes_learner(alpha):
    return DPLinearRegression(
        epsilon=4.0, bounds=(-0.2, 0.2), target_bound=(0, 350), alpha=alpha
    )


def test_useless_release_warns_before_any_row_is_read():
    with pytest.warns(UselessReleaseWarning, match="noise alone"):
        with pytest.raises(RuntimeError, match="rows read"):
            _diabetes_learner(0.01).fit(_Rows(), np.zeros(309))
    with warnings.catch_warnings():
        warnings.simplefilter("error", UselessReleaseWarning)
        with pytest.raises(RuntimeError, match="rows read"):
            _diabetes_learner(0.5).fit(_Rows(), np.zeros(309))


def test_diabetes_at_epsilon_4_has_a_positive_test_r2():
    # The docs' setting (docs/private_model.md, "DP learners"): 10 splits,
    # seeded noise (the CSPRNG's mean over 20 splits was 0.177 ± 0.02).
    X, y = load_diabetes(return_X_y=True)
    scores = []
    for seed in range(10):
        tr, te = train_test_split(np.arange(len(y)), test_size=0.3, random_state=seed)
        est = _diabetes_learner(0.5)._fit_private(X[tr], y[tr], random.Random(seed))
        scores.append(est.score(X[te], y[te]))
    assert np.mean(scores) > 0.1
