"""The (ε, δ) of one fit: planned from public settings, checked after the run."""

from __future__ import annotations

import math

from ..privacy._accounting import Release, split_budget
from ..privacy._validation import MIN_EPSILON, check_epsilon

# Modes whose every release is pure ε-DP (δ = 0); the others are charged all of δ.
PURE_EPSILON_MODES = {"private-selection", "lipschitz", "federated-ldp", "whole-data"}


def check_release_budgets(
    epsilon: float, delta: float, budget_split: float, release_score: bool, method: str
) -> None:
    """Every per-release (ε, δ) passes the mechanisms' floors, before data."""
    pure = method in PURE_EPSILON_MODES
    parts = split_budget(epsilon, 0.0 if pure else delta, budget_split, release_score)
    for quantity, part in zip(("best_params_", "best_score_"), parts):
        if part is None:
            continue
        eps_r, delta_r = part
        try:
            check_epsilon(eps_r, name=f"the epsilon of {quantity}")
        except ValueError as exc:
            raise ValueError(
                f"epsilon={epsilon!r} with budget_split={budget_split!r} "
                f"leaves {quantity} an epsilon of {eps_r!r}, below the "
                f"smallest per-release epsilon the mechanisms accept "
                f"({MIN_EPSILON:g}): such an epsilon vanishes in "
                "floating-point sums. Use a budget_split nearer 0.5 or a "
                "larger epsilon (or release_score=False to spend everything "
                "on best_params_)."
            ) from exc
        if method == "gp-ucb" and not delta_r > 0:
            raise ValueError(
                f"delta={delta!r} with budget_split={budget_split!r} "
                f"leaves {quantity} a delta of {delta_r!r}; method='gp-ucb' "
                "needs delta > 0 for each release (beta_t, c and q are "
                "logarithms of 1/delta). Use a budget_split nearer 0.5 or a "
                "larger delta."
            )


def planned_cost(
    plan, budget_split: float, release_score: bool, n_other_metrics: int = 0
) -> tuple[float, float]:
    """(ε, δ) of the whole fit, from public settings only (basic composition),
    split as the modes split it: equal to ``privacy_report_``'s bit for bit
    (the whole-data mode charges 0 instead when it reads no row: too few
    parts to tune and ``release_score=False``)."""
    delta = 0.0 if plan.mode.method in PURE_EPSILON_MODES else plan.delta
    parts = [
        p
        for p in split_budget(plan.epsilon, delta, budget_split, release_score)
        if p is not None
    ]
    if release_score:
        parts += [parts[-1]] * n_other_metrics  # one per other metric
    return math.fsum(e for e, _ in parts), math.fsum(d for _, d in parts)


def check_charge(releases: list[Release], charged: list) -> None:
    """Fail closed if the releases cost more than what was charged."""
    spent_eps = math.fsum(r.epsilon for r in releases)
    spent_delta = math.fsum(r.delta for r in releases)
    if not charged:
        raise RuntimeError(
            "internal error: releases were computed without reading the "
            "validation set; nothing is released."
        )
    eps, delta = charged[0]
    if spent_eps > eps * (1 + 1e-12) or spent_delta > delta * (1 + 1e-12):
        raise RuntimeError(
            "internal error: the releases cost more than the budget charged "
            "for this fit; nothing is released."
        )
