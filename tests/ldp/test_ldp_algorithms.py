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
    algo = TGPUCB(delta=0.1, width="theory")
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
    learner = GPUCB(delta=0.1, width="theory").start(p, np.random.default_rng(0))
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
    learner = ATAGPUCB(q=0.8, width="theory").start(p, np.random.default_rng(5))
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
    algo = MoMAGPUCB(n_groups=k, q=0.8, width="theory")
    learner = algo.start(p, np.random.default_rng(1))
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


# ---------------------------------------------------------------------------
# Widths, dictionary rate and groups: "practical", "theory" or a number
# ---------------------------------------------------------------------------
def _feed(algo, p, n=40, seed=0):
    learner = algo.start(p, np.random.default_rng(1))
    js, ys = _history(np.random.default_rng(seed), p.K.shape[0], n)
    for j, y in zip(js, ys):
        learner.update(int(j), float(y))
    return learner


@pytest.mark.parametrize(
    "cls, extra",
    [
        (TGPUCB, {}),
        (GPUCB, {}),
        (ATAGPUCB, {"q": 0.8}),
        (MoMAGPUCB, {"q": 0.8, "n_groups": 4}),
    ],
)
def test_width_is_a_multiple_of_the_theory_width(cls, extra):
    # Same history and public rng: only β differs, by the stated factor;
    # the posterior mean and variance are untouched by the width.
    p = _problem(n=12, T=60)
    theory = _feed(cls(width="theory", **extra), p)
    for width, c in [("practical", cls.practical_width), (0.37, 0.37)]:
        other = _feed(cls(width=width, **extra), p)
        assert other.beta == pytest.approx(c * theory.beta, rel=1e-12)
        np.testing.assert_array_equal(other.mean, theory.mean)
        np.testing.assert_array_equal(other.var, theory.var)
    assert cls().width == "practical"  # the default


def test_practical_constants_are_the_documented_ones():
    # docs/local_dp.md quotes these; the benchmark's --select chose them.
    assert TGPUCB.practical_width == 0.01
    assert TGPUCB().truncation == "theory"  # κ = 1 was measured, not adopted
    assert ATAGPUCB.practical_width == 0.01
    assert MoMAGPUCB.practical_width == 0.002
    assert GPUCB.practical_width == 1.0


def test_practical_dictionary_rate_and_groups():
    T, delta = 10_000, 0.1
    ata = ATAGPUCB().settings(T)
    assert ata.q == pytest.approx(math.log(T) / 0.1**2)  # ≈ 921 [B code]
    theory_q = ATAGPUCB(q="theory").settings(T).q
    assert theory_q == pytest.approx(6 * (1.1 / 0.9) * math.log(4 * T / delta) / 0.01)
    # k = min(⌈ln(e^{1/8} T/δ)⌉, T): ln(e^{1/8}·10^5) = 11.64 → 12.
    assert MoMAGPUCB().groups(T) == 12
    assert MoMAGPUCB().groups(300) == math.ceil(0.125 + math.log(3000))  # 9
    assert MoMAGPUCB().groups(3) == 3  # capped at the horizon
    assert MoMAGPUCB(n_groups="theory").groups(T) == math.ceil(
        24 * (0.125 + math.log(T / delta))
    )
    assert MoMAGPUCB(n_groups=7).groups(T) == 7


def test_moma_with_a_single_group_runs():
    # T = 1: the practical k is 1 (capped at T); the median of no other
    # group is not needed.
    p = _problem(n=5, T=1)
    learner = MoMAGPUCB().start(p, np.random.default_rng(0))
    assert learner.k == 1
    learner.update(learner.propose(), 0.3)
    assert learner.epoch == 1


def test_parameters_are_stored_untouched_and_validated_at_start():
    algo = TGPUCB(delta="0.1", width="wide")  # no error: stored as given
    assert algo.delta == "0.1" and algo.width == "wide"
    assert repr(algo) == "TGPUCB(delta='0.1', width='wide', truncation='theory')"
    with pytest.raises(ValueError, match="delta"):
        algo.start(_problem(), np.random.default_rng(0))


@pytest.mark.parametrize(
    "make, match",
    [
        (lambda: TGPUCB(delta=0.0), "delta"),
        (lambda: TGPUCB(delta=True), "delta"),
        (lambda: TGPUCB(width="wide"), "width"),
        (lambda: TGPUCB(width=0.0), "width"),
        (lambda: TGPUCB(truncation="practical"), "truncation"),
        (lambda: TGPUCB(truncation=0.0), "truncation"),
        (lambda: TGPUCB(truncation=float("inf")), "truncation"),
        (lambda: TGPUCB(truncation=True), "truncation"),
        (lambda: GPUCB(width=-1.0), "width"),
        (lambda: GPUCB(width=float("nan")), "width"),
        (lambda: GPUCB(width=float("inf")), "width"),
        (lambda: GPUCB(width=True), "width"),
        (lambda: ATAGPUCB(nystrom_accuracy=1.0), "nystrom_accuracy"),
        (lambda: ATAGPUCB(q="huge"), "q must"),
        (lambda: ATAGPUCB(q=0.0), "q must"),
        (lambda: MoMAGPUCB(n_groups=1), "n_groups"),
        (lambda: MoMAGPUCB(n_groups=True), "n_groups"),
        (lambda: MoMAGPUCB(n_groups="many"), "n_groups"),
        (lambda: MoMAGPUCB(width="theory!"), "width"),
    ],
)
def test_bad_algorithm_parameters(make, match):
    algo = make()  # constructors only store
    with pytest.raises(ValueError, match=match):
        algo.start(_problem(), np.random.default_rng(0))
