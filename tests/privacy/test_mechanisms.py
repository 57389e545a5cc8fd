"""Tests of the DP primitives in ``sklearn_dpbo.privacy._mechanisms``.

- P1 (TESTING.md): distribution tests at α = 1e-6 that must also reject a
  wrong ε or a wrong Laplace scale.
- P2: exact privacy-ratio checks on the analytic output distributions.
- P9: numerical robustness of the selection mechanisms.
- Bad inputs raise, and the messages carry no utility value.
"""

from __future__ import annotations

import math
import random
from fractions import Fraction

import numpy as np
import pytest
from _stats import (
    ALPHA,
    chi_square_pvalue,
    draw_counts,
    ks_pvalue,
    permute_and_flip_bruteforce,
    softmax_probabilities,
)
from scipy import stats

from sklearn_dpbo.privacy import _mechanisms
from sklearn_dpbo.privacy._mechanisms import (
    exponential_mechanism,
    exponential_mechanism_log_probabilities,
    laplace_mechanism,
    permute_and_flip,
    permute_and_flip_probabilities,
)
from sklearn_dpbo.privacy._samplers import _grid_constants

SELECTORS = [exponential_mechanism, permute_and_flip]


def em_probabilities(u, epsilon, sensitivity):
    return np.exp(exponential_mechanism_log_probabilities(u, epsilon, sensitivity))


PROBABILITIES = {
    "exponential": em_probabilities,
    "permute-and-flip": permute_and_flip_probabilities,
}


# ---------------------------------------------------------------------------
# The statistical helpers themselves (H5: test the tester)
# ---------------------------------------------------------------------------
def test_chi_square_helper_known_answer():
    # Hand example: counts (30, 70) against (0.5, 0.5): statistic
    # (30-50)²/50 + (70-50)²/50 = 16, one degree of freedom.
    p = chi_square_pvalue([30, 70], [0.5, 0.5])
    assert p == pytest.approx(stats.chi2.sf(16.0, 1), rel=1e-12)
    assert chi_square_pvalue([50, 50], [0.5, 0.5]) == pytest.approx(1.0)
    # An outcome of probability 0 that occurred is an immediate rejection.
    assert chi_square_pvalue([10, 90, 1], [0.1, 0.9, 0.0]) == 0.0
    with pytest.raises(AssertionError):
        chi_square_pvalue([1, 2], [0.5, 0.5])  # expected counts < 5


def test_bruteforce_helper_known_answer():
    # K = 2 with q = (1, q0): the second candidate wins only when visited
    # first and its coin lands heads: Pr = ½ q0.
    q0 = math.exp(-0.5)
    p = permute_and_flip_bruteforce([1.0, 0.0], 1.0, 1.0)
    assert p[1] == pytest.approx(0.5 * q0, abs=1e-15)
    assert p[0] == pytest.approx(1.0 - 0.5 * q0, abs=1e-15)


# ---------------------------------------------------------------------------
# Exact distributions
# ---------------------------------------------------------------------------
def test_em_log_probabilities_hand_values():
    # u = (0, 1, 2), ε = 2, Δ = 1: weights exp(u) = (1, e, e²).
    logp = exponential_mechanism_log_probabilities([0.0, 1.0, 2.0], 2.0, 1.0)
    z = 1.0 + math.e + math.e**2
    expected = [math.log(1.0 / z), math.log(math.e / z), math.log(math.e**2 / z)]
    np.testing.assert_allclose(logp, expected, rtol=0, atol=1e-14)


@pytest.mark.parametrize("k", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("seed", range(4))
def test_pf_probabilities_equal_bruteforce(k, seed):
    rng = np.random.default_rng(seed)
    u = rng.normal(size=k) * 2.0
    if seed == 3 and k > 1:
        u[1] = u[0]  # ties
    eps, sens = float(rng.uniform(0.1, 4.0)), float(rng.uniform(0.2, 2.0))
    exact = permute_and_flip_bruteforce(u, eps, sens)
    got = permute_and_flip_probabilities(u, eps, sens)
    np.testing.assert_allclose(got, exact, rtol=0, atol=1e-12)
    assert got.sum() == pytest.approx(1.0, abs=1e-12)


def test_pf_probabilities_hand_values_k2():
    # u = (0, -2), ε = 1, Δ = 1: q = (1, e^{-1}); Pr[1] = ½ e^{-1}.
    p = permute_and_flip_probabilities([0.0, -2.0], 1.0, 1.0)
    np.testing.assert_allclose(p, [1 - 0.5 / math.e, 0.5 / math.e], atol=1e-15)


def test_pf_beats_em_on_expected_utility():
    # McKenna & Sheldon 2020, Theorem 2: E_PF[u] >= E_EM[u].
    rng = np.random.default_rng(7)
    for _ in range(20):
        u = rng.normal(size=8)
        eps = float(rng.uniform(0.1, 5.0))
        e_pf = permute_and_flip_probabilities(u, eps, 1.0) @ u
        e_em = em_probabilities(u, eps, 1.0) @ u
        assert e_pf >= e_em - 1e-12


# ---------------------------------------------------------------------------
# P1: sampling distributions, with power against a wrong ε / scale
# ---------------------------------------------------------------------------
UTILS = np.array([0.0, 1.0, 2.0, 3.0, 4.0, 5.0])


@pytest.mark.slow
def test_exponential_mechanism_chi_square():
    """Selection counts match exp(ε u / (2Δ)); the test rejects ε×1.3, ε×0.7.

    N = 10⁴ draws (scipy's ``logsumexp`` costs ~0.3 ms per call); the
    wrong-ε alternatives are rejected with p far below α all the same.
    """
    eps, sens, n = 1.6, 1.0, 10_000
    rng = np.random.default_rng(20150706)
    counts = draw_counts(
        lambda: exponential_mechanism(UTILS, eps, sens, rng), UTILS.size, n
    )
    exact = softmax_probabilities(UTILS, eps, sens)
    np.testing.assert_allclose(em_probabilities(UTILS, eps, sens), exact, atol=1e-15)
    assert chi_square_pvalue(counts, exact) > ALPHA
    for factor in (1.3, 0.7):
        wrong = softmax_probabilities(UTILS, eps * factor, sens)
        assert chi_square_pvalue(counts, wrong) < ALPHA, factor


@pytest.mark.slow
def test_permute_and_flip_chi_square():
    eps, sens, n = 1.6, 1.0, 100_000
    rng = random.Random(2020)  # a seeded source (the default is the OS CSPRNG)
    counts = draw_counts(lambda: permute_and_flip(UTILS, eps, sens, rng), 6, n)
    exact = permute_and_flip_probabilities(UTILS, eps, sens)
    assert chi_square_pvalue(counts, exact) > ALPHA
    for factor in (1.3, 0.7):
        wrong = permute_and_flip_probabilities(UTILS, eps * factor, sens)
        assert chi_square_pvalue(counts, wrong) < ALPHA, factor
    # It is not the exponential mechanism either.
    assert chi_square_pvalue(counts, softmax_probabilities(UTILS, eps, sens)) < ALPHA


@pytest.mark.slow
def test_laplace_ks_true_scale_passes_wrong_scales_reject():
    value, sens, eps, n = 3.25, 0.4, 0.5, 100_000
    scale = sens / eps  # the grid adds 2^-21 / eps ≈ 1e-6 to it
    rng = random.Random(1234)  # a seeded source (the default is the OS CSPRNG)
    draws = [laplace_mechanism(value, sens, eps, rng) for _ in range(n)]
    samples = np.array(draws)
    assert ks_pvalue(samples, stats.laplace(loc=value, scale=scale).cdf) > ALPHA
    for factor in (0.7, 1.3):
        wrong = stats.laplace(loc=value, scale=scale * factor).cdf
        assert ks_pvalue(samples, wrong) < ALPHA, factor
    # Centred on the value: a shifted location is rejected too.
    assert ks_pvalue(samples, stats.laplace(loc=value + 0.05, scale=scale).cdf) < ALPHA


def test_selection_uses_the_given_rng():
    u = np.linspace(0.0, 1.0, 50)
    for select in SELECTORS:
        a = [select(u, 1.0, 1.0, np.random.default_rng(s)) for s in range(40)]
        b = [select(u, 1.0, 1.0, np.random.default_rng(s)) for s in range(40)]
        assert a == b
        assert len(set(a)) > 5  # actually randomised, not an argmax
    # The Laplace noise is exact discrete Laplace on a 2^k grid, drawn from
    # the given source: equal seeds give equal draws, other seeds others.
    lap = [
        laplace_mechanism(0.0, 1.0, 1.0, np.random.default_rng(s)) for s in range(20)
    ]
    again = [
        laplace_mechanism(0.0, 1.0, 1.0, np.random.default_rng(s)) for s in range(20)
    ]
    assert lap == again and len(set(lap)) == 20


# ---------------------------------------------------------------------------
# P2: exact privacy-ratio checks
# ---------------------------------------------------------------------------
def _max_log_ratio(probabilities, u, u2, eps, sens):
    p = probabilities(u, eps, sens)
    p2 = probabilities(u2, eps, sens)
    assert np.all(p > 0) and np.all(p2 > 0)
    return float(np.max(np.abs(np.log(p) - np.log(p2))))


def _adversarial_pair(k, sens, gap):
    """u: candidate 0 far below the rest; u': it gains Δ, the others lose Δ."""
    u = np.zeros(k)
    u[0] = -gap
    u2 = u - sens
    u2[0] = u[0] + sens
    return u, u2


@pytest.mark.parametrize("name", sorted(PROBABILITIES))
def test_privacy_ratio_random_neighbours(name):
    probabilities = PROBABILITIES[name]
    rng = np.random.default_rng(11)
    for _ in range(300):
        k = int(rng.integers(1, 12))
        eps = float(rng.choice([0.01, 0.3, 1.0, 3.0]))
        sens = float(rng.choice([1e-3, 0.05, 1.0]))
        u = rng.normal(scale=rng.choice([0.1, 1.0, 10.0]) * sens * 5, size=k)
        shift = rng.uniform(-sens, sens, size=k)
        # Some coordinates move by exactly ±Δ, the worst case.
        extreme = rng.random(k) < 0.5
        shift[extreme] = np.sign(shift[extreme]) * sens
        assert np.max(np.abs(shift)) <= sens
        ratio = _max_log_ratio(probabilities, u, u + shift, eps, sens)
        assert ratio <= eps + 1e-12


@pytest.mark.parametrize("name", sorted(PROBABILITIES))
@pytest.mark.parametrize("eps", [0.1, 1.0, 4.0])
@pytest.mark.parametrize("k", [2, 5, 40])
def test_privacy_ratio_adversarial_neighbours_is_tight(name, eps, k):
    probabilities = PROBABILITIES[name]
    sens = 2.0**-7  # dyadic, so u ± Δ is exact and ‖u − u'‖∞ = Δ exactly
    u, u2 = _adversarial_pair(k, sens, gap=sens * round(60 / eps))
    assert np.max(np.abs(u - u2)) <= sens
    ratio = _max_log_ratio(probabilities, u, u2, eps, sens)
    assert ratio <= eps + 1e-12
    assert ratio > 0.9 * eps  # the check is not vacuous
    # A mechanism calibrated to half the true sensitivity breaks ε.
    assert _max_log_ratio(probabilities, u, u2, eps, sens / 2) > 1.5 * eps


def _grid_loss(sensitivity, epsilon, true_sens):
    """Exact privacy loss of laplace_on_grid(·, sensitivity, epsilon) between a
    value v and a neighbour v' ≤ v + Δ (Δ = true_sens) placed to round
    ⌊Δ/2^k⌋ + 1 grid steps away, the most any pair can (each rounding moves
    ≤ 1/2 step; Δ is not dyadic, so Δ/2^k is no integer): steps · s/t, since
    the noise has Pr[z] ∝ exp(−|z| s/t)."""
    _, tp, tq, t, s, _ = _grid_constants(sensitivity, epsilon, 20)
    h = Fraction(tp, tq)
    d = Fraction(true_sens) / h
    v = float(h * (1 - (d - math.floor(d))) / 2)  # v/h just below 1/2
    v2 = v + true_sens
    while Fraction(v2) - Fraction(v) > Fraction(true_sens):
        v2 = math.nextafter(v2, -math.inf)
    steps = abs(round(Fraction(v2) / h) - round(Fraction(v) / h))  # ties to even
    assert steps == math.floor(d) + 1  # the worst pair
    return steps * Fraction(s, t)


@pytest.mark.parametrize("sens, eps", [(0.7, 0.5), (0.3, 0.1), (0.05, 0.3), (3.3, 2.0)])
def test_laplace_worst_case_loss_is_at_most_epsilon(monkeypatch, sens, eps):
    """The grid's 2^k inflates Δ, not Δ/ε: the exact worst loss is ≤ ε, and
    the call laplace_on_grid(v, Δ/ε, 1) (scale inflated) is caught at ε < 1."""
    calls = []
    real = _mechanisms.laplace_on_grid

    def spy(value, sensitivity, epsilon, rng):
        calls.append((sensitivity, epsilon))
        return real(value, sensitivity, epsilon, rng)

    monkeypatch.setattr(_mechanisms, "laplace_on_grid", spy)
    laplace_mechanism(0.0, sens, eps, random.Random(0))
    loss = _grid_loss(*calls[0], sens)
    assert loss <= Fraction(eps)
    assert loss > Fraction(eps) * (1 - Fraction(1, 10**4))  # the pair is near-worst
    # Power check: the noise scale Δ/ε + 2^k loses (Δ + 2^k)/(Δ + ε 2^k) · ε.
    old = _grid_loss(sens / eps, 1.0, sens)
    assert (old > Fraction(eps)) == (eps < 1), float(old - Fraction(eps))


# ---------------------------------------------------------------------------
# P9: numerical robustness
# ---------------------------------------------------------------------------
def _mp_log_softmax(u, eps, sens):
    import mpmath as mp

    with mp.workdps(60):
        logits = [mp.mpf(eps) * mp.mpf(float(x)) / (2 * mp.mpf(sens)) for x in u]
        m = max(logits)
        lse = m + mp.log(mp.fsum(mp.exp(x - m) for x in logits))
        return np.array([float(x - lse) for x in logits])


ROBUST_UTILS = {
    "tiny-to-huge": np.array([1e-300, 1e-100, 1.0, 1e100, 1e300]),
    "signed-huge": np.array([-1e300, -1.0, 0.0, 5e-324, 1e300]),
    "near-equal": np.array([1.0, 1.0 + 2e-16, 1.0 - 1e-16, 1.0]),
    "ties": np.full(7, 0.3),
    "one": np.array([42.0]),
}


@pytest.mark.parametrize("eps", [1e-6, 1.0, 1e3])
@pytest.mark.parametrize("case", sorted(ROBUST_UTILS))
def test_em_robust_and_exact_log_softmax(case, eps):
    u = ROBUST_UTILS[case]
    logp = exponential_mechanism_log_probabilities(u, eps, 1.0)
    assert not np.any(np.isnan(logp))
    p = np.exp(logp)
    assert math.fsum(p) == pytest.approx(1.0, abs=1e-12)
    ref = _mp_log_softmax(u, eps, 1.0)
    finite = np.isfinite(ref)
    np.testing.assert_allclose(logp[finite], ref[finite], rtol=1e-12, atol=1e-12)
    # Entries whose exact log-probability is below the float range are -inf
    # or hugely negative, never NaN or positive.
    assert np.all(logp[~finite] < -1e300)
    for seed in range(3):
        i = exponential_mechanism(u, eps, 1.0, np.random.default_rng(seed))
        assert 0 <= i < u.size and p[i] > 0


@pytest.mark.parametrize("eps", [1e-6, 1.0, 1e3])
@pytest.mark.parametrize("case", sorted(ROBUST_UTILS))
def test_pf_robust(case, eps):
    u = ROBUST_UTILS[case]
    p = permute_and_flip_probabilities(u, eps, 1.0)
    assert np.all(np.isfinite(p)) and np.all(p >= 0)
    assert p.sum() == pytest.approx(1.0, abs=1e-12)
    for seed in range(3):
        i = permute_and_flip(u, eps, 1.0, np.random.default_rng(seed))
        assert 0 <= i < u.size and p[i] > 0


def test_ties_are_uniform():
    u = np.full(9, -3.0)
    np.testing.assert_allclose(em_probabilities(u, 1.0, 1.0), 1 / 9, rtol=1e-15)
    np.testing.assert_allclose(
        permute_and_flip_probabilities(u, 1.0, 1.0), 1 / 9, rtol=1e-12
    )


def test_k_equal_one():
    for select in SELECTORS:
        assert select([0.5], 1.0, 1.0, np.random.default_rng(0)) == 0
    assert permute_and_flip_probabilities([0.5], 1.0, 1.0)[0] == pytest.approx(1.0)
    assert em_probabilities([0.5], 1.0, 1.0)[0] == 1.0


def test_large_k():
    k = 100_000
    u = np.random.default_rng(5).normal(size=k)
    rng = random.Random(5)
    for eps in (1e-6, 1e3):
        logp = exponential_mechanism_log_probabilities(u, eps, 1.0)
        assert not np.any(np.isnan(logp))
        assert math.fsum(np.exp(logp)) == pytest.approx(1.0, abs=1e-12)
        for select in SELECTORS:
            assert 0 <= select(u, eps, 1.0, rng) < k
    # At ε = 1e3 the selection is (almost surely) the argmax.
    assert exponential_mechanism(u, 1e3, 1e-3, rng) == int(np.argmax(u))
    assert permute_and_flip(u, 1e3, 1e-3, rng) == int(np.argmax(u))
    # The exact permute-and-flip distribution uses O(K) quadrature nodes;
    # check it on the largest size that stays fast.
    p = permute_and_flip_probabilities(u[:300], 1.0, 0.05)
    assert np.all(np.isfinite(p)) and p.sum() == pytest.approx(1.0, abs=1e-10)


@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")
def test_extreme_values_never_nan_in_sampling():
    u = np.array([-1e308, 1e308, 0.0, 1e308])
    for eps in (1e-6, 1e3):
        for select in SELECTORS:
            i = select(u, eps, 1.0, np.random.default_rng(0))
            assert i in (1, 3)  # the others have probability 0 in floats


# ---------------------------------------------------------------------------
# Bad inputs
# ---------------------------------------------------------------------------
SECRET = 0.8123456789


def _all_entry_points():
    rng = np.random.default_rng(0)
    return [
        lambda u, e, s: exponential_mechanism(u, e, s, rng),
        lambda u, e, s: permute_and_flip(u, e, s, rng),
        exponential_mechanism_log_probabilities,
        permute_and_flip_probabilities,
    ]


@pytest.mark.parametrize(
    "bad",
    [
        [SECRET, float("nan")],
        [SECRET, float("inf")],
        [SECRET, -float("inf")],
        [],
        [[SECRET, 0.1]],
    ],
    ids=["nan", "inf", "-inf", "empty", "2d"],
)
def test_bad_utilities_raise_without_values(bad):
    for fn in _all_entry_points():
        with pytest.raises(ValueError) as info:
            fn(bad, 1.0, 1.0)
        assert "8123" not in str(info.value)
        assert "nan" not in str(info.value).lower().replace("finite", "")


@pytest.mark.parametrize("sens", [0.0, -1.0, float("nan"), float("inf")])
def test_bad_sensitivity_raises(sens):
    for fn in _all_entry_points():
        with pytest.raises(ValueError, match="sensitivity") as info:
            fn([SECRET, 0.1], 1.0, sens)
        assert "8123" not in str(info.value)


@pytest.mark.parametrize(
    "eps, exc",
    [
        (0.0, ValueError),
        (-1.0, ValueError),
        (float("nan"), ValueError),
        (float("inf"), ValueError),
        (1e-320, ValueError),
        (True, TypeError),
        (np.bool_(True), TypeError),
        ("1", TypeError),
        (1 + 2j, TypeError),
        (None, TypeError),
    ],
)
def test_bad_epsilon_raises(eps, exc):
    for fn in _all_entry_points():
        with pytest.raises(exc, match="epsilon") as info:
            fn([SECRET, 0.1], eps, 1.0)
        assert "8123" not in str(info.value)


@pytest.mark.parametrize("bad", [0.0, -1.0, float("nan"), float("inf")])
def test_laplace_bad_sensitivity_or_epsilon_raises(bad):
    rng = np.random.default_rng(0)
    for args, name in (((bad, 1.0), "sensitivity"), ((1.0, bad), "epsilon")):
        with pytest.raises(ValueError, match=name) as info:
            laplace_mechanism(SECRET, *args, rng)
        assert "8123" not in str(info.value)
