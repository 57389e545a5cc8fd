"""Binary logistic regression by output perturbation (CMS 2011, Algorithm 1)."""

from __future__ import annotations

import numbers

import numpy as np
from scipy.special import expit
from sklearn.base import BaseEstimator, ClassifierMixin

from .._compat import Interval
from ..privacy._validation import EPSILON_CONSTRAINTS
from ._base import (
    GRADIENT_TOL,
    DPLearnerMixin,
    augmented_norm,
    clip_rows,
    gradient_slack,
    release_weights,
)

__all__ = ["DPLogisticRegression", "logistic_sensitivity"]

_REFERENCE = (
    "Chaudhuri, Monteleoni & Sarwate, Differentially Private Empirical Risk "
    "Minimization, JMLR 12 (2011), Algorithm 1 and Corollary 8"
)


def logistic_sensitivity(n: int, C: float, row_norm: float) -> float:
    """L2-sensitivity of the released weights (weight units), Δ = 2RC + slack.

    J(w) = (1/n) Σ log(1 + exp(−s_i w·x_i)) + (Λ/2)‖w‖², Λ = 1/(C n) (the
    scaling of scikit-learn's C Σ loss + ½‖w‖², divided by C n). J is
    Λ-strongly convex, and one row's loss has gradient norm ≤ ‖x_i‖ ≤ R
    (|d/dz log(1 + e^−z)| ≤ 1). Replacing one row adds g = (ℓ′ − ℓ)/n with
    ‖∇g‖ ≤ 2R/n, so ‖w*(D) − w*(D′)‖ ≤ 2R/(nΛ) = 2RC (CMS 2011, Corollary 8,
    with rows of norm R instead of 1), plus 2·GRADIENT_TOL/Λ for the
    solver's stopping point (:func:`~._base.gradient_slack`).
    """
    lam = 1.0 / (float(C) * int(n))
    return 2.0 * row_norm / (int(n) * lam) + gradient_slack(lam)


def _newton(X: np.ndarray, s: np.ndarray, lam: float, max_iter: int) -> np.ndarray:
    """argmin J by damped Newton with backtracking, to ‖∇J‖ ≤ GRADIENT_TOL."""
    n, d = X.shape
    w = np.zeros(d)

    def objective(v):
        return float(np.mean(np.logaddexp(0.0, -s * (X @ v))) + 0.5 * lam * v @ v)

    value = objective(w)
    for _ in range(max_iter):
        z = s * (X @ w)
        p = expit(-z)  # −dℓ/dz
        grad = -(X.T @ (s * p)) / n + lam * w
        if float(np.linalg.norm(grad)) <= GRADIENT_TOL:
            break
        h = p * (1.0 - p)
        H = (X.T * h) @ X / n + lam * np.eye(d)
        step = np.linalg.solve(H, grad)
        t = 1.0
        while t > 1e-12:
            candidate = w - t * step
            new = objective(candidate)
            if new <= value - 1e-4 * t * float(grad @ step):
                break
            t *= 0.5
        if t <= 1e-12:  # rounding-level decrease: take the full Newton step
            candidate = w - step
            new = objective(candidate)
        w, value = candidate, new
    return w


class DPLogisticRegression(DPLearnerMixin, ClassifierMixin, BaseEstimator):
    """Binary L2-regularised logistic regression, ε-DP by output perturbation.

    Chaudhuri, Monteleoni & Sarwate (JMLR 2011), Algorithm 1 with the
    logistic loss (their Corollary 8): ŵ = argmin (1/n) Σ log(1 +
    exp(−s_i w·x_i)) + (Λ/2)‖w‖² with Λ = 1/(C n), released as ŵ + b, b
    with density ∝ exp(−ε‖b‖/Δ), Δ = 2RC (:func:`logistic_sensitivity`).
    Every row is clipped to L2 norm ``data_norm`` (a row with a non-finite
    value is the zero row); with ``fit_intercept`` a constant 1 is appended
    (the intercept is regularised like the weights, R = √(data_norm² + 1)).
    s_i = +1 when y_i equals ``classes[1]``, −1 otherwise.

    Privacy: pure ε-DP with respect to replacing any one row of ``X, y``
    (n public), provided the solver reaches its gradient tolerance (damped
    Newton on a strongly convex objective; the slack is in Δ). The noise
    comes from the OS CSPRNG; it is a floating-point draw rounded to a
    public grid (see ``privacy._samplers.sample_standard_normal``).

    Parameters
    ----------
    epsilon : float, default=1.0
        Privacy cost of one ``fit``.
    data_norm : float, default=1.0
        Public bound on a row's L2 norm; larger rows are scaled down to it.
        Never read from the data.
    C : float, default=1.0
        Inverse regularisation strength, as in scikit-learn (Λ = 1/(C n)).
        The noise norm is ≈ 2RC·d/ε: small C, small noise.
    fit_intercept : bool, default=True
        Append a constant feature (regularised intercept).
    classes : tuple of two labels, default=(0, 1)
        The public labels: ``classes[1]`` is the positive class, every
        other label (including labels outside ``classes``) the negative one.
    max_iter : int, default=100
        Newton iterations.
    noise_random_state : int or None, default=None
        None: the OS CSPRNG (production). An int makes the noise
        reproducible and is for tests only (``PrivacyLeakWarning``).

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features)
    intercept_ : ndarray of shape (1,)
    classes_ : ndarray of shape (2,)
    sensitivity_ : float
        Δ of the released (coef, intercept) vector.
    """

    _parameter_constraints: dict = {
        "epsilon": EPSILON_CONSTRAINTS,
        "data_norm": [Interval(numbers.Real, 0, None, closed="neither")],
        "C": [Interval(numbers.Real, 0, None, closed="neither")],
        "fit_intercept": ["boolean"],
        "classes": [tuple, list],
        "max_iter": [Interval(numbers.Integral, 1, None, closed="left")],
        "noise_random_state": [
            None,
            Interval(numbers.Integral, 0, None, closed="left"),
        ],
    }

    def __init__(
        self,
        epsilon=1.0,
        data_norm=1.0,
        C=1.0,
        fit_intercept=True,
        classes=(0, 1),
        max_iter=100,
        noise_random_state=None,
    ):
        self.epsilon = epsilon
        self.data_norm = data_norm
        self.C = C
        self.fit_intercept = fit_intercept
        self.classes = classes
        self.max_iter = max_iter
        self.noise_random_state = noise_random_state

    def _fit_private(self, X, y, rng):
        self._validate_params()
        eps = self._check_privacy_params()
        if len(self.classes) != 2:
            raise ValueError("classes must hold exactly two public labels.")
        Xc = clip_rows(X, float(self.data_norm), intercept=self.fit_intercept)
        n = Xc.shape[0]
        y = np.asarray(y)
        if y.shape[0] != n or n < 1:
            raise ValueError(f"X has {n} rows and y has {y.shape[0]}: need n ≥ 1.")
        s = np.where(y == self.classes[1], 1.0, -1.0)
        lam = 1.0 / (float(self.C) * n)
        w = _newton(Xc, s, lam, int(self.max_iter))
        row_norm = augmented_norm(float(self.data_norm), self.fit_intercept)
        sens = logistic_sensitivity(n, float(self.C), row_norm)
        w = release_weights(w, sens, eps, rng)
        if self.fit_intercept:
            self.coef_, self.intercept_ = w[None, :-1], w[-1:]
        else:
            self.coef_, self.intercept_ = w[None, :], np.zeros(1)
        self.classes_ = np.asarray(self.classes)
        self.n_features_in_ = self.coef_.shape[1]
        self.sensitivity_ = float(sens)
        return self

    def decision_function(self, X):
        """x·coef + intercept, row by row (a non-finite row is the zero row)."""
        Xc = clip_rows(X, np.inf, intercept=False)
        return Xc @ self.coef_[0] + self.intercept_[0]

    def predict_proba(self, X):
        p = expit(self.decision_function(X))
        return np.column_stack([1.0 - p, p])

    def predict(self, X):
        return self.classes_[(self.decision_function(X) > 0).astype(int)]
