"""Mode ``"whole-data"``: every row of ``X, y`` private, any estimator.

Subsample-and-aggregate (:class:`~.._modes.WholeData` states the setup and
the proof of S's sensitivity Δ = (high − low)/k). Everything the
mechanisms use is public and fixed before any row is read: the candidates,
k, the partition and each part's inner split. Part j's score vector s_j is
a function of its rows only (batch statistics, dtype inference and failures
stay inside the part, :mod:`._part_types`; warnings and prints are withheld
in the worker; no time is measured).

Default anchoring (``max_worse_probability`` = β, the defaults d among L + 1
candidates): the selection runs over u(λ) = S(λ) − τ·[λ ≠ d], τ =
(2Δ/ε₁)·ln(L/β) (:func:`._releases.anchor_margin`), public, so ‖u − u′‖_∞
≤ Δ (raised by two ulps for the subtraction's rounding): ε₁-DP (McKenna &
Sheldon 2020, Theorem 1), and with the score's Laplace (ε₂) (ε₁ + ε₂)-DP by
adaptive composition (``budget_split``; ε₁ = 0 when ``max_selection_noise``
skips the selection, and no row is read nor ε charged when it does and
``release_score=False``). One candidate no better than the defaults on the
parts is released with probability ≤ β (in ``privacy_report_``). A refit on
the rows (``refit=True``) is outside the guarantee, and the fit says so.
"""

from __future__ import annotations

import inspect
import math
import pickle
import sys
import threading
import warnings
from contextlib import contextmanager
from dataclasses import replace
from types import SimpleNamespace
from typing import Any

import numpy as np
from joblib import Parallel, delayed
from sklearn.base import clone
from sklearn.pipeline import Pipeline
from sklearn.utils.metadata_routing import process_routing
from threadpoolctl import ThreadpoolController

from ..._compat import _num_samples, _routing_enabled, _safe_split
from ...dp_learners._base import DPLearnerMixin, check_rows_container
from ...privacy._accounting import PrivacyReport, split_budget
from ...privacy._silence import quiet
from ...privacy._validation import PrivacyLeakWarning, check_privacy_rng
from .._budget import check_charge
from .._cv_results import _param_column
from .._evaluation import index_fit_params
from .._fitted import clear_fitted, refit
from .._noise_check import USELESS_FRACTION, UselessReleaseWarning
from .._progress import ProgressPrinter
from .._sealed import run_sealed
from ._part_types import part_fit_param
from ._part_types import part_target as _part_target
from ._part_types import part_view as _part_view
from ._releases import anchor_margin, release_default, releases_from_scores

WHOLE_DATA_RELATION = (
    "replace any one row of X, y (with its sample-aligned fit parameters, "
    "e.g. sample_weight); n is public"
)
MAX_PARTS = 100
"""Largest k of ``n_parts="auto"`` (each part costs a fit per candidate)."""

_NOT_COVERED = (
    "refit on every row of X, y: NOT covered by the privacy guarantee (a "
    "model trained on private rows can reveal them, and so can whether the "
    "refit fails); use refit=False, or the private-model mode for a DP model"
)


# --- Public plan: parts, inner splits, candidates (no row is read) ---
def n_parts_for(mode, n: int) -> int:
    """k: ``mode.n_parts`` (≤ n), or n // ``min_part_size`` in [1, MAX_PARTS]."""
    if mode.n_parts == "auto":
        return int(min(MAX_PARTS, max(1, n // int(mode.min_part_size))))
    k = int(mode.n_parts)
    if k > n:
        raise ValueError(
            f"method__n_parts={k} is larger than the number of rows ({n}): "
            "every part needs at least one row. Use n_parts='auto' or a "
            f"smaller number."
        )
    return k


def partition(n: int, k: int, seed: int) -> list[np.ndarray]:
    """k disjoint parts of ``range(n)``: a public permutation cut in k pieces."""
    perm = np.random.default_rng([int(seed), 0x5A4D]).permutation(n)
    return [np.sort(p) for p in np.array_split(perm, k)]


def inner_splits(size: int, inner_split, seed: int) -> list[tuple]:
    """(train, test) positions in a part (public permutation): a float f holds out
    ⌈f·size⌉, an int K makes K folds; [] when the part is too small."""
    order = np.random.default_rng([int(seed), size, 0x1A]).permutation(size)
    if isinstance(inner_split, float) or not float(inner_split).is_integer():
        n_test = min(size - 1, max(1, math.ceil(float(inner_split) * size)))
        if size < 2:
            return []
        return [(np.sort(order[:-n_test]), np.sort(order[-n_test:]))]
    n_folds = int(inner_split)
    if size < n_folds:
        return []
    folds = np.array_split(order, n_folds)
    return [
        (np.sort(np.concatenate(folds[:i] + folds[i + 1 :])), np.sort(folds[i]))
        for i in range(n_folds)
    ]


def selection_temperature(k: int, eps_params: float) -> float:
    """2Δ/ε₁ in units of the score range, Δ = 1/k: 2/(k ε₁)."""
    return 2.0 / (k * eps_params)


def part_train_size(parts, inner_split, seed: int) -> int:
    """Rows a part's model is fit on, averaged over parts and folds (public)."""
    sizes = [
        len(tr)
        for j, idx in enumerate(parts)
        for tr, _ in inner_splits(len(idx), inner_split, seed + j)
    ]
    return int(round(float(np.mean(sizes)))) if sizes else 0


def noise_floor(k: int, eps_params: float, n_candidates: int) -> float:
    """2·ln(#candidates)/(k·ε₁): permute-and-flip's expected shortfall (McKenna &
    Sheldon 2020) in units of the score range."""
    return 2.0 * math.log(max(n_candidates, 2)) / (k * eps_params)


def can_tell_apart(noise: float, limit: float | None) -> bool:
    """Tune only when one comparison's noise (score-range units) is ≤ ``limit``."""
    return limit is None or noise <= limit


def tunes(mode, k: int, eps_params: float) -> bool:
    """Whether the mode selects (else it releases the estimator's values)."""
    noise = selection_temperature(k, eps_params)
    return can_tell_apart(noise, mode.max_selection_noise)


def default_params(estimator: Any, names) -> dict:
    """The estimator's own values of the searched parameters (public)."""
    own = estimator.get_params(deep=True)
    return {name: own[name] for name in names if name in own}


def candidate_list(search, plan) -> list[dict]:
    """The public candidates: ``n_iter`` of the public set in its public order."""
    cands = plan.candidates
    order = np.argsort(plan.tie_break)[: min(int(search.n_iter), len(cands))]
    return [dict(cands.params[j]) for j in order]


def _candidates(search, plan, mode) -> tuple[list[dict], int | None]:
    """(candidates, row of the estimator's own values or None): those values are
    appended when ``include_default`` and not already among them."""
    params = candidate_list(search, plan)
    names = sorted({name for p in plan.candidates.params for name in p})
    own = default_params(search.estimator, names)
    if not mode.include_default or len(own) != len(names):
        return params, None
    row = next((i for i, p in enumerate(params) if _same_params(p, own)), None)
    return (params + [own], len(params)) if row is None else (params, row)


def _same_params(a: dict, b: dict) -> bool:
    try:
        return a.keys() == b.keys() and all(bool(a[k] == b[k]) for k in a)
    except (TypeError, ValueError):
        return False


def _verbose_params(estimator: Any) -> list[str]:
    """Parameters that make the estimator print while it fits (refused)."""
    out = []
    for name, value in estimator.get_params(deep=True).items():
        leaf = name.rsplit("__", 1)[-1]
        if leaf == "verbose" and not isinstance(value, (str, type(None))):
            try:
                if value:
                    out.append(name)
            except (TypeError, ValueError):
                out.append(name)
    return out


# --- One part's job (runs in a worker): scores of every candidate on the part ---
def _part_payload(estimator, X, y, fit_params, idx, n: int) -> bytes | None:
    """The part's rows, y and fit parameters, serialised, or None (the part
    scores ``low``): a row no pickler takes fails its own part only. The
    sample-aligned fit parameters are sliced and typed like X, from the part's
    own values (numbers and booleans float64: one row's complex or fractional
    weight decides no other part's type)."""
    try:  # what loky and Dask serialise with, when installed
        import cloudpickle as pickler
    except ImportError:  # pragma: no cover - then the standard pickle
        pickler = pickle
    with quiet():
        try:
            X_j, y_j = _safe_split(estimator, X, y, idx)
            fp_j = index_fit_params(fit_params, idx, n, part_fit_param)
            return pickler.dumps((X_j, y_j, fp_j))
        except BaseException as exc:  # noqa: BLE001 - one part's rows only
            if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                raise
            return None


def _score_part(estimator, candidates, payload, splits, scorer):
    """s_j(λ) ∈ [low, high] for every candidate λ, never raises: a failure scores
    ``low``; output is withheld (``quiet``, in the worker, ``__del__`` too)."""
    low = scorer.bounds[0]
    out = np.full(len(candidates), low, dtype=float)
    if payload is None:
        return out
    with quiet(), _one_thread():
        _fill_part(estimator, candidates, payload, splits, scorer, out)
    return out


@contextmanager
def _one_thread():
    """One BLAS/OpenMP thread for a part's fits (process-wide; parts may run in
    threads: each pin restores what it found, the last what the first found)."""
    with _PIN_LOCK:
        if _POOLS[1] != len(sys.modules):
            _POOLS[:] = [ThreadpoolController(), len(sys.modules)]
        limiter = _POOLS[0].limit(limits=1)
        if _PINS[1] == 0:
            _PINS[0] = limiter
        _PINS[1] += 1
    try:
        yield
    finally:
        with _PIN_LOCK:
            limiter.restore_original_limits()
            _PINS[1] -= 1
            if _PINS[1] == 0:  # B's originals were A's 1 if A's pin was open
                _PINS[0].restore_original_limits()
                _PINS[0] = None


_POOLS: list = [None, -1]  # this process's ThreadpoolController, len(sys.modules)
_PINS: list = [None, 0]  # the first open pin's limiter, number of open pins
_PIN_LOCK = threading.Lock()


def _shared_steps(estimator, candidates, fit_params) -> int:
    """Leading steps of an exact ``Pipeline`` (no fit parameters) that no candidate
    sets (0: none): fitted once per fold and shared by the candidates."""
    if type(estimator) is not Pipeline or fit_params:
        return 0
    names = [name for name, _ in estimator.steps]
    first = len(names) - 1
    for params in candidates:
        for key in params:
            step = key.split("__", 1)[0]
            if step not in names:  # a parameter of the Pipeline itself
                return 0
            first = min(first, names.index(step))
    return first


def _fit_shared(estimator, shared, X_tr, y_tr, X_te):
    """(fitted leading steps, output on X_tr, on X_te or None), or None when
    their fit fails (then each candidate fits the whole pipeline)."""
    try:
        prefix = clone(estimator)[:shared]
        Xt_tr = prefix.fit_transform(X_tr, y_tr)
    except Exception:
        return None
    try:
        Xt_te = prefix.transform(X_te)
    except Exception:
        Xt_te = None
    return prefix, Xt_tr, Xt_te


def _fit_score(estimator, params, fold, scorer, shared, prep) -> float:
    """Clipped per-record values of ``params`` on one fold (raises on failure);
    with ``prep`` the rest of the pipeline is fitted on the shared output."""
    X_tr, y_tr, X_te, y_te, fp = fold
    params = clone(params, safe=False)
    if prep is None:
        est = clone(estimator).set_params(**params)
        if y_tr is None:
            est.fit(X_tr, **fp)
        else:
            est.fit(X_tr, y_tr, **fp)
        return scorer.record_values(est, X_te, y_te, private=False)
    prefix, Xt_tr, Xt_te = prep
    rest = clone(estimator[shared:]).set_params(**params)
    # a one-step rest is its step, fitted as Pipeline.fit does (y even if None)
    model = rest.steps[0][1] if len(rest.steps) == 1 else rest
    model.fit(Xt_tr, y_tr)
    if Xt_te is not None:
        try:
            return scorer._clip(scorer._raw(model, Xt_te, y_te))
        except Exception:
            pass
    full = clone(estimator)
    full.steps = prefix.steps + rest.steps
    return scorer.record_values(full, X_te, y_te, private=False)


def _fill_part(estimator, candidates, payload, splits, scorer, out) -> None:
    """``out[c]`` = s_j(λ_c) for the part in ``payload`` (``low`` on failure)."""
    low, high = scorer.bounds
    try:
        X, y, fit_params = pickle.loads(payload)
        shared = _shared_steps(estimator, candidates, fit_params)
        folds, preps = [], []
        for tr, te in splits:
            X_tr, y_tr = _safe_split(estimator, X, y, tr)
            X_te, y_te = _safe_split(estimator, X, y, te, tr)
            fold = (
                _part_view(X_tr),
                _part_target(y_tr),
                _part_view(X_te),
                _part_target(y_te),
                index_fit_params(fit_params, tr, _num_samples(X)),
            )
            folds.append(fold)
            preps.append(_fit_shared(estimator, shared, *fold[:3]) if shared else None)
    except Exception:
        return
    for c, params in enumerate(candidates):
        values = []
        for fold, prep in zip(folds, preps):
            try:
                v = _fit_score(estimator, params, fold, scorer, shared, prep)
                value = float(np.mean(v)) if len(v) else low
            except Exception:
                value = low
            values.append(value if math.isfinite(value) else low)
        if values:
            out[c] = float(np.clip(np.mean(values), low, high))


def part_score_matrix(
    search, candidates, X, y, fit_params, parts, inner_split, seed, scorer
) -> np.ndarray:
    """s[j, c] = s_j(λ_c) ∈ [low, high]: one joblib job per part."""
    n, est = _num_samples(X), search.estimator
    jobs = [
        delayed(_score_part)(
            est,
            candidates,
            _part_payload(est, X, y, fit_params, idx, n),
            inner_splits(len(idx), inner_split, seed + j),
            scorer,
        )
        for j, idx in enumerate(parts)
    ]
    with Parallel(n_jobs=search.n_jobs, pre_dispatch=search.pre_dispatch) as par:
        return np.vstack(par(jobs))


# --- The fit path ---
def whole_data_requested(search, plan, X_val, y_val, cv) -> bool:
    """Whether this fit runs the whole-data mode: asked for, or the default
    ``method`` string with no validation set and ``cv=None``."""
    rows_only = X_val is None and y_val is None and cv is None
    if plan.mode.method == "whole-data" and not rows_only:
        raise ValueError(
            "method='whole-data' treats every row of X, y as private and "
            "makes its own public split of them: pass the whole data as "
            "fit(X, y), without X_val/y_val and with cv=None."
        )
    default = isinstance(search.method, str) and search.method == "private-selection"
    return plan.mode.method == "whole-data" or (default and rows_only)


def _fit_params_refusal(estimator, fit_params: dict) -> str | None:
    """Why ``estimator.fit`` would refuse these names (scikit-learn's own rule,
    with or without metadata routing), else None; from the names only."""
    if not fit_params:
        return None
    if _routing_enabled():
        if not hasattr(estimator, "get_metadata_routing"):
            return None
        try:
            process_routing(estimator, "fit", **fit_params)
        except Exception as exc:  # noqa: BLE001 - the router's own refusal
            return str(exc).rstrip(". ")
        return None
    for name in fit_params:
        est, key = estimator, name
        while isinstance(est, Pipeline):
            step, sep, rest = key.partition("__")
            if not sep:
                return (
                    f"Pipeline.fit takes a step's parameter as <step>__{key}, "
                    f"as in scikit-learn: pass {est.steps[-1][0]}__{key}=... (the "
                    "final step), or enable metadata routing and set_fit_request"
                )
            est = dict(est.steps).get(step)
            if est is None or isinstance(est, str):
                return f"the pipeline has no fitted step {step!r} for {name}"
            key = rest
        params = inspect.signature(est.fit).parameters.values()
        if not any(p.name == key or p.kind is p.VAR_KEYWORD for p in params):
            return f"{type(est).__name__}.fit takes no parameter {key!r}"
    return None


def _refuse(search, plan, other_scorers, groups, val_groups) -> None:
    """Settings the whole-data mode cannot honour, refused before any read."""
    if other_scorers:
        raise ValueError(
            "method='whole-data' releases one metric: pass one scorer as "
            "scoring (several metrics are supported with a validation set)."
        )
    refuse_target_clip(plan.scorer, "whole-data")
    if groups is not None or val_groups is not None:
        raise ValueError(
            "method='whole-data' splits the rows into parts by a public random "
            "permutation; groups/val_groups are not used. Drop them (a "
            "group-level guarantee is not offered in this mode)."
        )
    loud = _verbose_params(search.estimator)
    if loud:
        raise ValueError(
            f"method='whole-data' fits the estimator on private rows, and "
            f"{', '.join(loud)} would print what it sees: set "
            f"{loud[0]}=0 (the search's own verbose is safe)."
        )


def refuse_target_clip(scorer, method: str) -> None:
    """Refuse a score whose constants come from the (here private) targets."""
    if not getattr(scorer, "needs_training_targets", False):
        return
    name = getattr(scorer, "score_name", None) or str(scorer.name).split("(")[0]
    given = "error_clip=c, target_variance=v" if name == "r2" else "error_clip=c"
    raise ValueError(
        f"scoring={scorer.name}: method={method!r} protects every row, "
        "targets included, so no clip can be derived from them (checked "
        "before any row is read and before any budget is spent). Pass "
        f"make_dp_scorer({name!r}, {given}) with values from public knowledge "
        "of the target (errors above c count as c)."
    )


def _warn_settings(search, plan, k, tuning, eps_p, score_budget, n_cands, anchored):
    """Public announcements (settings, n, k only), before any row is read."""

    def warn(message, category=UselessReleaseWarning):
        warnings.warn(message, category, stacklevel=5)

    if search.refit:
        warn(
            "method='whole-data' with refit=True: best_estimator_ is refit on "
            "every row of X, y and is NOT covered by the privacy guarantee "
            "(only best_params_ and best_score_ are). Set refit=False to "
            "publish only the private releases.",
            PrivacyLeakWarning,
        )
    floor = noise_floor(k, eps_p, n_cands)
    arithmetic = (
        f"the selection's noise floor is 2*ln(#candidates)*(score range)/"
        f"(k*epsilon) = 2*ln({n_cands})/({k}*{eps_p:g}) = {floor:.3g} of the "
        "score range"
    )
    if not tuning:
        noise = selection_temperature(k, eps_p)
        warn(
            f"method='whole-data': with k={k} parts and epsilon={eps_p:g} for "
            f"best_params_, the selection's noise ({noise:.3g}"
            f" of the score range) exceeds max_selection_noise="
            f"{plan.mode.max_selection_noise:g} ({arithmetic}): best_params_ "
            "is the estimator's own values (no tuning) and "
            + (
                "the whole budget goes to best_score_"
                if score_budget is not None
                else "nothing private is released (release_score=False): no "
                "row is read and no budget is spent"
            )
            + ". More rows or a larger epsilon allow tuning."
        )
    elif n_cands > 1:
        beta = plan.mode.max_worse_probability
        tau = anchor_margin(1.0 / k, eps_p, n_cands - 1, beta) if anchored else None
        if max(floor, tau or 0.0) > USELESS_FRACTION:
            margin = (
                ""
                if tau is None
                else f", and another candidate is released only when it beats "
                f"the estimator's own values on the parts by more than the "
                f"margin (2/(k*epsilon))*ln({n_cands - 1}/{beta:g}) = {tau:.3g} "
                "of the score range: expect the defaults"
            )
            warn(
                f"method='whole-data': {arithmetic}, so candidates closer "
                f"than that cannot be told apart{margin}. More rows (k = n // "
                f"min_part_size, at most {MAX_PARTS} with n_parts='auto'), a "
                "larger epsilon or fewer candidates (n_iter) lower it "
                "(docs/whole_data.md: the rows a given gap needs)."
            )
    if score_budget is not None:
        scale = 1.0 / (k * score_budget)
        if scale > USELESS_FRACTION:
            warn(
                f"method='whole-data': the noise scale of best_score_ "
                f"({scale:.3g} of the score range) is more than 10% of it with "
                f"k={k} parts; more rows, a larger epsilon or "
                "release_score=False would help."
            )


def run_charged(search, method: str, cost, progress, data, body):
    """``body(ctx)`` sealed (:func:`run_sealed`) after the charge, ``ctx.data`` the
    private ``data`` and ``ctx.rng`` the noise source; ``body`` returns (releases,
    anything), checked against the charge."""
    charged: list = []

    def run(ctx):
        progress.seal()  # the charge, before the first read of any row
        if search.accountant is not None:
            label = f"{type(search).__name__}(method={method!r})"
            search.accountant.spend(*cost, label=label)
        charged.append(cost)
        return body(ctx)

    # no local holds the noise source: run_sealed clears it on ctx
    ctx = SimpleNamespace(rng=check_privacy_rng(search.noise_random_state), data=data)
    releases, rest = run_sealed(run, ctx, charged)
    check_charge(releases, charged)
    return releases, rest


def param_table(params: list[dict]) -> dict:
    """``cv_results_`` of the all-rows-private modes: the candidates, no score."""
    names = sorted({name for p in params for name in p})
    table = {f"param_{name}": _param_column(params, name) for name in names}
    table["params"] = [dict(p) for p in params]
    return table


def fit_whole_data(
    search, plan, cost, X, y, fit_params, groups, val_groups, other_scorers
):
    """``DPBayesSearchCV.fit`` in the whole-data mode; returns the search."""
    from .._modes import WholeData

    if plan.mode.method != "whole-data":
        plan = replace(plan, mode=WholeData())
    mode, scorer = plan.mode, plan.scorer
    _refuse(search, plan, other_scorers, groups, val_groups)
    problem = _fit_params_refusal(search.estimator, fit_params)
    if problem:
        raise ValueError(
            f"method='whole-data' fits the estimator with {sorted(fit_params)} "
            f"in every part, and its fit would refuse them: {problem}. (Every "
            "part would fail and score low; refused from the names, before "
            "any row is read.)"
        )
    if isinstance(search.estimator, DPLearnerMixin):  # it refuses a list of rows
        check_rows_container(X, type(search.estimator).__name__)
    n = _num_samples(X)  # y's length: checked by the search (check_inputs)
    if n < 2:
        raise ValueError("method='whole-data' needs at least 2 rows.")
    k = n_parts_for(mode, n)
    (eps_p, _), score_budget = split_budget(
        plan.epsilon, 0.0, search.budget_split, search.release_score
    )
    tuning = tunes(mode, k, eps_p)  # else nothing is spent on best_params_:
    eps_s = score_budget and (score_budget[0] if tuning else plan.epsilon)
    reads = tuning or eps_s is not None  # else nothing private to release
    if not reads:
        cost = (0.0, 0.0)  # no row is read: nothing is charged
    candidates, default_row = _candidates(search, plan, mode)
    if not tuning and default_row is None:
        raise ValueError(
            "method='whole-data' cannot tune with these settings "
            "(max_selection_noise) and the estimator's own values of the "
            "searched parameters are not all known: set include_default=True "
            "and search parameters the estimator has, or max_selection_noise="
            "None to tune anyway."
        )
    anchored = default_row is not None and mode.max_worse_probability is not None
    _warn_settings(search, plan, k, tuning, eps_p, eps_s, len(candidates), anchored)
    parts = partition(n, k, plan.seed)
    train_size = part_train_size(parts, mode.inner_split, plan.seed)
    evaluated = candidates if tuning else [candidates[default_row]]
    progress = ProgressPrinter(search.verbose, cost, "the rows of X, y")
    progress.plan(
        f"whole-data: {len(evaluated)} candidates on k={k} disjoint parts of "
        f"{n} rows; budget epsilon={cost[0]:g}"
        if reads
        else "whole-data: best_params_ = the estimator's own values, no score "
        "(release_score=False): no row is read; budget epsilon=0"
    )

    def run(ctx):
        Xp, yp, fp = ctx.data
        scores = part_score_matrix(
            search, evaluated, Xp, yp, fp, parts, mode.inner_split, plan.seed, scorer
        )
        return releases_from_scores(
            scores,
            mode,
            scorer,
            eps_params=eps_p if tuning else None,
            default_row=default_row,
            eps_score=eps_s,
            rng=ctx.rng,
            train_size=train_size,
        ), None

    if reads:
        data = (X, y, fit_params)
        releases, _ = run_charged(search, "whole-data", cost, progress, data, run)
    else:
        releases = [release_default(default_row)]
    index = releases[0].value if tuning else default_row
    try:
        _ingest(search, releases, index, candidates, default_row, plan, k)
        search.best_score_train_size_ = train_size
    except BaseException:
        clear_fitted(search)
        raise
    # outside the guarantee (announced); the releases stand if it fails
    refit(search, X, y, fit_params, None)
    progress.done()
    return search


def _ingest(search, releases, index, candidates, default_row, plan, k) -> None:
    search.best_index_ = int(index)  # its cv_results_ row: one row per candidate
    search.best_candidate_index_ = int(index)
    search.best_params_ = dict(candidates[index])
    for r in releases:
        if r.quantity == "best_score_":
            search.best_score_ = float(r.value)
    search.candidate_params_ = [dict(p) for p in candidates]
    search.scorer_ = plan.scorer
    search.n_parts_ = int(k)
    search.multimetric_ = False
    uncovered = {"best_estimator_": _NOT_COVERED} if search.refit else {}
    search.privacy_report_ = PrivacyReport(
        releases, "whole-data", neighbouring=WHOLE_DATA_RELATION, uncovered=uncovered
    )
    table = param_table(candidates)
    table["is_default"] = np.arange(len(candidates)) == default_row
    vars(search)["cv_results_"] = table
