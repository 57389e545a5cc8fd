"""V/V′ audit of one-vs-rest DPLogisticRegression (K = 3 classes, ε/K per problem).

TESTING.md P3/P4 for the multiclass path: V and V′ differ in row 0 only
(x = +1 or −1, label 0; the other rows are zero rows), so each of the K
binary problems' minimisers moves by about Δ/2 (``test_audit_dp_learners``'s
argument, per problem) — a record moves every problem, which is why the
budget is split K ways. Output perturbation, d = 1, no intercept: the
release is K weights, each the minimiser plus Laplace noise of scale
KΔ/ε. The outcome is the cell of the K weights, each binned against the
two data sets' exact minimisers (below both, between, above both): in the
corner cell on V's side the density ratio is the product of the K
per-problem ratios, ≈ e^(ε/2) for the honest learner, ≈ e^(Kε/2) when
each problem is given the whole ε (the broken variant, which the power
check must catch). ε̂ is the Clopper–Pearson lower bound of
``_audit.epsilon_lower_bound`` (family-wise α = 1e-6).
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
    clip_rows_once,
    epsilon_lower_bound,
    in_worker_processes,
    solve_once,
)

import sklearn_dpbo.dp_learners._logistic as logi  # noqa: E402
from sklearn_dpbo.dp_learners import DPLogisticRegression  # noqa: E402
from sklearn_dpbo.privacy._samplers import secure_source  # noqa: E402

N = 12_000
EPSILON = 2.0
K = 3
N_ROWS = 10


def _data(sign):
    X = np.zeros((N_ROWS, 1))
    X[0, 0] = sign
    y = np.arange(N_ROWS) % K
    y[0] = 0
    return X, y


V, V2 = _data(1.0), _data(-1.0)


def _learner(epsilon=EPSILON):
    return DPLogisticRegression(
        epsilon=epsilon,
        data_norm=1.0,
        C=0.1,
        fit_intercept=False,
        classes=tuple(range(K)),
        mechanism="output",
    )


def _exact(data):
    """The K minimisers without noise (ε huge: noise and grid ≪ 1e-9)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _learner(1e12).fit(*data).coef_[:, 0]


def _draw(data, n, broken=False):
    """n releases (n × K); ``broken`` gives each problem the whole ε.

    The replacement is undone before returning (the draws may run in the
    test's own process, where later tests use the module).
    """
    real = logi.problem_epsilon
    if broken:
        logi.problem_epsilon = lambda eps, k: float(eps)
    out = np.empty((n, K))
    try:
        X, y = data
        # The fit without fit()'s public checks; the same rows clipped once
        # and the same K problems solved once (speed only, _audit.py).
        with clip_rows_once(logi), solve_once(logi):
            for i in range(n):
                out[i] = _learner()._fit_private(X, y, secure_source()).coef_[:, 0]
    finally:
        logi.problem_epsilon = real
    return out


def _cells(W, w, w2):
    """Cell index of each release: per problem 0 below both minimisers, 1
    between, 2 above both; the K digits in base 3."""
    lo, hi = np.minimum(w, w2), np.maximum(w, w2)
    digit = (W > lo).astype(int) + (W > hi).astype(int)
    return digit @ (3 ** np.arange(K))


def _epsilon_hat(broken):
    w, w2 = _exact(V), _exact(V2)
    a, b = in_worker_processes(
        (partial(_draw, V, N, broken),), (partial(_draw, V2, N, broken),)
    )
    ca = np.bincount(_cells(a, w, w2), minlength=3**K)
    cb = np.bincount(_cells(b, w, w2), minlength=3**K)
    return epsilon_lower_bound(ca, cb, ALPHA)


def test_every_problem_moves_and_the_split_is_k_ways():
    w, w2 = _exact(V), _exact(V2)
    sens = _learner().fit(*V).sensitivity_
    shift = np.abs(w - w2)
    assert (shift > 0.4 * sens).all() and (shift <= sens).all()
    assert logi.problem_epsilon(EPSILON, K) == EPSILON / K
    # predictions: argmax over the K scores, a label of each class
    est = _learner(1e12).fit(np.eye(3) * 4, [0, 1, 2])
    assert est.predict(np.eye(3)).tolist() == [0, 1, 2]


@pytest.mark.slow
def test_audit_multiclass():
    result = _epsilon_hat(broken=False)
    assert result.epsilon_hat <= EPSILON, str(result)
    print("one-vs-rest", result)


@pytest.mark.slow
def test_power_full_epsilon_per_problem_is_caught():
    result = _epsilon_hat(broken=True)
    assert result.epsilon_hat > EPSILON, str(result)
    print("broken", result)


def test_memos_change_no_fit():
    """The draws' memoised clipping and solver are speed only: seeded fits
    are the same with them and without."""
    import random

    def fits(data):
        rng = random.Random(5)
        return [_learner()._fit_private(*data, rng).coef_.tolist() for _ in range(3)]

    for data in (V, V2):
        plain = fits(data)
        with clip_rows_once(logi), solve_once(logi):
            memoised = fits(data)
        assert memoised == plain and len({str(f) for f in plain}) == 3
