"""Mode ``"lipschitz"``: Algorithm 3 of Kusner et al. (2015), no GP assumption.

Assumption 2 (paper Section 5): the model is

    w_λ = argmin_w (λ/2)‖w‖² + (1/n) Σ ℓ(w, x_i, y_i)            (eq. 10)

with ℓ convex and 1-Lipschitz in w, and the validation score is
f_V(w) = −(1/m) Σ g(w, x̄_i, ȳ_i) with g L-Lipschitz in w and 0 ≤ g ≤ g*.
Then, for BO with *any* acquisition function, f̃_L = max_t f_V(w_λt) +
Lap(Δ_L/ε) is pure ε-DP (Theorem 7, Corollary 4; Δ_L and the
conservative deviations from the paper: ``_releases.py``).
:func:`check_assumption_2` checks the conditions before any data is read.
The required ``Normalizer`` puts every row the model sees, training *and
validation*, in the unit ball (R = 1), a fixed public map: a validation row
is rescaled, never inspected. The estimator's parameter maps to λ of
eq. (10) as follows (checked numerically in ``test_lipschitz.py``):

- ``LogisticRegression``/``LinearSVC`` minimise ½‖w‖² + C Σ ℓ_i; dividing
  by C·n gives eq. (10) with **λ = 1/(C·n)**.
- ``SGDClassifier`` minimises (1/n) Σ ℓ_i + α·½‖w‖² (its ``R(w)`` is
  ½‖w‖² for ``penalty="l2"``), i.e. eq. (10) with **λ = α** (not the
  spec's 2α). SGD only approximates the minimiser (docs/central_dp.md).

``best_params_`` is released by ``selection`` over the validation scores
of the *whole* public path (sensitivity g*/m, no assumption); Algorithm 3's
BO then runs on those scores without fitting anything.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

import numpy as np
from sklearn.linear_model import LogisticRegression, SGDClassifier
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import Normalizer
from sklearn.svm import LinearSVC

from ..bo._acquisition import ucb_beta
from ..bo._bo import bayesian_optimisation
from ..privacy._accounting import Release, split_budget
from ..privacy._builtin_scores import _SIMPLE
from ..privacy._scorers import ROW_INDEPENDENCE
from ._context import SearchContext
from ._evaluation import score_public_candidates
from ._releases import (
    lipschitz_path_term,
    lipschitz_score_sensitivity,
    lipschitz_validation_term,
    release_best_params_selection,
    release_best_score_lipschitz,
)

BO_DELTA = 0.1  # δ of UCB's β_t: a tuning constant (any acquisition is fine)
FEATURE_NORM_BOUND = 1.0  # R, guaranteed by the required Normalizer step

_MODELS = {
    LogisticRegression: ("C", "logistic loss log(1 + exp(-y w.x))"),
    LinearSVC: ("C", "hinge loss max(0, 1 - y w.x)"),
    SGDClassifier: ("alpha", None),  # loss given by the estimator
}


@dataclass(frozen=True)
class LipschitzSetup:
    """Public facts of Assumption 2 for one estimator and scorer."""

    parameter: str  # full name in search_spaces, e.g. "logisticregression__C"
    model: str  # class name of the final estimator
    kind: str  # "C" (λ = 1/(C n)) or "alpha" (λ = α)
    training_loss: str
    lipschitz: float  # L of the validation loss in w, for ‖x‖ ≤ R = 1
    g_star: float  # bound of the per-record validation loss
    loss_at_zero: Optional[float]  # g(0, ·) of every record, None if not one

    @property
    def mapping(self) -> str:
        return "lambda = 1/(C * n_train)" if self.kind == "C" else "lambda = alpha"


# Per-record value of the built-in margin scores at w = 0 (margin 0), any record.
_VALUE_AT_ZERO = {"neg_sigmoid_loss": -0.5, "neg_ramp_loss": -1.0}


def _loss_at_zero(scorer) -> Optional[float]:
    """g(0, ·) = high − clip(value at margin 0): one constant for the built-in
    margin scores, ``None`` (not known to be one) for any other scorer."""
    name = scorer.name
    builtin = name in _VALUE_AT_ZERO and (
        scorer.record_score is _SIMPLE[name][0]
        and scorer.response_method == "decision_function"
        and scorer.greater_is_better
    )
    if not builtin:
        return None
    low, high = scorer.bounds
    return float(high - min(max(_VALUE_AT_ZERO[name], low), high))


def _refuse(condition: str, fix: str) -> None:
    raise ValueError(
        f"method='lipschitz' needs Assumption 2 of Kusner et al. (2015); "
        f"violated: {condition}. {fix}"
    )


def _check_model(model) -> str:
    """Check the final estimator's objective is eq. (10); return its loss."""
    params = model.get_params(deep=False)
    name = type(model).__name__
    if params.get("fit_intercept", False):
        _refuse(
            f"{name} has fit_intercept=True (the intercept is unregularised, "
            "so eq. (10) is not strongly convex in it)",
            "Set fit_intercept=False; to model an offset append a constant "
            "column before the Normalizer.",
        )
    if params.get("class_weight") is not None:
        _refuse(
            f"{name} has class_weight set (a weighted loss is not eq. (10))",
            "Use class_weight=None.",
        )
    if isinstance(model, LogisticRegression):
        penalty = params.get("penalty", "l2")
        l1_ratio = params.get("l1_ratio")
        l2 = penalty == "l2" or (
            penalty == "deprecated" and (l1_ratio is None or l1_ratio == 0)
        )
        if not l2 or not math.isfinite(float(params["C"])):
            _refuse(
                f"LogisticRegression has a penalty other than L2 (penalty="
                f"{penalty!r}, l1_ratio={l1_ratio!r})",
                "Use the L2 penalty (l1_ratio=0, the default).",
            )
        return _MODELS[LogisticRegression][1]
    if isinstance(model, LinearSVC):
        if params["loss"] != "hinge":
            _refuse(
                f"LinearSVC has loss={params['loss']!r} (the squared hinge is "
                "not Lipschitz)",
                "Use LinearSVC(loss='hinge', fit_intercept=False).",
            )
        if params["penalty"] != "l2" or params.get("multi_class", "ovr") != "ovr":
            _refuse(
                "LinearSVC is not the L2-penalised one-vs-rest hinge SVM",
                "Use penalty='l2' and multi_class='ovr'.",
            )
        return _MODELS[LinearSVC][1]
    loss = params["loss"]
    if loss not in ("log_loss", "hinge"):
        _refuse(
            f"SGDClassifier has loss={loss!r}, which is not one of the convex "
            "1-Lipschitz losses supported ('log_loss', 'hinge')",
            "Use loss='log_loss' or loss='hinge'.",
        )
    if params["penalty"] != "l2":
        _refuse(
            f"SGDClassifier has penalty={params['penalty']!r}",
            "Use penalty='l2'.",
        )
    if params.get("early_stopping", False):
        _refuse(
            "SGDClassifier has early_stopping=True (it stops on a held-out "
            "part of the training set, away from the minimiser of eq. (10))",
            "Use early_stopping=False.",
        )
    return _MODELS[LogisticRegression if loss == "log_loss" else LinearSVC][1]


def check_assumption_2(estimator, candidates, scorer) -> LipschitzSetup:
    """Check Assumption 2 without data; a ``ValueError`` names what is violated."""
    if scorer.lipschitz is None:
        _refuse(
            f"the validation score {scorer.name!r} is not declared Lipschitz in "
            "the model weights (0-1 accuracy is not Lipschitz at all)",
            "Use scoring='neg_sigmoid_loss' (L = R/4, g* = 1) or "
            "scoring='neg_ramp_loss' (L = R, g* = 1), or a DPScorer with a "
            "declared lipschitz constant.",
        )
    if not isinstance(estimator, Pipeline) or len(estimator.steps) < 2:
        _refuse(
            "features in the unit ball cannot be guaranteed for a bare "
            f"{type(estimator).__name__} (validation rows cannot be inspected)",
            "Use a Pipeline whose last two steps are Normalizer() and the model, "
            "e.g. make_pipeline(StandardScaler(), Normalizer(), "
            "LogisticRegression(fit_intercept=False)).",
        )
    final_name, model = estimator.steps[-1]
    _, before = estimator.steps[-2]
    if not (type(before) is Normalizer and before.get_params()["norm"] in ("l2", "l1")):
        _refuse(
            "features in the unit ball: the step right before the model is not "
            "Normalizer(norm='l2') (or norm='l1')",
            "Put Normalizer() immediately before the model: it maps every "
            "training and validation row into the unit ball.",
        )
    if type(model) not in _MODELS:
        _refuse(
            f"the model {type(model).__name__} is not an L2-regularised linear "
            "model with a convex 1-Lipschitz loss whose objective is eq. (10)",
            "Supported: LogisticRegression, LinearSVC(loss='hinge'), "
            "SGDClassifier(loss='log_loss' or 'hinge').",
        )
    training_loss = _check_model(model)
    kind = _MODELS[type(model)][0]
    parameter = f"{final_name}__{kind}"
    dims = candidates.spaces_dims
    names = [d.name for space in dims for d in space]
    if len(dims) != 1 or names != [parameter]:
        _refuse(
            f"search_spaces must search only the regularisation parameter "
            f"{parameter!r} (got {names})",
            f"Pass search_spaces={{{parameter!r}: (low, high, 'log-uniform')}} "
            "(or a list of values).",
        )
    values = np.asarray([p[parameter] for p in candidates.params], dtype=float)
    if not np.all(np.isfinite(values) & (values > 0)):
        _refuse(
            f"every value of {parameter!r} must be finite and > 0",
            "Give a positive range, e.g. (1e-2, 1e2, 'log-uniform').",
        )
    low, high = scorer.bounds
    return LipschitzSetup(
        parameter=parameter,
        model=type(model).__name__,
        kind=kind,
        training_loss=training_loss,
        lipschitz=float(scorer.lipschitz) * FEATURE_NORM_BOUND,
        g_star=float(high - low),
        loss_at_zero=_loss_at_zero(scorer),
    )


def regularisation_to_lambda(kind: str, values, n_train: int) -> np.ndarray:
    """λ of eq. (10): 1/(C·n) for ``kind="C"``, α for ``kind="alpha"``."""
    values = np.asarray(values, dtype=float)
    return 1.0 / (values * float(n_train)) if kind == "C" else values.copy()


def path_sensitivity(setup: LipschitzSetup, candidates, n_train: int, m: int):
    """(λmin, λmax, Δ_L, capped) of the public regularisation path."""
    values = [p[setup.parameter] for p in candidates.params]
    lam = regularisation_to_lambda(setup.kind, values, n_train)
    lam_min, lam_max = float(lam.min()), float(lam.max())
    sens, capped = lipschitz_score_sensitivity(
        m, setup.lipschitz, setup.g_star, lam_min, lam_max, setup.loss_at_zero
    )
    return lam_min, lam_max, sens, capped


def _check_training(data) -> int:
    """Checks on the public training set and fit parameters; returns n."""
    if data.fit_params:
        _refuse(
            "fit parameters were passed (e.g. sample_weight changes eq. (10))",
            "Call fit without fit parameters.",
        )
    if data.y_train is None or np.unique(np.asarray(data.y_train)).size != 2:
        _refuse(
            "the training labels are not binary (Assumption 2 is stated for a "
            "single weight vector w)",
            "Use a binary task.",
        )
    return int(np.asarray(data.y_train).shape[0])


def _assumption(setup: LipschitzSetup, lam_min, lam_max, capped: bool) -> str:
    text = (
        f"Assumption 2 of Kusner et al. (2015): {setup.model} minimises eq. (10) "
        f"with {setup.mapping} and the {setup.training_loss} (convex, "
        "1-Lipschitz in w for ||x|| <= 1), fit_intercept=False, every row in the "
        "unit ball (Normalizer before the model, on training and validation rows "
        f"alike), validation loss with L={setup.lipschitz:g}, g*={setup.g_star:g}, "
        f"lambda_min={lam_min:.6g}, lambda_max={lam_max:.6g}"
    )
    if capped:
        return (
            "none: the sensitivity is capped at g* (the width of the score range), "
            "smaller here than the bound that rests on " + text
        )
    return text + "; and " + ROW_INDEPENDENCE


def run_lipschitz(ctx: SearchContext) -> tuple[list[Release], int, dict]:
    """Algorithm 3 for ``best_score_``, private selection over the path for λ̃."""
    search, mode, plan, data = ctx.search, ctx.mode, ctx.plan, ctx.data
    candidates, scorer = plan.candidates, plan.scorer
    setup = check_assumption_2(search.estimator, candidates, scorer)
    n_train = _check_training(data)
    m = data.n_validation

    # Public constants, before the validation set is touched.
    lam_min, lam_max, score_sens, capped = path_sensitivity(
        setup, candidates, n_train, m
    )
    (eps_p, _), score_budget = split_budget(
        plan.epsilon, 0.0, search.budget_split, search.release_score
    )
    constants = {
        "parameter": setup.parameter,
        "mapping": setup.mapping,
        "n_train": n_train,
        "lambda_min": lam_min,
        "lambda_max": lam_max,
        "lipschitz": setup.lipschitz,
        "g_star": setup.g_star,
        "loss_at_zero": setup.loss_at_zero,
        "feature_norm_bound": FEATURE_NORM_BOUND,
        "path_term": lipschitz_path_term(setup.lipschitz, lam_min, lam_max),
        "validation_term": lipschitz_validation_term(
            m, setup.lipschitz, setup.g_star, lam_min, setup.loss_at_zero
        ),
        "score_sensitivity": score_sens,
        "score_sensitivity_capped": capped,
        "acquisition": mode.acquisition,
    }

    ctx.progress(f"scoring the whole path of {len(candidates)} candidates")
    if score_budget is not None:  # announced before the read
        ctx.progress(
            f"then Bayesian optimisation: {int(search.n_iter)} steps on the "
            "path's validation scores"
        )
    kept, scores, _ = score_public_candidates(ctx, np.arange(len(candidates)))
    # A failed (public) fit gets the range's low end.
    path = np.full(len(candidates), scorer.bounds[0], dtype=float)
    path[kept] = scores

    releases = [
        release_best_params_selection(
            path,
            epsilon=eps_p,
            sensitivity=scorer.sensitivity_for(m),
            selection=mode.selection,
            rng=ctx.rng,
            mechanism=f"{mode.selection} over the validation scores of the whole "
            "public regularisation path",
            assumption=ROW_INDEPENDENCE
            + " (every score is a mean of per-record losses in [0, g*])",
        )
    ]
    if score_budget is not None:
        kernel, length_scale = mode._gp_kernel()
        # Algorithm 3, line 1: BO for T steps on the (looked-up) scores.
        trace = bayesian_optimisation(
            lambda idx: [(path[j] - plan.offset) / plan.scale for j in idx],
            candidates.X,
            n_iter=int(search.n_iter),
            beta=lambda t: ucb_beta(t, len(candidates), BO_DELTA),
            tie_break=plan.tie_break,
            kernel=kernel,
            length_scale=length_scale,
            noise=mode.noise if mode.noise > 0 else 1e-6,
            acquisition=mode.acquisition,
        )
        f_bo = float(path[trace.indices].max())  # line 2
        releases.append(
            release_best_score_lipschitz(  # lines 3-5
                f_bo,
                epsilon=score_budget[0],
                sensitivity=score_sens,
                bounds=scorer.bounds,
                assumption=_assumption(setup, lam_min, lam_max, capped),
                rng=ctx.rng,
            )
        )
    return releases, int(releases[0].value), {"lipschitz_constants_": constants}
