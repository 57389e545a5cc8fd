"""Ridge regression by output perturbation, with clipped rows and targets."""

from __future__ import annotations

import math
import numbers

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin

from .._compat import Interval
from ..privacy._validation import EPSILON_CONSTRAINTS
from ._base import (
    GRADIENT_TOL,
    SOLVER_MIN_ITER,
    DPLearnerMixin,
    SolverError,
    clip_rows,
    conditioned,
    float_rows,
    gradient_slack,
    map_features,
    release_weights,
)

__all__ = ["DPLinearRegression", "ridge_sensitivity", "ridge_regularization"]


def ridge_sensitivity(
    n: int, alpha: float, row_norm: float, target_bound: float
) -> float:
    """L2-sensitivity of the released ridge weights (derived here, conservative).

    J(w) = (1/(2n)) Σ (y_i − w·x_i)² + (α/2)‖w‖², ‖x_i‖ ≤ R, |y_i| ≤ B.

    1. ‖w*‖ ≤ B/√α: J(w*) ≤ J(0) ≤ B²/2 and J(w*) ≥ (α/2)‖w*‖².
    2. One row's loss has gradient (w·x − y)x, of norm ≤ R(R‖w‖ + B) ≤
       R(RB/√α + B) on that ball.
    3. J is α-strongly convex; replacing one row adds g = (ℓ′ − ℓ)/n, and
       for w₂ = argmin(J + g): α‖w₁ − w₂‖² ≤ (∇J(w₁) − ∇J(w₂))·(w₁ − w₂)
       = ∇g(w₂)·(w₁ − w₂) (CMS 2011, Lemma 7), so ‖w₁ − w₂‖ ≤ ‖∇g(w₂)‖/α
       ≤ 2R(RB/√α + B)/(nα).

    Plus 2·GRADIENT_TOL·G/α for the solver (:func:`~._base.gradient_slack`),
    G = R(RB/√α + B) the bound of step 2. α is first raised to the solver's
    conditioning floor R²/(κ_max − 1) (:func:`ridge_regularization`).
    """
    a = ridge_regularization(alpha, row_norm)
    G = ridge_gradient_bound(a, row_norm, target_bound)
    return 2.0 * G / (int(n) * a) + gradient_slack(a, G)


def ridge_gradient_bound(alpha: float, row_norm: float, target_bound: float) -> float:
    """G = R(RB/√α + B): the bound on one row's loss gradient on ‖w‖ ≤ B/√α.

    Step 2 of :func:`ridge_sensitivity`, with α the regularisation in use
    (already raised by :func:`ridge_regularization`); the solver's gradient
    tolerance is GRADIENT_TOL·G.
    """
    R, B = float(row_norm), float(target_bound)
    return R * (R * B / math.sqrt(float(alpha)) + B)


def ridge_regularization(alpha: float, row_norm: float) -> float:
    """α raised to R²/(κ_max − 1): XᵀX/n + αI has condition number ≤ 10⁵.

    Public values only; binds for α < R²·10⁻⁵.
    """
    R = float(row_norm)
    return conditioned(float(alpha), R * R)


class DPLinearRegression(DPLearnerMixin, RegressorMixin, BaseEstimator):
    """Ridge regression, ε-DP by output perturbation (CMS 2011, Algorithm 1).

    ŵ = argmin (1/(2n)) Σ (y_i − w·x_i)² + (α/2)‖w‖² on rows clipped to
    L2 norm ``data_norm`` and targets clipped into [−target_bound,
    target_bound], released as ŵ + b with density ∝ exp(−ε‖b‖/Δ), Δ from
    :func:`ridge_sensitivity`. ``alpha`` is per sample (the scaling of
    scikit-learn's ``ElasticNet``, not of ``Ridge``, whose α is α·n here).
    With ``fit_intercept`` a constant 1 is appended (regularised
    intercept). Non-finite rows become zero rows, non-finite targets 0.

    Privacy: pure ε-DP with respect to replacing one row of ``X, y`` (n
    public), the solver's tolerance included in Δ (the gradient is checked
    after the solve; α below R²·10⁻⁵ acts as R²·10⁻⁵, which keeps the
    system's condition number ≤ 10⁵). Noise from the OS CSPRNG.

    Parameters
    ----------
    epsilon : float, default=1.0
    data_norm : float, default=1.0
        Public bound on a row's L2 norm (rows are scaled down to it).
    target_bound : float, default=1.0
        Public bound B on |y| (targets are clipped into [−B, B]).
    alpha : float, default=1.0
        Regularisation Λ (per sample). Δ grows like α^(−3/2) when α is small.
    fit_intercept : bool, default=True
    noise_random_state : int or None, default=None
        Tests only (``PrivacyLeakWarning``); None is the OS CSPRNG.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
    intercept_ : float
    sensitivity_ : float
    """

    _parameter_constraints: dict = {
        "epsilon": EPSILON_CONSTRAINTS,
        "bounds": [None, tuple, list],
        "data_norm": [None, Interval(numbers.Real, 0, None, closed="neither")],
        "target_bound": [
            Interval(numbers.Real, 0, None, closed="neither"),
            tuple,
            list,
        ],
        "alpha": [Interval(numbers.Real, 0, None, closed="neither")],
        "fit_intercept": ["boolean"],
        "noise_random_state": [
            None,
            Interval(numbers.Integral, 0, None, closed="left"),
        ],
    }

    def __init__(
        self,
        epsilon=1.0,
        bounds=None,
        data_norm=None,
        target_bound=1.0,
        alpha=1.0,
        fit_intercept=True,
        noise_random_state=None,
    ):
        self.epsilon = epsilon
        self.bounds = bounds
        self.data_norm = data_norm
        self.target_bound = target_bound
        self.alpha = alpha
        self.fit_intercept = fit_intercept
        self.noise_random_state = noise_random_state

    def _target_map(self) -> tuple[float, float]:
        """(midpoint, half-width) of the public target range: y ↦ (y − mid)/half.

        ``target_bound=B`` is [−B, B] (mid 0, half B); ``(low, high)`` is
        mapped onto [−1, 1]. Public (the parameter only).
        """
        tb = self.target_bound
        if isinstance(tb, (tuple, list)):
            try:
                low, high = (float(v) for v in tb)
            except (TypeError, ValueError):
                low = high = math.nan
            if not (math.isfinite(low) and math.isfinite(high) and low < high):
                raise ValueError(
                    f"{type(self).__name__}(target_bound=...) must be a number "
                    "B > 0 (targets in [−B, B]) or a pair (low, high) with "
                    f"low < high, declared from the domain; got {tb!r}."
                )
            return (low + high) / 2, (high - low) / 2
        return 0.0, float(tb)

    def _check_privacy_params(self) -> float:
        eps = super()._check_privacy_params()
        self._target_map()
        return eps

    def _check_targets(self, y, n: int):
        """``y`` checked from its shape (the mixin's), then read entry by entry
        as a float (a non-number is NaN, then 0 after the target map's midpoint)."""
        y = super()._check_targets(y, n)
        return float_rows(np.asarray(y).reshape(-1, 1))[:, 0]

    def _rows(self, X) -> np.ndarray:
        """Rows mapped into the ball by the public map: :func:`~._base.map_features`
        (bounds) then :func:`~._base.clip_rows` (norm, NaN rows, intercept)."""
        bounds, norm, _ = self._ball(X.shape[1])
        return clip_rows(map_features(X, bounds), norm, intercept=self.fit_intercept)

    def _fit_private(self, X, y, rng):
        eps = self._check_privacy_params()
        X = np.asarray(X, dtype=float)
        if X.ndim != 2:
            raise ValueError(f"X must be 2-D; got an array of shape {X.shape}.")
        Xc = self._rows(X)
        n, d = Xc.shape
        y = np.asarray(y, dtype=float).reshape(-1)
        if y.shape[0] != n or n < 1:
            raise ValueError(f"X has {n} rows and y has {y.shape[0]}: need n ≥ 1.")
        mid, half = self._target_map()
        y = np.clip(np.where(np.isfinite(y), (y - mid) / half, 0.0), -1.0, 1.0)
        B = 1.0  # the targets in the map's units
        row_norm = self._ball(X.shape[1])[2]
        a = ridge_regularization(float(self.alpha), row_norm)
        A = Xc.T @ Xc / n + a * np.eye(d)
        rhs = Xc.T @ y / n
        w = np.linalg.solve(A, rhs)
        # computed ‖∇J‖ ≤ half the bound: its float error is far below the
        # other half, so the exact gradient is ≤ GRADIENT_TOL·G (the slack)
        tol = GRADIENT_TOL * ridge_gradient_bound(a, row_norm, B) / 2
        for _ in range(SOLVER_MIN_ITER):  # refine until certified
            grad = A @ w - rhs
            if float(np.linalg.norm(grad)) <= tol:
                break
            w = w - np.linalg.solve(A, grad)
        else:
            raise SolverError(
                f"ridge: the gradient tolerance {tol:g} was not reached; the "
                "sensitivity needs it (an event outside the guarantee: please "
                "report it)."
            )
        sens = ridge_sensitivity(n, float(self.alpha), row_norm, B)
        w = half * release_weights(w, sens, eps, rng)  # in the targets' units
        if self.fit_intercept:
            self.coef_, self.intercept_ = w[:-1], mid + float(w[-1])
        else:
            self.coef_, self.intercept_ = w, mid
        self.n_features_in_ = X.shape[1]
        self.sensitivity_ = float(half * sens)
        return self

    def predict(self, X):
        """x̃·coef_ + intercept_, x̃ the row mapped by ``fit``'s public map."""
        Xc = self._predict_rows(X)
        if self.fit_intercept:
            Xc = Xc[:, :-1]
        return Xc @ self.coef_ + self.intercept_
