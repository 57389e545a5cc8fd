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


def problem_epsilon(epsilon: float, n_problems: int) -> float:
    """ε of each binary problem: ε/K by composition (class docstring)."""
    return float(epsilon) / int(n_problems)


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
    """L2-regularised logistic regression, binary or one-vs-rest, ε-DP.

    Rows: with ``bounds=(lower, upper)`` (public, from the domain) each
    feature is clipped to its bounds and mapped onto [−1, 1], then the row
    is clipped to L2 norm ρ√d (ρ = ``_base.BOUNDS_NORM_SHARE`` = 1/2); with
    ``data_norm`` (rows already scaled by you) the row is clipped to that
    norm; with neither, to norm 1 (``fit`` warns). A row with a NaN is the
    zero row. ``predict`` maps rows by the same public map.

    Each binary problem minimises (1/n) Σ log(1 + exp(−s_i w·x_i)) +
    (Λ/2)‖w‖², Λ = 1/(C n), on those rows; with ``fit_intercept`` a
    constant 1 is appended (the intercept is regularised like the weights,
    rows then have norm ≤ R = √(norm² + 1)). Two classes: one problem, s_i
    = +1 when y_i is ``classes[1]``, −1 otherwise. K ≥ 3 classes:
    one-vs-rest, K problems on the same rows, s_i = +1 when y_i is
    ``classes[k]``; a label outside ``classes`` is −1 in every problem;
    ``predict`` is the argmax of the K scores. ``sample_weight`` (each
    clipped into [0, 1]) multiplies the rows' losses: a weighted loss ωℓ has
    ``|ωℓ′| ≤ 1`` and ``0 ≤ ωℓ″ ≤ 1/4``, all both mechanisms' proofs use.

    **Multiclass privacy (composition).** Each of the K problems is fitted
    by the binary mechanism below at ε/K. Replacing one record (x, y) by
    (x′, y′) replaces row i of every problem: (x, s_k(y)) by (x′, s_k(y′)),
    a replace-one neighbour in each (the labels alone would change in at
    most 2 problems, but the features change in all K, so no problem is
    spared). Each problem's release is (ε/K)-DP given the public ones
    before it (the noise of each is fresh), so by basic composition the K
    together are ε-DP: the density ratio of the joint release is the
    product of K ratios, each ≤ e^(ε/K). The constant K is tight for this
    construction (a record far from the others shifts every problem's
    minimiser; ``tests/dp_learners/test_audit_multiclass.py`` measures it
    and catches the variant that gives each problem the full ε).

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
    gives the same model distribution.

    ``mechanism="output"``: Algorithm 1 (their Corollary 8), ŵ + b with
    density ∝ exp(−ε‖b‖/Δ), Δ = 2RC (:func:`logistic_sensitivity`).

    Privacy: pure ε-DP per ``fit`` (all K problems) with respect to
    replacing any one row of ``X, y`` (n public), provided the Newton
    solver reaches its gradient tolerance (checked: the fit raises
    ``SolverError`` otherwise). Noise from the OS CSPRNG (exact Gamma
    radius, float direction, rounded to a public grid).

    Parameters
    ----------
    epsilon : float, default=1.0
        Privacy cost of one ``fit`` (ε/K per problem with K ≥ 3 classes).
    bounds : (lower, upper) or None, default=None
        Public bounds of the features (numbers, or arrays with one entry
        per feature), declared from the domain, never computed from the
        private rows. Rows are clipped and mapped into the learner's ball.
    data_norm : float or None, default=None
        For rows you have already scaled: public bound on a row's L2 norm,
        larger rows are scaled down to it. Not with ``bounds``.
    C : float or "scale", default="scale"
        Inverse regularisation strength, as in scikit-learn (Λ = 1/(C n)).
        Output perturbation: the noise norm is ≈ 2RC·d/ε (small C, small
        noise). Objective perturbation: C above the plateau
        (e^(ε_obj/4) − 1)/(c R²) acts as that plateau value. ``"scale"``:
        objective perturbation, 0.3 × the plateau's C, from ε per problem
        and R only (public; ``benchmarks/bench_untuned_C.py`` measures it
        against C = 1); output perturbation, 1.0.
    fit_intercept : bool, default=True
        Append a constant feature (regularised intercept).
    classes : tuple of labels, default=(0, 1)
        The public labels (numbers or strings), never read from y. Two:
        ``classes[1]`` is the positive class, every other label (including
        labels outside ``classes``) the negative one. Three or more:
        one-vs-rest. A string-typed y needs string classes (refused from
        the dtype otherwise), and a float-typed y with whole-number
        classes is refused as a continuous target (cast it to int).
    max_iter : int, default=100
        Newton iterations; values below 200 act as 200 (the privacy proof
        needs the certified tolerance).
    mechanism : {"objective", "output"}, default="objective"
        Objective perturbation (CMS Algorithm 2) or output perturbation
        (Algorithm 1).
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
        Output perturbation: Δ of the released (coef, intercept) vector.
        Objective perturbation: S/R, the sensitivity (weight units) of the
        solver's stopping point covered by the output noise.
    plan_ : ObjectivePlan or None
        Objective perturbation's public constants (ε′, Δ, scales; rescaled
        units); None for output perturbation.
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
        """The mixin's checks, and two or more distinct public ``classes``: run
        by the private-model mode for every candidate before any row is read."""
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
        """The labels' container against the declared classes, from types
        only (:func:`~._base.check_label_types`), then its shape."""
        check_label_types(y, self.classes, type(self).__name__)
        return super()._check_targets(y, n)

    def _rows(self, X) -> np.ndarray:
        """Rows mapped into the ball by the public map: :func:`~._base.map_features`
        (bounds) then :func:`~._base.clip_rows` (norm, NaN rows, intercept)."""
        bounds, norm, _ = self._ball(X.shape[1])
        return clip_rows(map_features(X, bounds), norm, intercept=self.fit_intercept)

    def _binary_problems(self, y) -> list[np.ndarray]:
        """s ∈ {−1, +1}^n for each binary problem: one for two classes
        (``classes[1]`` positive), one per class otherwise (one-vs-rest);
        each label is read on its own (:func:`~._base.label_codes`)."""
        codes = label_codes(y, self.classes)
        if len(self.classes) == 2:
            return [np.where(codes == 1, 1.0, -1.0)]
        return [np.where(codes == k, 1.0, -1.0) for k in range(len(self.classes))]

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
        n, C = Xc.shape[0], self._C(eps, row_norm)
        if self.mechanism == "objective":
            loss = self._loss()
            plan = objective_plan(
                n,
                C,
                row_norm,
                eps,
                dim=Xc.shape[1],
                curvature=loss.curvature_bound,
            )
            w = fit_objective(
                Xc, s, plan, row_norm, rng, int(self.max_iter), weights, loss
            )
            return w, plan.output_sensitivity / row_norm, plan
        lam = output_regularization(n, C, row_norm)
        w = certified_newton(  # gradient bound: GRADIENT_TOL × a row's R
            Xc,
            s,
            lam,
            np.zeros(Xc.shape[1]),
            int(self.max_iter),
            GRADIENT_TOL * row_norm,
            "output perturbation",
            weights,
        )
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
        """Whether the private-model mode's ``"auto"`` skips tuning outside
        its n·ε/d window (``_private_model.default_suffices``): for objective
        perturbation only, whose noise and plateau that rule rests on."""
        return self.mechanism == "objective"

    @property
    def _auto_never_tunes(self) -> bool:
        """With ``C="scale"`` the mode's ``"auto"`` always releases it: tuning
        C inside the window lost to it on every held-out task
        (``benchmarks/results/bench_untuned_C_heldout4.json``)."""
        return isinstance(self.C, str)

    def _distribution_key(
        self, n: int, epsilon: float, n_features: int | None = None
    ) -> tuple:
        """A public key: equal keys ⇒ the same distribution of the fitted model.

        With objective perturbation every C on the plateau (Δ > 0) gives
        the objective with Λ̃ + Δ = max(c/(n(e^(ε_obj/4) − 1)), c/(κ_max − 1))
        and the same ε′, whatever C; with output perturbation every C where
        the conditioning floor binds gives the same Λ: those candidates
        share one key. Depends on n, ε, d and the parameters only (no row is
        read). With ``bounds`` the ball's radius depends on d: without
        ``n_features`` (and scalar bounds) no two C share a key.
        """
        params = self.get_params()
        for name in ("C", "epsilon", "noise_random_state"):
            params.pop(name)
        rest = tuple(sorted((k, repr(v)) for k, v in params.items()))
        d = n_features
        if self.bounds is not None and d is None:
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
        """Rows mapped by ``fit``'s public map, times ``coef_``, plus ``intercept_``.

        Shape (n,) for two classes (positive: ``classes[1]``), (n, C) for C ≥ 3.
        """
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
