"""The LDP-BO learners against naive dense re-implementations (spec A1–A3).

Each learner keeps per-candidate sufficient statistics; the references
below redo every step on the full t-point history with textbook
formulas (matrix square roots by ``scipy.linalg.sqrtm``, pseudo-inverses by
``np.linalg.pinv``, per-report truncation in a double loop), so an error in
the aggregation, the Nyström embedding, the truncation or the
median-of-means selection shows up as a mismatch.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.linalg

from sklearn_dpbo.bo._gp import kernel_matrix
from sklearn_dpbo.ldp._algorithms import (
    ATAGPUCB,
    GPUCB,
    TGPUCB,
    LDPProblem,
    MoMAGPUCB,
    _sample_dictionary,
    median_of_means_index,
    nystrom_embedding,
)

LAM = 1.0


def _problem(n=12, T=60, kernel="squared-exponential", level=3.0, moment=5.0, B=1.0):
    X = np.linspace(0, 1, n)[:, None]
    K = kernel_matrix(X, X, kernel, 0.2)
    return LDPProblem(
        K=K, rkhs_norm=B, moment=moment, truncation_level=level, horizon=T
    )


def _history(rng, n, t, scale=2.0):
    js = rng.integers(0, n, t)
    ys = rng.laplace(0.0, scale, t)
    return js, ys


# ---------------------------------------------------------------------------
# A1 / GP-UCB: exact GP posterior on the t points
# ---------------------------------------------------------------------------
def dense_posterior(K, js, ys):
    Kt = K[np.ix_(js, js)]
    A = Kt + LAM * np.eye(len(js))
    Kx = K[:, js]
    mean = Kx @ np.linalg.solve(A, ys)
    var = np.diag(K) - np.sum(Kx @ np.linalg.inv(A) * Kx, axis=1)
    logdet = np.linalg.slogdet(np.eye(len(js)) + Kt / LAM)[1]
    return mean, var, logdet


def test_tgp_matches_dense_truncated_gp():
    p = _problem(level=3.0)
    rng = np.random.default_rng(0)
    js, ys = _history(rng, 12, 40)
    algo = TGPUCB(delta=0.1)
    learner = algo.start(p, np.random.default_rng(1))
    for j, y in zip(js, ys):
        learner.update(int(j), float(y))
    truncated = np.where(np.abs(ys) <= 3.0, ys, 0.0)
    assert np.any(truncated != ys)  # the level binds in this case
    mean, var, logdet = dense_posterior(p.K, js, truncated)
    np.testing.assert_allclose(learner.mean, mean, atol=1e-10)
    np.testing.assert_allclose(learner.var, var, atol=1e-10)
    beta = 1.0 + 3.0 * 3.0 * math.sqrt(logdet + 2 * math.log(2 / 0.1))
    assert learner.beta == pytest.approx(beta, rel=1e-10)
    j = learner.propose()
    assert j == int(np.argmax(mean + beta * np.sqrt(np.maximum(var, 0))))


def test_tgp_moment_level_non_private():
    # truncation_level=None: b_t = v^{1/2} t^{1/4} at α = 1 [B].
    p = _problem(level=None, moment=4.0)
    rng = np.random.default_rng(3)
    js, ys = _history(rng, 12, 30, scale=3.0)
    learner = TGPUCB().start(p, np.random.default_rng(0))
    for j, y in zip(js, ys):
        learner.update(int(j), float(y))
    t = np.arange(1, 31)
    truncated = np.where(np.abs(ys) <= 2.0 * t**0.25, ys, 0.0)
    assert np.any(truncated != ys)
    mean, _, _ = dense_posterior(p.K, js, truncated)
    np.testing.assert_allclose(learner.mean, mean, atol=1e-10)


def test_gp_ucb_baseline_matches_dense_and_ucb_beta():
    p = _problem()
    rng = np.random.default_rng(2)
    js, ys = _history(rng, 12, 25)
    learner = GPUCB(delta=0.1).start(p, np.random.default_rng(0))
    for j, y in zip(js, ys):
        learner.update(int(j), float(y))
    mean, var, _ = dense_posterior(p.K, js, ys)  # no truncation
    np.testing.assert_allclose(learner.mean, mean, atol=1e-10)
    np.testing.assert_allclose(learner.var, var, atol=1e-10)
    beta_t = 2 * math.log(12 * 26**2 * math.pi**2 / (3 * 0.1))
    assert learner.beta == pytest.approx(math.sqrt(beta_t))


# ---------------------------------------------------------------------------
# Nyström embedding
# ---------------------------------------------------------------------------
def test_nystrom_embedding_matches_pinv_formula():
    p = _problem(n=15)
    K = p.K
    D = np.array([0, 3, 7, 11])
    Phi = nystrom_embedding(K, D)
    half_pinv = np.linalg.pinv(np.real(scipy.linalg.sqrtm(K[np.ix_(D, D)])))
    np.testing.assert_allclose(Phi, K[:, D] @ half_pinv, atol=1e-8)
    # Inner products are the Nyström kernel K_xD K_D^+ K_Dy ...
    approx = K[:, D] @ np.linalg.pinv(K[np.ix_(D, D)]) @ K[D, :]
    np.testing.assert_allclose(Phi @ Phi.T, approx, atol=1e-8)
    # ... exact on the dictionary points, and a duplicate changes nothing.
    np.testing.assert_allclose((Phi @ Phi.T)[np.ix_(D, D)], K[np.ix_(D, D)], atol=1e-8)
    Phi2 = nystrom_embedding(K, np.array([0, 3, 3, 7, 11]))
    np.testing.assert_allclose(Phi2 @ Phi2.T, approx, atol=1e-6)


def test_dictionary_sampling_probability():
    # Candidate j played c_j times enters w.p. 1 − (1 − min(qσ², 1))^{c_j}.
    counts = np.array([0, 1, 3, 10, 2])
    var = np.array([1.0, 0.05, 0.05, 0.01, 0.5])
    q = 4.0
    p = np.minimum(q * var, 1.0)
    expected = np.where(counts > 0, 1 - (1 - p) ** counts, 0.0)
    rng = np.random.default_rng(7)
    n = 20_000
    hits = np.zeros(5)
    for _ in range(n):
        hits[_sample_dictionary(counts, var, q, rng)] += 1
    sd = np.sqrt(expected * (1 - expected) / n) + 1e-12
    assert np.all(np.abs(hits / n - expected) <= 6 * sd)
    # Power: ignoring the counts (probability p per candidate) is rejected.
    assert np.any(np.abs(hits / n - np.where(counts > 0, p, 0)) > 6 * sd)


# ---------------------------------------------------------------------------
# A2: per-direction truncation in the Nyström space
# ---------------------------------------------------------------------------
def dense_ata(K, js, ys, D, b):
    half_pinv = np.linalg.pinv(np.real(scipy.linalg.sqrtm(K[np.ix_(D, D)])))
    Phi_all = K[:, D] @ half_pinv
    Phi = Phi_all[js]  # t × m
    m = Phi.shape[1]
    V = Phi.T @ Phi + LAM * np.eye(m)
    V_inv_half = np.linalg.inv(np.real(scipy.linalg.sqrtm(V)))
    U = V_inv_half @ Phi.T  # m × t
    r = np.zeros(m)
    for i in range(m):
        for tau in range(len(js)):
            term = U[i, tau] * ys[tau]
            if abs(term) <= b:
                r[i] += term
    theta = V_inv_half @ r
    mean = Phi_all @ theta
    Vinv = np.linalg.inv(V)
    var = np.array(
        [K[x, x] - f @ f + LAM * f @ Vinv @ f for x, f in enumerate(Phi_all)]
    )
    return mean, var


def test_ata_matches_dense_reimplementation():
    p = _problem(n=10, T=50, moment=6.0)
    rng = np.random.default_rng(4)
    js, ys = _history(rng, 10, 30, scale=3.0)
    learner = ATAGPUCB(q=0.8).start(p, np.random.default_rng(5))
    for j, y in zip(js, ys):
        learner.update(int(j), float(y))
    D = learner.dictionary
    assert 0 < D.size < len(np.unique(js))  # q < ∞: a real subset
    b = learner.b
    m = len(D)
    b_expected = math.sqrt(6.0 / math.log(4 * m * 50 / 0.1))
    assert b == pytest.approx(b_expected)
    mean, var = dense_ata(p.K, js, ys, D, b)
    np.testing.assert_allclose(learner.mean, mean, atol=1e-7)
    np.testing.assert_allclose(learner.var, var, atol=1e-7)
    # The truncation binds for some (direction, report) pairs here.
    full_mean, _ = dense_ata(p.K, js, ys, D, np.inf)
    assert not np.allclose(full_mean, mean)
    beta = 1.0 * (1 + 1 / math.sqrt(0.9)) + 4 * math.sqrt(m) * math.sqrt(
        6.0 * math.log(4 * m * 50 / 0.1)
    )
    assert learner.beta == pytest.approx(beta)


# ---------------------------------------------------------------------------
# A3: median of means
# ---------------------------------------------------------------------------
def brute_median_of_means(Theta, V):
    k = Theta.shape[1]
    r = []
    for j in range(k):
        d = [
            math.sqrt((Theta[:, j] - Theta[:, s]) @ V @ (Theta[:, j] - Theta[:, s]))
            for s in range(k)
            if s != j
        ]
        r.append(float(np.median(d)))
    return int(np.argmin(r)), r


def test_median_of_means_selection_matches_brute_force():
    rng = np.random.default_rng(9)
    for _ in range(20):
        m, k = 4, 7
        A = rng.normal(size=(m, m))
        V = A @ A.T + np.eye(m)
        Theta = rng.normal(size=(m, k))
        Theta[:, 2] += 50.0  # an outlying group is never selected
        j, _ = brute_median_of_means(Theta, V)
        assert median_of_means_index(Theta, V) == j != 2


def test_moma_matches_dense_reimplementation():
    k, T = 5, 60
    p = _problem(n=10, T=T, moment=6.0)
    learner = MoMAGPUCB(n_groups=k, q=0.8).start(p, np.random.default_rng(1))
    rng = np.random.default_rng(2)
    epochs, Y = [], []
    for t in range(T):
        j = learner.propose()
        y = float(rng.laplace(0, 3.0))
        if t < (T // k) * k:
            if t % k == 0:
                epochs.append(j)
                Y.append([])
            assert j == epochs[-1]  # the same point for the whole epoch
            Y[-1].append(y)
        else:
            assert j == epochs[-1]  # the tail replays x_N
        learner.update(j, y)
    Y = np.asarray(Y)
    D = learner.dictionary
    assert 0 < D.size < len(set(epochs))
    half_pinv = np.linalg.pinv(np.real(scipy.linalg.sqrtm(p.K[np.ix_(D, D)])))
    Phi_ref = p.K[:, D] @ half_pinv
    Phi = Phi_ref[epochs]  # N × m, one row per epoch
    V = Phi.T @ Phi + LAM * np.eye(len(D))
    Theta = np.linalg.solve(V, Phi.T @ Y)  # m × k
    j_star, _ = brute_median_of_means(Theta, V)
    assert learner.best_group == j_star
    np.testing.assert_allclose(learner.mean, Phi_ref @ Theta[:, j_star], atol=1e-7)
    m = len(D)
    beta = 3 * (math.sqrt(9 * m * 6.0) + 1.0 * (1 + 1 / math.sqrt(0.9)))
    assert learner.beta == pytest.approx(beta)


def test_moma_theory_groups_and_refusal():
    algo = MoMAGPUCB(n_groups="theory", delta=0.1)
    assert algo.groups(10_000) == math.ceil(24 * math.log(math.exp(0.125) * 1e5))
    with pytest.raises(ValueError, match="n_groups <= n_calls"):
        algo.start(_problem(T=50), np.random.default_rng(0))


@pytest.mark.parametrize(
    "make",
    [
        lambda: TGPUCB(delta=0.0),
        lambda: ATAGPUCB(nystrom_accuracy=1.0),
        lambda: MoMAGPUCB(n_groups=1),
        lambda: GPUCB(beta_scale=-1.0),
        lambda: ATAGPUCB(q="huge"),
    ],
)
def test_bad_algorithm_parameters(make):
    with pytest.raises(ValueError):
        make()
