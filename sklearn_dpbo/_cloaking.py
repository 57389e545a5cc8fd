"""The cloaking noise covariance (Smith et al., AISTATS 2018, §3).

The posterior mean at public query inputs is ``μ_* = C y``; changing y_j by
t moves it by ``t c_j`` (column j of C). For a noise covariance M, the
Mahalanobis sensitivity is ``d · max_j sqrt(c_jᵀ M⁻¹ c_j)`` (spec DP_GP.md
§4.2, square-root form [S]). Cloaking chooses M of least volume:

    minimise log det M   s.t.  c_jᵀ M⁻¹ c_j ≤ 1  for every j        (§4.3)

the minimum-volume origin-centred ellipsoid containing ±c_j, i.e. the
D-optimal design problem: with weights u on the simplex and
``W(u) = Σ_j u_j c_j c_jᵀ``, the optimum is ``M* = r W(u*)`` where u*
maximises log det W(u) (Kiefer & Wolfowitz 1960) [D].

Solver [D][S]: the Wolfe–Atwood Frank–Wolfe method with away steps
(Todd & Yildirim, "On Khachiyan's algorithm for the computation of
minimum-volume enclosing ellipsoids", Discrete Appl. Math. 2007), with
Sherman–Morrison updates of W⁻¹ and of every leverage
``ω_j = c_jᵀ W⁻¹ c_j`` (O(n r) per step, refreshed exactly every 200
steps). It stops when ``max_j ω_j ≤ r (1 + tol)``; then
``log det M − log det M* ≤ r log(max_j ω_j / r)`` (weak duality: for
feasible M, tr(M⁻¹ W(u)) ≤ 1, and AM–GM), which is reported as the
certified gap. Privacy never depends on convergence: the sensitivity is
recomputed exactly from the Cholesky factor used to sample the noise.

Rank reduction (§4.5) [D][S]: C is numerically low-rank for smooth
kernels, so the problem is solved in the span of its leading left singular
vectors U_r (singular values above ``rank_tol`` times the largest; a
fixed, data-free threshold). The release ``U_r (U_rᵀ C y + s z̃)`` is
post-processing of a DP release of ``U_rᵀ C y``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.linalg import cho_solve, solve_triangular

from ._gp_posterior import robust_cholesky

__all__ = ["DOptimalDesign", "d_optimal_design", "CloakingCovariance", "cloak"]

# Relative margin on the recomputed sensitivity factor: covers the float
# rounding of the triangular solve (≈1e-13 relative) with room to spare.
_SAFETY = 1e-9
_REFRESH = 200


@dataclass(frozen=True)
class DOptimalDesign:
    """Weights u (simplex) and the solver's certificate."""

    weights: np.ndarray
    n_iter: int
    converged: bool
    max_leverage_ratio: float  # max_j ω_j / r at the end (1 at the optimum)
    logdet_gap: float  # certified bound on log det M − log det M*


def _leverages(P: np.ndarray, u: np.ndarray):
    W = (P * u) @ P.T
    L, _ = robust_cholesky(W)
    Winv = cho_solve((L, True), np.eye(P.shape[0]), check_finite=False)
    V = solve_triangular(L, P, lower=True)
    return Winv, np.sum(V**2, axis=0)


def d_optimal_design(
    P: np.ndarray, *, tol: float = 1e-6, max_iter: int = 100_000
) -> DOptimalDesign:
    """Maximise log det Σ_j u_j p_j p_jᵀ over the simplex (columns p_j of P).

    ``P`` is r × n of rank r. Wolfe–Atwood steps toward the point of largest
    leverage ω_j = p_jᵀ W⁻¹ p_j, away steps from the active point of
    smallest leverage, exact line search
    ``λ* = (ω_k − r) / (r (ω_k − 1))``; stops when max ω ≤ r(1 + tol).
    """
    r, n = P.shape
    u = np.full(n, 1.0 / n)
    Winv, omega = _leverages(P, u)
    it = 0
    converged = False
    while True:
        if it % _REFRESH == 0 and it:
            Winv, omega = _leverages(P, u)
        jp = int(np.argmax(omega))
        if omega[jp] <= r * (1.0 + tol):
            converged = True
            break
        if it >= max_iter:
            break
        it += 1
        active = np.flatnonzero(u > 0)
        jm = int(active[np.argmin(omega[active])])
        om_p, om_m = float(omega[jp]), float(omega[jm])
        if om_p / r - 1.0 >= 1.0 - om_m / r:
            k, lam = jp, (om_p - r) / (r * (om_p - 1.0))
        else:
            k = jm
            floor = -u[k] / (1.0 - u[k]) if u[k] < 1.0 else -np.inf
            lam_star = (om_m - r) / (r * (om_m - 1.0)) if om_m > 1.0 else -np.inf
            lam = max(lam_star, floor)
            if not np.isfinite(lam) or lam >= 0:
                break  # cannot improve (degenerate); report not converged
        beta = lam / (1.0 - lam)
        denom = 1.0 + beta * omega[k]
        if denom <= 1e-12:
            Winv, omega = _leverages(P, u)  # numerically unsafe update: refresh
            continue
        w = Winv @ P[:, k]
        v = P.T @ w
        omega = (omega - beta * v**2 / denom) / (1.0 - lam)
        Winv = (Winv - beta * np.outer(w, w) / denom) / (1.0 - lam)
        dropped = lam < 0 and lam <= -u[k] / (1.0 - u[k]) * (1 - 1e-12)
        u *= 1.0 - lam
        u[k] += lam
        if dropped or u[k] < 0:
            u[k] = 0.0
    Winv, omega = _leverages(P, u)
    ratio = float(np.max(omega)) / r
    return DOptimalDesign(
        weights=u,
        n_iter=it,
        converged=converged and ratio <= 1.0 + tol,
        max_leverage_ratio=ratio,
        logdet_gap=float(r * math.log(max(ratio, 1.0))),
    )


@dataclass(frozen=True)
class CloakingCovariance:
    """The noise design of a cloaking release (public: depends on C only).

    The release is ``basis @ (C̃ y + s · factor @ g)``, g ~ N(0, I_r),
    C̃ = basisᵀ C; its sensitivity is ``d · sensitivity_factor``.
    """

    basis: np.ndarray  # U_r, n_* × r
    reduced_map: np.ndarray  # C̃ = U_rᵀ C, r × n
    factor: np.ndarray  # lower Cholesky factor L of M̃ (r × r)
    sensitivity_factor: float  # Δ₁ = max_j ‖L⁻¹ c̃_j‖ (+ safety margin)
    design: DOptimalDesign | None

    @property
    def rank(self) -> int:
        return int(self.basis.shape[1])

    def noise_covariance(self) -> np.ndarray:
        """U_r M̃ U_rᵀ (n_* × n_*), per unit of the multiplier s."""
        B = self.basis @ self.factor
        return B @ B.T

    def leverages(self) -> np.ndarray:
        """c_jᵀ M⁻¹ c_j for every training point j (each ≤ Δ₁²)."""
        V = solve_triangular(self.factor, self.reduced_map, lower=True)
        return np.sum(V**2, axis=0)


def cloak(
    C: np.ndarray,
    *,
    rank_tol: float = 1e-8,
    tol: float = 1e-6,
    max_iter: int = 100_000,
) -> CloakingCovariance:
    """Rank-reduce C and solve the cloaking problem (spec §4.5, §4.6 steps 3–5)."""
    n_q = C.shape[0]
    if C.size == 0 or not np.any(C):
        # No output can move the predictions: nothing to protect, no noise.
        return CloakingCovariance(
            np.zeros((n_q, 0)), np.zeros((0, C.shape[1])), np.zeros((0, 0)), 0.0, None
        )
    U, S, _ = np.linalg.svd(C, full_matrices=False)
    r = int(np.sum(S > rank_tol * S[0]))
    Ur = U[:, :r]
    Ct = Ur.T @ C
    design = d_optimal_design(Ct, tol=tol, max_iter=max_iter)
    M = (Ct * design.weights) @ Ct.T
    L, _ = robust_cholesky(r * M)  # scale: c̃ᵀM̃⁻¹c̃ ≈ 1 at the optimum
    V = solve_triangular(L, Ct, lower=True)
    delta1 = float(np.sqrt(np.max(np.sum(V**2, axis=0)))) * (1.0 + _SAFETY)
    return CloakingCovariance(Ur, Ct, L, delta1, design)
