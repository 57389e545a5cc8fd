"""Objective perturbation (CMS 2011, Algorithm 2): constants, solver, plateau.

The expected values are written out by hand from the formulas of
``dp_learners._objective`` (module docstring), not recomputed by it.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

import sklearn_dpbo.dp_learners._objective as ob
from sklearn_dpbo import PrivacyLeakWarning
from sklearn_dpbo.dp_learners import DPLogisticRegression


def test_plan_without_extra_regularisation():
    # n = 100, C = 0.1, R = 2, ε = 1: Λ̃ = 1/(0.1·100·4) = 0.025,
    # c/(n(e^(0.99/4) − 1)) = 0.25/(100·0.28081) ≈ 0.0089 < Λ̃, so Δ = 0 and
    # ε′ = 0.99 − log(1 + 0.25/(100·0.025)) = 0.99 − log(1.1) ≈ 0.894690.
    p = ob.objective_plan(100, 0.1, 2.0, 1.0)
    assert p.epsilon_output == pytest.approx(0.01)
    assert p.epsilon_objective == pytest.approx(0.99)
    assert p.regularization == pytest.approx(0.025)
    assert p.extra_regularization == 0.0
    assert p.epsilon_prime == pytest.approx(0.894690, rel=1e-6)
    assert p.epsilon_prime == pytest.approx(0.99 - math.log(1.1), rel=1e-11)
    assert p.epsilon_prime < 0.99 - math.log(1.1)  # rounded down
    # CMS's own (squared) Jacobian factor would give 0.99 − 2 log(1.1) ≈ 0.7994
    assert p.epsilon_prime > 0.99 - 2 * math.log(1.1) + 0.09
    assert p.noise_scale == pytest.approx(2 / 0.894690, rel=1e-6)
    # γ = 1e-11·(1 + d·(2/ε′)/n) with d = 1 (the default): 1e-11·(1 + 2.235412/100)
    assert p.gradient_bound == pytest.approx(1e-11 * (1 + 2.235412 / 100), rel=1e-9)
    assert p.output_sensitivity == pytest.approx(2 * 1.02235412e-11 / 0.025, rel=1e-7)
    q = ob.objective_plan(100, 0.1, 2.0, 1.0, dim=31)
    assert q.gradient_bound == pytest.approx(
        1e-11 * (1 + 31 * 2.235412 / 100), rel=1e-6
    )


def test_plan_on_the_plateau():
    # n = 100, C = 10, R = 2, ε = 1: Λ̃ = 1/4000 = 2.5e-4 < 0.0089, so
    # Δ = 0.25/(100(e^0.2475 − 1)) − 2.5e-4 (CMS's) and ε′ = 0.99 −
    # log(e^0.2475) = 0.7425 (CMS's squared factor: 0.99/2).
    p = ob.objective_plan(100, 10.0, 2.0, 1.0)
    plateau = 0.25 / (100 * (math.exp(0.2475) - 1))
    assert plateau == pytest.approx(0.0089028, rel=1e-4)
    assert p.extra_regularization == pytest.approx(plateau - 2.5e-4, rel=1e-12)
    assert p.strong_convexity == pytest.approx(plateau, rel=1e-12)
    assert p.epsilon_prime == pytest.approx(0.7425, rel=1e-11)
    assert p.epsilon_prime <= 0.7425
    # Every C above the plateau gives the same objective and noise.
    q = ob.objective_plan(100, 1e4, 2.0, 1.0)
    assert q.strong_convexity == pytest.approx(p.strong_convexity, rel=1e-12)
    assert q.epsilon_prime == p.epsilon_prime


def test_plan_at_the_plateau_boundary_is_continuous():
    # C* = (e^(ε_obj/4) − 1)/(c R²) ≈ 0.280819: ε′ = 3ε_obj/4 from both sides.
    c_star = math.expm1(0.99 / 4) / (0.25 * 4.0)
    assert c_star == pytest.approx(0.280819, rel=1e-5)
    below = ob.objective_plan(100, c_star * (1 - 1e-9), 2.0, 1.0)
    above = ob.objective_plan(100, c_star * (1 + 1e-9), 2.0, 1.0)
    assert below.extra_regularization == 0.0 < above.extra_regularization
    assert below.epsilon_prime == pytest.approx(0.7425, rel=1e-7)
    assert above.epsilon_prime == pytest.approx(0.7425, rel=1e-11)


def _log_jacobian(X, s, v, lam):
    """log det of ∇b(v) = Σ ℓ″(s_i v·x_i) x_i x_iᵀ + nΛ′ I (objective × n)."""
    z = s * (X @ v)
    w = 1.0 / (1.0 + np.exp(z)) / (1.0 + np.exp(-z))  # ℓ″ = σ(z)σ(−z) ≤ 1/4
    H = (X * w[:, None]).T @ X + len(s) * lam * np.eye(X.shape[1])
    return np.linalg.slogdet(H)[1]


def test_jacobian_ratio_of_neighbours_is_within_the_rank_one_bound():
    # The step of the privacy proof that this learner tightens: for D, D′
    # differing in one row (‖x̃‖ ≤ 1), |log det ∇b_D(v) − log det ∇b_D′(v)|
    # ≤ log(1 + c/(nΛ′)) at every v, not only CMS's 2 log(1 + c/(nΛ′)).
    rng = np.random.default_rng(0)
    worst = 0.0
    for trial in range(400):
        n, d = int(rng.integers(1, 8)), int(rng.integers(1, 5))
        lam = float(10.0 ** rng.uniform(-4, 0))
        X = rng.normal(size=(n, d))
        X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None] * rng.uniform(1, 3)
        s = rng.choice([-1.0, 1.0], size=n)
        X2, s2 = X.copy(), s.copy()
        x_new = rng.normal(size=d)
        X2[0] = x_new / np.linalg.norm(x_new) * rng.choice([1.0, rng.uniform()])
        if trial % 4 == 0:
            X2[0] = 0.0  # replaced by the zero row
        s2[0] = rng.choice([-1.0, 1.0])
        v = rng.normal(size=d) * 10.0 ** rng.uniform(-3, 1)
        gap = abs(_log_jacobian(X, s, v, lam) - _log_jacobian(X2, s2, v, lam))
        bound = math.log1p(0.25 / (n * lam))
        assert gap <= bound * (1 + 1e-9) + 1e-12
        worst = max(worst, gap / bound)
    # and the bound is nearly attained: v = 0 (ℓ″ = c), one row x against
    # the zero row, the other rows zero: the ratio is 1 + c/(nΛ′) exactly.
    n, lam = 10, 1e-3
    X = np.zeros((n, 1))
    X[0, 0] = 1.0
    gap = _log_jacobian(X, np.ones(n), np.zeros(1), lam) - _log_jacobian(
        np.zeros((n, 1)), np.ones(n), np.zeros(1), lam
    )
    assert gap == pytest.approx(math.log1p(0.25 / (n * lam)), rel=1e-12)
    assert worst > 0.5  # random neighbours come within a factor 2 of it


def test_noise_norm_follows_gamma_d_scale():
    rng = np.random.default_rng(0)
    norms = [
        np.linalg.norm(ob.sample_gamma_norm_noise(3, 2.0, rng)) for _ in range(4000)
    ]
    # Gamma(3, 2): mean 6, sd √12 ≈ 3.46, so the mean of 4,000 is within 0.2.
    assert abs(np.mean(norms) - 6.0) < 0.2


def _data(n=400, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3)) / 4
    y = (X[:, 0] - X[:, 1] + 0.1 * rng.normal(size=n) > 0).astype(int)
    return X, y


def test_tiny_noise_recovers_the_regularised_minimiser():
    # ε = 1000: Δ = 0 and ε′ ≈ 990, so b/n is ~1e-5: the model is the
    # non-private minimiser of (1/n)Σℓ + ‖w‖²/(2Cn), i.e. scikit-learn's
    # C·Σℓ + ½‖w‖² (no intercept).
    X, y = _data()
    with pytest.warns(PrivacyLeakWarning):
        dp = DPLogisticRegression(
            epsilon=1000.0,
            data_norm=5.0,
            C=1.0,
            fit_intercept=False,
            noise_random_state=0,
        ).fit(X, y)
    ref = LogisticRegression(C=1.0, fit_intercept=False, tol=1e-12).fit(X, y)
    assert dp.plan_.extra_regularization == 0.0
    np.testing.assert_allclose(dp.coef_, ref.coef_, rtol=0, atol=1e-2)
    # ε beyond e^(ε/4)'s float range: Δ = 0, no overflow
    assert ob.objective_plan(10, 1.0, 1.0, 1e5).extra_regularization == 0.0


def test_learner_uses_the_mechanism_and_is_reproducible_only_with_a_seed():
    X, y = _data()
    kw = dict(epsilon=1.0, data_norm=1.0, C=0.5)
    with pytest.warns(PrivacyLeakWarning):
        a = DPLogisticRegression(noise_random_state=3, **kw).fit(X, y)
    with pytest.warns(PrivacyLeakWarning):
        b = DPLogisticRegression(noise_random_state=3, **kw).fit(X, y)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    c = DPLogisticRegression(**kw).fit(X, y)
    assert not np.array_equal(a.coef_, c.coef_)
    R = math.sqrt(2.0)
    assert a.plan_ == ob.objective_plan(len(y), 0.5, R, 1.0, dim=4)
    assert a.sensitivity_ == pytest.approx(a.plan_.output_sensitivity / R)
    out = DPLogisticRegression(mechanism="output", **kw).fit(X, y)
    assert out.plan_ is None
    assert out.sensitivity_ == pytest.approx(2 * R * 0.5, rel=1e-6)


def test_solver_reaches_the_tolerance_or_raises():
    X, y = _data()
    s = np.where(y == 1, 1.0, -1.0)
    Xa = np.hstack([X, np.ones((len(y), 1))]) / 2.0
    v = ob.newton(Xa, s, 1e-3, np.full(4, 0.01), 100)
    p = 1 / (1 + np.exp(s * (Xa @ v)))
    grad = -(Xa.T @ (s * p)) / len(y) + 1e-3 * v + 0.01
    assert np.linalg.norm(grad) <= ob.GAMMA / 2
    assert ob.newton(Xa, s, 1e-3, np.full(4, 0.01), 1) is None
    # The learner runs at least SOLVER_MIN_ITER = 200 iterations: max_iter=1
    # is the same fit as the default (it used to raise, depending on rows).
    for mech in ("objective", "output"):
        with pytest.warns(PrivacyLeakWarning):
            a = DPLogisticRegression(
                max_iter=1, mechanism=mech, noise_random_state=5
            ).fit(X, y)
        with pytest.warns(PrivacyLeakWarning):
            b = DPLogisticRegression(mechanism=mech, noise_random_state=5).fit(X, y)
        np.testing.assert_array_equal(a.coef_, b.coef_)


def test_plateau_candidates_share_a_distribution_key():
    n, eps = 1000, 1.0
    # R² = 2: the plateau starts at C* = (e^0.2475 − 1)/(0.25·2) ≈ 0.56.
    keys = {
        C: DPLogisticRegression(data_norm=1.0, C=C)._distribution_key(n, eps)
        for C in (0.1, 0.5, 0.6, 10.0, 1e3)
    }
    assert keys[0.6] == keys[10.0] == keys[1e3]
    assert len({keys[0.1], keys[0.5], keys[0.6]}) == 3
    out = DPLogisticRegression(data_norm=1.0, mechanism="output")
    assert out.set_params(C=10.0)._distribution_key(n, eps) != out.set_params(
        C=1e3
    )._distribution_key(n, eps)


def test_huber_newton_takes_exact_line_steps():
    # Five copies of x = e₁ (labels −, +, −, −, +), a linear term 0.2·e₂
    # orthogonal to them and Λ at the conditioning floor 1/(κ_max − 1): the
    # generalised Hessian at 0 is Λ alone (every row on a linear piece), the
    # full step lands 2·10⁴ away, and backtracking crawled (200 iterations,
    # no certificate; the miss of ``bench_solver_fuzz.py --huber 0.5``).
    # With the exact line search: 3 iterations, to the minimiser by hand:
    # v₂ = −0.2/Λ, and v₁ = −z with the three negatives on the quadratic
    # piece, 3(1.5 − z)/5 − 2/5 = Λz, z = 2.5/(3 + 5Λ).
    X = np.tile([1.0, 0.0, 0.0], (5, 1))
    s = np.array([-1.0, 1.0, -1.0, -1.0, 1.0])
    lam, lin = 1 / (1e5 - 1), np.array([0.0, 0.2, 0.0])
    stats = {}
    v = ob.newton(X, s, lam, lin, 200, tol=5e-12, stats=stats, loss=ob.Huber(0.5))
    assert stats["iterations"] <= 5
    np.testing.assert_allclose(v, [-2.5 / (3 + 5 * lam), -0.2 / lam, 0.0], rtol=1e-12)

    class Backtracking(ob.Huber):
        exact_line_search = False

    assert ob.newton(X, s, lam, lin, 200, tol=5e-12, loss=Backtracking(0.5)) is None
