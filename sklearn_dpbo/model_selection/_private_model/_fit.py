"""Mode ``"private-model"``: tune a DP learner and release the tuned model itself.

Setup and parameters: :class:`~.._modes.PrivateModel`. A run fits the
learner at ε₀ on the training part and releases its validation score (the
scorer's clipped per-record mean) + exact Laplace of scale Δ/ε₀, Δ = (high −
low)/m: a replaced row is in one part only, so a run is ε₀-DP (parallel
composition). Strategies:

- ``"random-stopping"`` (Papernot & Steinke, ICLR 2022, Thm 2; Liu & Talwar,
  STOC 2019): K ~ D_{η,γ} (``_stopping.py``) and the K runs' candidates are
  drawn i.i.d. from the noise source (the theorem needs i.i.d. runs; a
  public order would tell the winner); the best noisy score's run is
  released, its model ``best_estimator_`` (no refit). ε₀ = ε/(2 + η) (ε
  when E[K] = 1: K = 1, pure ε-DP, no δ); the cap K_max adds δ = (1 +
  e^ε)·P[K > K_max] + the sampler's slack. K and the other runs are not
  released.
- ``"split"``: every candidate at ε/L on the training part, permute-and-flip
  (ε₁) and Laplace (ε − ε₁) on the validation part: a training row moves
  the L models (L·ε/L), a validation row selection and score; pure ε-DP.
- ``"default"``: the estimator's own parameters at ε (``"auto"`` with one
  candidate: that candidate); pure ε-DP.

Before any row is read: the pipeline's public steps (:mod:`._public_steps`),
every candidate's parameters, the containers' types and shapes, and the
pruning of candidates with the law of an earlier one (:func:`prune_candidates`).
Inside, each entry becomes a float64 on its own. A run that raises is not
caught (the fit is sealed); a ``SolverError`` is outside the guarantee,
stated in ``privacy_report_``.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import replace
from typing import Any

import numpy as np
from sklearn.base import clone

from ..._compat import _get_feature_names, _num_samples, _safe_split
from ...dp_learners._base import checked_rows
from ...privacy._accounting import PrivacyReport, Release
from ...privacy._mechanisms import permute_and_flip
from ...privacy._silence import quiet
from .._entries import (
    check_containers,
    check_label_classes,
    float_entries,
    read_labels,
)
from .._progress import ProgressPrinter
from .._releases import _grid_laplace
from .._whole_data import _fit as wd
from . import _stopping as st
from . import _zcdp as zc
from ._diffprivlib import (
    check_bounds_width,
    check_diffprivlib_learner,
    check_labels_dtype,
    fit_dp_learner,
    is_diffprivlib,
    learner_assumption,
    positive_labels,
)
from ._public_steps import fit_public_steps, split_pipeline, transform_rows
from ._rule import (  # noqa: F401  (re-exported: the rule's constants)
    DEFAULT_SUFFICES,
    TUNE_FROM,
    choose_strategy,
    default_suffices,
)

_PURE = "the learner's fit is epsilon-DP (its documented proof)"


# Before any row is read
def check_dp_learner(estimator: Any, names) -> None:
    """Refuse an estimator whose per-fit privacy cost cannot be read and trusted
    (accepted: :mod:`sklearn_dpbo.dp_learners` with ``noise_random_state=None``,
    diffprivlib's models as :func:`~._diffprivlib.check_diffprivlib_learner`)."""
    if is_diffprivlib(estimator):
        check_diffprivlib_learner(estimator, names)
        return
    if not (
        getattr(type(estimator), "_dp_learner", False)
        and type(estimator).__module__.startswith("sklearn_dpbo.dp_learners")
    ):
        raise TypeError(
            "method='private-model' releases the tuned model itself, so the "
            "estimator must be a differentially private learner whose per-fit "
            "cost the library can read and trust from its parameters; got "
            f"{type(estimator).__name__}. Use a learner of sklearn_dpbo."
            "dp_learners (e.g. DPLogisticRegression; public bounds), alone or "
            "as the last step of a Pipeline of public steps "
            "(Normalizer, FunctionTransformer, OneHotEncoder with every "
            "category given), or method='whole-data' to make only the "
            "hyper-parameters private for any estimator."
        )
    if estimator.get_params().get("noise_random_state") is not None:
        raise ValueError(
            "the learner's noise_random_state must be None in "
            "method='private-model': the search draws the learner's noise from "
            "its own source (set noise_random_state on the search, for tests)."
        )
    searched = {"epsilon", "delta", "noise_random_state", "classes"} & set(names)
    searched = sorted(searched)
    if searched:
        raise ValueError(
            f"method='private-model' does not search {searched}: it sets the "
            "learner's epsilon (and delta) itself (from the search's epsilon and the "
            "strategy), draws the learner's noise from its own source "
            "(noise_random_state on the search, for tests only), and classes "
            "are the public label set; do not search it."
        )


def check_candidate_params(estimator: Any, candidates, n_features: int) -> None:
    """Every candidate's (and the estimator's) parameters checked before any row is
    read or budget charged (``bounds`` against the public d); then the warning."""
    diffprivlib = is_diffprivlib(estimator)
    for params in [{}, *candidates]:
        est = clone(estimator).set_params(**clone(params, safe=False))
        where = f"candidate {params!r}" if params else "the estimator"
        try:
            est._validate_params()  # scikit-learn >= 1.6: every estimator's
            if not diffprivlib:
                est._check_privacy_params()
        except (ValueError, TypeError) as exc:
            raise type(exc)(
                f"method='private-model': {where} is not a valid "
                f"{type(estimator).__name__} (checked before any row is read "
                f"and before any budget is spent): {exc}"
            ) from None
        if not diffprivlib:
            check_label_classes(est, where)
        try:
            if hasattr(est, "_ball"):
                est._ball(n_features)
            elif diffprivlib:
                check_bounds_width(est, n_features)
        except (ValueError, TypeError) as exc:
            raise type(exc)(
                f"method='private-model': {exc} (checked before any row is read "
                "and before any budget is spent)"
            ) from None
    if hasattr(estimator, "_ball") and (message := estimator._no_bounds_message()):
        warnings.warn(message, UserWarning, stacklevel=4)


def split_rows(n: int, fraction: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(training rows, validation rows): m = ⌈fraction·n⌉ in [1, n − 1] rows of a
    public permutation of range(n) are validation rows."""
    m = min(n - 1, max(1, math.ceil(float(fraction) * n)))
    perm = np.random.default_rng([int(seed), 0x504D]).permutation(n)
    return np.sort(perm[m:]), np.sort(perm[:m])


def prune_candidates(learner, candidates, n_fit: int, eps_fit: float) -> list[dict]:
    """The first candidate of each group with equal public
    ``_distribution_key(n_fit, eps_fit)``, the same law of the fitted model
    (objective perturbation's plateau in C); no key: no pruning."""
    key_of = getattr(type(learner), "_distribution_key", None)
    if key_of is None:
        return list(candidates)
    seen, kept = set(), []
    for params in candidates:
        est = clone(learner).set_params(**clone(params, safe=False))
        key = est._distribution_key(int(n_fit), float(eps_fit))
        if key not in seen:
            seen.add(key)
            kept.append(params)
    return kept


def _prune_for(strategy, learner, candidates, n_fit, epsilon, eta):
    """(kept, per-fit ε): pruned at the ε each kept candidate is fitted at; for
    the split, the smallest L whose pruning at ε/L keeps at most L."""
    if strategy == "random-stopping":
        eps0 = epsilon / st.cost_factor(eta)
        return prune_candidates(learner, candidates, n_fit, eps0), eps0
    if strategy != "split":
        return list(candidates), epsilon
    for size in range(1, len(candidates) + 1):  # kept(ε/L) shrinks as L grows
        kept = prune_candidates(learner, candidates, n_fit, epsilon / size)
        if len(kept) <= size:
            return kept, epsilon / size
    raise AssertionError("size = L always stops")  # pragma: no cover


# One run (fit at ε_fit on the training part, clean validation score)
def _candidate(learner, params: dict, privacy: dict):
    """``clone(learner).set_params(**params, **privacy)``; a learner of this
    package is built at once from the search's own copy ``learner``."""
    params = clone(params, safe=False)
    if is_diffprivlib(learner):
        return clone(learner).set_params(**params, **privacy)
    est = type(learner)(**{**learner.get_params(deep=False), **params, **privacy})
    if hasattr(learner, "_metadata_request"):  # as clone copies it
        est._metadata_request = clone(learner._metadata_request)
    return est


def _fit_and_score(learner, params, eps_fit, X_tr, y_tr, X_va, y_va, scorer, rng):
    """(model, clean validation score in [low, high]); ``eps_fit`` the learner's ε,
    or its privacy parameters (a dict: ``_zcdp``)."""
    low, high = scorer.bounds
    privacy = eps_fit if isinstance(eps_fit, dict) else {"epsilon": eps_fit}
    est = fit_dp_learner(_candidate(learner, params, privacy), X_tr, y_tr, rng)
    if X_va is None:
        return est, low
    with checked_rows(X_va):  # float64 rows of the fitted width (float_entries)
        values = scorer.record_values(est, X_va, y_va, private=False)
    value = float(np.mean(values)) if len(values) else low
    return est, float(min(max(value, low), high) if math.isfinite(value) else low)


def _run(ctx, params, eps_fit):
    return _fit_and_score(ctx.learner, params, eps_fit, *ctx.parts, ctx.scorer, ctx.rng)


def _noisy(value, eps, m, scorer, rng):
    return _grid_laplace(value, scorer.sensitivity_for(m), eps, scorer.bounds, rng)


class PrivateModelReport(PrivacyReport):
    """:class:`PrivacyReport` whose ``to_dp_event`` is the mode's own event.

    Random stopping: ``RepeatAndSelectDpEvent(RandomizedResponseDpEvent(
    2/(1 + e^ε₀), 2), mean=E[K], shape=η)`` (randomized response with ratio
    e^ε₀ dominates every ε₀-DP run; ``ZCDpEvent(ρ₀)`` for a zCDP learner);
    the cap's δ is not in the event (add it). K = 1: the run's event.
    """

    def __init__(self, releases, method, *, stopping=None, **kwargs):
        super().__init__(releases, method, **kwargs)
        self.stopping = dict(stopping) if stopping else None

    def to_dp_event(self):
        if self.stopping is None:
            return super().to_dp_event()
        from dp_accounting import dp_event

        if "rho_run" in self.stopping:  # a zCDP learner's run
            run = dp_event.ZCDpEvent(self.stopping["rho_run"])
        else:
            eps0 = self.stopping["epsilon_run"]
            odds = math.exp(-eps0)  # 2/(1 + e^ε₀), no overflow
            run = dp_event.RandomizedResponseDpEvent(2.0 * odds / (1.0 + odds), 2)
        if self.stopping["gamma"] >= 1:  # K = 1: the run itself
            return run
        return dp_event.RepeatAndSelectDpEvent(
            run, self.stopping["mean_runs"], self.stopping["shape"]
        )

    def to_dict(self) -> dict:
        out = super().to_dict()
        out["random_stopping"] = self.stopping
        return out


# Strategies: each returns (release, candidate index, model, noisy score)
def _random_stopping(ctx, cfg):
    eta, gamma, cap, eps0 = cfg["eta"], cfg["gamma"], cfg["cap"], cfg["eps0"]
    fit, eps_s = cfg.get("fit", eps0), cfg.get("eps_score", eps0)  # zCDP: _zcdp
    k = st.sample_runs(eta, gamma, cap, ctx.rng)  # private: never released
    best = None
    for _ in range(k):
        # i.i.d. from the private source (a public order would tell the winner)
        c = int(ctx.rng.randrange(len(cfg["candidates"])))
        model, value = _run(ctx, cfg["candidates"][c], fit)
        noisy = _noisy(value, eps_s, ctx.m, ctx.scorer, ctx.rng)
        if best is None or noisy[0] > best[2][0]:
            best = (c, model, noisy)
    c, model, (score, sens, scale) = best
    release = Release(
        quantity="best_params_",
        value=(c, model, score),
        mechanism=(
            f"random stopping: best noisy score of K runs, K ~ {cfg['name']} "
            f"(eta={eta:g}, E[K]={cfg['mean']:.4g}) capped at K_max={cap}; "
            f"a run: {cfg.get('run', f'the learner at epsilon0={eps0:.4g}')} on "
            f"the training part + Laplace on its validation score at epsilon="
            f"{eps_s:.4g}. Releases "
            "best_params_, best_estimator_ (the run's model) and best_score_"
        ),
        epsilon=cfg["epsilon"],
        delta=cfg["delta"],
        sensitivity=sens,
        noise_scale=scale,
        guarantee=cfg.get("guarantee")
        or (
            f"(epsilon, delta)-DP: {st.cost_factor(eta):g}*epsilon0 pure before "
            f"the cap, delta = (1 + e^eps) P[K > K_max] + sampler slack"
        ),
        assumption=cfg.get("assumption", _PURE.replace("epsilon", "epsilon0")),
        reference="Papernot & Steinke, ICLR 2022 (arXiv 2110.03620), Theorem 2; "
        "Liu & Talwar, STOC 2019",
    )
    return release, c, model, score


def _split(ctx, cfg):
    cands, eps, eps_fit = cfg["candidates"], cfg["epsilon"], cfg["eps_fit"]
    eps_sel = eps * cfg["budget_split"] if cfg["release_score"] else eps
    models, values = zip(*[_run(ctx, params, eps_fit) for params in cands])
    sens = ctx.scorer.sensitivity_for(ctx.m)
    c = int(permute_and_flip(np.asarray(values), eps_sel, sens, ctx.rng))
    score, scale = None, 2.0 * sens / eps_sel
    if cfg["release_score"]:
        score = _noisy(values[c], eps - eps_sel, ctx.m, ctx.scorer, ctx.rng)[0]
    release = Release(
        quantity="best_params_",
        value=(c, models[c], score),
        mechanism=(
            f"naive split: {len(cands)} models at epsilon={eps_fit:.4g} each on "
            f"the training part; permute-and-flip over their validation scores "
            f"(epsilon={eps_sel:.4g}) and Laplace on the selected score "
            "(the rest); parallel composition over the two parts"
        ),
        epsilon=eps,
        delta=0.0,
        sensitivity=sens,
        noise_scale=scale,
        guarantee="pure epsilon-DP",
        assumption=_PURE,
        reference="McKenna & Sheldon, NeurIPS 2020 (permute-and-flip)",
    )
    return release, c, models[c], score


def _default(ctx, cfg):
    eps = cfg["epsilon"]
    texts = {"fit": eps, "eps_score": eps, "guarantee": "pure epsilon-DP"}
    texts.update(cfg.get("zcdp", {"assumption": _PURE}))  # zCDP: _zcdp.py
    model, value = _run(ctx, cfg["candidates"][0], texts["fit"])
    fitted = cfg.get("fitted", "the estimator's own parameters")
    score, where = None, " on every row"
    if ctx.parts[2] is not None:
        score = _noisy(value, texts["eps_score"], ctx.m, ctx.scorer, ctx.rng)[0]
        where = " on the training part, its score + Laplace at epsilon"
    release = Release(
        quantity="best_params_",
        value=(0, model, score),
        mechanism=f"no tuning: {fitted}, fitted at epsilon" + where,
        epsilon=eps,
        delta=cfg["delta"],
        sensitivity=0.0 if score is None else ctx.scorer.sensitivity_for(ctx.m),
        noise_scale=0.0,
        guarantee=texts["guarantee"],
        assumption=texts["assumption"],
        reference="parallel composition",
    )
    return release, 0, model, score


_STRATEGIES = {
    "random-stopping": _random_stopping,
    "split": _split,
    "default": _default,
}


# The fit path
def resolve_distribution(mode, n_candidates: int, epsilon: float, delta: float):
    """(name, η) of the law of K: ``mode.distribution``, or for ``"auto"`` the
    logarithmic law when a cap fits ``delta`` at E[K] = ``mean_runs`` (the
    candidates before pruning: an upper bound), else the negative binomial."""
    name = mode.distribution
    if name != "auto":
        return name, st.DISTRIBUTIONS[name]
    if delta > 0 and not isinstance(mode.max_runs, bool):  # else: the planner's error
        try:
            _capped_runs(mode, 0.0, n_candidates, epsilon, delta)
        except ValueError:
            return "negative-binomial", st.DISTRIBUTIONS["negative-binomial"]
    return "logarithmic", 0.0


def _capped_runs(mode, eta: float, n_candidates: int, epsilon: float, delta: float):
    """(γ, K_max, added δ) at E[K] = ``mean_runs``; ValueError if no cap fits δ."""
    mean = n_candidates if mode.mean_runs == "auto" else float(mode.mean_runs)
    gamma = st.gamma_for_mean(eta, max(1.0, float(mean)))
    if isinstance(mode.max_runs, bool):
        raise ValueError("method__max_runs must be an int or 'auto', not a bool.")
    if gamma >= 1:  # K = 1: no cap, no delta
        return gamma, 1, 0.0
    if mode.max_runs == "auto":
        if delta <= 0:
            raise ValueError(
                "method='private-model' with random stopping caps the number "
                "of runs, which costs a delta > 0: pass delta > 0 (e.g. 1e-6) "
                "or strategy='split' for pure epsilon-DP."
            )
        cap = st.cap_for_delta(eta, gamma, epsilon, delta)
    else:
        cap = int(mode.max_runs)
    added = st.added_delta(cap, eta, gamma, epsilon)
    if added > delta:
        raise ValueError(
            f"max_runs={cap} adds delta={added:.3g} (P[K > K_max] for this "
            f"distribution), more than delta={delta:g}: raise max_runs, "
            "lower mean_runs or pass a larger delta."
        )
    return gamma, cap, added


def _plan_strategy(search, plan, learner, n, m, candidates, n_features=None) -> dict:
    """Everything public about the run: strategy, ε₀, γ, K_max, δ."""
    mode = plan.mode
    if zc.is_zcdp(learner):  # Gaussian noise: random stopping in Renyi DP

        def law(delta):  # the law of K, its cap and E[K] at that delta
            name, eta = resolve_distribution(mode, len(candidates), plan.epsilon, delta)
            gamma, cap, added = _capped_runs(
                mode, eta, len(candidates), plan.epsilon, delta
            )
            return name, eta, gamma, cap, added, st.mean_of(eta, gamma)

        cfg = {"epsilon": plan.epsilon, "release_score": release_score(search)}
        cfg["budget_split"] = search.budget_split
        return zc.plan(learner, mode, candidates, plan.epsilon, plan.delta, law, cfg)
    law, eta = resolve_distribution(mode, len(candidates), plan.epsilon, plan.delta)
    strategy, n_fit = mode.strategy, n - m
    if strategy == "auto":
        strategy = choose_strategy(m, len(candidates), plan.epsilon, eta)
        if len(candidates) == 1:  # the user's one candidate, at ε
            strategy = "kept"
        elif default_suffices(learner, n, plan.epsilon, n_features):
            strategy = "default"
    kept, eps_fit = _prune_for(strategy, learner, candidates, n_fit, plan.epsilon, eta)
    if mode.strategy == "auto" and len(kept) < len(candidates):
        again = choose_strategy(m, len(kept), plan.epsilon, eta)
        n_default = n_fit if release_score(search) else n
        if again == "default" and len(kept) == 1:
            # one law at the tuning ε: fit it at ε if it is one law there too
            one = prune_candidates(learner, candidates, n_default, plan.epsilon)
            strategy = "kept" if len(one) == 1 else "default"
        elif again != strategy:  # fewer candidates changed the rule: once more
            strategy = again
            kept, eps_fit = _prune_for(
                strategy, learner, candidates, n_fit, plan.epsilon, eta
            )
    cfg = {
        "strategy": strategy,
        "epsilon": plan.epsilon,
        "eps_fit": eps_fit,
        "delta": 0.0,
        "candidates": kept,
        "budget_split": search.budget_split,
        "release_score": release_score(search),
    }
    if strategy == "kept":
        cfg["strategy"] = "default"
        cfg["fitted"] = (
            "the first candidate (every candidate has its law at epsilon)"
            if len(candidates) > 1
            else "the one candidate"
        )
    elif strategy == "default":
        names = sorted({k for p in kept for k in p})
        cfg["candidates"] = [wd.default_params(learner, names)]
    if strategy != "random-stopping":
        return cfg
    gamma, cap, delta = _capped_runs(mode, eta, len(kept), plan.epsilon, plan.delta)
    if gamma >= 1:  # K = 1: one run, pure epsilon-DP
        eps_fit = plan.epsilon
        cfg["guarantee"] = "pure epsilon-DP: K = 1, one run at epsilon"
    cfg.update(
        name=law,
        eta=eta,
        gamma=gamma,
        mean=st.mean_of(eta, gamma),
        cap=cap,
        delta=delta,
        added=delta,
        eps0=eps_fit,  # ε/(2 + η), as pruned (_prune_for); ε if K = 1
    )
    return cfg


def release_score(search) -> bool:
    """``release_score``, with ``"auto"`` False in this mode (random stopping's
    noisy score is paid for by its selection and released unless False)."""
    value = search.release_score
    return False if isinstance(value, str) else bool(value)


def fit_private_model(search, plan, X, y, fit_params, other_scorers, extra):
    """``DPBayesSearchCV.fit`` in the private-model mode (``extra``: X_val, y_val,
    groups, val_groups, all None); returns the search."""
    if any(v is not None for v in extra) or search.cv is not None:
        raise ValueError(
            "method='private-model' treats every row of X, y as private and "
            "makes its own public split: pass fit(X, y) only (no X_val, y_val, "
            "groups, val_groups; cv=None)."
        )
    if other_scorers or fit_params:
        raise ValueError(
            "method='private-model' takes one scorer and no fit parameters."
        )
    wd.refuse_target_clip(plan.scorer, "private-model")
    searched = wd.candidate_list(search, plan)
    steps, learner, prefix = split_pipeline(
        search.estimator, {k for p in searched for k in p}
    )
    candidates = [{k[len(prefix) :]: v for k, v in p.items()} for p in searched]
    check_dp_learner(learner, {k for p in candidates for k in p})
    check_containers(X, y)
    n = _num_samples(X)
    if y is None or _num_samples(y) != n or n < 2:
        raise ValueError("method='private-model' needs y and at least 2 rows of X, y.")
    check_labels_dtype(learner, y)
    mode = plan.mode
    train, val = split_rows(n, mode.validation_fraction, plan.seed)
    n_features = int(X.shape[1])  # a checked 2-D container: its public shape
    if steps:  # fitted on a public dummy row: the learner's width is public
        steps, _, n_features = fit_public_steps(steps, X)
    check_candidate_params(learner, candidates, n_features)
    pipe = clone(search.estimator) if prefix else None  # before the charge
    try:  # public: the container's column names, read before the charge
        names = _get_feature_names(X)
    except TypeError:  # mixed name types: scikit-learn keeps none either
        names = None
    classes = None if is_diffprivlib(learner) else learner.get_params().get("classes")
    cfg = _plan_strategy(search, plan, learner, n, len(val), candidates, n_features)
    if cfg["strategy"] == "default" and not cfg["release_score"]:
        train, val = np.arange(n), None  # every row trains the one model
    cost = (cfg["epsilon"], cfg["delta"])
    if search.accountant is not None:
        search.accountant.check(*cost)
    progress = ProgressPrinter(search.verbose, cost, "the rows of X, y")
    progress.plan(
        f"private-model: strategy={cfg['strategy']!r}, {len(candidates)} "
        f"candidates, {n} rows; budget epsilon={cost[0]:g}, delta={cost[1]:.3g}"
    )

    def run(ctx):
        Xp, yp = ctx.data
        with quiet():
            # every entry read on its own: no batch dtype decides a record
            if steps:  # one row at a time: row i's output is row i's alone
                Xp = transform_rows(steps, Xp, n_features)
            Xp, yp = float_entries(Xp), read_labels(yp, classes)
            yp = positive_labels(learner, yp)  # diffprivlib's: 1 or 0, per label
            X_tr, y_tr = _safe_split(learner, Xp, yp, train)
            X_va, y_va = None, None
            if val is not None:
                X_va, y_va = _safe_split(learner, Xp, yp, val, train)
            del Xp, yp
            ctx.learner, ctx.scorer = clone(learner), plan.scorer  # _candidate
            ctx.m = 0 if val is None else len(val)
            ctx.parts = (X_tr, y_tr, X_va, y_va)
            release, *rest = _STRATEGIES[cfg["strategy"]](ctx, cfg)
            return [release], rest

    [release], (c, model, score) = wd.run_charged(
        search, "private-model", cost, progress, (X, y), run
    )
    if names is not None and not steps and not is_diffprivlib(model):
        model.feature_names_in_ = names  # as fit(X) on the DataFrame sets it
    if prefix:  # the released model is the pipeline, its steps public
        pipe.steps = [*steps, (pipe.steps[-1][0], model)]
        model = pipe
    _ingest(search, plan, cfg, release, c, model, score, learner, prefix)
    progress.done()
    return search


def _ingest(search, plan, cfg, release, c, model, score, learner, prefix) -> None:
    cands = [{prefix + k: v for k, v in p.items()} for p in cfg["candidates"]]
    assumption = learner_assumption(learner, release.assumption)
    public = replace(release, value=None, assumption=assumption)
    stopping = None
    if cfg["strategy"] == "random-stopping":
        stopping = {
            "epsilon_run": cfg["eps0"],
            "mean_runs": cfg["mean"],
            "shape": cfg["eta"],
            "gamma": cfg["gamma"],
            "max_runs": cfg["cap"],
            "added_delta": cfg["added"],
        }
        if "rho_run" in cfg:  # a zCDP learner: its runs are rho-zCDP
            stopping["rho_run"] = cfg["rho_run"]
    search.strategy_ = cfg["strategy"]
    search.candidate_params_ = [dict(p) for p in cands]
    search.best_index_ = int(c)
    search.best_params_ = dict(cands[c])
    search.best_estimator_ = model
    if score is not None and (
        cfg["release_score"] or isinstance(search.release_score, str)
    ):
        search.best_score_ = float(score)
    search.scorer_ = plan.scorer
    search.multimetric_ = False
    search.privacy_report_ = PrivateModelReport(
        [public],
        "private-model",
        stopping=stopping,
        neighbouring=wd.WHOLE_DATA_RELATION,
    )
    vars(search)["cv_results_"] = wd.param_table(cands)
