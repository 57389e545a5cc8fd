"""Fitting and scoring candidates, in parallel through joblib.

Public fits follow scikit-learn's ``error_score``; private scores are means
of clipped per-record values and never raise; a private candidate
(``"gp-ucb"``) whose fit fails scores ``low`` on every record, silently.
"""

from __future__ import annotations

import pickle
import time
import warnings
from collections import Counter
from typing import Any, Optional, Sequence

import numpy as np
from joblib import Parallel, delayed, effective_n_jobs
from sklearn.base import clone
from sklearn.exceptions import FitFailedWarning

from .._compat import _num_samples, _safe_indexing
from ..privacy._rowwise import is_rowwise
from ..privacy._scorers import PUBLIC_ROWS, SINGLE_ROWS, rows_scored_by_check
from ..privacy._silence import quiet


def index_fit_params(fit_params: dict, indices, n_samples: int, typed=None) -> dict:
    """Restrict sample-aligned fit parameters (e.g. ``sample_weight``) to rows;
    each restricted one passed through ``typed`` (typed by those rows alone)."""

    def aligned(value) -> bool:
        try:
            return not isinstance(value, str) and len(value) == n_samples
        except TypeError:  # no len()
            return False

    typed = typed or (lambda v: v)
    return {
        k: typed(_safe_indexing(v, indices)) if aligned(v) else v
        for k, v in fit_params.items()
    }


def _fit(estimator: Any, params: dict, X, y, fit_params: dict):
    est = clone(estimator).set_params(**clone(params, safe=False))
    if y is None:
        est.fit(X, **fit_params)
    else:
        est.fit(X, y, **fit_params)
    return est  # scikit-learn ignores what fit returns


def fit_public(
    estimator: Any, params: dict, X, y, fit_params: dict, *, error_score
) -> tuple[Optional[Any], Optional[str]]:
    """``(fitted, None)`` or ``(None, why)``; ``error_score="raise"`` raises."""
    try:
        return _fit(estimator, params, X, y, fit_params), None
    except Exception as exc:
        if isinstance(error_score, str):
            raise
        return None, f"{type(exc).__name__}: {exc}"


def _timed_fit_public(estimator, params, X, y, fit_params, error_score):
    """:func:`fit_public` and its duration: ``(fitted, why, seconds)``."""
    start = time.perf_counter()
    est, why = fit_public(estimator, params, X, y, fit_params, error_score=error_score)
    return est, why, time.perf_counter() - start


def _public_fold(estimator, params, fold, scorer, error_score):
    """One candidate on one public fold: ``(score, why, fit_time, score_time)``
    (the scorer isolates failing records, so scoring does not raise)."""
    X_fit, y_fit, X_score, y_score, fit_params = fold
    est, why, fit_time = _timed_fit_public(
        estimator, params, X_fit, y_fit, fit_params, error_score
    )
    if est is None:
        return float(error_score), why, fit_time, 0.0
    start = time.perf_counter()
    score = float(np.mean(scorer.record_values(est, X_score, y_score, private=False)))
    return score, None, fit_time, time.perf_counter() - start


def warn_fit_failures(failures: list[str], n_fits: int, error_score) -> None:
    """One :class:`FitFailedWarning` for the public fits that failed."""
    if not failures:
        return
    counts = Counter(failures)
    summary = "\n".join(f"{n} fits failed with: {why}" for why, n in counts.items())
    warnings.warn(
        f"\n{len(failures)} fits failed out of a total of {n_fits} fits of "
        "public candidates on the public training set. Their score was set to "
        f"error_score={error_score!r} (a candidate with a failed fit is never "
        "scored on the validation set). To raise instead, set "
        f"error_score='raise'.\n{summary}",
        FitFailedWarning,
        stacklevel=3,
    )


def score_private(fitted: Any, records, scorer) -> float:
    """Mean of the clipped per-record values (:meth:`DPScorer.private_values`)."""
    return float(np.mean(scorer.private_values(fitted, records)))


def fit_and_score_private(
    estimator: Any, params: dict, X_fit, y_fit, fit_params: dict, records, scorer
) -> float:
    """Fit a *private* candidate silently and score it; a failed fit scores ``low``."""
    with quiet():
        try:
            est = _fit(estimator, params, X_fit, y_fit, fit_params)
        except Exception:
            return float(scorer.bounds[0])
    return score_private(est, records, scorer)


def fit_on_training(ctx, index: int, *, error_score):
    """:func:`fit_public` of public candidate ``index`` on the whole training set."""
    params = ctx.plan.candidates.params[index]
    return fit_public(*ctx.fit_args(params), error_score=error_score)


def public_preflight(ctx, index: int):
    """Fit and check public candidate ``index``; a failed fit gives ``None``."""
    search, plan, data = ctx.search, ctx.plan, ctx.data
    est, why = fit_on_training(ctx, index, error_score=search.error_score)
    if est is None:
        warn_fit_failures([why], 1, search.error_score)
        return None
    plan.scorer.check_public_rows(
        est, data.X_train, data.y_train, random_state=plan.seed
    )
    return est


def prepare_private_scoring(
    ctx, indices: Sequence[int], fitted: list, *, keep_fitted: bool = False
) -> tuple[list[int], list, dict, bool]:
    """Public checks of fitted candidates, before the validation set is read.

    ``fitted[i]`` is ``(fitted, why, seconds)`` of candidate ``indices[i]``;
    failed fits are dropped with one warning (all failed: raises). Returns
    ``(kept, models, snapshots, here)``.
    """
    search, plan, data = ctx.search, ctx.plan, ctx.data
    failures = [why for _, why, _ in fitted if why is not None]
    warn_fit_failures(failures, len(fitted), search.error_score)
    keep = [i for i, (est, _, _) in enumerate(fitted) if est is not None]
    if not keep:
        raise ValueError(
            f"All {len(fitted)} candidates to be scored on the validation set "
            "failed to fit on the training set (see the FitFailedWarning). "
            "Nothing was released and no budget was spent: fix the estimator "
            "or the search space on the training data."
        )
    check_seconds = 0.0
    for i in keep:
        for scorer in (plan.scorer, *plan.other_scorers):
            start = time.perf_counter()
            scorer.check_public_rows(
                fitted[i][0], data.X_train, data.y_train, random_state=plan.seed
            )
            if scorer is plan.scorer:
                check_seconds += time.perf_counter() - start
    snapshots = {}
    if keep_fitted:
        for i in keep:
            try:  # a model that cannot be pickled is refitted after the read
                snapshot = pickle.dumps(fitted[i][0], protocol=pickle.HIGHEST_PROTOCOL)
            except Exception:
                continue
            snapshots[int(indices[i])] = (snapshot, fitted[i][2])
    kept = [int(indices[i]) for i in keep]
    here = _score_here(
        search.n_jobs,
        check_seconds,
        _num_samples(data.X_train),
        data.n_validation,
        isolated=not all(is_rowwise(fitted[i][0]) for i in keep),
    )
    return kept, [fitted[i][0] for i in keep], snapshots, here


# Estimated scoring time (s) below which it runs in the calling thread.
SCORE_HERE_SECONDS = 0.02


def _score_here(
    n_jobs,
    check_seconds: float,
    n_train: int,
    n_validation: int,
    *,
    isolated: bool = False,
) -> bool:
    """Score in the calling thread (same scores either way)?"""
    if effective_n_jobs(n_jobs) == 1:
        return True
    if isolated:
        k = min(int(n_train), PUBLIC_ROWS)
        calls = (4 if k > 1 else 1) + min(SINGLE_ROWS, k)
        return check_seconds / calls * n_validation <= SCORE_HERE_SECONDS
    rows = max(rows_scored_by_check(n_train), 1)
    return check_seconds * max(1.0, n_validation / rows) <= SCORE_HERE_SECONDS


def score_public_candidates(
    ctx, indices: Sequence[int], *, keep_fitted: bool = False
) -> tuple[np.ndarray, np.ndarray, dict]:
    """Fit, check and score public candidates: ``(kept, utilities, snapshots)``."""
    params, error_score = ctx.plan.candidates.params, ctx.search.error_score
    fitted = list(
        ctx.parallel(
            delayed(_timed_fit_public)(*ctx.fit_args(params[j]), error_score)
            for j in indices
        )
    )
    kept, models, snapshots, here = prepare_private_scoring(
        ctx, indices, fitted, keep_fitted=keep_fitted
    )
    return np.asarray(kept), score_validation(ctx, models, here), snapshots


def score_validation(ctx, models: list, here: bool) -> np.ndarray:
    """Validation scores of checked models (the first private read)."""
    scorer = ctx.plan.scorer
    if here:
        with quiet():
            records = ctx.data.records(scorer, ctx.search.estimator)
            values = [score_private(model, records, scorer) for model in models]
    else:
        # A new Parallel: the public search's stream ended ``ctx.parallel``'s.
        records = ctx.data.records(scorer, ctx.search.estimator)  # the first read
        with quiet():  # each record that cannot travel to a worker fails alone
            records = records.picklable()
        search = ctx.search
        parallel = Parallel(n_jobs=search.n_jobs, pre_dispatch=search.pre_dispatch)
        blocks = record_blocks(len(records), effective_n_jobs(search.n_jobs))
        jobs, owner = [], []
        for j, model in enumerate(models):
            parts = [None] if is_rowwise(model) else blocks
            for part in parts:
                chunk = records if part is None else records.take(part)
                jobs.append(delayed(_private_values)(model, chunk, scorer))
                owner.append(j)
        per_record = [[] for _ in models]
        for j, part in zip(owner, parallel(jobs)):
            per_record[j].append(part)
        values = [float(np.mean(np.concatenate(parts))) for parts in per_record]
    return np.asarray(values, dtype=float)


# Validation records per job when a model is scored record by record.
BLOCK_ROWS = 250


def record_blocks(m: int, n_workers: int) -> list:
    """Public blocks (of m and the workers only) for record-by-record scoring."""
    n_blocks = max(1, min(4 * max(int(n_workers), 1), int(m) // BLOCK_ROWS))
    return [b for b in np.array_split(np.arange(int(m)), n_blocks) if len(b)]


def _private_values(model, records, scorer) -> np.ndarray:
    """Clipped per-record values of one block (averaged with the others)."""
    return scorer.private_values(model, records)
