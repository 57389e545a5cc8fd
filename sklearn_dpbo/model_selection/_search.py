"""DPBayesSearchCV: differentially private hyper-parameter search."""

from __future__ import annotations

import inspect
import math
import numbers
import pickle
import re
import sys
import warnings
from dataclasses import replace

import numpy as np
from joblib import Parallel
from sklearn.base import BaseEstimator, MetaEstimatorMixin, clone
from sklearn.exceptions import NotFittedError
from sklearn.model_selection import PredefinedSplit
from sklearn.utils import get_tags
from sklearn.utils.metadata_routing import (
    MetadataRouter,
    MethodMapping,
    get_routing_for_object,
    process_routing,
)
from sklearn.utils.validation import check_is_fitted, indexable

from .._compat import (
    HasMethods,
    Interval,
    StrOptions,
    _num_samples,
    _routing_enabled,
    _safe_split,
    _VisualBlock,
)
from ..bo._candidates import CandidateSet
from ..privacy._accountant import BudgetAccountant
from ..privacy._accounting import PrivacyReport, Release, split_budget
from ..privacy._builtin_scores import get_dp_scorer
from ..privacy._scorers import DPScorer
from ..privacy._validation import (
    MIN_EPSILON,
    PrivacyLeakWarning,
    check_delta,
    check_epsilon,
    check_privacy_rng,
    public_rng,
)
from ._context import SearchContext, SearchData, SearchPlan
from ._evaluation import fit_on_training, index_fit_params, score_private
from ._federated import run_federated_ldp
from ._gp_ucb import run_gp_ucb
from ._lipschitz import check_assumption_2, run_lipschitz
from ._modes import MODES, SearchMode, moved_parameter_hint, resolve_mode
from ._noise_check import warn_useless_releases
from ._private_selection import FITTED_KEY, run_private_selection
from ._progress import ProgressPrinter
from ._releases import release_best_score_selection
from ._splits import check_public_splitter, public_split

__all__ = ["DPBayesSearchCV", "PrivateComputationError"]

# One function per mode; each returns (releases, released index, extra public
# attributes). Read them next to the paper: _gp_ucb.py, _private_selection.py.
_MODES = {
    "gp-ucb": run_gp_ucb,
    "private-selection": run_private_selection,
    "lipschitz": run_lipschitz,
    "federated-ldp": run_federated_ldp,
}

# Modes whose every release is pure epsilon-DP: a fit spends delta = 0.
# Any other mode is charged its whole delta (conservative if it spends less).
_PURE_EPSILON_MODES = {"private-selection", "lipschitz", "federated-ldp"}


# What users type when they swap GridSearchCV / RandomizedSearchCV / skopt's
# BayesSearchCV for this class, and what to do instead.
_FOREIGN_KWARGS = {
    "param_grid": "DPBayesSearchCV takes the grid as search_spaces (the second "
    "argument): DPBayesSearchCV(estimator, search_spaces={...}). A list of "
    "values is a grid as in GridSearchCV.",
    "param_distributions": "DPBayesSearchCV takes the distributions as "
    "search_spaces (the second argument): frozen scipy.stats distributions "
    "and (low, high[, 'log-uniform']) ranges are discretised into "
    "n_candidates public points.",
    "return_train_score": "there are no per-candidate scores to return: raw "
    "validation scores would void the privacy guarantee. Use cv_results_ "
    "(method='private-selection') instead, which holds the public "
    "cross-validation scores inside the training set, or score your own "
    "public data with "
    "cross_validate(estimator.set_params(**best_params_), X_train, y_train, "
    "return_train_score=True).",
    "fit_params": "pass fit parameters to fit(X, y, **fit_params).",
    "iid": "iid was removed from scikit-learn; there is nothing to set.",
}


class _InitSignature:
    """``inspect.signature(cls)`` is ``__init__``'s, not ``__new__``'s."""

    def __get__(self, obj, owner=None):
        if obj is not None:
            raise AttributeError("__signature__")
        sig = inspect.signature(owner.__init__)
        return sig.replace(parameters=list(sig.parameters.values())[1:])


class _FittedWithReason:
    """A fitted attribute stored in the instance dict whose absence says why.

    A data descriptor: ``obj.cv_results_`` reads ``vars(obj)["cv_results_"]``
    and, when it is absent, raises an AttributeError with
    ``obj._no_<name>_reason()`` (``hasattr`` stays False).
    """

    def __set_name__(self, owner, name):
        self.name = name

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        try:
            return vars(obj)[self.name]
        except KeyError:
            raise AttributeError(
                getattr(obj, f"_no_{self.name.rstrip('_')}_reason")()
            ) from None

    def __set__(self, obj, value):
        vars(obj)[self.name] = value

    def __delete__(self, obj):
        del vars(obj)[self.name]


class _available_if:
    """``sklearn.utils.metaestimators.available_if`` that says why not.

    scikit-learn hides the reason (e.g. ``refit=False``) in ``__cause__``;
    here it is also in the message of the ``AttributeError``.
    """

    def __init__(self, check):
        self.check = check

    def __call__(self, fn):
        self.fn = fn
        self.__doc__ = fn.__doc__
        self.__name__ = fn.__name__
        return self

    def __get__(self, obj, owner=None):
        if obj is None:
            return self.fn
        try:
            self.check(obj)
        except Exception as exc:
            raise AttributeError(
                f"This {type(obj).__name__!r} has no attribute "
                f"{self.fn.__name__!r}: {exc}"
            ) from exc
        return self.fn.__get__(obj, owner)


available_if = _available_if


def _search_estimator_has(attr):
    def check(self):
        _check_refit(self, attr)
        if hasattr(self, "best_estimator_"):
            getattr(self.best_estimator_, attr)
            return True
        getattr(self.estimator, attr)
        return True

    return check


def _check_refit(search, attr):
    if search.refit is False:
        raise AttributeError(
            f"This {type(search).__name__} instance was initialized with "
            f"`refit=False`. {attr} is available only after refitting on the "
            "best parameters (the released best_params_); refit an estimator "
            "yourself with best_params_ on the training set."
        )


class DPBayesSearchCV(MetaEstimatorMixin, BaseEstimator):
    """Differentially private hyper-parameter search.

    Tunes ``estimator`` on a fixed, public training set, scores candidates
    on a sensitive validation set, and releases ``best_params_`` and
    ``best_score_`` with differential privacy under a total (ε, δ) budget
    for one ``fit``. The privacy unit is one validation record; neighbouring
    validation sets have the same public size m and differ by one swapped
    record. The training set is not protected.

    Two release families, chosen by ``method`` (a string, or a mode object
    carrying the mode's own parameters, e.g. ``method=PrivateSelection(
    shortlist_size=5)``; see :mod:`sklearn_dpbo.model_selection._modes`):

    ``"private-selection"`` (default, no modelling assumption)
        Bayesian optimisation (GP-UCB) runs on *public* signal only,
        ``public_cv``-fold cross-validation inside the training set, and
        keeps a shortlist of the ``shortlist_size`` best candidates
        (parameters of :class:`PrivateSelection`). Each is
        fitted on the training set and scored once on the validation set.
        ``best_params_`` is selected by permute-and-flip (or the
        exponential mechanism) with the scorer's sensitivity (1/m for
        accuracy), ``best_score_`` is that candidate's validation score
        plus Laplace(Δ/ε₂). Pure ε-DP. ``shortlist="grid"`` shortlists the
        whole candidate set (private grid search), ``shortlist="random"`` a
        public random sample (private random search).

    ``"gp-ucb"`` (Kusner et al., ICML 2015, Algorithms 1 and 2)
        GP-UCB on the validation scores; ``best_params_`` by the exponential
        mechanism on the posterior mean μ_T with Δ_μ = 2√β_{T+1} + c,
        ``best_score_`` = max observed + Laplace(b). (ε, δ)-DP *under the
        paper's Assumption 1* (the score functions of all validation sets
        are jointly a GP with dataset correlation ``dataset_kernel``). With
        ``noise=0`` and ``noise_free_constants=(A, tau)`` the score is
        released by Algorithm 2. Measured: at total ε = 1 its selection is
        barely better than uniform and its score noise exceeds the score
        range (see docs/central_dp.md); it is offered for fidelity to the paper.
        Parameters: :class:`DPGPUCB`.

    ``"lipschitz"`` (Kusner et al. 2015, Algorithm 3, no GP assumption)
        Searches one regularisation parameter of a binary L2-regularised
        linear model: ``estimator`` must be a Pipeline ending in
        ``Normalizer()`` then ``LogisticRegression``, ``LinearSVC(loss=
        "hinge")`` or ``SGDClassifier(loss="log_loss" | "hinge")``, each
        with ``fit_intercept=False``; ``search_spaces`` has the single entry
        ``"<step>__C"`` (λ = 1/(C·n)) or ``"<step>__alpha"`` (λ = α);
        ``scoring`` is ``"neg_sigmoid_loss"`` or ``"neg_ramp_loss"``
        (accuracy is refused). Every violated condition of Assumption 2 is
        refused before any data is read. The whole candidate path is scored
        on the validation set; ``best_params_`` by ``selection`` over it
        (sensitivity g*/m, no assumption); ``best_score_`` = best of T BO
        steps (``acquisition``) + Laplace(min(g*, (λmax − λmin)L/(λmax
        λmin) + min(g*, 2L/λmin)/m)/ε₂), pure ε-DP under Assumption 2. The
        bound is capped at g* and, for usual λ ranges, the cap is active:
        the score noise is then Laplace(g*/ε₂) on a score in [−g*, 0]
        (see docs/central_dp.md). Public constants: ``lipschitz_constants_``.
        Parameters: :class:`Lipschitz`.

    Parameters
    ----------
    estimator : estimator object
        A scikit-learn estimator or Pipeline (cloned; never modified).
    search_spaces : dict or list of dict
        Parameter names mapped to a list of values (any sequence: a list,
        ``range(1, 4)``, a 1-D array; a grid as in ``GridSearchCV``),
        ``(low, high)``, ``(low, high, "log-uniform")`` or a frozen
        ``scipy.stats`` distribution. A *tuple* is a range, never a grid
        (unlike ``GridSearchCV``): write ``[1, 10]`` for the two values.
        ``{}`` is one candidate, the estimator's defaults. A Pipeline step
        and its parameters can be searched together (``{"clf":
        [LinearSVC()], "clf__C": [...]}``, or a list of dicts swapping
        estimators); names are checked with the step substituted. Ranges
        and distributions are discretised into ``n_candidates`` Sobol points
        with a public seed: the finite candidate set Λ is fixed before any
        data is read.
    method : str or mode object, default="private-selection"
        The release family and its own parameters, as a mode object:
        :class:`PrivateSelection` (``"private-selection"``),
        :class:`DPGPUCB` (``"gp-ucb"``), :class:`Lipschitz`
        (``"lipschitz"``) or :class:`FederatedLDP` (``"federated-ldp"``).
        A string is the shorthand for the mode's defaults. Its parameters
        are nested as in ``GaussianProcessRegressor(kernel=...)``:
        ``get_params(deep=True)`` lists ``method__<name>``,
        ``set_params(method__noise=0.05)`` sets one (when ``method`` is an
        object), and they are validated in ``fit`` before any data is read.
        The search never modifies the object. ``"federated-ldp"``:
        validation records belong to owners with public ids (``fit(...,
        val_groups=ids)``); each BO round one new owner reports her clipped
        score through a client-side Laplace randomiser: ε-LDP per owner,
        exposes ``cv_results_`` of the noisy reports (see
        ``sklearn_dpbo/model_selection/_federated.py`` and ``docs/local_dp.md``).
    epsilon : float, default=1.0
        Total ε of one ``fit`` (all releases together, basic composition).
    delta : float, default=1e-5
        Total δ of one ``fit``. ``"private-selection"`` spends none of it.
    budget_split : float in (0, 1), default=0.5
        Fraction of (ε, δ) spent on ``best_params_``; the rest on
        ``best_score_``.
    release_score : bool, default=True
        Release ``best_score_``. ``False`` spends the whole budget on
        ``best_params_`` and leaves ``best_score_`` unset.
    n_iter : int, default=30
        Number of Bayesian-optimisation evaluations T (validation
        evaluations in ``"gp-ucb"``, public cross-validated evaluations in
        ``"private-selection"``).
    n_candidates : int, default=1024
        Size of the Sobol discretisation of ranges and distributions.
    scoring : None, str, DPScorer, list, tuple or dict, default=None
        ``None`` is accuracy for classifiers (not ``estimator.score``, which
        declares no range). Any other score must declare its range and
        sensitivity: use :func:`make_dp_scorer`. Several metrics (a list or
        tuple of names, or ``{name: scoring}``, ``method="private-selection"``
        only): ``refit="<name>"`` names the metric the selection maximises;
        every other metric of the selected candidate is released in
        ``best_scores_`` with its own Laplace noise. With k metrics and b =
        ``budget_split``, the selection gets ε·b/(b + k(1 − b)) and every
        score release ε·(1 − b)/(b + k(1 − b)), each in ``privacy_report_``
        and all charged to the accountant before any data is read.
    refit : bool or str, default=True
        Refit ``best_estimator_`` with ``best_params_`` on the training set
        only (post-processing of the release). A str names the selection
        metric of several (and refits). ``best_params_`` is released either
        way. A callable is refused: it would pick ``best_index_`` from raw
        validation scores.
    cv : None, splitter, or iterable, default=None
        Where the validation set comes from when ``fit`` gets no ``X_val``:
        exactly one (train, validation) split fixed by public information:
        ``[(train_idx, val_idx)]`` (index arrays fixed without the
        validation labels), ``PredefinedSplit`` with one fold,
        ``ShuffleSplit(n_splits=1)`` or ``GroupShuffleSplit(n_splits=1)``
        with ``fit(..., groups=...)``. The splitter sees only the number of
        rows and ``groups``, never ``X`` or ``y``. Several folds are refused
        (each fold would be a separate release, and averaging them would
        protect nothing), and so is every other splitter class, stratified
        ones included: a split that reads the labels or features lets one
        validation record move other rows into the training set and
        ``best_estimator_`` (see :func:`check_public_splitter`).
        With a precomputed kernel or distance matrix (``pairwise`` tag) the
        split slices both axes, as ``GridSearchCV``; with ``X_val`` instead,
        pass the validation-vs-training matrix (n_validation × n_train) as
        ``X_val``, and predict with test-vs-training matrices.
    n_jobs : int, default=None
        Parallel fits through joblib (any active backend, e.g. Dask). The
        releases do not depend on it.
    pre_dispatch : int or str, default="2*n_jobs"
        Passed to :class:`joblib.Parallel`.
    verbose : int, default=0
        1: the plan (candidates, the (ε, δ) the fit spends: δ = 0 for the
        pure ε-DP modes), the phases, the first read of the validation set
        and the end; 2: also every step of the public search on the
        training set (``"private-selection"`` with ``shortlist="bo"``);
        3 and more: elapsed time and budget on every line printed before
        the read. No score and no evaluated candidate is ever printed
        (unlike ``GridSearchCV``'s ``verbose=3``). **Nothing measured after
        the first read of the validation set is printed**: after the line
        ``reading the validation set ...`` the only line is ``done``, with
        no figure, when ``fit`` returns (no elapsed time, no count, no
        per-step line: in ``"gp-ucb"`` the steps' durations, and even the
        moments at which their lines appear, would spell out the privately
        chosen candidates; a failing validation record costs extra
        ``predict`` calls). Every figure printed is measured before the read
        or is a public constant fixed before it (ε, δ, ``n_iter``, the
        numbers of candidates and owners).
    error_score : "raise" or float, default="raise"
        What happens when fitting a *public* candidate on the public training
        set fails (public information, so scikit-learn's semantics apply):
        ``"raise"`` raises the original exception before the validation set
        is read; a number (or ``np.nan``) becomes that fit's public
        cross-validation score, with a :class:`~sklearn.exceptions.FitFailedWarning`,
        and the candidate is never scored on the validation set (a NaN score
        is never shortlisted). If every candidate fails, ``fit`` raises
        before the validation set is read, nothing is charged. Failures on
        the *validation* set never raise: a record that makes the model or
        the score fail gets the worst per-record value (``DPScorer``). In
        ``"gp-ucb"`` the evaluated candidates are chosen from validation
        scores and are private, so a failed fit there cannot raise either:
        it scores the range's low end on every record, silently.
    random_state : None, int or RandomState, default=None
        Seeds the *public* randomness only: the Sobol candidate set, the
        public tie-breaks, the public cross-validation folds and the public
        random shortlist. It never seeds the privacy noise, so an int is
        safe in production; two fits with the same ``random_state`` build
        the same candidate set and give *different* noisy releases.
    noise_random_state : None or int, default=None
        **Tests only: makes the noise predictable; never set it in
        production.** ``None`` draws every privacy noise (Laplace and
        selection) from the operating system's CSPRNG
        (:class:`secrets.SystemRandom`). An int seeds a
        :class:`random.Random` for the noise so that tests can reproduce a
        fit bit for bit; whoever knows it can remove the noise, so the fit
        is then not differentially private, and ``fit`` emits a
        :class:`PrivacyLeakWarning` saying so.
    accountant : None or BudgetAccountant, default=None
        Ledger shared across fits. ``None`` gives every fit its own budget
        (``epsilon``, ``delta``); there is no process-wide default. With an
        accountant, ``fit`` checks the whole cost of the fit (the sum of the
        planned releases' ε and δ; ``"private-selection"`` and
        ``"lipschitz"`` spend δ = 0) before touching any data and raises
        :class:`BudgetError` if it does not fit, leaving the ledger
        unchanged. It records the cost once, when the search first reads
        the validation set (before any validation row reaches an estimator
        or the scorer, and before any noise is drawn), and never refunds
        it: a fit that fails or is interrupted after that point, in refit
        included, stays charged. Spends are atomic under threads; ``clone``
        shares the ledger; a pickled copy (a search shipped to worker
        processes, e.g. ``cross_val_score(search, ..., n_jobs=2)``) cannot
        spend, so such a fit fails before reading data: run the outer loop
        with ``n_jobs=1`` or charge it to the accountant yourself.

    Attributes
    ----------
    best_params_ : dict
        Released parameters (DP).
    best_index_ : int
        Index of ``best_params_`` in ``candidate_params_``.
    best_score_ : float
        Released validation score (DP), clipped into the scorer's range.
        Set only when ``release_score=True``.
    best_estimator_ : estimator
        ``estimator`` with ``best_params_`` fitted on the training set. In
        ``"private-selection"`` it is the fit of the selected candidate that
        was scored, pickled before the validation set was read and
        restored (no second fit); the other modes refit.
    refit_time_ : float
        Seconds of that fit on the training set when it was measured before
        the validation set was read (``"private-selection"``'s restored
        fit); NaN after a refit, which runs after the read: no number
        measured after the first private read leaves ``fit``.
    scorer_ : DPScorer
    candidate_params_ : list of dict
        The public candidate set Λ.
    shortlist_ : ndarray of int
        Indices of the shortlisted candidates (``"private-selection"``;
        public: computed from the training set only).
    privacy_report_ : PrivacyReport
        Per released quantity: mechanism, ε, δ, sensitivity, noise scale
        and what the guarantee assumes.
    n_validation_ : int
        Public size m of the validation set.
    lipschitz_constants_ : dict
        ``"lipschitz"`` only: the public constants of Algorithm 3 (λ map,
        n, λmin, λmax, L, g*, both sensitivity terms, whether the cap at g*
        is active).

    best_scores_ : dict
        Several metrics only (with ``release_score=True``): metric name →
        the selected candidate's released validation score (DP), the
        selection metric's being ``best_score_``.
    cv_results_ : dict
        ``"private-selection"`` with ``shortlist="bo"`` only: what the
        public search learned from the *training set*, at no privacy cost,
        in ``GridSearchCV``'s layout: one row per candidate the public BO
        evaluated (first-evaluation order), ``param_<name>`` (masked
        arrays), ``params``, ``split<k>_public_cv_score``,
        ``mean_public_cv_score``, ``std_public_cv_score``,
        ``rank_public_cv_score`` (cross-validation inside the training set
        with ``public_cv``, scored with the selection metric),
        ``candidate_index`` (into
        ``candidate_params_``) and ``shortlisted``. These are not
        validation scores; asking for a ``*_test_*``, ``*_train_*`` or
        timing column raises a KeyError that says so.

    Notes
    -----
    ``fit`` emits a :class:`UselessReleaseWarning`, before reading any
    validation row, when a release's noise scale (public: settings, n and m)
    exceeds the width of the scorer's range.

    Raw validation scores are never published (no ``mean_test_score``):
    every one, and in ``"gp-ucb"`` the sequence of evaluated candidates
    itself, is a function of the validation set that the guarantee does not
    cover. Use ``best_score_`` (private), ``cv_results_`` (public, training
    set), or cross-validate on the public training set yourself. In
    ``"federated-ldp"`` the transcript is made of ε-LDP reports, so its
    ``cv_results_`` holds the noisy reports.

    ``score(X, y)`` scores the user's own data with the selection metric,
    *not* clipped into the private scorer's bounds (it is not a release).

    As a Pipeline step: do not put ``DPBayesSearchCV`` after preprocessing
    steps. With ``X_val`` (``search__X_val``) the validation set would reach
    the search untransformed while ``X`` is transformed; with ``cv`` the
    preceding steps would be fitted on the validation rows, outside the
    guarantee. Both are detected and refused (stateless steps are allowed
    with ``cv``). Put the preprocessing inside the searched estimator::

        DPBayesSearchCV(make_pipeline(StandardScaler(), SVC()),
                        {"svc__C": (1e-2, 1e2, "log-uniform")})

    Metadata routing works as in ``GridSearchCV`` (``set_fit_request`` on
    the estimator, splitter metadata to ``cv``), except that metadata
    requested by the scorer is refused in ``fit``: a weighted private score
    would not keep its per-record sensitivity. See
    ``docs/coming_from_gridsearchcv.md`` for every difference.
    """

    _parameter_constraints: dict = {
        "estimator": [HasMethods(["fit"])],
        # Types are checked by CandidateSet (a TypeError naming the
        # parameter, as scikit-learn's ParameterGrid).
        "search_spaces": "no_validation",
        # A string is the shorthand for the mode's defaults; a mode object's
        # own parameters are validated in fit (SearchMode._validate_in).
        "method": [StrOptions(set(MODES)), SearchMode],
        "epsilon": [Interval(numbers.Real, 0, None, closed="neither")],
        "delta": [Interval(numbers.Real, 0, 1, closed="left")],
        "budget_split": [Interval(numbers.Real, 0, 1, closed="neither")],
        "release_score": ["boolean"],
        "n_iter": [Interval(numbers.Integral, 1, None, closed="left")],
        "n_candidates": [Interval(numbers.Integral, 1, None, closed="left")],
        # Any str or callable passes here so that get_dp_scorer can refuse the
        # ones without a declared range with guidance (make_dp_scorer).
        # Lists, tuples and dicts are several metrics (_scorers_by_name).
        "scoring": [None, str, callable, list, tuple, dict],
        # A str names the selection metric of a multi-metric search; a
        # callable is refused with a reason (_check_refit_param).
        "refit": ["boolean", str, callable],
        "cv": [None, "cv_object"],
        "n_jobs": [numbers.Integral, None],
        "pre_dispatch": [numbers.Integral, str],
        "verbose": ["verbose"],
        "error_score": [StrOptions({"raise"}), numbers.Real],
        "random_state": ["random_state"],
        "noise_random_state": [
            None,
            Interval(numbers.Integral, 0, None, closed="left"),
        ],
        "accountant": [None, BudgetAccountant],
    }

    __signature__ = _InitSignature()

    def __new__(cls, *args, **kwargs):
        # A clear TypeError for GridSearchCV-only keywords; everything else
        # (including Python's own errors) is left to __init__.
        # Mode-specific parameters name the mode object they moved to.
        known = set(inspect.signature(cls.__init__).parameters)
        for name, value in kwargs.items():
            if name in known:
                continue
            reason = _FOREIGN_KWARGS.get(name) or moved_parameter_hint(
                name, value, kwargs.get("method")
            )
            if reason is not None:
                raise TypeError(
                    f"{cls.__name__}.__init__() got an unexpected keyword "
                    f"argument {name!r}: {reason}"
                )
        return super().__new__(cls)

    def set_params(self, **params):
        """Set parameters; ``method__<name>`` sets a mode object's parameter.

        A mode-specific name (``noise=...``) or ``method__<name>`` while
        ``method`` is a string get a ValueError that says what to pass.
        """
        for name, value in params.items():
            hint = moved_parameter_hint(name, value, params.get("method", self.method))
            if hint is not None:
                raise ValueError(
                    f"Invalid parameter {name!r} for estimator "
                    f"{type(self).__name__}: {hint}"
                )
            if name.startswith("method__") and "method" not in params:
                if isinstance(self.method, str):
                    leaf = name[len("method__") :]
                    cls = MODES.get(self.method)
                    example = (
                        f"{cls.__name__}({leaf}={value!r})" if cls else "a mode object"
                    )
                    raise ValueError(
                        f"Invalid parameter {name!r} for estimator "
                        f"{type(self).__name__}: method is the string "
                        f"{self.method!r} (the mode's defaults), which has no "
                        f"parameters to set. Pass set_params(method={example})."
                    )
        return super().set_params(**params)

    cv_results_ = _FittedWithReason()

    def _no_cv_results_reason(self) -> str:
        head = f"{type(self).__name__!r} object has no attribute 'cv_results_': "
        if "best_index_" not in vars(self):
            return head + "the search is not fitted yet."
        return head + (
            "only method='private-selection' with shortlist='bo' has one (the "
            "public cross-validation scores inside the training set). Raw "
            "validation scores are never published, and in method='gp-ucb' "
            "even the sequence of evaluated candidates depends on the "
            "validation set; publishing either would void the guarantee. Use "
            "best_score_ (private), or cross-validate on the public training "
            "set yourself."
        )

    def __init__(
        self,
        estimator,
        search_spaces,
        *,
        method="private-selection",
        epsilon=1.0,
        delta=1e-5,
        budget_split=0.5,
        release_score=True,
        n_iter=30,
        n_candidates=1024,
        scoring=None,
        refit=True,
        cv=None,
        n_jobs=None,
        pre_dispatch="2*n_jobs",
        verbose=0,
        error_score="raise",
        random_state=None,
        noise_random_state=None,
        accountant=None,
    ):
        self.estimator = estimator
        self.search_spaces = search_spaces
        self.method = method
        self.epsilon = epsilon
        self.delta = delta
        self.budget_split = budget_split
        self.release_score = release_score
        self.n_iter = n_iter
        self.n_candidates = n_candidates
        self.scoring = scoring
        self.refit = refit
        self.cv = cv
        self.n_jobs = n_jobs
        self.pre_dispatch = pre_dispatch
        self.verbose = verbose
        self.error_score = error_score
        self.random_state = random_state
        self.noise_random_state = noise_random_state
        self.accountant = accountant

    # ------------------------------------------------------------------
    # scikit-learn plumbing
    # ------------------------------------------------------------------
    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        sub = get_tags(self.estimator)
        tags.estimator_type = sub.estimator_type
        tags.classifier_tags = sub.classifier_tags
        tags.regressor_tags = sub.regressor_tags
        tags.input_tags.pairwise = sub.input_tags.pairwise
        tags.input_tags.sparse = sub.input_tags.sparse
        tags.input_tags.allow_nan = sub.input_tags.allow_nan
        tags.target_tags = replace(sub.target_tags)
        return tags

    @property
    def n_features_in_(self):
        """Number of features seen by ``best_estimator_`` (``refit=True``)."""
        try:
            check_is_fitted(self)
        except NotFittedError as exc:
            raise AttributeError(
                f"{type(self).__name__} object has no n_features_in_ attribute."
            ) from exc
        return self.best_estimator_.n_features_in_

    @property
    def feature_names_in_(self):
        """Feature names seen by ``best_estimator_`` (``refit=True``)."""
        try:
            check_is_fitted(self)
        except NotFittedError as exc:
            raise AttributeError(
                f"{type(self).__name__} object has no feature_names_in_ attribute."
            ) from exc
        return self.best_estimator_.feature_names_in_

    @property
    def classes_(self):
        """Class labels of ``best_estimator_`` (``refit=True``, classifiers)."""
        _search_estimator_has("classes_")(self)
        return self.best_estimator_.classes_

    def _check_fitted_refit(self, attr):
        check_is_fitted(self)
        _check_refit(self, attr)

    @available_if(_search_estimator_has("predict"))
    def predict(self, X):
        """Predict with ``best_estimator_``."""
        self._check_fitted_refit("predict")
        return self.best_estimator_.predict(X)

    @available_if(_search_estimator_has("predict_proba"))
    def predict_proba(self, X):
        """Class probabilities from ``best_estimator_``."""
        self._check_fitted_refit("predict_proba")
        return self.best_estimator_.predict_proba(X)

    @available_if(_search_estimator_has("predict_log_proba"))
    def predict_log_proba(self, X):
        """Log class probabilities from ``best_estimator_``."""
        self._check_fitted_refit("predict_log_proba")
        return self.best_estimator_.predict_log_proba(X)

    @available_if(_search_estimator_has("decision_function"))
    def decision_function(self, X):
        """Decision function of ``best_estimator_``."""
        self._check_fitted_refit("decision_function")
        return self.best_estimator_.decision_function(X)

    @available_if(_search_estimator_has("transform"))
    def transform(self, X):
        """Transform with ``best_estimator_``."""
        self._check_fitted_refit("transform")
        return self.best_estimator_.transform(X)

    @available_if(_search_estimator_has("inverse_transform"))
    def inverse_transform(self, X):
        """Inverse transform with ``best_estimator_``."""
        self._check_fitted_refit("inverse_transform")
        return self.best_estimator_.inverse_transform(X)

    @available_if(_search_estimator_has("score_samples"))
    def score_samples(self, X):
        """``best_estimator_.score_samples``."""
        self._check_fitted_refit("score_samples")
        return self.best_estimator_.score_samples(X)

    def score(self, X, y=None, **params):
        """Score ``best_estimator_`` on (X, y) with the selection metric.

        This is the user's own data, not a release: it is not private, so
        the metric is *not* clipped into the private scorer's bounds (a true
        R² of −0.3 is returned as −0.3). ``**params`` are refused: a
        :class:`DPScorer` requests no metadata (its per-record function sees
        only ``y_true`` and the model's output), so without metadata routing
        they raise a ``ValueError`` and with it scikit-learn's ``TypeError``
        (not routed to any object).
        """
        self._check_fitted_refit("score")
        scorer = self.scorer_
        if params:
            if not _routing_enabled():
                raise ValueError(
                    f"Passing extra keyword arguments to {type(self).__name__}."
                    "score is only supported if enable_metadata_routing=True, "
                    "which you can set using `sklearn.set_config`. See the "
                    "Metadata Routing User guide "
                    "<https://scikit-learn.org/stable/metadata_routing.html> "
                    f"for more details. Extra parameters passed are: "
                    f"{set(params)}"
                )
            params = process_routing(self, "score", **params).scorer.score
        return _public_score(scorer, self.best_estimator_, X, y, **params)

    # ------------------------------------------------------------------
    # Metadata routing and the HTML repr (as BaseSearchCV)
    # ------------------------------------------------------------------
    def get_metadata_routing(self):
        """Metadata routing of this object, as ``GridSearchCV``'s.

        Fit metadata requested by ``estimator`` (``set_fit_request``) goes
        to its ``fit`` (sample-aligned values restricted to the training
        rows), splitter metadata to ``cv.split``. Scorer metadata is
        refused in ``fit``: a weighted private score would not keep the
        per-record sensitivity (one record with a large weight could move
        it arbitrarily); ``score`` accepts it (public data).

        Returns
        -------
        routing : MetadataRouter
        """
        router = MetadataRouter(owner=self)
        router.add(
            estimator=self.estimator,
            method_mapping=MethodMapping().add(caller="fit", callee="fit"),
        )
        router.add(
            scorer=_routing_object(self._metadata_scorer()),
            method_mapping=MethodMapping()
            .add(caller="score", callee="score")
            .add(caller="fit", callee="score"),
        )
        router.add(
            splitter=self.cv,
            method_mapping=MethodMapping().add(caller="fit", callee="split"),
        )
        return router

    def _metadata_scorer(self):
        """The selection metric's scorer, or None if ``scoring`` is invalid."""
        if hasattr(self, "scorer_"):
            return self.scorer_
        try:
            return self._scorers_by_name()[0]
        except (TypeError, ValueError):
            return None

    def _sk_visual_block_(self):
        if hasattr(self, "best_estimator_"):
            key, estimator = "best_estimator_", self.best_estimator_
        else:
            key, estimator = "estimator", self.estimator
        return _VisualBlock(
            "parallel",
            [estimator],
            names=[f"{key}: {estimator.__class__.__name__}"],
            name_details=[str(estimator)],
        )

    # ------------------------------------------------------------------
    # Checks done before any data is touched
    # ------------------------------------------------------------------
    def _check_settings(self) -> SearchPlan:
        """Validate everything that does not need data; return the plan."""
        self._validate_params()
        mode = resolve_mode(self.method)
        if MODES.get(mode.method) is not type(mode):
            raise ValueError(
                f"method={self.method!r} is not one of the library's modes: "
                f"pass one of {sorted(MODES)} or an instance of "
                f"{', '.join(cls.__name__ for cls in MODES.values())}."
            )
        # The mode's own parameters, named method__<name> in the messages.
        mode._validate_in(type(self).__name__)
        self._check_refit_param()
        for name in ("n_iter", "n_candidates"):
            if isinstance(getattr(self, name), (bool, np.bool_)):
                raise ValueError(
                    f"{name} must be a positive int, not a bool; got "
                    f"{name}={getattr(self, name)!r}. Pass e.g. {name}=30."
                )
        # Re-checked by hand: cannot be switched off by set_config.
        epsilon = check_epsilon(self.epsilon)
        delta = check_delta(self.delta)
        if mode.method == "gp-ucb":
            if delta <= 0:
                raise ValueError(
                    "method='gp-ucb' gives (epsilon, delta)-DP and needs delta > 0 "
                    "(Algorithm 1's beta_t and c depend on it); pass e.g. "
                    "delta=1e-5, or use method='private-selection' for pure "
                    "epsilon-DP."
                )
            if (
                mode.batch_size is not None
                and mode.batch_size > 1
                and self.release_score
            ):
                raise ValueError(
                    "method='gp-ucb' with batch_size > 1 is allowed only with "
                    "release_score=False: the score release (Theorem 3) rests on "
                    "the regret bound of sequential GP-UCB. Use "
                    "DPGPUCB(batch_size=1), or method='private-selection', which "
                    "parallelises freely."
                )
            if mode.noise == 0 and self.release_score:
                if mode.noise_free_constants is None:
                    raise ValueError(
                        "noise=0 selects Algorithm 2, whose score release needs "
                        "the constants (A, tau) of de Freitas et al. (2012): pass "
                        "DPGPUCB(noise=0, noise_free_constants=(A, tau)), or "
                        "release_score=False, or a positive noise (Algorithm 1)."
                    )
                _check_noise_free_constants(mode.noise_free_constants)

        self._check_release_budgets(epsilon, delta, mode)
        scorer, _ = self._scorers_by_name()
        low, high = scorer.bounds
        score_offset = getattr(mode, "score_offset", None)
        score_scale = getattr(mode, "score_scale", None)
        offset = (low + high) / 2 if score_offset is None else score_offset
        scale = (high - low) / 4 if score_scale is None else score_scale
        if not math.isfinite(float(offset)):
            raise ValueError("score_offset must be finite.")
        if mode.method == "gp-ucb":
            _check_gp_units(float(offset), float(scale), low, high, score_scale)

        seed = public_rng(self.random_state).integers(2**31 - 1)
        candidates = CandidateSet(self.search_spaces, self.n_candidates, int(seed))
        self._check_parameter_names(candidates)
        if mode.method == "lipschitz":
            # Assumption 2: estimator, Normalizer, score, search space.
            check_assumption_2(self.estimator, candidates, scorer)
        self._check_cv_structure()
        return SearchPlan(
            epsilon=epsilon,
            delta=delta,
            scorer=scorer,
            offset=float(offset),
            scale=float(scale),
            candidates=candidates,
            seed=int(seed),
            tie_break=public_rng(self.random_state).permutation(len(candidates)),
            mode=mode,
        )

    def _check_release_budgets(self, epsilon: float, delta: float, mode) -> None:
        """Every per-release (ε, δ) passes the mechanisms' floors, before data.

        The releases' ε are ``budget_split`` · ε and the rest; each must be
        an ε the mechanisms accept (:func:`check_epsilon`), and in
        ``"gp-ucb"`` each release's δ must be > 0 (β_t, c and q are
        logarithms of 1/δ). Checked here so that a refusal happens before
        any data is read and before anything is charged.
        """
        pure = mode.method in _PURE_EPSILON_MODES
        parts = split_budget(
            epsilon, 0.0 if pure else delta, self.budget_split, self.release_score
        )
        for quantity, part in zip(("best_params_", "best_score_"), parts):
            if part is None:
                continue
            eps_r, delta_r = part
            try:
                check_epsilon(eps_r, name=f"the epsilon of {quantity}")
            except ValueError as exc:
                raise ValueError(
                    f"epsilon={epsilon!r} with budget_split={self.budget_split!r} "
                    f"leaves {quantity} an epsilon of {eps_r!r}, below the "
                    f"smallest per-release epsilon the mechanisms accept "
                    f"({MIN_EPSILON:g}): such an epsilon vanishes in "
                    "floating-point sums. Use a budget_split nearer 0.5 or a "
                    "larger epsilon (or release_score=False to spend everything "
                    "on best_params_)."
                ) from exc
            if mode.method == "gp-ucb" and not delta_r > 0:
                raise ValueError(
                    f"delta={delta!r} with budget_split={self.budget_split!r} "
                    f"leaves {quantity} a delta of {delta_r!r}; method='gp-ucb' "
                    "needs delta > 0 for each release (beta_t, c and q are "
                    "logarithms of 1/delta). Use a budget_split nearer 0.5 or a "
                    "larger delta."
                )

    def _mode_name(self):
        """The mode's string name (``"gp-ucb"`` for ``DPGPUCB(...)``)."""
        return getattr(self.method, "method", self.method)

    def _check_refit_param(self) -> None:
        if callable(self.refit):
            raise ValueError(
                "refit as a callable is not supported: in GridSearchCV it picks "
                "best_index_ from cv_results_, i.e. from raw validation scores, "
                "which are never published here; best_params_ is selected by a "
                "differentially private mechanism instead. Pass refit=True (or "
                "refit='<metric name>' with several metrics) and post-process "
                "best_params_ if needed."
            )

    def _scorers_by_name(self) -> tuple[DPScorer, dict]:
        """(selection metric's scorer, {name: scorer} of the other metrics).

        ``scoring`` as a list/tuple of names or a dict ``{name: scoring}``
        is several metrics: ``refit="<name>"`` names the one the private
        selection maximises; each other metric of the selected candidate is
        released with its own Laplace noise (:meth:`_release_other_metrics`).
        """
        scoring = self.scoring
        if not isinstance(scoring, (list, tuple, dict)):
            scorer = get_dp_scorer(scoring, self.estimator)
            if isinstance(self.refit, str) and self.refit != scorer.name:
                raise ValueError(
                    f"refit={self.refit!r} names a metric, but scoring is the "
                    f"single metric {scorer.name!r}: use refit=True, or give "
                    "several metrics as scoring={name: scoring, ...} and name "
                    "the selection metric with refit."
                )
            return scorer, {}
        if isinstance(scoring, dict):
            items = list(scoring.items())
        else:
            items = [(name, name) for name in scoring]
            if not all(isinstance(name, str) for name, _ in items):
                raise ValueError(
                    "scoring as a list or tuple must hold metric names (str); "
                    f"got {scoring!r}. Use a dict {{name: DPScorer}} for "
                    "custom scorers."
                )
            if len(set(scoring)) != len(scoring):
                raise ValueError(f"scoring has duplicate metric names: {scoring!r}.")
        if not items or not all(isinstance(name, str) for name, _ in items):
            raise ValueError(
                "scoring as a dict must map metric names (str) to scorers and be "
                f"non-empty; got {scoring!r}."
            )
        if not (isinstance(self.refit, str) and self.refit in dict(items)):
            raise ValueError(
                "For multi-metric scoring, the parameter refit must be set to a "
                f"scorer key: one of {sorted(dict(items))}. It names the metric the "
                "private selection maximises (there is always a selection: "
                "best_params_ is released whatever refit is); the other metrics "
                f"of the selected candidate are released with their own noise. "
                f"{self.refit!r} was passed."
            )
        scorers = {name: get_dp_scorer(spec, self.estimator) for name, spec in items}
        if self._mode_name() != "private-selection":
            raise ValueError(
                f"Several metrics are supported with method='private-selection' "
                f"only; method={self._mode_name()!r} rests on an assumption about one "
                "score (Assumption 1 or 2 of Kusner et al. 2015). Pass one "
                "metric as scoring."
            )
        main = scorers.pop(self.refit)
        return main, scorers

    def _check_parameter_names(self, candidates) -> None:
        """Every candidate must be settable on the estimator, as in GridSearchCV.

        ``clone(estimator).set_params(**candidate)`` is tried once per dict
        and per distinct choice of estimator-valued parameters, so that in
        ``{"clf": [LinearSVC(), SVC()], "clf__C": [...]}`` the names are
        checked with each searched step substituted (``set_params`` sets
        the step first). A name scikit-learn would refuse at fit time is
        refused here, before any data is read.
        """
        seen = set()
        for space, params in zip(candidates.space_of, candidates.params):
            key = (int(space),) + tuple(
                (k, id(v))
                for k, v in sorted(params.items())
                if hasattr(v, "get_params")
            )
            if key in seen:
                continue
            seen.add(key)
            try:
                clone(self.estimator).set_params(**clone(params, safe=False))
            except ValueError as exc:
                named = re.search(r"Invalid parameter '([^']+)'", str(exc))
                leaf = named.group(1) if named else None
                bad = [k for k in params if k.rsplit("__", 1)[-1] == leaf]
                raise ValueError(
                    f"search_spaces names parameters {bad or sorted(params)} that "
                    f"{type(self.estimator).__name__} does not have: {exc} Valid "
                    "names are listed by estimator.get_params().keys() (use "
                    "step__param inside a Pipeline; a step searched in the same "
                    "dict, as in {'clf': [SVC()], 'clf__C': [...]}, is set first)."
                ) from None

    def _check_cv_structure(self):
        cv = self.cv
        if cv is None:
            return
        if isinstance(cv, numbers.Integral):
            raise ValueError(
                f"cv={cv!r}: DPBayesSearchCV needs exactly one (train, validation) "
                "split, not k folds: every fold would be a separate release of "
                "validation data. Pass X_val and y_val to fit, or "
                "cv=PredefinedSplit(test_fold) with one fold, or "
                "cv=[(train_idx, val_idx)]."
            )
        if hasattr(cv, "get_n_splits") and not isinstance(cv, PredefinedSplit):
            try:
                n = cv.get_n_splits()
            except (TypeError, ValueError):
                # Needs the data (e.g. LeaveOneOut): refused by class below.
                n = 1
            if n != 1:
                raise ValueError(
                    f"cv gives {n} splits; DPBayesSearchCV needs exactly one "
                    "(train, validation) split (each extra fold would be another "
                    "release of validation data). Use e.g. ShuffleSplit("
                    "n_splits=1), PredefinedSplit with one fold, or "
                    "[(train_idx, val_idx)]."
                )
        check_public_splitter(cv)

    # ------------------------------------------------------------------
    # Data
    # ------------------------------------------------------------------
    def _split(self, X, y, X_val, y_val, groups=None, split_params=None):
        """Return (X_train, y_train, X_val, y_val) and check their shapes.

        With a precomputed kernel or distance matrix (``pairwise`` tag) and
        ``cv``, the training block is X[train][:, train] and the validation
        block X[val][:, train]; with ``X_val`` the user passes the
        validation-vs-training matrix themselves.
        """
        if X_val is not None or y_val is not None:
            if groups is not None:
                raise ValueError(
                    "groups is used only by cv's splitter to split X into training "
                    "and validation rows; with X_val/y_val there is nothing to "
                    "split. Drop groups, or pass cv=GroupShuffleSplit(n_splits=1) "
                    "and the whole data as X, y."
                )
            if self.cv is not None:
                raise ValueError(
                    "Pass either X_val/y_val to fit or cv, not both: both define "
                    "the validation set."
                )
            if X_val is None or (y is not None and y_val is None):
                raise ValueError("Pass both X_val and y_val (or neither).")
            X, y = indexable(X, y)
            X_val, y_val = indexable(X_val, y_val)
            if get_tags(self.estimator).input_tags.pairwise:
                self._check_pairwise_val(X, X_val)
            elif hasattr(X, "shape") and hasattr(X_val, "shape"):
                if len(X.shape) > 1 and X.shape[1:] != X_val.shape[1:]:
                    raise ValueError(
                        f"X has {X.shape[1:]} features per row but X_val has "
                        f"{X_val.shape[1:]}; they must match."
                    )
            return X, y, X_val, y_val, None
        if self.cv is None:
            raise ValueError(
                "DPBayesSearchCV needs a validation set: call fit(X_train, "
                "y_train, X_val=..., y_val=...), or set cv to exactly one "
                "(train, validation) split (PredefinedSplit, [(train_idx, "
                "val_idx)] or ShuffleSplit(n_splits=1))."
            )
        X, y = indexable(X, y)
        split_params = dict(split_params or {})
        if groups is not None:
            split_params["groups"] = groups
        splits = public_split(self.cv, _num_rows(X), split_params.get("groups"))
        if not splits:
            raise ValueError(
                "No fits were performed. Was the CV iterator empty? Were there no "
                "candidates? cv gave no (train, validation) split; it needs "
                "exactly one (a one-shot iterator can be used once only: pass a "
                "list [(train_idx, val_idx)])."
            )
        if len(splits) != 1:
            raise ValueError(
                f"cv gives {len(splits)} splits; DPBayesSearchCV needs exactly one "
                "(train, validation) split. Pass X_val and y_val to fit, or use "
                "e.g. ShuffleSplit(n_splits=1), PredefinedSplit with one fold, or "
                "[(train_idx, val_idx)]."
            )
        train, val = (np.asarray(a) for a in splits[0])
        if len(val) == 0 or len(train) == 0:
            raise ValueError("The cv split has an empty training or validation part.")
        X_tr, y_tr = _safe_split(self.estimator, X, y, train)
        X_va, y_va = _safe_split(self.estimator, X, y, val, train)
        return X_tr, y_tr, X_va, y_va, train

    @staticmethod
    def _check_pairwise_val(X, X_val):
        n_train = _num_rows(X)
        shape_X, shape_val = getattr(X, "shape", None), getattr(X_val, "shape", None)
        if shape_X is not None and len(shape_X) == 2 and shape_X[1] != n_train:
            raise ValueError(
                "Precomputed matrix must be a square matrix: X is the "
                f"training-vs-training kernel (or distances), got shape {shape_X}."
            )
        if shape_val is not None and len(shape_val) == 2 and shape_val[1] != n_train:
            raise ValueError(
                "With a precomputed kernel (or distance matrix), X_val is the "
                "validation-vs-training matrix of shape (n_validation, "
                f"n_train={n_train}); got shape {shape_val}."
            )

    # ------------------------------------------------------------------
    # fit
    # ------------------------------------------------------------------
    def fit(
        self,
        X,
        y=None,
        *,
        X_val=None,
        y_val=None,
        groups=None,
        val_groups=None,
        **fit_params,
    ):
        """Run the private search and set the released attributes.

        Parameters
        ----------
        X, y : array-like
            The public training set (or the whole data when ``cv`` gives the
            split).
        X_val, y_val : array-like, optional
            The sensitive validation set.
        groups : array-like of shape (n_samples,), optional
            Public group labels of the rows of ``X``, passed to ``cv``'s
            splitter only (e.g. ``GroupShuffleSplit(n_splits=1)``), never to
            the estimator. They decide which rows are validation rows, so
            they must not depend on the validation records.
        val_groups : array-like of shape (n_validation,), optional
            Public owner id of every validation record; required by (and
            only accepted with) ``method="federated-ldp"``, with ``X_val``.
            The estimator remembers the owners it asked: a later ``fit``
            that would ask one of them again raises before asking anyone,
            unless ``accountant`` is the ledger that recorded every earlier
            ask of them (it is then charged ε again; such an owner has lost
            the sum). ``clone`` gives a new estimator that remembers
            nothing (see ``docs/threat_model.md``).
        **fit_params : dict
            Passed to ``estimator.fit`` (sample-aligned ones are restricted to
            the rows being fitted).

        Returns
        -------
        self : object
        """
        self._clear_fitted()
        plan = self._check_settings()
        _, other_scorers = self._scorers_by_name()
        plan = self._plan_for_metrics(plan, other_scorers)
        cost = self._planned_cost(plan, n_other_metrics=len(other_scorers))
        self._check_pipeline_step(X_val, y_val)
        fit_params, split_params = self._route_fit_params(fit_params)
        if self.accountant is not None:
            # Before any data is touched; a refusal changes nothing.
            self.accountant.check(*cost)
        if self.noise_random_state is not None:
            warnings.warn(
                "noise_random_state is set: the privacy noise of this fit is "
                "reproducible and whoever knows the seed can remove it, so the "
                "releases are NOT differentially private. Use it in tests only; "
                "leave noise_random_state=None in production.",
                PrivacyLeakWarning,
                stacklevel=2,
            )
        if y is None and get_tags(self.estimator).target_tags.required:
            raise ValueError(
                f"{type(self.estimator).__name__} requires y to be passed, but "
                "the target y is None. Pass the training targets as y (and the "
                "validation targets as y_val)."
            )
        federated = plan.mode.method == "federated-ldp"
        if (val_groups is not None or federated) and (
            val_groups is None or X_val is None or not federated
        ):
            raise ValueError(
                "val_groups (public owner ids of the validation records) goes "
                "with method='federated-ldp' and X_val/y_val, and that method "
                "needs it: fit(X, y, X_val=..., y_val=..., val_groups=ids)."
            )
        X_tr, y_tr, X_va, y_va, train_idx = self._split(
            X, y, X_val, y_val, groups, split_params
        )
        n_train = _num_rows(X_tr)
        if train_idx is not None:
            fit_params = index_fit_params(fit_params, train_idx, _num_rows(X))
        m = _num_rows(X_va)
        if m < 1 or n_train < 1:
            raise ValueError("The training and validation sets must be non-empty.")
        warn_useless_releases(self, plan, n_train, m)  # public: settings, n, m
        progress = ProgressPrinter(self.verbose, cost)
        progress.plan(
            f"{len(plan.candidates)} candidates, method={plan.mode.method!r}; budget "
            f"epsilon={cost[0]:g}, delta={cost[1]:g}"
        )
        charged = []

        def charge():
            # Fail-closed point: the first read of the validation set by the
            # mode, before any validation row reaches an estimator or the
            # scorer and before any noise is drawn. Spent once, never refunded.
            # From here on the printer prints no figure (and no line until
            # the end): nothing measured after the read leaves fit.
            progress.seal()
            if self.accountant is not None:
                self.accountant.spend(
                    *cost, label=f"{type(self).__name__}(method={plan.mode.method!r})"
                )
            charged.append(cost)

        data = SearchData(
            X_tr,
            y_tr,
            X_va,
            y_va,
            fit_params,
            on_private_read=charge,
            groups=val_groups,
        )
        # The public schema every validation record is mapped into, and the
        # validation inputs' columns checked against it: before the read.
        data.prepare((plan.scorer, *other_scorers.values()), self.estimator)
        run = _MODES[plan.mode.method]
        with Parallel(n_jobs=self.n_jobs, pre_dispatch=self.pre_dispatch) as parallel:
            ctx = SearchContext(
                search=self,
                plan=plan,
                data=data,
                parallel=parallel,
                rng=check_privacy_rng(self.noise_random_state),
                progress=progress,
            )
            releases, index, extra = _run_sealed(
                lambda c: self._run_mode(run, c, other_scorers), ctx, charged
            )
        self._check_charge(releases, charged)
        selected_fit = extra.pop(FITTED_KEY, None)
        try:
            self._ingest(releases, index, plan, m, extra)
            self._ingest_other_metrics(releases, other_scorers)
            if self.refit and selected_fit is not None:
                # The selected candidate was fitted on the training set before
                # the validation read (private-selection): restore that fit.
                snapshot, self.refit_time_ = selected_fit
                self.best_estimator_ = pickle.loads(snapshot)
            elif self.refit:
                # No number measured after the validation read leaves fit
                # (issue 19): this refit's duration is not kept.
                est = clone(self.estimator).set_params(
                    **clone(self.best_params_, safe=False)
                )
                if y_tr is None:
                    est.fit(X_tr, **fit_params)
                else:
                    est.fit(X_tr, y_tr, **fit_params)
                self.best_estimator_ = est
                self.refit_time_ = float("nan")
        except BaseException:
            # A failed or interrupted fit leaves no fitted attribute (the
            # budget stays spent: the releases were drawn).
            self._clear_fitted()
            raise
        progress.done()
        return self

    # ------------------------------------------------------------------
    # fit helpers: routing, Pipeline pitfalls, several metrics
    # ------------------------------------------------------------------
    def _route_fit_params(self, params: dict) -> tuple[dict, dict]:
        """(estimator ``fit`` params, splitter params), as GridSearchCV routes.

        Without metadata routing every fit parameter goes to
        ``estimator.fit`` (never to the scorer). With routing, requested
        metadata goes where it is requested; metadata requested by the
        scorer is refused (the private score is an unweighted mean of
        per-record values, which is what bounds its sensitivity).
        """
        if not _routing_enabled():
            return params, {}
        requester = _routing_object(self._metadata_scorer())
        asked = set()
        if requester is not None:
            asked = get_routing_for_object(requester).consumes("score", set(params))
        if asked:
            raise ValueError(
                f"Metadata {sorted(asked)} is requested by the "
                "scorer, but a private validation score cannot take it: "
                "weighting validation records would break the per-record "
                "sensitivity (one record with a large weight could move the "
                "score arbitrarily), and the noise is calibrated to the "
                "unweighted mean. Remove the scorer's request (e.g. "
                "set_score_request(sample_weight=False)); weights may still go "
                "to the estimator's fit (set_fit_request) and to score() on "
                "your own public data."
            )
        routed = process_routing(self, "fit", **params)
        return dict(routed.estimator.fit), dict(routed.splitter.split)

    def _check_pipeline_step(self, X_val, y_val) -> None:
        """Refuse the two Pipeline-step pitfalls that can be detected.

        When the search is the last step of a Pipeline (detected from the
        caller's frame: Pipeline.fit calls the last step's fit), ``X`` has
        gone through the preceding steps but ``X_val`` (``search__X_val``)
        has not; and with ``cv`` the preceding steps were fitted on every
        row, validation rows included, outside the guarantee.
        """
        pipe = _calling_pipeline(self)
        if pipe is None:
            return
        before = [est for _, est in pipe.steps[:-1] if est not in (None, "passthrough")]
        pattern = (
            "Put the preprocessing inside the searched estimator instead: "
            "DPBayesSearchCV(make_pipeline(<preprocessing>, <model>), "
            "{'<model>__C': [...]}).fit(X_train, y_train, X_val=X_val, "
            "y_val=y_val)."
        )
        if before and (X_val is not None or y_val is not None):
            raise ValueError(
                f"{type(self).__name__} is the last step of a Pipeline and "
                "received X_val: X reached it through the preceding steps but "
                "X_val did not, so every validation score would be computed on "
                f"untransformed data. {pattern}"
            )
        fitted = [est for est in before if get_tags(est).requires_fit]
        if fitted:
            raise ValueError(
                f"{type(self).__name__} is the last step of a Pipeline with cv: "
                f"the preceding steps ({', '.join(type(e).__name__ for e in fitted)}"
                ") were fitted on every row, the validation rows included, so "
                "their fitted state depends on the private rows without any "
                f"noise (outside the guarantee). {pattern}"
            )

    def _plan_for_metrics(self, plan, other_scorers: dict):
        """The plan with the ε share the mode gets when several metrics are released.

        With k metrics and b = ``budget_split``, every score release gets
        the same ε as ``best_score_``: ε = E·b + k·E·(1 − b), so the mode
        runs with E = ε / (b + k(1 − b)) (selection E·b, ``best_score_``
        E·(1 − b)) and each other metric gets E·(1 − b).
        """
        # error_score governs public fits only (a candidate whose fit fails is
        # never scored on the validation set), so it need not lie in any
        # metric's range: np.nan is allowed, as with one metric.
        if not other_scorers or not self.release_score:
            return plan
        plan = replace(plan, other_scorers=tuple(other_scorers.values()))
        k, b = 1 + len(other_scorers), self.budget_split
        share = plan.epsilon / (b + k * (1.0 - b))
        # Round down until the planned total does not exceed the budget.
        while self._planned_cost(replace(plan, epsilon=share), k - 1)[0] > plan.epsilon:
            share = math.nextafter(share, 0.0)
        return replace(plan, epsilon=share)

    def _release_other_metrics(
        self, ctx, index: int, other_scorers: dict, snapshot=None
    ) -> list:
        """Laplace releases of the selected candidate's other metrics.

        Each metric k: its validation score at the released candidate (a
        post-processing of the ε₁-DP selection), plus Lap(Δ_k/ε_k), Δ_k its
        per-record sensitivity, ε_k the same share as ``best_score_``. Pure
        ε-DP each; the accountant was charged for all of them in advance.
        The model scored is the selected candidate's pre-read fit
        (``snapshot``, a fresh copy) when the mode kept one, else a fit on
        the training set. Each metric's public-rows check already passed
        before the validation read (``plan.other_scorers``).
        """
        if not other_scorers or not self.release_score:
            return []
        data, plan = ctx.data, ctx.plan
        _, (eps_score, _) = split_budget(plan.epsilon, 0.0, self.budget_split, True)
        # The released candidate is public: its fit on the training set.
        if snapshot is not None:
            fitted = pickle.loads(snapshot[0])
        else:
            fitted, _ = fit_on_training(ctx, index, error_score="raise")
        releases = []
        for name, scorer in other_scorers.items():
            if snapshot is None:
                # A refit: checked here. A snapshot's fit passed this very
                # check before the validation read (prepare_private_scoring).
                scorer.check_public_rows(
                    fitted, data.X_train, data.y_train, random_state=plan.seed
                )
            value = score_private(fitted, data.records(scorer, self.estimator), scorer)
            release = release_best_score_selection(
                float(value),
                epsilon=eps_score,
                sensitivity=scorer.sensitivity_for(data.n_validation),
                bounds=scorer.bounds,
                rng=ctx.rng,
            )
            releases.append(
                replace(
                    release,
                    quantity=f"best_scores_[{name!r}]",
                    mechanism=f"Laplace on the selected candidate's {name}",
                )
            )
        return releases

    def _ingest_other_metrics(self, releases: list, other_scorers: dict) -> None:
        if not other_scorers or not self.release_score:
            return
        by_quantity = {r.quantity: float(r.value) for r in releases}
        self.best_scores_ = {self.refit: self.best_score_}
        for name in other_scorers:
            self.best_scores_[name] = by_quantity[f"best_scores_[{name!r}]"]

    def _run_mode(self, run, ctx, other_scorers):
        """The mode's releases, then those of the other metrics (if any)."""
        releases, index, extra = run(ctx)
        releases = releases + self._release_other_metrics(
            ctx, index, other_scorers, extra.get(FITTED_KEY)
        )
        return releases, index, extra

    def _clear_fitted(self):
        for attr in [
            a for a in vars(self) if a.endswith("_") and not a.startswith("_")
        ]:
            delattr(self, attr)

    def _planned_cost(self, plan, n_other_metrics: int = 0) -> tuple[float, float]:
        """(ε, δ) of the whole fit, from public settings only (basic composition).

        The sum of the planned releases' costs, split exactly as the modes
        split them (:func:`split_budget`), so it equals
        ``privacy_report_.epsilon`` / ``.delta`` bit for bit.
        """
        delta = 0.0 if plan.mode.method in _PURE_EPSILON_MODES else plan.delta
        parts = [
            p
            for p in split_budget(
                plan.epsilon, delta, self.budget_split, self.release_score
            )
            if p is not None
        ]
        if self.release_score:
            parts += [parts[-1]] * n_other_metrics  # one per other metric
        return math.fsum(e for e, _ in parts), math.fsum(d for _, d in parts)

    def _check_charge(self, releases: list[Release], charged: list) -> None:
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

    def _ingest(self, releases: list[Release], index: int, plan, m, extra):
        """Populate fitted attributes from the releases only."""
        candidates = plan.candidates
        self.candidate_params_ = [dict(p) for p in candidates.params]
        self.best_index_ = int(index)
        self.best_params_ = dict(candidates.params[self.best_index_])
        for r in releases:
            if r.quantity == "best_score_":
                self.best_score_ = float(r.value)
        self.scorer_ = plan.scorer
        self.n_validation_ = int(m)
        self.privacy_report_ = PrivacyReport(releases, plan.mode.method)
        for key, value in extra.items():
            setattr(self, key, value)


class PrivateComputationError(RuntimeError):
    """A failure after the validation set was read; its details are withheld."""


def _run_sealed(run, ctx, charged: list):
    """Run a mode; after the first validation read, let no private value out.

    Before the validation set is read every exception is public and
    propagates unchanged (e.g. a failing public fit with
    ``error_score="raise"``). After it, an exception's message, its
    ``__context__`` and the frames of its traceback could hold raw
    validation scores or the private evaluated sequence (debuggers, error
    trackers and ``pytest --showlocals`` record frame locals). Such an
    exception is therefore replaced, outside the ``except`` block, by a new
    one of a public type with a fixed message, whose traceback starts here:
    ``KeyboardInterrupt`` and ``SystemExit`` keep their type, ``MemoryError``
    too, anything else becomes :class:`PrivateComputationError`. Validation
    records cannot cause any of these: failing records are isolated by the
    scorer, so what remains is an interruption or a library bug.
    """
    failure = None
    try:
        return run(ctx)
    except BaseException as exc:
        if not charged:
            raise
        failure = type(exc)
        del exc  # drop the frames before anything else happens
    finally:
        ctx.rng = ctx.data = None  # nothing private outlives the run
    for public_type in (KeyboardInterrupt, SystemExit, MemoryError):
        if issubclass(failure, public_type):
            raise public_type(
                f"{public_type.__name__} while the search used the validation "
                "set; the budget of this fit is spent and nothing was released."
            ) from None
    raise PrivateComputationError(
        "The search failed after reading the validation set. The failure's "
        "details are withheld because they could describe validation data; "
        "the budget of this fit is spent and nothing was released. Reproduce "
        "the search on public data (e.g. a split of the training set as "
        "X_val) to see the error."
    ) from None


def _check_gp_units(offset: float, scale: float, low, high, score_scale) -> None:
    """Refuse GP units that inflate gp-ucb's privacy loss (before data).

    The sensitivities of ``"gp-ucb"`` (Δ_μ, the score noise b) are fixed
    in GP units z = (score − offset)/scale. A scale below the default
    (high − low)/4 multiplies every score difference in GP units, hence
    the privacy loss, by default/scale. The GP's prior mean is 0, so
    candidates it has not evaluated sit at μ = 0 whatever the scores:
    an offset far from the scores separates evaluated from unevaluated
    candidates in μ_T by far more than Δ_μ, and the evaluated sequence
    is private. Policy: the scorer's whole range must map into
    [−2, 2], two prior standard deviations, as it does with the defaults
    (midpoint and a quarter of the width).
    """
    width = float(high) - float(low)
    default = width / 4
    if scale < default * (1 - 1e-12):
        raise ValueError(
            f"score_scale={score_scale!r} is below the scorer-range "
            f"default (high - low)/4 = {default:g}. In method='gp-ucb' the "
            "sensitivities are fixed in GP units (score - score_offset)/"
            "score_scale, so a smaller scale multiplies every score "
            f"difference, and the privacy loss, by {default:g}/score_scale. "
            f"Leave score_scale=None or pass a value >= {default:g}."
        )
    z_low, z_high = (low - offset) / scale, (high - offset) / scale
    if max(-z_low, z_high) > 2 * (1 + 1e-12):
        raise ValueError(
            f"score_offset={offset:g} with score_scale={scale:g} maps the "
            f"scorer's range [{low:g}, {high:g}] to [{z_low:.3g}, {z_high:.3g}] "
            "in GP units; method='gp-ucb' needs it inside [-2, 2] (two "
            "prior standard deviations, as the defaults give). The GP's "
            "prior mean is 0, so an offset far from the scores separates "
            "the candidates the private search evaluated from the others by "
            "more than the sensitivity Delta_mu. Leave score_offset=None "
            f"(the midpoint {(low + high) / 2:g}) or keep it within "
            "2 * score_scale of both ends of the range."
        )


def _check_noise_free_constants(consts) -> None:
    ok = (
        isinstance(consts, tuple)
        and len(consts) == 2
        and all(
            isinstance(c, numbers.Real)
            and not isinstance(c, bool)
            and math.isfinite(c)
            and c > 0
            for c in consts
        )
    )
    if not ok:
        raise ValueError(
            "noise_free_constants must be a tuple (A, tau) of two finite "
            f"positive numbers; got {consts!r}."
        )


def _num_rows(X) -> int:
    return int(_num_samples(X))


def _public_score(scorer, estimator, X, y, **params) -> float:
    """The metric on the user's own (public) data, not clipped.

    :meth:`DPScorer.metric` (the plain mean of per-record values); a
    scikit-learn scorer (e.g. one carrying metadata requests) as it is.
    """
    metric = getattr(scorer, "metric", None)
    if callable(metric) and not params:
        return float(metric(estimator, X, y))
    return float(scorer(estimator, X, y, **params))


def _routing_object(scorer):
    """What carries the scorer's metadata requests, if anything does.

    A :class:`DPScorer` requests no metadata itself; but its
    ``record_score`` can be an object with metadata requests (a scikit-learn
    scorer with ``set_score_request``), whose requests must be seen so that
    :meth:`DPBayesSearchCV._route_fit_params` refuses them with the reason.
    """
    inner = getattr(scorer, "record_score", scorer)
    return inner if hasattr(inner, "get_metadata_routing") else None


def _calling_pipeline(search):
    """The Pipeline whose ``fit`` called ``search.fit`` as its last step, if any."""
    from sklearn.pipeline import Pipeline

    frame = sys._getframe(2)  # the caller of DPBayesSearchCV.fit
    for _ in range(3):
        if frame is None:
            return None
        owner = frame.f_locals.get("self")
        if isinstance(owner, Pipeline) and owner.steps:
            if owner.steps[-1][1] is search:
                return owner
        frame = frame.f_back
    return None
