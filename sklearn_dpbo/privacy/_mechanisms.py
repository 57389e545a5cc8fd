"""Differential-privacy primitives: selection and additive noise.

Every sampler is exact (rational arithmetic, CKS20 Bernoulli(exp(−γ))
coins, discrete Laplace on a public 2^k grid), draws from the OS CSPRNG when
``rng=None``, validates its privacy parameters itself and never raises with
data in the message.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import logsumexp

from ._samplers import _bernoulli_exp_ratio, as_random_source, laplace_on_grid
from ._validation import check_epsilon


def _check_selection_inputs(
    utilities, epsilon, sensitivity, owner: str
) -> tuple[np.ndarray, float, float]:
    """(u, ε, Δ) of a selection, checked in that order (static messages)."""
    u = np.asarray(utilities, dtype=float)
    if u.ndim != 1 or u.size == 0:
        raise ValueError("utilities must be a non-empty 1-D array.")
    if not np.isfinite(u).all():
        raise ValueError("utilities must be finite (clip them before selection).")
    eps = check_epsilon(epsilon, owner=owner)
    s = float(sensitivity)
    if not math.isfinite(s) or s <= 0:
        raise ValueError(f"sensitivity must be finite and > 0; got {s!r}.")
    return u, eps, s


def exponential_mechanism_log_probabilities(
    utilities, epsilon: float, sensitivity: float
) -> np.ndarray:
    """log Pr[i] = ε u_i / (2Δ) − logsumexp_j(ε u_j / (2Δ)) (never NaN)."""
    u, eps, delta_u = _check_selection_inputs(
        utilities, epsilon, sensitivity, "exponential_mechanism_log_probabilities"
    )
    logits = (eps / (2.0 * delta_u)) * (u - u.max())
    return logits - logsumexp(logits)


def _exact_gammas(u: np.ndarray, epsilon: float, sensitivity: float):
    """γ_i = ε (u* − u_i) / (2Δ) as an exact ratio of integers (a_i, b_i), lazily."""
    en, ed = float(epsilon).as_integer_ratio()
    sn, sd = float(sensitivity).as_integer_ratio()
    fn, fd = en * sd, 2 * ed * sn  # ε / (2Δ)
    values = u.tolist()  # Python floats
    tn, td = max(values).as_integer_ratio()  # u is finite: max(values) = u.max()
    cache: dict[int, tuple[int, int]] = {}

    def gamma(i: int) -> tuple[int, int]:
        g = cache.get(i)
        if g is None:
            xn, xd = values[i].as_integer_ratio()
            g = cache[i] = (fn * (tn * xd - xn * td), fd * td * xd)
        return g

    return gamma


def exponential_mechanism(
    utilities, epsilon: float, sensitivity: float, rng=None
) -> int:
    """Sample an index with Pr[i] ∝ exp(ε u_i / (2Δ)), exactly.

    Rejection sampling in log space: propose i uniformly, accept with an
    exact Bernoulli(exp(−γ_i)), γ_i = ε (u* − u_i)/(2Δ) ≥ 0 a rational
    (CKS20 Algorithm 1). The accepted index has probability exactly
    ∝ exp(−γ_i); nothing underflows. Expected proposals: K / Σ exp(−γ_i) ≤ K.

    Notes
    -----
    Privacy: ε-DP if ‖u − u'‖∞ ≤ Δ between neighbours (McSherry & Talwar
    2007, Theorem 6; the factor 2 covers utilities moving in opposite
    directions).
    """
    u, eps, delta_u = _check_selection_inputs(
        utilities, epsilon, sensitivity, "exponential_mechanism"
    )
    source = as_random_source(rng)
    gamma = _exact_gammas(u, eps, delta_u)
    k = u.size
    while True:
        i = source.randrange(k)
        if _bernoulli_exp_ratio(*gamma(i), source):
            return int(i)


def permute_and_flip(utilities, epsilon: float, sensitivity: float, rng=None) -> int:
    """Permute-and-flip selection (McKenna & Sheldon 2020, Algorithm 1), exactly.

    Visit the candidates in a uniformly random order (lazy Fisher–Yates) and
    stop at the first r whose exact coin Bernoulli(exp(−γ_r)), γ_r = ε (u* −
    u_r)/(2Δ), lands heads (CKS20 Algorithm 1); the best candidate always stops.

    Notes
    -----
    Privacy: ε-DP under ‖u − u'‖∞ ≤ Δ (McKenna & Sheldon 2020, Theorem 1);
    expected utility never below the exponential mechanism's (Theorem 2).
    """
    u, eps, delta_u = _check_selection_inputs(
        utilities, epsilon, sensitivity, "permute_and_flip"
    )
    source = as_random_source(rng)
    gamma = _exact_gammas(u, eps, delta_u)
    k = u.size
    swapped: dict[int, int] = {}  # sparse Fisher–Yates state
    for r in range(k):
        j = r + source.randrange(k - r)
        pick = swapped.get(j, j)
        swapped[j] = swapped.get(r, r)
        if _bernoulli_exp_ratio(*gamma(pick), source):
            return int(pick)
    # Unreachable: the maximiser has γ = 0 and its coin is always heads.
    raise AssertionError("permute-and-flip visited every candidate")  # noqa


def permute_and_flip_probabilities(
    utilities, epsilon: float, sensitivity: float
) -> np.ndarray:
    """Exact output distribution of :func:`permute_and_flip`.

    With q_j = exp(ε (u_j − u*) / (2Δ)) ∈ (0, 1],

        Pr[i] = q_i ∫₀¹ Π_{j≠i} (1 − q_j z) dz,

    (report-noisy-max with Exp(1) noise on u/(2Δ/ε), substituting
    z = exp(u*/s − x)). The integrand is a polynomial of degree K − 1, so
    Gauss–Legendre quadrature with ⌈K/2⌉ + 1 nodes is exact up to rounding.
    """
    u, eps, delta_u = _check_selection_inputs(
        utilities, epsilon, sensitivity, "permute_and_flip_probabilities"
    )
    q = np.exp((eps / (2.0 * delta_u)) * (u - u.max()))
    nodes, weights = np.polynomial.legendre.leggauss(u.size // 2 + 2)
    z = 0.5 * (nodes + 1.0)  # map [-1, 1] -> [0, 1]
    w = 0.5 * weights
    log_terms = np.log1p(-np.outer(q, z))  # (K, n_nodes), finite since z < 1
    total = log_terms.sum(axis=0)
    return q * (np.exp(total[None, :] - log_terms) @ w)


def laplace_mechanism(
    value: float, sensitivity: float, epsilon: float, rng=None
) -> float:
    """ε-DP release of ``value`` (sensitivity Δ): Laplace noise on a public 2^k grid.

    :func:`~._samplers.laplace_on_grid` at (Δ, ε), k = ⌊log2(Δ/ε)⌋ − 20.

    Notes
    -----
    Privacy: values at most Δ apart round to grid points at most Δ/2^k + 1
    steps apart, so the privacy loss is at most (Δ/2^k + 1) · ε 2^k/(Δ + 2^k)
    = ε (the Laplace mechanism on ℤ, Dwork et al. 2006). The grid's 2^k is
    added to Δ, not to Δ/ε: noise of scale Δ/ε + 2^k would lose
    (Δ + 2^k)/(Δ + ε 2^k) · ε > ε when ε < 1.
    """
    s = float(sensitivity)
    if not math.isfinite(s) or s <= 0:
        raise ValueError(f"sensitivity must be finite and > 0; got {s!r}.")
    eps = check_epsilon(epsilon, owner="laplace_mechanism")
    return laplace_on_grid(float(value), s, eps, as_random_source(rng))[0]
