"""Statistical audit of the DP learners alone: V and V′ differ in one training row.

TESTING.md P3/P4 for :mod:`sklearn_dpbo.dp_learners`, output perturbation
(objective perturbation: ``test_audit_objective.py``). Each learner is fit
N times on V and N times on a neighbour V′ (one row replaced) with
production noise (OS CSPRNG); the released weight (d = 1, no intercept) is
binned between public edges and ε̂ is the Clopper–Pearson lower bound of
``_audit.epsilon_lower_bound`` (family-wise α = 1e-6). Passes when ε̂ ≤ ε.

The pairs: the other rows are the zero row, so the replaced row alone
decides w*. For the logistic loss in one dimension the gradients of two
rows at the same w differ by at most R (σ(z) + σ(−z) = 1), so the
largest shift of w* is about RC = Δ/2: CMS 2011's Δ = 2RC is
conservative by 2 here, and the honest learner's true loss on this pair
is ≈ ε/2. The power check therefore calibrates a broken learner to
*half the measured shift of this very pair* (true loss ≈ 2ε), which the
audit must catch; the same for ridge, whose Δ is far more conservative.
"""

from __future__ import annotations

import sys
import warnings
from functools import partial
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "audits"))
from _audit import (  # noqa: E402
    ALPHA,
    binned,
    clip_rows_once,
    epsilon_lower_bound,
    in_worker_processes,
    solve_once,
)

import sklearn_dpbo.dp_learners._linear as lin  # noqa: E402
import sklearn_dpbo.dp_learners._logistic as logi  # noqa: E402
import sklearn_dpbo.dp_learners._objective as ob  # noqa: E402
from sklearn_dpbo.dp_learners import DPLinearRegression, DPLogisticRegression  # noqa: E402
from sklearn_dpbo.privacy._samplers import secure_source  # noqa: E402
from sklearn_dpbo.privacy._validation import check_privacy_rng  # noqa: E402

N = 20_000
EPSILON = 1.0
N_ROWS = 10


def _pair(kind):
    X = np.zeros((N_ROWS, 1))
    X[0, 0] = 1.0
    if kind == "logistic":
        y, y2 = np.zeros(N_ROWS, int), np.zeros(N_ROWS, int)
        y[0] = 1
        return (X, y), (X, y2)
    y, y2 = np.zeros(N_ROWS), np.zeros(N_ROWS)
    y[0], y2[0] = 1.0, -1.0
    return (X, y), (X, y2)


def _learner(kind):
    if kind == "logistic":
        return DPLogisticRegression(
            epsilon=EPSILON,
            data_norm=1.0,
            C=0.1,
            fit_intercept=False,
            mechanism="output",
        )
    return DPLinearRegression(
        epsilon=EPSILON, data_norm=1.0, target_bound=1.0, alpha=0.1, fit_intercept=False
    )


def _exact(kind, data):
    """w* without noise (ε huge, so the grid and noise are far below 1e-9)."""
    est = _learner(kind).set_params(epsilon=1e12)
    return float(np.ravel(est.fit(*data).coef_)[0])


def _checked(kind, data):
    """(X, y) after ``fit``'s public checks of types and shapes, made once.

    The draws then run what ``fit`` runs after those checks (the private
    fit, under ``np.errstate(all="ignore")``) with the production noise
    source: the same mechanism, without re-checking the same public
    containers N times (``test_checked_fit_is_fit``).
    """
    est = _learner(kind)
    X = est._float_rows(data[0], reset=True)
    return X, est._check_targets(data[1], X.shape[0])


def _release(kind, X, y, rng) -> float:
    with np.errstate(all="ignore"):
        return float(np.ravel(_learner(kind)._fit_private(X, y, rng).coef_)[0])


def _draw(kind, data, n, sensitivity=None):
    """n released weights; ``sensitivity`` replaces the learner's Δ (broken).

    The replacement is undone before returning: the draws may run in the
    test's own process (pytest-xdist), where later tests use the module.
    """
    module, name = (
        (logi, "logistic_sensitivity")
        if kind == "logistic"
        else (lin, "ridge_sensitivity")
    )
    real = getattr(module, name)
    if sensitivity is not None:
        setattr(module, name, lambda *a: sensitivity)
    out = np.empty(n)
    X, y = _checked(kind, data)
    try:
        # The same rows on every fit: clipped once, and the logistic
        # minimiser solved once (speed only, _audit.py).
        with warnings.catch_warnings(), clip_rows_once(logi, lin), solve_once(logi):
            warnings.simplefilter("ignore")
            for i in range(n):
                out[i] = _release(kind, X, y, secure_source())
    finally:
        setattr(module, name, real)
    return out


@pytest.fixture(scope="module", params=["logistic", "linear"])
def case(request):
    kind = request.param
    V, V2 = _pair(kind)
    w, w2 = _exact(kind, V), _exact(kind, V2)
    return kind, V, V2, w, w2


def _edges(w, w2, scale):
    mid = (w + w2) / 2
    return np.linspace(mid - 3 * scale, mid + 3 * scale, 13)


def test_measured_shift_is_within_the_declared_sensitivity(case):
    kind, V, V2, w, w2 = case
    sens = _learner(kind).fit(*V).sensitivity_
    assert 0 < abs(w - w2) <= sens
    if kind == "logistic":  # ≈ Δ/2 in one dimension (module docstring)
        assert abs(w - w2) > 0.4 * sens


@pytest.mark.slow
def test_audit_learner(case):
    kind, V, V2, w, w2 = case
    sens = _learner(kind).fit(*V).sensitivity_
    edges = _edges(w, w2, sens / EPSILON)
    a, b = in_worker_processes(
        (partial(_draw, kind, V), N), (partial(_draw, kind, V2), N)
    )
    result = epsilon_lower_bound(binned(a, edges), binned(b, edges), ALPHA)
    assert result.epsilon_hat <= EPSILON, str(result)
    print(kind, result)


@pytest.mark.slow
def test_power_half_the_shift_is_caught(case):
    kind, V, V2, w, w2 = case
    broken = abs(w - w2) / 2  # true loss 2ε on this pair
    edges = _edges(w, w2, broken / EPSILON)
    a, b = in_worker_processes(
        (partial(_draw, kind, V, N, broken),), (partial(_draw, kind, V2, N, broken),)
    )
    result = epsilon_lower_bound(binned(a, edges), binned(b, edges), ALPHA)
    assert result.epsilon_hat > EPSILON, str(result)
    print(kind, "broken", result)


@pytest.mark.parametrize("kind", ["logistic", "linear"])
def test_memos_change_no_fit(kind):
    """The draws' memoised clipping and solver are speed only: seeded fits
    are the same."""
    import random

    V, _ = _pair(kind)

    def fits():
        rng = random.Random(3)
        return [
            np.ravel(_learner(kind)._fit_private(*V, rng).coef_).tolist()
            for _ in range(4)
        ]

    plain = fits()
    with clip_rows_once(logi, lin), solve_once(logi):
        memoised = fits()
    assert memoised == plain
    assert logi.certified_newton is ob.certified_newton  # the real one is back
    assert len({str(f) for f in plain}) == 4  # fresh noise on every fit


@pytest.mark.parametrize("kind", ["logistic", "linear"])
def test_checked_fit_is_fit(kind):
    """The draws' fit after checks made once is ``fit``: with the same seeded
    noise source, the same released weight."""
    for data in _pair(kind):
        X, y = _checked(kind, data)
        for seed in (1, 2):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # noise_random_state warns
                est = _learner(kind).set_params(noise_random_state=seed)
                full = float(np.ravel(est.fit(*data).coef_)[0])
            assert _release(kind, X, y, check_privacy_rng(seed)) == full
