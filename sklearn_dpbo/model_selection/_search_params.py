"""The search's settings: constraints, checks before any data, the public plan."""

from __future__ import annotations

import math
import numbers
import re

import numpy as np
from sklearn.base import clone

from .._compat import HasMethods, Interval, StrOptions
from ..bo._candidates import CandidateSet
from ..privacy._accountant import BudgetAccountant
from ..privacy._validation import (
    DELTA_CONSTRAINTS,
    EPSILON_CONSTRAINTS,
    check_delta,
    check_epsilon,
    public_rng,
)
from ._budget import check_release_budgets
from ._context import SearchPlan, check_gp_units, gp_units
from ._lipschitz import check_assumption_2
from ._metrics import search_scorers
from ._modes import MODES, SearchMode, moved_parameter_hint, resolve_mode
from ._splits import check_cv_structure

PARAMETER_CONSTRAINTS: dict = {
    "estimator": [HasMethods(["fit"])],
    "search_spaces": "no_validation",  # CandidateSet checks it
    "method": [StrOptions(set(MODES)), SearchMode],
    "epsilon": EPSILON_CONSTRAINTS,
    "delta": DELTA_CONSTRAINTS,
    "budget_split": [Interval(numbers.Real, 0, 1, closed="neither")],
    "release_score": ["boolean", StrOptions({"auto"})],
    "n_iter": [Interval(numbers.Integral, 1, None, closed="left")],
    "n_candidates": [Interval(numbers.Integral, 1, None, closed="left")],
    # get_dp_scorer and check_settings_and_metrics refuse the rest with guidance.
    "scoring": [None, str, callable, list, tuple, dict],
    "refit": ["boolean", str, callable],
    "cv": [None, "cv_object"],
    "n_jobs": [numbers.Integral, None],
    "pre_dispatch": [numbers.Integral, str],
    "verbose": ["verbose"],
    "error_score": [StrOptions({"raise"}), numbers.Real],
    "random_state": ["random_state"],
    "noise_random_state": [None, Interval(numbers.Integral, 0, None, closed="left")],
    "accountant": [None, BudgetAccountant],
}

# Other searches' parameters (GridSearchCV, skopt, Optuna), with what to do.
FOREIGN_PARAMETERS = {
    "param_grid": "DPBayesSearchCV takes the grid as search_spaces (the second "
    "argument): DPBayesSearchCV(estimator, search_spaces={...}). A list of "
    "values is a grid as in GridSearchCV.",
    "param_distributions": "DPBayesSearchCV takes the distributions as "
    "search_spaces (the second argument): frozen scipy.stats distributions "
    "and (low, high[, 'log-uniform']) ranges are discretised into "
    "n_candidates public points.",
    "return_train_score": "there are no per-candidate scores to return: raw "
    "validation scores would void the privacy guarantee. Use cv_results_ of "
    "method='private-selection' with shortlist='bo' (public cross-validation "
    "inside the training set) instead, or "
    "cross_validate(estimator.set_params(**best_params_), X_train, y_train, "
    "return_train_score=True).",
    "fit_params": "pass fit parameters to fit(X, y, **fit_params).",
    "iid": "iid was removed from scikit-learn; there is nothing to set.",
    "n_trials": "Optuna's n_trials is n_iter here (the number of "
    "Bayesian-optimisation evaluations): pass n_iter=30.",
    "timeout": "there is no time limit: the search runs a fixed, public number "
    "of evaluations (stopping on time would make them depend on timing). Use "
    "a smaller n_iter or n_candidates instead.",
    "optimizer_kwargs": "the optimiser's settings are the search mode's "
    "parameters: pass e.g. method=PrivateSelection(shortlist_size=5, "
    "public_cv=3) or method=DPGPUCB(kernel=Matern(nu=2.5, length_scale=0.2)) "
    "(docs/modes.md).",
    "n_points": "the number of public evaluations in flight at once is the "
    "mode's batch_size: pass method=PrivateSelection(batch_size=4).",
}


def check_set_params(search, params: dict) -> None:
    """Refuse a foreign or a mode's parameter, or ``method__<name>`` while
    ``method`` is a string, with what to pass."""
    owner = type(search).__name__
    string_method = "method" not in params and isinstance(search.method, str)
    for name, value in params.items():
        hint = FOREIGN_PARAMETERS.get(name) or moved_parameter_hint(
            name, value, params.get("method", search.method)
        )
        if hint is not None:
            raise ValueError(
                f"Invalid parameter {name!r} for estimator {owner}: {hint}"
            )
        if name.startswith("method__") and string_method:
            leaf = name[len("method__") :]
            cls = MODES.get(search.method)
            example = f"{cls.__name__}({leaf}={value!r})" if cls else "a mode object"
            raise ValueError(
                f"Invalid parameter {name!r} for estimator {owner}: method "
                f"is the string {search.method!r} (the mode's defaults), "
                "which has no parameters to set. Pass "
                f"set_params(method={example})."
            )


def check_settings_and_metrics(search) -> tuple[SearchPlan, dict]:
    """Validate everything that does not need data; return the public plan and
    the scorers of the other metrics (``{name: DPScorer}``, from the same
    :func:`search_scorers` call)."""
    if isinstance(search.cv, numbers.Integral) and not isinstance(search.cv, bool):
        check_cv_structure(search.cv)  # cv=1, cv=5: why, before the generic message
    search._validate_params()
    mode = resolve_mode(search.method)
    if MODES.get(mode.method) is not type(mode):
        raise ValueError(
            f"method={search.method!r} is not one of the library's modes: "
            f"pass one of {sorted(MODES)} or an instance of "
            f"{', '.join(cls.__name__ for cls in MODES.values())}."
        )
    mode._validate_in(type(search).__name__)
    if callable(search.refit):
        raise ValueError(
            "refit as a callable is not supported: in GridSearchCV it picks "
            "best_index_ from raw validation scores, which are never published "
            "here. Pass refit=True (or refit='<metric name>' with several "
            "metrics) and post-process best_params_ if needed."
        )
    for name in ("n_iter", "n_candidates"):
        if isinstance(getattr(search, name), (bool, np.bool_)):
            raise ValueError(
                f"{name} must be a positive int, not a bool; got "
                f"{name}={getattr(search, name)!r}. Pass e.g. {name}=30."
            )
    # Re-checked: set_config cannot switch this off.
    epsilon = check_epsilon(search.epsilon, owner=type(search).__name__)
    delta = check_delta(search.delta, owner=type(search).__name__)
    if mode.method == "gp-ucb":
        _check_gp_ucb(mode, delta, search.release_score)
    check_release_budgets(
        epsilon, delta, search.budget_split, search.release_score, mode.method
    )
    scorer, other_scorers = search_scorers(search)
    offset, scale = gp_units(mode, scorer.bounds)
    if not math.isfinite(offset):
        raise ValueError("score_offset must be finite.")
    if mode.method == "gp-ucb" and not scorer.needs_training_targets:
        # (else checked when the training targets give the bounds: _context)
        check_gp_units(offset, scale, scorer.bounds, mode)

    seed = public_rng(search.random_state).integers(2**31 - 1)
    candidates = CandidateSet(search.search_spaces, search.n_candidates, int(seed))
    _check_parameter_names(search.estimator, candidates)
    _refuse_inner_accountants(search.estimator, candidates)
    if mode.method == "lipschitz":
        check_assumption_2(search.estimator, candidates, scorer)
    check_cv_structure(search.cv)
    plan = SearchPlan(
        epsilon=epsilon,
        delta=delta,
        scorer=scorer,
        offset=offset,
        scale=scale,
        candidates=candidates,
        seed=int(seed),
        tie_break=public_rng(search.random_state).permutation(len(candidates)),
        mode=mode,
    )
    return plan, other_scorers


def _check_gp_ucb(mode, delta: float, release_score: bool) -> None:
    """The conditions of Algorithms 1 and 2 that the settings must meet."""
    if delta <= 0:
        raise ValueError(
            "method='gp-ucb' gives (epsilon, delta)-DP and needs delta > 0 "
            "(Algorithm 1's beta_t and c depend on it); pass e.g. "
            "delta=1e-5, or use method='private-selection' for pure "
            "epsilon-DP."
        )
    if mode.batch_size is not None and mode.batch_size > 1 and release_score:
        raise ValueError(
            "method='gp-ucb' with batch_size > 1 is allowed only with "
            "release_score=False: the score release (Theorem 3) rests on "
            "sequential GP-UCB. Use DPGPUCB(batch_size=1), or "
            "method='private-selection'."
        )
    if mode.noise == 0 and release_score:
        if mode.noise_free_constants is None:
            raise ValueError(
                "noise=0 selects Algorithm 2, whose score release needs "
                "the constants (A, tau) of de Freitas et al. (2012): pass "
                "DPGPUCB(noise=0, noise_free_constants=(A, tau)), or "
                "release_score=False, or a positive noise (Algorithm 1)."
            )
        consts = mode.noise_free_constants
        if len(consts) != 2 or not all(
            isinstance(c, numbers.Real) and not isinstance(c, bool) and 0 < c < math.inf
            for c in consts
        ):
            raise ValueError(
                "noise_free_constants must be a tuple (A, tau) of two finite "
                f"positive numbers; got {consts!r}."
            )


def _refuse_inner_accountants(estimator, candidates) -> None:
    """Refuse a :class:`BudgetAccountant` in the estimator or the search space."""
    values = (
        list(estimator.get_params(deep=True).items())
        if hasattr(estimator, "get_params")
        else []
    )
    for params in candidates.params:
        for name, value in params.items():
            values.append((name, value))
            if hasattr(value, "get_params"):
                values += [
                    (f"{name}__{k}", v) for k, v in value.get_params(deep=True).items()
                ]
    for name, value in values:
        if isinstance(value, BudgetAccountant):
            raise ValueError(
                f"the estimator's parameter {name!r} is a BudgetAccountant: its "
                "ledger would record which candidates were fitted and which fits "
                "failed, which is private. Give the inner estimator "
                "accountant=None and pass the accountant to this search only."
            )


def _check_parameter_names(estimator, candidates) -> None:
    """Every candidate must be settable on the estimator (tried once per dict
    and choice of estimator-valued parameters)."""
    seen = set()
    for space, params in zip(candidates.space_of, candidates.params):
        key = (int(space),) + tuple(
            (k, id(v)) for k, v in sorted(params.items()) if hasattr(v, "get_params")
        )
        if key in seen:
            continue
        seen.add(key)
        try:
            clone(estimator).set_params(**clone(params, safe=False))
        except ValueError as exc:
            named = re.search(r"Invalid parameter '([^']+)'", str(exc))
            leaf = named.group(1) if named else None
            bad = [k for k in params if k.rsplit("__", 1)[-1] == leaf]
            raise ValueError(
                f"search_spaces names parameters {bad or sorted(params)} that "
                f"{type(estimator).__name__} does not have: {exc} Valid "
                "names are listed by estimator.get_params().keys() (use "
                "step__param inside a Pipeline; a step searched in the same "
                "dict, as in {'clf': [SVC()], 'clf__C': [...]}, is set first)."
            ) from None
