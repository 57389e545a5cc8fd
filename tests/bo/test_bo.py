"""Tests of the BO loop (Algorithm 1 lines 2-8, GP-BUCB batches).

The incremental loop is compared with a naive reference that recomputes
the posterior from scratch with ``numpy.linalg`` at every step (TESTING
S4: correctness of the search separated from the privacy layer).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from sklearn_dpbo.bo._acquisition import log_expected_improvement, ucb_beta
from sklearn_dpbo.bo._bo import bayesian_optimisation


def _kernel(A, B, kernel, ell):
    r = np.sqrt(((A[:, None, :] - B[None, :, :]) ** 2).sum(-1))
    if kernel == "squared-exponential":
        return np.exp(-(r**2) / (2 * ell**2))
    s = math.sqrt(5) * r / ell
    return (1 + s + s**2 / 3) * np.exp(-s)


def _posterior(X, obs_idx, obs_y, all_idx, kernel, ell, noise):
    """Mean from the observed points, variance from all added points."""
    s2 = noise if noise > 0 else 1e-8
    mean = np.zeros(len(X))
    if obs_idx:
        Xo = X[obs_idx]
        K = _kernel(Xo, Xo, kernel, ell) + s2 * np.eye(len(obs_idx))
        mean = _kernel(X, Xo, kernel, ell) @ np.linalg.solve(K, np.array(obs_y))
    var = np.ones(len(X))
    if all_idx:
        Xa = X[all_idx]
        K = _kernel(Xa, Xa, kernel, ell) + s2 * np.eye(len(all_idx))
        k = _kernel(X, Xa, kernel, ell)
        var = 1.0 - np.einsum("ij,ji->i", k, np.linalg.solve(K, k.T))
    return mean, np.maximum(var, 0.0)


def _pick(values, ranks):
    top = np.flatnonzero(values == values.max())
    return int(top[np.argmin(ranks[top])])


def naive_bo(f, X, T, beta, ranks, kernel, ell, noise, batch=1, acq="ucb"):
    """GP-UCB / GP-BUCB written from the paper, posterior from scratch."""
    idx: list[int] = []
    ys: list[float] = []
    gaps = []
    while len(idx) < T:
        pending: list[int] = []
        for _ in range(min(batch, T - len(idx))):
            mean, var = _posterior(X, idx, ys, idx + pending, kernel, ell, noise)
            t = len(idx) + len(pending) + 1
            if acq == "ucb":
                a = mean + math.sqrt(beta(t)) * np.sqrt(var)
            else:
                a = log_expected_improvement(mean, np.sqrt(var), max(ys, default=0.0))
            j = _pick(a, ranks)
            srt = np.sort(a)
            if srt[-1] != srt[-2]:
                gaps.append(srt[-1] - srt[-2])
            pending.append(j)
        for j in pending:
            idx.append(j)
            ys.append(f(j))
    return np.array(idx), np.array(ys), min(gaps)


def _problem(n=150, d=2, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.random((n, d))
    values = np.sin(5 * X[:, 0]) * np.cos(3 * X[:, 1]) + 0.5 * X[:, 0]
    ranks = rng.permutation(n)
    return X, values, ranks


class Recorder:
    """``evaluate`` callback that records every batch it is asked for."""

    def __init__(self, values):
        self.values = values
        self.calls: list[list[int]] = []

    def __call__(self, indices):
        indices = [int(i) for i in indices]
        self.calls.append(indices)
        return [float(self.values[i]) for i in indices]

    @property
    def evaluated(self):
        return [i for call in self.calls for i in call]


@pytest.mark.parametrize("kernel", ["matern52", "squared-exponential"])
@pytest.mark.parametrize("noise", [0.01, 0.1])
def test_sequential_equals_naive_gp_ucb(kernel, noise):
    X, values, ranks = _problem(seed=1)
    T, delta = 30, 1e-3

    def beta(t):
        return ucb_beta(t, len(X), delta)

    rec = Recorder(values)
    trace = bayesian_optimisation(
        rec,
        X,
        n_iter=T,
        beta=beta,
        tie_break=ranks,
        kernel=kernel,
        length_scale=0.2,
        noise=noise,
    )
    ref_idx, ref_y, gap = naive_bo(
        lambda j: values[j], X, T, beta, ranks, kernel, 0.2, noise
    )
    assert gap > 1e-9  # no near-tie decided by rounding
    np.testing.assert_array_equal(trace.indices, ref_idx)
    np.testing.assert_array_equal(trace.scores, ref_y)
    # Sequential: one candidate per call, never the same one twice.
    assert all(len(c) == 1 for c in rec.calls)
    assert len(rec.evaluated) == len(set(rec.evaluated)) == len(set(ref_idx.tolist()))
    # The first step is all ties (μ = 0, σ = 1): the public rank-0 candidate.
    assert trace.indices[0] == int(np.argmin(ranks))
    # Final posterior = dense posterior over the trace.
    mean, var = _posterior(
        X, ref_idx.tolist(), ref_y.tolist(), ref_idx.tolist(), kernel, 0.2, noise
    )
    np.testing.assert_allclose(trace.gp.mean, mean, atol=1e-10)
    np.testing.assert_allclose(trace.gp.var, var, atol=1e-10)


def test_repeats_are_served_from_the_cache():
    # Six candidates and T = 25: GP-UCB must come back to some of them.
    X = np.linspace(0, 1, 6)[:, None]
    values = np.array([0.1, 0.5, 0.9, 0.4, 0.2, 0.0])
    ranks = np.arange(6)
    rec = Recorder(values)
    trace = bayesian_optimisation(
        rec,
        X,
        n_iter=25,
        beta=lambda t: ucb_beta(t, 6, 0.1),
        tie_break=ranks,
        noise=0.05,
    )
    assert len(trace.indices) == 25
    assert len(set(trace.indices.tolist())) < 25  # repeats happened
    assert len(rec.evaluated) == len(set(rec.evaluated))  # never re-evaluated
    assert set(rec.evaluated) == set(trace.indices.tolist())
    np.testing.assert_array_equal(trace.scores, values[trace.indices])
    ref_idx, _, _ = naive_bo(
        lambda j: values[j],
        X,
        25,
        lambda t: ucb_beta(t, 6, 0.1),
        ranks,
        "matern52",
        0.2,
        0.05,
    )
    np.testing.assert_array_equal(trace.indices, ref_idx)


@pytest.mark.parametrize("batch", [2, 4, 7])
def test_batches_equal_naive_gp_bucb(batch):
    X, values, ranks = _problem(n=120, seed=2)
    T = 23

    def beta(t):
        return ucb_beta(t, len(X), 1e-2)

    rec = Recorder(values)
    trace = bayesian_optimisation(
        rec,
        X,
        n_iter=T,
        beta=beta,
        tie_break=ranks,
        noise=0.02,
        batch_size=batch,
    )
    ref_idx, ref_y, gap = naive_bo(
        lambda j: values[j], X, T, beta, ranks, "matern52", 0.2, 0.02, batch=batch
    )
    assert gap > 1e-9
    np.testing.assert_array_equal(trace.indices, ref_idx)
    # Evaluated in batches of at most B new candidates, never twice.
    n_batches = math.ceil(T / batch)
    assert len(rec.calls) <= n_batches
    assert all(1 <= len(c) <= batch for c in rec.calls)
    assert len(rec.evaluated) == len(set(rec.evaluated))
    # The posterior after all observations equals the dense posterior.
    idx = trace.indices.tolist()
    mean, var = _posterior(X, idx, trace.scores.tolist(), idx, "matern52", 0.2, 0.02)
    np.testing.assert_allclose(trace.gp.mean, mean, atol=1e-10)
    np.testing.assert_allclose(trace.gp.var, var, atol=1e-10)
    assert trace.gp.n_observed == T


def test_batch_with_repeats_inside_a_batch_evaluates_once():
    X = np.linspace(0, 1, 3)[:, None]
    values = np.array([0.2, 1.0, 0.3])
    rec = Recorder(values)
    trace = bayesian_optimisation(
        rec,
        X,
        n_iter=12,
        beta=lambda t: 0.01,
        tie_break=np.arange(3),
        noise=0.5,
        batch_size=4,
    )
    assert len(rec.evaluated) == len(set(rec.evaluated)) <= 3
    np.testing.assert_array_equal(trace.scores, values[trace.indices])
    mean, _ = _posterior(
        X,
        trace.indices.tolist(),
        trace.scores.tolist(),
        trace.indices.tolist(),
        "matern52",
        0.2,
        0.5,
    )
    np.testing.assert_allclose(trace.gp.mean, mean, atol=1e-10)


def test_expected_improvement_equals_naive():
    X, values, ranks = _problem(n=100, seed=3)
    rec = Recorder(values)
    trace = bayesian_optimisation(
        rec,
        X,
        n_iter=15,
        beta=lambda t: 1.0,
        tie_break=ranks,
        noise=0.01,
        acquisition="ei",
    )
    ref_idx, _, _ = naive_bo(
        lambda j: values[j],
        X,
        15,
        lambda t: 1.0,
        ranks,
        "matern52",
        0.2,
        0.01,
        acq="ei",
    )
    np.testing.assert_array_equal(trace.indices, ref_idx)
    assert len(rec.evaluated) == len(set(rec.evaluated))


def test_gp_ucb_finds_a_good_candidate():
    X, values, ranks = _problem(n=200, seed=4)
    trace = bayesian_optimisation(
        Recorder(values),
        X,
        n_iter=40,
        beta=lambda t: ucb_beta(t, 200, 0.1),
        tie_break=ranks,
        noise=0.01,
    )
    # A smooth objective: 40 steps of GP-UCB land in the top 5 %.
    assert trace.scores.max() >= np.quantile(values, 0.95)


def test_beta_is_called_with_the_papers_t():
    X, values, ranks = _problem(n=30, seed=5)
    seen = []

    def beta(t):
        seen.append(t)
        return 2.0

    bayesian_optimisation(
        Recorder(values), X, n_iter=9, beta=beta, tie_break=ranks, batch_size=4
    )
    assert seen == list(range(1, 10))
