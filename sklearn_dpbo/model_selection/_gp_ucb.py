"""Mode ``"gp-ucb"``: Algorithms 1 and 2 of Kusner et al. (ICML 2015).

GP-UCB on the validation scores (the evaluated sequence is private), then
the releases of ``_releases.py``, under Assumption 1, every constant
computed before the first evaluation. GP-UCB runs with
β_t = 2 log(|Λ| t² π² / δ), not Algorithm 1's 3δ: the score release needs
the confidence bounds on V and V′ at once, with the c and q events.
Algorithm 2 rests on de Freitas et al.'s regret bound, proven for their
optimiser, not GP-UCB; the report says so.
"""

from __future__ import annotations

import numpy as np
from joblib import delayed, effective_n_jobs

from ..bo._acquisition import gp_ucb_beta
from ..bo._bo import bayesian_optimisation
from ..bo._gp import greedy_information_gain
from ..privacy._accounting import Release, split_budget
from ..privacy._scorers import ROW_INDEPENDENCE
from ..privacy._silence import quiet
from ._context import SearchContext
from ._evaluation import fit_and_score_private, public_preflight, score_private
from ._releases import (
    gp_ucb_params_sensitivity,
    gp_ucb_score_scale,
    noise_free_score_scale,
    release_best_params_gp,
    release_best_score_gp,
    release_best_score_noise_free,
)


def _assumption(mode, offset: float, scale: float) -> str:
    kernel, length_scale = mode._gp_kernel()
    return (
        "Assumption 1 of Kusner et al. (2015): the validation-score functions "
        "of all validation sets are jointly GP(0, k1 x k2) with dataset "
        f"correlation k1={mode.dataset_kernel}, k2={kernel}(length_scale="
        f"{length_scale}) on the encoded candidate space, observation "
        f"noise variance {mode.noise} in GP units (score - {offset:g})/"
        f"{scale:g}; the guarantee holds with probability >= 1 - delta; and "
        + ROW_INDEPENDENCE
        + " (for the first, public candidate only: later ones are private)"
    )


def score_noise_scale(search, plan, eps_s: float, delta_s: float) -> float:
    """Laplace scale b of the score release, GP units (public)."""
    mode, candidates = plan.mode, plan.candidates
    n, T = len(candidates), int(search.n_iter)
    if mode.noise > 0:
        kernel, length_scale = mode._gp_kernel()
        gamma = greedy_information_gain(
            candidates.X,
            T,
            kernel=kernel,
            length_scale=length_scale,
            noise=mode.noise,
        )
        return gp_ucb_score_scale(
            eps_s, T, n, delta_s, mode.dataset_kernel, mode.noise, gamma
        )
    return noise_free_score_scale(
        eps_s,
        *mode.noise_free_constants,
        T,
        candidates.X.shape[1],
        n,
        delta_s,
        mode.dataset_kernel,
        mode.noise_free_bound,
    )


def run_gp_ucb(ctx: SearchContext) -> tuple[list[Release], int, dict]:
    """Run Algorithm 1 (or 2) and return its releases and the released index."""
    search, mode, plan, data = ctx.search, ctx.mode, ctx.plan, ctx.data
    candidates = plan.candidates
    n, T = len(candidates), int(search.n_iter)
    offset, scale = plan.offset, plan.scale
    (eps_p, delta_p), score_budget = split_budget(
        plan.epsilon, plan.delta, search.budget_split, search.release_score
    )
    # β_t uses the δ of the score release (Theorem 3 needs it).
    delta_bo = score_budget[1] if score_budget else delta_p

    sens_mu = gp_ucb_params_sensitivity(T, n, delta_p, mode.dataset_kernel)
    score_b = score_noise_scale(search, plan, *score_budget) if score_budget else None
    assumption = _assumption(mode, offset, scale)

    # The first candidate is public (the tie-break decides): fitted and
    # checked with the usual error_score semantics before the read.
    first = int(np.argmin(plan.tie_break))
    prefitted = {first: public_preflight(ctx, first)}
    ctx.progress(f"Bayesian optimisation: {T} steps on the validation set")

    sent = []  # the validation records, read once at the first evaluation

    def evaluate(indices):
        # Later candidates are private: fit_and_score_private.
        if not sent:
            records = data.records(plan.scorer, search.estimator)
            if effective_n_jobs(search.n_jobs) != 1:  # ctx.parallel sends them
                with quiet():  # a record that cannot travel to a worker fails alone
                    records = records.picklable()
            sent.append(records)
        records = sent[0]
        jobs = []
        for j in indices:
            est = prefitted.pop(j, None)
            if est is not None:
                jobs.append(delayed(score_private)(est, records, plan.scorer))
            else:
                args = (*ctx.fit_args(candidates.params[j]), records, plan.scorer)
                jobs.append(delayed(fit_and_score_private)(*args))
        return [(s - offset) / scale for s in ctx.parallel(jobs)]

    # Algorithm 1, lines 2-8.
    kernel, length_scale = mode._gp_kernel()
    trace = bayesian_optimisation(
        evaluate,
        candidates.X,
        n_iter=T,
        beta=lambda t: gp_ucb_beta(t, n, delta_bo),
        tie_break=plan.tie_break,
        kernel=kernel,
        length_scale=length_scale,
        noise=mode.noise,
        batch_size=1 if mode.batch_size is None else mode.batch_size,
    )
    # Line 12.
    releases = [
        release_best_params_gp(
            trace.gp.mean,
            epsilon=eps_p,
            delta=delta_p,
            sensitivity=sens_mu,
            score_scale=scale,
            assumption=assumption,
            rng=ctx.rng,
        )
    ]
    if score_budget is not None:
        if mode.noise > 0:  # lines 13-15
            release, observed = release_best_score_gp, float(trace.scores.max())
            note = (
                "; sequential GP-UCB with beta_t = 2 log(|Lambda| t^2 pi^2 / delta) "
                "(Srinivas et al. 2010 at delta/6 on each of V and V'; Algorithm "
                "1's 3 delta would not cover both)"
            )
        else:  # Algorithm 2: f_V(λ_T) ("icml") or max_{2<=t<=T} f_V(λ_t)
            icml = mode.noise_free_bound == "icml"
            tail = trace.scores[-1:] if icml else trace.scores[min(1, T - 1) :]
            release, observed = release_best_score_noise_free, float(tail.max())
            note = (
                "; the de Freitas et al. (2012) regret bound with "
                f"A, tau = {mode.noise_free_constants} "
                f"({mode.noise_free_bound} variant) holds on each of V "
                "and V' with probability >= 1 - delta/4 for the search run "
                "here, which is GP-UCB: de Freitas et al. prove their "
                "bound for their own optimiser (UCB with shrinking search "
                "regions), so this is an assumption, not a theorem"
            )
        eps_s, delta_s = score_budget
        releases.append(
            release(
                observed,
                epsilon=eps_s,
                delta=delta_s,
                noise_scale=score_b,
                score_offset=offset,
                score_scale=scale,
                bounds=plan.scorer.bounds,
                assumption=assumption + note,
                rng=ctx.rng,
            )
        )
    return releases, int(releases[0].value), {}
