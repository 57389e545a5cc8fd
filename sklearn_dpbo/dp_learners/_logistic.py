"""Binary logistic regression, ε-DP by objective or output perturbation (CMS 2011)."""

from __future__ import annotations

import numbers

import numpy as np
from scipy.special import expit
from sklearn.base import BaseEstimator, ClassifierMixin

from .._compat import Interval, StrOptions
from ..privacy._validation import EPSILON_CONSTRAINTS
from ._base import (
    GRADIENT_TOL,
    DPLearnerMixin,
    augmented_norm,
    clip_rows,
    conditioned,
    gradient_slack,
    release_weights,
)
from ._objective import certified_newton, fit_objective, objective_plan

__all__ = ["DPLogisticRegression", "logistic_sensitivity", "output_regularization"]

_REFERENCE = (
    "Chaudhuri, Monteleoni & Sarwate, Differentially Private Empirical Risk "
    "Minimization, JMLR 12 (2011), Algorithm 1 and Corollary 8"
)


def output_regularization(n: int, C: float, row_norm: float) -> float:
    """Λ = max(1/(C n), (R²/4)/(κ_max − 1)): the solver's conditioning floor.

    The logistic loss on rows of norm ≤ R has curvature ≤ R²/4, so J's
    condition number stays ≤ ``_base.SOLVER_MAX_CONDITION``; the floor binds
    only for C n R² > 4·10⁵ (public values).
    """
    R = float(row_norm)
    return conditioned(1.0 / (float(C) * int(n)), R * R / 4.0)


def logistic_sensitivity(n: int, C: float, row_norm: float) -> float:
    """L2-sensitivity of the released weights (weight units), Δ = 2R/(nΛ) + slack.

    J(w) = (1/n) Σ log(1 + exp(−s_i w·x_i)) + (Λ/2)‖w‖², Λ = 1/(C n) (the
    scaling of scikit-learn's C Σ loss + ½‖w‖², divided by C n; raised to
    the conditioning floor of :func:`output_regularization`). J is
    Λ-strongly convex, and one row's loss has gradient norm ≤ ‖x_i‖ ≤ R
    (|d/dz log(1 + e^−z)| ≤ 1). Replacing one row adds g = (ℓ′ − ℓ)/n with
    ‖∇g‖ ≤ 2R/n, so ‖w*(D) − w*(D′)‖ ≤ 2R/(nΛ) = 2RC (CMS 2011, Corollary 8,
    with rows of norm R instead of 1), plus 2·GRADIENT_TOL·R/Λ for the
    solver's stopping point (:func:`~._base.gradient_slack`).
    """
    lam = output_regularization(n, C, row_norm)
    return 2.0 * row_norm / (int(n) * lam) + gradient_slack(lam, row_norm)


class DPLogisticRegression(DPLearnerMixin, ClassifierMixin, BaseEstimator):
    """Binary L2-regularised logistic regression, ε-DP (objective or output pert.).

    The model minimises (1/n) Σ log(1 + exp(−s_i w·x_i)) + (Λ/2)‖w‖², Λ =
    1/(C n), on rows clipped to L2 norm ``data_norm`` (a row with a
    non-finite value is the zero row); with ``fit_intercept`` a constant 1
    is appended (the intercept is regularised like the weights, rows then
    have norm ≤ R = √(data_norm² + 1)). s_i = +1 when y_i equals
    ``classes[1]``, −1 otherwise.

    ``mechanism="objective"`` (default): Chaudhuri, Monteleoni & Sarwate
    (JMLR 2011), Section 3.2, Algorithm 2 and Theorem 9, with c = 1/4, on
    the rows rescaled to norm ≤ 1 (v = R w, Λ̃ = 1/(C n R²)); with ε_obj =
    0.99 ε::

        Δ  = max(0, c / (n (exp(ε_obj/4) − 1)) − Λ̃, c / (κ_max − 1) − Λ̃)
        ε′ = ε_obj − log(1 + c/(n(Λ̃+Δ)))   (≥ 3 ε_obj/4)
        v̂  = argmin (1/n) Σ ℓ(s_i v·x̃_i) + ((Λ̃+Δ)/2)‖v‖² + bᵀv/n,
             b of density ∝ exp(−ε′‖b‖/2)

    and the solver's stopping point is covered by output noise at 0.01 ε
    (approximate minima perturbation, Iyengar et al. 2019);
    ``_objective`` holds the derivation (κ_max = 10⁵, the solvers' public
    conditioning floor, ``_base.SOLVER_MAX_CONDITION``). Δ > 0 once C ≥
    (e^(ε_obj/4) − 1)/(c R²) (or the floor binds): every larger C then
    gives the same model distribution. The Jacobian term log(1 + c/(n(Λ̃+Δ)))
    is the rank-one (matrix determinant lemma) form of CMS's Theorem 9
    bound, whose 2 log(1 + c/(n(Λ̃+Δ))) it tightens (``_objective``); Δ is
    CMS's, so only the noise shrinks.

    ``mechanism="output"``: Algorithm 1 (their Corollary 8), ŵ + b with
    density ∝ exp(−ε‖b‖/Δ), Δ = 2RC (:func:`logistic_sensitivity`).

    Privacy: pure ε-DP per ``fit`` with respect to replacing any one row of
    ``X, y`` (n public), provided the Newton solver reaches its gradient
    tolerance (checked: the fit raises ``SolverError`` otherwise, which a
    fuzz of 15,876 public settings and adversarial data sets never saw,
    thanks to a public floor on the regularisation that keeps the
    condition number ≤ 10⁵; ``_objective``'s docstring). The
    noise comes from the OS CSPRNG; it is a floating-point draw rounded to
    a public grid (see ``privacy._samplers.sample_standard_normal``).

    Parameters
    ----------
    epsilon : float, default=1.0
        Privacy cost of one ``fit``.
    data_norm : float, default=1.0
        Public bound on a row's L2 norm; larger rows are scaled down to it.
        Never read from the data.
    C : float, default=1.0
        Inverse regularisation strength, as in scikit-learn (Λ = 1/(C n)).
        Output perturbation: the noise norm is ≈ 2RC·d/ε (small C, small
        noise). Objective perturbation: C above the plateau
        (e^(ε_obj/4) − 1)/(c R²) acts as that plateau value.
    fit_intercept : bool, default=True
        Append a constant feature (regularised intercept).
    classes : tuple of two labels, default=(0, 1)
        The public labels: ``classes[1]`` is the positive class, every
        other label (including labels outside ``classes``) the negative one.
    max_iter : int, default=100
        Newton iterations; values below 200 act as 200 (the privacy proof
        needs the certified tolerance, reached within 32 in the fuzz).
    mechanism : {"objective", "output"}, default="objective"
        Objective perturbation (CMS Algorithm 2) or output perturbation
        (Algorithm 1).
    noise_random_state : int or None, default=None
        None: the OS CSPRNG (production). An int makes the noise
        reproducible and is for tests only (``PrivacyLeakWarning``).

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features)
    intercept_ : ndarray of shape (1,)
    classes_ : ndarray of shape (2,)
    sensitivity_ : float
        Output perturbation: Δ of the released (coef, intercept) vector.
        Objective perturbation: S/R, the sensitivity (weight units) of the
        solver's stopping point covered by the output noise.
    plan_ : ObjectivePlan or None
        Objective perturbation's public constants (ε′, Δ, scales; rescaled
        units); None for output perturbation.
    """

    _parameter_constraints: dict = {
        "epsilon": EPSILON_CONSTRAINTS,
        "data_norm": [Interval(numbers.Real, 0, None, closed="neither")],
        "C": [Interval(numbers.Real, 0, None, closed="neither")],
        "fit_intercept": ["boolean"],
        "classes": [tuple, list],
        "max_iter": [Interval(numbers.Integral, 1, None, closed="left")],
        "mechanism": [StrOptions({"objective", "output"})],
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
        mechanism="objective",
        noise_random_state=None,
    ):
        self.epsilon = epsilon
        self.data_norm = data_norm
        self.C = C
        self.fit_intercept = fit_intercept
        self.classes = classes
        self.max_iter = max_iter
        self.mechanism = mechanism
        self.noise_random_state = noise_random_state

    def _check_privacy_params(self) -> float:
        """The mixin's checks, and exactly two public ``classes``: run by the
        private-model mode for every candidate before any row is read."""
        eps = super()._check_privacy_params()
        if len(self.classes) != 2:
            raise ValueError(
                f"classes must hold exactly two public labels; got {self.classes!r}."
            )
        return eps

    def _fit_private(self, X, y, rng):
        eps = self._check_privacy_params()
        Xc = clip_rows(X, float(self.data_norm), intercept=self.fit_intercept)
        n = Xc.shape[0]
        y = np.asarray(y)
        if y.shape[0] != n or n < 1:
            raise ValueError(f"X has {n} rows and y has {y.shape[0]}: need n ≥ 1.")
        s = np.where(y == self.classes[1], 1.0, -1.0)
        row_norm = augmented_norm(float(self.data_norm), self.fit_intercept)
        if self.mechanism == "objective":
            plan = objective_plan(n, float(self.C), row_norm, eps, dim=Xc.shape[1])
            w = fit_objective(Xc, s, plan, row_norm, rng, int(self.max_iter))
            sens = plan.output_sensitivity / row_norm
        else:
            plan = None
            lam = output_regularization(n, float(self.C), row_norm)
            w = certified_newton(  # gradient bound: GRADIENT_TOL × a row's R
                Xc,
                s,
                lam,
                np.zeros(Xc.shape[1]),
                int(self.max_iter),
                GRADIENT_TOL * row_norm,
                "output perturbation",
            )
            sens = logistic_sensitivity(n, float(self.C), row_norm)
            w = release_weights(w, sens, eps, rng)
        self.plan_ = plan
        if self.fit_intercept:
            self.coef_, self.intercept_ = w[None, :-1], w[-1:]
        else:
            self.coef_, self.intercept_ = w[None, :], np.zeros(1)
        self.classes_ = np.asarray(self.classes)
        self.n_features_in_ = self.coef_.shape[1]
        self.sensitivity_ = float(sens)
        return self

    def _auto_default_rule(self) -> bool:
        """Whether the private-model mode's ``"auto"`` may skip tuning on
        much data per dimension (``_private_model.default_suffices``): for
        objective perturbation only, whose plateau that rule rests on."""
        return self.mechanism == "objective"

    def _distribution_key(self, n: int, epsilon: float) -> tuple:
        """A public key: equal keys ⇒ the same distribution of the fitted model.

        With objective perturbation every C on the plateau (Δ > 0) gives
        the objective with Λ̃ + Δ = max(c/(n(e^(ε_obj/4) − 1)), c/(κ_max − 1))
        and the same ε′, whatever C; with output perturbation every C where
        the conditioning floor binds gives the same Λ: those candidates
        share one key. Depends on n, ε and the parameters only (no row is
        read).
        """
        params = self.get_params()
        for name in ("C", "epsilon", "noise_random_state"):
            params.pop(name)
        rest = tuple(sorted((k, repr(v)) for k, v in params.items()))
        row_norm = augmented_norm(float(self.data_norm), self.fit_intercept)
        if self.mechanism == "objective":
            plan = objective_plan(n, float(self.C), row_norm, epsilon)
            if plan.extra_regularization > 0:
                return (*rest, ("C", "plateau"))
        elif output_regularization(n, float(self.C), row_norm) > 1.0 / (
            float(self.C) * n
        ):  # the conditioning floor: every larger C gives the same model
            return (*rest, ("C", "plateau"))
        return (*rest, ("C", float(self.C)))

    def decision_function(self, X):
        """x·coef + intercept, row by row (a non-finite row is the zero row)."""
        Xc = clip_rows(X, np.inf, intercept=False)
        return Xc @ self.coef_[0] + self.intercept_[0]

    def predict_proba(self, X):
        p = expit(self.decision_function(X))
        return np.column_stack([1.0 - p, p])

    def predict(self, X):
        return self.classes_[(self.decision_function(X) > 0).astype(int)]
