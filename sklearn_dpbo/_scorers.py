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
    """

    def __init__(
        self,
        scorer: Callable,
        *,
        bounds: tuple[float, float],
        sensitivity: Union[float, str] = "mean",
        name: str = "custom",
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
        self.scorer = scorer
        self.bounds = (low, high)
        self.sensitivity = sensitivity
        self.name = name

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
        return (
            f"DPScorer(name={self.name!r}, bounds={self.bounds}, "
            f"sensitivity={self.sensitivity!r})"
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


_BUILTIN = {
    "accuracy": lambda: DPScorer(
        _AccuracyScorer(),
        bounds=(0.0, 1.0),
        sensitivity="mean",
        name="accuracy",
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
