"""Acquisition functions over the finite candidate set (spec ``DPBO.md`` §3–4).

GP-UCB (Srinivas et al. 2010), λ_t = argmax_λ μ_{t−1}(λ) + √β_t σ_{t−1}(λ),
with :func:`ucb_beta` or :func:`gp_ucb_beta`; and log expected improvement.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import erfcx, log_ndtr


def ucb_beta(t: int, n_candidates: int, delta: float) -> float:
    """β_t = 2 log(|Λ| t² π² / (3δ)) (Kusner et al. Algorithm 1, line 3), where no
    guarantee rests on it (mode ``"gp-ucb"``: :func:`gp_ucb_beta`)."""
    return 2.0 * math.log(n_candidates * t * t * math.pi**2 / (3.0 * delta))


def gp_ucb_beta(t: int, n_candidates: int, delta: float) -> float:
    """β_t = 2 log(|Λ| t² π² / δ): GP-UCB's β_t for the releases of mode "gp-ucb".

    Derivation (``delta``: the δ of one release). Srinivas et al. (2010),
    Lemma 5.1 (finite D, used by their Theorem 1): with β_t = 2 log(|D| π_t /
    δ_S), π_t = π² t² / 6 (so that Σ_t 1/π_t = 1),

        |f(λ) − μ_{t−1}(λ)| ≤ √β_t σ_{t−1}(λ)  for all λ ∈ Λ and all t ≥ 1

    with probability ≥ 1 − δ_S, and their regret bound holds on that event;
    i.e. β_t = 2 log(|Λ| t² π² / (6 δ_S)). Kusner et al.'s score release
    (Theorem 3) needs four events at once: this event for f_V, the same for
    f_V′ (a second sample path: a union bound, no independence assumed),
    |f_V − f_V′| ≤ c on all of Λ (probability δ/3, from c's log(3|Λ|/δ))
    and the 2T observation-noise bounds (δ/3, from q's log(6T/δ)). The
    remaining δ/3 split over V and V′ gives δ_S = δ/6 each, hence
    β_t = 2 log(|Λ| t² π² / (6 · δ/6)) = 2 log(|Λ| t² π² / δ), and the four
    failure probabilities sum to δ/6 + δ/6 + δ/3 + δ/3 = δ. The λ̃ release
    (Theorem 1) needs the first two events at t = T + 1 and the c event:
    δ/6 + δ/6 + δ/3 = 2δ/3 ≤ δ with the same β.

    Algorithm 1's 2 log(|Λ| t² π² / (3δ)) is δ_S = δ/2 per validation set:
    the score release then fails with probability up to
    2 · (δ/2) Σ_{t≤T} 6/(π² t²) + 2δ/3 ≈ 1.65δ at T = 30.
    """
    return 2.0 * math.log(n_candidates * t * t * math.pi**2 / delta)


def upper_confidence_bound(
    mean: np.ndarray, std: np.ndarray, beta: float
) -> np.ndarray:
    """UCB values μ + √β σ (Algorithm 1, line 4)."""
    return mean + math.sqrt(beta) * std


def log_expected_improvement(
    mean: np.ndarray, std: np.ndarray, best: float
) -> np.ndarray:
    """log EI(λ) = log(σ (z Φ(z) + φ(z))), z = (μ − best)/σ, stably; floored at
    −1e300 (σ = 0: log(max(μ − best, 0))), so argmax is always defined."""
    mean = np.asarray(mean, dtype=float)
    std = np.asarray(std, dtype=float)
    out = np.full(mean.shape, -1e300)
    pos = std > 1e-300
    z = (mean[pos] - best) / std[pos]
    # log(z Φ(z) + φ(z)) = log φ(z) + log(1 + z Φ(z)/φ(z)); use log_ndtr for
    # z < 0 where the sum cancels: h(z) = φ(z) + zΦ(z) = φ(z)(1 - |z| R(|z|)).
    log_phi = -0.5 * z * z - 0.5 * math.log(2 * math.pi)
    val = np.empty_like(z)
    big = z > -6
    zb = z[big]
    h = np.exp(log_phi[big]) + zb * np.exp(log_ndtr(zb))
    val[big] = np.log(np.maximum(h, 1e-300))
    # z <= -6: h(z) = φ(z)(1 − x R(x)), x = −z, with the Mills ratio
    # R(x) = √(π/2) erfcx(x/√2); the cancellation costs a relative error of
    # about x²·2⁻⁵², so beyond x = 200 use the asymptotic series
    # 1 − x R(x) = x⁻² (1 − 3x⁻² + 15x⁻⁴ − 105x⁻⁶ + 945x⁻⁸ − …).
    xs = -z[~big]
    tail = np.empty_like(xs)
    mid = xs < 200.0
    xm = xs[mid]
    tail[mid] = np.log1p(-xm * math.sqrt(math.pi / 2) * erfcx(xm / math.sqrt(2)))
    inv = 1.0 / xs[~mid] ** 2
    series = inv * (-3.0 + inv * (15.0 + inv * (-105.0 + 945.0 * inv)))
    tail[~mid] = np.log(inv) + np.log1p(series)
    val[~big] = log_phi[~big] + tail
    out[pos] = val + np.log(std[pos])
    zero = ~pos
    gain = mean[zero] - best
    out[zero] = np.where(gain > 0, np.log(np.maximum(gain, 1e-300)), -1e300)
    # z below about -1e154 underflows to -inf: keep the documented floor.
    return np.maximum(out, -1e300, out=out)


def argmax(values: np.ndarray, tie_break: np.ndarray) -> int:
    """Index of the largest value; ties broken by the public ranks ``tie_break``."""
    values = np.asarray(values)
    top = np.flatnonzero(values == values.max())
    return int(top[np.argmin(tie_break[top])])
