"""The public linear algebra of GP regression with fixed hyper-parameters.

With public inputs X and fixed kernel and noise variance σ², the posterior
mean at query inputs X_* is *linear* in the outputs y, ``μ_* = C y``, and
the posterior covariance does not depend on y (Rasmussen & Williams 2006,
eqs. 2.25–2.26). The private y never enters this module.

- :class:`ExactPosterior`: ``C = K_*f (K + σ²I)⁻¹`` by Cholesky (GPML
  Algorithm 2.1), O(n³).
- :class:`InducingPosterior`: FITC with public inducing inputs Z
  (Snelson & Ghahramani 2006; the authors' ``DPGP_pseudo_prior``), O(n m²):
  ``Λ = diag(K_NN − K_NM K_MM⁻¹ K_MN)``, ``D = Λ + σ²I``,
  ``Q = K_MM + K_MN D⁻¹ K_NM``, weights ``w = W y`` with
  ``W = Q⁻¹ K_MN D⁻¹`` and mean ``μ(x) = k(x, Z) w``.

``rkhs_factors()``: per training point j, the RKHS norm of the change of
the mean when y_j moves by 1 (spec DP_GP.md §3.1).
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import cho_solve, cholesky, solve_triangular

_JITTERS = (0.0, 1e-10, 1e-8, 1e-6, 1e-4)  # relative to the public diagonal


def robust_cholesky(S: np.ndarray) -> tuple[np.ndarray, float]:
    """Lower Cholesky factor of S + τI with the smallest τ of a fixed ladder.

    τ = j · mean(diag S) for j in (0, 1e-10, …, 1e-4): adding τI only
    enlarges a noise covariance (never lowers privacy) and is data-free.
    Returns (L, τ). Raises ``numpy.linalg.LinAlgError`` if all fail.
    """
    S = 0.5 * (S + S.T)
    scale = float(np.mean(np.diag(S))) if S.size else 1.0
    scale = scale if scale > 0 else 1.0
    for j in _JITTERS:
        tau = j * scale
        try:
            L = cholesky(S + tau * np.eye(S.shape[0]), lower=True, check_finite=False)
        except np.linalg.LinAlgError:
            continue
        if np.all(np.isfinite(L)):
            return L, tau
    raise np.linalg.LinAlgError(
        "the kernel matrix is not positive definite even with jitter 1e-4 x its "
        "mean diagonal; use a larger noise variance (alpha) or fewer duplicate "
        "inputs."
    )


class _Posterior:
    def covariance(self, Xq: np.ndarray) -> np.ndarray:
        """Σ_* = K_** − AᵀA + BᵀB, (A, B) from ``_cov_terms``."""
        A, B = self._cov_terms(Xq)
        return self.kernel(Xq) - A.T @ A + B.T @ B

    def variance(self, Xq: np.ndarray) -> np.ndarray:
        """diag Σ_*, clipped at 0."""
        A, B = self._cov_terms(Xq)
        var = self.kernel.diag(Xq) - np.sum(A**2, axis=0) + np.sum(B**2, axis=0)
        return np.maximum(var, 0.0)


class ExactPosterior(_Posterior):
    """Exact GP posterior maps for public X, kernel k and noise variance σ²."""

    def __init__(self, kernel, X: np.ndarray, noise: float):
        self.kernel = kernel
        self.X = X
        self.noise = float(noise)
        # GPML Alg. 2.1, line 2: L = chol(K + σ² I)
        self.L, _ = robust_cholesky(kernel(X) + self.noise * np.eye(X.shape[0]))

    def mean_map(self, Xq: np.ndarray) -> np.ndarray:
        """C = K_*f (K + σ²I)⁻¹ (n_* × n), so that μ_* = C y."""
        Kqf = self.kernel(Xq, self.X)
        return cho_solve((self.L, True), Kqf.T, check_finite=False).T

    def _cov_terms(self, Xq):
        """Σ_* = K_** − K_*f (K + σ²I)⁻¹ K_f* (GPML Alg. 2.1, lines 5–6)."""
        V = solve_triangular(self.L, self.kernel(self.X, Xq), lower=True)
        return V, np.zeros((0, V.shape[1]))

    def rkhs_factors(self) -> np.ndarray:
        """sqrt([A K A]_jj) = sqrt(A_jj − σ² Σ_i A_ij²), A = (K + σ²I)⁻¹ (spec §3.1
        item 3, A K A = A − σ² A²; module docstring)."""
        A = cho_solve((self.L, True), np.eye(self.X.shape[0]), check_finite=False)
        aka = np.diag(A) - self.noise * np.sum(A**2, axis=0)
        return np.sqrt(np.maximum(aka, 0.0))


class InducingPosterior(_Posterior):
    """FITC posterior maps with public inducing inputs Z (m ≪ n)."""

    def __init__(self, kernel, X: np.ndarray, noise: float, Z: np.ndarray):
        self.kernel = kernel
        self.X = X
        self.Z = Z
        self.noise = float(noise)
        Kmm = kernel(Z)
        self.Lmm, _ = robust_cholesky(Kmm)
        Kmn = kernel(Z, X)
        V = solve_triangular(self.Lmm, Kmn, lower=True)  # m × n
        lam = np.maximum(kernel.diag(X) - np.sum(V**2, axis=0), 0.0)
        self._dinv = 1.0 / (lam + self.noise)  # D⁻¹, D = Λ + σ²I
        Q = Kmm + (Kmn * self._dinv) @ Kmn.T
        self.Lq, _ = robust_cholesky(Q)
        # W = Q⁻¹ K_MN D⁻¹ (m × n): y ↦ inducing weights
        self.W = cho_solve((self.Lq, True), Kmn * self._dinv, check_finite=False)
        self._Kmm = Kmm

    def mean_map(self, Xq: np.ndarray) -> np.ndarray:
        """C = k(X_*, Z) W (n_* × n)."""
        return self.kernel(Xq, self.Z) @ self.W

    def _cov_terms(self, Xq):
        """Σ_* = K_** − K_*M (K_MM⁻¹ − Q⁻¹) K_M* (FITC, latent function)."""
        Kmq = self.kernel(self.Z, Xq)
        return tuple(solve_triangular(L, Kmq, lower=True) for L in (self.Lmm, self.Lq))

    def rkhs_factors(self) -> np.ndarray:
        """sqrt(w_jᵀ K_MM w_j), w_j = column j of W (spec §3.1, [D])."""
        return np.sqrt(np.maximum(np.sum(self.W * (self._Kmm @ self.W), axis=0), 0))
