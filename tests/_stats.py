"""Shared statistical helpers for the mechanism tests.

Every statistical test in this suite runs at a fixed seed with a per-test
type-I error ``ALPHA = 1e-6`` (OpenDP ``samplers/test.rs``), and also
asserts that it *rejects* a deliberately wrong parameter (Tumult Core's
three-sided ``run_test_using_ks_test``), so a test that cannot fail is
caught.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from scipy import stats

ALPHA = 1e-6


def draw_counts(sampler, n_outcomes: int, n_draws: int) -> np.ndarray:
    """Histogram of ``n_draws`` calls of ``sampler()`` over range(n_outcomes)."""
    draws = np.fromiter((sampler() for _ in range(n_draws)), dtype=int, count=n_draws)
    assert draws.min() >= 0 and draws.max() < n_outcomes
    return np.bincount(draws, minlength=n_outcomes)


def chi_square_pvalue(counts, probabilities) -> float:
    """Pearson chi-square p-value of ``counts`` against ``probabilities``.

    Refuses expected counts below 5 (the chi-square approximation is then
    unreliable, OpenDP ``check_chi_square``). An outcome with probability
    exactly 0 that was observed gives p = 0.
    """
    counts = np.asarray(counts, dtype=float)
    p = np.asarray(probabilities, dtype=float)
    assert abs(p.sum() - 1.0) < 1e-9, "probabilities must sum to 1"
    n = counts.sum()
    if np.any(counts[p == 0] > 0):
        return 0.0
    keep = p > 0
    expected = n * p[keep]
    assert expected.min() >= 5, "expected counts below 5: use more draws"
    return float(stats.chisquare(counts[keep], expected).pvalue)


def ks_pvalue(samples, cdf) -> float:
    """Exact-ish one-sample Kolmogorov-Smirnov p-value (scipy ``kstest``)."""
    return float(stats.kstest(np.asarray(samples, dtype=float), cdf).pvalue)


def permute_and_flip_bruteforce(utilities, epsilon: float, sensitivity: float):
    """Exact distribution of permute-and-flip by enumerating every order.

    For each of the K! visiting orders (probability 1/K! each) the walk
    stops at the r-th visited candidate with probability
    q_r Π_{s<r} (1 − q_s), q = exp(ε (u − max u) / (2Δ)).
    """
    u = np.asarray(utilities, dtype=float)
    k = u.size
    q = [math.exp(epsilon * (x - u.max()) / (2.0 * sensitivity)) for x in u]
    probs = [0.0] * k
    weight = 1.0 / math.factorial(k)
    for order in itertools.permutations(range(k)):
        survive = 1.0
        for i in order:
            probs[i] += weight * survive * q[i]
            survive *= 1.0 - q[i]
    return np.asarray(probs)


def softmax_probabilities(utilities, epsilon: float, sensitivity: float):
    """exp(ε u / (2Δ)) / Σ exp(ε u / (2Δ)), written out independently."""
    u = np.asarray(utilities, dtype=float)
    w = np.exp(epsilon * (u - u.max()) / (2.0 * sensitivity))
    return w / w.sum()
