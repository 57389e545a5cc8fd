"""Fitting and scoring candidates, in parallel through joblib.

The functions here run inside joblib workers (any backend: loky, threads,
Dask through ``joblib.parallel_backend("dask")``). They return bare floats
to the search, which keeps them private; nothing is printed.

What may escape a worker depends on what is private about the task
(``privacy``):

``"public"``
    Public cross-validation inside the training set: exceptions and
    warnings propagate unchanged.
``"score"``
    A public candidate scored on the validation set (the shortlist of
    ``"private-selection"``): the score is private, so an exception raised
    while scoring is replaced by one without a message and warnings raised
    while scoring are suppressed.
``"candidate"``
    A candidate chosen by looking at validation scores (``"gp-ucb"``): the
    candidate itself is private, so exceptions and warnings of the fit are
    withheld too (they would name or describe it).
"""

from __future__ import annotations

import numbers
import warnings
from contextlib import contextmanager
from typing import Any, Sequence

from joblib import delayed
from sklearn.base import clone
from sklearn.utils import _safe_indexing

__all__ = [
    "ValidationScoringError",
    "evaluate_candidates",
    "fit_and_score",
    "index_fit_params",
]

PRIVACY_LEVELS = ("public", "score", "candidate")


class ValidationScoringError(RuntimeError):
    """Evaluating a private candidate or score failed; the cause is withheld."""


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


@contextmanager
def _quiet(private: bool):
    """Suppress warnings while private work runs (their text could leak)."""
    if not private:
        yield
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


_WITHHELD = {
    "fit": (
        "Fitting a candidate raised an exception. In method='gp-ucb' the "
        "evaluated candidates were chosen from validation scores and are "
        "private, so the candidate and the message are withheld. Set "
        "error_score to a number in the scorer's range, or fit the candidates "
        "of candidate_params_ on public data to find the failing one."
    ),
    "score": (
        "Scoring a candidate on the validation set raised an exception. Its "
        "message is withheld because it may describe validation data; "
        "reproduce the failure on public data to debug it, or set error_score "
        "to a number in the scorer's range."
    ),
}


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
    privacy: str = "public",
) -> float:
    """Fit a clone with ``params`` on (X_fit, y_fit); score on (X_score, y_score).

    With a numeric ``error_score`` any failure returns it. With
    ``error_score="raise"`` failures raise; what the exception may say
    depends on ``privacy`` (see the module docstring). Withheld errors are
    raised outside the ``except`` block, so the original exception is not
    even attached as ``__context__``.
    """
    if privacy not in PRIVACY_LEVELS:
        raise ValueError(f"privacy must be one of {PRIVACY_LEVELS}.")
    est = clone(estimator).set_params(**clone(params, safe=False))
    failed = None
    with _quiet(privacy == "candidate"):
        try:
            if y_fit is None:
                est.fit(X_fit, **fit_params)
            else:
                est.fit(X_fit, y_fit, **fit_params)
        except Exception:
            if isinstance(error_score, numbers.Real):
                return float(error_score)
            if privacy != "candidate":
                raise
            failed = "fit"
    if failed is None:
        with _quiet(privacy != "public"):
            try:
                return float(scorer(est, X_score, y_score))
            except Exception:
                if isinstance(error_score, numbers.Real):
                    return float(error_score)
                if privacy == "public":
                    raise
                failed = "score"
    raise ValidationScoringError(_WITHHELD[failed])


def evaluate_candidates(
    parallel,
    estimator: Any,
    params_list: Sequence[dict],
    splits: Sequence[tuple],
    scorer,
    *,
    error_score,
    privacy: str,
) -> list[list[float]]:
    """Scores of every candidate on every (fit, score) data split.

    ``splits`` is a list of ``(X_fit, y_fit, X_score, y_score, fit_params)``
    tuples, already indexed. Returns ``scores[i][k]`` for candidate i on
    split k. All jobs of the call go to ``parallel`` at once, so ``n_jobs``
    workers share them; the result never depends on the backend.
    """
    jobs = [
        delayed(fit_and_score)(
            estimator,
            params,
            X_fit,
            y_fit,
            X_score,
            y_score,
            scorer,
            error_score=error_score,
            fit_params=fit_params,
            privacy=privacy,
        )
        for params in params_list
        for (X_fit, y_fit, X_score, y_score, fit_params) in splits
    ]
    flat = list(parallel(jobs))
    k = len(splits)
    return [flat[i * k : (i + 1) * k] for i in range(len(params_list))]
