"""DPGaussianProcessRegressor: GP regression with a differentially private mean.

Smith, Álvarez, Zwiessele & Lawrence, "Differentially Private Regression
with Gaussian Processes", AISTATS 2018; spec ``DP_GP.md`` (formulas and
their tags [P] paper, [C] authors' code, [D] derived, [S] safe choice).
"""

from __future__ import annotations

import math
import numbers
import warnings

import numpy as np
import scipy.sparse as sp
from scipy.linalg import cho_solve
from sklearn.base import BaseEstimator, RegressorMixin, clone
from sklearn.exceptions import ConvergenceWarning, DataConversionWarning
from sklearn.gaussian_process.kernels import RBF, Kernel
from sklearn.utils.validation import check_is_fitted, validate_data

from .._compat import Interval, StrOptions
from ..bo._gp_posterior import ExactPosterior, InducingPosterior, robust_cholesky
from ..privacy._accountant import BudgetAccountant
from ..privacy._accounting import PrivacyReport, Release
from ..privacy._numbers import number_or_nan
from ..privacy._silence import quiet
from ..privacy._validation import (
    DELTA_CONSTRAINTS,
    EPSILON_CONSTRAINTS,
    PrivacyLeakWarning,
    check_delta,
    check_epsilon,
    check_privacy_rng,
    public_rng,
    require_positive_delta,
)
from ._release import plan_release
from ._selection import (
    CONTRACT_ERROR,
    PrivateGridSelection,
    PublicDataSelection,
    _is_real,
    _same_buffer,
    plan_selection,
)

_MAX_DEFAULT_QUERY = 5000
_REFERENCE = {
    "cloaking": "Smith et al. (AISTATS 2018) §3 cloaking; Hall et al. (JMLR 2013) "
    "Prop. 3; analytic calibration Balle & Wang (ICML 2018); spec DP_GP.md §4",
    "standard": "Hall et al. (JMLR 2013) §4 function release; exact RKHS "
    "sensitivity d·max_j sqrt([AKA]_jj) (spec DP_GP.md §3.1 item 3); analytic "
    "calibration Balle & Wang (ICML 2018)",
}


def _output_value(v) -> float:
    """One private output as a float from that record alone, never raising
    (one-element sequences unwrapped, a non-number NaN, a too-large int ±inf)."""
    try:
        if isinstance(v, (np.ndarray, list, tuple)):
            items = v.reshape(-1) if isinstance(v, np.ndarray) else v
            v = items[0] if len(items) == 1 else None  # None: NaN
            if isinstance(v, (np.ndarray, list, tuple)):
                return math.nan
        return number_or_nan(v, inf_on_overflow=True)
    except BaseException as exc:  # noqa: BLE001 - a record that does not convert
        if isinstance(exc, KeyboardInterrupt):  # the user's, not the record's
            raise
        return math.nan


def _check_output_container(y, n: int):
    """The records of ``y``, checked on container, shape and dtype only (no value)."""
    if y is None:
        raise ValueError(
            "DPGaussianProcessRegressor requires y to be passed, but the target y "
            "is None."
        )
    if sp.issparse(y):
        raise TypeError("y must be a dense 1-d array-like of outputs, not sparse.")
    if isinstance(y, (list, tuple)):
        records = list(y)
    elif isinstance(y, np.ndarray) or hasattr(y, "__array__"):
        with quiet():  # a container's own conversion (pandas NA...) shows nothing
            arr = np.asarray(y)
        if arr.ndim == 2 and arr.shape[1] == 1:
            warnings.warn(
                "A column-vector y was passed when a 1d array was expected. "
                "Please change the shape of y to (n_samples, ), for example "
                "using ravel().",
                DataConversionWarning,
                stacklevel=3,
            )
            arr = arr[:, 0]
        if arr.ndim != 1:
            raise ValueError(
                f"y should be a 1d array of outputs, got an array of shape "
                f"{arr.shape} instead."
            )
        if arr.dtype.kind not in "biufcOSU":
            raise TypeError(f"y must hold numbers; got an array of dtype {arr.dtype}.")
        records = arr
    else:
        raise TypeError(
            "y must be a 1-d array-like of outputs (a list, tuple, NumPy array or "
            f"pandas Series); got {type(y).__name__}."
        )
    if len(records) != n:
        raise ValueError(
            "Found input variables with inconsistent numbers of samples: "
            f"[{n}, {len(records)}]."
        )
    return records


def _map_outputs(records, lo: float, hi: float) -> np.ndarray:
    """Every output as float64 in [lo, hi], silently, record by record unless
    numeric: NaN to the midpoint, ±inf and others clipped."""
    with quiet():
        if isinstance(records, np.ndarray) and records.dtype.kind in "biuf":
            values = records.astype(np.float64)
        else:
            values = records.tolist() if isinstance(records, np.ndarray) else records
            values = np.array([_output_value(v) for v in values], dtype=np.float64)
    return np.clip(np.where(np.isnan(values), 0.5 * (lo + hi), values), lo, hi)


class DPGaussianProcessRegressor(RegressorMixin, BaseEstimator):
    """Gaussian-process regression whose posterior mean is released with (ε, δ)-DP.

    The inputs ``X`` are public; the outputs ``y`` are private. Neighbours
    have the same ``X`` and differ in one output, mapped into the public clip
    interval ``y_bounds`` of width d (±inf clipped, NaN and non-numbers to the
    midpoint, each output on its own, so no output value can make ``fit``
    raise or warn). ``fit`` releases **one vector**: the posterior mean at the
    public ``query_points_`` plus noise calibrated to (``epsilon``,
    ``delta``); everything else it stores is public or privately selected.

    ``method="cloaking"`` (default; Smith et al. 2018 §3): noise N(0, s² M),
    M the minimum-volume covariance with c_jᵀ M⁻¹ c_j ≤ 1 for every column
    c_j of C (μ_* = C y), see :mod:`._cloaking`. ``method="standard"`` (Hall
    et al. 2013, Smith et al. 2018 §2): noise s·G, G ~ GP(0, k) at the query
    inputs, exact RKHS sensitivity d · max_j sqrt([A K A]_jj),
    A = (K + σ²I)⁻¹. s is the analytic Gaussian scale (Balle & Wang 2018);
    ``paper_faithful=True`` uses Hall's Δ·sqrt(2 ln(2/δ))/ε instead, which is
    not (ε, δ)-DP for large ε (the fit then warns).

    ``predict`` and ``sample_y`` are post-processing; each ``fit`` spends again.

    Parameters
    ----------
    kernel : scikit-learn kernel, default=None
        Fixed, public; never optimised on the private outputs. ``None`` is
        ``RBF(1.0)``. It describes the outputs *after* scaling (see
        ``y_scale``).
    alpha : float > 0, default=0.1
        Noise variance σ² of the GP, in scaled output units.
    y_bounds : (float, float)
        Public clip interval [lo, hi] for the outputs (required): every
        output is clipped into it, so d = hi − lo.
    y_offset, y_scale : float or None, default=None
        Public normalisation y ↦ (y − offset)/scale; ``None`` gives the
        centre of ``y_bounds`` and a quarter of its width. Never estimated
        from the data.
    method : {"cloaking", "standard"}, default="cloaking"
    epsilon : float in [1e-12, inf), default=1.0
        Total ε of one fit (selection plus release).
    delta : float in (0, 1), default=1e-5
        δ of the release (the selection spends none); the Gaussian
        mechanism needs δ > 0.
    query_points : array-like of shape (n_query, n_features) or None
        Public inputs of the release; ``None``: the distinct training inputs
        (at most 5000).
    inducing_points : None, int or array-like, default=None
        ``None``: exact GP. An int m: m public inducing inputs, k-means
        centres of the public X (seeded by ``random_state``). An array:
        the inducing inputs themselves. FITC approximation.
    hyperparameter_selection : None, PrivateGridSelection or PublicDataSelection
        ``None`` uses ``kernel`` and ``alpha`` as given (public).
    paper_faithful : bool, default=False
        Reproduce the paper's calibration (Hall's multiplier; for
        ``"standard"`` the max(P, N) bound). Not DP when ε is large.
    solver_tol : float, default=1e-3
        Cloaking solver stops when max_j c_jᵀ M⁻¹ c_j ≤ 1 + tol (relative).
    random_state : None or int, default=None
        Public randomness only (k-means, cross-validation folds).
    noise_random_state : None or int, default=None
        **Tests only.** ``None``: the OS CSPRNG; an int: reproducible, not DP.
    accountant : None or BudgetAccountant, default=None
        Checked before any output is read; charged (ε, δ) once, before
        anything derived from the outputs is computed.

    Attributes
    ----------
    query_points_ : ndarray of shape (n_query, n_features)
    released_mean_ : ndarray of shape (n_query,)
        The DP release (output units).
    noise_std_ : ndarray of shape (n_query,)
        Standard deviation of the added DP noise at each query input (public).
    noise_cov_ : ndarray of shape (n_query, n_query)
        Covariance of the added DP noise (public).
    kernel_, alpha_ : the hyper-parameters used (public or privately selected).
    inducing_points_ : ndarray or None
    sensitivity_ : float
        Δ of the release in output units.
    solver_ : dict
        Cloaking solver diagnostics: rank, n_iter, converged, logdet_gap
        (certified bound on log det M − log det M*).
    selected_params_, candidate_params_ : with ``PrivateGridSelection``.
    privacy_report_ : PrivacyReport

    Notes
    -----
    Privacy: (ε_rel, δ)-DP release composed with an ε_sel-DP selection
    (basic composition); floating-point Gaussian noise from the OS CSPRNG
    (caveat in ``docs/dp_gp.md``).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.linspace(0, 10, 100)[:, None]  # public inputs
    >>> y = np.sin(X[:, 0])  # private outputs
    >>> gp = DPGaussianProcessRegressor(y_bounds=(-2.0, 2.0), delta=1e-3).fit(X, y)
    >>> gp.predict(X[:3]).shape, gp.privacy_report_.epsilon
    ((3,), 1.0)
    """

    _parameter_constraints: dict = {
        "kernel": [None, Kernel],
        "alpha": [Interval(numbers.Real, 0, None, closed="neither")],
        "y_bounds": [None, tuple, list],
        "y_offset": [None, numbers.Real],
        "y_scale": [None, Interval(numbers.Real, 0, None, closed="neither")],
        "method": [StrOptions({"cloaking", "standard"})],
        "epsilon": EPSILON_CONSTRAINTS,
        "delta": DELTA_CONSTRAINTS,
        "query_points": [None, "array-like"],
        "inducing_points": [
            None,
            Interval(numbers.Integral, 1, None, closed="left"),
            "array-like",
        ],
        "hyperparameter_selection": [None, PrivateGridSelection, PublicDataSelection],
        "paper_faithful": ["boolean"],
        "solver_tol": [Interval(numbers.Real, 0, None, closed="neither")],
        "random_state": ["random_state"],
        "noise_random_state": [None, numbers.Integral],
        "accountant": [None, BudgetAccountant],
    }

    def __init__(
        self,
        kernel=None,
        *,
        alpha=0.1,
        y_bounds=None,
        y_offset=None,
        y_scale=None,
        method="cloaking",
        epsilon=1.0,
        delta=1e-5,
        query_points=None,
        inducing_points=None,
        hyperparameter_selection=None,
        paper_faithful=False,
        solver_tol=1e-3,
        random_state=None,
        noise_random_state=None,
        accountant=None,
    ):
        self.kernel = kernel
        self.alpha = alpha
        self.y_bounds = y_bounds
        self.y_offset = y_offset
        self.y_scale = y_scale
        self.method = method
        self.epsilon = epsilon
        self.delta = delta
        self.query_points = query_points
        self.inducing_points = inducing_points
        self.hyperparameter_selection = hyperparameter_selection
        self.paper_faithful = paper_faithful
        self.solver_tol = solver_tol
        self.random_state = random_state
        self.noise_random_state = noise_random_state
        self.accountant = accountant

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.regressor_tags.poor_score = True
        # Fresh CSPRNG noise every fit unless the (tests-only) seed is set.
        tags.non_deterministic = self.noise_random_state is None
        return tags

    def _check_settings(self) -> dict:
        self._validate_params()
        # By hand as well: set_config(skip_parameter_validation) proof.
        owner = type(self).__name__
        epsilon = check_epsilon(self.epsilon, owner=owner)
        delta = check_delta(self.delta, owner=owner)
        require_positive_delta(
            delta, owner, "its release is the Gaussian mechanism, (epsilon, delta)-DP"
        )
        bounds = self.y_bounds
        ok = (
            isinstance(bounds, (tuple, list))
            and len(bounds) == 2
            and all(map(_is_real, bounds))
            and all(math.isfinite(float(b)) for b in bounds)
            and float(bounds[0]) < float(bounds[1])
        )
        if not ok:
            raise ValueError(
                "y_bounds must be a public clip interval (lo, hi) of finite numbers "
                f"with lo < hi, fixed from domain knowledge; got {bounds!r}. E.g. "
                "y_bounds=(90, 190) for adult heights in cm. It may not be computed "
                "from the private outputs."
            )
        lo, hi = float(bounds[0]), float(bounds[1])
        offset = 0.5 * (lo + hi) if self.y_offset is None else float(self.y_offset)
        scale = 0.25 * (hi - lo) if self.y_scale is None else float(self.y_scale)
        if not math.isfinite(offset):
            raise ValueError("y_offset must be finite.")
        sel = self.hyperparameter_selection
        candidates = sel.candidates() if isinstance(sel, PrivateGridSelection) else None
        eps_sel = 0.0 if candidates is None else epsilon * float(sel.epsilon_fraction)
        return {
            "epsilon": epsilon,
            "delta": delta,
            "eps_sel": eps_sel,
            "eps_rel": epsilon - eps_sel,
            "lo": lo,
            "hi": hi,
            "offset": offset,
            "scale": scale,
            "width": (hi - lo) / scale,
            "candidates": candidates,
        }

    def _inducing(self, spec, X, seed):
        if spec is None:
            return None
        if isinstance(spec, numbers.Integral) and not isinstance(spec, bool):
            uniq = np.unique(X, axis=0)
            if int(spec) >= uniq.shape[0]:
                return uniq
            from sklearn.cluster import KMeans

            km = KMeans(n_clusters=int(spec), n_init=1, random_state=seed).fit(X)
            return km.cluster_centers_
        Z = np.asarray(spec, dtype=float)
        if Z.ndim != 2 or Z.shape[1] != X.shape[1] or not np.all(np.isfinite(Z)):
            raise ValueError(
                "inducing_points must be an int or a finite array of shape "
                f"(m, {X.shape[1]}); got shape {Z.shape}."
            )
        return Z

    def _posterior(self, kernel, alpha, Z, X):
        if Z is None:
            return ExactPosterior(kernel, X, alpha)
        return InducingPosterior(kernel, X, alpha, Z)

    def _query(self, X):
        if self.query_points is None:
            Xq = np.unique(X, axis=0)
            if Xq.shape[0] > _MAX_DEFAULT_QUERY:
                raise ValueError(
                    f"X has {Xq.shape[0]} distinct rows; pass query_points (the "
                    "public inputs at which to release the mean, ideally only those "
                    "you need: fewer query inputs, less noise)."
                )
            return Xq
        return validate_data(self, self.query_points, reset=False, dtype=float)

    def _config(self, params: dict, X, seed):
        """(kernel, alpha, Z) of one configuration."""
        kernel = RBF(1.0) if self.kernel is None else clone(self.kernel)
        kernel.set_params(
            **{k[8:]: v for k, v in params.items() if k.startswith("kernel__")}
        )
        alpha = float(params.get("alpha", self.alpha))
        Z = self._inducing(params.get("inducing_points", self.inducing_points), X, seed)
        return kernel, alpha, Z

    def fit(self, X, y):
        """Release the DP posterior mean at the query inputs.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Public inputs.
        y : array-like of shape (n_samples,)
            Private outputs, mapped one by one into ``y_bounds``.

        Returns
        -------
        self : object
        """
        fitted = [a for a in vars(self) if a.endswith("_") and not a.startswith("_")]
        for attr in fitted:
            delattr(self, attr)
        s = self._check_settings()
        sel = self.hyperparameter_selection
        if isinstance(sel, PublicDataSelection) and _same_buffer(sel.y, y):
            # Object identity and memory layout only: never the values.
            raise ValueError(CONTRACT_ERROR)
        cost = (s["epsilon"], s["delta"])
        if self.accountant is not None:
            self.accountant.check(*cost)  # refusal changes nothing
        if self.noise_random_state is not None:
            warnings.warn(
                "noise_random_state is set: the DP noise is reproducible and whoever "
                "knows the seed can remove it, so the release is NOT differentially "
                "private. Use it in tests only.",
                PrivacyLeakWarning,
                stacklevel=2,
            )
        X = np.asarray(validate_data(self, X, dtype=float), dtype=float)
        y_records = _check_output_container(y, X.shape[0])
        del y
        seed = int(public_rng(self.random_state).integers(2**31 - 1))
        Xq = self._query(X)

        # ---- public: hyper-parameters, plans, sensitivities ----
        configs = [self._config(p, X, seed) for p in s["candidates"] or [{}]]
        if isinstance(sel, PublicDataSelection):
            kernel, alpha, Z = configs[0]
            kernel, alpha = sel.fit(
                kernel,
                alpha,
                lambda v: (np.clip(v, s["lo"], s["hi"]) - s["offset"]) / s["scale"],
                seed,
                inputs=X,  # public: compared with the selection inputs
            )
            configs = [(kernel, alpha, Z)]
        posteriors = [self._posterior(k, a, Z, X) for k, a, Z in configs]
        kw = dict(width=s["width"], epsilon=s["eps_rel"], delta=s["delta"])
        kw.update(paper_faithful=self.paper_faithful, solver_tol=self.solver_tol)
        plans = [plan_release(self.method, post, Xq, **kw) for post in posteriors]
        if not all(p.solver["converged"] for p in plans):  # public
            warnings.warn(
                "the cloaking solver stopped before its tolerance (see solver_); "
                "the release is still (epsilon, delta)-DP but its noise is not "
                "minimal. Use fewer query points or a larger solver_tol.",
                ConvergenceWarning,
                stacklevel=2,
            )
        reasons = sorted({r for p in plans for r in p.not_dp})  # public
        if reasons:
            some = " for some candidate configurations" if len(plans) > 1 else ""
            warnings.warn(
                "paper_faithful=True: the release is NOT differentially private at "
                f"epsilon={s['eps_rel']:g}, delta={s['delta']:g}{some}: "
                f"{'; '.join(reasons)}. Use paper_faithful=False (exact "
                "sensitivity, analytic calibration) for a DP release.",
                PrivacyLeakWarning,
                stacklevel=2,
            )
        selection = None
        if s["candidates"] is not None:
            e = sel.residual_bound
            e = 0.25 * (s["hi"] - s["lo"]) if e is None else e
            selection = plan_selection(
                configs,
                plans,
                X,
                n_folds=int(sel.n_folds),
                residual_bound=float(e) / s["scale"],
                width=s["width"],
                seed=seed + 1,
                make_posterior=self._posterior,
                account_for_noise=bool(sel.account_for_noise),
            )

        # ---- private: the first read of the outputs (cannot raise or warn) ----
        y_mapped = _map_outputs(y_records, s["lo"], s["hi"])
        del y_records
        # Charged once, before anything derived from the outputs is computed.
        if self.accountant is not None:
            self.accountant.spend(
                *cost, label=f"{type(self).__name__}(method={self.method!r})"
            )
        rng = check_privacy_rng(self.noise_random_state)
        releases, index = [], 0
        with quiet():  # errstate(all="ignore"): no user np.seterr can raise here
            y_n = (y_mapped - s["offset"]) / s["scale"]
            del y_mapped
            if selection is not None:
                index, release = selection.select(y_n, s["eps_sel"], rng)
                releases.append(release)
            plan = plans[index]
            released_n = plan.release(y_n, rng)
            del y_n
        releases.append(
            Release(
                quantity="released_mean_",
                value=None,
                mechanism=f"Gaussian ({self.method}, {plan.calibration} calibration)",
                epsilon=s["eps_rel"],
                delta=s["delta"],
                sensitivity=plan.sensitivity * s["scale"],
                noise_scale=plan.scale * s["scale"],
                guarantee=(
                    f"NOT DP ({'; '.join(plan.not_dp)})" if plan.not_dp else "(ε, δ)-DP"
                ),
                assumption="public X and query inputs, public clip interval and "
                "hyper-parameters; floating-point Gaussian sampler (docs/dp_gp.md). "
                "Each output is mapped on its own into y_bounds before it is read: "
                "NaN or a record that does not convert to a number becomes the "
                "midpoint of y_bounds, +-inf and every other value are clipped"
                + (
                    "; hyper-parameters fitted by marginal likelihood on the "
                    "PublicDataSelection data, assumed public and independent of "
                    "the private outputs (checked only for the very array passed "
                    "as y, never by comparing values)"
                    if isinstance(sel, PublicDataSelection)
                    else ""
                ),
                reference=_REFERENCE[self.method],
            )
        )
        self.kernel_, self.alpha_, self.inducing_points_ = configs[index]
        scale, offset = s["scale"], s["offset"]
        self.query_points_ = Xq
        self.released_mean_ = offset + scale * released_n
        self._noise_cov_n = plan.noise_covariance()
        self.noise_cov_ = self._noise_cov_n * scale**2
        self.noise_std_ = plan.noise_std() * scale
        self.sensitivity_ = plan.sensitivity * scale
        self.solver_ = dict(plan.solver)
        self.privacy_report_ = PrivacyReport(
            releases,
            self.method,
            neighbouring="same X (public); replace any one output y_i",
        )
        self._post = posteriors[index]
        self._scale, self._offset = scale, offset
        self._Lq = plan.query_factor  # factored while planning, before the spend
        self._interp = cho_solve((self._Lq, True), released_n, check_finite=False)
        self._rows = {
            row.tobytes(): i for i, row in enumerate(np.ascontiguousarray(Xq))
        }
        self._released_n = released_n
        if selection is not None:
            self.candidate_params_ = [dict(p) for p in s["candidates"]]
            self.selected_params_ = dict(s["candidates"][index])
            self.selected_index_ = int(index)
        return self

    def predict(self, X, return_std=False, return_cov=False):
        """Post-processing of the release (no privacy cost).

        Mean f̃(x) = a(x)ᵀ ỹ_*, a(x) = e_j at query input j, else
        (K_** + τI)⁻¹ k(X_*, x). ``return_std`` / ``return_cov``: the
        uncertainty of the *released* function about f,
        cov = Σ_*(X) + A(X) Σ_n A(X)ᵀ (Σ_* the GP posterior covariance,
        Σ_n = ``noise_cov_``), std² = diag(cov); both terms public. The
        interpolation bias off the query inputs is not included.
        """
        check_is_fitted(self, "released_mean_")
        if return_std and return_cov:
            raise RuntimeError(
                "At most one of return_std or return_cov can be requested."
            )
        X = np.ascontiguousarray(validate_data(self, X, reset=False, dtype=float))
        idx = np.array([self._rows.get(row.tobytes(), -1) for row in X], dtype=int)
        hit, miss = idx >= 0, idx < 0
        mean = np.empty(X.shape[0])
        mean[hit] = self._released_n[idx[hit]]
        if miss.any():
            mean[miss] = self.kernel_(X[miss], self.query_points_) @ self._interp
        mean = self._offset + self._scale * mean
        if not (return_std or return_cov):
            return mean
        A = np.zeros((X.shape[0], self.query_points_.shape[0]))  # f̃(X) = A ỹ_*
        A[np.flatnonzero(hit), idx[hit]] = 1.0
        if miss.any():
            Kq = self.kernel_(self.query_points_, X[miss])
            A[miss] = cho_solve((self._Lq, True), Kq, check_finite=False).T
        if return_std:
            noise_var = np.maximum(np.sum((A @ self._noise_cov_n) * A, axis=1), 0.0)
            return mean, self._scale * np.sqrt(self._post.variance(X) + noise_var)
        cov = self._post.covariance(X) + A @ self._noise_cov_n @ A.T
        return mean, self._scale**2 * cov

    def sample_y(self, X, n_samples=1, random_state=0):
        """Draws (public randomness) from N(predict(X), cov), cov of ``return_cov``."""
        mean, cov = self.predict(X, return_cov=True)
        L, _ = robust_cholesky(cov)
        rng = np.random.default_rng(public_rng(random_state).integers(2**63 - 1))
        return mean[:, None] + L @ rng.standard_normal((mean.size, int(n_samples)))
