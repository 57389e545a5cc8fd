"""The metrics of a search: which one selects, the others' budget and releases
(the ``scoring`` parameter of ``DPBayesSearchCV``), and ``score``'s public score.
"""

from __future__ import annotations

import math
import pickle
from dataclasses import replace

from ..privacy._accounting import split_budget
from ..privacy._builtin_scores import get_dp_scorer
from ..privacy._scorers import DPScorer
from ._budget import check_release_budgets, planned_cost
from ._evaluation import fit_on_training, score_private
from ._private_selection import FITTED_KEY
from ._releases import release_best_score_selection


def scorers_by_name(
    scoring, refit, estimator, method: str
) -> tuple[DPScorer, dict[str, DPScorer]]:
    """(selection metric's scorer, {name: scorer} of the other metrics)."""
    if not isinstance(scoring, (list, tuple, dict)):
        scorer = get_dp_scorer(scoring, estimator)
        if isinstance(refit, str) and refit != scorer.name:
            raise ValueError(
                f"refit={refit!r} names a metric, but scoring is the "
                f"single metric {scorer.name!r}: use refit=True, or give "
                "several metrics as scoring={name: scoring, ...} and name "
                "the selection metric with refit."
            )
        return scorer, {}
    if isinstance(scoring, dict):
        items = list(scoring.items())
    else:
        items = [(name, name) for name in scoring]
        if not all(isinstance(name, str) for name, _ in items):
            raise ValueError(
                "scoring as a list or tuple must hold metric names (str); "
                f"got {scoring!r}. Use a dict {{name: DPScorer}} for "
                "custom scorers."
            )
        if len(set(scoring)) != len(scoring):
            raise ValueError(f"scoring has duplicate metric names: {scoring!r}.")
    if not items or not all(isinstance(name, str) for name, _ in items):
        raise ValueError(
            "scoring as a dict must map metric names (str) to scorers and be "
            f"non-empty; got {scoring!r}."
        )
    if refit is False or refit is True:
        raise ValueError(
            "For multi-metric scoring, the parameter refit must be set to a "
            f"scorer key, one of {sorted(dict(items))}, naming the metric the "
            f"private selection maximises; refit={refit!r} is refused: "
            "best_params_ is always selected and released, so the selection "
            "needs its metric. Pass refit='<name>' (best_estimator_ is then "
            "fitted on the public training set, at no extra cost)."
        )
    if not (isinstance(refit, str) and refit in dict(items)):
        raise ValueError(
            "For multi-metric scoring, the parameter refit must be set to a "
            f"scorer key: one of {sorted(dict(items))}, the metric the private "
            f"selection maximises. {refit!r} was passed."
        )
    scorers = {name: get_dp_scorer(spec, estimator) for name, spec in items}
    if method != "private-selection":
        raise ValueError(
            f"Several metrics are supported with method='private-selection' "
            f"only; method={method!r} rests on an assumption about one "
            "score (Assumption 1 or 2 of Kusner et al. 2015). Pass one "
            "metric as scoring."
        )
    main = scorers.pop(refit)
    return main, scorers


def search_scorers(search) -> tuple[DPScorer, dict[str, DPScorer]]:
    """:func:`scorers_by_name` of a search's ``scoring``, ``refit`` and mode."""
    method = getattr(search.method, "method", search.method)
    return scorers_by_name(search.scoring, search.refit, search.estimator, method)


def plan_for_metrics(plan, other_scorers: dict, budget_split, release_score):
    """The plan with the mode's ε share E = ε / (b + k(1 − b)) with k metrics
    (selection E·b, every score release E·(1 − b))."""
    if not other_scorers or not release_score:
        return plan
    plan = replace(plan, other_scorers=tuple(other_scorers.values()))
    k, b = 1 + len(other_scorers), budget_split
    share = plan.epsilon / (b + k * (1.0 - b))
    # Round down until the planned total does not exceed the budget.
    while (
        planned_cost(replace(plan, epsilon=share), b, release_score, k - 1)[0]
        > plan.epsilon
    ):
        share = math.nextafter(share, 0.0)
    try:  # each release's share against the mechanisms' floors, before data
        check_release_budgets(share, plan.delta, b, release_score, plan.mode.method)
    except ValueError as exc:
        raise ValueError(
            f"With {k} metrics each release gets a share of epsilon: {exc}"
        ) from None
    return replace(plan, epsilon=share)


def release_other_metrics(ctx, index: int, other_scorers: dict, snapshot=None) -> list:
    """Each other metric's score at the released candidate + Lap(Δ_k/ε_k),
    pure ε-DP each, on the pre-read fit (``snapshot``) or a training fit."""
    search, data, plan = ctx.search, ctx.data, ctx.plan
    if not other_scorers or not search.release_score:
        return []
    _, (eps_score, _) = split_budget(plan.epsilon, 0.0, search.budget_split, True)
    if snapshot is not None:
        fitted = pickle.loads(snapshot[0])
    else:
        fitted, _ = fit_on_training(ctx, index, error_score="raise")
    releases = []
    for name, scorer in other_scorers.items():
        if snapshot is None:  # a snapshot passed it before the read
            scorer.check_public_rows(
                fitted, data.X_train, data.y_train, random_state=plan.seed
            )
        value = score_private(fitted, data.records(scorer, search.estimator), scorer)
        release = release_best_score_selection(
            float(value),
            epsilon=eps_score,
            sensitivity=scorer.sensitivity_for(data.n_validation),
            bounds=scorer.bounds,
            rng=ctx.rng,
        )
        releases.append(
            replace(
                release,
                quantity=f"best_scores_[{name!r}]",
                mechanism=f"Laplace on the selected candidate's {name}",
            )
        )
    return releases


def best_scores(releases: list, refit: str, best_score: float, names) -> dict:
    """``best_scores_``: metric name → released score, from the releases only."""
    by_quantity = {r.quantity: float(r.value) for r in releases}
    return {refit: best_score} | {n: by_quantity[f"best_scores_[{n!r}]"] for n in names}


def run_with_other_metrics(run, ctx, other_scorers: dict):
    """The mode's releases, then the other metrics', with their public notes."""
    releases, index, extra = run(ctx)
    snapshot = extra.get(FITTED_KEY)
    releases = releases + release_other_metrics(ctx, index, other_scorers, snapshot)
    return with_public_notes(releases, ctx.plan.scorer, other_scorers), index, extra


def with_public_notes(releases: list, scorer: DPScorer, other_scorers: dict) -> list:
    """Each release with its score's ``public_note`` appended to its assumption."""
    by_quantity = {f"best_scores_[{k!r}]": s for k, s in other_scorers.items()}
    out = []
    for release in releases:
        note = getattr(by_quantity.get(release.quantity, scorer), "public_note", None)
        if note:
            release = replace(release, assumption=f"{release.assumption}; {note}")
        out.append(release)
    return out
