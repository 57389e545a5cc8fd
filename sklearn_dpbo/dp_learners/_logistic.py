"""Binary logistic regression, ε-DP by objective or output perturbation (CMS 2011)."""

from __future__ import annotations

import math
import numbers

import numpy as np
from scipy.special import expit
from sklearn.base import BaseEstimator, ClassifierMixin

from .._compat import Interval, StrOptions
from ..privacy._numbers import label_key
from ._base import (
    GRADIENT_TOL,
    SHARED_CONSTRAINTS,
    DPLearnerMixin,
    check_label_types,
    clip_rows,
    conditioned,
    gradient_slack,
    label_codes,
    map_features,
    private_matrix,
    release_weights,
)
from ._objective import (
    LOGISTIC,
    OUTPUT_SHARE,
    certified_newton,
    fit_objective,
    objective_plan,
)


def output_regularization(n: int, C: float, row_norm: float) -> float:
    """Λ = max(1/(C n), (R²/4)/(κ_max − 1)): the solver's conditioning floor."""
    R = float(row_norm)
    return conditioned(1.0 / (float(C) * int(n)), R * R / 4.0)


def problem_epsilon(epsilon: float, n_problems: int) -> float:
    """ε of each binary problem: ε/K by composition (class docstring)."""
    return float(epsilon) / int(n_problems)


def logistic_sensitivity(n: int, C: float, row_norm: float) -> float:
    """L2-sensitivity of the released weights, Δ = 2R/(nΛ) + slack.

    J(w) = (1/n) Σ log(1 + exp(−s_i w·x_i)) + (Λ/2)‖w‖² (scikit-learn's
    objective divided by C n; Λ from :func:`output_regularization`) is
    Λ-strongly convex and one row's loss gradient has norm ≤ R; replacing a
    row adds g with ‖∇g‖ ≤ 2R/n, so ‖w*(D) − w*(D′)‖ ≤ 2R/(nΛ) = 2RC (CMS
    2011, Corollary 8, rows of norm R), plus :func:`~._base.gradient_slack`.
    """
    lam = output_regularization(n, C, row_norm)
    return 2.0 * row_norm / (int(n) * lam) + gradient_slack(lam, row_norm)


class DPLogisticRegression(DPLearnerMixin, ClassifierMixin, BaseEstimator):
    """L2-regularised logistic regression, binary or one-vs-rest, ε-DP.

    Rows: ``bounds=(lower, upper)`` (public) maps each feature onto
    [−1, 1] and clips the row to L2 norm √d/2; ``data_norm`` clips rows
    you have scaled to that norm; neither: norm 1 (``fit`` warns). A row
    with a NaN is the zero row; ``predict`` uses the same public map. Each
    binary problem minimises (1/n) Σ log(1 + exp(−s_i w·x_i)) + (Λ/2)‖w‖²,
    Λ = 1/(C n) (``fit_intercept``: a regularised constant column, R =
    √(norm² + 1)). Two classes: s_i = +1 iff y_i is ``classes[1]``. K ≥ 3:
    one-vs-rest, s_i = +1 iff y_i is ``classes[k]`` (a label outside
    ``classes`` is −1 everywhere), ``predict`` the argmax. ``sample_weight``
    (clipped into [0, 1]) keeps |ωℓ′| ≤ 1 and 0 ≤ ωℓ″ ≤ 1/4.

    **Multiclass privacy.** Replacing one record replaces row i in each of
    the K problems (the features change in all K), each fitted at ε/K with
    fresh noise: ε-DP by basic composition, tight for this construction
    (``test_audit_multiclass.py`` catches the variant at the full ε each).

    ``mechanism="objective"`` (default): CMS (JMLR 2011) Algorithm 2 and
    Theorem 9 with c = 1/4 on rows rescaled to norm ≤ 1 (v = R w, Λ̃ =
    1/(C n R²)), ε_obj = 0.99 ε::

        Δ  = max(0, c / (n (exp(ε_obj/4) − 1)) − Λ̃, c / (κ_max − 1) − Λ̃)
        ε′ = ε_obj − log(1 + c/(n(Λ̃+Δ)))   (≥ 3 ε_obj/4)
        v̂  = argmin (1/n) Σ ℓ(s_i v·x̃_i) + ((Λ̃+Δ)/2)‖v‖² + bᵀv/n,
             b of density ∝ exp(−ε′‖b‖/2)

    plus output noise at 0.01 ε for the solver's stopping point (Iyengar et
    al. 2019); proof in ``_objective``. Every C ≥ (e^(ε_obj/4) − 1)/(c R²)
    gives the same model distribution. ``mechanism="output"``: Algorithm 1,
    ŵ + b, density ∝ exp(−ε‖b‖/Δ), Δ = 2RC (:func:`logistic_sensitivity`).

    Privacy: pure ε-DP per ``fit`` (all K problems) under replacing one row
    of ``X, y`` (n public), given the certified solver tolerance (else
    ``SolverError``). Noise from the OS CSPRNG.

    Parameters
    ----------
    epsilon : float, default=1.0
        Privacy cost of one ``fit`` (ε/K per problem with K ≥ 3 classes).
    bounds : (lower, upper) or None, default=None
        Public bounds of the features (numbers or per-feature arrays), from
        the domain, never from the rows; rows are mapped into the ball.
    data_norm : float or None, default=None
        For rows you have already scaled: public bound on a row's L2 norm,
        larger rows are scaled down to it. Not with ``bounds``.
    C : float or "scale", default="scale"
        Inverse regularisation, Λ = 1/(C n). Output perturbation's noise norm
        is ≈ 2RC·d/ε; objective perturbation's plateau (e^(ε_obj/4) − 1)/(c R²)
        caps C. ``"scale"``: 0.3 × that plateau, from ε per problem and R only
        (public; ``benchmarks/bench_untuned_C.py`` measures it against C = 1);
        1.0 with output perturbation.
    fit_intercept : bool, default=True
        Append a constant feature (regularised intercept).
    classes : tuple of labels, default=(0, 1)
        The public labels, never read from y. Two: ``classes[1]`` is the
        positive class, any other label negative; three or more: one-vs-rest.
        String y needs string classes; float y with whole-number classes is
        refused as a continuous target (cast it to int).
    max_iter : int, default=100
        Newton iterations; below 200 acts as 200 (the certified tolerance).
    mechanism : {"objective", "output"}, default="objective"
        Objective (CMS Algorithm 2) or output perturbation (Algorithm 1).
    noise_random_state : int or None, default=None
        None: the OS CSPRNG (production). An int makes the noise
        reproducible and is for tests only (``PrivacyLeakWarning``).

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features) or (K, n_features)
        Weights on the mapped rows (the ball's units, not the raw ones).
    intercept_ : ndarray of shape (1,) or (K,)
    classes_ : ndarray of shape (2,) or (K,)
        ``classes`` as an array.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        When X has string column names.
    sensitivity_ : float
        Δ of the released weights (output perturbation), or S/R, that of
        the solver's stopping point (objective perturbation).
    plan_ : ObjectivePlan or None
        Objective perturbation's public constants; None for output.
    """

    _parameter_constraints: dict = {
        **SHARED_CONSTRAINTS,
        "C": [Interval(numbers.Real, 0, None, closed="neither"), StrOptions({"scale"})],
        "classes": [tuple, list],
        "max_iter": [Interval(numbers.Integral, 1, None, closed="left")],
        "mechanism": [StrOptions({"objective", "output"})],
    }

    def __init__(
        self,
        epsilon=1.0,
        bounds=None,
        data_norm=None,
        C="scale",
        fit_intercept=True,
        classes=(0, 1),
        max_iter=100,
        mechanism="objective",
        noise_random_state=None,
    ):
        self.epsilon = epsilon
        self.bounds = bounds
        self.data_norm = data_norm
        self.C = C
        self.fit_intercept = fit_intercept
        self.classes = classes
        self.max_iter = max_iter
        self.mechanism = mechanism
        self.noise_random_state = noise_random_state

    def _check_privacy_params(self) -> float:
        """The mixin's checks, and two or more distinct public ``classes``."""
        eps = super()._check_privacy_params()
        classes = self.classes
        try:
            keys = {label_key(c) for c in classes}
        except TypeError:  # an unhashable class
            keys = ()
        if len(classes) < 2 or len(keys) != len(classes):
            raise ValueError(
                "classes must hold two or more distinct public labels, declared "
                "by you (never read from the data), e.g. classes=(0, 1) or "
                f"classes=('setosa', 'versicolor', 'virginica'); got {classes!r}."
            )
        return eps

    def _check_targets(self, y, n: int):
        """:func:`~._base.check_label_types`, then the mixin's shape check."""
        check_label_types(y, self.classes, type(self).__name__)
        return super()._check_targets(y, n)

    def _rows(self, X) -> np.ndarray:
        """Rows mapped into the ball: ``map_features`` then ``clip_rows``."""
        bounds, norm, _ = self._ball(X.shape[1])
        return clip_rows(map_features(X, bounds), norm, intercept=self.fit_intercept)

    def _binary_problems(self, y) -> list[np.ndarray]:
        """s ∈ {−1, +1}^n per binary problem (one, or one per class)."""
        codes = label_codes(y, self.classes)
        positives = [1] if len(self.classes) == 2 else range(len(self.classes))
        return [np.where(codes == k, 1.0, -1.0) for k in positives]

    def _loss(self):
        """The margin loss objective perturbation minimises (``_objective``)."""
        return LOGISTIC

    def _C(self, eps: float, row_norm: float) -> float:
        """C, with ``"scale"`` resolved at one problem's ε and R (public):
        0.3 (e^(ε_obj/4) − 1)/(c R²), ε_obj = 0.99 ε; output perturbation 1."""
        if not isinstance(self.C, str):
            return float(self.C)
        if self.mechanism != "objective":
            return 1.0
        # capped exponent: past e^700 the conditioning floor binds anyway
        plateau = math.expm1(min((1.0 - OUTPUT_SHARE) * eps / 4.0, 700.0))
        plateau /= row_norm**2
        return 0.3 * plateau / self._loss().curvature_bound

    def _fit_binary(self, Xc, s, eps, row_norm, rng, weights=None):
        """(released weights, sensitivity, plan) of one binary problem at ε."""
        (n, d), C, it = Xc.shape, self._C(eps, row_norm), int(self.max_iter)
        if self.mechanism == "objective":
            loss = self._loss()
            c = loss.curvature_bound
            plan = objective_plan(n, C, row_norm, eps, dim=d, curvature=c)
            w = fit_objective(Xc, s, plan, row_norm, rng, it, weights, loss)
            return w, plan.output_sensitivity / row_norm, plan
        lam = output_regularization(n, C, row_norm)
        tol = GRADIENT_TOL * row_norm  # GRADIENT_TOL × a row's gradient bound R
        what = "output perturbation"
        w = certified_newton(Xc, s, lam, np.zeros(d), it, tol, what, weights)
        sens = logistic_sensitivity(n, C, row_norm)
        return release_weights(w, sens, eps, rng), sens, None

    def _fit_private(self, X, y, rng, sample_weight=None):
        eps = self._check_privacy_params()
        X, n, d = private_matrix(X, y)
        Xc = self._rows(X)
        row_norm = self._ball(d)[2]
        problems = self._binary_problems(y)
        eps_each = problem_epsilon(eps, len(problems))
        fits = [
            self._fit_binary(Xc, s, eps_each, row_norm, rng, sample_weight)
            for s in problems
        ]
        W = np.array([w for w, _, _ in fits])
        self.plan_ = fits[0][2]
        if self.fit_intercept:
            self.coef_, self.intercept_ = W[:, :-1], W[:, -1]
        else:
            self.coef_, self.intercept_ = W, np.zeros(len(fits))
        self.classes_ = np.asarray(self.classes)
        self.n_features_in_ = d
        self.sensitivity_ = float(fits[0][1])
        return self

    def _auto_default_rule(self) -> bool:
        """``default_suffices`` applies (objective perturbation only)."""
        return self.mechanism == "objective"

    @property
    def _auto_never_tunes(self) -> bool:
        """``C="scale"``: ``"auto"`` releases it untuned (objective perturbation;
        tuning lost to it on ``bench_untuned_C_heldout4.json``)."""
        return isinstance(self.C, str)

    def _distribution_key(self, n: int, epsilon: float) -> tuple:
        """A public key, equal ⇒ the same law of the fitted model: every C on the
        plateau (Δ > 0) or the conditioning floor shares one (scalar ``bounds``:
        d unknown, none)."""
        params = self.get_params()
        for name in ("C", "epsilon", "noise_random_state"):
            params.pop(name)
        rest = tuple(sorted((k, repr(v)) for k, v in params.items()))
        d = 1
        if self.bounds is not None:
            sizes = {np.size(b) for b in self.bounds} - {1}
            if not sizes:
                return (*rest, ("C", self.C))
            d = sizes.pop()
        row_norm = self._ball(int(d or 1))[2]
        k = 1 if len(self.classes) == 2 else len(self.classes)
        eps = problem_epsilon(epsilon, k)
        C = self._C(eps, row_norm)
        if self.mechanism == "objective":
            c = self._loss().curvature_bound
            plan = objective_plan(n, C, row_norm, eps, curvature=c)
            if plan.extra_regularization > 0:
                return (*rest, ("C", "plateau"))
        elif output_regularization(n, C, row_norm) > 1.0 / (C * n):
            return (*rest, ("C", "plateau"))  # the conditioning floor binds
        return (*rest, ("C", C))

    def decision_function(self, X):
        """Mapped rows times ``coef_`` plus ``intercept_``: (n,), or (n, K) if K ≥ 3."""
        Xc = self._predict_rows(X)
        if self.fit_intercept:
            Xc = Xc[:, :-1]
        scores = Xc @ self.coef_.T + self.intercept_
        return scores[:, 0] if scores.shape[1] == 1 else scores

    def predict_proba(self, X):
        """σ(decision); one-vs-rest's C sigmoids normalised to sum to 1."""
        p = expit(self.decision_function(X))
        if p.ndim == 1:
            return np.column_stack([1.0 - p, p])
        total = p.sum(axis=1, keepdims=True)
        return p / np.where(total > 0, total, 1.0)

    def predict(self, X):
        scores = self.decision_function(X)
        if scores.ndim == 1:
            return self.classes_[(scores > 0).astype(int)]
        return self.classes_[np.argmax(scores, axis=1)]
