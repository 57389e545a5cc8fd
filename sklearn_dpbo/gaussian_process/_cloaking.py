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

Solver [D][S] (the spec's §4.3 "better solver"): :func:`d_optimal_design`.
At its stop ``log det M − log det M* ≤ r log(max_j ω_j / r)`` (weak
duality: for feasible M, tr(M⁻¹ W(u)) ≤ 1, and AM–GM), reported as the
certified gap. Privacy never depends on convergence: the sensitivity is
recomputed exactly from the Cholesky factor used to sample the noise.

Rank reduction (§4.5) [D][S]: C is numerically low-rank for smooth
kernels, so the problem is solved in the span of its leading left singular
vectors U_r (singular values above 1e-8 times the largest; a fixed,
data-free threshold). The release ``U_r (U_rᵀ C y + s z̃)`` is
post-processing of a DP release of ``U_rᵀ C y``.
"""

from __future__ import annotations

import hashlib
import math
import threading
from dataclasses import dataclass

import numpy as np
from scipy.linalg import solve_triangular
from scipy.linalg.lapack import dtrtrs

from ..bo._gp_posterior import robust_cholesky

_SAFETY = 1e-9  # relative margin over the solve's rounding (≈1e-13) on Δ₁


@dataclass(frozen=True)
class DOptimalDesign:
    """Weights u (simplex) and the solver's certificate."""

    weights: np.ndarray
    n_iter: int
    converged: bool
    logdet_gap: float  # certified bound on log det M − log det M*


def _design_factor(P: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Lower-triangular L with L Lᵀ = W(u) = P diag(u) Pᵀ, from a QR of (P √u)ᵀ
    (condition κ, not κ²); a singular R falls back to a jittered Cholesky."""
    B = P * np.sqrt(u)
    R = np.linalg.qr(B.T, mode="r")
    diag = np.abs(np.diag(R))
    if diag.size and diag.min() > 1e-13 * diag.max():
        return (R * np.sign(np.diag(R))[:, None]).T
    L, _ = robust_cholesky(B @ B.T)
    return L


def _leverages(P: np.ndarray, u: np.ndarray) -> np.ndarray:
    """ω_j = p_jᵀ W(u)⁻¹ p_j per column p_j of P, with :func:`_design_factor`'s
    factor read off the raw QR (Rᵀ; its exact sign flips leave ω bit-identical)."""
    r = P.shape[0]
    h, _ = np.linalg.qr((P * np.sqrt(u)).T, mode="raw")
    L = h[:, :r]  # lower triangle Rᵀ (Householder vectors above: not read)
    diag = np.abs(np.diag(L))
    if diag.size and diag.min() > 1e-13 * diag.max():
        # What solve_triangular(L, P, lower=True) calls for this Fortran L.
        V, info = dtrtrs(L, P, lower=1)
        if info != 0:
            raise np.linalg.LinAlgError("singular design factor")
    else:  # the jittered-Cholesky fallback
        V = solve_triangular(_design_factor(P, u), P, lower=True)
    return np.sum(V**2, axis=0)


def d_optimal_design(
    P: np.ndarray, *, tol: float = 1e-3, max_iter: int = 20_000
) -> DOptimalDesign:
    """Maximise log det Σ_j u_j p_j p_jᵀ over the simplex (columns p_j of P).

    ``P`` is r × n of rank r. Titterington's multiplicative algorithm
    ``u_j ← u_j ω_j / r``, ω_j = p_jᵀ W(u)⁻¹ p_j (monotone in log det and
    convergent: Yu, Ann. Statist. 2010), stopped when max_j ω_j ≤ r(1 + tol).
    Points that cannot support the optimum are deleted on the way by the
    Harman–Pronzato test (Stat. Probab. Lett. 2007): with ε = max ω/r − 1,
    every j with ω_j < r(1 + ε/2 − sqrt(ε(4 + ε − 4/r))/2) has zero optimal
    weight. The final certificate is computed on *all* n points.
    """
    r, n = P.shape
    if not np.all(np.isfinite(P)):
        raise ValueError("the cloaking map contains infs or NaNs.")
    keep = np.arange(n)
    u = np.full(n, 1.0 / n)
    it = 0
    Pk = P
    while True:
        omega = _leverages(Pk, u)
        excess = float(np.max(omega)) / r - 1.0
        if excess <= tol or it >= max_iter:
            break
        it += 1
        u = u * omega / r
        u /= u.sum()
        if r > 1:
            h = r * (
                1.0 + excess / 2 - math.sqrt(excess * (4.0 + excess - 4.0 / r)) / 2
            )
            alive = omega >= h
            if not np.all(alive) and np.count_nonzero(alive) >= r:
                keep, u = keep[alive], u[alive] / u[alive].sum()
                Pk = P[:, keep]
    weights = np.zeros(n)
    weights[keep] = u
    omega_all = _leverages(P, weights)
    if np.max(omega_all) > r * (1.0 + tol) and keep.size < n:
        # a deleted point is needed after all (rounding): resume without deletion
        weights = 0.5 * weights + 0.5 / n
        while it < max_iter:
            omega_all = _leverages(P, weights)
            if np.max(omega_all) <= r * (1.0 + tol):
                break
            weights = weights * omega_all / r
            weights /= weights.sum()
            it += 1
        omega_all = _leverages(P, weights)
    ratio = float(np.max(omega_all)) / r
    return DOptimalDesign(
        weights=weights,
        n_iter=it,
        converged=ratio <= 1.0 + tol,
        logdet_gap=float(r * math.log(max(ratio, 1.0))),
    )


@dataclass(frozen=True)
class CloakingCovariance:
    """The public noise design: release ``basis @ (C̃ y + s · factor @ g)``."""

    basis: np.ndarray  # U_r, n_* × r
    reduced_map: np.ndarray  # C̃ = U_rᵀ C, r × n
    factor: np.ndarray  # lower Cholesky factor L of M̃ (r × r)
    sensitivity_factor: float  # Δ₁ = max_j ‖L⁻¹ c̃_j‖ (+ safety margin)
    design: DOptimalDesign | None

    @property
    def rank(self) -> int:
        return int(self.basis.shape[1])


_SOLVED: dict = {}  # digest of a public map C and tol → its CloakingCovariance
_SOLVED_BYTES = 2**26  # the kept solutions' arrays take at most 64 MiB
_SOLVED_LOCK = threading.Lock()  # fits may run in threads


def cloak(C: np.ndarray, *, tol: float = 1e-3) -> CloakingCovariance:
    """Rank-reduce C and solve the cloaking problem (spec §4.5, §4.6 steps 3–5),
    cached by the public (C, ``tol``): the latest 64 MiB, arrays read-only."""
    C = np.asarray(C, dtype=float)
    digest = hashlib.sha256(C.tobytes()).digest()  # values in C order
    key = (C.shape, C.strides, float(tol), digest)  # layout: same BLAS calls
    with _SOLVED_LOCK:
        if key in _SOLVED:
            return _SOLVED[key][0]
    cov = _cloak(C, tol)
    arrays = [cov.basis, cov.reduced_map, cov.factor]
    arrays += [] if cov.design is None else [cov.design.weights]
    for a in arrays:
        a.setflags(write=False)
    size = sum(a.nbytes for a in arrays)
    with _SOLVED_LOCK:
        while _SOLVED and size + sum(b for _, b in _SOLVED.values()) > _SOLVED_BYTES:
            del _SOLVED[next(iter(_SOLVED))]  # oldest first
        _SOLVED[key] = (cov, size)
    return cov


def _cloak(C: np.ndarray, tol: float) -> CloakingCovariance:
    n_q = C.shape[0]
    if C.size == 0 or not np.any(C):
        # No output can move the predictions: nothing to protect, no noise.
        return CloakingCovariance(
            np.zeros((n_q, 0)), np.zeros((0, C.shape[1])), np.zeros((0, 0)), 0.0, None
        )
    U, S, _ = np.linalg.svd(C, full_matrices=False)
    r = int(np.sum(S > 1e-8 * S[0]))
    Ur = U[:, :r]
    Ct = Ur.T @ C
    design = d_optimal_design(Ct, tol=tol)
    # M̃ = r W(u) (c̃ᵀM̃⁻¹c̃ ≈ 1 at the optimum), factored without forming it.
    L = _design_factor(Ct, r * design.weights)
    V = solve_triangular(L, Ct, lower=True)
    delta1 = float(np.sqrt(np.max(np.sum(V**2, axis=0)))) * (1.0 + _SAFETY)
    return CloakingCovariance(Ur, Ct, L, delta1, design)
