"""Tests of the acquisition functions (``DPBO.md`` §3-4, TESTING P9)."""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
from scipy import stats

from sklearn_dpbo.bo._acquisition import (
    argmax,
    gp_ucb_beta,
    log_expected_improvement,
    ucb_beta,
    upper_confidence_bound,
)


# ---------------------------------------------------------------------------
# β_t and UCB
# ---------------------------------------------------------------------------
def test_ucb_beta_hand_values():
    # |Λ| = 1024, t = 5, δ = 1e-5: β = 2 log(1024 · 25 · π² / 3e-5).
    assert ucb_beta(5, 1024, 1e-5) == pytest.approx(
        2 * math.log(1024 * 25 * math.pi**2 / 3e-5), rel=1e-15
    )
    assert ucb_beta(5, 1024, 1e-5) == pytest.approx(45.70824115693715, rel=1e-12)
    # t = 1, |Λ| = 1, δ = 0.5: 2 log(π² / 1.5).
    assert ucb_beta(1, 1, 0.5) == pytest.approx(2 * math.log(math.pi**2 / 1.5))
    # Increasing in t, |Λ| and 1/δ.
    assert ucb_beta(6, 1024, 1e-5) > ucb_beta(5, 1024, 1e-5)
    assert ucb_beta(5, 2048, 1e-5) > ucb_beta(5, 1024, 1e-5)
    assert ucb_beta(5, 1024, 1e-6) > ucb_beta(5, 1024, 1e-5)


def test_gp_ucb_beta_hand_values():
    """F9: β_t = 2 log(|Λ| t² π² / δ) (Srinivas et al.'s Lemma 5.1 at δ/6)."""
    # |Λ| = 1024, t = 5, δ = 1e-5: 2 ln(25600 π² / 1e-5) = 2 ln(2.52662e10).
    assert gp_ucb_beta(5, 1024, 1e-5) == pytest.approx(47.90546573427336, rel=1e-12)
    # Srinivas et al. (2010) Theorem 1 form, 2 log(|D| t² π² / (6 δ_S)), at
    # δ_S = δ/6: the same number.
    srinivas = 2 * math.log(1024 * 25 * math.pi**2 / (6 * (1e-5 / 6)))
    assert gp_ucb_beta(5, 1024, 1e-5) == pytest.approx(srinivas, rel=1e-14)
    # Algorithm 1's β_t is 2 log 3 smaller; √β grows by 2 % at the defaults.
    assert gp_ucb_beta(5, 1024, 1e-5) - ucb_beta(5, 1024, 1e-5) == pytest.approx(
        2 * math.log(3), rel=1e-12
    )
    ratio = math.sqrt(gp_ucb_beta(30, 1024, 5e-6) / ucb_beta(30, 1024, 5e-6))
    assert 1.015 < ratio < 1.025


@pytest.mark.parametrize("n, delta", [(1024, 5e-6), (7, 0.1)])
def test_gp_ucb_beta_union_bound_sums_to_a_sixth_of_delta(n, delta):
    """F9: with Pr[|Z| > √β] ≤ e^{−β/2}, Σ_t |Λ| e^{−β_t/2} = δ/6 per dataset.

    Two datasets (V and V') at δ/6 each, plus c and q at δ/3 each, sum to δ.
    Algorithm 1's β_t gives δ/2 per dataset: 1.65δ in total at T = 30.
    """
    N = 10_000
    new = math.fsum(n * math.exp(-gp_ucb_beta(t, n, delta) / 2) for t in range(1, N))
    # Σ_{t ≥ N} 6/(π² t²) ≤ 6/(π² (N − 1)): the rest of the series.
    lower = delta / 6 * (1 - 6 / (math.pi**2 * (N - 1)))
    assert lower <= new <= delta / 6 * (1 + 1e-12)
    assert 2 * new + 2 * delta / 3 <= delta * (1 + 1e-9)
    # Algorithm 1's β_t over the T = 30 steps of the defaults: ≈ 1.647δ.
    old = sum(n * math.exp(-ucb_beta(k, n, delta) / 2) for k in range(1, 31))
    assert 2 * old + 2 * delta / 3 == pytest.approx(1.6467364 * delta, rel=1e-6)


def test_upper_confidence_bound_values():
    mean = np.array([0.0, 1.0, -2.0, 0.5])
    std = np.array([1.0, 0.0, 2.0, 0.25])
    np.testing.assert_allclose(
        upper_confidence_bound(mean, std, 4.0), [2.0, 1.0, 2.0, 1.0], rtol=0, atol=0
    )
    np.testing.assert_allclose(
        upper_confidence_bound(mean, std, 2.25), [1.5, 1.0, 1.0, 0.875]
    )


# ---------------------------------------------------------------------------
# log EI
# ---------------------------------------------------------------------------
def _mp_log_ei(z):
    """log(z Φ(z) + φ(z)) at 80 digits."""
    with mp.workdps(80):
        z = mp.mpf(float(z))
        return float(mp.log(z * mp.ncdf(z) + mp.npdf(z)))


def test_log_ei_matches_direct_closed_form():
    # Where σ (zΦ(z) + φ(z)) has no cancellation to speak of, compare to the
    # textbook formula evaluated directly with scipy.
    rng = np.random.default_rng(0)
    mean = rng.normal(size=500)
    std = rng.uniform(0.2, 2.0, size=500)
    best = 0.3
    z = (mean - best) / std
    keep = z > -4
    direct = np.log(std * (z * stats.norm.cdf(z) + stats.norm.pdf(z)))
    got = log_expected_improvement(mean, std, best)
    np.testing.assert_allclose(got[keep], direct[keep], rtol=1e-12, atol=1e-12)
    assert keep.sum() > 400


def test_log_ei_hand_value_at_z_zero():
    # z = 0: EI = σ φ(0) = σ / √(2π).
    got = log_expected_improvement(np.array([1.0]), np.array([2.0]), 1.0)
    assert got[0] == pytest.approx(math.log(2.0 / math.sqrt(2 * math.pi)), abs=1e-15)


@pytest.mark.parametrize(
    "z",
    [
        8.0,
        2.0,
        0.0,
        -1.0,
        -3.0,
        -5.5,
        -5.999,
        -6.0,
        -6.001,
        -7.0,
        -10.0,
        -20.0,
        -40.0,
        -100.0,
        -199.99,
        -200.0,
        -200.01,
        -500.0,
        -1e4,
    ],
)
def test_log_ei_accurate_against_high_precision(z):
    """log EI to 1e-12 (relative) over the whole tail, incl. branch changes."""
    got = log_expected_improvement(np.array([z]), np.array([1.0]), 0.0)[0]
    ref = _mp_log_ei(z)
    assert got == pytest.approx(ref, rel=1e-12, abs=1e-12)


def test_log_ei_continuous_and_monotone_across_branches():
    z = np.linspace(-12, 2, 20001)
    got = log_expected_improvement(z, np.ones_like(z), 0.0)
    assert np.all(np.isfinite(got))
    assert np.all(np.diff(got) > 0)  # EI increases with the mean
    # d/dz log h(z) = Φ(z)/h(z) is below |z| + 2 for z < 0: no jumps.
    assert np.max(np.abs(np.diff(got))) < 14 * (z[1] - z[0])


def test_log_ei_finite_for_zero_std_and_deep_tail():
    mean = np.array([1.0, 0.5, 0.2, -40.0, -1e6, 0.5])
    std = np.array([0.0, 0.0, 0.0, 1.0, 1.0, 1e-310])
    got = log_expected_improvement(mean, std, 0.5)
    assert np.all(np.isfinite(got)) and not np.any(np.isnan(got))
    assert got[0] == pytest.approx(math.log(0.5))  # σ = 0: log(μ − best)
    assert got[1] == -1e300 and got[2] == -1e300  # σ = 0, no improvement
    # z = -40.5: about -z²/2 - log √(2π) - 2 log|z|.
    assert got[3] == pytest.approx(_mp_log_ei(-40.5), rel=1e-12)
    assert got[3] > got[4]
    # The ranking puts real improvements first.
    assert int(np.argmax(got)) == 0


def test_log_ei_extreme_inputs_never_nan():
    with np.errstate(all="ignore"):
        got = log_expected_improvement(
            np.array([-1e200, 1e200, 0.0, -1.0]),
            np.array([1.0, 1.0, 1e-300, 1e-299]),
            0.0,
        )
    assert not np.any(np.isnan(got))
    assert np.all(got >= -1e300)


# ---------------------------------------------------------------------------
# argmax with public tie-breaks
# ---------------------------------------------------------------------------
def test_argmax_unique_maximum_ignores_tie_break():
    assert argmax(np.array([0.1, 0.9, 0.3]), np.array([0, 1, 2])) == 1
    assert argmax(np.array([0.1, 0.9, 0.3]), np.array([2, 1, 0])) == 1


def test_argmax_ties_use_public_ranks():
    values = np.array([1.0, 3.0, 2.0, 3.0, 3.0, 0.0])
    # Among the tied 1, 3, 4 the smallest rank wins.
    assert argmax(values, np.array([0, 5, 1, 2, 4, 3])) == 3
    assert argmax(values, np.array([0, 1, 2, 3, 4, 5])) == 1
    assert argmax(values, np.array([5, 4, 3, 2, 0, 1])) == 4
    # All tied: the rank-0 candidate.
    ranks = np.random.default_rng(0).permutation(100)
    assert argmax(np.zeros(100), ranks) == int(np.argmin(ranks))


def test_argmax_tie_break_depends_only_on_ranks():
    rng = np.random.default_rng(1)
    ranks = rng.permutation(50)
    for _ in range(20):
        values = rng.integers(0, 3, size=50).astype(float)
        top = np.flatnonzero(values == values.max())
        assert argmax(values, ranks) == top[np.argmin(ranks[top])]
