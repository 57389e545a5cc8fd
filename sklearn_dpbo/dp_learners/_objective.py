"""Objective perturbation for margin losses (CMS 2011, Algorithm 2).

Chaudhuri, Monteleoni & Sarwate, *Differentially Private Empirical Risk
Minimization*, JMLR 12 (2011), Section 3.2, Algorithm 2 and Theorem 9, for
a convex loss ℓ(s·v·x) with |ℓ′| ≤ 1 and 0 ≤ ℓ″ ≤ c on rows ‖x‖ ≤ 1:

- logistic, log(1 + e^(−z)): ℓ″ = σ(z)σ(−z) ≤ c = 1/4 (``DPLogisticRegression``);
- Huber hinge with smoothing h (CMS Section 3.4.2, ``DPLinearSVC``): ℓ = 0
  for z > 1 + h, (1 + h − z)²/(4h) for |1 − z| ≤ h, 1 − z for z < 1 − h;
  −ℓ′ = clip((1 + h − z)/(2h), 0, 1), ℓ″ ∈ {0, 1/(2h)}: c = 1/(2h).

**Huber's kinks.** ℓ″ does not exist at z = 1 ± h, so the Jacobian below is
undefined there. The map v ↦ b(v) below is Lipschitz (ℓ′ is) and strongly
monotone (the gradient of an n(Λ̃ + Δ)-strongly convex function), so a
bi-Lipschitz bijection of R^d, differentiable off N = ∪_i {v : s_i v·x̃_i =
1 ± h} (rows x̃_i ≠ 0 of D and D′), a Lebesgue-null union of hyperplanes. By
the area formula v* has density p_b(b(v))·|det ∇b(v)| off N, and P[v* ∈ N]
= P[b ∈ b(N)] = 0: the ratio bound, proved off N, bounds P[v*(D) ∈
S]/P[v*(D′) ∈ S] for every event S.

**Rows of norm R.** Rows are clipped to ``data_norm`` and the intercept's 1
appended: ‖x_i‖ ≤ R = √(data_norm² + 1) (data_norm without intercept). The
algorithm runs on x̃ = x/R in v = R·w (w·x = v·x̃): the user's objective
(1/n) Σ ℓ(s_i w·x_i) + (Λ/2)‖w‖², Λ = 1/(C n), is (1/n) Σ ℓ(s_i v·x̃_i) +
(Λ̃/2)‖v‖² with **Λ̃ = 1/(C n R²)**; the intercept is regularised like the
rest (Theorem 9 needs a 1-strongly convex regulariser of the whole v).

**Mechanism** (rescaled units; ε_obj = (1 − ``OUTPUT_SHARE``)·ε):

- Δ = max(0, c/(n(e^(ε_obj/4) − 1)) − Λ̃, c/(κ_max − 1) − Λ̃) (CMS's extra
  regularisation; the last term is the solvers' public conditioning floor,
  ``_base.SOLVER_MAX_CONDITION``);
- ε′ = ε_obj − log(1 + c/(n(Λ̃ + Δ))) (≥ 3ε_obj/4; rounded down by 1e-12
  relative);
- b of density ∝ exp(−ε′‖b‖/2): uniform direction, Gamma(d, 2/ε′) norm;
- v* = argmin (1/n) Σ ℓ(s_i v·x̃_i) + ((Λ̃ + Δ)/2)‖v‖² + bᵀv/n.

**Privacy loss** (CMS's proof of Theorem 9, Jacobian step tightened). v*
solves b = −Σ ℓ′(s_i v·x̃_i) s_i x̃_i − n(Λ̃ + Δ)v, a bijection, so v* has
density p_b(b(v*))·|det ∇b(v*)| with ∇b(v) = −(A + ℓ″_z x̃_z x̃_zᵀ), A =
Σ_{i≠z} ℓ″_i x̃_i x̃_iᵀ + n(Λ̃ + Δ)I the same for D, D′ differing in row z.
By the matrix determinant lemma det(A + ℓ″x̃x̃ᵀ) = det(A)(1 + ℓ″x̃ᵀA⁻¹x̃)
with 0 ≤ ℓ″x̃ᵀA⁻¹x̃ ≤ c/(n(Λ̃ + Δ)) (A ⪰ n(Λ̃ + Δ)I): the Jacobian ratio
is at most 1 + c/(n(Λ̃ + Δ)) either way. (CMS bound the rank-2 difference
of the Hessians, giving that factor squared; the rank-one form is derived
here on the same assumptions. ``test_objective.py`` checks the bound on
random neighbours and that it is attained; ``test_audit_objective.py`` and
``test_svm.py`` audit pairs where it dominates.) The noise part is
ε′‖b − b′‖/2 ≤ ε′ (‖ℓ′_z x̃_z − ℓ′_z′ x̃_z′‖ ≤ 2): the density ratio of v* is
≤ e^(ε′ + log(1 + c/(n(Λ̃ + Δ)))) = e^(ε_obj) for any Δ ≥ 0 fixed in
advance. Δ is CMS's (raised once c/(nΛ̃) > e^(ε_obj/4) − 1), so objective,
plateau and pruning are as with CMS's accounting and only ε′ grows (on the
plateau from ε_obj/2 to 3ε_obj/4). Every C ≥ (e^(ε_obj/4) − 1)/(c R²)
gives the same objective (the private-model mode prunes such duplicates).

**The solver's stopping point** (approximate minima perturbation, Iyengar
et al., IEEE S&P 2019, pure-DP form). The solver stops at v̂ with computed
‖∇J̃(v̂)‖ ≤ γ/2, γ = ``GAMMA``·(1 + d·(2/ε′)/n) (relative to E‖b‖/n; the
float error of the computed norm is far below γ/2), so ‖v̂ − v*‖ ≤
γ/(Λ̃ + Δ). Coupling D and D′ through CMS's bijection b ↦ b′ (same v*), the
stopping points are ≤ S = 2γ/(Λ̃ + Δ) apart; releasing v̂ + z, z of density
∝ exp(−ε_out‖z‖/S), ε_out = ``OUTPUT_SHARE``·ε, gives ratios ≤
e^(ε_obj + ε_out) = e^ε: **pure ε-DP per fit**. The solver reaches γ/2 on
every public setting accepted (condition number ≤ κ_max = 10⁵, ≥ 200 Newton
iterations; ``benchmarks/bench_solver_fuzz.py``: no miss in 15,876 fits,
logistic or ``--huber 0.5``); a miss raises ``SolverError`` (outside the
guarantee, stated in the private-model mode's ``privacy_report_``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import expit

from ._base import (
    SOLVER_MAX_CONDITION,
    SolverError,
    release_weights,
    sample_gamma_norm_noise,
    solver_iterations,
)


class Logistic:
    """ℓ(z) = log(1 + e^(−z)), c = 1/4: ``value``, ``slope`` = −ℓ′ ∈ [0, 1] and
    ``curvature`` = ℓ″ as functions of the negated margin m = −s·(v·x)."""

    curvature_bound = 0.25
    exact_line_search = False

    def value(self, m):
        return np.logaddexp(0.0, m)

    def slope(self, m):
        return expit(m)

    def curvature(self, m, slope=None):
        p = expit(m) if slope is None else slope  # ``slope(m)`` if known
        return p * (1.0 - p)


LOGISTIC = Logistic()
"""The logistic loss (c = 1/4)."""


@dataclass(frozen=True)
class Huber:
    """CMS's Huber hinge with smoothing h, c = 1/(2h), in m = −z like :class:`Logistic`
    (u = 1 + h + m: ℓ = 0, u²/(4h), u − h on u ≤ 0, [0, 2h], ≥ 2h)."""

    h: float
    exact_line_search = True  # :func:`newton` (see there)

    @property
    def curvature_bound(self) -> float:
        return 1.0 / (2.0 * self.h)

    def value(self, m):
        h = self.h
        u = m + (1.0 + h)
        return np.where(u <= 0.0, 0.0, np.where(u >= 2.0 * h, u - h, u * u / (4 * h)))

    def slope(self, m):
        return np.clip((m + (1.0 + self.h)) / (2.0 * self.h), 0.0, 1.0)

    def curvature(self, m, slope=None):
        u = m + (1.0 + self.h)
        inside = (u >= 0.0) & (u <= 2.0 * self.h)
        return np.where(inside, self.curvature_bound, 0.0)


OUTPUT_SHARE = 0.01
"""Share of ε spent on the output noise that covers the solver's stopping point."""

GAMMA = 1e-11
"""γ/(1 + d·noise_scale/n): the bound γ on the exact ‖∇J̃(v̂)‖ (rescaled units)
relative to the linear term's expected size; the solver stops at γ/2."""


@dataclass(frozen=True)
class ObjectivePlan:
    """The public constants of one fit (rescaled units, module docstring): ε_obj,
    ε_out, ε′, Λ̃, Δ, the scale 2/ε′ of ‖b‖, γ, S = 2γ/(Λ̃ + Δ) and c."""

    epsilon_objective: float
    epsilon_output: float
    epsilon_prime: float
    regularization: float
    extra_regularization: float
    noise_scale: float
    gradient_bound: float
    output_sensitivity: float
    curvature: float

    @property
    def strong_convexity(self) -> float:
        """Λ̃ + Δ."""
        return self.regularization + self.extra_regularization


def objective_plan(
    n: int, C: float, row_norm: float, epsilon: float, *, dim=1, curvature=None
) -> ObjectivePlan:
    """The :class:`ObjectivePlan` for n rows, C, R, ε, d = ``dim`` coordinates of v
    and the loss's ``curvature`` c (default 1/4); public values only."""
    c = LOGISTIC.curvature_bound if curvature is None else float(curvature)
    n, eps = int(n), float(epsilon)
    lam = 1.0 / (float(C) * n * float(row_norm) ** 2)
    eps_out = OUTPUT_SHARE * eps
    eps_obj = eps - eps_out
    # e^(ε/4) overflows past ε ≈ 2800; there Δ = 0 (c/(n e^700) < Λ̃ anyway)
    cms = max(0.0, c / (n * math.expm1(min(eps_obj / 4.0, 700.0))) - lam)
    floor = max(0.0, c / (SOLVER_MAX_CONDITION - 1.0) - lam)
    extra = max(cms, floor)
    eps_prime = (eps_obj - math.log1p(c / (n * (lam + extra)))) * (1 - 1e-12)
    if cms > 0 and cms >= floor:  # the log term is ε_obj/4 up to rounding
        eps_prime = min(eps_prime, 0.75 * eps_obj)
    scale = 2.0 / eps_prime
    gamma = GAMMA * (1.0 + int(dim) * scale / n)
    sens = 2.0 * gamma / (lam + extra)
    return ObjectivePlan(eps_obj, eps_out, eps_prime, lam, extra, scale, gamma, sens, c)


def newton(X, s, lam, lin, max_iter, tol=None, stats=None, weights=None, loss=LOGISTIC):
    """argmin mean(ω·ℓ(s v·x)) + (lam/2)‖v‖² + lin·v to ‖∇‖ ≤ tol, or None.

    Damped Newton with backtracking (generalised Hessian for the Huber
    loss, whose steps are exact minima along the direction,
    :func:`_line_minimum`), full steps once gᵀH⁻¹g ≤ 1e-10·max(1, |J̃|).
    None when ``max_iter`` is hit or H is singular; only the final gradient
    check matters for privacy. ``stats`` gets the "iterations" made.
    """
    tol = GAMMA / 2 if tol is None else float(tol)
    n, d = X.shape
    v = np.zeros(d)
    # labels folded into the rows: A = −s·X (an exact sign flip; AᵀcA = XᵀcX)
    A = -(s[:, None] * X)
    AT = np.ascontiguousarray(A.T)

    def objective(u, mz):  # J̃(u), mz = A u the negated margins
        values = loss.value(mz)
        if weights is not None:
            values = weights * values
        return float(values.sum()) / n + float(0.5 * lam * (u @ u) + lin @ u)

    def gradient(u, mz):  # ∇J̃(u) and −ℓ′ = slope per row
        p = loss.slope(mz)
        return (AT @ (p if weights is None else weights * p)) / n + lam * u + lin, p

    def point(u):  # (u, A u, J̃(u))
        mz_u = u @ AT
        return u, mz_u, objective(u, mz_u)

    mz, value = v @ AT, None  # J̃ when a test needs it
    stats = {} if stats is None else stats
    for it in range(int(max_iter)):
        stats["iterations"] = it + 1
        grad, p = gradient(v, mz)
        if math.sqrt(float(grad @ grad)) <= tol:
            return v
        curv = loss.curvature(mz, p)
        H = (AT * (curv if weights is None else weights * curv)) @ A / n
        step = _solve(H, lam, grad)
        if step is None:  # H singular in floating point
            return None
        drop = float(grad @ step)
        if not drop <= 1e-10 and value is None:
            value = objective(v, mz)
        if drop <= 1e-10 * max(1.0, abs(value or 0.0)):  # full step
            v = v - step
            mz, value = v @ AT, None
            continue
        if loss.exact_line_search:
            t = _line_minimum(loss, mz, step @ AT, v, step, lam, lin, n, weights)
            cand, mz_new, new = point(v - t * step)
            if new <= value:
                v, value, mz = cand, new, mz_new
                continue
        t = 1.0
        while t > 1e-12:
            cand, mz_new, new = point(v - t * step)
            if new <= value - 1e-4 * t * drop:
                break
            t *= 0.5
        if t <= 1e-12:  # rounding-level decrease: the full Newton step
            cand, mz_new, new = point(v - step)
        v, value, mz = cand, new, mz_new
    grad = gradient(v, mz)[0]
    return v if math.sqrt(float(grad @ grad)) <= tol else None


def _solve(H, lam, g):
    """(H + lam·I)⁻¹g, or None if singular; 2×2 in closed form (Cramer)."""
    if len(g) == 2:
        (a, b), (c, e) = H.tolist()
        a, e = a + lam, e + lam
        det = a * e - b * c
        if det == 0:
            return None
        g0, g1 = g.tolist()
        return np.array([(e * g0 - b * g1) / det, (a * g1 - c * g0) / det])
    H.flat[:: len(g) + 1] += lam
    try:
        return np.linalg.solve(H, g)
    except np.linalg.LinAlgError:
        return None


def _line_minimum(loss, mz, q, v, p, lam, lin, n, weights) -> float:
    """argmin over t > 0 of J̃(v − t·p): bisection on the non-decreasing φ′(t)
    (``mz`` = A v, ``q`` = A p), bracketed by doubling from t = 1."""
    pp, vp, lp = float(p @ p), float(v @ p), float(lin @ p)

    def slope_at(t):
        sl = loss.slope(mz - t * q)
        if weights is not None:
            sl = weights * sl
        return -(float(sl @ q) / n + lam * (vp - t * pp) + lp)

    lo, hi = 0.0, 1.0
    while slope_at(hi) < 0 and hi < 2.0**60:
        lo, hi = hi, 2 * hi
    while True:
        mid = 0.5 * (lo + hi)
        if mid in (lo, hi):
            return hi
        if slope_at(mid) < 0:
            lo = mid
        else:
            hi = mid


def certified_newton(
    X, s, lam, lin, max_iter, gradient_bound, what, weights=None, loss=LOGISTIC
):
    """:func:`newton` to a computed ‖∇‖ ≤ ``gradient_bound``/2 (≥ SOLVER_MIN_ITER
    iterations), else :class:`~._base.SolverError` naming ``what``."""
    tol = gradient_bound / 2
    iters = solver_iterations(max_iter)
    v = newton(X, s, lam, lin, iters, tol=tol, weights=weights, loss=loss)
    if v is None:
        raise SolverError(
            f"{what}: Newton did not reach the gradient tolerance {tol:g} in "
            f"{iters} iterations; the privacy proof needs it (an event outside "
            "the guarantee: please report it)."
        )
    return v


def fit_objective(X, s, plan, row_norm, rng, max_iter, weights=None, loss=LOGISTIC):
    """The released weights w = (v̂ + z)/R on clipped rows ``X``, s ∈ {−1, +1}.

    ``weights`` in [0, 1]: ωℓ still has |ωℓ′| ≤ 1 and 0 ≤ ωℓ″ ≤ c, all the
    proof uses. ``loss`` must have the plan's c (checked).
    """
    if loss.curvature_bound != plan.curvature:
        raise ValueError(
            f"the plan was made for c = {plan.curvature:g}, the loss has "
            f"c = {loss.curvature_bound:g}: pass curvature=loss.curvature_bound "
            "to objective_plan"
        )
    n, d = X.shape
    R = float(row_norm)
    b = sample_gamma_norm_noise(d, plan.noise_scale, rng)
    lam, tol = plan.strong_convexity, plan.gradient_bound
    what = "objective perturbation"
    v = certified_newton(X / R, s, lam, b / n, max_iter, tol, what, weights, loss)
    v = release_weights(v, plan.output_sensitivity, plan.epsilon_output, rng)
    return v / R
