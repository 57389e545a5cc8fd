"""Objective perturbation for margin losses (CMS 2011, Algorithm 2).

Chaudhuri, Monteleoni & Sarwate, *Differentially Private Empirical Risk
Minimization*, JMLR 12 (2011), Section 3.2, Algorithm 2 and Theorem 9,
for a loss ℓ(s·v·x) with |ℓ′| ≤ 1 and 0 ≤ ℓ″ ≤ c on rows ‖x‖ ≤ 1. Two
losses (:class:`Logistic`, :class:`Huber`):

- logistic, log(1 + e^(−z)): |ℓ′| < 1 and ℓ″ = σ(z)σ(−z) ≤ c = 1/4
  (``DPLogisticRegression``);
- Huber hinge (CMS Section 3.4.2, ``DPLinearSVC``) with smoothing h > 0:
  ℓ(z) = 0 for z > 1 + h, (1 + h − z)²/(4h) for |1 − z| ≤ h, 1 − z for
  z < 1 − h; ℓ′(z) = −clip((1 + h − z)/(2h), 0, 1), so |ℓ′| ≤ 1, and
  ℓ″ = 1/(2h) on (1 − h, 1 + h), 0 off [1 − h, 1 + h]: c = 1/(2h).

**What the proof below needs of ℓ, and why Huber has it.** ℓ convex and
continuously differentiable with |ℓ′| ≤ 1, and ℓ′ Lipschitz with 0 ≤ ℓ″ ≤ c
wherever ℓ″ exists. Theorem 9 asks for ℓ″ everywhere; the Huber loss has
none at z = 1 ± h (ℓ″ jumps between 0 and 1/(2h)), so the Jacobian of that
proof is undefined there (CMS treat this case in Section 3.4.2, with c =
1/(2h); the argument given here is self-contained): the map v ↦ b(v) below
is Lipschitz (ℓ′ is) and strongly monotone (‖b(v) − b(u)‖ ≥ n(Λ̃ + Δ)‖v −
u‖, as ∇ of an n(Λ̃ + Δ)-strongly convex function), so it is a bi-Lipschitz
bijection of R^d; it is differentiable off N = ∪_i {v : s_i v·x̃_i = 1 ± h}
over the rows x̃_i ≠ 0 (a zero row adds nothing to b), a finite union of
hyperplanes, so N is Lebesgue-null for the rows of D and of D′ together. By
the area formula the density of v* is p_b(b(v))·|det ∇b(v)| for v off N,
and P[v* ∈ N] = P[b ∈ b(N)] = 0 (a Lipschitz image of a null set is null):
the ratio bound below, proved at every v off N where ℓ″_i ∈ {0, c} for
every row, bounds P[v*(D) ∈ S]/P[v*(D′) ∈ S] for every event S. Nothing
else in the proof uses ℓ″.

**Rows of norm R.** Rows are clipped to ``data_norm`` and the intercept's
constant 1 is appended, so ‖x_i‖ ≤ R = √(data_norm² + 1) (R = data_norm
without intercept). The algorithm runs on x̃ = x/R (‖x̃‖ ≤ 1) in the
variable v = R·w, since w·x = v·x̃. The user's objective
(1/n) Σ ℓ(s_i w·x_i) + (Λ/2)‖w‖², Λ = 1/(C n), is then
(1/n) Σ ℓ(s_i v·x̃_i) + (Λ̃/2)‖v‖² with **Λ̃ = Λ/R² = 1/(C n R²)**. The
intercept is a coordinate of v like the others (regularised: Theorem 9
needs a 1-strongly convex regulariser of the whole v).

**The mechanism, in the rescaled units** (ε_obj = (1 − ``OUTPUT_SHARE``)·ε):

- Δ = max(0, c/(n(e^(ε_obj/4) − 1)) − Λ̃, c/(κ_max − 1) − Λ̃) (extra
  regularisation, CMS's; the last term is the solvers' public conditioning
  floor, ``_base.SOLVER_MAX_CONDITION``, which binds only at large ε and C);
- ε′ = ε_obj − log(1 + c/(n(Λ̃ + Δ))) (≥ 3ε_obj/4);
- b ∈ R^d with density ∝ exp(−ε′‖b‖/2): a uniform direction times a
  Gamma(d, 2/ε′) norm;
- v* = argmin (1/n) Σ ℓ(s_i v·x̃_i) + ((Λ̃ + Δ)/2)‖v‖² + bᵀv/n.

**The privacy loss** (CMS's proof of Theorem 9, with its Jacobian step
tightened). Write the objective times n: v* solves b = −Σ ℓ′(s_i v·x̃_i)
s_i x̃_i − n(Λ̃ + Δ)v, a bijection between b and v*, so the density of v*
is p_b(b(v*))·|det ∇b(v*)|, ∇b(v) = −(A + ℓ″_z x̃_z x̃_zᵀ) where A =
Σ_{i≠z} ℓ″_i x̃_i x̃_iᵀ + n(Λ̃ + Δ)I is the same for neighbours D, D′ that
differ in row z. By the matrix determinant lemma det(A + ℓ″ x̃x̃ᵀ) =
det(A)(1 + ℓ″ x̃ᵀA⁻¹x̃), and 0 ≤ ℓ″ x̃ᵀA⁻¹x̃ ≤ c/(n(Λ̃ + Δ)) (ℓ″ ≤ c, ‖x̃‖
≤ 1, A ⪰ n(Λ̃ + Δ)I), so the Jacobian ratio is (1 + a)/(1 + a′) with a, a′
in [0, c/(n(Λ̃ + Δ))]: at most 1 + c/(n(Λ̃ + Δ)) either way. CMS bound it
through the eigenvalues of the rank-2 difference of the two Hessians, which
gives (1 + c/(n(Λ̃ + Δ)))² (their ε′ = ε − log(1 + 2c/(nΛ) + c²/(nΛ)²));
the rank-one form used here is tighter by that square and rests on the same
assumptions (convex ℓ with 0 ≤ ℓ″ ≤ c, ‖x̃‖ ≤ 1). It is derived here, not
taken from a paper (later analyses of objective perturbation for linear
models tighten the same step, but this library has not checked their
constants against it); ``tests/dp_learners/test_objective.py`` checks the
bound on random neighbours and that it is attained, and the audit
``test_audit_objective.py`` runs on a pair where the Jacobian factor is the
largest part of the loss (``test_svm.py``: the same with the Huber loss, c
= 1/(2h), and an audit whose power check catches the logistic c). The noise
part is ε′‖b − b′‖/2 with ‖b − b′‖ = ‖ℓ′_z x̃_z − ℓ′_z′ x̃_z′‖ ≤ 2: in all,
the density ratio of v* is at most e^(ε′ + log(1 + c/(n(Λ̃ + Δ)))) =
e^(ε_obj), for **any** Δ ≥ 0 fixed in advance. Δ is CMS's Algorithm 2's (Δ
= 0 while their squared factor leaves ε_obj/2 or more, i.e. while c/(nΛ̃) ≤
e^(ε_obj/4) − 1, otherwise the Δ with c/(n(Λ̃ + Δ)) = e^(ε_obj/4) − 1; they
raise Δ only once their ε′ ≤ 0, this learner as soon as it would fall below
ε_obj/2), so the objective, the plateau and the pruning are the same as
with CMS's accounting, and only ε′ grows: on the plateau from ε_obj/2 to
ε_obj − log(e^(ε_obj/4)) = 3ε_obj/4, elsewhere by log(1 + c/(n(Λ̃ + Δ))):
less noise for the same objective and the same ε. So ε′ never falls below
3ε_obj/4 — no cliff where ε′ → 0⁺ — and every C above the public plateau C
≥ (e^(ε_obj/4) − 1)/(c R²) gives the same objective (the private-model mode
prunes such duplicates). ε′ is rounded down by 1e-12 relative.

**The solver's stopping point** (approximate minima perturbation, Iyengar
et al., IEEE S&P 2019, in its pure-DP form). The theorem is about the exact
v*; the solver stops at v̂ with computed ‖∇J̃(v̂)‖ ≤ γ/2, γ = ``GAMMA``·(1 +
d·(2/ε′)/n), public (d·2/ε′ is E‖b‖, so γ is relative to the size of the
linear term bᵀv/n; the float error of the computed norm is ~1e-15 of that
size, so the exact gradient is ≤ γ). J̃ is (Λ̃ + Δ)-strongly convex, so
‖v̂ − v*‖ ≤ γ/(Λ̃ + Δ).
Couple D and D′ through CMS's bijection b ↦ b′ that maps v*(D, b) to the
same v*(D′, b′): the two stopping points are then ≤ S = 2γ/(Λ̃ + Δ) apart.
Releasing v̂ + z with z of density ∝ exp(−ε_out‖z‖/S), ε_out =
``OUTPUT_SHARE``·ε, gives density ratios ≤ e^(ε_obj)·e^(ε_out) = e^ε:
**pure ε-DP per fit**.

**The solver reaches γ/2** on every public setting the learner accepts
(condition number ≤ κ_max = 10⁵ by the floor in Δ, ≥ 200 Newton iterations;
``benchmarks/bench_solver_fuzz.py`` never misses, with the logistic loss
or, ``--huber 0.5``, the Huber hinge: 15,876 fits each). A miss would raise
``SolverError``: an event outside the guarantee, stated in the
private-model mode's ``privacy_report_``.
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

__all__ = [
    "LOGISTIC",
    "Huber",
    "Logistic",
    "OUTPUT_SHARE",
    "GAMMA",
    "ObjectivePlan",
    "objective_plan",
    "fit_objective",
]


class Logistic:
    """ℓ(z) = log(1 + e^(−z)), c = 1/4, as functions of the negated margin m = −z.

    ``value(m)`` = ℓ(−m), ``slope(m)`` = −ℓ′(−m) ∈ [0, 1] and
    ``curvature(m)`` = ℓ″(−m) ∈ [0, c]: the solver works on m = −s·(v·x).
    """

    curvature_bound = 0.25
    exact_line_search = False

    def value(self, m):
        return np.logaddexp(0.0, m)

    def slope(self, m):
        return expit(m)

    def curvature(self, m):
        p = expit(m)
        return p * (1.0 - p)


LOGISTIC = Logistic()
"""The logistic loss (c = 1/4)."""


@dataclass(frozen=True)
class Huber:
    """CMS's Huber hinge with smoothing h (Section 3.4.2), c = 1/(2h).

    With u = 1 + h − z = 1 + h + m: ℓ = 0 for u ≤ 0, u²/(4h) for
    0 ≤ u ≤ 2h, u − h for u ≥ 2h; −ℓ′ = clip(u/(2h), 0, 1); ℓ″ = 1/(2h)
    on 0 ≤ u ≤ 2h (either one-sided value at the two kinks, where ℓ″ does
    not exist: the solver's generalised Hessian), 0 elsewhere. Functions of
    the negated margin m = −z, like :class:`Logistic`.
    """

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

    def curvature(self, m):
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
    """The public constants of one objective-perturbation fit (rescaled units).

    Attributes
    ----------
    epsilon_objective, epsilon_output : float
        ε_obj and ε_out, summing to ε.
    epsilon_prime : float
        ε′ of the objective noise b (density ∝ exp(−ε′‖b‖/2)).
    regularization : float
        Λ̃ = 1/(C n R²).
    extra_regularization : float
        Δ ≥ 0.
    noise_scale : float
        2/ε′, the scale of ‖b‖ ~ Gamma(d, 2/ε′).
    gradient_bound : float
        γ = GAMMA·(1 + d·noise_scale/n); the solver stops at γ/2.
    output_sensitivity : float
        S = 2γ/(Λ̃ + Δ).
    curvature : float
        c, the bound on the loss's ℓ″ the plan was made for.
    """

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
    n: int,
    C: float,
    row_norm: float,
    epsilon: float,
    *,
    dim: int = 1,
    curvature: float | None = None,
    output_share: float | None = None,
) -> ObjectivePlan:
    """ε′, Δ and the noise scales from public values only (module docstring).

    Parameters
    ----------
    n : int
        Number of training rows (public).
    C : float
        Inverse regularisation, Λ = 1/(C n) in the user's units.
    row_norm : float
        R, the bound on a row's norm with the intercept column appended.
    epsilon : float
        The fit's ε.
    dim : int, default=1
        d, the number of coordinates of v (features, plus 1 with an
        intercept); sets γ.
    curvature, output_share : float, optional
        c, the loss's bound on ℓ″ (``loss.curvature_bound``), and the output
        share; default 1/4 (:data:`LOGISTIC`) and :data:`OUTPUT_SHARE` (read
        at call time).

    Returns
    -------
    ObjectivePlan
    """
    c = LOGISTIC.curvature_bound if curvature is None else float(curvature)
    share = OUTPUT_SHARE if output_share is None else float(output_share)
    n, eps = int(n), float(epsilon)
    lam = 1.0 / (float(C) * n * float(row_norm) ** 2)
    eps_out = share * eps
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
    return ObjectivePlan(
        epsilon_objective=eps_obj,
        epsilon_output=eps_out,
        epsilon_prime=eps_prime,
        regularization=lam,
        extra_regularization=extra,
        noise_scale=scale,
        gradient_bound=gamma,
        output_sensitivity=2.0 * gamma / (lam + extra),
        curvature=c,
    )


def newton(X, s, lam, lin, max_iter, tol=None, stats=None, weights=None, loss=LOGISTIC):
    """argmin mean(ℓ(s v·x)) + (lam/2)‖v‖² + lin·v to ‖∇‖ ≤ tol.

    ``loss``: :data:`LOGISTIC` or a :class:`Huber` (whose Hessian is
    piecewise constant: a generalised Newton method, exact on each piece).
    With the Huber loss each step is the exact minimum along the Newton
    direction (:func:`_line_minimum`): with a tiny Λ the generalised
    Hessian of rows on a linear piece is Λ alone, the full step lands far
    past the rows' kinks, and backtracking then crawled (a miss in
    ``benchmarks/bench_solver_fuzz.py --huber 0.5``).
    Damped Newton with backtracking, and full steps once the Newton
    decrement gᵀH⁻¹g ≤ 1e-10·max(1, |J̃|) (there the objective's rounding
    would stall the line search). Only the final gradient check matters for
    privacy. ``tol`` defaults to γ/2 (objective perturbation); every
    mechanism of the linear classifiers uses this solver. If ``max_iter`` is hit before
    ``tol`` (or the Hessian is singular in floating point): None. ``stats``, a
    dict, receives the number of gradient checks made ("iterations"). ``weights``
    (in [0, 1], one per row; None: all 1) multiply the rows' losses.
    """
    tol = GAMMA / 2 if tol is None else float(tol)
    n, d = X.shape
    v = np.zeros(d)
    ridge = lam * np.eye(d)
    # The labels s = ±1 folded into the rows once (A = −s·X, an exact sign
    # flip, so A u = −s·(X u) and Aᵀp = −Xᵀ(s·p) bit for bit).
    XT = X.T
    A = -(s[:, None] * X)
    AT = A.T

    def objective(u):  # (J̃(u), the negated margins −s·(X u)), the latter reused
        mz = A @ u
        values = loss.value(mz)
        if weights is not None:
            values = weights * values
        return (float(values.sum() / n + 0.5 * lam * u @ u + lin @ u), mz)

    def gradient(u, p):  # ∇J̃(u), p = −ℓ′(s·(X u)) the per-row slopes
        if weights is not None:
            p = weights * p
        return (AT @ p) / n + lam * u + lin

    value, mz = objective(v)
    stats = {} if stats is None else stats
    for it in range(int(max_iter)):
        stats["iterations"] = it + 1
        grad = gradient(v, loss.slope(mz))
        if math.sqrt(float(grad @ grad)) <= tol:
            return v
        curv = loss.curvature(mz)
        if weights is not None:
            curv = weights * curv
        H = (XT * curv) @ X / n + ridge
        try:
            step = np.linalg.solve(H, grad)
        except np.linalg.LinAlgError:  # H singular in floating point
            return None
        if float(grad @ step) <= 1e-10 * max(1.0, abs(value)):  # full step
            v = v - step
            value, mz = objective(v)
            continue
        if loss.exact_line_search:
            t = _line_minimum(loss, mz, A @ step, v, step, lam, lin, n, weights)
            cand = v - t * step
            new, mz_new = objective(cand)
            if new <= value:
                v, value, mz = cand, new, mz_new
                continue
        t = 1.0
        while t > 1e-12:
            cand = v - t * step
            new, mz_new = objective(cand)
            if new <= value - 1e-4 * t * float(grad @ step):
                break
            t *= 0.5
        if t <= 1e-12:  # rounding-level decrease: the full Newton step
            cand = v - step
            new, mz_new = objective(cand)
        v, value, mz = cand, new, mz_new
    grad = gradient(v, loss.slope(A @ v))
    return v if math.sqrt(float(grad @ grad)) <= tol else None


def _line_minimum(loss, mz, q, v, p, lam, lin, n, weights) -> float:
    """argmin over t > 0 of J̃(v − t·p), by bisection on its derivative.

    ``mz`` = A v and ``q`` = A p (the negated margins move as mz − t q);
    φ′(t) = −[mean(ω·slope(mz − t q)·q) + lam (v − t p)·p + lin·p] is
    non-decreasing (J̃ is convex) and negative at 0 (a descent direction):
    bracketed by doubling from t = 1, then halved to float resolution.
    """
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
    X,
    s,
    lam,
    lin,
    max_iter: int,
    gradient_bound: float,
    what: str,
    weights=None,
    loss=LOGISTIC,
):
    """:func:`newton` to a computed ‖∇‖ ≤ ``gradient_bound``/2, certified.

    Stops at half the bound (the computed norm's float error is far below
    the other half, so the exact gradient is within ``gradient_bound``),
    runs at least :data:`~._base.SOLVER_MIN_ITER` iterations, and raises
    :class:`~._base.SolverError` if the tolerance is not reached (``what``
    names the mechanism).
    """
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


def fit_objective(
    X,
    s,
    plan: ObjectivePlan,
    row_norm: float,
    rng,
    max_iter: int,
    weights=None,
    loss=LOGISTIC,
):
    """The released weights in the user's units, w = (v̂ + z)/R.

    ``X``: clipped rows (intercept column appended), ``s`` ∈ {−1, +1};
    ``weights`` in [0, 1] (None: all 1): a weighted row's loss ωℓ still has
    |ωℓ′| ≤ 1 and 0 ≤ ωℓ″ ≤ c, all the proof uses (module docstring).
    ``loss`` must be the one ``plan`` was made for (its c; checked).
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
    v = certified_newton(
        X / R,
        s,
        plan.strong_convexity,
        b / n,
        max_iter,
        plan.gradient_bound,
        "objective perturbation",
        weights,
        loss,
    )
    v = release_weights(v, plan.output_sensitivity, plan.epsilon_output, rng)
    return v / R
