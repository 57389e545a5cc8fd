"""The whole-data mode's releases from the part-score matrix (k × candidates):
the anchored selection and the selected score's Laplace (proofs: :mod:`._fit`)."""

from __future__ import annotations

import math

import numpy as np

from ...privacy._accounting import Release
from .._releases import _score_release, release_best_params_selection

_REFERENCE = (
    "Nissim, Raskhodnikova & Smith, STOC 2007 (subsample and aggregate); "
    "McKenna & Sheldon, NeurIPS 2020 (permute-and-flip)"
)
_ASSUMPTION = "none (subsample-and-aggregate: one row moves one part)"


def _votes(scores: np.ndarray) -> np.ndarray:
    """v(λ): parts whose best candidate is λ, a tie of t sharing 1/t each (one
    part moves any v(λ) by at most 1)."""
    votes = np.zeros(scores.shape[1])
    for row in scores:
        best = np.flatnonzero(row == row.max())
        votes[best] += 1.0 / len(best)
    return votes


def anchor_margin(sensitivity: float, eps: float, n_others: int, beta: float) -> float:
    """τ = (2Δ/ε₁)·ln(L/β): the default anchor's public margin (utility units).

    Permute-and-flip outputs λ with probability ≤ exp(−ε₁(u* − u(λ))/(2Δ))
    (McKenna & Sheldon 2020, Algorithm 1); a λ with S(λ) ≤ S(d) has u* −
    u(λ) ≥ τ, so such a release has probability ≤ L·exp(−τε₁/(2Δ)) = β.
    """
    return 2.0 * sensitivity / eps * math.log(n_others / beta)


def _anchored(utilities, sensitivity, eps, default_row, mode, bound):
    """(utilities, sensitivity, margin, note): the others lowered by τ, Δ raised
    by two ulps of the public ``bound`` + τ for the subtraction's rounding."""
    n_others = len(utilities) - 1
    beta = mode.max_worse_probability
    if default_row is None or n_others < 1 or beta is None:
        return utilities, sensitivity, None, ""
    tau = anchor_margin(sensitivity, eps, n_others, beta)
    sensitivity = math.nextafter(sensitivity + 2.0 * math.ulp(bound + tau), math.inf)
    tau = anchor_margin(sensitivity, eps, n_others, beta)
    u = np.asarray(utilities, dtype=float) - tau
    u[default_row] = utilities[default_row]
    note = (
        f"; anchored at the estimator's own values: the {n_others} other "
        f"candidates' scores lowered by the public margin tau = "
        f"(2*sensitivity/epsilon)*ln({n_others}/{beta:g}) = {tau:.4g}, so "
        f"P[best_params_ scores no better than the defaults on the parts] "
        f"<= {beta:g} for every data set"
    )
    return u, sensitivity, tau, note


def _release_params(scores, mode, eps, k, scorer, rng, default_row=None):
    if mode.aggregation == "vote":
        # 1, plus the rounding of k float additions of shares 1/t ≤ 1 (each
        # sum ≤ k): at most k² 2⁻⁵³, taken as k² 2⁻⁵⁰.
        utilities, sensitivity = _votes(scores), 1.0 + k * k * 2.0**-50
        what = "the parts' votes (sensitivity 1)"
        bound = float(k)
    else:
        # scores.mean(axis=0) (the same sum, divided by k), without its wrapper
        utilities = np.add.reduce(scores, axis=0) / k
        sensitivity = scorer.sensitivity_for(k)
        what = f"the scores averaged over k={k} disjoint parts"
        bound = max(abs(b) for b in scorer.bounds)
    utilities, sensitivity, _, note = _anchored(
        utilities, sensitivity, eps, default_row, mode, bound
    )
    return release_best_params_selection(
        utilities,
        epsilon=eps,
        sensitivity=sensitivity,
        selection=mode.selection,
        rng=rng,
        mechanism=f"{mode.selection} over {what}{note}",
        assumption=_ASSUMPTION,
        reference=_REFERENCE,
    )


def release_default(index: int) -> Release:
    """``best_params_`` = the estimator's own values (row ``index``), public."""
    return Release(
        quantity="best_params_",
        value=int(index),
        mechanism=(
            "the estimator's own values, released without reading any row "
            "(max_selection_noise: too few parts to tell candidates apart)"
        ),
        epsilon=0.0,
        delta=0.0,
        sensitivity=0.0,
        noise_scale=0.0,
        guarantee="no privacy cost (public)",
        assumption="none",
        reference="public settings only",
    )


def _release_score(value, eps, k, scorer, rng, train_size=None) -> Release:
    size = ""
    if train_size is not None:
        size = f" (models fit on about {train_size} rows, a part's inner training "
        size += "rows, not on the n rows of a refit)"
    return _score_release(
        value,
        scorer.sensitivity_for(k),
        eps,
        scorer.bounds,
        rng,
        mechanism="Laplace on the selected candidate's score averaged over "
        f"k={k} parts{size}",
        assumption=_ASSUMPTION,
        reference=_REFERENCE + "; Dwork, McSherry, Nissim & Smith, TCC 2006",
    )


def releases_from_scores(
    scores, mode, scorer, *, eps_params, default_row, eps_score, rng, train_size=None
) -> list[Release]:
    """The releases from the part-score matrix (k × candidates); ``eps_params=None``:
    the defaults (the one scored column) at no cost; ``eps_score=None``: no score."""
    k = scores.shape[0]
    low, high = scorer.bounds
    scores = np.where(np.isfinite(scores), scores, low).clip(low, high)
    if eps_params is not None:
        releases = [
            _release_params(scores, mode, eps_params, k, scorer, rng, default_row)
        ]
        chosen = releases[0].value
    else:
        releases = [release_default(default_row)]
        chosen = 0
    if eps_score is not None:
        value = float(min(max(np.add.reduce(scores[:, chosen]) / k, low), high))
        releases.append(_release_score(value, eps_score, k, scorer, rng, train_size))
    return releases
