"""Random stopping (Papernot & Steinke, ICLR 2022; Liu & Talwar, STOC 2019).

K ~ the truncated negative binomial D_{η,γ} on {1, 2, …} (Papernot &
Steinke, Definition 1): for η ≠ 0

    P[K = k] = (1 − γ)^k Π_{ℓ=0}^{k−1} (ℓ + η)/(ℓ + 1) / (γ^(−η) − 1),

for η = 0 (logarithmic) P[K = k] = (1 − γ)^k / (k log(1/γ)); η = 1 is
geometric. Means: η(1 − γ)/(γ(1 − γ^η)), and (1/γ − 1)/log(1/γ) for η = 0.
Running an ε₀-DP run K times and releasing the best costs (2 + η)ε₀ (pure
DP: the order → ∞ limit of their Theorem 2; Liu & Talwar's 3ε₀ for η = 1).

A cap K_max (min(K, K_max)) differs from the uncapped mechanism only when
K > K_max: (ε, (1 + e^ε)·P[K > K_max])-DP; the float inverse-CDF sampler
adds at most K_max²·2⁻⁵⁰ (cumulative sums of K_max float terms) to δ.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import gammaln

from ...privacy._samplers import _uniform_open, as_random_source

DISTRIBUTIONS = {"logarithmic": 0.0, "negative-binomial": 0.5, "geometric": 1.0}
"""Name → shape η."""


def cost_factor(eta: float) -> float:
    """ε / ε₀ = 2 + η."""
    return 2.0 + float(eta)


def log_pmf(k, eta: float, gamma: float) -> np.ndarray:
    """log P[K = k] for integer k ≥ 1 (vectorised)."""
    k = np.asarray(k, dtype=float)
    if eta == 0:
        return k * math.log1p(-gamma) - np.log(k) - math.log(-math.log(gamma))
    log_norm, lg = math.log(math.expm1(-eta * math.log(gamma))), gammaln
    return k * math.log1p(-gamma) + lg(k + eta) - lg(eta) - lg(k + 1) - log_norm


def mean_of(eta: float, gamma: float) -> float:
    """E[K] in closed form."""
    if gamma == 1:
        return 1.0
    if eta == 0:
        return (1.0 / gamma - 1.0) / math.log(1.0 / gamma)
    return eta * (1.0 - gamma) / (gamma * (1.0 - gamma**eta))


def gamma_for_mean(eta: float, mean: float) -> float:
    """γ with E[K] = ``mean`` ≥ 1 (bisection; E[K] decreases in γ)."""
    if mean == 1:
        return 1.0
    lo, hi = 1e-12, 1.0
    for _ in range(200):
        mid = (lo + hi) / 2
        if mean_of(eta, mid) > mean:
            lo = mid
        else:
            hi = mid
    return hi


def tail_probability(cap: int, eta: float, gamma: float) -> float:
    """An upper bound on P[K > cap]: the pmf summed until its terms are 1e-20 of
    the sum, the rest bounded by a geometric series of ratio 1 − γ (η ≤ 1)."""
    if gamma >= 1:
        return 0.0
    total, k = 0.0, cap + 1
    r = 1.0 - gamma
    while True:
        block = np.exp(log_pmf(np.arange(k, k + 1000), eta, gamma))
        total += float(block.sum())
        k += 1000
        if block[-1] <= 1e-20 * max(total, 1e-300):
            return (total + float(block[-1]) * r / (1 - r)) * (1 + 1e-12)


def added_delta(cap: int, eta: float, gamma: float, epsilon: float) -> float:
    """(1 + e^ε)(P[K > cap] + cap²·2⁻⁵⁰): δ of the capped, float-sampled K
    (γ < 1; inf where e^ε overflows)."""
    scale = 1.0 + (math.exp(epsilon) if epsilon < 709.0 else math.inf)
    return scale * (tail_probability(cap, eta, gamma) + cap * cap * 2.0**-50)


def cap_for_delta(eta: float, gamma: float, epsilon: float, delta: float) -> int:
    """The smallest K_max whose :func:`added_delta` is ≤ ``delta`` > 0.

    added_delta is convex in the cap: its forward difference (1 + e^ε)·
    ((2c + 1)·2⁻⁵⁰ − P[K = c + 1]) increases in c, as P[K = k] does not
    (P[K = k + 1]/P[K = k] = (1 − γ)(k + η)/(k + 1) ≤ 1 for η ≤ 1). Its
    minimum c* is the first c whose difference is ≥ 0 (bisection in [1,
    2^24]); no cap fits if added_delta(c*) > δ, else the smallest fits on
    [1, c*], where added_delta does not increase (bisection). γ < 1.
    """
    lo, hi = 1, 2**24
    while lo < hi:  # c*: the first c with added_delta(c + 1) >= added_delta(c)
        mid = (lo + hi) // 2
        if math.exp(float(log_pmf(mid + 1, eta, gamma))) <= (2 * mid + 1) * 2.0**-50:
            hi = mid
        else:
            lo = mid + 1
    if not added_delta(hi, eta, gamma, epsilon) <= delta:
        raise ValueError(
            f"no cap on the number of runs keeps the added delta (the tail "
            f"P[K > cap] plus the sampler's cap^2 * 2^-50, times 1 + e^eps) "
            f"below {delta:g}; use a smaller mean number of runs, a larger "
            "delta, or a law with a lighter tail "
            "(distribution='negative-binomial' or 'geometric')."
        )
    lo = 1
    while lo < hi:
        mid = (lo + hi) // 2
        if added_delta(mid, eta, gamma, epsilon) <= delta:
            hi = mid
        else:
            lo = mid + 1
    return hi


def sample_runs(eta: float, gamma: float, cap: int, rng) -> int:
    """min(K, cap) by inverse CDF on a 53-bit uniform from the noise source
    (γ = 1 is K = 1, a uniform drawn anyway)."""
    u = float(_uniform_open(1, as_random_source(rng))[0])
    if gamma >= 1:
        return 1
    cdf = np.cumsum(np.exp(log_pmf(np.arange(1, cap + 1), eta, gamma)))
    k = int(np.searchsorted(cdf, u, side="left")) + 1
    return min(k, cap)
