"""Formulas of the DP GP release (spec DP_GP.md), checked against brute force.

- analytic Gaussian calibration (§3.2): the spec's table, minimality, and
  δ(ε; η) against a direct integral of the privacy-loss distribution;
- the float Gaussian sampler: KS test with a power check;
- exact RKHS sensitivity of the standard release (§3.1 item 3) against
  brute force over all neighbours, the paper's bound above it;
- FITC maps equal the exact ones when Z = X; the inducing sensitivity
  (§3.1, last paragraph) against brute force;
- cloaking (§4): every constraint c_jᵀ M⁻¹ c_j ≤ 1 holds, KKT, log det
  against an independent multiplicative solver, brute-force sensitivity;
- the selection score's sensitivity (§5.3) against brute force, and a
  counter-example to the paper's bound (§5.2).
"""

from __future__ import annotations

import math
import random
import warnings

import numpy as np
import pytest
from _stats import ALPHA, ks_pvalue
from scipy import integrate, stats
from scipy.linalg import solve_triangular
from scipy.linalg.lapack import dposv
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF, ConstantKernel

from sklearn_dpbo.bo._gp_posterior import ExactPosterior, InducingPosterior
from sklearn_dpbo.gaussian_process._cloaking import cloak, d_optimal_design
from sklearn_dpbo.gaussian_process._release import (
    paper_sensitivity_factor,
    plan_release,
)
from sklearn_dpbo.gaussian_process._selection import cv_sensitivity, cv_sse
from sklearn_dpbo.privacy._gaussian_mechanism import (
    analytic_gaussian_scale,
    gaussian_delta,
    hall_gaussian_scale,
    hall_is_valid,
)
from sklearn_dpbo.privacy._samplers import sample_standard_normal


def _leverages(cov):
    """c_jᵀ M⁻¹ c_j for every training point j (each must be ≤ Δ₁²)."""
    V = solve_triangular(cov.factor, cov.reduced_map, lower=True)
    return np.sum(V**2, axis=0)


# One BLAS thread: multi-threaded BLAS on a shared 2-core machine made these
# small dense solves up to 60x slower.
pytestmark = pytest.mark.usefixtures("single_blas_thread")


# ---------------------------------------------------------------------------
# Analytic Gaussian mechanism
# ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "eps, analytic, hall",
    [
        (0.2, 6.053, 16.276),
        (0.5, 3.147, 6.510),
        (1.0, 1.878, 3.255),
        (2.0, 1.116, 1.628),
        (5.0, 0.569, 0.651),
        (10.0, 0.350, 0.326),
        (100.0, 0.083, 0.033),
    ],
)
def test_analytic_scale_matches_spec_table(eps, analytic, hall):
    s = analytic_gaussian_scale(1.0, eps, 0.01)
    assert s == pytest.approx(analytic, abs=6e-4)
    assert hall_gaussian_scale(1.0, eps, 0.01) == pytest.approx(hall, abs=6e-4)
    # Minimal: valid at s, violated 0.1 % below.
    assert gaussian_delta(eps, 1.0 / s) <= 0.01
    assert gaussian_delta(eps, 1.0 / (0.999 * s)) > 0.01
    # Hall's multiplier is valid exactly when it is at least the analytic one.
    assert hall_is_valid(eps, 0.01) == (hall >= analytic)


@pytest.mark.parametrize("eps, eta", [(0.5, 0.3), (1.0, 0.53), (2.0, 1.5), (5, 4.0)])
def test_gaussian_delta_against_privacy_loss_integral(eps, eta):
    """δ(ε) = E[(1 − e^{ε − L})₊], L ~ N(η²/2, η²), integrated numerically."""

    def integrand(loss):
        return -math.expm1(eps - loss) * stats.norm.pdf(loss, eta**2 / 2, eta)

    direct, _ = integrate.quad(integrand, eps, np.inf, epsabs=1e-13)
    assert gaussian_delta(eps, eta) == pytest.approx(direct, rel=1e-7, abs=1e-14)


def test_analytic_scale_is_linear_in_sensitivity():
    base = analytic_gaussian_scale(1.0, 0.7, 1e-5)
    assert analytic_gaussian_scale(3.5, 0.7, 1e-5) == pytest.approx(3.5 * base)
    assert analytic_gaussian_scale(0.0, 0.7, 1e-5) == 0.0
    with pytest.raises(ValueError, match="delta > 0"):
        analytic_gaussian_scale(1.0, 1.0, 0.0)


# ---------------------------------------------------------------------------
# Sampler
# ---------------------------------------------------------------------------
def test_standard_normal_sampler_ks_and_power():
    z = sample_standard_normal(20_000, random.Random(7))
    assert ks_pvalue(z, stats.norm.cdf) > ALPHA
    # Power: the same draws are rejected as N(0, 1.1²) and as N(0.1, 1).
    assert ks_pvalue(z, stats.norm(scale=1.1).cdf) < ALPHA
    assert ks_pvalue(z, stats.norm(loc=0.1).cdf) < ALPHA
    assert sample_standard_normal(3, random.Random(7)).shape == (3,)
    # Production source: the OS CSPRNG.
    from sklearn_dpbo.privacy._samplers import secure_source

    w = sample_standard_normal(20_000, secure_source())
    assert ks_pvalue(w, stats.norm.cdf) > ALPHA


# ---------------------------------------------------------------------------
# Standard release: exact RKHS sensitivity
# ---------------------------------------------------------------------------
def _problem(n=7, seed=0, ls=1.0, noise=0.2):
    rng = np.random.default_rng(seed)
    X = np.sort(rng.uniform(0, 5, size=(n, 1)), axis=0)
    return X, RBF(ls), noise


def _brute_rkhs(X, kernel, noise, d, y):
    """max over j and t ∈ [−d, d] of ‖f_D − f_D'‖_H, from α = A y directly."""
    K = kernel(X)
    A = np.linalg.inv(K + noise * np.eye(len(X)))
    best = 0.0
    for j in range(len(X)):
        for t in np.linspace(-d, d, 41):
            y2 = y.copy()
            y2[j] += t
            da = A @ y - A @ y2
            best = max(best, math.sqrt(max(da @ K @ da, 0.0)))
    return best


@pytest.mark.parametrize("seed, ls, noise", [(0, 1.0, 0.2), (1, 0.3, 0.05), (2, 3, 1)])
def test_exact_rkhs_sensitivity_matches_brute_force(seed, ls, noise):
    X, kernel, noise = _problem(seed=seed, ls=ls, noise=noise)
    d = 2.5
    y = np.random.default_rng(seed).uniform(-1, 1, len(X))
    post = ExactPosterior(kernel, X, noise)
    exact = d * post.rkhs_factors().max()
    assert exact == pytest.approx(_brute_rkhs(X, kernel, noise, d, y), rel=1e-9)
    # The paper's max(P, N) bound is an upper bound here, and looser.
    assert d * paper_sensitivity_factor(post) >= exact
    plan = plan_release("standard", post, X, width=d, epsilon=1.0, delta=1e-3)
    assert plan.sensitivity == pytest.approx(exact, rel=1e-8)
    assert plan.sensitivity >= exact


def test_inducing_sensitivity_matches_brute_force():
    X, kernel, noise = _problem(n=9, seed=3)
    Z = np.linspace(0, 5, 4)[:, None]
    post = InducingPosterior(kernel, X, noise, Z)
    d = 1.5
    Kmm = kernel(Z)
    best = 0.0
    for j in range(len(X)):
        for t in (-d, d):
            dw = post.W[:, j] * t  # weights of the mean function Σ w_m k(·, z_m)
            best = max(best, math.sqrt(dw @ Kmm @ dw))
    assert d * post.rkhs_factors().max() == pytest.approx(best, rel=1e-9)


def test_fitc_equals_exact_gp_when_inducing_inputs_are_the_inputs():
    X, kernel, noise = _problem(n=8, seed=4)
    Xq = np.linspace(-1, 6, 11)[:, None]
    exact = ExactPosterior(kernel, X, noise)
    fitc = InducingPosterior(kernel, X, noise, X)
    np.testing.assert_allclose(fitc.mean_map(Xq), exact.mean_map(Xq), atol=1e-6)
    np.testing.assert_allclose(fitc.covariance(Xq), exact.covariance(Xq), atol=1e-6)
    np.testing.assert_allclose(fitc.rkhs_factors(), exact.rkhs_factors(), atol=1e-6)


def test_exact_posterior_matches_scikit_learn():
    X, kernel, noise = _problem(n=12, seed=5)
    y = np.random.default_rng(5).normal(size=12)
    Xq = np.linspace(-1, 6, 9)[:, None]
    gpr = GaussianProcessRegressor(
        ConstantKernel(1.0, "fixed") * kernel, alpha=noise, optimizer=None
    )
    mean, cov = gpr.fit(X, y).predict(Xq, return_cov=True)
    post = ExactPosterior(kernel, X, noise)
    np.testing.assert_allclose(post.mean_map(Xq) @ y, mean, atol=1e-10)
    np.testing.assert_allclose(post.covariance(Xq), cov, atol=1e-10)


# ---------------------------------------------------------------------------
# Cloaking
# ---------------------------------------------------------------------------
def _multiplicative_logdet(P, n_iter=20000, gap=1e-10):
    """Independent D-optimal solver (Titterington's multiplicative update).

    Returns log det of the feasible M = max_j g_j · W(u), g_j = p_jᵀ W⁻¹ p_j.
    Since log det(r W(u)) ≤ log det M* ≤ log det(max g · W(u)) (M* = r W(u*)
    for the D-optimal design u*), it is within r log(max g / r) of the
    optimum: the loop stops once that is below ``gap`` (about 5,000 steps
    here; 20,000 at most).
    """
    r, n = P.shape
    u = np.full(n, 1.0 / n)
    for _ in range(n_iter):
        W = (P * u) @ P.T
        _, WinvP, info = dposv(W, P)  # Cholesky solve (W is SPD)
        assert info == 0
        g = np.sum(P * WinvP, axis=0)
        if r * np.log(g.max() / r) <= gap:
            break
        u = u * g / r
    return np.linalg.slogdet(W * g.max())[1]


@pytest.mark.parametrize("n, n_q, ls", [(30, 12, 1.0), (60, 25, 0.4)])
def test_cloaking_meets_every_constraint_and_is_optimal(n, n_q, ls):
    rng = np.random.default_rng(n)
    X = rng.uniform(0, 5, size=(n, 1))
    Xq = np.linspace(-1, 6, n_q)[:, None]
    C_map = ExactPosterior(RBF(ls), X, 0.1).mean_map(Xq)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no PSD / divide-by-zero warnings
        cov = cloak(C_map, tol=1e-5)
    lev = _leverages(cov)
    assert lev.shape == (n,)
    # c_jᵀ M⁻¹ c_j ≤ Δ₁² for every j, and Δ₁ ≈ 1 at convergence.
    assert np.all(lev <= cov.sensitivity_factor**2)
    assert cov.design.converged
    assert 1.0 <= cov.sensitivity_factor**2 <= 1.0 + 1e-5 + 1e-8
    # KKT: every point with weight is on the boundary (complementary slackness).
    active = cov.design.weights > 1e-3 / n
    np.testing.assert_allclose(lev[active], 1.0, atol=1e-3)
    # log det M is within the certified gap of an independent solver's value.
    M = cov.factor @ cov.factor.T
    ours = np.linalg.slogdet(M)[1]
    theirs = _multiplicative_logdet(cov.reduced_map)
    assert ours <= theirs + cov.design.logdet_gap + 1e-6
    # Brute-force sensitivity of the released coordinates U_rᵀ C y.
    Linv_C = np.linalg.solve(cov.factor, cov.basis.T @ C_map)
    brute = max(np.linalg.norm(Linv_C[:, j] * t) for j in range(n) for t in (-1, 1))
    assert cov.sensitivity_factor == pytest.approx(brute, rel=1e-8)
    # Rank reduction drops only a negligible part of C.
    resid = C_map - cov.basis @ (cov.basis.T @ C_map)
    assert np.linalg.norm(resid, 2) <= 1e-7 * np.linalg.norm(C_map, 2)


def test_cloaking_many_outputs_converges():
    """500 training points, 200 query points (rank-reduced), no warnings."""
    rng = np.random.default_rng(1)
    X = rng.uniform(0, 10, size=(500, 1))
    Xq = np.linspace(-2, 12, 200)[:, None]
    C_map = ExactPosterior(RBF(0.7), X, 0.3).mean_map(Xq)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cov = cloak(C_map)
    assert cov.rank < 200
    assert cov.design.converged
    assert np.all(_leverages(cov) <= cov.sensitivity_factor**2)


def test_d_optimal_design_on_a_known_optimum():
    """Points ±e_i and e_1 + e_2 in R²: the optimum puts weight ½ on e_1, e_2."""
    P = np.array([[1.0, 0.0, 0.6], [0.0, 1.0, 0.6]])
    design = d_optimal_design(P, tol=1e-8)
    np.testing.assert_allclose(design.weights, [0.5, 0.5, 0.0], atol=1e-4)
    # A broken solver (uniform weights) would give 1/3 each: distinguishable.
    assert abs(design.weights[2] - 1 / 3) > 0.3


def test_cloak_solves_a_public_map_once():
    """The same public map and tol: the same solution, read-only (refits with
    other outputs do not solve again; no caller can change a later release)."""
    X = np.linspace(0, 5, 20)[:, None]
    C_map = ExactPosterior(RBF(1.0), X, 0.1).mean_map(X[::3])
    first = cloak(C_map)
    assert cloak(C_map.copy()) is first
    with pytest.raises(ValueError, match="read-only"):
        first.factor[0, 0] = 0.0
    assert cloak(C_map, tol=1e-4) is not first
    with pytest.raises(ValueError, match="NaN"):
        d_optimal_design(np.array([[np.nan, 1.0]]))


def test_cloaking_zero_map_needs_no_noise():
    cov = cloak(np.zeros((3, 5)))
    assert cov.rank == 0 and cov.sensitivity_factor == 0.0


# ---------------------------------------------------------------------------
# Selection score sensitivity (§5.3)
# ---------------------------------------------------------------------------
def _folds(n, k, seed=0):
    perm = np.random.default_rng(seed).permutation(n)
    out = []
    for f in range(k):
        test = np.sort(perm[f::k])
        out.append((np.setdiff1d(np.arange(n), test), test))
    return out


@pytest.mark.parametrize("ls, e", [(0.5, 1.0), (2.0, 0.3), (1.0, 3.0)])
def test_cv_sensitivity_bounds_brute_force(ls, e):
    n, k, d = 10, 5, 2.0
    rng = np.random.default_rng(0)
    X = rng.uniform(0, 4, size=(n, 1))
    folds = _folds(n, k)
    maps = [ExactPosterior(RBF(ls), X[tr], 0.1).mean_map(X[te]) for tr, te in folds]
    bound = cv_sensitivity(maps, folds, n, e, d)
    worst = 0.0
    for _ in range(150):  # random and extreme outputs in [−d/2, d/2]
        y = rng.choice([-d / 2, d / 2], size=n) * rng.uniform(0, 1, size=n) ** 0.2
        base = cv_sse(maps, folds, y, e)
        # The 9n neighbours: y_j moved by each of 9 steps t spanning [−d/2, d/2].
        t = np.linspace(-d / 2 - y, d / 2 - y, 9)  # t[:, j]
        Y2 = np.tile(y, (9 * n, 1))
        Y2[np.arange(9 * n), np.repeat(np.arange(n), 9)] += t.T.ravel()
        worst = max(worst, np.max(np.abs(cv_sse(maps, folds, Y2, e) - base)))
    # The stacked scores are the one-vector scores.
    one = [cv_sse(maps, folds, y2, e) for y2 in Y2[::7]]
    np.testing.assert_allclose(cv_sse(maps, folds, Y2[::7], e), one, rtol=1e-12)
    assert worst <= bound
    assert worst >= 0.3 * bound  # not vacuous


def test_paper_selection_sensitivity_is_invalid():
    """Spec §5.2: the paper's training-fold term d²·max_j ‖c_j‖² is not a bound.

    Exhaustive search over the outputs at the vertices of [−d/2, d/2]^n and
    every neighbour (one output flipped to the other bound): the change of
    the SSE of the folds that hold j in their training part exceeds the
    paper's sum of the K − 1 largest d²·max‖c_j‖² (the cross term 2t eᵀc_j
    is missing), while our bound covers the whole change.
    """
    import itertools

    n, k, d = 10, 5, 2.0
    e = 4 * d  # the authors' residual clip
    X = np.linspace(0, 3, n)[:, None]
    folds = _folds(n, k)
    maps = [ExactPosterior(RBF(0.3), X[tr], 0.01).mean_map(X[te]) for tr, te in folds]
    sq = np.array([np.max(np.sum(C**2, axis=0)) for C in maps])
    paper_train = float(np.sum(np.sort(d**2 * sq)[::-1][: k - 1]))
    ours = cv_sensitivity(maps, folds, n, e, d)
    Y = np.array(list(itertools.product([-1.0, 1.0], repeat=n))) * d / 2
    Y2 = np.repeat(Y[:, None, :], n, axis=1)  # Y2[v, j]: vertex v, y_j flipped
    Y2[:, np.arange(n), np.arange(n)] *= -1
    flips = cv_sse(maps, folds, Y2.reshape(-1, n), e).reshape(len(Y), n)
    worst_total = np.max(np.abs(flips - cv_sse(maps, folds, Y, e)[:, None]))
    worst_train = 0.0
    for y in Y:
        # The training-fold change for every flipped j at once: flipping
        # y_j (j in tr) moves the residuals y_te − C y_tr by 2 y_j C[:, j].
        change = np.zeros(n)
        for (tr, te), C in zip(folds, maps):
            res = y[te] - C @ y[tr]
            r1 = np.clip(res, -e, e)
            r2 = np.clip(res[:, None] + 2 * C * y[tr], -e, e)
            change[tr] += np.sum(r2**2, axis=0) - r1 @ r1
        worst_train = max(worst_train, np.abs(change).max())
    assert worst_train > 1.5 * paper_train  # measured 16.4 vs 8.7
    assert worst_total <= ours


def test_cloaking_ill_conditioned_map_converges():
    """Regression: C with singular values down to 1e-8·S₁ (kept by the rank
    cut) made a Cholesky of W(u) jitter, the leverages wrong and the
    Harman–Pronzato deletion drop needed points (max leverage 95× r)."""
    X = np.random.RandomState(42).normal(loc=100, size=(100, 2))
    C_map = ExactPosterior(RBF(1.0), X, 0.1).mean_map(X)
    cov = cloak(C_map)
    assert cov.design.converged
    assert np.all(_leverages(cov) <= cov.sensitivity_factor**2)
    assert cov.sensitivity_factor <= np.sqrt(1.0 + 1e-3) * (1 + 1e-6)
