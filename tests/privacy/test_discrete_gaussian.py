"""The exact discrete Gaussian (privacy/_discrete_gaussian.py), statistically.

N_ℤ(0, σ²) at σ² = 2 against its exact pmf (normalised over |y| ≤ 60,
the rest < 1e-300): a chi-square test on the bins |y| ≤ 5 and a z-test of
the variance (its standard error from the exact fourth moment), both at
α = 1e-6 with a fixed seed. Power check: the same tests reject a sampler
whose variance is 10 % too large (σ² = 2.2), at the same N.
"""

import math
import random
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from sklearn_dpbo.privacy._discrete_gaussian import (
    gaussian_on_grid,
    grid_rho,
    grid_step,
    sample_discrete_gaussian,
)

N = 20_000
SIGMA2 = Fraction(2)
Z_CRIT = stats.norm.isf(1e-6 / 2)


def _pmf(sigma2: float):
    y = np.arange(-60, 61)
    w = np.exp(-(y**2) / (2 * sigma2))
    return y, w / w.sum()


def _rejects(samples, sigma2=float(SIGMA2)) -> bool:
    y, p = _pmf(sigma2)
    var = float(p @ y**2)
    m4 = float(p @ y**4)
    z = (np.mean(np.square(samples)) - var) / math.sqrt((m4 - var**2) / len(samples))
    edges = np.arange(-5, 7) - 0.5  # bins −5, …, 5, plus the two tails
    observed = np.bincount(np.digitize(samples, edges), minlength=len(edges) + 1)
    cdf = np.concatenate([[0], np.cumsum(p)[np.searchsorted(y, edges) - 1], [1]])
    expected = np.diff(cdf) * len(samples)
    chi2 = float(((observed - expected) ** 2 / expected).sum())
    p_chi2 = stats.chi2.sf(chi2, len(expected) - 1)
    return abs(z) > Z_CRIT or p_chi2 < 1e-6


def _draws(sigma2, seed):
    rng = random.Random(seed)
    return np.array([sample_discrete_gaussian(sigma2, rng) for _ in range(N)])


def test_matches_the_exact_pmf():
    assert not _rejects(_draws(SIGMA2, 11))


def test_power_variance_ten_percent_too_large_is_caught():
    assert _rejects(_draws(SIGMA2 * Fraction(11, 10), 11))


def test_large_sigma_on_the_grid():
    """Outputs are exact multiples of h, centred on the rounded value, sd σ."""
    sigma = 3.7
    h = grid_step(sigma)
    assert h == 2.0 ** (math.floor(math.log2(sigma)) - 20)
    rng = random.Random(5)
    v = np.full(3000, 0.123456789)
    out = gaussian_on_grid(v, sigma, h, rng)
    assert np.all(out / h == np.round(out / h))
    assert abs(out.mean() - 0.123456789) < 5 * sigma / math.sqrt(3000)
    assert abs(out.std() / sigma - 1) < 5 * math.sqrt(0.5 / 3000)


def test_grid_rho_hand_value():
    assert grid_rho(2.0, 10.0, 4, 0.5) == pytest.approx((2.0 + 2 * 0.5) ** 2 / 200)


def test_bad_inputs_raise():
    with pytest.raises(ValueError, match="sigma2"):
        sample_discrete_gaussian(0, random.Random(0))
    with pytest.raises(ValueError, match="finite"):
        gaussian_on_grid([np.nan], 1.0, 2.0**-20, random.Random(0))
