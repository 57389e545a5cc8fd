"""DPBayesSearchCV: scikit-learn's plumbing and the order of ``fit``."""

from __future__ import annotations

import warnings
from contextlib import nullcontext
from dataclasses import replace

from joblib import Parallel, effective_n_jobs
from sklearn.base import BaseEstimator, MetaEstimatorMixin
from sklearn.utils import get_tags
from sklearn.utils.metadata_routing import UNUSED
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from .._compat import BaseSearchCV, _num_samples
from ..privacy._validation import PrivacyLeakWarning, check_privacy_rng
from ._budget import check_charge, planned_cost
from ._context import SearchContext, SearchData, SearchPlan
from ._evaluation import index_fit_params
from ._federated import run_federated_ldp
from ._fitted import (
    callbacks_refused,
    check_refit,
    clear_fitted,
    fitted_estimator_property,
    ingest,
    no_cv_results_reason,
    refit,
    search_estimator_has,
)
from ._gp_ucb import run_gp_ucb
from ._inputs import check_inputs
from ._lipschitz import run_lipschitz
from ._metrics import plan_for_metrics, run_with_other_metrics
from ._noise_check import warn_useless_releases
from ._private_model._fit import fit_private_model
from ._private_selection import FITTED_KEY, run_private_selection
from ._progress import ProgressPrinter
from ._routing import metadata_routing, route_fit_params, route_score_params
from ._sealed import run_sealed
from ._search_params import (
    PARAMETER_CONSTRAINTS,
    check_set_params,
    check_settings_and_metrics,
)
from ._splits import check_cpu_inputs, own_types, split_data
from ._whole_data._fit import fit_whole_data, whole_data_requested

# Each returns (releases, released index, extra public attributes).
_MODES = {
    "gp-ucb": run_gp_ucb,
    "private-selection": run_private_selection,
    "lipschitz": run_lipschitz,
    "federated-ldp": run_federated_ldp,
}


def _delegate(name: str):
    """``search.<name>(X)``: ``best_estimator_.<name>(X)``, if it has one."""

    def method(self, X):
        self._check_fitted_refit(name)
        return getattr(self.best_estimator_, name)(X)

    method.__name__, method.__doc__ = name, f"``best_estimator_.{name}(X)``."
    method.__qualname__ = f"DPBayesSearchCV.{name}"
    return available_if(search_estimator_has(name))(method)


class DPBayesSearchCV(MetaEstimatorMixin, BaseEstimator):
    """Differentially private hyper-parameter search.

    Tunes ``estimator`` on a public training set, scores candidates on a
    sensitive validation set, and releases ``best_params_`` and
    ``best_score_`` with differential privacy under a total (ε, δ) budget
    for one ``fit``. The privacy unit is one validation record (swapped;
    m public). The release family and its guarantee: ``method``.

    Parameters
    ----------
    estimator : estimator object
        A scikit-learn estimator or Pipeline (cloned; never modified).
    search_spaces : dict or list of dict
        Parameter names mapped to a sequence of values (a grid as in
        ``GridSearchCV``), ``(low, high)``, ``(low, high, "log-uniform")``
        or a frozen ``scipy.stats`` distribution (a *tuple* is a range:
        write ``[1, 10]`` for two values; ``{}``: the estimator's defaults).
        Ranges and distributions become ``n_candidates`` Sobol points with a
        public seed: the candidate set Λ is fixed before any data is read.
    method : str or mode object, default="private-selection"
        :class:`PrivateSelection` (``"private-selection"``),
        :class:`DPGPUCB` (``"gp-ucb"``), :class:`Lipschitz`
        (``"lipschitz"``), :class:`FederatedLDP` (``"federated-ldp"``),
        :class:`WholeData` (``"whole-data"``, what ``fit(X, y)`` runs with
        no ``X_val`` and ``cv=None``) or :class:`PrivateModel`
        (``"private-model"``); a string means the mode's defaults. Its
        parameters are nested (``method__<name>``).
    epsilon : float, default=1.0
        Total ε of one ``fit`` (all releases together, basic composition).
    delta : float, default=1e-5
        Total δ of one ``fit``. ``"private-selection"`` spends none of it.
    budget_split : float in (0, 1), default=0.5
        Fraction of (ε, δ) spent on ``best_params_``; the rest on
        ``best_score_``.
    release_score : bool or "auto", default="auto"
        Release ``best_score_``. ``False`` spends the whole budget on
        ``best_params_`` and leaves ``best_score_`` unset. ``"auto"``:
        ``True``, but ``False`` in ``method="private-model"``.
    n_iter : int, default=30
        Number of Bayesian-optimisation evaluations T.
    n_candidates : int, default=1024
        Size of the Sobol discretisation of ranges and distributions.
    scoring : None, str, DPScorer, list, tuple or dict, default=None
        ``None`` is accuracy for classifiers. Any other score must declare
        its range: use :func:`make_dp_scorer`. Several metrics (names, or
        ``{name: scoring}``, ``method="private-selection"`` only):
        ``refit="<name>"`` names the selection metric; the others are
        released in ``best_scores_`` with their own Laplace noise. With k
        metrics and b = ``budget_split``, the selection gets
        ε·b/(b + k(1 − b)) and every score release ε·(1 − b)/(b + k(1 − b)).
    refit : bool or str, default=True
        Refit ``best_estimator_`` with ``best_params_`` on the training set
        only (post-processing); in ``"whole-data"`` on every (private) row,
        **not covered** by the guarantee (``fit`` warns). A str names the
        selection metric of several. A callable is refused.
    cv : None, splitter, or iterable, default=None
        Without ``X_val``: exactly one public (train, validation) split,
        ``[(train_idx, val_idx)]``, ``PredefinedSplit`` with one fold,
        ``ShuffleSplit(n_splits=1)`` or ``GroupShuffleSplit(n_splits=1)``
        (with ``fit(..., groups=...)``); it sees the number of rows and
        ``groups`` only. Several splits and stratified splitters are refused
        (``docs/coming_from_gridsearchcv.md``).
    n_jobs : int, default=None
        Parallel fits through joblib (any active backend, e.g. Dask). The
        releases do not depend on it.
    pre_dispatch : int or str, default="2*n_jobs"
        Passed to :class:`joblib.Parallel`.
    verbose : int, default=0
        1: the plan, the phases, the first read of the validation set and
        the end; 2: every public search step; 3: times and budget before the
        read. No score is printed; after the read the only line is ``done``.
    error_score : "raise" or float, default="raise"
        A failed fit of a *public* candidate: ``"raise"`` raises before the
        validation set is read; a number (or ``np.nan``) is its public score
        (``FitFailedWarning``) and it is never scored privately (all fail:
        ``fit`` raises, nothing charged). On the validation set nothing
        raises: a failing record or private fit (``"gp-ucb"``) scores ``low``.
    random_state : None, int or RandomState, default=None
        Seeds the *public* randomness only (candidate set, tie-breaks,
        public folds and shortlist), never the privacy noise: an int is
        safe in production.
    noise_random_state : None or int, default=None
        **Tests only.** ``None`` draws every privacy noise from the
        operating system's CSPRNG; an int seeds it to reproduce a fit, which
        is then not differentially private (a :class:`PrivacyLeakWarning`).
    accountant : None or BudgetAccountant, default=None
        Ledger shared across fits (``None``: every fit has its own budget).
        ``fit`` raises :class:`BudgetError` before touching any data if the
        cost does not fit; the cost is recorded at the first private read,
        never refunded. ``clone`` shares the ledger; a pickled copy cannot
        spend (``docs/configurations.md``).

    Attributes
    ----------
    best_params_ : dict
        Released parameters (DP).
    best_index_ : int
        Row of ``best_params_`` in ``cv_results_`` if any, else
        ``best_candidate_index_``.
    best_candidate_index_ : int
        Index of ``best_params_`` in ``candidate_params_`` (every mode).
    best_score_ : float
        Released score (DP), in the scorer's range.
    best_estimator_ : estimator
        ``estimator`` with ``best_params_`` fitted on the training set (in
        ``"private-selection"`` the scored fit). Unset if the refit fails
        (``FitFailedWarning``; the releases stand).
    refit_time_ : float
        Seconds of that fit if measured before the validation read, else NaN.
    scorer_ : DPScorer
    candidate_params_ : list of dict
        The public candidate set Λ.
    shortlist_ : ndarray of int
        Indices of the shortlisted candidates (``"private-selection"``, public).
    privacy_report_ : PrivacyReport
        Per release: mechanism, ε, δ, sensitivity, noise scale, assumption.
    n_validation_ : int
        Public size m of the validation set.
    n_splits_ : int
        1 (not set in ``"whole-data"``, which has ``n_parts_``).
    multimetric_ : bool
        Whether ``scoring`` names several metrics.
    lipschitz_constants_ : dict
        ``"lipschitz"`` only: the public constants of Algorithm 3.
    best_scores_ : dict
        Several metrics only (with ``release_score=True``): metric name →
        the selected candidate's released validation score (DP).
    cv_results_ : dict
        ``"private-selection"`` with ``shortlist="bo"``: the public CV inside
        the *training set* in ``GridSearchCV``'s layout (``split<k>_public_cv_score``,
        ``mean/std/rank_public_cv_score``, times, ``candidate_index``,
        ``shortlisted``), a row per candidate evaluated. ``"federated-ldp"``:
        the owners' noisy ε-LDP reports.

    Notes
    -----
    ``fit`` emits a :class:`UselessReleaseWarning`, before reading any
    validation row, when a release's noise scale exceeds the width of the
    scorer's range. Raw validation scores are never published. Every
    difference from ``GridSearchCV``: ``docs/coming_from_gridsearchcv.md``.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.model_selection import train_test_split
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> X_tr, X_val, y_tr, y_val = train_test_split(X, y, random_state=0)
    >>> search = DPBayesSearchCV(
    ...     make_pipeline(StandardScaler(), LogisticRegression()),
    ...     {"logisticregression__C": [0.01, 0.1, 1.0, 10.0]},
    ...     epsilon=1.0, n_iter=4, random_state=0,
    ... ).fit(X_tr, y_tr, X_val=X_val, y_val=y_val)  # X_val, y_val: private
    >>> sorted(search.best_params_)
    ['logisticregression__C']
    >>> 0.0 <= search.best_score_ <= 1.0  # noisy: fresh noise every fit
    True
    >>> search.cv_results_["params"][search.best_index_] == search.best_params_
    True
    >>> search.privacy_report_.epsilon
    1.0
    """

    _parameter_constraints: dict = PARAMETER_CONSTRAINTS
    # groups is cv's splitter's; score knows sample_weight (refused if given)
    __metadata_request__fit = {"groups": UNUSED}
    __metadata_request__score = {"sample_weight": None}

    def __init__(
        self,
        estimator,
        search_spaces,
        *,
        method="private-selection",
        epsilon=1.0,
        delta=1e-5,
        budget_split=0.5,
        release_score="auto",
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

    # --- scikit-learn plumbing ---
    def set_params(self, **params):
        """Set parameters; ``method__<name>`` sets a mode object's parameter."""
        check_set_params(self, params)
        return super().set_params(**params)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        sub = get_tags(self.estimator)
        tags.estimator_type = sub.estimator_type
        tags.classifier_tags = sub.classifier_tags
        tags.regressor_tags = sub.regressor_tags
        for name in ("pairwise", "sparse", "allow_nan"):
            setattr(tags.input_tags, name, getattr(sub.input_tags, name))
        tags.target_tags = replace(sub.target_tags)
        tags.non_deterministic = self.noise_random_state is None  # CSPRNG noise
        return tags

    @property
    def cv_results_(self) -> dict:
        """The public cross-validation inside the training set (see Attributes)."""
        if "cv_results_" not in vars(self):
            raise AttributeError(no_cv_results_reason(self))
        return vars(self)["cv_results_"]

    n_features_in_ = fitted_estimator_property(
        "n_features_in_", "Number of features seen by ``best_estimator_``."
    )
    feature_names_in_ = fitted_estimator_property(
        "feature_names_in_", "Feature names seen by ``best_estimator_``."
    )

    @property
    def classes_(self):
        """Class labels of ``best_estimator_`` (``refit=True``, classifiers)."""
        search_estimator_has("classes_")(self)
        return self.best_estimator_.classes_

    def _check_fitted_refit(self, attr):
        check_is_fitted(self)
        check_refit(self, attr)

    predict = _delegate("predict")
    predict_proba = _delegate("predict_proba")
    predict_log_proba = _delegate("predict_log_proba")
    decision_function = _delegate("decision_function")
    transform = _delegate("transform")
    inverse_transform = _delegate("inverse_transform")
    score_samples = _delegate("score_samples")

    @available_if(callbacks_refused)
    def set_callbacks(self, *callbacks):
        """Not supported: the ``AttributeError``'s cause says why."""

    def score(self, X, y=None, **params):
        """Score ``best_estimator_`` on (X, y) with the selection metric.

        Not a release: the metric is not clipped into the scorer's bounds.
        ``**params`` (``sample_weight`` too) raise: it is the unweighted mean.
        """
        self._check_fitted_refit("score")
        route_score_params(self, params)  # refuses every one
        return self.scorer_.metric(self.best_estimator_, X, y)

    def get_metadata_routing(self):
        """Metadata routing of this object, as ``GridSearchCV``'s.

        ``estimator``'s metadata goes to its ``fit`` (training rows only),
        splitter metadata to ``cv.split``; scorer metadata is refused (a
        weighted private score has no per-record bound).
        """
        return metadata_routing(self)

    _sk_visual_block_ = BaseSearchCV._sk_visual_block_  # the same HTML repr

    def _check_settings(self) -> SearchPlan:
        """Validate everything that does not need data; return the public plan."""
        return check_settings_and_metrics(self)[0]

    # --- fit ---
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
            split). Without ``X_val`` and with ``cv=None``: the whole data,
            every row private (``docs/whole_data.md``).
        X_val, y_val : array-like, optional
            The sensitive validation set.
        groups : array-like of shape (n_samples,), optional
            Public group labels of the rows of ``X``, for ``cv``'s splitter
            only; they must not depend on the validation records.
        val_groups : array-like of shape (n_validation,), optional
            Public owner id of every validation record; required by (and
            only accepted with) ``method="federated-ldp"``
            (``docs/local_dp.md``).
        **fit_params : dict
            Passed to ``estimator.fit`` (sample-aligned ones restricted to
            the rows fitted); never weights a private score.

        Returns
        -------
        self : object
        """
        clear_fitted(self)
        # 1. Settings, plan and cost: public, before any data is touched.
        plan, other_scorers = check_settings_and_metrics(self)
        plan = plan_for_metrics(
            plan, other_scorers, self.budget_split, self.release_score
        )
        cost = planned_cost(
            plan, self.budget_split, self.release_score, len(other_scorers)
        )
        fit_params, split_params = route_fit_params(self, fit_params)
        if self.accountant is not None:
            self.accountant.check(*cost)
        if self.noise_random_state is not None:
            warnings.warn(
                "noise_random_state is set: whoever knows the seed can remove the "
                "noise, so the releases are NOT differentially private. Use it in "
                "tests only; leave noise_random_state=None in production.",
                PrivacyLeakWarning,
                stacklevel=2,
            )
        # 2. The data's public structure (shapes, types), in every mode.
        y, y_val = check_inputs(self.estimator, X, y, X_val, y_val)
        if whole_data_requested(self, plan, X_val, y_val, self.cv):
            args = (fit_params, groups, val_groups, other_scorers)
            return fit_whole_data(self, plan, cost, X, y, *args)
        if plan.mode.method == "private-model":
            extra = (X_val, y_val, groups, val_groups)
            return fit_private_model(self, plan, X, y, fit_params, other_scorers, extra)
        federated = plan.mode.method == "federated-ldp"
        if federated != (val_groups is not None) or (federated and X_val is None):
            raise ValueError(
                "val_groups (public owner ids of the validation records) goes "
                "with method='federated-ldp' and X_val/y_val, and that method "
                "needs it: fit(X, y, X_val=..., y_val=..., val_groups=ids)."
            )
        check_cpu_inputs(X=X, y=y, X_val=X_val, y_val=y_val)
        X_tr, y_tr, X_va, y_va, train_idx = split_data(
            self.estimator, self.cv, X, y, X_val, y_val, groups, split_params
        )
        if train_idx is not None:  # the training rows' own, typed by them alone
            n = _num_samples(X)
            fit_params = index_fit_params(fit_params, train_idx, n, own_types)
        n_train, m = _num_samples(X_tr), _num_samples(X_va)
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
            # The first read of the validation set: spent once, never
            # refunded; the printer prints nothing more until "done".
            progress.seal()
            if self.accountant is not None:
                self.accountant.spend(
                    *cost, label=f"{type(self).__name__}(method={plan.mode.method!r})"
                )
            charged.append(cost)

        # 3. The run: every failure after the first read is sealed.
        data = SearchData(X_tr, y_tr, X_va, y_va, fit_params, charge, val_groups)
        plan, other_scorers = data.prepare(plan, other_scorers, self.estimator)
        run = _MODES[plan.mode.method]
        with (
            nullcontext(in_order)
            if effective_n_jobs(self.n_jobs) == 1  # as joblib would: in this thread
            else Parallel(n_jobs=self.n_jobs, pre_dispatch=self.pre_dispatch)
        ) as parallel:
            rng = check_privacy_rng(self.noise_random_state)
            ctx = SearchContext(self, plan, data, parallel, rng, progress)
            releases, index, extra = run_sealed(
                lambda c: run_with_other_metrics(run, c, other_scorers), ctx, charged
            )
        # 4. The releases, and only they, become the fitted attributes.
        check_charge(releases, charged)
        selected_fit = extra.pop(FITTED_KEY, None)
        try:
            ingest(self, releases, index, plan, m, extra, other_scorers)
        except BaseException:
            clear_fitted(self)  # the budget stays spent: the releases were drawn
            raise
        refit(self, X_tr, y_tr, fit_params, selected_fit)  # the releases stand
        progress.done()
        return self


def in_order(tasks) -> list:
    """Run joblib ``delayed`` tasks one after the other in this thread (what
    :class:`joblib.Parallel` does with one job, without building it)."""
    return [func(*args, **kwargs) for func, args, kwargs in tasks]
