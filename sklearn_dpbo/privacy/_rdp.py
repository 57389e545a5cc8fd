"""Rényi-DP accounting: zCDP curves, random stopping, conversion to (ε, δ).

A mechanism M is (λ, ε̄)-RDP if D_λ(M(D) ‖ M(D′)) ≤ ε̄ for every pair of
neighbours (Mironov 2017); its *curve* is the map λ ↦ ε̄(λ). Used by the
Gaussian-noise learner (``dp_learners._gd``) alone, and by the private-model
mode's random stopping for a learner that declares ρ-zCDP. Every function
here reads public numbers only.

**Curves.**

- ρ-zCDP (Bun & Steinke, TCC 2016, Definition 1.1) *is* ε̄(λ) = λρ for every
  λ > 1 (and KL ≤ ρ at λ = 1): :func:`zcdp_curve`.
- A pure ε-DP mechanism: ε̄(λ) ≤ (1/(λ − 1)) log((e^{λε} + e^{(1−λ)ε}) /
  (1 + e^ε)), the Rényi divergence of binary randomized response with ratio
  e^ε, which dominates every ε-DP mechanism (the privacy loss of any ε-DP
  pair is a post-processing of randomized response: Kairouz, Oh &
  Viswanath, ICML 2015, Theorem 4; the same bound as ``dp_accounting``'s
  ``RandomizedResponseDpEvent(2/(1 + e^ε), 2)``): :func:`pure_dp_curve`.
- Two mechanisms on disjoint parts of the rows (parallel composition): a
  replaced row is in one part, so the pair's divergence is one of the two:
  the pointwise maximum of the curves (:func:`max_curve`).

**Random stopping** (Papernot & Steinke, "Hyperparameter Tuning with Renyi
Differential Privacy", ICLR 2022, Theorem 2). Let Q be (λ, ε̄)-RDP and
(λ̂, ε̂)-RDP, λ > 1, λ̂ ≥ 1, K ~ D_{η,γ} (the truncated negative binomial of
``model_selection._private_model._stopping``, η > −1, γ ∈ (0, 1)), and A run
Q K times independently and release the best output. Then A is (λ, ε′)-RDP:

    ε′ = ε̄ + (1 + η)(1 − 1/λ̂) ε̂ + (1 + η) log(1/γ)/λ̂ + log E[K]/(λ − 1).

λ̂ is free: :func:`repeat_and_select_curve` takes, for every λ, the smallest
value over the order grid (each grid point is a valid instance of the
theorem, so their minimum is valid), then uses that Rényi divergences are
non-decreasing in the order (van Erven & Harremoës 2014, Theorem 3): ε′(λ)
may be replaced by min over λ″ ≥ λ of ε′(λ″). For a ρ-zCDP Q the λ̂ term is
(1 + η)[(λ̂ − 1)ρ + L/λ̂], L = log(1/γ), minimised at λ̂ = √(L/ρ) when that
is ≥ 1, where it equals (1 + η)(2√(ρL) − ρ) (else L at λ̂ = 1); the grid
comes within a factor 1 + 10⁻³ of it. ``dp_accounting``'s
``_compute_rdp_repeat_and_select`` agrees to 10⁻⁶ on its own orders
(``tests/privacy/test_rdp.py``).

**Conversion to (ε, δ)** (:func:`rdp_epsilon`): the improved conversion
of Canonne, Kamath & Steinke (NeurIPS 2020, Proposition 12; also Asoodeh et
al. 2021): (λ, ε̄)-RDP implies (ε, δ)-DP for

    ε = ε̄ + log(1 − 1/λ) − (log δ + log λ)/(λ − 1),

minimised over the grid (each λ gives a valid ε), never larger than the
standard ε̄ + log(1/δ)/(λ − 1) (Mironov 2017, Proposition 3). Every
returned ε is rounded up by ``_SAFETY`` relative.
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np

ORDERS = 1.0 + np.geomspace(1e-3, 1e5, 1200)  # public order grid, λ − 1 ratio 1.0155
_SAFETY = 1e-9  # relative margin on every ε (float error ~1e-15)

Curve = Callable[[np.ndarray], np.ndarray]


def zcdp_curve(rho: float) -> Curve:
    """λ ↦ λρ: the RDP curve of a ρ-zCDP mechanism (its definition)."""
    rho = float(rho)
    if not (math.isfinite(rho) and rho >= 0):
        raise ValueError(f"rho must be finite and >= 0; got {rho!r}.")
    return lambda orders: np.asarray(orders, dtype=float) * rho


def pure_dp_curve(epsilon: float) -> Curve:
    """λ ↦ log((e^{λε} + e^{(1−λ)ε})/(1 + e^ε))/(λ − 1): any ε-DP mechanism.

    The Rényi divergence of binary randomized response with ratio e^ε
    (the module docstring); at most min(ε, λε²/2). Computed in log space.
    """
    eps = float(epsilon)
    if not (math.isfinite(eps) and eps >= 0):
        raise ValueError(f"epsilon must be finite and >= 0; got {eps!r}.")

    def curve(orders):
        lam = np.asarray(orders, dtype=float)
        num = np.logaddexp(lam * eps, (1.0 - lam) * eps) - np.logaddexp(0.0, eps)
        return np.minimum(num / (lam - 1.0), eps)

    return curve


def max_curve(*curves: Curve) -> Curve:
    """The pointwise maximum: mechanisms on disjoint parts of the rows."""
    return lambda orders: np.max([c(orders) for c in curves], axis=0)


def repeat_and_select_curve(
    base: Curve, eta: float, gamma: float, mean: float, orders=ORDERS, hat_orders=None
) -> np.ndarray:
    """ε′ at ``orders``: Papernot & Steinke's Theorem 2 (module docstring).

    ``base`` is the curve of one run, ``eta``/``gamma`` the law of K
    (γ = 1 is K = 1: the base curve itself) and ``mean`` = E[K] for that
    law. λ̂ ranges over {1} ∪ ``hat_orders`` (default: :data:`ORDERS` and
    ``orders``); then the running minimum from the top order down
    (monotonicity in the order).
    """
    eta, gamma, mean = float(eta), float(gamma), float(mean)
    orders = np.asarray(orders, dtype=float)
    if not eta >= 0:
        raise ValueError(f"eta must be >= 0; got {eta!r}.")
    if not mean >= 1:
        raise ValueError(f"the mean number of runs must be >= 1; got {mean!r}.")
    if not (orders > 1).all():
        raise ValueError("every order must be > 1.")
    eps = np.asarray(base(orders), dtype=float)
    if gamma >= 1:
        return eps
    if not gamma > 0:
        raise ValueError(f"gamma must be in (0, 1]; got {gamma!r}.")
    log_inv_gamma = -math.log(gamma)
    if hat_orders is None:
        hat_orders = np.concatenate([ORDERS, orders])
    hat = np.concatenate([[1.0], np.asarray(hat_orders, dtype=float)])
    # (1 − 1/λ̂)·ε̂ = 0 at λ̂ = 1 (ε̂ = KL is finite for every curve here)
    eps_hat = np.concatenate([[0.0], np.asarray(base(hat[1:]), dtype=float)])
    term = (1.0 + eta) * np.min((1.0 - 1.0 / hat) * eps_hat + log_inv_gamma / hat)
    out = eps + term + math.log(mean) / (orders - 1.0)
    return np.minimum.accumulate(out[::-1])[::-1]


def rdp_epsilon(rdp, delta: float, orders=ORDERS) -> float:
    """The smallest ε over the grid from Canonne, Kamath & Steinke's Prop. 12.

    ε = min_λ ε̄(λ) + log(1 − 1/λ) − (log δ + log λ)/(λ − 1), at least 0,
    rounded up by ``_SAFETY``. ``rdp`` holds ε̄ at ``orders``.
    """
    delta = float(delta)
    if not 0 < delta < 1:
        raise ValueError(f"delta must be in (0, 1) for an RDP conversion; got {delta}.")
    lam = np.asarray(orders, dtype=float)
    eps = (
        np.asarray(rdp, dtype=float)
        + np.log1p(-1.0 / lam)
        - (math.log(delta) + np.log(lam)) / (lam - 1.0)
    )
    return max(0.0, float(np.min(eps))) * (1.0 + _SAFETY)


def zcdp_epsilon(rho: float, delta: float) -> float:
    """ε of a ρ-zCDP mechanism at δ (:func:`rdp_epsilon` of λρ)."""
    return rdp_epsilon(zcdp_curve(rho)(ORDERS), delta)


def repeat_and_select_epsilon(
    base: Curve, eta: float, gamma: float, mean: float, delta: float
) -> float:
    """ε at δ of the best of K ~ D_{η,γ} runs of ``base`` (uncapped K)."""
    return rdp_epsilon(repeat_and_select_curve(base, eta, gamma, mean), delta)


def largest_parameter(epsilon_of: Callable[[float], float], epsilon: float) -> float:
    """The largest x ≥ 0 (within 10⁻¹⁰ relative) with ``epsilon_of(x) ≤ epsilon``.

    ``epsilon_of`` must be non-decreasing (e.g. ρ ↦ :func:`zcdp_epsilon`);
    the returned x satisfies the condition (the bracket's low end).
    """
    epsilon = float(epsilon)
    lo, hi = 0.0, 1.0
    while epsilon_of(hi) <= epsilon:
        lo, hi = hi, 2.0 * hi
        if hi > 1e12:
            return lo
    while hi - lo > 1e-10 * hi:
        mid = 0.5 * (lo + hi)
        if epsilon_of(mid) <= epsilon:
            lo = mid
        else:
            hi = mid
    return lo
