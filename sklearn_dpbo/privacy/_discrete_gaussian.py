"""The exact discrete Gaussian, and a vector release on a public grid.

N_ℤ(0, σ²) is the law on ℤ with P[Y = y] ∝ exp(−y²/(2σ²)) (Canonne,
Kamath & Steinke, "The Discrete Gaussian for Differential Privacy", NeurIPS
2020: CKS20). :func:`sample_discrete_gaussian` is their Algorithm 3 with
integer and :class:`fractions.Fraction` arithmetic only: t = ⌊σ⌋ + 1;
draw Y ~ Lap_ℤ(t) (P ∝ e^{−|y|/t}, ``_samplers``' exact CKS20 Algorithm 2)
and accept it with probability exp(−(|Y| − σ²/t)²/(2σ²)) (CKS20 Algorithm
1, exact Bernoulli(exp(−a/b)) on integers); the accepted Y is exactly
N_ℤ(0, σ²) (CKS20, Theorem 23 / Section 5.3).

**Privacy of a vector on a grid** (:func:`gaussian_on_grid`). A vector v ∈
ℝ^d whose change between neighbours has ‖v − v′‖₂ ≤ Δ is rounded
coordinate-wise to the nearest multiple of a public step h (u = round(v/h)
∈ ℤ^d), and independent N_ℤ(0, (σ/h)²) noise is added to each coordinate.
Each rounding moves a coordinate by at most h/2, so ‖u − u′‖₂ ≤ Δ/h +
√d·(2·½) = (Δ + √d·h)/h =: D. For integer shifts μ, N_ℤ(μ, s²) and N_ℤ(0,
s²) have D_λ ≤ λμ²/(2s²) for every λ > 1 (CKS20, Proposition 5: the same
as the continuous Gaussian), and the Rényi divergence of product laws is
the sum over coordinates, so the release is (λ, λ D²/(2(σ/h)²))-RDP for
every λ: **ρ-zCDP with ρ = (Δ + √d·h)²/(2σ²)** (:func:`grid_rho`). This is
the multivariate statement of CKS20, Theorem 14 (zCDP part) with the
rounding's √d·h added to the sensitivity; it is not tightened. The release
h·(u + Z) is an exact multiple of h: its low-order bits carry nothing.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from ._samplers import (
    RandomSource,
    _bernoulli_exp_ratio,
    _discrete_laplace,
    _ratio,
    granularity_exponent,
)


def sample_discrete_gaussian(sigma2, rng: RandomSource) -> int:
    """Exact Y ~ N_ℤ(0, σ²) for a rational σ² > 0 (CKS20, Algorithm 3)."""
    s2 = Fraction(sigma2)
    if s2 <= 0:
        raise ValueError("sigma2 must be > 0.")
    p, q = s2.numerator, s2.denominator  # σ² = p/q
    t = math.isqrt(p // q) + 1  # ⌊σ⌋ + 1 (⌊√⌊x⌋⌋ = ⌊√x⌋)
    b = 2 * p * q * t * t
    while True:
        y = _discrete_laplace(t, 1, rng)
        # (|y| − σ²/t)²/(2σ²) = (|y| t q − p)² / (2 p q t²)
        if _bernoulli_exp_ratio((abs(y) * t * q - p) ** 2, b, rng):
            return y


def grid_step(sigma: float) -> float:
    """The public grid step h = 2^k ≤ σ/2^20 (``_samplers.granularity_exponent``)."""
    return 2.0 ** granularity_exponent(sigma)


def grid_rho(sensitivity: float, sigma: float, d: int, step: float) -> float:
    """ρ = (Δ + √d·h)²/(2σ²): zCDP of :func:`gaussian_on_grid` (module docstring)."""
    return (float(sensitivity) + math.sqrt(int(d)) * float(step)) ** 2 / (
        2.0 * float(sigma) ** 2
    )


def gaussian_on_grid(values, sigma: float, step: float, rng: RandomSource):
    """h·(round(v/h) + Z), Z_j ~ N_ℤ(0, (σ/h)²) i.i.d.: floats on the grid hℤ.

    ``step`` h must be a power of two (a float's exact ratio) and public;
    the rounding (ties to even) and the noise are exact integer arithmetic,
    and each output is the exact multiple of h rounded once to a float.
    Non-finite inputs are refused (the caller's values are bounded).
    """
    v = np.asarray(values, dtype=float)
    if not np.isfinite(v).all():
        raise ValueError("values must be finite.")
    hp, hq = _ratio(step)
    sp, sq = _ratio(sigma)
    s2 = Fraction(sp * hq, sq * hp) ** 2  # (σ/h)², exact
    out = np.empty(v.shape)
    for j, x in enumerate(v.ravel()):
        xp, xq = _ratio(x)
        n = round(Fraction(xp * hq, xq * hp))  # ties to even, exact
        out.flat[j] = float(Fraction(hp, hq) * (n + sample_discrete_gaussian(s2, rng)))
    return out
