"""Ridge regression by output perturbation, with clipped rows and targets."""

from __future__ import annotations

import math
import numbers
import warnings

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin

from .._compat import Interval
from ..privacy._validation import UselessReleaseWarning
from ._base import (
    GRADIENT_TOL,
    SHARED_CONSTRAINTS,
    SOLVER_MIN_ITER,
    DPLearnerMixin,
    SolverError,
    clip_rows,
    conditioned,
    float_rows,
    gradient_slack,
    map_features,
    private_matrix,
    release_weights,
)


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

    Plus :func:`~._base.gradient_slack` with G = R(RB/√α + B), α first raised
    to the conditioning floor R²/(κ_max − 1) (:func:`ridge_regularization`).
    """
    a = ridge_regularization(alpha, row_norm)
    G = ridge_gradient_bound(a, row_norm, target_bound)
    return 2.0 * G / (int(n) * a) + gradient_slack(a, G)


def ridge_gradient_bound(alpha: float, row_norm: float, target_bound: float) -> float:
    """G = R(RB/√α + B), step 2 of :func:`ridge_sensitivity`."""
    R, B = float(row_norm), float(target_bound)
    return R * (R * B / math.sqrt(float(alpha)) + B)


def _shape(X) -> tuple[int, int | None]:
    """(rows, columns) of X from its container's ``shape``, values unread."""
    shape = getattr(X, "shape", None)
    if shape is not None and len(shape) == 2:
        return int(shape[0]), int(shape[1])
    return 0, None


def ridge_regularization(alpha: float, row_norm: float) -> float:
    """α raised to R²/(κ_max − 1): XᵀX/n + αI has condition number ≤ 10⁵."""
    R = float(row_norm)
    return conditioned(float(alpha), R * R)


class DPLinearRegression(DPLearnerMixin, RegressorMixin, BaseEstimator):
    """Ridge regression, ε-DP by output perturbation (CMS 2011, Algorithm 1).

    Rows are mapped into the ball as in :class:`DPLogisticRegression`;
    targets are clipped to the public ``target_bound`` range and mapped
    onto [−1, 1]. ŵ = argmin (1/(2n)) Σ (y_i − w·x_i)² + (α/2)‖w‖² is
    released as ŵ + b, density ∝ exp(−ε‖b‖/Δ), Δ from
    :func:`ridge_sensitivity` (B = 1). ``alpha`` is per sample (scikit-learn's
    ``ElasticNet`` scaling; ``Ridge``'s α is α·n here). A row with a NaN is
    the zero row, a non-finite target the midpoint. Before any row is read,
    ``fit`` warns (``UselessReleaseWarning``) when the noise alone is
    expected to cost more than predicting the midpoint (:meth:`_noise_error`).
    ``sample_weight`` (clipped into [0, 1]) keeps the three steps of
    :func:`ridge_sensitivity`.

    Privacy: pure ε-DP under replacing one row of ``X, y`` (and its weight;
    n public), the certified solver tolerance in Δ (else ``SolverError``;
    α below R²·10⁻⁵ acts as R²·10⁻⁵). Noise from the OS CSPRNG.

    Parameters
    ----------
    epsilon : float, default=1.0
    bounds : (lower, upper) or None, default=None
        Public bounds of the features (numbers or per-feature arrays).
    data_norm : float or None, default=None
        Public bound on a row's L2 norm (scaled rows). Not with ``bounds``.
    target_bound : float or (low, high), default=1.0
        Public range of y: B means [−B, B]; targets are clipped into it.
    alpha : float, default=1.0
        Regularisation Λ (per sample). Δ grows like α^(−3/2) when α is small.
    fit_intercept : bool, default=True
    noise_random_state : int or None, default=None
        Tests only (``PrivacyLeakWarning``); None is the OS CSPRNG.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        Weights on the mapped rows, in y's units.
    intercept_ : float
        In y's units (the range's midpoint included).
    sensitivity_ : float
        Δ in y's units.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        When X has string column names.
    """

    _parameter_constraints: dict = {
        **SHARED_CONSTRAINTS,
        "target_bound": [
            Interval(numbers.Real, 0, None, closed="neither"),
            tuple,
            list,
        ],
        "alpha": [Interval(numbers.Real, 0, None, closed="neither")],
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
        """(midpoint, half-width) of the public range [−B, B] or (low, high)."""
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

    def _noise_error(self, n: int, d: int) -> tuple[float, float]:
        """(the noise's expected squared error, the targets' variance bound), public.

        b has a uniform direction and ‖b‖ ~ Gamma(p, s) (p = d + intercept,
        s = Δ/ε), so E[(b·x̃)²] = (p + 1)s²‖x̃‖² ≤ (p + 1)s²R², times half²;
        targets in the range have variance ≤ half².
        """
        _, _, R = self._ball(int(d))
        p = int(d) + bool(self.fit_intercept)
        s = ridge_sensitivity(int(n), float(self.alpha), R, 1.0) / float(self.epsilon)
        _, half = self._target_map()
        return half**2 * (p + 1) * s**2 * R**2, half**2

    def fit(self, X, y, sample_weight=None):
        """Fit on private rows; ε-DP (warns first when the noise would dominate)."""
        self._validate_params()
        self._check_privacy_params()
        n, d = _shape(X)
        if n and d is not None:
            noise, variance = self._noise_error(n, d)
            if noise > variance:
                warnings.warn(
                    f"{type(self).__name__}: with n={n} rows, d={d} features, "
                    f"epsilon={self.epsilon:g} and alpha={self.alpha:g}, the "
                    f"noise alone is expected to cost {noise:.4g} in squared "
                    "error (for a row on the bounds' ball), above the largest "
                    f"variance the target bounds allow ({variance:.4g}): the "
                    "release is likely worse than predicting the targets' "
                    "midpoint. Raise epsilon, n or alpha, or narrow the bounds "
                    "(public arithmetic; no row was read).",
                    UselessReleaseWarning,
                    stacklevel=2,
                )
        return super().fit(X, y, sample_weight)

    def _check_targets(self, y, n: int):
        """``y`` checked from its shape, then floats entry by entry (else NaN)."""
        y = super()._check_targets(y, n)
        return float_rows(np.asarray(y).reshape(-1, 1))[:, 0]

    def _rows(self, X) -> np.ndarray:
        """Rows mapped into the ball: ``map_features`` then ``clip_rows``."""
        bounds, norm, _ = self._ball(X.shape[1])
        return clip_rows(map_features(X, bounds), norm, intercept=self.fit_intercept)

    def _fit_private(self, X, y, rng, sample_weight=None):
        eps = self._check_privacy_params()
        y = np.asarray(y, dtype=float).reshape(-1)
        X, n, _ = private_matrix(X, y)
        Xc = self._rows(X)
        d = Xc.shape[1]
        mid, half = self._target_map()
        y = np.clip(np.where(np.isfinite(y), (y - mid) / half, 0.0), -1.0, 1.0)
        B = 1.0  # the targets in the map's units
        row_norm = self._ball(X.shape[1])[2]
        a = ridge_regularization(float(self.alpha), row_norm)
        Xw = Xc if sample_weight is None else Xc * sample_weight[:, None]
        A = Xw.T @ Xc / n + a * np.eye(d)  # weights in [0, 1]: the same bounds
        rhs = Xw.T @ y / n
        w = np.linalg.solve(A, rhs)
        # computed ‖∇J‖ ≤ half the bound, so the exact one ≤ GRADIENT_TOL·G
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
        """x̃·``coef_`` + ``intercept_``, x̃ the row mapped by ``fit``'s map."""
        Xc = self._predict_rows(X)
        if self.fit_intercept:
            Xc = Xc[:, :-1]
        return Xc @ self.coef_ + self.intercept_
