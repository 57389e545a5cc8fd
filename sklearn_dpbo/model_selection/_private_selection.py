"""Mode ``"private-selection"`` (:class:`~._modes.PrivateSelection`): a public
shortlist, its validation scores, private selection and a Laplace score."""

from __future__ import annotations

import numbers
from dataclasses import replace

import numpy as np
from sklearn.base import is_classifier
from sklearn.model_selection import KFold, StratifiedKFold, check_cv
from sklearn.utils.multiclass import type_of_target

from .._compat import _num_samples, _safe_split
from ..bo._acquisition import ucb_beta
from ..privacy._accounting import Release, split_budget
from ._context import SearchContext
from ._cv_results import public_cv_results
from ._evaluation import (
    _public_fold,
    _timed_fit_public,
    index_fit_params,
    prepare_private_scoring,
    score_public_candidates,
    score_validation,
    warn_fit_failures,
)
from ._public_search import PublicSearch, resolve_public_signal
from ._releases import release_best_params_selection, release_best_score_selection
from ._scheduler import Job, default_window, run_ordered

PUBLIC_BO_DELTA = 0.1  # δ of the public GP-UCB's β_t: a tuning constant
FITTED_KEY = "_selected_fit"


def _public_folds(search, public_cv, X, y, seed: int, fit_params: dict) -> list[tuple]:
    """The public CV folds inside the training set, indexed once."""
    if isinstance(public_cv, numbers.Integral):
        if (
            is_classifier(search.estimator)
            and y is not None
            and type_of_target(y) in ("binary", "multiclass")
        ):
            cv = StratifiedKFold(public_cv, shuffle=True, random_state=seed)
        else:
            cv = KFold(public_cv, shuffle=True, random_state=seed)
    else:
        cv = check_cv(public_cv, y, classifier=is_classifier(search.estimator))
    n = _num_samples(X)
    folds = []
    for tr, te in cv.split(X, y):
        X_tr, y_tr = _safe_split(search.estimator, X, y, tr)
        X_te, y_te = _safe_split(search.estimator, X, y, te, tr)
        folds.append((X_tr, y_tr, X_te, y_te, index_fit_params(fit_params, tr, n)))
    return folds


def public_search(ctx: SearchContext) -> PublicSearch:
    """The :class:`~._public_search.PublicSearch` driver (training set only)."""
    search, mode, plan, data = ctx.search, ctx.mode, ctx.plan, ctx.data
    candidates = plan.candidates
    n = len(candidates)
    n_train = _num_samples(data.X_train)
    public_cv, budget = resolve_public_signal(  # public size only
        mode.public_cv, mode.public_budget, n_train
    )
    folds = _public_folds(
        search, public_cv, data.X_train, data.y_train, plan.seed, data.fit_params
    )
    low, high = plan.scorer.bounds
    estimator, scorer, error_score = search.estimator, plan.scorer, search.error_score

    def fold_job(j: int, k: int) -> Job:
        args = (estimator, candidates.params[j], folds[k], scorer, error_score)
        return Job(_public_fold, args, tag=(j, k))

    def fit_job(j: int) -> Job:
        args = (*ctx.fit_args(candidates.params[j]), error_score)
        return Job(_timed_fit_public, args, tag=("fit", j))

    def to_gp(score: float) -> float:
        # A failed (NaN) or out-of-range public score: the range's ends.
        clipped = low if np.isnan(score) else min(max(score, low), high)
        return (clipped - plan.offset) / plan.scale

    n_iter = min(int(search.n_iter), n)
    kernel, length_scale = mode._gp_kernel()
    return PublicSearch(
        candidates.X,
        n_iter=n_iter,
        beta=lambda t: ucb_beta(t, n, PUBLIC_BO_DELTA),
        tie_break=plan.tie_break,
        fold_job=fold_job,
        n_folds=len(folds),
        fold0_size=_num_samples(folds[0][2]),
        bounds=plan.scorer.bounds,
        to_gp=to_gp,
        racing=mode.racing,
        budget=budget,
        fold_rows=[_num_samples(f[0]) for f in folds],
        n_train=n_train,
        shortlist_size=mode.shortlist_size,
        kernel=kernel,
        length_scale=length_scale,
        noise=mode.noise if mode.noise > 0 else 1e-6,
        on_candidate=lambda t: ctx.progress.step(
            f"public search iteration {t}/{n_iter}"
        ),
        finish=lambda shortlist: [fit_job(j) for j in shortlist],
    )


def public_results(ctx: SearchContext, driver: PublicSearch) -> tuple:
    """``(shortlist, cv_results_, fits)`` of a finished public search."""
    search, plan = ctx.search, ctx.plan
    n_fits = int(driver.folds_run().sum())
    warn_fit_failures(driver.failures, n_fits, search.error_score)
    shortlist = np.asarray(driver.shortlist(), dtype=int)
    if shortlist.size == 0:
        raise ValueError(
            "Every candidate evaluated by the public search failed to fit (see "
            "the FitFailedWarning). Nothing was released and no budget was "
            "spent: fix the estimator or the search space on the training data."
        )
    evaluated, split_scores = driver.split_scores()
    kept = set(shortlist.tolist())
    fit_times, score_times = driver.fold_times()
    table = public_cv_results(
        [plan.candidates.params[j] for j in evaluated],
        split_scores,
        candidate_index=evaluated,
        shortlisted=[j in kept for j in evaluated],
        n_folds_run=driver.folds_run(),
        fit_times=fit_times,
        score_times=score_times,
    )
    return shortlist, table, [driver.fitted[j] for j in shortlist]


def _search_and_score(ctx: SearchContext) -> tuple[np.ndarray, np.ndarray, dict, dict]:
    """The public search, its public checks, then the shortlist's scores."""
    search, mode = ctx.search, ctx.mode
    driver = public_search(ctx)
    window = (
        default_window(search.n_jobs) if mode.batch_size is None else mode.batch_size
    )
    run_ordered(
        driver, window=window, n_jobs=search.n_jobs, pre_dispatch=search.pre_dispatch
    )
    shortlist, table, fits = public_results(ctx, driver)
    kept, models, snapshots, here = prepare_private_scoring(
        ctx, shortlist, fits, keep_fitted=bool(search.refit)
    )
    ctx.progress(f"scoring {len(kept)} shortlisted candidates on the validation set")
    utilities = score_validation(ctx, models, here)
    return np.asarray(kept), utilities, snapshots, table


def run_private_selection(ctx: SearchContext) -> tuple[list[Release], int, dict]:
    """Shortlist publicly, score privately, release by private selection."""
    search, mode, plan, data = ctx.search, ctx.mode, ctx.plan, ctx.data
    scorer = plan.scorer
    table = None
    if mode.shortlist == "bo":
        shortlist, utilities, fitted, table = _search_and_score(ctx)
    else:
        n = len(plan.candidates)
        if mode.shortlist == "grid":
            shortlist = np.arange(n)
        else:  # "random": a public random sample
            shortlist = np.argsort(plan.tie_break)[: min(mode.shortlist_size, n)]
        ctx.progress(
            f"scoring {len(shortlist)} shortlisted candidates on the validation set"
        )
        shortlist, utilities, fitted = score_public_candidates(
            ctx, shortlist, keep_fitted=bool(search.refit)
        )
    sensitivity = scorer.sensitivity_for(data.n_validation)
    (eps_p, _), score_budget = split_budget(
        plan.epsilon, 0.0, search.budget_split, search.release_score
    )
    params_release = release_best_params_selection(
        utilities,
        epsilon=eps_p,
        sensitivity=sensitivity,
        selection=mode.selection,
        rng=ctx.rng,
    )
    position = params_release.value
    releases = [replace(params_release, value=int(shortlist[position]))]
    if score_budget is not None:
        releases.append(
            release_best_score_selection(
                float(utilities[position]),
                epsilon=score_budget[0],
                sensitivity=sensitivity,
                bounds=scorer.bounds,
                rng=ctx.rng,
            )
        )
    extra = {"shortlist_": shortlist}
    if releases[0].value in fitted:
        extra[FITTED_KEY] = fitted[releases[0].value]
    if table is not None:
        table["shortlisted"] &= np.isin(table["candidate_index"], shortlist)
        extra["cv_results_"] = table
    return releases, releases[0].value, extra
