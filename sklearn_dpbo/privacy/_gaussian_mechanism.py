"""Calibration of the Gaussian mechanism: analytic (exact) and Hall et al.'s.

A release ``v + s·z``, ``z ~ N(0, M)``, of a vector whose change between
neighbours has Mahalanobis norm ``‖M^{-1/2}(v − v')‖₂ ≤ Δ`` has the privacy
loss of a one-dimensional Gaussian shift with ``η = Δ / s``: the loss is
``N(η²/2, η²)``, and the release is (ε, δ)-DP if and only if

    δ(ε; η) = Φ(η/2 − ε/η) − e^ε Φ(−η/2 − ε/η) ≤ δ

(Balle & Wang, "Improving the Gaussian mechanism for differential privacy:
analytical calibration and optimal denoising", ICML 2018, Theorem 8).
:func:`analytic_gaussian_scale` returns the smallest such ``s`` (valid for
every ε > 0); :func:`hall_gaussian_scale` returns Hall, Rinaldo &
Wasserman's ``Δ·sqrt(2 ln(2/δ))/ε`` (JMLR 2013, proved for ε ≤ 1 only),
kept for reproducing Smith et al. (2018).
"""

from __future__ import annotations

import math

from scipy.special import log_ndtr

from ._validation import check_delta, check_epsilon, require_positive_delta

_SAFETY = 1e-9  # relative margin on every analytic scale (rounding ≈1e-15)


def gaussian_delta(epsilon: float, eta: float) -> float:
    """δ(ε; η) = Φ(η/2 − ε/η) − e^ε Φ(−η/2 − ε/η), in log space (module docstring)."""
    if eta <= 0:
        return 0.0
    a = log_ndtr(eta / 2.0 - epsilon / eta)
    b = epsilon + log_ndtr(-eta / 2.0 - epsilon / eta)
    if b >= a:
        return 0.0
    return float(math.exp(a) * -math.expm1(b - a))


def _check(epsilon, delta, sensitivity, owner) -> tuple[float, float, float]:
    eps = check_epsilon(epsilon, owner=owner)
    dlt = check_delta(delta, owner=owner)
    require_positive_delta(
        dlt, "The Gaussian mechanism", "it is (epsilon, delta)-DP, not pure epsilon-DP"
    )
    sens = float(sensitivity)
    if not (math.isfinite(sens) and sens >= 0):
        raise ValueError(f"sensitivity must be finite and >= 0; got {sens!r}.")
    return eps, dlt, sens


def analytic_gaussian_scale(sensitivity: float, epsilon: float, delta: float) -> float:
    """Smallest s with δ(ε; Δ/s) ≤ δ (Balle & Wang 2018, Algorithm 1).

    Bisection on log η, keeping the bracket's left end (the condition holds
    there), then ``s = Δ/η* · (1 + 1e-9)``. Returns 0 when Δ = 0.

    Examples
    --------
    >>> round(analytic_gaussian_scale(1.0, 1.0, 0.01), 3)
    1.878
    """
    eps, dlt, sens = _check(epsilon, delta, sensitivity, "analytic_gaussian_scale")
    if sens == 0:
        return 0.0
    lo, hi = -40.0, 40.0  # log η; δ(ε; e^-40) = 0, δ(ε; e^40) ≈ 1
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if gaussian_delta(eps, math.exp(mid)) <= dlt:
            lo = mid
        else:
            hi = mid
    eta = math.exp(lo)
    if gaussian_delta(eps, eta) > dlt:  # pragma: no cover - bisection invariant
        raise RuntimeError("analytic Gaussian calibration failed")
    return sens / eta * (1.0 + _SAFETY)


def hall_gaussian_scale(sensitivity: float, epsilon: float, delta: float) -> float:
    """Hall et al.'s scale Δ·c(δ)/ε, c(δ) = sqrt(2 ln(2/δ)) (paper-faithful only).

    Proved for ε ≤ 1; for larger ε it can be smaller than the exact
    analytic scale, i.e. not (ε, δ)-DP (see :func:`hall_is_valid`).
    """
    eps, dlt, sens = _check(epsilon, delta, sensitivity, "hall_gaussian_scale")
    return sens * math.sqrt(2.0 * math.log(2.0 / dlt)) / eps


def hall_is_valid(epsilon: float, delta: float) -> bool:
    """Whether Hall's multiplier gives (ε, δ)-DP here (checked exactly).

    True iff c(δ)/ε is at least the analytic multiplier, i.e.
    δ(ε; ε/c(δ)) ≤ δ; it holds for every ε ≤ 1 and fails for large ε.
    """
    eps, dlt, _ = _check(epsilon, delta, 1.0, "hall_is_valid")
    return gaussian_delta(eps, eps / math.sqrt(2.0 * math.log(2.0 / dlt))) <= dlt
