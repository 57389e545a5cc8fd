"""Mode ``"federated-ldp"``: multi-owner tuning with local DP per owner.

Spec: ``LDP_BO.md`` §2 ("one report per user per round") applied to
hyper-parameter search. The validation records belong to many owners
whose ids are public (``fit(..., val_groups=owner_ids)``). Round t of the
search:

1. the learner (:class:`~._ldp_bo.LDPBayesianOptimizer`, algorithm
   :data:`FEDERATED_ALGORITHM`) proposes a candidate from the reports so
   far (public);
2. the candidate is fitted on the public training set;
3. the next owner in a public random order — never one asked before —
   scores it on *her own* records with the search's per-record scorer
   (the mean of her records' values, each clipped into the scorer's
   bounds [a, b]; a failing record, or a failed fit, counts as a), and
   she reports it
   through :class:`~._ldp_client.LaplaceRandomizer` with scale (b − a)/ε.

Guarantee: ε-LDP per owner, user-level (all of an owner's records
together form the unit; any change to them moves her clipped score by at
most b − a). Each owner is asked at most once — ``n_iter`` larger than
the number of owners is refused, so nothing composes: every owner's
guarantee is ε. Owners never asked contribute nothing. Everything the
learner holds and the fit exposes (``cv_results_`` of the noisy reports,
``best_params_`` = the learner's posterior-mean incumbent, ``best_score_``
= its posterior mean there) is post-processing of the reports.
"""

from __future__ import annotations

import numpy as np

from ._accounting import Release
from ._compat import _safe_indexing
from ._context import SearchContext
from ._evaluation import fit_and_score_private
from ._ldp_bo import LDPBayesianOptimizer
from ._ldp_client import LaplaceRandomizer, LDPReport

__all__ = ["run_federated_ldp", "FEDERATED_ALGORITHM", "owner_order"]

FEDERATED_ALGORITHM = "gp-ucb"
"""Learner of the mode, chosen by measurement (``benchmarks/bench_ldp.py``,
``docs/local_dp.md``): with their theory widths the three LDP algorithms
explore uniformly (R_T/T ≈ 0.61 at T = 10⁴ for every ε in {0.5, 1, 2}),
plain GP-UCB on the reports reached 0.18 at ε = 1. Its choice of
candidates carries no regret guarantee; privacy does not depend on it
(post-processing of ε-LDP reports)."""

REFERENCE = (
    "Zhou & Tan, Local Differential Privacy for Bayesian Optimization, AAAI "
    "2021 (spec LDP_BO.md section 2): client-side Laplace randomiser"
)


def owner_order(groups, seed: int) -> tuple[np.ndarray, list[np.ndarray]]:
    """Owners in a public random order and the row indices of each.

    Depends on the public owner ids and the public seed only.
    """
    groups = np.asarray(groups)
    owners, inverse = np.unique(groups, return_inverse=True)
    perm = np.random.default_rng([int(seed), 11]).permutation(owners.size)
    rows = [np.flatnonzero(inverse == i) for i in perm]
    return owners[perm], rows


def check_groups(groups, n_validation: int, n_iter: int) -> None:
    """Refuse owner ids that do not fit the guarantee (before any data read)."""
    if groups is None:
        raise ValueError(
            "method='federated-ldp' needs the public owner id of every "
            "validation record: fit(X, y, X_val=..., y_val=..., val_groups=ids)."
        )
    arr = np.asarray(groups)
    if arr.ndim != 1 or arr.shape[0] != n_validation:
        raise ValueError(
            f"val_groups must be 1-D with one owner id per validation record "
            f"({n_validation}); got shape {arr.shape}."
        )
    n_owners = np.unique(arr).size
    if n_iter > n_owners:
        raise ValueError(
            f"n_iter={n_iter} exceeds the number of owners ({n_owners}): each "
            "owner may be asked once (epsilon-LDP per owner without "
            f"composition). Pass n_iter <= {n_owners}."
        )


def _owner_report(ctx, params, rows, randomizer) -> LDPReport:
    """The owner's side: score on her records, clip, randomise.

    The clipped score is a local of this frame only; what leaves is the
    report.
    """
    search, plan, data = ctx.search, ctx.plan, ctx.data
    X_own = _safe_indexing(data.X_val, rows)
    y_own = None if data.y_val is None else _safe_indexing(data.y_val, rows)
    # The owner's score: the mean of her records' clipped per-record values
    # (a failing record, or a failed fit, counts as the range's low end).
    score = fit_and_score_private(
        search.estimator,
        params,
        data.X_train,
        data.y_train,
        data.fit_params,
        X_own,
        y_own,
        plan.scorer,
    )
    return randomizer._privatize(score, ctx.rng)


def run_federated_ldp(ctx: SearchContext) -> tuple[list[Release], int, dict]:
    """One ε-LDP report per asked owner; learner on the reports only."""
    search, mode, plan, data = ctx.search, ctx.mode, ctx.plan, ctx.data
    T = int(search.n_iter)
    check_groups(data.groups, data.n_validation, T)
    low, high = plan.scorer.bounds
    randomizer = LaplaceRandomizer((low, high), plan.epsilon)
    owners, rows = owner_order(data.groups, plan.seed)
    opt = LDPBayesianOptimizer(
        plan.candidates,
        randomizer,
        T,
        algorithm=FEDERATED_ALGORITHM,
        kernel=mode.kernel,
        length_scale=mode.length_scale,
        random_state=plan.seed,
    )
    for t in range(T):
        j = opt.ask_index()
        params = plan.candidates.params[j]
        opt.tell(j, _owner_report(ctx, params, rows[t], randomizer))
        ctx.progress(f"owner {t + 1}/{T} reported")
    spec = randomizer.public_spec()
    release = Release(
        quantity="cv_results_",
        value=None,
        mechanism="Laplace (client-side, exact discrete on a 2^k grid)",
        epsilon=plan.epsilon,
        delta=0.0,
        sensitivity=high - low,
        noise_scale=spec.noise_scale,
        guarantee="pure epsilon-LDP per owner (user-level)",
        assumption=(
            "none; unit = one owner (all of her validation records); owner "
            "ids, hence each owner's number of records, are public; "
            f"{T} distinct owners asked once each (no "
            "composition: epsilon per owner); best_params_, best_score_ and "
            "cv_results_ are post-processing of the reports"
        ),
        reference=REFERENCE,
    )
    index = opt.recommend_index()
    mean, _ = opt.posterior()
    indices = [j for j, _ in opt.history_]
    cv_results = {
        "params": [dict(plan.candidates.params[j]) for j in indices],
        "candidate_index": np.asarray(indices, dtype=int),
        "owner": owners[:T].copy(),
        "noisy_test_score": np.asarray([v for _, v in opt.history_]),
    }
    extra = {"cv_results_": cv_results, "ldp_optimizer_": opt}
    if search.release_score:
        extra["best_score_"] = float(np.clip(mean[index], low, high))
    return [release], index, extra
