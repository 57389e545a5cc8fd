"""Mode objects: what ``DPBayesSearchCV(method=...)`` accepts.

Each search mode carries its own parameters, as a scikit-learn kernel
carries its hyper-parameters in ``GaussianProcessRegressor(kernel=...)``; a
string is the shorthand for the mode's defaults (``"gp-ucb"`` is
``DPGPUCB()``). Mode objects are public parameter holders (``get_params``,
``set_params``, ``clone``, ``_parameter_constraints`` validated in ``fit``
with nested names such as ``method__noise``); the search never modifies
them. The parameters several modes share are documented once, in
``_PARAM_DOCS``.
"""

from __future__ import annotations

import numbers

from sklearn.base import BaseEstimator, clone
from sklearn.gaussian_process.kernels import Kernel

from .._compat import (
    CachedParamNamesMixin,
    Interval,
    StrOptions,
    validate_parameter_constraints,
)
from ..bo._gp import internal_kernel

# A scikit-learn kernel (RBF or Matern(nu=2.5), see bo._gp.internal_kernel).
_KERNEL = [None, Kernel]
# The kernel of every mode's GP when ``kernel=None``.
DEFAULT_KERNEL = ("matern52", 0.2)
_NOISE = [Interval(numbers.Real, 0, None, closed="left")]
_BATCH_SIZE = [None, Interval(numbers.Integral, 1, None, closed="left")]
_SELECTION = [StrOptions({"permute-and-flip", "exponential"})]

# Parameters that must be ints, where a bool would pass the Interval check.
_INT_PARAMS = ("batch_size", "shortlist_size", "n_parts", "min_part_size")

# A line ``{{name}}`` in a mode's docstring is replaced by _PARAM_DOCS[name].
_PARAM_DOCS = {
    "kernel": """\
kernel : scikit-learn kernel or None, default=None
    Kernel of the mode's GP on the unit-cube encoding of the candidates:
    ``Matern(nu=2.5, length_scale=ℓ)`` or ``RBF(length_scale=ℓ)`` (``from
    sklearn.gaussian_process.kernels import Matern, RBF``), with one
    length-scale ℓ > 0. Its hyper-parameters are fixed and public, never
    fitted (``length_scale_bounds`` is ignored). ``None`` is
    ``Matern(nu=2.5, length_scale=0.2)``.""",
    "noise": """\
noise : float, default=0.01
    Observation-noise variance σ² of the mode's GP, in GP units; fixed and
    public, never fitted to the scores.""",
    "selection": """\
selection : {"permute-and-flip", "exponential"}, default="permute-and-flip"
    Selection mechanism of ``best_params_`` (McKenna & Sheldon 2020;
    McSherry & Talwar 2007).""",
}


def _shared_docs(cls):
    """Fill the ``{{name}}`` lines of ``cls.__doc__`` from ``_PARAM_DOCS``."""
    out = []
    for line in cls.__doc__.splitlines():
        key = line.strip()
        if key.startswith("{{") and key.endswith("}}"):
            indent = line[: len(line) - len(line.lstrip())]
            out += [indent + text for text in _PARAM_DOCS[key[2:-2]].splitlines()]
        else:
            out.append(line)
    cls.__doc__ = "\n".join(out)
    return cls


class SearchMode(CachedParamNamesMixin, BaseEstimator):
    """Base class of the mode objects (a public parameter holder).

    Subclasses set ``method``, the string shorthand, and list their
    parameters in ``_parameter_constraints``.
    """

    method: str = ""
    _parameter_constraints: dict = {}

    def __eq__(self, other) -> bool:
        """Same class and same parameters (as scikit-learn's kernels)."""
        if type(self) is not type(other):
            return NotImplemented
        mine, theirs = self.get_params(deep=False), other.get_params(deep=False)
        return all(_same(mine[k], theirs[k]) for k in mine)

    __hash__ = None  # mutable through set_params, as a kernel

    def _validate_in(self, owner: str, prefix: str = "method__") -> None:
        """Validate the parameters, naming them ``<prefix><name>`` for ``owner``
        (and refuse a bool where an int is expected)."""
        params = self.get_params(deep=False)
        validate_parameter_constraints(
            {prefix + k: v for k, v in self._parameter_constraints.items()},
            {prefix + k: v for k, v in params.items()},
            caller_name=owner,
        )
        for name in _INT_PARAMS:
            value = params.get(name)
            if isinstance(value, bool):
                raise ValueError(
                    f"{prefix}{name} must be a positive int, not a bool; got "
                    f"{name}={value!r}. Pass e.g. "
                    f"{type(self).__name__}({name}=3)."
                )
        if "kernel" in params:
            self._gp_kernel(owner=owner, prefix=prefix)

    def _gp_kernel(
        self, *, owner: str = "DPBayesSearchCV", prefix="method__"
    ) -> tuple[str, float]:
        """(internal kernel name, length-scale) of the mode's GP for
        ``bo._gp.kernel_matrix``: ``("matern52", 0.2)`` by default."""
        if self.kernel is None:
            return DEFAULT_KERNEL
        return internal_kernel(self.kernel, prefix + "kernel", owner)


def _same(a, b) -> bool:
    """Parameter equality that does not fail on arrays or splitters."""
    if a is b:
        return True
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return False


@_shared_docs
class PrivateSelection(SearchMode):
    """``method="private-selection"``: public shortlist, private selection.

    Bayesian optimisation (GP-UCB) runs on *public* signal only,
    ``public_cv``-fold cross-validation inside the training set, and keeps
    a shortlist of the ``shortlist_size`` best candidates. Each is fitted
    on the training set and scored once on the validation set;
    ``best_params_`` is selected by ``selection`` with the scorer's
    sensitivity (1/m for accuracy), ``best_score_`` is that candidate's
    validation score plus Laplace(Δ/ε₂). Pure ε-DP, no modelling
    assumption (McKenna & Sheldon 2020 for permute-and-flip; McSherry &
    Talwar 2007 for the exponential mechanism).

    Parameters
    ----------
    shortlist : {"bo", "random", "grid"}, default="bo"
        How the public shortlist is built: ``"bo"`` by the public
        Bayesian optimisation, ``"random"`` a public random sample
        (private random search), ``"grid"`` the whole candidate set
        (private grid search).
    shortlist_size : int, default=3
        Candidates scored on the validation set (``"bo"`` and
        ``"random"``): larger shortlists contain better candidates but cost
        more selection noise.
    public_cv : "auto", int or splitter, default="auto"
        Cross-validation inside the training set that scores candidates
        publicly (``shortlist="bo"``). ``"auto"``: 2 folds when the
        training set has at least 20,000 rows, else 3 (see
        ``public_budget``).
    {{selection}}
    racing : float or None, default=0.5
        Racing of the public folds (``shortlist="bo"``): a new candidate is
        scored on public fold 0 first, and on the other folds only if it
        can still make the shortlist: its fold-0 score is at least the
        ``shortlist_size``-th best fold-0 score of the candidates scored on
        every fold (none failed), minus ``racing`` × (high − low) / √(2 n₀)
        (the largest standard deviation of the difference of two fold-0
        scores on n₀ rows); any passes while fewer than ``shortlist_size``
        such candidates exist, none whose fold 0 failed. Only candidates
        scored on every fold are shortlisted.
        ``None`` scores every candidate on every fold.
    batch_size : int or None, default=None
        Public fold evaluations in flight at once in the asynchronous public
        search (GP-BUCB: a new candidate is proposed as soon as a result is
        taken into account, given the pending ones). Results are taken in
        submission order, so the evaluations and the releases depend on
        ``batch_size`` and never on timing. ``None`` is
        max(4, 2 × the number of joblib workers): the same for ``n_jobs``
        of 1 and 2, larger with more workers so that none waits.
    {{kernel}}
        Here: the public GP of the shortlist's Bayesian optimisation.
    {{noise}}
        0 is run as 1e-6 for numerical stability.
    public_budget : "auto", float or None, default="auto"
        A cap on the public signal's cost (``shortlist="bo"``): the public
        fold fits use at most ``public_budget`` × ``n_iter`` × (training
        rows) rows, about ``public_budget`` full fits per candidate. Every
        candidate is scored on public fold 0; then the other folds go to the
        best by fold-0 score (within the ``racing`` margin, if set), as many
        as the remaining rows pay for, and the shortlist is taken from them.
        If they pay for no more than ``shortlist_size`` candidates, fold 0
        alone decides (a single public hold-out). Deterministic given
        ``batch_size``. ``None``: no cap, the ``racing`` rule alone.
        ``"auto"`` (with ``public_cv="auto"``) decides from the number of
        training rows only: from 20,000 rows, 2 public folds and 0.75 (fold
        1 for the best half of the candidates); below, 3 folds and ``None``.
        With an explicit ``public_cv``, ``"auto"`` is ``None``.
    """

    method = "private-selection"
    _parameter_constraints: dict = {
        "shortlist": [StrOptions({"bo", "random", "grid"})],
        "shortlist_size": [Interval(numbers.Integral, 1, None, closed="left")],
        "public_cv": [
            StrOptions({"auto"}),
            Interval(numbers.Integral, 2, None, closed="left"),
            "cv_object",
        ],
        "selection": _SELECTION,
        "racing": [None, Interval(numbers.Real, 0, None, closed="left")],
        "public_budget": [
            None,
            StrOptions({"auto"}),
            Interval(numbers.Real, 0, None, closed="neither"),
        ],
        "batch_size": _BATCH_SIZE,
        "kernel": _KERNEL,
        "noise": _NOISE,
    }

    def __init__(
        self,
        shortlist="bo",
        shortlist_size=3,
        public_cv="auto",
        selection="permute-and-flip",
        racing=0.5,
        batch_size=None,
        kernel=None,
        noise=0.01,
        public_budget="auto",
    ):
        self.shortlist = shortlist
        self.shortlist_size = shortlist_size
        self.public_cv = public_cv
        self.selection = selection
        self.racing = racing
        self.public_budget = public_budget
        self.batch_size = batch_size
        self.kernel = kernel
        self.noise = noise


@_shared_docs
class DPGPUCB(SearchMode):
    """``method="gp-ucb"``: Kusner et al. (ICML 2015), Algorithms 1 and 2.

    GP-UCB on the validation scores; ``best_params_`` by the exponential
    mechanism on the posterior mean μ_T with Δ_μ = 2√β_{T+1} + c (Algorithm
    1, line 12), ``best_score_`` = max observed + Laplace(b) (lines 13–15).
    (ε, δ)-DP *under the paper's Assumption 1* (the score functions of all
    validation sets are jointly a GP with dataset correlation
    ``dataset_kernel``). With ``noise=0`` and ``noise_free_constants=(A,
    tau)`` the score is released by Algorithm 2. At total ε = 1 its
    selection is barely better than uniform (docs/central_dp.md).

    Parameters
    ----------
    {{kernel}}
        Here: k2 of Assumption 1.
    {{noise}}
        0 selects Algorithm 2 (needs ``noise_free_constants`` to release
        the score).
    dataset_kernel : float in (0, 1], default=0.95
        k1 of Assumption 1, the correlation of the score functions of
        neighbouring validation sets; the paper measured 0.95 (Section 5).
    score_offset, score_scale : float, default=None
        GP units z = (score − offset)/scale. ``None`` derives them from the
        scorer's declared range (midpoint and a quarter of the width: 0.5
        and 0.25 for accuracy), never from data. The sensitivities are
        fixed in GP units, so a scale below that default (it would multiply
        the privacy loss) and an offset that maps the scorer's range
        outside [−2, 2] are refused.
    noise_free_constants : (A, tau) or None, default=None
        de Freitas et al. (2012) constants for Algorithm 2 (``noise=0``).
    noise_free_bound : {"conservative", "icml"}, default="conservative"
        Variant of Algorithm 2's Ω (see :func:`noise_free_omega`).
    batch_size : int or None, default=None
        Points proposed per BO step (GP-BUCB), evaluated in parallel.
        ``None`` is 1. A batch is allowed only with ``release_score=False``
        (the score release's regret bound, Theorem 3, is for sequential
        GP-UCB).
    """

    method = "gp-ucb"
    _parameter_constraints: dict = {
        "kernel": _KERNEL,
        "noise": _NOISE,
        "dataset_kernel": [Interval(numbers.Real, 0, 1, closed="right")],
        "score_offset": [None, numbers.Real],
        "score_scale": [None, Interval(numbers.Real, 0, None, closed="neither")],
        "noise_free_constants": [None, tuple],
        "noise_free_bound": [StrOptions({"conservative", "icml"})],
        "batch_size": _BATCH_SIZE,
    }

    def __init__(
        self,
        kernel=None,
        noise=0.01,
        dataset_kernel=0.95,
        score_offset=None,
        score_scale=None,
        noise_free_constants=None,
        noise_free_bound="conservative",
        batch_size=None,
    ):
        self.kernel = kernel
        self.noise = noise
        self.dataset_kernel = dataset_kernel
        self.score_offset = score_offset
        self.score_scale = score_scale
        self.noise_free_constants = noise_free_constants
        self.noise_free_bound = noise_free_bound
        self.batch_size = batch_size


@_shared_docs
class Lipschitz(SearchMode):
    """``method="lipschitz"``: Kusner et al. (2015), Algorithm 3.

    Searches one regularisation parameter of a binary L2-regularised linear
    model. Assumption 2's conditions, each checked before any data is read:
    ``estimator`` is a Pipeline ending in ``Normalizer()`` (``norm="l2"``
    or ``"l1"``) then ``LogisticRegression``, ``LinearSVC(loss="hinge")``
    or ``SGDClassifier(loss="log_loss" | "hinge", early_stopping=False)``,
    L2-penalised, with ``fit_intercept=False`` and ``class_weight=None``;
    ``search_spaces`` has the single entry ``"<step>__C"`` (λ = 1/(C·n))
    or ``"<step>__alpha"`` (λ = α), finite and > 0;
    ``scoring`` is ``"neg_sigmoid_loss"`` or ``"neg_ramp_loss"``. The whole
    candidate path is scored on the validation set; ``best_params_`` by
    ``selection`` over it (sensitivity g*/m, no assumption); ``best_score_``
    = best of T BO steps (``acquisition``) + Laplace(min(g*, (λmax −
    λmin)L/(λmax λmin) + min(g*, 2L/λmin)/m)/ε₂), pure ε-DP under
    Assumption 2 (Section 4). For usual λ ranges the cap at g* is active
    (docs/central_dp.md). Public constants: ``lipschitz_constants_``.

    Parameters
    ----------
    {{selection}}
        Here: over the whole path.
    acquisition : {"ucb", "ei"}, default="ucb"
        Acquisition function of Algorithm 3's BO (GP-UCB or expected
        improvement); Algorithm 3's guarantee holds for either.
    {{kernel}}
        Here: the GP of Algorithm 3's BO.
    {{noise}}
        0 is run as 1e-6 for numerical stability.
    """

    method = "lipschitz"
    _parameter_constraints: dict = {
        "selection": _SELECTION,
        "acquisition": [StrOptions({"ucb", "ei"})],
        "kernel": _KERNEL,
        "noise": _NOISE,
    }

    def __init__(
        self,
        selection="permute-and-flip",
        acquisition="ucb",
        kernel=None,
        noise=0.01,
    ):
        self.selection = selection
        self.acquisition = acquisition
        self.kernel = kernel
        self.noise = noise


@_shared_docs
class FederatedLDP(SearchMode):
    """``method="federated-ldp"``: one ε-LDP report per validation owner.

    Validation records belong to owners with public ids (``fit(...,
    val_groups=ids)``); each BO round one new owner reports her clipped
    score through a client-side Laplace randomiser: ε-LDP per owner
    (user-level). The learner is GP-UCB on the reports (Zhou & Tan, AAAI
    2021, spec ``LDP_BO.md`` §2; see ``sklearn_dpbo/model_selection/_federated.py`` and
    ``docs/local_dp.md``).

    Parameters
    ----------
    {{kernel}}
        Here: the GP of the learner (its noise variance is the local-DP
        algorithm's).
    """

    method = "federated-ldp"
    _parameter_constraints: dict = {
        "kernel": _KERNEL,
    }

    def __init__(self, kernel=None):
        self.kernel = kernel


@_shared_docs
class WholeData(SearchMode):
    """``method="whole-data"``: every row of ``X, y`` private (no validation set).

    Subsample-and-aggregate (Nissim, Raskhodnikova & Smith, STOC 2007;
    Chaudhuri, Monteleoni & Sarwate, JMLR 2011, Section 6; spec
    ``PRIVATE_TRAINING.md`` §2). The rows are split by a public random
    permutation into k disjoint parts P_1..P_k. In each part every candidate
    λ is fitted on a public inner split of the part and scored on the rest
    of it, giving s_j(λ) ∈ [low, high] (a fit or score that fails gives
    low). One row lives in one part and can move that part's scores only,
    by at most high − low each, so

        S(λ) = (1/k) Σ_j s_j(λ)   has   ‖S − S′‖_∞ ≤ Δ = (high − low)/k.

    ``best_params_``: permute-and-flip over S with Δ (ε₁-DP);
    ``best_score_``: S(λ̃) + Lap(Δ/ε₂), clipped into [low, high] (ε₂-DP).
    ``aggregation="vote"`` selects by permute-and-flip over the number of
    parts whose best candidate is λ instead (sensitivity 1). Pure
    (ε₁ + ε₂)-DP with respect to any one row of ``X, y`` (and its
    sample-aligned fit parameters), for every estimator: the guarantee
    needs no DP learner and no assumption. A model refit on the rows
    (``refit=True``, ``best_estimator_``) is **not** covered.

    The candidates are chosen before any row is read: ``n_iter`` of the
    search space's public discretisation in a public random order, plus
    the estimator's own parameter values (``include_default``).

    Parameters
    ----------
    n_parts : int or "auto", default="auto"
        Number k of disjoint parts. ``"auto"``: n // ``min_part_size``,
        at most 100 and at least 1 (public: n only).
    min_part_size : int, default=200
        Rows per part that ``n_parts="auto"`` aims for.
    inner_split : float in (0, 1) or int >= 2, default=0.3
        How a candidate is scored inside a part: a float is the fraction of
        the part's rows held out for scoring (the rest fits the model, one
        fit per part and candidate); an int is the number of folds of a
        cross-validation inside the part (every row scored once, that many
        fits). Both splits follow the public permutation, never the labels.
    aggregation : {"mean", "vote"}, default="mean"
        ``"mean"``: select over the part-averaged scores S (sensitivity
        (high − low)/k); ``"vote"``: over the votes of the parts
        (sensitivity 1).
    include_default : bool, default=True
        Also evaluate the estimator's own values of the searched parameters
        (its "untuned" configuration) as one candidate.
    max_selection_noise : float, default=0.05
        The selection's temperature 2Δ/ε₁ in units of the score range,
        2/(k ε₁), above which tuning is not attempted: the mode then
        releases the estimator's own values as ``best_params_`` without
        reading any row (ε₁ is not spent) and gives the whole ε to
        ``best_score_``. Public: k, ε and the budget split only. ``None``
        always tunes.
    max_worse_probability : float in (0, 1) or None, default=0.05
        Default anchoring (with ``include_default``): every other
        candidate's aggregated score is lowered by the public margin
        τ = (2Δ/ε₁)·ln(L/β), β this value and L the number of other
        candidates, before the selection, so that the probability of
        releasing a candidate that scores no better than the estimator's
        own values at the part size is at most β, whatever the data
        (``_whole_data._releases.anchor_margin``). ``None``: no anchoring.
    {{selection}}
    """

    method = "whole-data"
    _parameter_constraints: dict = {
        "n_parts": [
            Interval(numbers.Integral, 1, None, closed="left"),
            StrOptions({"auto"}),
        ],
        "min_part_size": [Interval(numbers.Integral, 2, None, closed="left")],
        "inner_split": [
            Interval(numbers.Real, 0, 1, closed="neither"),
            Interval(numbers.Integral, 2, None, closed="left"),
        ],
        "aggregation": [StrOptions({"mean", "vote"})],
        "include_default": ["boolean"],
        "max_selection_noise": [
            None,
            Interval(numbers.Real, 0, None, closed="neither"),
        ],
        "max_worse_probability": [
            None,
            Interval(numbers.Real, 0, 1, closed="neither"),
        ],
        "selection": _SELECTION,
    }

    def __init__(
        self,
        n_parts="auto",
        min_part_size=200,
        inner_split=0.3,
        aggregation="mean",
        include_default=True,
        max_selection_noise=0.05,
        max_worse_probability=0.05,
        selection="permute-and-flip",
    ):
        self.n_parts = n_parts
        self.min_part_size = min_part_size
        self.inner_split = inner_split
        self.aggregation = aggregation
        self.include_default = include_default
        self.max_selection_noise = max_selection_noise
        self.max_worse_probability = max_worse_probability
        self.selection = selection


class PrivateModel(SearchMode):
    """``method="private-model"``: tune a DP learner, release the tuned model.

    Every row of ``X, y`` is private (replace one row; n public). A public
    permutation splits the rows into a training part and a validation part
    (``validation_fraction``). A *run* fits the DP learner (an estimator of
    :mod:`sklearn_dpbo.dp_learners`) with a candidate on the training part
    at ε₀ and scores it on the validation part with Laplace noise at ε₀:
    ε₀-DP by parallel composition. ``best_estimator_`` is the selected DP
    model itself (no refit), ``best_score_`` its already-paid noisy score
    (``_private_model/``, ``docs/private_model.md``).

    Parameters
    ----------
    strategy : {"auto", "random-stopping", "split", "default"}, default="auto"
        ``"random-stopping"``: K ~ ``distribution`` runs with candidates
        drawn i.i.d. from the public candidate set, the best noisy score
        wins (Papernot & Steinke, ICLR 2022; Liu & Talwar, STOC 2019);
        ε₀ = ε/(2 + η). ``"split"``: every candidate at ε/L, permute-and-
        flip over the scores; pure ε-DP. ``"default"``: the estimator's own
        parameters at ε. ``"auto"``: a public rule of n, m, L and ε
        (``_private_model._fit.choose_strategy``).
    distribution : {"auto", "logarithmic", "negative-binomial", "geometric"}, \
            default="auto"
        Law of K: truncated negative binomial with η = 0 (cost 2ε₀), 0.5
        (2.5ε₀) or 1 (3ε₀). ``"auto"``: ``"logarithmic"``, unless no cap on
        K keeps its added δ within the search's ``delta``, then
        ``"negative-binomial"`` (``_private_model._fit.resolve_distribution``).
        ``privacy_report_`` names the law.
    mean_runs : float >= 1 or "auto", default="auto"
        E[K]; ``"auto"`` is the number of candidates.
    max_runs : int or "auto", default="auto"
        K_max. ``"auto"``: the smallest cap whose added δ, (1 + e^ε)·P[K >
        K_max] plus the sampler's slack, is at most the search's ``delta``.
        The δ spent is reported in ``privacy_report_``.
    validation_fraction : float in (0, 1), default=0.3
        Fraction of the rows in the validation part (public split).
    """

    method = "private-model"
    _parameter_constraints: dict = {
        "strategy": [StrOptions({"auto", "random-stopping", "split", "default"})],
        "distribution": [
            StrOptions({"auto", "logarithmic", "negative-binomial", "geometric"})
        ],
        "mean_runs": [
            Interval(numbers.Real, 1, None, closed="left"),
            StrOptions({"auto"}),
        ],
        "max_runs": [
            Interval(numbers.Integral, 1, None, closed="left"),
            StrOptions({"auto"}),
        ],
        "validation_fraction": [Interval(numbers.Real, 0, 1, closed="neither")],
    }

    def __init__(
        self,
        strategy="auto",
        distribution="auto",
        mean_runs="auto",
        max_runs="auto",
        validation_fraction=0.3,
    ):
        self.strategy = strategy
        self.distribution = distribution
        self.mean_runs = mean_runs
        self.max_runs = max_runs
        self.validation_fraction = validation_fraction


MODES: dict[str, type[SearchMode]] = {
    cls.method: cls
    for cls in (PrivateSelection, DPGPUCB, Lipschitz, FederatedLDP, WholeData)
}
"""String shorthand → mode class (the string means the class's defaults)."""
MODES[PrivateModel.method] = PrivateModel


def resolve_mode(method) -> SearchMode:
    """A fresh mode object: the defaults for a string, a clone for an object."""
    if isinstance(method, str):
        return MODES[method]()
    return clone(method)


def moved_parameter_hint(name: str, value, method=None) -> str | None:
    """Advice for a mode's parameter given to ``DPBayesSearchCV``, or None;
    ``method`` (if given) is the mode shown first."""
    owners = [cls for cls in MODES.values() if name in cls._parameter_constraints]
    if not owners:
        return None
    if isinstance(method, str) and method in MODES and MODES[method] in owners:
        owners.remove(MODES[method])
        owners.insert(0, MODES[method])
    elif isinstance(method, SearchMode) and type(method) in owners:
        owners.remove(type(method))
        owners.insert(0, type(method))
    first = f"method={owners[0].__name__}({name}={value!r})"
    others = ", ".join(cls.__name__ for cls in owners[1:])
    return (
        f"{name} is a parameter of the search mode: pass {first}"
        + (f" (also a parameter of {others})" if others else "")
        + f"; set it later with set_params(method__{name}=...)."
    )
