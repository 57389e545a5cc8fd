"""Scorers with a declared range and sensitivity.

A private search needs two public facts about its validation score: the
range it lives in (to fix the GP units and to clip) and how much one
validation record can move it (the sensitivity of every release). A
plain scikit-learn scorer carries neither, so a string or callable the
library does not know is refused with guidance instead of guessed.

Neighbouring relation: validation sets of the same public size m that
differ by swapping one record.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Union

import numpy as np
from sklearn.metrics import accuracy_score, make_scorer

__all__ = ["DPScorer", "make_dp_scorer", "get_dp_scorer"]


class DPScorer:
    """A scikit-learn scorer plus its public range and sensitivity.

    Parameters
    ----------
    scorer : callable
        ``scorer(estimator, X, y) -> float`` (e.g. from ``make_scorer``),
        greater is better.
    bounds : tuple of float
        ``(low, high)``: every score is clipped into this interval before
        any mechanism sees it (clipping is silent: a warning would itself
        reveal something about the validation set).
    sensitivity : float or "mean"
        Largest change of the score when one of the m validation records is
        swapped. ``"mean"`` means the score is a mean of per-record terms
        each within ``bounds``, so Δ = (high − low)/m.
    name : str
        Shown in reports.
    lipschitz : float or None, default=None
        Only for ``method="lipschitz"`` (Assumption 2 of Kusner et al.):
        the score is −(1/m) Σ g(w, x̄_i, ȳ_i) for a per-record loss g with
        0 ≤ g ≤ g* = high − low (so ``high`` must be 0), and g is
        ``lipschitz · R``-Lipschitz in the weights w of a linear model for
        features of norm ‖x̄‖ ≤ R, and g(0, x̄, ȳ) is the same for every
        record. ``None`` (accuracy and most metrics): not
        Lipschitz, refused by that mode. The value is a declaration, like
        ``bounds``: the library cannot check it.
    """

    def __init__(
        self,
        scorer: Callable,
        *,
        bounds: tuple[float, float],
        sensitivity: Union[float, str] = "mean",
        name: str = "custom",
        lipschitz: float | None = None,
    ):
        low, high = (float(b) for b in bounds)
        if not (math.isfinite(low) and math.isfinite(high) and low < high):
            raise ValueError(
                f"bounds must be finite with low < high; got {bounds!r}. Give the "
                "range every score lies in, e.g. bounds=(0.0, 1.0) for accuracy."
            )
        if sensitivity != "mean":
            s = float(sensitivity)
            if not math.isfinite(s) or s <= 0:
                raise ValueError(
                    f"sensitivity must be 'mean' or a finite number > 0; got "
                    f"{sensitivity!r}."
                )
        if lipschitz is not None:
            lip = float(lipschitz)
            if not math.isfinite(lip) or lip <= 0:
                raise ValueError(
                    f"lipschitz must be None or a finite number > 0; got {lipschitz!r}."
                )
            lipschitz = lip
        self.scorer = scorer
        self.bounds = (low, high)
        self.sensitivity = sensitivity
        self.name = name
        self.lipschitz = lipschitz

    def sensitivity_for(self, n_validation: int) -> float:
        """Swap-one sensitivity Δ of the score on m = ``n_validation`` records.

        For ``"mean"``, (high − low)/m rounded up by two ulps of the largest
        bound: a mean computed in floating point can move by a little more
        than (high − low)/m, e.g. 1 − fl(2/3) > fl(1/3) for accuracy on m = 3
        records (the rounding of a mean breaking a claimed sensitivity,
        opendp/opendp#2923).
        """
        if self.sensitivity == "mean":
            low, high = self.bounds
            delta = (high - low) / int(n_validation)
            delta += 2.0 * math.ulp(max(abs(low), abs(high)))
            return math.nextafter(delta, math.inf)
        return min(float(self.sensitivity), self.bounds[1] - self.bounds[0])

    def __call__(self, estimator: Any, X, y) -> float:
        """Score, clipped into ``bounds``; NaN becomes the lower bound."""
        value = float(self.scorer(estimator, X, y))
        if math.isnan(value):
            return self.bounds[0]
        return float(np.clip(value, *self.bounds))

    def __repr__(self) -> str:
        lip = "" if self.lipschitz is None else f", lipschitz={self.lipschitz!r}"
        return (
            f"DPScorer(name={self.name!r}, bounds={self.bounds}, "
            f"sensitivity={self.sensitivity!r}{lip})"
        )


def make_dp_scorer(
    score_func: Callable,
    *,
    bounds: tuple[float, float],
    sensitivity: Union[float, str] = "mean",
    greater_is_better: bool = True,
    response_method: str = "predict",
    **kwargs,
) -> DPScorer:
    """Build a :class:`DPScorer` from a metric, like ``sklearn.metrics.make_scorer``.

    ``bounds`` are the range of the *returned* score (after the sign flip
    when ``greater_is_better=False``).

    Examples
    --------
    >>> from sklearn.metrics import accuracy_score
    >>> s = make_dp_scorer(accuracy_score, bounds=(0, 1), sensitivity="mean")
    >>> round(s.sensitivity_for(200), 12)
    0.005
    """
    scorer = make_scorer(
        score_func,
        greater_is_better=greater_is_better,
        response_method=response_method,
        **kwargs,
    )
    name = getattr(score_func, "__name__", "custom")
    return DPScorer(scorer, bounds=bounds, sensitivity=sensitivity, name=name)


class _AccuracyScorer:
    """``accuracy_score(y, estimator.predict(X))`` with a fast path.

    For 1-D integer or boolean labels it counts matches directly (the same
    number as ``accuracy_score``: an exact count divided by m), skipping
    scikit-learn's input validation, which costs about 1.5 ms per call and
    dominated the per-iteration overhead of the search. Anything else goes
    through ``accuracy_score``.
    """

    def __call__(self, estimator: Any, X, y) -> float:
        y_pred = np.asarray(estimator.predict(X))
        y_true = np.asarray(y)
        if (
            y_true.ndim == 1
            and y_pred.shape == y_true.shape
            and y_true.dtype.kind in "biu"
            and y_pred.dtype.kind in "biu"
            and y_true.size > 0
        ):
            return float(np.count_nonzero(y_true == y_pred)) / y_true.size
        return float(accuracy_score(y_true, y_pred))

    def __repr__(self) -> str:
        return "make_scorer(accuracy_score)"


def _signed_margins(estimator: Any, X, y) -> np.ndarray:
    """y·w·x for a binary linear classifier, with y = +1 for ``classes_[1]``.

    scikit-learn's ``decision_function`` is positive for ``classes_[1]``.
    Every label other than ``classes_[1]`` counts as −1, so a validation
    label the training set never had is a (badly) misclassified record, not
    an error whose message could describe it.
    """
    z = np.asarray(estimator.decision_function(X), dtype=float)
    if z.ndim != 1:
        raise ValueError(
            "The Lipschitz scorers need a binary classifier (1-D decision_function)."
        )
    positive = np.asarray(y) == estimator.classes_[1]
    return np.where(positive, z, -z)


class _SigmoidLossScorer:
    """−mean 1/(1 + exp(y w·x)): the normalised sigmoid loss, negated.

    Per record g ∈ (0, 1), so g* = 1; dg/dz = −σ(z)(1 − σ(z)) has absolute
    value ≤ 1/4 and z = y w·x is ‖x‖-Lipschitz in w: g is R/4-Lipschitz in w
    for ‖x‖ ≤ R (Kusner et al. 2015, Assumption 2; Huang et al. 2014).
    """

    def __call__(self, estimator: Any, X, y) -> float:
        from scipy.special import expit

        return -float(np.mean(expit(-_signed_margins(estimator, X, y))))

    def __repr__(self) -> str:
        return "neg_sigmoid_loss"


class _RampLossScorer:
    """−mean min(1, max(0, 1 − y w·x)): the ramp loss, negated.

    Per record g ∈ [0, 1] (g* = 1) and g is 1-Lipschitz in the margin, so
    R-Lipschitz in w for ‖x‖ ≤ R.
    """

    def __call__(self, estimator: Any, X, y) -> float:
        return -float(np.mean(np.clip(1.0 - _signed_margins(estimator, X, y), 0, 1)))

    def __repr__(self) -> str:
        return "neg_ramp_loss"


_BUILTIN = {
    "accuracy": lambda: DPScorer(
        _AccuracyScorer(),
        bounds=(0.0, 1.0),
        sensitivity="mean",
        name="accuracy",
    ),
    # Lipschitz surrogates for method="lipschitz" (Assumption 2): g* = 1 and
    # L = lipschitz · R for features in the ball of radius R.
    "neg_sigmoid_loss": lambda: DPScorer(
        _SigmoidLossScorer(),
        bounds=(-1.0, 0.0),
        sensitivity="mean",
        name="neg_sigmoid_loss",
        lipschitz=0.25,
    ),
    "neg_ramp_loss": lambda: DPScorer(
        _RampLossScorer(),
        bounds=(-1.0, 0.0),
        sensitivity="mean",
        name="neg_ramp_loss",
        lipschitz=1.0,
    ),
}


def get_dp_scorer(scoring, estimator) -> DPScorer:
    """Resolve the ``scoring`` parameter of the search into a :class:`DPScorer`.

    ``None`` means accuracy for classifiers; other estimators must say how
    they are scored.
    """
    from sklearn.base import is_classifier

    if isinstance(scoring, DPScorer):
        return scoring
    if scoring is None:
        if is_classifier(estimator):
            return _BUILTIN["accuracy"]()
        raise ValueError(
            "scoring=None: only classifiers have a default private score "
            "(accuracy). For this estimator pass scoring=make_dp_scorer(metric, "
            "bounds=(low, high), sensitivity='mean'), declaring the range of "
            "the score and how much one validation record can change it."
        )
    if isinstance(scoring, str):
        if scoring in _BUILTIN:
            return _BUILTIN[scoring]()
        raise ValueError(
            f"scoring={scoring!r} has no declared range or sensitivity, so its "
            f"release could not be calibrated. Use one of {sorted(_BUILTIN)} or "
            "pass scoring=make_dp_scorer(metric, bounds=(low, high), "
            "sensitivity='mean')."
        )
    raise TypeError(
        "scoring must be None, a string naming a private scorer "
        f"({sorted(_BUILTIN)}) or a DPScorer; got an object of type "
        f"{type(scoring).__name__}. Wrap a metric with make_dp_scorer(metric, "
        "bounds=(low, high), sensitivity='mean') to declare its range and "
        "sensitivity."
    )
