"""Hyper-parameters of the DP GP: private selection from a public grid, or public data.

:class:`PrivateGridSelection` (Smith et al. 2018, §3 "Hyperparameter
optimisation", with a corrected sensitivity: spec DP_GP.md §5.3 [S][D])
    Every configuration h of a public grid (kernel parameters, noise
    variance, number of inducing inputs) is scored by K-fold cross-validation
    on the private outputs with the clipped squared residual
    g(r) = clip(r, −e, e)², and one is chosen by permute-and-flip
    (McKenna & Sheldon 2020) on

        u(h) = −Σ_f Σ_{i ∈ T_f} g(y_i − ŷ_i^{(f)}(h)) − n · p(h),

    where ŷ^{(f)} = C^{(f)}(h) y_{R_f} is the non-private posterior mean of
    fold f and p(h) the mean variance of the DP noise the final release
    would add at the query inputs under h (public: it depends on X, X_*,
    h and the release budget only). p(h) makes the score estimate the
    released vector's mean squared error, so a configuration whose release
    is too noisy is not chosen; being data-free it changes no sensitivity.

    Sensitivity (replace y_j by y_j + t, |t| ≤ d): g is bounded by e² and
    2e-Lipschitz, so a residual moving by ρ changes g by at most
    min(e², 2e|ρ|). Point j is in the test part of exactly one fold (its
    residual moves by t) and in the training part of the others (residual
    i of fold f moves by t·C^{(f)}_ij). Hence, exactly per j,

        Δ(h) = max_j [ min(e², 2ed)
                       + Σ_{f: j ∈ R_f} Σ_{i ∈ T_f} min(e², 2ed |C^{(f)}_ij|) ],

    which is at most the spec's ``t + Σ_f s_f − min_f s_f``; Δu = max_h Δ(h).
    The paper's bound (d² max_j ‖c_j‖² per training fold, then summed) is
    not valid (spec §5.2) and is not offered.

:class:`PublicDataSelection`: marginal likelihood on public data (no cost).
"""

from __future__ import annotations

import numbers
import warnings
from collections import Counter
from dataclasses import dataclass

import numpy as np
from sklearn.model_selection import ParameterGrid

from ..privacy._accounting import Release
from ..privacy._mechanisms import permute_and_flip


def _is_real(x) -> bool:
    return isinstance(x, numbers.Real) and not isinstance(x, bool)


class PrivateGridSelection:
    """Private choice of GP hyper-parameters from a public grid.

    Parameters
    ----------
    param_grid : dict or list of dict
        Public grid over the regressor's ``alpha``, ``inducing_points`` and
        ``kernel__<name>`` parameters, e.g.
        ``{"kernel__length_scale": [5, 10, 25], "alpha": [0.1, 0.3]}``.
        Fixed before any data is read.
    epsilon_fraction : float in (0, 1), default=0.5
        Share of the regressor's ``epsilon`` spent on the selection (pure
        ε-DP); the rest, and all of δ, goes to the release.
    n_folds : int >= 2, default=5
        K of the K-fold partition (public: drawn from ``random_state``).
    residual_bound : float or None, default=None
        e, the clip of each residual, in output units. ``None``: a quarter
        of the clip interval's width. Public.
    account_for_noise : bool, default=True
        Add the public penalty n·p(h) (mean DP-noise variance of the final
        release under h) to the score.
    """

    def __init__(
        self,
        param_grid,
        *,
        epsilon_fraction: float = 0.5,
        n_folds: int = 5,
        residual_bound: float | None = None,
        account_for_noise: bool = True,
    ):
        self.param_grid = param_grid
        self.epsilon_fraction = epsilon_fraction
        self.n_folds = n_folds
        self.residual_bound = residual_bound
        self.account_for_noise = account_for_noise

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in vars(self).items())
        return f"PrivateGridSelection({args})"

    def candidates(self) -> list[dict]:
        """The grid as a list of parameter dicts (checked, public)."""
        frac, k, e = self.epsilon_fraction, self.n_folds, self.residual_bound
        if not (_is_real(frac) and 0 < frac < 1):
            raise ValueError(
                f"epsilon_fraction must be in (0, 1); got {frac!r}. Pass e.g. 0.5."
            )
        if isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 2:
            raise ValueError(f"n_folds must be an int >= 2; got {k!r}.")
        if e is not None and not (_is_real(e) and 0 < e < np.inf):
            raise ValueError(f"residual_bound must be None or > 0; got {e!r}.")
        params = list(ParameterGrid(self.param_grid))
        if not params:
            raise ValueError("param_grid is empty.")
        bad = {k for p in params for k in p if not k.startswith("kernel__")}
        bad -= {"alpha", "inducing_points"}
        if bad:
            raise ValueError(
                f"param_grid names {sorted(bad)}; only 'alpha', "
                "'inducing_points' and 'kernel__<name>' can be selected."
            )
        return params


PUBLIC_DATA_CONTRACT = (
    "PublicDataSelection's data must be public and independent of the private "
    "outputs y passed to fit: the kernel and noise variance fitted on them are "
    "released without noise, so any dependence on y is a leak outside the "
    "(epsilon, delta) guarantee."
)
CONTRACT_ERROR = (
    PUBLIC_DATA_CONTRACT + " The selection outputs given here are the very array "
    "passed to fit as y (or a view of it). Nothing was read, charged or released. "
    "Pass a public data set of the same kind, or use PrivateGridSelection to "
    "choose the hyper-parameters privately."
)
SHARED_INPUTS_WARNING = (
    PUBLIC_DATA_CONTRACT + " The selection inputs are, row for row, inputs passed "
    "to fit (a copy, reordering or subset of X): that is fine for public outputs "
    "measured at the same inputs, but if the selection outputs are the private "
    "outputs or derived from them, the release is NOT differentially private. "
    "This is checked on the public inputs only; the private outputs are never "
    "compared."
)


class PublicDataSelection:
    """Hyper-parameters fitted by marginal likelihood on *public* data.

    scikit-learn's ``GaussianProcessRegressor`` with the estimator's kernel
    plus a ``WhiteKernel``, after the regressor's public clipping and scaling.
    Contract: :data:`PUBLIC_DATA_CONTRACT`; ``fit`` refuses the very array
    passed as ``y`` (or a view) and warns (:data:`SHARED_INPUTS_WARNING`).

    Parameters
    ----------
    X, y : array-like
        A public data set of the same kind (never the private one): its
        outputs are clipped and scaled with the regressor's public constants.
    n_restarts_optimizer : int, default=2
        Passed to scikit-learn's ``GaussianProcessRegressor``.
    """

    def __init__(self, X, y, *, n_restarts_optimizer: int = 2):
        self.X = X
        self.y = y
        self.n_restarts_optimizer = n_restarts_optimizer

    def __repr__(self) -> str:
        return (
            f"PublicDataSelection(<{np.shape(self.X)[0]} public rows>, "
            f"n_restarts_optimizer={self.n_restarts_optimizer!r})"
        )

    def fit(self, kernel, alpha, y_norm_fn, random_state, *, inputs=None):
        """(fitted kernel, fitted noise variance) on the public data."""
        from sklearn.gaussian_process import GaussianProcessRegressor
        from sklearn.gaussian_process.kernels import WhiteKernel
        from sklearn.utils.validation import check_X_y, column_or_1d

        try:  # finite X, and finite y with one output per row of X
            y = column_or_1d(np.asarray(self.y, dtype=float))
            X, y = check_X_y(self.X, y, dtype=float)
        except (TypeError, ValueError) as exc:
            raise ValueError(
                f"PublicDataSelection's public data are not a numeric table X and "
                f"a 1-D vector y of finite numbers, one per row of X: {exc}"
            ) from exc
        if inputs is not None and _inputs_are_private_inputs(X, inputs):
            warnings.warn(SHARED_INPUTS_WARNING, UserWarning, stacklevel=3)
        gpr = GaussianProcessRegressor(
            kernel=kernel + WhiteKernel(alpha, noise_level_bounds=(1e-4, 1e2)),
            alpha=1e-10,
            n_restarts_optimizer=self.n_restarts_optimizer,
            random_state=random_state,
        )
        gpr.fit(X, y_norm_fn(y))
        return gpr.kernel_.k1, float(gpr.kernel_.k2.noise_level)


def cv_sensitivity(maps, folds, n: int, e: float, width: float) -> float:
    """Δ(h), the exact per-j bound above: ``maps[f]`` = C^{(f)} (|T_f| × |R_f|),
    ``folds[f]`` = (R_f, T_f); ``e``, ``width`` (= d) in normalised units."""
    total = np.zeros(n)  # per j: Σ_{f: j ∈ R_f} Σ_{i ∈ T_f} min(e², 2ed|C_ij|)
    for (train, _test), C in zip(folds, maps):
        total[train] += np.minimum(e * e, 2.0 * e * width * np.abs(C)).sum(axis=0)
    return float(min(e * e, 2.0 * e * width) + np.max(total))


def cv_sse(maps, folds, y: np.ndarray, e: float):
    """Σ_f Σ_{i ∈ T_f} clip(y_i − ŷ_i, −e, e)² (private): a float for y of shape
    (n,), the m scores for a stack of shape (m, n)."""
    total = 0.0
    for (train, test), C in zip(folds, maps):
        r = np.clip(y[..., test] - (C @ y[..., train].T).T, -e, e)
        total += float(r @ r) if r.ndim == 1 else np.einsum("ij,ij->i", r, r)
    return total


@dataclass(frozen=True)
class SelectionPlan:
    """Folds, CV maps, Δu and noise penalties (all public: no output read)."""

    maps: list  # maps[h][f] = C^{(f)}(h)
    folds: list  # [(R_f, T_f)]
    residual_bound: float  # e, normalised units
    sensitivity: float  # Δu = max_h Δ(h)
    penalties: list  # n · p(h)

    def select(self, y: np.ndarray, epsilon: float, rng) -> tuple[int, Release]:
        """Permute-and-flip on u(h) (reads the clipped normalised outputs)."""
        utilities = [
            -(cv_sse(maps, self.folds, y, self.residual_bound) + pen)
            for maps, pen in zip(self.maps, self.penalties)
        ]
        index = permute_and_flip(utilities, epsilon, self.sensitivity, rng=rng)
        release = Release(
            quantity="selected_params_",
            value=index,
            mechanism="permute-and-flip",
            epsilon=epsilon,
            delta=0.0,
            sensitivity=self.sensitivity,
            noise_scale=2.0 * self.sensitivity / epsilon,
            guarantee="pure ε-DP",
            assumption="none (K-fold CV score with clipped residuals; "
            "sensitivity in scaled output units², docs/dp_gp.md)",
            reference="Smith et al. (2018) §3 hyper-parameter selection, "
            "corrected sensitivity (spec DP_GP.md §5.3); McKenna & "
            "Sheldon (2020)",
        )
        return int(index), release


def plan_selection(
    configs,
    plans,
    X: np.ndarray,
    *,
    n_folds: int,
    residual_bound: float,
    width: float,
    seed: int,
    make_posterior,
    account_for_noise: bool = True,
) -> SelectionPlan:
    """The public part of the selection: folds from ``seed``, ``configs[h] =
    (kernel, alpha, Z)``, ``plans[h]`` its release plan (for the penalty)."""
    n = X.shape[0]
    if n < n_folds:
        raise ValueError(
            f"PrivateGridSelection needs at least n_folds={n_folds} rows (one per "
            f"fold); got n_samples={n}. Pass more rows or a smaller n_folds."
        )
    perm = np.random.default_rng(seed).permutation(n)
    tests = [np.sort(perm[f::n_folds]) for f in range(n_folds)]
    folds = [(np.setdiff1d(np.arange(n), test), test) for test in tests]
    maps_all = [  # maps_all[h][f] = C^{(f)}(h)
        [make_posterior(k, a, Z, X[tr]).mean_map(X[te]) for tr, te in folds]
        for k, a, Z in configs
    ]
    sens = [cv_sensitivity(m, folds, n, residual_bound, width) for m in maps_all]
    penalties = [
        n * float(np.mean(p.noise_std() ** 2)) if account_for_noise else 0.0
        for p in plans
    ]
    return SelectionPlan(maps_all, folds, residual_bound, float(max(sens)), penalties)


def _same_buffer(a, b) -> bool:
    """Whether ``a`` is ``b`` or an array sharing its memory (values never read;
    exact test: two columns of one table do not share memory)."""
    arrays = isinstance(a, np.ndarray) and isinstance(b, np.ndarray)
    return a is b or (arrays and bool(np.shares_memory(a, b)))


def _inputs_are_private_inputs(Xs: np.ndarray, X: np.ndarray) -> bool:
    """Whether every selection input row is a distinct row of the public ``X``."""
    if Xs.ndim != 2 or Xs.shape[1] != X.shape[1] or Xs.shape[0] > X.shape[0]:
        return False

    def rows(A):
        return Counter(r.tobytes() for r in np.ascontiguousarray(A + 0.0, np.float64))

    return not rows(Xs) - rows(X)  # Counter "-" keeps positive counts only
