"""Tests of the GP surrogate (``DPBO.md`` §3) and the γ_T bound (§4)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from sklearn_dpbo.bo._gp import IncrementalGP, greedy_information_gain, kernel_matrix

KERNEL_NAMES = ["squared-exponential", "matern52"]


def _k(r, kernel, ell):
    """The two kernels written out from the spec, as functions of r."""
    r = np.asarray(r, dtype=float)
    if kernel == "squared-exponential":
        return np.exp(-(r**2) / (2 * ell**2))
    return (1 + math.sqrt(5) * r / ell + 5 * r**2 / (3 * ell**2)) * np.exp(
        -math.sqrt(5) * r / ell
    )


def dense_kernel(A, B, kernel, ell):
    r = np.sqrt(((A[:, None, :] - B[None, :, :]) ** 2).sum(-1))
    return _k(r, kernel, ell)


def dense_posterior(X, idx, y, kernel, ell, noise):
    """μ = k(Λ,Λ_t)(K_t+σ²I)⁻¹v, σ² = 1 − diag(k (K_t+σ²I)⁻¹ kᵀ), directly."""
    s2 = noise if noise > 0 else 1e-8
    Xt = X[np.asarray(idx)]
    K = dense_kernel(Xt, Xt, kernel, ell) + s2 * np.eye(len(idx))
    k = dense_kernel(X, Xt, kernel, ell)
    mean = k @ np.linalg.solve(K, np.asarray(y, dtype=float))
    var = 1.0 - np.einsum("ij,ji->i", k, np.linalg.solve(K, k.T))
    return mean, var


# ---------------------------------------------------------------------------
# Kernels
# ---------------------------------------------------------------------------
def test_kernel_hand_values():
    a = np.array([[0.0, 0.0]])
    b = np.array([[0.3, 0.4], [0.0, 0.25], [0.0, 0.0]])  # r = 0.5, 0.25, 0
    ell = 0.25
    se = kernel_matrix(a, b, "squared-exponential", ell)[0]
    # r/ℓ = 2: exp(-2); r/ℓ = 1: exp(-1/2).
    np.testing.assert_allclose(se, [math.exp(-2.0), math.exp(-0.5), 1.0], rtol=1e-14)
    m = kernel_matrix(a, b, "matern52", ell)[0]
    s2, s1 = 2 * math.sqrt(5), math.sqrt(5)  # √5 r/ℓ for r/ℓ = 2 and 1
    expected = [
        (1 + s2 + 20 / 3) * math.exp(-s2),  # 5 (r/ℓ)² / 3 = 20/3
        (1 + s1 + 5 / 3) * math.exp(-s1),
        1.0,
    ]
    np.testing.assert_allclose(m, expected, rtol=1e-14)
    # Literal numbers, independent of any formula in this file.
    assert se[0] == pytest.approx(0.1353352832366127, rel=1e-14)
    assert m[1] == pytest.approx(0.5239941088318203, rel=1e-12)


@pytest.mark.parametrize("kernel", KERNEL_NAMES)
def test_kernel_matrix_properties(kernel):
    rng = np.random.default_rng(0)
    X = rng.random((30, 3))
    K = kernel_matrix(X, X, kernel, 0.3)
    np.testing.assert_allclose(np.diag(K), 1.0, rtol=0, atol=0)
    np.testing.assert_allclose(K, K.T, atol=1e-15)
    assert np.all((K > 0) & (K <= 1))
    assert np.linalg.eigvalsh(K).min() > -1e-10  # positive semi-definite
    np.testing.assert_allclose(K, dense_kernel(X, X, kernel, 0.3), atol=1e-14)
    # Decreasing in the distance.
    r = np.linspace(0, 2, 50)[:, None]
    k = kernel_matrix(np.zeros((1, 1)), r, kernel, 0.3)[0]
    assert np.all(np.diff(k) < 0)


# ---------------------------------------------------------------------------
# Incremental posterior = dense posterior
# ---------------------------------------------------------------------------
def _run(X, idx, y, kernel, ell, noise):
    gp = IncrementalGP(X, kernel=kernel, length_scale=ell, noise=noise)
    for j, v in zip(idx, y):
        gp.add(int(j))
        gp.observe(v)
    return gp


@pytest.mark.parametrize("kernel", KERNEL_NAMES)
@pytest.mark.parametrize("noise", [0.01, 0.3])
def test_incremental_equals_dense_after_every_step(kernel, noise):
    rng = np.random.default_rng(1)
    X = rng.random((120, 2))
    idx = rng.choice(120, size=25, replace=False)
    y = np.sin(6 * X[idx, 0]) + X[idx, 1] ** 2
    gp = IncrementalGP(X, kernel=kernel, length_scale=0.2, noise=noise)
    np.testing.assert_array_equal(gp.mean, 0.0)
    np.testing.assert_array_equal(gp.var, 1.0)
    for t in range(25):
        gp.add(int(idx[t]))
        gp.observe(y[t])
        mean, var = dense_posterior(X, idx[: t + 1], y[: t + 1], kernel, 0.2, noise)
        np.testing.assert_allclose(gp.mean, mean, rtol=0, atol=1e-10)
        np.testing.assert_allclose(gp.var, var, rtol=0, atol=1e-10)
        np.testing.assert_allclose(gp.std, np.sqrt(np.maximum(var, 0)), atol=1e-5)
    assert gp.n_observed == gp.n_rows == 25
    np.testing.assert_array_equal(gp.index[:25], idx)


@pytest.mark.parametrize("kernel", KERNEL_NAMES)
def test_repeated_points(kernel):
    rng = np.random.default_rng(2)
    X = rng.random((60, 2))
    idx = np.array([3, 7, 3, 3, 10, 7, 3, 50, 50, 3])
    y = rng.normal(size=idx.size)
    gp = _run(X, idx, y, kernel, 0.25, 0.05)
    mean, var = dense_posterior(X, idx, y, kernel, 0.25, 0.05)
    np.testing.assert_allclose(gp.mean, mean, atol=1e-10)
    np.testing.assert_allclose(gp.var, var, atol=1e-10)
    # Repeats shrink the variance at the repeated point: 1 - 1/(1 + 5·(1/σ²))…
    assert gp.var[3] < 0.05 / 5 * 1.01


@pytest.mark.parametrize("kernel", KERNEL_NAMES)
def test_noise_free_uses_jitter(kernel):
    rng = np.random.default_rng(3)
    X = rng.random((80, 2))
    idx = rng.choice(80, size=12, replace=False)
    y = np.cos(5 * X[idx, 0]) * X[idx, 1]
    gp = _run(X, idx, y, kernel, 0.2, 0.0)
    mean, var = dense_posterior(X, idx, y, kernel, 0.2, 0.0)  # σ² = 1e-8
    np.testing.assert_allclose(gp.mean, mean, atol=1e-8)
    np.testing.assert_allclose(gp.var, var, atol=1e-8)
    # Interpolates: the posterior mean reproduces the observations.
    np.testing.assert_allclose(gp.mean[idx], y, atol=1e-6)
    assert np.all(gp.var[idx] < 1e-6)
    assert np.all(np.isfinite(gp.mean)) and np.all(gp.var >= 0)


@pytest.mark.parametrize("kernel", KERNEL_NAMES)
def test_noise_free_repeated_point_stays_finite(kernel):
    X = np.linspace(0, 1, 30)[:, None]
    gp = IncrementalGP(X, kernel=kernel, length_scale=0.2, noise=0.0)
    for _ in range(4):
        gp.add(5)
        gp.observe(0.7)
    assert np.all(np.isfinite(gp.mean)) and np.all(np.isfinite(gp.var))
    assert np.all(gp.var >= 0)
    assert gp.mean[5] == pytest.approx(0.7, abs=1e-6)


@pytest.mark.parametrize("kernel", KERNEL_NAMES)
@pytest.mark.parametrize("batch", [2, 5])
def test_pending_batch_before_observing(kernel, batch):
    rng = np.random.default_rng(4)
    X = rng.random((90, 3))
    idx = rng.choice(90, size=15, replace=True)
    y = rng.normal(size=15)
    gp = IncrementalGP(X, kernel=kernel, length_scale=0.3, noise=0.02)
    # Observed: the first 5; pending: the next `batch`.
    for i in range(5):
        gp.add(int(idx[i]))
        gp.observe(y[i])
    for i in range(5, 5 + batch):
        gp.add(int(idx[i]))
    assert gp.n_rows == 5 + batch and gp.n_observed == 5
    # GP-BUCB: variance from all points, mean from the observed ones only.
    mean_obs, _ = dense_posterior(X, idx[:5], y[:5], kernel, 0.3, 0.02)
    _, var_all = dense_posterior(X, idx[: 5 + batch], y[: 5 + batch], kernel, 0.3, 0.02)
    np.testing.assert_allclose(gp.mean, mean_obs, atol=1e-10)
    np.testing.assert_allclose(gp.var, var_all, atol=1e-10)
    for i in range(5, 5 + batch):
        gp.observe(y[i])
    mean, var = dense_posterior(X, idx[: 5 + batch], y[: 5 + batch], kernel, 0.3, 0.02)
    np.testing.assert_allclose(gp.mean, mean, atol=1e-10)
    np.testing.assert_allclose(gp.var, var, atol=1e-10)


def test_posterior_does_not_depend_on_score_scale_of_variance():
    # The variance never depends on the scores (GP-BUCB relies on this).
    rng = np.random.default_rng(6)
    X = rng.random((40, 2))
    idx = rng.choice(40, size=8)
    a = _run(X, idx, rng.normal(size=8), "matern52", 0.2, 0.01)
    b = _run(X, idx, 100 * rng.normal(size=8), "matern52", 0.2, 0.01)
    np.testing.assert_array_equal(a.var, b.var)


# ---------------------------------------------------------------------------
# Information gain γ_T
# ---------------------------------------------------------------------------
def _info_gain(X, A, kernel, ell, noise):
    """½ log det(I + σ⁻² K_A) for a multiset A of indices."""
    if len(A) == 0:
        return 0.0
    K = dense_kernel(X[list(A)], X[list(A)], kernel, ell)
    return 0.5 * np.linalg.slogdet(np.eye(len(A)) + K / noise)[1]


def _greedy_reference(X, T, kernel, ell, noise):
    """Greedy maximiser of the log det itself (not via posterior variances)."""
    A: list[int] = []
    for _ in range(T):
        gains = [_info_gain(X, A + [j], kernel, ell, noise) for j in range(len(X))]
        A.append(int(np.argmax(gains)))
    return _info_gain(X, A, kernel, ell, noise)


@pytest.mark.parametrize("kernel", KERNEL_NAMES)
@pytest.mark.parametrize("noise", [0.01, 0.5])
def test_greedy_information_gain_vs_bruteforce(kernel, noise):
    X = np.array([[0.0], [0.1], [0.15], [0.5], [0.9], [1.0]])
    ell, factor = 0.2, 1.0 - math.exp(-1.0)
    for T in (1, 2, 3, 4):
        bound = greedy_information_gain(
            X, T, kernel=kernel, length_scale=ell, noise=noise
        )
        greedy = bound * factor  # the greedy value itself
        assert greedy == pytest.approx(
            _greedy_reference(X, T, kernel, ell, noise), rel=1e-9
        )
        sets = max(
            _info_gain(X, A, kernel, ell, noise)
            for A in itertools.combinations(range(len(X)), T)
        )
        multisets = max(
            _info_gain(X, A, kernel, ell, noise)
            for A in itertools.combinations_with_replacement(range(len(X)), T)
        )
        assert multisets >= sets - 1e-12
        assert greedy <= multisets + 1e-10  # greedy is a feasible multiset
        assert bound >= multisets - 1e-12  # (1 − 1/e) guarantee: an upper bound
        assert bound >= sets and bound >= greedy


def test_greedy_information_gain_hand_value_t1():
    # T = 1: every point has prior variance 1, gain ½ log(1 + 1/σ²).
    X = np.random.default_rng(0).random((10, 2))
    value = greedy_information_gain(X, 1, noise=0.01)
    assert value == pytest.approx(0.5 * math.log(101.0) / (1 - math.exp(-1)), rel=1e-14)
    assert greedy_information_gain(X, 0, noise=0.01) == 0.0


def test_greedy_information_gain_monotone_in_t():
    X = np.random.default_rng(1).random((50, 2))
    values = [greedy_information_gain(X, T, noise=0.01) for T in range(0, 30, 3)]
    assert all(b > a for a, b in zip(values, values[1:]))
    # Less noise, more information.
    assert greedy_information_gain(X, 9, noise=0.001) > values[3]  # T = 9
