"""Public noise scales of a planned fit (settings, candidates, n, m only),
and the warning when they are useless."""

from __future__ import annotations

import warnings

from ..privacy._accounting import split_budget
from ..privacy._validation import UselessReleaseWarning
from ._budget import PURE_EPSILON_MODES
from ._gp_ucb import score_noise_scale
from ._lipschitz import check_assumption_2, path_sensitivity
from ._releases import gp_ucb_params_sensitivity


def public_noise_scales(search, plan, n_train: int, n_validation: int) -> dict:
    """Noise scale of each planned release, in score units (public).

    ``"gp-ucb"``: 2Δ_μ·scale/ε₁ and b·scale. Other modes: 2Δ/ε₁ and Δ/ε₂
    with Δ = (high − low)/m (lower bounds), ``"lipschitz"``'s score Δ_L/ε₂.
    """
    low, high = plan.scorer.bounds
    width = float(high) - float(low)
    delta = 0.0 if plan.mode.method in PURE_EPSILON_MODES else plan.delta
    params, score = split_budget(
        plan.epsilon, delta, search.budget_split, search.release_score
    )
    noise = {}
    if plan.mode.method == "gp-ucb":
        n, T = len(plan.candidates), int(search.n_iter)
        sens = gp_ucb_params_sensitivity(T, n, params[1], plan.mode.dataset_kernel)
        noise["best_params_"] = 2.0 * sens * plan.scale / params[0]
        if score is not None:
            noise["best_score_"] = score_noise_scale(search, plan, *score) * plan.scale
        return noise
    smallest = width / max(int(n_validation), 1)
    noise["best_params_"] = 2.0 * smallest / params[0]
    if score is None:
        return noise
    if plan.mode.method == "lipschitz":
        setup = check_assumption_2(search.estimator, plan.candidates, plan.scorer)
        _, _, sens, _ = path_sensitivity(setup, plan.candidates, n_train, n_validation)
        noise["best_score_"] = sens / score[0]
    else:
        noise["best_score_"] = smallest / score[0]
    return noise


USELESS_FRACTION = 0.1  # of the width of the score range


def warn_useless_releases(search, plan, n_train: int, n_validation: int) -> None:
    """:class:`UselessReleaseWarning` for each noise scale above
    :data:`USELESS_FRACTION` of its score range's width."""
    low, high = plan.scorer.bounds
    width = float(high) - float(low)
    m = int(n_validation)
    more_data = (
        f"The validation set has m={m} rows: the noise shrinks as "
        "1/(m * epsilon), so use a larger validation set or a larger "
        "epsilon (or release_score=False to spend the whole budget on "
        "best_params_)."
    )
    other_method = (
        "method='private-selection' (the default) calibrates its noise to the "
        "scorer's sensitivity, (high - low)/m for a mean of m per-record "
        "values: use it unless you need Kusner et al.'s "
        f"{plan.mode.method!r} mode."
    )
    noise = public_noise_scales(search, plan, n_train, n_validation)
    scales = {quantity: (scale, width) for quantity, scale in noise.items()}
    if plan.other_scorers and search.release_score:
        _, (eps_score, _) = split_budget(plan.epsilon, 0.0, search.budget_split, True)
        for scorer in plan.other_scorers:
            lo, hi = scorer.bounds
            scales[f"the score {scorer.name!r}"] = (
                scorer.sensitivity_for(max(m, 1)) / eps_score,
                float(hi) - float(lo),
            )
    for quantity, (scale, range_width) in scales.items():
        kusner = plan.mode.method == "gp-ucb" or (
            plan.mode.method == "lipschitz" and quantity == "best_score_"
        )
        better = other_method if kusner else more_data
        if scale > USELESS_FRACTION * range_width:
            what = "exceeds" if scale > range_width else "is more than 10% of"
            warnings.warn(
                f"method={plan.mode.method!r}: the noise scale of {quantity} "
                f"({scale:.3g} in score units) {what} the width of the "
                f"scorer's range ({range_width:g}), so this release carries "
                f"little information. {better}",
                UselessReleaseWarning,
                stacklevel=3,
            )
