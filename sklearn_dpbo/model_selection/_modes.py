"""Mode objects, what ``DPBayesSearchCV(method=...)`` accepts: public
parameter holders, as a kernel in ``GaussianProcessRegressor(kernel=...)``."""

from __future__ import annotations

import numbers
from dataclasses import dataclass

from sklearn.base import BaseEstimator, clone
from sklearn.gaussian_process.kernels import Kernel

from .._compat import (
    CachedParamNamesMixin,
    Interval,
    StrOptions,
    validate_parameter_constraints,
)
from ..bo._gp import internal_kernel

_KERNEL = [None, Kernel]
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
    ``Matern(nu=2.5, length_scale=ℓ)`` or ``RBF(length_scale=ℓ)``, ℓ fixed
    and public, never fitted. ``None`` is ``Matern(nu=2.5, length_scale=0.2)``.""",
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
    """Base class of the mode objects (a public parameter holder)."""

    method: str = ""
    _parameter_constraints: dict = {}

    def __eq__(self, other) -> bool:
        """Same class and same parameters (as scikit-learn's kernels)."""
        if type(self) is not type(other):
            return NotImplemented
        mine, theirs = self.get_params(deep=False), other.get_params(deep=False)
        return all(_same(mine[k], theirs[k]) for k in mine)

    __hash__ = None  # mutable through set_params, as a kernel

    def _validate_in(self, owner: str) -> None:
        """Validate the parameters, named ``method__<name>`` for ``owner``."""
        params = self.get_params(deep=False)
        validate_parameter_constraints(
            {"method__" + k: v for k, v in self._parameter_constraints.items()},
            {"method__" + k: v for k, v in params.items()},
            caller_name=owner,
        )
        for name in _INT_PARAMS:
            value = params.get(name)
            if isinstance(value, bool):
                raise ValueError(
                    f"method__{name} must be a positive int, not a bool; got "
                    f"{name}={value!r}. Pass e.g. "
                    f"{type(self).__name__}({name}=3)."
                )
        if "kernel" in params:
            self._gp_kernel(owner)

    def _gp_kernel(self, owner: str = "DPBayesSearchCV") -> tuple[str, float]:
        """(internal kernel name, length-scale) of the mode's GP."""
        if self.kernel is None:
            return DEFAULT_KERNEL
        return internal_kernel(self.kernel, "method__kernel", owner)


def _same(a, b) -> bool:
    """Parameter equality that does not fail on arrays or splitters."""
    if a is b:
        return True
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return False


@_shared_docs
@dataclass(eq=False, repr=False)
class PrivateSelection(SearchMode):
    """``method="private-selection"``: public shortlist, private selection.

    Bayesian optimisation (GP-UCB) on ``public_cv``-fold cross-validation
    inside the training set (public) keeps the ``shortlist_size`` best
    candidates; each is scored once on the validation set, ``best_params_``
    is selected by ``selection`` with the scorer's sensitivity (1/m for
    accuracy), ``best_score_`` is its score plus Laplace(Δ/ε₂). Pure ε-DP,
    no modelling assumption.

    Parameters
    ----------
    shortlist : {"bo", "random", "grid"}, default="bo"
        ``"bo"``: the public Bayesian optimisation; ``"random"``: a public
        random sample; ``"grid"``: the whole candidate set.
    shortlist_size : int, default=3
        Candidates scored on the validation set (``"bo"``, ``"random"``).
    public_cv : "auto", int or splitter, default="auto"
        Cross-validation inside the training set (``shortlist="bo"``).
        ``"auto"``: 2 folds from 20,000 training rows, else 3.
    {{selection}}
    racing : float or None, default=0.5
        Racing of the public folds (``shortlist="bo"``): a new candidate is
        scored on the other folds only if its fold-0 score is at least the
        ``shortlist_size``-th best fold-0 score of the candidates scored on
        every fold, minus ``racing`` × (high − low) / √(2 n₀) (n₀: fold-0
        rows). Only candidates scored on every fold are shortlisted.
        ``None`` scores every candidate on every fold.
    batch_size : int or None, default=None
        Public fold evaluations in flight at once (GP-BUCB; the releases
        depend on it, never on timing). ``None``: max(4, 2 × joblib workers).
    {{kernel}}
        Here: the public GP of the shortlist's Bayesian optimisation.
    {{noise}}
        0 is run as 1e-6 for numerical stability.
    public_budget : "auto", float or None, default="auto"
        Cap on the public fold fits (``shortlist="bo"``): ``public_budget`` ×
        ``n_iter`` × (training rows) rows. Every candidate is scored on fold
        0; the other folds go to the best by fold-0 score, as many as the
        rows left pay for (at most ``shortlist_size``: fold 0 decides).
        ``None``: no cap. ``"auto"`` (with ``public_cv="auto"``): 0.75 from
        20,000 training rows, else ``None``.
    """

    method = "private-selection"
    _parameter_constraints = {
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

    shortlist: str = "bo"
    shortlist_size: int = 3
    public_cv: str | int | object = "auto"
    selection: str = "permute-and-flip"
    racing: float | None = 0.5
    batch_size: int | None = None
    kernel: Kernel | None = None
    noise: float = 0.01
    public_budget: str | float | None = "auto"


@_shared_docs
@dataclass(eq=False, repr=False)
class DPGPUCB(SearchMode):
    """``method="gp-ucb"``: Kusner et al. (ICML 2015), Algorithms 1 and 2.

    GP-UCB on the validation scores; ``best_params_`` by the exponential
    mechanism on the posterior mean μ_T with Δ_μ = 2√β_{T+1} + c (Algorithm
    1, line 12), ``best_score_`` = max observed + Laplace(b) (lines 13–15),
    or Algorithm 2 with ``noise=0``. (ε, δ)-DP *under the paper's
    Assumption 1* (docs/central_dp.md).

    Parameters
    ----------
    {{kernel}}
        Here: k2 of Assumption 1.
    {{noise}}
        0 selects Algorithm 2 (needs ``noise_free_constants`` to release
        the score).
    dataset_kernel : float in (0, 1], default=0.95
        k1 of Assumption 1, the correlation of the score functions of
        neighbouring validation sets (Section 5).
    score_offset, score_scale : float, default=None
        GP units z = (score − offset)/scale. ``None``: the midpoint and a
        quarter of the scorer's declared range. A smaller scale, or an
        offset mapping the range outside [−2, 2], is refused.
    noise_free_constants : (A, tau) or None, default=None
        de Freitas et al. (2012) constants for Algorithm 2 (``noise=0``).
    noise_free_bound : {"conservative", "icml"}, default="conservative"
        Variant of Algorithm 2's Ω (see :func:`noise_free_omega`).
    batch_size : int or None, default=None
        Points proposed per BO step (GP-BUCB). ``None`` is 1; a batch needs
        ``release_score=False`` (Theorem 3 is for sequential GP-UCB).
    """

    method = "gp-ucb"
    _parameter_constraints = {
        "kernel": _KERNEL,
        "noise": _NOISE,
        "dataset_kernel": [Interval(numbers.Real, 0, 1, closed="right")],
        "score_offset": [None, numbers.Real],
        "score_scale": [None, Interval(numbers.Real, 0, None, closed="neither")],
        "noise_free_constants": [None, tuple],
        "noise_free_bound": [StrOptions({"conservative", "icml"})],
        "batch_size": _BATCH_SIZE,
    }

    kernel: Kernel | None = None
    noise: float = 0.01
    dataset_kernel: float = 0.95
    score_offset: float | None = None
    score_scale: float | None = None
    noise_free_constants: tuple | None = None
    noise_free_bound: str = "conservative"
    batch_size: int | None = None


@_shared_docs
@dataclass(eq=False, repr=False)
class Lipschitz(SearchMode):
    """``method="lipschitz"``: Kusner et al. (2015), Algorithm 3.

    Searches one regularisation parameter of a binary L2-regularised linear
    model. Assumption 2, checked before any data is read: ``estimator`` is a
    Pipeline ending in ``Normalizer()`` then ``LogisticRegression``,
    ``LinearSVC(loss="hinge")`` or ``SGDClassifier(loss="log_loss" |
    "hinge")``, with ``fit_intercept=False``; ``search_spaces`` has the
    single entry ``"<step>__C"`` or ``"<step>__alpha"``; ``scoring`` is
    ``"neg_sigmoid_loss"`` or ``"neg_ramp_loss"``. ``best_params_`` by
    ``selection`` over the whole path (sensitivity g*/m); ``best_score_``
    = best of T BO steps + Laplace(Δ_L/ε₂), pure ε-DP under Assumption 2
    (docs/central_dp.md).

    Parameters
    ----------
    {{selection}}
        Here: over the whole path.
    acquisition : {"ucb", "ei"}, default="ucb"
        Acquisition function of Algorithm 3's BO (its guarantee holds for either).
    {{kernel}}
        Here: the GP of Algorithm 3's BO.
    {{noise}}
        0 is run as 1e-6 for numerical stability.
    """

    method = "lipschitz"
    _parameter_constraints = {
        "selection": _SELECTION,
        "acquisition": [StrOptions({"ucb", "ei"})],
        "kernel": _KERNEL,
        "noise": _NOISE,
    }

    selection: str = "permute-and-flip"
    acquisition: str = "ucb"
    kernel: Kernel | None = None
    noise: float = 0.01


@_shared_docs
@dataclass(eq=False, repr=False)
class FederatedLDP(SearchMode):
    """``method="federated-ldp"``: one ε-LDP report per validation owner.

    Validation records belong to owners with public ids (``fit(...,
    val_groups=ids)``); each BO round one new owner reports her clipped
    score through a Laplace randomiser: ε-LDP per owner. GP-UCB on the
    reports (Zhou & Tan, AAAI 2021; ``docs/local_dp.md``).

    Parameters
    ----------
    {{kernel}}
        Here: the GP of the learner.
    """

    method = "federated-ldp"
    _parameter_constraints = {
        "kernel": _KERNEL,
    }

    kernel: Kernel | None = None


@_shared_docs
@dataclass(eq=False, repr=False)
class WholeData(SearchMode):
    """``method="whole-data"``: every row of ``X, y`` private (no validation set).

    Subsample-and-aggregate (Nissim, Raskhodnikova & Smith, STOC 2007;
    Chaudhuri, Monteleoni & Sarwate, JMLR 2011, Section 6). A public random
    permutation splits the rows into k disjoint parts; in each part every
    candidate λ is fitted and scored on a public inner split, giving
    s_j(λ) ∈ [low, high] (a failure gives low). One row moves its own
    part's scores only, by at most high − low each, so

        S(λ) = (1/k) Σ_j s_j(λ)   has   ‖S − S′‖_∞ ≤ Δ = (high − low)/k.

    ``best_params_``: permute-and-flip over S with Δ (ε₁-DP);
    ``best_score_``: S(λ̃) + Lap(Δ/ε₂), clipped into [low, high] (ε₂-DP).
    ``aggregation="vote"`` selects over the number of parts whose best
    candidate is λ (sensitivity 1). Pure (ε₁ + ε₂)-DP with respect to any
    one row of ``X, y``, for every estimator. The candidates: ``n_iter``
    of the public discretisation in a public random order, plus the
    estimator's own values (``include_default``).

    Parameters
    ----------
    n_parts : int or "auto", default="auto"
        Number k of disjoint parts. ``"auto"``: n // ``min_part_size``,
        at most 100 and at least 1 (public: n only).
    min_part_size : int, default=200
        Rows per part that ``n_parts="auto"`` aims for.
    inner_split : float in (0, 1) or int >= 2, default=0.3
        Scoring inside a part: a float is the fraction of the part's rows
        held out for scoring; an int the number of folds of a
        cross-validation inside the part (public permutation, never labels).
    aggregation : {"mean", "vote"}, default="mean"
        Select over the part-averaged scores S or the parts' votes.
    include_default : bool, default=True
        Also evaluate the estimator's own values of the searched parameters.
    max_selection_noise : float, default=0.05
        Above this selection temperature 2/(k ε₁) (score-range units) the
        estimator's own values are released as ``best_params_`` without
        reading any row, and the whole ε goes to ``best_score_``. ``None``
        always tunes.
    max_worse_probability : float in (0, 1) or None, default=0.05
        Default anchoring (with ``include_default``): every other
        candidate's score is lowered by τ = (2Δ/ε₁)·ln(L/β) (β this value,
        L the other candidates) before the selection, so that a candidate
        no better than the estimator's own values is released with
        probability at most β (``_whole_data._releases.anchor_margin``).
        ``None``: no anchoring.
    {{selection}}
    """

    method = "whole-data"
    _parameter_constraints = {
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

    n_parts: int | str = "auto"
    min_part_size: int = 200
    inner_split: float | int = 0.3
    aggregation: str = "mean"
    include_default: bool = True
    max_selection_noise: float | None = 0.05
    max_worse_probability: float | None = 0.05
    selection: str = "permute-and-flip"


@dataclass(eq=False, repr=False)
class PrivateModel(SearchMode):
    """``method="private-model"``: tune a DP learner, release the tuned model.

    Every row of ``X, y`` is private. A public permutation splits the rows
    into a training and a validation part. A *run* fits the DP learner (of
    :mod:`sklearn_dpbo.dp_learners`) with a candidate on the training part
    at ε₀ and scores it on the validation part with Laplace noise at ε₀
    (ε₀-DP by parallel composition). ``best_estimator_`` is the selected DP
    model itself, ``best_score_`` its noisy score (``docs/private_model.md``).

    Parameters
    ----------
    strategy : {"auto", "random-stopping", "split", "default"}, default="auto"
        ``"random-stopping"``: K ~ ``distribution`` runs with candidates
        drawn i.i.d., the best noisy score wins (Papernot & Steinke, ICLR
        2022); ε₀ = ε/(2 + η). ``"split"``: every candidate at ε/L,
        permute-and-flip over the scores. ``"default"``: the estimator's own
        parameters at ε. ``"auto"``: a public rule of n, m, L and ε (one
        candidate: that candidate at ε).
    distribution : {"auto", "logarithmic", "negative-binomial", "geometric"}, \
            default="auto"
        Law of K: truncated negative binomial with η = 0 (cost 2ε₀), 0.5
        (2.5ε₀) or 1 (3ε₀). ``"auto"``: ``"logarithmic"``, unless no cap on
        K keeps its added δ within ``delta``, then ``"negative-binomial"``.
    mean_runs : float >= 1 or "auto", default="auto"
        E[K]; ``"auto"`` is the number of candidates. 1: one run at the
        whole ε, pure ε-DP.
    max_runs : int or "auto", default="auto"
        K_max. ``"auto"``: the smallest cap whose added δ, (1 + e^ε)·P[K >
        K_max] plus the sampler's slack, is at most ``delta``.
    validation_fraction : float in (0, 1), default=0.3
        Fraction of the rows in the validation part (public split).
    """

    method = "private-model"
    _parameter_constraints = {
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

    strategy: str = "auto"
    distribution: str = "auto"
    mean_runs: float | str = "auto"
    max_runs: int | str = "auto"
    validation_fraction: float = 0.3


# In definition order: PrivateSelection first.
MODES: dict[str, type[SearchMode]] = {
    cls.method: cls for cls in SearchMode.__subclasses__()
}


def resolve_mode(method) -> SearchMode:
    """A fresh mode object: the defaults for a string, a clone for an object."""
    if isinstance(method, str):
        return MODES[method]()
    return clone(method)


def moved_parameter_hint(name: str, value, method=None) -> str | None:
    """Advice for a mode's parameter given to ``DPBayesSearchCV``, or None;
    ``method``'s mode (if an owner) is shown first."""
    owners = [cls for cls in MODES.values() if name in cls._parameter_constraints]
    if not owners:
        return None
    mine = MODES.get(method) if isinstance(method, str) else type(method)
    owners.sort(key=lambda cls: cls is not mine)  # stable: ``method``'s first
    first = f"method={owners[0].__name__}({name}={value!r})"
    others = ", ".join(cls.__name__ for cls in owners[1:])
    return (
        f"{name} is a parameter of the search mode: pass {first}"
        + (f" (also a parameter of {others})" if others else "")
        + f"; set it later with set_params(method__{name}=...)."
    )
