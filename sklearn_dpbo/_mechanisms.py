"""Differential-privacy primitives: selection and additive noise.

Every function takes the noise generator explicitly, validates its
privacy parameters itself (these checks cannot be switched off by
scikit-learn's configuration), never raises with data in the message and
never returns NaN.

- :func:`exponential_mechanism` (McSherry & Talwar 2007): ε-DP selection,
  Pr[i] ∝ exp(ε u_i / (2Δ)).
- :func:`permute_and_flip` (McKenna & Sheldon 2020): ε-DP selection whose
  expected utility is never worse than the exponential mechanism's.
- :func:`laplace_mechanism`: ε-DP release of a value of sensitivity Δ with
  Laplace(Δ/ε) noise.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import logsumexp

from ._validation import check_epsilon

__all__ = [
    "exponential_mechanism",
    "exponential_mechanism_log_probabilities",
    "permute_and_flip",
    "permute_and_flip_probabilities",
    "laplace_mechanism",
]


def _check_utilities(utilities) -> np.ndarray:
    u = np.asarray(utilities, dtype=float)
    if u.ndim != 1 or u.size == 0:
        raise ValueError("utilities must be a non-empty 1-D array.")
    if not np.all(np.isfinite(u)):
        # Static message: the values themselves are private.
        raise ValueError("utilities must be finite (clip them before selection).")
    return u


def _check_sensitivity(sensitivity) -> float:
    s = float(sensitivity)
    if not math.isfinite(s) or s <= 0:
        raise ValueError(f"sensitivity must be finite and > 0; got {s!r}.")
    return s


def exponential_mechanism_log_probabilities(
    utilities, epsilon: float, sensitivity: float
) -> np.ndarray:
    """log Pr[i] = ε u_i / (2Δ) − logsumexp_j(ε u_j / (2Δ)).

    Computed in log space: never overflows, never NaN, for any finite
    utilities and any ε.
    """
    u = _check_utilities(utilities)
    eps = check_epsilon(epsilon)
    delta_u = _check_sensitivity(sensitivity)
    logits = (eps / (2.0 * delta_u)) * (u - u.max())
    return logits - logsumexp(logits)


def exponential_mechanism(
    utilities, epsilon: float, sensitivity: float, rng: np.random.Generator
) -> int:
    """Sample an index with Pr[i] ∝ exp(ε u_i / (2Δ)).

    Notes
    -----
    Privacy: if every utility changes by at most Δ between neighbouring
    datasets (‖u − u'‖∞ ≤ Δ), the output is ε-DP (McSherry & Talwar 2007,
    Theorem 6). The factor 2 covers utilities that can move in opposite
    directions, as accuracies under a swap of one record do.
    """
    logp = exponential_mechanism_log_probabilities(utilities, epsilon, sensitivity)
    cdf = np.cumsum(np.exp(logp))
    idx = int(np.searchsorted(cdf, rng.random() * cdf[-1], side="right"))
    return min(idx, logp.size - 1)


def permute_and_flip(
    utilities, epsilon: float, sensitivity: float, rng: np.random.Generator
) -> int:
    """Permute-and-flip selection (McKenna & Sheldon 2020, Algorithm 1).

    Visit the candidates in a uniformly random order and stop at the first
    r for which a coin with Pr[heads] = exp(ε (u_r − u*) / (2Δ)) lands
    heads (u* = max u, so the best candidate always stops the walk).

    Notes
    -----
    Privacy: ε-DP under ‖u − u'‖∞ ≤ Δ (McKenna & Sheldon 2020, Theorem 1).
    Its expected utility is never lower than the exponential mechanism's
    (their Theorem 2). It equals report-noisy-max with exponential noise
    (Ding et al. 2021), which :func:`permute_and_flip_probabilities` uses.
    """
    u = _check_utilities(utilities)
    eps = check_epsilon(epsilon)
    delta_u = _check_sensitivity(sensitivity)
    q = np.exp((eps / (2.0 * delta_u)) * (u - u.max()))
    order = rng.permutation(u.size)
    heads = rng.random(u.size) <= q[order]
    # q[order] reaches 1 at the maximiser, so at least one coin is heads.
    return int(order[int(np.argmax(heads))])


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
    u = _check_utilities(utilities)
    eps = check_epsilon(epsilon)
    delta_u = _check_sensitivity(sensitivity)
    q = np.exp((eps / (2.0 * delta_u)) * (u - u.max()))
    n_nodes = u.size // 2 + 2
    nodes, weights = np.polynomial.legendre.leggauss(n_nodes)
    z = 0.5 * (nodes + 1.0)  # map [-1, 1] -> [0, 1]
    w = 0.5 * weights
    log_terms = np.log1p(-np.outer(q, z))  # (K, n_nodes), finite since z < 1
    total = log_terms.sum(axis=0)
    probs = q * (np.exp(total[None, :] - log_terms) @ w)
    return probs


def laplace_mechanism(value: float, scale: float, rng: np.random.Generator) -> float:
    """Return ``value + Laplace(0, scale)``.

    Notes
    -----
    Privacy: ε-DP when ``scale >= Δ/ε`` for a value of global sensitivity
    Δ (Dwork et al. 2006). The noise is drawn with numpy's floating-point
    sampler from the given generator (OS-seeded by default).
    """
    scale = float(scale)
    if not math.isfinite(scale) or scale <= 0:
        raise ValueError(f"scale must be finite and > 0; got {scale!r}.")
    return float(value) + float(rng.laplace(0.0, scale))
