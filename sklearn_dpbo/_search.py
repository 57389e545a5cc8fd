"""DPBayesSearchCV: differentially private hyper-parameter search."""

from __future__ import annotations

import math
import numbers
import time
import warnings
from dataclasses import replace

import numpy as np
from joblib import Parallel
from sklearn.base import BaseEstimator, MetaEstimatorMixin, clone, is_classifier
from sklearn.exceptions import NotFittedError
from sklearn.model_selection import PredefinedSplit, check_cv
from sklearn.utils import _safe_indexing, get_tags
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import _num_samples, check_is_fitted, indexable

from ._accountant import BudgetAccountant
from ._accounting import PrivacyReport, Release, split_budget
from ._candidates import CandidateSet
from ._context import SearchContext, SearchData, SearchPlan
from ._evaluation import index_fit_params
from ._federated import run_federated_ldp
from ._gp import KERNELS
from ._gp_ucb import run_gp_ucb
from ._lipschitz import check_assumption_2, run_lipschitz
from ._private_selection import run_private_selection
from ._scorers import get_dp_scorer
from ._validation import (
    PrivacyLeakWarning,
    check_delta,
    check_epsilon,
    check_privacy_rng,
    public_rng,
)

__all__ = ["DPBayesSearchCV"]

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
    if not search.refit:
        raise AttributeError(
            f"This {type(search).__name__} instance was initialized with "
            f"refit=False. {attr} is available only after refitting on the "
            "released parameters; refit an estimator yourself with best_params_ "
            "on the training set."
        )


class DPBayesSearchCV(MetaEstimatorMixin, BaseEstimator):
    """Differentially private hyper-parameter search.

    Tunes ``estimator`` on a fixed, public training set, scores candidates
    on a sensitive validation set, and releases ``best_params_`` and
    ``best_score_`` with differential privacy under a total (ε, δ) budget
    for one ``fit``. The privacy unit is one validation record; neighbouring
    validation sets have the same public size m and differ by one swapped
    record. The training set is not protected.

    Two release families, chosen by ``method``:

    ``"private-selection"`` (default, no modelling assumption)
        Bayesian optimisation (GP-UCB) runs on *public* signal only,
        ``public_cv``-fold cross-validation inside the training set, and
        keeps a shortlist of the ``shortlist_size`` best candidates. Each is
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
        range (see README); it is offered for fidelity to the paper.

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
        (see README). Public constants: ``lipschitz_constants_``.

    Parameters
    ----------
    estimator : estimator object
        A scikit-learn estimator or Pipeline (cloned; never modified).
    search_spaces : dict or list of dict
        Parameter names mapped to a list of values, ``(low, high)``,
        ``(low, high, "log-uniform")`` or a frozen ``scipy.stats``
        distribution. Ranges and distributions are discretised into
        ``n_candidates`` Sobol points with a public seed: the finite
        candidate set Λ is fixed before any data is read.
    method : {"private-selection", "gp-ucb", "lipschitz", "federated-ldp"}, \
default="private-selection"
        ``"federated-ldp"``: validation records belong to owners with public
        ids (``fit(..., val_groups=ids)``); each BO round one new owner
        reports her clipped score through a client-side Laplace randomiser:
        ε-LDP per owner, exposes ``cv_results_`` of the noisy reports (see
        ``sklearn_dpbo/_federated.py`` and ``docs/local_dp.md``).
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
    scoring : None, str or DPScorer, default=None
        ``None`` is accuracy for classifiers. Any other score must declare
        its range and sensitivity: use :func:`make_dp_scorer`.
    refit : bool, default=True
        Refit ``best_estimator_`` with ``best_params_`` on the training set
        only (post-processing of the release).
    cv : None, int-free splitter, or iterable, default=None
        Where the validation set comes from when ``fit`` gets no ``X_val``:
        exactly one (train, validation) split, e.g. ``PredefinedSplit``
        with one fold, ``[(train_idx, val_idx)]`` or ``ShuffleSplit(
        n_splits=1)``. Several folds are refused: each fold would be a
        separate release, and averaging them would protect nothing.
    n_jobs : int, default=None
        Parallel fits through joblib (any active backend, e.g. Dask). The
        releases do not depend on it.
    pre_dispatch : int or str, default="2*n_jobs"
        Passed to :class:`joblib.Parallel`.
    verbose : int, default=0
        Progress lines (iteration, elapsed time, budget). No score and no
        evaluated candidate is ever printed.
    error_score : "raise" or float, default="raise"
        Score given to a candidate whose fit or scoring fails; must lie in
        the scorer's range (NaN would break every sensitivity bound).
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
        included, stays charged.
    kernel : {"matern52", "squared-exponential"}, default="matern52"
    length_scale : float, default=0.2
        Fixed kernel length-scale on the unit-cube encoding.
    noise : float, default=0.01
        Fixed observation-noise variance σ² of the GP, in GP units.
    dataset_kernel : float in (0, 1], default=0.95
        k1 of Assumption 1 (``"gp-ucb"`` only); the paper measured 0.95.
    score_offset, score_scale : float, default=None
        GP units z = (score − offset)/scale. ``None`` derives them from the
        scorer's declared range (midpoint and a quarter of the width:
        0.5 and 0.25 for accuracy), never from data.
    noise_free_constants : (A, tau) or None, default=None
        de Freitas et al. (2012) constants for Algorithm 2 (``noise=0``).
    noise_free_bound : {"conservative", "icml"}, default="conservative"
        Variant of Algorithm 2's Ω (see :func:`noise_free_omega`).
    batch_size : int or None, default=None
        Points proposed per BO step (GP-BUCB), evaluated in parallel.
        Independent of ``n_jobs`` so that results do not depend on the
        machine. ``None``: 2 for the public search of
        ``"private-selection"`` (each step is then 2 candidates × 3 public
        folds = 6 jobs; measured 1.59× faster at ``n_jobs=2`` than one
        candidate per step, with regret unchanged within its standard error,
        README), 1 otherwise. In ``"gp-ucb"`` a batch is allowed only with
        ``release_score=False`` (the score release's regret bound is for
        sequential GP-UCB).
    public_cv : int or splitter, default=3
        Cross-validation inside the training set that scores candidates
        publicly (``"private-selection"`` with ``shortlist="bo"``).
    shortlist : {"bo", "random", "grid"}, default="bo"
        How the public shortlist is built (``"private-selection"``).
    shortlist_size : int, default=3
        Candidates scored on the validation set (``"bo"`` and
        ``"random"``). 3 was best at total ε ≤ 1 in the defaults study
        (``benchmarks/bench_utility.py --defaults``, README): larger
        shortlists contain better candidates but cost more selection noise.
    selection : {"permute-and-flip", "exponential"}, default="permute-and-flip"
        Selection mechanism of ``"private-selection"`` and ``"lipschitz"``.
    acquisition : {"ucb", "ei"}, default="ucb"
        Acquisition function of the BO in ``"lipschitz"`` (GP-UCB, or
        expected improvement); Algorithm 3's guarantee holds for either.
        Other methods accept only ``"ucb"``.

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
        ``estimator`` refit with ``best_params_`` on the training set.
    refit_time_ : float
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

    Notes
    -----
    There is no ``cv_results_``. Every raw validation score, and in
    ``"gp-ucb"`` the sequence of evaluated candidates itself, is a function
    of the validation set that the guarantee does not cover; publishing them
    would void it. Use ``best_score_`` (private), or cross-validate on the
    public training set yourself if you need a table of scores. The
    exception is ``"federated-ldp"``: its transcript is made of ε-LDP
    reports, so its ``cv_results_`` (the noisy reports) is public.
    """

    _parameter_constraints: dict = {
        "estimator": [HasMethods(["fit"])],
        "search_spaces": [dict, list],
        "method": [
            StrOptions({"private-selection", "gp-ucb", "lipschitz", "federated-ldp"})
        ],
        "epsilon": [Interval(numbers.Real, 0, None, closed="neither")],
        "delta": [Interval(numbers.Real, 0, 1, closed="left")],
        "budget_split": [Interval(numbers.Real, 0, 1, closed="neither")],
        "release_score": ["boolean"],
        "n_iter": [Interval(numbers.Integral, 1, None, closed="left")],
        "n_candidates": [Interval(numbers.Integral, 1, None, closed="left")],
        # Any str or callable passes here so that get_dp_scorer can refuse the
        # ones without a declared range with guidance (make_dp_scorer).
        "scoring": [None, str, callable],
        "refit": ["boolean"],
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
        "kernel": [StrOptions(set(KERNELS))],
        "length_scale": [Interval(numbers.Real, 0, None, closed="neither")],
        "noise": [Interval(numbers.Real, 0, None, closed="left")],
        "dataset_kernel": [Interval(numbers.Real, 0, 1, closed="right")],
        "score_offset": [None, numbers.Real],
        "score_scale": [None, Interval(numbers.Real, 0, None, closed="neither")],
        "noise_free_constants": [None, tuple],
        "noise_free_bound": [StrOptions({"conservative", "icml"})],
        "batch_size": [None, Interval(numbers.Integral, 1, None, closed="left")],
        "public_cv": [Interval(numbers.Integral, 2, None, closed="left"), "cv_object"],
        "shortlist": [StrOptions({"bo", "random", "grid"})],
        "shortlist_size": [Interval(numbers.Integral, 1, None, closed="left")],
        "selection": [StrOptions({"permute-and-flip", "exponential"})],
        "acquisition": [StrOptions({"ucb", "ei"})],
    }

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
        kernel="matern52",
        length_scale=0.2,
        noise=0.01,
        dataset_kernel=0.95,
        score_offset=None,
        score_scale=None,
        noise_free_constants=None,
        noise_free_bound="conservative",
        batch_size=None,
        public_cv=3,
        shortlist="bo",
        shortlist_size=3,
        selection="permute-and-flip",
        acquisition="ucb",
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
        self.kernel = kernel
        self.length_scale = length_scale
        self.noise = noise
        self.dataset_kernel = dataset_kernel
        self.score_offset = score_offset
        self.score_scale = score_scale
        self.noise_free_constants = noise_free_constants
        self.noise_free_bound = noise_free_bound
        self.batch_size = batch_size
        self.public_cv = public_cv
        self.shortlist = shortlist
        self.shortlist_size = shortlist_size
        self.selection = selection
        self.acquisition = acquisition

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

    def score(self, X, y=None):
        """Score ``best_estimator_`` on (X, y) with ``scorer_``.

        This is the user's own data, not a release: it is not private.
        """
        self._check_fitted_refit("score")
        return self.scorer_(self.best_estimator_, X, y)

    # ------------------------------------------------------------------
    # Checks done before any data is touched
    # ------------------------------------------------------------------
    def _check_settings(self) -> dict:
        """Validate everything that does not need data; return the plan."""
        self._validate_params()
        for name in ("n_iter", "n_candidates", "batch_size", "shortlist_size"):
            if isinstance(getattr(self, name), (bool, np.bool_)):
                raise ValueError(
                    f"{name} must be a positive int, not a bool; got "
                    f"{name}={getattr(self, name)!r}. Pass e.g. {name}=30."
                )
        # Re-checked by hand: cannot be switched off by set_config.
        epsilon = check_epsilon(self.epsilon)
        delta = check_delta(self.delta)
        if self.method == "gp-ucb":
            if delta <= 0:
                raise ValueError(
                    "method='gp-ucb' gives (epsilon, delta)-DP and needs delta > 0 "
                    "(Algorithm 1's beta_t and c depend on it); pass e.g. "
                    "delta=1e-5, or use method='private-selection' for pure "
                    "epsilon-DP."
                )
            if (
                self.batch_size is not None
                and self.batch_size > 1
                and self.release_score
            ):
                raise ValueError(
                    "method='gp-ucb' with batch_size > 1 is allowed only with "
                    "release_score=False: the score release (Theorem 3) rests on "
                    "the regret bound of sequential GP-UCB. Use batch_size=1, or "
                    "method='private-selection', which parallelises freely."
                )
            if self.noise == 0 and self.release_score:
                if self.noise_free_constants is None:
                    raise ValueError(
                        "noise=0 selects Algorithm 2, whose score release needs "
                        "the constants (A, tau) of de Freitas et al. (2012): pass "
                        "noise_free_constants=(A, tau), or release_score=False, "
                        "or a positive noise (Algorithm 1)."
                    )
                self._check_noise_free_constants()

        scorer = get_dp_scorer(self.scoring, self.estimator)
        low, high = scorer.bounds
        if self.error_score != "raise":
            err = float(self.error_score)
            if not (math.isfinite(err) and low <= err <= high):
                raise ValueError(
                    f"error_score must be 'raise' or a number in the scorer's "
                    f"range [{low}, {high}]; got {self.error_score!r}. A value "
                    "outside the range (or NaN) would break the sensitivity bound."
                )
        offset = (low + high) / 2 if self.score_offset is None else self.score_offset
        scale = (high - low) / 4 if self.score_scale is None else self.score_scale
        if not math.isfinite(float(offset)):
            raise ValueError("score_offset must be finite.")

        seed = public_rng(self.random_state).integers(2**31 - 1)
        candidates = CandidateSet(self.search_spaces, self.n_candidates, int(seed))
        valid = set(self.estimator.get_params(deep=True))
        unknown = sorted(candidates.parameter_names - valid)
        if unknown:
            raise ValueError(
                f"search_spaces names parameters {unknown} that "
                f"{type(self.estimator).__name__} does not have. Valid names are "
                "listed by estimator.get_params().keys() (use step__param inside "
                "a Pipeline)."
            )
        if self.method == "lipschitz":
            # Assumption 2: estimator, Normalizer, score, search space.
            check_assumption_2(self.estimator, candidates, scorer)
        elif self.acquisition != "ucb":
            raise ValueError(
                f"acquisition={self.acquisition!r} is available only with "
                "method='lipschitz' (Algorithm 3 holds for any acquisition); "
                "the guarantee of 'gp-ucb' rests on GP-UCB, and "
                "'private-selection' uses UCB on public scores."
            )
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
        )

    def _check_noise_free_constants(self):
        consts = self.noise_free_constants
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
                # Needs the data (e.g. LeaveOneOut): counted in _split instead.
                return
            if n != 1:
                raise ValueError(
                    f"cv gives {n} splits; DPBayesSearchCV needs exactly one "
                    "(train, validation) split (each extra fold would be another "
                    "release of validation data). Use e.g. ShuffleSplit("
                    "n_splits=1), PredefinedSplit with one fold, or "
                    "[(train_idx, val_idx)]."
                )

    # ------------------------------------------------------------------
    # Data
    # ------------------------------------------------------------------
    def _split(self, X, y, X_val, y_val):
        """Return (X_train, y_train, X_val, y_val) and check their shapes."""
        if X_val is not None or y_val is not None:
            if self.cv is not None:
                raise ValueError(
                    "Pass either X_val/y_val to fit or cv, not both: both define "
                    "the validation set."
                )
            if X_val is None or (y is not None and y_val is None):
                raise ValueError("Pass both X_val and y_val (or neither).")
            X, y = indexable(X, y)
            X_val, y_val = indexable(X_val, y_val)
            if hasattr(X, "shape") and hasattr(X_val, "shape"):
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
        cv = check_cv(self.cv, y, classifier=is_classifier(self.estimator))
        splits = list(cv.split(X, y))
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
        return (
            _safe_indexing(X, train),
            None if y is None else _safe_indexing(y, train),
            _safe_indexing(X, val),
            None if y is None else _safe_indexing(y, val),
            train,
        )

    # ------------------------------------------------------------------
    # fit
    # ------------------------------------------------------------------
    def fit(self, X, y=None, *, X_val=None, y_val=None, val_groups=None, **fit_params):
        """Run the private search and set the released attributes.

        Parameters
        ----------
        X, y : array-like
            The public training set (or the whole data when ``cv`` gives the
            split).
        X_val, y_val : array-like, optional
            The sensitive validation set.
        val_groups : array-like of shape (n_validation,), optional
            Public owner id of every validation record; required by (and
            only accepted with) ``method="federated-ldp"``, with ``X_val``.
        **fit_params : dict
            Passed to ``estimator.fit`` (sample-aligned ones are restricted to
            the rows being fitted).

        Returns
        -------
        self : object
        """
        self._clear_fitted()
        plan = self._check_settings()
        cost = self._planned_cost(plan)
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
        if (val_groups is not None or self.method == "federated-ldp") and (
            val_groups is None or X_val is None or self.method != "federated-ldp"
        ):
            raise ValueError(
                "val_groups (public owner ids of the validation records) goes "
                "with method='federated-ldp' and X_val/y_val, and that method "
                "needs it: fit(X, y, X_val=..., y_val=..., val_groups=ids)."
            )
        X_tr, y_tr, X_va, y_va, train_idx = self._split(X, y, X_val, y_val)
        n_train = len(y_tr) if y_tr is not None else _num_rows(X_tr)
        if train_idx is not None:
            fit_params = index_fit_params(fit_params, train_idx, _num_rows(X))
        m = _num_rows(X_va)
        if m < 1 or n_train < 1:
            raise ValueError("The training and validation sets must be non-empty.")
        start = time.perf_counter()
        charged = []

        def charge():
            # Fail-closed point: the first read of the validation set by the
            # mode, before any validation row reaches an estimator or the
            # scorer and before any noise is drawn. Spent once, never refunded.
            if self.accountant is not None:
                self.accountant.spend(
                    *cost, label=f"{type(self).__name__}(method={self.method!r})"
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
        run = _MODES[self.method]
        with Parallel(n_jobs=self.n_jobs, pre_dispatch=self.pre_dispatch) as parallel:
            ctx = SearchContext(
                search=self,
                plan=plan,
                data=data,
                parallel=parallel,
                rng=check_privacy_rng(self.noise_random_state),
                progress=lambda message: self._progress(message, start),
            )
            try:
                releases, index, extra = run(ctx)
            finally:
                ctx.rng = ctx.data = None  # nothing private outlives the run
        self._check_charge(releases, charged)
        try:
            self._ingest(releases, index, plan, m, extra)
            if self.refit:
                refit_start = time.perf_counter()
                est = clone(self.estimator).set_params(
                    **clone(self.best_params_, safe=False)
                )
                if y_tr is None:
                    est.fit(X_tr, **fit_params)
                else:
                    est.fit(X_tr, y_tr, **fit_params)
                self.best_estimator_ = est
                self.refit_time_ = time.perf_counter() - refit_start
        except BaseException:
            # A failed or interrupted fit leaves no fitted attribute (the
            # budget stays spent: the releases were drawn).
            self._clear_fitted()
            raise
        self._progress(f"done in {time.perf_counter() - start:.2f}s", start=None)
        return self

    def _clear_fitted(self):
        for attr in [
            a for a in vars(self) if a.endswith("_") and not a.startswith("_")
        ]:
            delattr(self, attr)

    def _planned_cost(self, plan) -> tuple[float, float]:
        """(ε, δ) of the whole fit, from public settings only (basic composition).

        The sum of the planned releases' costs, split exactly as the modes
        split them (:func:`split_budget`), so it equals
        ``privacy_report_.epsilon`` / ``.delta`` bit for bit.
        """
        delta = 0.0 if self.method in _PURE_EPSILON_MODES else plan.delta
        parts = [
            p
            for p in split_budget(
                plan.epsilon, delta, self.budget_split, self.release_score
            )
            if p is not None
        ]
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
        self.privacy_report_ = PrivacyReport(releases, self.method)
        for key, value in extra.items():
            setattr(self, key, value)

    def _progress(self, message: str, start: float | None) -> None:
        # Public only: the step, the elapsed time and the fit's total budget.
        if self.verbose:
            elapsed = ""
            if start is not None:
                elapsed = (
                    f" ({time.perf_counter() - start:.2f}s; budget "
                    f"epsilon={self.epsilon:g}, delta={self.delta:g})"
                )
            print(f"[DPBayesSearchCV] {message}{elapsed}", flush=True)


def _num_rows(X) -> int:
    return int(_num_samples(X))
