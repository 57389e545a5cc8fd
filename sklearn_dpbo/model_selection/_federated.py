"""Mode ``"federated-ldp"``: multi-owner tuning with local DP per owner.

Spec ``LDP_BO.md`` §2. Round t: the learner
(:class:`~sklearn_dpbo.ldp.LDPBayesianOptimizer`) proposes a candidate from
the reports so far; it is fitted on the public training set; the next owner
in a public random order scores it on *her own* records (mean of values
clipped into [a, b]; a failure counts as a) and reports it through
:class:`~sklearn_dpbo.ldp.LaplaceRandomizer` with scale (b − a)/ε.

Guarantee: ε-LDP per owner, user-level (her records together move her
clipped score by at most b − a). Each owner is asked at most once per fit
(``n_iter`` above the number of owners is refused); across fits
(:class:`OwnersAsked`) asking her again is refused unless the
``accountant`` recorded every earlier ask. Everything the fit exposes is
post-processing of the reports.
"""

from __future__ import annotations

import numpy as np

from ..bo._gp import as_sklearn_kernel
from ..ldp._client import LaplaceRandomizer, LDPReport
from ..ldp._optimizer import LDPBayesianOptimizer
from ..privacy._accounting import Release
from ._context import SearchContext
from ._cv_results import TIME_COLUMNS
from ._evaluation import fit_and_score_private

FEDERATED_ALGORITHM = "gp-ucb"  # the learner (post-processing: any is private)

REFERENCE = (
    "Zhou & Tan, Local Differential Privacy for Bayesian Optimization, AAAI "
    "2021 (spec LDP_BO.md section 2): client-side Laplace randomiser"
)


def owner_order(groups, seed: int) -> tuple[np.ndarray, list[np.ndarray]]:
    """Owners in a public random order (ids and seed only) and their rows."""
    groups = np.asarray(groups)
    owners, inverse = np.unique(groups, return_inverse=True)
    perm = np.random.default_rng([int(seed), 11]).permutation(owners.size)
    rows = [np.flatnonzero(inverse == i) for i in perm]
    return owners[perm], rows


def check_groups(groups, n_validation: int, n_iter: int) -> None:
    """Refuse owner ids that do not fit the guarantee (before any data read)."""
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


def _owner_key(owner):
    """A dictionary key for an owner id (NaN ids are one owner, as np.unique)."""
    if isinstance(owner, float) and owner != owner:
        return ("nan",)
    return owner


class OwnersAsked:
    """The owners an estimator has asked, by (public) id, with who recorded
    each ask; kept across fits and pickling, not copied by ``clone``."""

    ATTRIBUTE = "_federated_owners_asked"

    def __init__(self):
        self._asks: dict = {}  # owner key -> [accountant or None, ...]

    @classmethod
    def of(cls, search) -> OwnersAsked:
        """The search's record, created on first use."""
        record = getattr(search, cls.ATTRIBUTE, None)
        if record is None:
            record = cls()
            setattr(search, cls.ATTRIBUTE, record)
        return record

    def check(self, owners, accountant, epsilon: float) -> int:
        """Refuse asking an owner again unless ``accountant`` recorded her
        asks; return how many of ``owners`` were asked before."""
        again = [o for o in owners if _owner_key(o) in self._asks]
        unrecorded = [
            o
            for o in again
            if accountant is None
            or any(a is not accountant for a in self._asks[_owner_key(o)])
        ]
        if unrecorded:
            shown = ", ".join(repr(o) for o in unrecorded[:5])
            more = f" and {len(unrecorded) - 5} more" if len(unrecorded) > 5 else ""
            raise ValueError(
                f"{len(unrecorded)} of the {len(owners)} owners this fit would "
                f"ask ({shown}{more}) were already asked by an earlier fit of "
                "this estimator, and no accountant passed to this fit recorded "
                "those asks: her guarantee would become the sum of the fits' "
                f"epsilons ({epsilon:g} more). Nothing was asked or spent. Pass "
                "as accountant= the BudgetAccountant that recorded every earlier "
                "fit that asked them; or use val_groups without them; or, as an "
                "explicit choice, a new estimator (clone(search)), which asks "
                f"them again at epsilon={epsilon:g} each, unrecorded."
            )
        return len(again)

    def record(self, owners, accountant) -> None:
        """Mark ``owners`` asked (before the first one is), with the recorder."""
        for o in owners:
            self._asks.setdefault(_owner_key(o), []).append(accountant)


def _owner_report(ctx, params, rows, randomizer) -> LDPReport:
    """The owner's side: score on her records, clip, randomise."""
    scorer = ctx.plan.scorer
    own = ctx.data.records(scorer, ctx.search.estimator).take(rows)
    score = fit_and_score_private(*ctx.fit_args(params), own, scorer)
    return randomizer._privatize(score, ctx.rng)


def run_federated_ldp(ctx: SearchContext) -> tuple[list[Release], int, dict]:
    """One ε-LDP report per asked owner; learner on the reports only."""
    search, mode, plan, data = ctx.search, ctx.mode, ctx.plan, ctx.data
    T = int(search.n_iter)
    check_groups(data.groups, data.n_validation, T)
    low, high = plan.scorer.bounds
    randomizer = LaplaceRandomizer((low, high), plan.epsilon)
    owners, rows = owner_order(data.groups, plan.seed)
    asked = owners[:T].tolist()  # public: ids, public seed, n_iter
    memory = OwnersAsked.of(search)
    n_again = memory.check(asked, search.accountant, plan.epsilon)
    opt = LDPBayesianOptimizer(
        plan.candidates,
        randomizer,
        T,
        algorithm=FEDERATED_ALGORITHM,
        kernel=as_sklearn_kernel(*mode._gp_kernel()),
        random_state=plan.seed,
    )
    ctx.progress(f"asking {T} of {len(owners)} owners, one report each")
    memory.record(asked, search.accountant)
    for t in range(T):
        j = opt.ask_index()
        params = plan.candidates.params[j]
        opt.tell(j, _owner_report(ctx, params, rows[t], randomizer))
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
            f"{T} distinct owners asked once each in this fit (no "
            "composition within it: epsilon per owner); "
            + (
                f"{n_again} of them asked by earlier fits of this estimator, all "
                "recorded by this fit's accountant: each of those has lost the sum "
                "of the epsilons of the fits that asked her (basic composition), "
                "bounded by the accountant's total spent; "
                if n_again
                else "none of them asked by an earlier fit of this estimator; "
            )
            + "best_params_, best_score_ and "
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
    # NaN: no time measured after a private read leaves fit.
    cv_results.update({name: np.full(T, np.nan) for name in TIME_COLUMNS})
    extra = {"cv_results_": cv_results, "ldp_optimizer_": opt}
    if search.release_score:
        extra["best_score_"] = float(np.clip(mean[index], low, high))
    return [release], index, extra
