"""The public ``cv_results_`` of ``"private-selection"``: training set only.

The public search of ``method="private-selection"`` (``shortlist="bo"``)
scores candidates by cross-validation *inside the training set*, which is
public. Those scores cost no privacy budget, so the search publishes them in
scikit-learn's ``cv_results_`` layout (one row per evaluated candidate,
masked ``param_*`` columns, ``params``), with column names that say where
the scores come from: ``split{k}_public_cv_score``,
``mean_public_cv_score``, ``std_public_cv_score``,
``rank_public_cv_score``. There is no ``*_test_score`` column: no
validation score is ever published raw (``best_score_`` is the DP release).
"""

from __future__ import annotations

import numbers
from typing import Sequence

import numpy as np
from scipy.stats import rankdata

__all__ = ["public_cv_results", "PUBLIC_SCORE_KEYS"]

PUBLIC_SCORE_KEYS = ("mean_public_cv_score", "std_public_cv_score")


def _param_column(params: Sequence[dict], name: str) -> np.ma.MaskedArray:
    """``param_<name>``: masked where a candidate lacks the parameter.

    Numeric when every candidate has a real (non-bool) value, as
    scikit-learn does since 1.5; object otherwise.
    """
    present = [name in p for p in params]
    values = [p.get(name) for p in params]
    if all(present) and all(
        isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_))
        for v in values
    ):
        return np.ma.MaskedArray(np.asarray(values), mask=False)
    column = np.ma.MaskedArray(np.empty(len(params), dtype=object), mask=True)
    for i, (has, v) in enumerate(zip(present, values)):
        if has:
            column[i] = v
    return column


def public_cv_results(
    params: Sequence[dict],
    split_scores: np.ndarray,
    *,
    candidate_index: Sequence[int],
    shortlisted: Sequence[bool],
) -> dict:
    """A ``cv_results_`` dict of the public cross-validation.

    Parameters
    ----------
    params : list of dict
        The evaluated candidates, in the order the public search first
        evaluated them.
    split_scores : ndarray of shape (n_evaluated, n_folds)
        Their scores on each public fold (training set only).
    candidate_index : list of int
        Index of each row in ``candidate_params_``.
    shortlisted : list of bool
        Whether the candidate went on to the private selection.
    """
    split_scores = np.asarray(split_scores, dtype=float).reshape(len(params), -1)
    results: dict = {}
    for name in sorted({k for p in params for k in p}):
        results[f"param_{name}"] = _param_column(params, name)
    results["params"] = [dict(p) for p in params]
    for k in range(split_scores.shape[1]):
        results[f"split{k}_public_cv_score"] = split_scores[:, k].copy()
    mean = split_scores.mean(axis=1)
    results["mean_public_cv_score"] = mean
    results["std_public_cv_score"] = split_scores.std(axis=1)
    results["rank_public_cv_score"] = np.asarray(
        rankdata(-mean, method="min"), dtype=np.int32
    )
    results["candidate_index"] = np.asarray(candidate_index, dtype=int)
    results["shortlisted"] = np.asarray(shortlisted, dtype=bool)
    return results
