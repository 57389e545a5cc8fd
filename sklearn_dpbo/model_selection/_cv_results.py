"""The public ``cv_results_`` of ``"private-selection"``: training set only."""

from __future__ import annotations

import numbers
from typing import Sequence

import numpy as np
from scipy.stats import rankdata

TIME_COLUMNS = ("mean_fit_time", "std_fit_time", "mean_score_time", "std_score_time")


def _rank(mean: np.ndarray) -> np.ndarray:
    """Rank 1 = best mean; NaN last (all NaN: all 1), as scikit-learn's."""
    if np.isnan(mean).all():
        return np.ones(len(mean), dtype=np.int32)
    filled = np.where(np.isnan(mean), np.nanmin(mean) - 1, mean)
    return np.asarray(rankdata(-filled, method="min"), dtype=np.int32)


def _param_column(params: Sequence[dict], name: str) -> np.ma.MaskedArray:
    """``param_<name>``, masked where absent; numeric when every value is a
    real number (not a bool), as scikit-learn's; object otherwise."""
    present = np.asarray([name in p for p in params], dtype=bool)
    values = [p[name] for p in params if name in p]
    if values and all(
        isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_))
        for v in values
    ):
        dtype = np.result_type(*[np.asarray(v).dtype for v in values])
        data = np.zeros(len(params), dtype=dtype)
        data[present] = values
        return np.ma.MaskedArray(data, mask=~present)
    column = np.ma.MaskedArray(np.empty(len(params), dtype=object), mask=True)
    for i, p in enumerate(params):
        if name in p:
            column[i] = p[name]
    return column


class PublicCVResults(dict):
    """``cv_results_``: a dict whose missing test/train keys say why."""

    def __missing__(self, key):
        if isinstance(key, str) and any(word in key for word in ("test", "train")):
            raise KeyError(
                f"{key!r}: this cv_results_ holds only the public "
                "cross-validation inside the training set (*_public_cv_score "
                "columns, and the fit and score times of those public folds). "
                "Raw validation (test) scores are never published: they would "
                "void the privacy guarantee (best_score_ is the DP release); "
                "there are no train scores either. Cross-validate on your "
                "public training set for them: cross_validate(estimator."
                "set_params(**best_params_), X_train, y_train, "
                "return_train_score=True)."
            )
        raise KeyError(key)


def best_row(table, candidate: int) -> int:
    """The first row of ``table`` whose ``candidate_index`` is ``candidate``."""
    return int(np.flatnonzero(np.asarray(table["candidate_index"]) == candidate)[0])


def _per_row(values: np.ndarray, run: np.ndarray, reduce) -> np.ndarray:
    return np.array([reduce(row[:r]) for row, r in zip(values, run)], dtype=float)


def public_cv_results(
    params: Sequence[dict],
    split_scores: np.ndarray,
    *,
    candidate_index: Sequence[int],
    shortlisted: Sequence[bool],
    n_folds_run: Sequence[int] | None = None,
    fit_times: np.ndarray | None = None,
    score_times: np.ndarray | None = None,
) -> dict:
    """A ``cv_results_`` dict of the public cross-validation: one row per
    evaluated candidate, mean/std/rank and times over the ``n_folds_run``
    folds run (all by default; times omitted: NaN columns)."""
    split_scores = np.asarray(split_scores, dtype=float).reshape(len(params), -1)
    results = PublicCVResults()
    for name in sorted({k for p in params for k in p}):
        results[f"param_{name}"] = _param_column(params, name)
    results["params"] = [dict(p) for p in params]
    n_folds = split_scores.shape[1]
    for k in range(n_folds):
        results[f"split{k}_public_cv_score"] = split_scores[:, k].copy()
    run = np.full(len(params), n_folds) if n_folds_run is None else n_folds_run
    run = np.asarray(run, dtype=int)
    for kind, times in (("fit", fit_times), ("score", score_times)):
        if times is None:
            times = np.full(split_scores.shape, np.nan)
        times = np.asarray(times, dtype=float).reshape(split_scores.shape)
        results[f"mean_{kind}_time"] = _per_row(times, run, np.mean)
        results[f"std_{kind}_time"] = _per_row(times, run, np.std)
    mean = _per_row(split_scores, run, np.mean)
    results["mean_public_cv_score"] = mean
    results["std_public_cv_score"] = _per_row(split_scores, run, np.std)
    results["rank_public_cv_score"] = _rank(mean)
    results["n_public_folds"] = run
    results["candidate_index"] = np.asarray(candidate_index, dtype=int)
    results["shortlisted"] = np.asarray(shortlisted, dtype=bool)
    return results
