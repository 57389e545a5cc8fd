"""Linear SVM, ε-DP by objective perturbation of the Huber hinge (CMS 2011, §3.4.2)."""

from __future__ import annotations

import numbers

from .._compat import Interval
from ._base import SHARED_CONSTRAINTS
from ._logistic import DPLogisticRegression
from ._objective import Huber

__all__ = ["DPLinearSVC"]


class DPLinearSVC(DPLogisticRegression):
    """L2-regularised linear SVM (Huber hinge), binary or one-vs-rest, ε-DP.

    Chaudhuri, Monteleoni & Sarwate (JMLR 2011), Section 3.4.2 ("Huber
    SVM"), Algorithm 2 and Theorem 9. Each binary problem minimises
    (1/n) Σ ℓ_h(s_i w·x_i) + (Λ/2)‖w‖², Λ = 1/(C n), with the Huber hinge
    of smoothing h::

        ℓ_h(z) = 0                     if z > 1 + h
                 (1 + h − z)² / (4h)   if |1 − z| ≤ h
                 1 − z                 if z < 1 − h

    (|ℓ′| ≤ 1, 0 ≤ ℓ″ ≤ c = 1/(2h) wherever ℓ″ exists). Everything else is
    :class:`DPLogisticRegression`'s objective perturbation with c = 1/(2h)
    instead of 1/4 (``_objective`` holds the proof, kinks included). A
    larger h smooths more (smaller c, larger ε′) and moves further from the
    hinge; CMS use h = 0.5. Every C ≥ (e^(ε_obj/4) − 1)/(c R²) gives the
    same model distribution.

    Rows, labels, ``classes``, ``sample_weight`` (clipped into [0, 1]: a
    weighted loss ωℓ_h keeps |ωℓ′| ≤ 1 and 0 ≤ ωℓ″ ≤ c) and one-vs-rest
    for three or more classes (K problems at ε/K, basic composition) are
    :class:`DPLogisticRegression`'s; so is ``decision_function``. There is
    no ``predict_proba``: the hinge's scores are not probabilities.

    Privacy: pure ε-DP per ``fit`` (all K problems) with respect to
    replacing any one row of ``X, y`` (n public), provided the Newton
    solver reaches its gradient tolerance (checked: the fit raises
    ``SolverError`` otherwise). The noise comes from the OS CSPRNG.

    Parameters
    ----------
    epsilon : float, default=1.0
        Privacy cost of one ``fit`` (ε/K per problem with K ≥ 3 classes).
    bounds : (lower, upper) or None, default=None
        Public bounds of the features (numbers or per-feature arrays), from
        the domain, never from the rows; rows are mapped into the ball.
    data_norm : float or None, default=None
        Public bound on a row's L2 norm (scaled rows). Not with ``bounds``.
    C : float, default=1.0
        Inverse regularisation strength, as in scikit-learn (Λ = 1/(C n)).
        C above the plateau (e^(ε_obj/4) − 1)/(c R²) acts as that value.
    h : float, default=0.5
        Smoothing width of the Huber hinge (c = 1/(2h)); CMS's value.
    fit_intercept : bool, default=True
        Append a constant feature (regularised intercept).
    classes : tuple of labels, default=(0, 1)
        The public labels, never read from y. Two: ``classes[1]`` is the
        positive class, every other label the negative one. Three or more:
        one-vs-rest.
    max_iter : int, default=100
        Newton iterations; values below 200 act as 200.
    noise_random_state : int or None, default=None
        None: the OS CSPRNG (production). An int makes the noise
        reproducible and is for tests only (``PrivacyLeakWarning``).

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features) or (K, n_features)
        Weights on the mapped rows (the ball's units, not the raw ones).
    intercept_ : ndarray of shape (1,) or (K,)
    classes_ : ndarray of shape (2,) or (K,)
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        When X has string column names.
    sensitivity_ : float
        S/R, the sensitivity (weight units) of the solver's stopping point
        covered by the output noise.
    plan_ : ObjectivePlan
        The public constants of the fit (ε′, Δ, scales, c; rescaled units).

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn_dpbo.dp_learners import DPLinearSVC
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> bounds = (0.0, 1.25 * X.max(axis=0))  # from the domain in practice
    >>> svm = DPLinearSVC(epsilon=1.0, bounds=bounds).fit(X, y)
    >>> svm.predict(X[:3]).shape
    (3,)
    """

    mechanism = "objective"
    """The only mechanism (read by :class:`DPLogisticRegression`'s methods)."""

    _parameter_constraints: dict = {
        **SHARED_CONSTRAINTS,
        "C": [Interval(numbers.Real, 0, None, closed="neither")],
        "h": [Interval(numbers.Real, 0, None, closed="neither")],
        "classes": [tuple, list],
        "max_iter": [Interval(numbers.Integral, 1, None, closed="left")],
    }

    def __init__(
        self,
        epsilon=1.0,
        bounds=None,
        data_norm=None,
        C=1.0,
        h=0.5,
        fit_intercept=True,
        classes=(0, 1),
        max_iter=100,
        noise_random_state=None,
    ):
        self.epsilon = epsilon
        self.bounds = bounds
        self.data_norm = data_norm
        self.C = C
        self.h = h
        self.fit_intercept = fit_intercept
        self.classes = classes
        self.max_iter = max_iter
        self.noise_random_state = noise_random_state

    def _loss(self):
        return Huber(float(self.h))

    @property
    def predict_proba(self):
        raise AttributeError(
            "DPLinearSVC has no predict_proba: the Huber hinge's scores are not "
            "probabilities. Use decision_function, or DPLogisticRegression."
        )
