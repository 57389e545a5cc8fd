"""The noise radius of the DP learners: an exact Gamma(d, scale) on a fine lattice.

``_samplers.sample_gamma_on_lattice`` draws each exponential as a CKS20
geometric number of grid steps plus an exact fraction of a step. The
tests compare the draws with Gamma(d, scale) (Kolmogorov–Smirnov, α =
1e-3, fixed seeds) and check that the same test rejects broken variants:
a radius without its fractional parts and a radius with a 10 % larger
scale; the whole-steps part alone is compared with its exact geometric law.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from scipy import stats

from sklearn_dpbo.dp_learners._base import sample_gamma_norm_noise
from sklearn_dpbo.privacy._samplers import sample_gamma_on_lattice

ALPHA = 1e-3
N = 3000


def _radii(d, scale, step, seed, n=N):
    rng = random.Random(seed)
    return np.array([sample_gamma_on_lattice(d, scale, step, rng) for _ in range(n)])


@pytest.mark.parametrize(("d", "step"), [(1, 2.0**-21), (3, 2.0**-21), (3, 1.0)])
def test_radius_is_gamma_d_scale(d, step):
    # scale 1.5: the release grid's step/scale ≈ 2^−20 (the learners' case),
    # and a coarse step = scale/1.5 where the fractional part carries weight.
    r = _radii(d, 1.5, step, seed=d)
    assert stats.kstest(r, stats.gamma(d, scale=1.5).cdf).pvalue > ALPHA


def test_the_whole_steps_are_geometric():
    # d = 1, step = scale: ⌊r/step⌋ ~ Geometric(1 − e^−1) on {0, 1, ...}, exactly.
    r = _radii(1, 1.0, 1.0, seed=5, n=6000)
    g = np.floor(r).astype(int)
    top = 6
    observed = np.bincount(np.minimum(g, top), minlength=top + 1)
    p = (1 - np.exp(-1)) * np.exp(-np.arange(top))
    expected = len(g) * np.append(p, 1 - p.sum())
    assert stats.chisquare(observed, expected).pvalue > ALPHA


def test_power_a_broken_radius_is_rejected():
    # Without the fractional parts the radius is step·ΣG: caught at step = scale.
    r = _radii(3, 1.0, 1.0, seed=7)
    assert stats.kstest(np.floor(r), stats.gamma(3, scale=1.0).cdf).pvalue < ALPHA
    # A 10 % larger scale than declared: caught at the learners' grid.
    r = _radii(3, 1.1, 2.0**-21, seed=8)
    assert stats.kstest(r, stats.gamma(3, scale=1.0).cdf).pvalue < ALPHA


def test_noise_vector_norm_and_direction():
    rng = random.Random(11)
    b = np.array([sample_gamma_norm_noise(3, 2.0, rng) for _ in range(N)])
    norms = np.linalg.norm(b, axis=1)
    assert stats.kstest(norms, stats.gamma(3, scale=2.0).cdf).pvalue > ALPHA
    # a uniform direction: each coordinate of b/‖b‖ is uniform on [−1, 1] in R³
    u = b[:, 0] / norms
    assert stats.kstest(u, stats.uniform(-1, 2).cdf).pvalue > ALPHA


def test_same_seed_same_radius_and_refusals():
    assert _radii(4, 2.0, 2.0**-19, 3, n=5).tolist() == (
        _radii(4, 2.0, 2.0**-19, 3, n=5).tolist()
    )
    with pytest.raises(ValueError):
        sample_gamma_on_lattice(0, 1.0, 1.0, random.Random(0))
    with pytest.raises(ValueError):
        sample_gamma_on_lattice(1, -1.0, 1.0, random.Random(0))
