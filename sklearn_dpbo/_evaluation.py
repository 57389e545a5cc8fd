"""Fitting and scoring candidates, in parallel through joblib.

The functions here run inside joblib workers (any backend: loky, threads,
Dask through ``joblib.parallel_backend("dask")``). They return bare
floats to the search, which keeps them private; nothing is printed.
"""

from __future__ import annotations

import numbers
from typing import Any

from sklearn.base import clone
from sklearn.utils import _safe_indexing

__all__ = ["fit_and_score", "index_fit_params"]


class ValidationScoringError(RuntimeError):
    """Scoring on the validation set failed; the cause is withheld."""


def index_fit_params(fit_params: dict, indices, n_samples: int) -> dict:
    """Restrict sample-aligned fit parameters (e.g. ``sample_weight``) to rows."""
    out = {}
    for key, value in fit_params.items():
        if hasattr(value, "__len__") and not isinstance(value, str):
            try:
                same = len(value) == n_samples
            except TypeError:
                same = False
            if same:
                out[key] = _safe_indexing(value, indices)
                continue
        out[key] = value
    return out


def fit_and_score(
    estimator: Any,
    params: dict,
    X_fit,
    y_fit,
    X_score,
    y_score,
    scorer,
    *,
    error_score,
    fit_params: dict,
    private: bool,
) -> float:
    """Fit a clone with ``params`` on (X_fit, y_fit); score on (X_score, y_score).

    ``private=True`` marks the score as a validation score: an exception
    raised while scoring is replaced by one that carries no message (its
    text could reveal validation data), and ``error_score`` is returned
    instead when it is a number. Fitting only sees the training set, so its
    exceptions propagate unchanged under ``error_score="raise"``.
    """
    est = clone(estimator).set_params(**clone(params, safe=False))
    try:
        if y_fit is None:
            est.fit(X_fit, **fit_params)
        else:
            est.fit(X_fit, y_fit, **fit_params)
    except Exception:
        if error_score == "raise":
            raise
        return float(error_score)
    failed = False
    try:
        return float(scorer(est, X_score, y_score))
    except Exception:
        if isinstance(error_score, numbers.Real):
            return float(error_score)
        if not private:
            raise
        failed = True
    # Raised outside the except block so that the original exception is not
    # even attached as __context__.
    assert failed
    raise ValidationScoringError(
        "Scoring a candidate on the validation set raised an exception. Its "
        "message is withheld because it may describe validation data; "
        "reproduce the failure on public data to debug it, or set error_score "
        "to a number in the scorer's range."
    )
