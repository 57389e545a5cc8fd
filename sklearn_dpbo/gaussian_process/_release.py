"""The two DP-GP releases, as plans fixed before the outputs are read.

A plan (map y ↦ μ_*, noise design, sensitivity, multiplier s; formulas:
:class:`DPGaussianProcessRegressor`, spec §3.3, §4.6) is built from public
quantities only (spec DP_GP.md §7); :meth:`ReleasePlan.release` alone reads
the (clipped, normalised) outputs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.linalg import cho_solve, solve_triangular

from ..bo._gp_posterior import ExactPosterior, robust_cholesky
from ..privacy._gaussian_mechanism import (
    analytic_gaussian_scale,
    gaussian_delta,
    hall_gaussian_scale,
    hall_is_valid,
)
from ..privacy._samplers import as_random_source, round_to_grid, sample_standard_normal
from ._cloaking import cloak


@dataclass(frozen=True)
class ReleasePlan:
    """A calibrated release at fixed query inputs (all fields public)."""

    method: str
    mean_map: np.ndarray  # C (n_* × n)
    basis: np.ndarray  # n_* × r: output = basis @ (whitened part), see release
    reduced_map: np.ndarray  # r × n (cloaking: C̃; standard: unused, empty)
    factor: np.ndarray  # noise factor L (r × r or n_* × n_*)
    sensitivity: float  # Δ in output units (normalised)
    scale: float  # multiplier s: noise = s · factor @ g
    calibration: str  # "analytic" or "hall"
    not_dp: tuple  # why the paper's calibration is not (ε, δ)-DP here; () if it is
    solver: dict  # public solver diagnostics (cloaking)
    query_factor: np.ndarray  # Cholesky factor of k(X_*, X_*) (predict's interpolation)

    def noise_covariance(self) -> np.ndarray:
        """Covariance of the added noise at the query inputs (normalised units)."""
        B = self.scale * (self.basis @ self.factor)
        return B @ B.T

    def noise_std(self) -> np.ndarray:
        B = self.scale * (self.basis @ self.factor)
        return np.sqrt(np.sum(B**2, axis=1))

    def release(self, y: np.ndarray, rng) -> np.ndarray:
        """The DP vector at the query inputs for clipped normalised ``y``, rounded
        to a public grid (``privacy._samplers.round_to_grid``)."""
        y = np.asarray(y, dtype=float)
        rng = as_random_source(rng)
        if self.method == "cloaking":
            r = self.factor.shape[0]
            if r == 0:
                return np.zeros(self.basis.shape[0])
            # Whitened: t = L⁻¹ C̃ y + s g  (noise N(0, s² I_r)).
            t = solve_triangular(self.factor, self.reduced_map @ y, lower=True)
            t = t + self.scale * sample_standard_normal(r, rng)
            t = round_to_grid(t, self.scale)
            return self.basis @ (self.factor @ t)
        mu = self.mean_map @ y
        noisy = mu + self.scale * (self.factor @ sample_standard_normal(mu.size, rng))
        floor = self.scale * float(np.sqrt(np.min(np.sum(self.factor**2, axis=1))))
        return round_to_grid(noisy, floor) if floor > 0 else noisy


def paper_sensitivity_factor(posterior: ExactPosterior) -> float:
    """The paper's bound max(P, N) on max_j sqrt([AKA]_jj) (eqs. 3–4, ``msense``):
    P (N) the largest row sum of A with negative (positive) entries zeroed.
    Stated for kernels in [0, 1] by the paper's informal argument; for a
    kernel variance c it is too small by about √c (:func:`plan_release`
    checks it against the exact factor)."""
    n = posterior.X.shape[0]
    A = cho_solve((posterior.L, True), np.eye(n), check_finite=False)
    pos = np.clip(A, 0, None).sum(axis=1).max()
    neg = np.clip(-A, 0, None).sum(axis=1).max()
    return float(max(pos, neg))


_HALL_NOT_DP = (
    "Hall's multiplier is proved for ε ≤ 1 and is below the analytic scale here"
)
_PN_NOT_DP = (
    "the paper's bound max(P, N) assumes kernel values in [0, 1] and is below "
    "the exact RKHS sensitivity of this kernel"
)


def _calibrate(sensitivity, epsilon, delta, paper_faithful):
    """(s, calibration, not_dp): Hall's multiplier or the analytic scale."""
    if paper_faithful:
        s = hall_gaussian_scale(sensitivity, epsilon, delta)
        return s, "hall", () if hall_is_valid(epsilon, delta) else (_HALL_NOT_DP,)
    return analytic_gaussian_scale(sensitivity, epsilon, delta), "analytic", ()


def plan_release(
    method: str,
    posterior,
    Xq: np.ndarray,
    *,
    width: float,
    epsilon: float,
    delta: float,
    paper_faithful: bool = False,
    solver_tol: float = 1e-3,
) -> ReleasePlan:
    """The release plan at query inputs ``Xq``; ``width`` is d in normalised units.

    Raises ``LinAlgError`` (public, before any output is read) if k(X_*, X_*)
    cannot be factored (a kernel that is not positive semi-definite).
    ``paper_faithful`` with ``"standard"``: the paper's max(P, N) is the
    sensitivity factor; where it is below the exact factor
    f = max_j sqrt([AKA]_jj) · (1 + 1e-9) (the default calibration's,
    rounding margin included), the plan is marked not DP unless Hall's
    scale s still gives δ(ε; d f / s) ≤ δ, the exact condition for the
    Gaussian mechanism (e.g. c · RBF with c > 1: max(P, N) is about √c too
    small, not DP at ε = 1, δ = 1e-3 from c ≈ 2.3 on).
    """
    C = posterior.mean_map(Xq)
    Lq, _ = robust_cholesky(posterior.kernel(Xq))
    if method == "cloaking":
        cov = cloak(C, tol=solver_tol)
        sens = width * cov.sensitivity_factor
        if sens > 0:
            s, calib, not_dp = _calibrate(sens, epsilon, delta, paper_faithful)
        else:
            s, calib, not_dp = 0.0, "analytic", ()
        d = cov.design
        solver = dict(rank=cov.rank, n_iter=0, converged=True, logdet_gap=0.0)
        if d is not None:
            solver.update(
                n_iter=d.n_iter, converged=d.converged, logdet_gap=d.logdet_gap
            )
        parts = (cov.basis, cov.reduced_map, cov.factor)
        return ReleasePlan(method, C, *parts, sens, s, calib, not_dp, solver, Lq)
    exact = float(np.max(posterior.rkhs_factors())) * (1.0 + 1e-9)
    factor_h = exact
    if paper_faithful:
        if not isinstance(posterior, ExactPosterior):
            raise ValueError(
                "paper_faithful=True with method='standard' uses the paper's "
                "bound max(P, N), defined for the exact GP only; drop inducing "
                "points or use paper_faithful=False (exact sensitivity)."
            )
        factor_h = paper_sensitivity_factor(posterior)
    sens = width * factor_h
    s, calib, not_dp = _calibrate(sens, epsilon, delta, paper_faithful)
    if factor_h < exact and gaussian_delta(epsilon, width * exact / s) > delta:
        not_dp += (_PN_NOT_DP,)  # max(P, N) too small for Hall's slack to cover
    solver = dict(rank=int(Xq.shape[0]), n_iter=0, converged=True, logdet_gap=0.0)
    eye, empty = np.eye(Xq.shape[0]), np.zeros((0, C.shape[1]))
    parts = (sens, s, calib, not_dp, solver, Lq)
    return ReleasePlan("standard", C, eye, empty, Lq, *parts)
