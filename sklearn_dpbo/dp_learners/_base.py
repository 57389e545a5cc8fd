"""Shared parts of the DP learners: public row clipping, the noise, the checks.

Output perturbation (Chaudhuri, Monteleoni & Sarwate, JMLR 2011, Algorithm
1) releases w* + b, w* the minimiser of a Λ-strongly convex regularised
risk on clipped rows and b of density ∝ exp(−ε‖b‖/Δ), Δ the L2-sensitivity
of w* under replace-one (each learner derives its Δ): for neighbours D, D′,
p(w − w*(D))/p(w − w*(D′)) ≤ exp(ε‖w*(D) − w*(D′)‖/Δ) ≤ e^ε.

Each row is mapped on its own (:func:`map_features`, :func:`clip_rows`; a
row with a NaN is the zero row), each label compared with the public
``classes`` on its own (:func:`label_codes`); n, d and the containers'
types are public.
"""

from __future__ import annotations

import contextlib
import contextvars
import math
import numbers
import warnings

import numpy as np
from sklearn.utils.validation import check_is_fitted, column_or_1d, validate_data

from .._compat import CachedParamNamesMixin, Interval
from ..privacy._numbers import label_key, number_or_nan
from ..privacy._samplers import (
    as_random_source,
    granularity_exponent,
    round_to_grid,
    sample_gamma_on_lattice,
    sample_standard_normal,
)
from ..privacy._validation import (
    EPSILON_CONSTRAINTS,
    PrivacyLeakWarning,
    check_epsilon,
    check_privacy_rng,
)

GRADIENT_TOL = 1e-10
"""‖∇J(ŵ)‖ the solvers reach, relative to the public bound on one row's loss
gradient (so it stays above the float floor whatever the scales)."""

SOLVER_MAX_CONDITION = 1e5
"""κ_max: μ below L/(κ_max − 1) is raised to it (:func:`conditioned`); beyond
κ ≈ 10⁷ Newton can stall above the tolerance (``bench_solver_fuzz.py``)."""

SOLVER_MIN_ITER = 200
"""The solvers' least iteration cap (``max_iter`` below it acts as it)."""


def private_matrix(X, y) -> tuple[np.ndarray, int, int]:
    """(X as floats, n, d): X 2-D, len(y) = n ≥ 1 (shapes only)."""
    X = np.asarray(X, dtype=float)
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D; got an array of shape {X.shape}.")
    n, d = X.shape
    if n < 1 or len(y) != n:
        raise ValueError(f"X has {n} rows and y has {len(y)}: need n ≥ 1.")
    return X, n, d


def clip_rows(X, data_norm: float, *, intercept: bool) -> np.ndarray:
    """Rows of X as floats, non-finite rows zeroed, L2 norms clipped to ``data_norm``.

    With ``intercept`` a column 1 is appended after the clipping (norm ≤
    √(data_norm² + 1)). Row i of the result depends on row i of X only.
    """
    X = np.array(X, dtype=float)
    X[~np.isfinite(X).all(axis=1)] = 0.0
    # each row's norm scaled by its largest entry: no overflow or underflow
    scale = np.max(np.abs(X), axis=1) if X.shape[1] else np.zeros(X.shape[0])
    safe = np.where(scale > 0, scale, 1.0)
    norms = np.linalg.norm(X / safe[:, None], axis=1) * safe
    over = norms > data_norm
    X[over] *= (data_norm / norms[over])[:, None]
    if intercept:
        X = np.hstack([X, np.ones((X.shape[0], 1))])
    return X


def check_rows_container(X, owner: str) -> None:
    """Refuse X without an array type (a list or tuple of rows), from its type.

    NumPy converts a Python sequence in one pass and infers one shape and
    dtype from every entry: one ragged, nested or complex row would decide
    how every row is read, or whether ``fit`` raises (rule 6). Arrays,
    DataFrames and objects with ``__array__`` carry their shape and dtype.
    """
    from scipy import sparse

    if X is None or hasattr(X, "__array__") or sparse.issparse(X):
        return  # None and sparse X: validate_data's errors, from the type
    raise TypeError(
        f"{owner}.fit needs X as a NumPy array or a pandas DataFrame of shape "
        f"(n_samples, n_features); got {type(X).__name__}. NumPy would convert "
        "it in one pass over every entry (one ragged, nested or complex row "
        "could change how every row is read, or make fit raise): convert it "
        "yourself, e.g. np.asarray(X, dtype=float), and check its shape."
    )


BOUNDS_NORM_SHARE = 0.5
"""ρ: with ``bounds``, rows mapped into [−1, 1]^d are clipped to L2 norm ρ·√d."""


def check_bounds(bounds, d: int, owner: str) -> tuple[np.ndarray, np.ndarray]:
    """``bounds=(lower, upper)`` as two finite arrays of shape (d,), lower < upper."""
    try:
        lower, upper = bounds
        lower = np.broadcast_to(np.asarray(lower, dtype=float), (d,)).copy()
        upper = np.broadcast_to(np.asarray(upper, dtype=float), (d,)).copy()
    except (TypeError, ValueError):
        raise ValueError(
            f"{owner}(bounds=...) must be a pair (lower, upper) of numbers or of "
            f"arrays of shape ({d},), one entry per feature, declared from the "
            f"domain (never computed from the private data); got {bounds!r}."
        ) from None
    with np.errstate(over="ignore"):
        finite = np.isfinite((upper - lower) ** 2).all()
    if not (finite and np.isfinite(lower).all() and np.isfinite(upper).all()):
        raise ValueError(
            f"{owner}(bounds=...) must be finite, with (upper − lower)² finite "
            f"too (the map and the variances use it); got {bounds!r}."
        )
    if not (lower < upper).all():
        raise ValueError(
            f"{owner}(bounds=...) needs lower < upper for every feature; got "
            f"{bounds!r}."
        )
    return lower, upper


def map_features(X, bounds) -> np.ndarray:
    """x ↦ (clip(x, lower, upper) − (lower + upper)/2)/((upper − lower)/2) per entry
    (NaN stays NaN, ±inf goes to ±1); ``bounds=None``: X unchanged."""
    X = np.asarray(X, dtype=float)
    if bounds is None:
        return X
    lower, upper = bounds
    return (np.clip(X, lower, upper) - (lower + upper) / 2) / ((upper - lower) / 2)


def float_rows(X) -> np.ndarray:
    """A 2-D array as float64, entry by entry when not numeric (a non-number: NaN)."""
    if X.dtype.kind in "biuf":
        return X.astype(float)
    return np.frompyfunc(number_or_nan, 1, 1)(X).astype(float)


def _same(v, key) -> bool:
    try:
        return bool(label_key(v) == key)
    except Exception:  # noqa: BLE001 - this label's own failure: no match
        return False


def label_codes(y, classes) -> np.ndarray:
    """The index in ``classes`` of each label (−1: none), each compared on its own
    by :func:`~..privacy._numbers.label_key` (1, 1.0, "1" match a class 1)."""
    keys = [label_key(c) for c in classes]
    codes = np.full(len(y), -1)
    numeric = getattr(getattr(y, "dtype", None), "kind", "O") in "biuf"
    for k, key in enumerate(keys):
        if numeric and isinstance(key, numbers.Number):  # the same, vectorised
            codes[np.asarray(y) == key] = k
        else:
            codes[np.fromiter((_same(v, key) for v in y), bool, len(y))] = k
    return codes


def augmented_norm(data_norm: float, intercept: bool) -> float:
    """The public bound on a row's norm after :func:`clip_rows`."""
    return math.sqrt(data_norm**2 + 1.0) if intercept else float(data_norm)


def gradient_slack(strong_convexity: float, scale: float = 1.0) -> float:
    """2·GRADIENT_TOL·scale/Λ: ‖∇J(ŵ)‖ ≤ g gives ‖ŵ − w*‖ ≤ g/Λ for a Λ-strongly
    convex J, so two neighbours' ŵ are ≤ Δ(w*) + 2g/Λ apart (g = tol·scale)."""
    return 2.0 * GRADIENT_TOL * float(scale) / strong_convexity


def conditioned(strong_convexity: float, smoothness: float) -> float:
    """max(μ, L/(κ_max − 1)), L the public curvature bound: condition ≤ κ_max."""
    floor = float(smoothness) / (SOLVER_MAX_CONDITION - 1.0)
    return max(float(strong_convexity), floor)


def solver_iterations(max_iter: int) -> int:
    """The iteration cap: ``max_iter``, at least :data:`SOLVER_MIN_ITER`."""
    return max(int(max_iter), SOLVER_MIN_ITER)


class SolverError(RuntimeError):
    """A solver missed its certified gradient tolerance (outside the guarantee)."""


def sample_gamma_norm_noise(d: int, scale: float, rng) -> np.ndarray:
    """b ∈ R^d with density ∝ exp(−‖b‖/scale): uniform direction, Gamma(d, scale) norm.

    In polar coordinates b has density ∝ r^(d−1)e^(−r/s)/r^(d−1) = e^(−‖b‖/s),
    so w + b and w′ + b have density ratio ≤ e^(‖w − w′‖/s). The norm is
    exact in the far tail too (:func:`~..privacy._samplers.sample_gamma_on_lattice`
    on the public grid 2^k ≤ scale/2^20); the direction is d normalised
    standard normals (float, error ~2^−52, far below the grid step); the
    release is rounded to the grid (:func:`release_weights`).
    """
    source = as_random_source(rng)
    while True:
        z = sample_standard_normal(d, source)
        length = math.sqrt(float(z @ z))  # np.linalg.norm's own formula
        if length > 0:
            break
    step = 2.0 ** granularity_exponent(scale)
    radius = sample_gamma_on_lattice(d, scale, step, source)
    return z / length * radius


def release_weights(w: np.ndarray, sensitivity: float, epsilon: float, rng):
    """w + b, b ∝ exp(−ε‖b‖/Δ), rounded to the public grid 2^k ≤ (Δ/ε)/2^20."""
    scale = sensitivity / epsilon
    noisy = w + sample_gamma_norm_noise(w.size, scale, rng)
    return round_to_grid(noisy, scale)


NO_BOUNDS_MESSAGE = (
    "{owner} got no bounds: every row is clipped to L2 norm {norm:g} "
    "(data_norm={norm:g}) and the bounds are never read from the data. A row "
    "with a larger norm keeps only its direction, so raw features (e.g. in the "
    "hundreds) all land on the sphere and lose their magnitude; rows well "
    "inside it are swamped by noise scaled to it. Declare bounds=(lower, upper) "
    "from the domain (scalars or one entry per feature) to map each feature "
    "into the ball, or data_norm=... for rows you have already scaled."
)


def _element(v):
    """A one-element list, tuple or array entry as its element, else ``v``."""
    if isinstance(v, (list, tuple)) and len(v) == 1:
        return v[0]
    if isinstance(v, np.ndarray) and v.size == 1:
        return v.reshape(-1)[0]
    return v


def check_targets(y, n: int, owner: str):
    """``y`` as a 1-D array of n entries, from its shape and type only (a list or
    tuple as an object array entry by entry; a column raveled with a warning)."""
    if y is None:
        raise ValueError(f"{owner} requires y to be passed, but the target y is None.")
    if isinstance(y, (list, tuple)):  # a column's [v] entry as v, entry by entry
        y = np.fromiter(map(_element, y), dtype=object, count=len(y))
    else:
        y = column_or_1d(y, warn=True)
    if y.shape[0] != n:
        raise ValueError(
            f"{owner}: X has {n} rows and y has {y.shape[0]}; they must match."
        )
    return y


def check_label_types(y, classes, owner: str) -> None:
    """Refuse, from the dtype only, labels that cannot match ``classes`` (strings vs
    numbers; floats vs whole-number classes, whether floats are whole is private)."""
    kind = getattr(getattr(y, "dtype", None), "kind", "O")
    keys = [label_key(c) for c in classes]
    textual = [isinstance(k, (str, bytes)) for k in keys]
    if kind in "USa" and not any(textual):
        raise TypeError(
            f"{owner} got string labels (dtype {y.dtype}) but classes="
            f"{classes!r}: no label would match. Declare the classes "
            "(public, never read from the data) with the labels' type, e.g. "
            "classes=('no', 'yes')."
        )
    whole = [
        isinstance(k, numbers.Integral) or (isinstance(k, float) and k.is_integer())
        for k in keys
    ]
    if kind in "fc" and all(whole):
        raise ValueError(
            f"Unknown label type: {owner} got float labels (dtype "
            f"{y.dtype}) and whole-number classes={classes!r}; a "
            "continuous target is not a set of classes, and whether the "
            "floats are whole numbers is not read from the private labels. "
            "Cast y to the classes' type (e.g. y.astype(int)) or use "
            "DPLinearRegression for a continuous target."
        )
    if kind in "biuf" and all(textual):
        raise TypeError(
            f"{owner} got numeric labels (dtype {y.dtype}) but classes="
            f"{classes!r}: no label would match. Declare the classes as "
            "the numbers in y, e.g. classes=(0, 1)."
        )


def check_weights(sample_weight, n: int, owner: str):
    """Per-row weights read on their own and clipped into [0, 1] (NaN, −inf: 0;
    +inf: 1; a weight above 1 would raise the sensitivity), or None."""
    if sample_weight is None:
        return None
    if isinstance(sample_weight, numbers.Number):
        w = np.full(n, sample_weight, dtype=object)
    else:
        w = check_targets(sample_weight, n, owner)
    w = float_rows(np.asarray(w).reshape(-1, 1))[:, 0]
    return np.clip(np.nan_to_num(w, nan=0.0, posinf=1.0, neginf=0.0), 0.0, 1.0)


_CHECKED_ROWS: contextvars.ContextVar = contextvars.ContextVar(
    "checked_rows", default=None
)


@contextlib.contextmanager
def checked_rows(X: np.ndarray):
    """Within, this package's learners predict on this very array ``X`` (the
    library's own 2-D float64 validation rows) without ``validate_data``."""
    token = _CHECKED_ROWS.set(X)
    try:
        yield
    finally:
        _CHECKED_ROWS.reset(token)


SHARED_CONSTRAINTS: dict = {
    "epsilon": EPSILON_CONSTRAINTS,
    "bounds": [None, tuple, list],
    "data_norm": [None, Interval(numbers.Real, 0, None, closed="neither")],
    "fit_intercept": ["boolean"],
    "noise_random_state": [None, Interval(numbers.Integral, 0, None, closed="left")],
}
"""The ``_parameter_constraints`` every DP learner shares."""


class DPLearnerMixin(CachedParamNamesMixin):
    """What the private-model mode reads and trusts in a learner of this package.

    ``epsilon`` is the per-fit cost (replace-one, n public), every bound a
    constructor parameter, ``noise_random_state=None`` the OS CSPRNG.
    :meth:`_fit_private` fits with an explicit noise source on validated
    parameters (the search validates every candidate before any row is
    read) and re-checks ε, ``bounds`` and ``data_norm``. Rows: as
    :class:`~._logistic.DPLogisticRegression` documents (:meth:`_ball`).
    """

    _dp_learner = True

    def __sklearn_tags__(self):
        """Non-deterministic, NaN allowed (the zero row), no sparse, poor score."""
        tags = super().__sklearn_tags__()
        tags.non_deterministic = True
        tags.input_tags.allow_nan = True
        tags.input_tags.sparse = False
        for kind in ("classifier_tags", "regressor_tags"):
            if getattr(tags, kind, None) is not None:
                getattr(tags, kind).poor_score = True
        return tags

    def _check_privacy_params(self) -> float:
        """ε, and ``bounds``/``data_norm`` as far as they can be checked without d."""
        owner = type(self).__name__
        eps = check_epsilon(self.epsilon, owner=owner)
        norm, bounds = self.data_norm, self.bounds
        if bounds is not None and norm is not None:
            raise ValueError(
                f"{owner} takes bounds=(lower, upper) for raw features or "
                "data_norm for rows you have already scaled into a ball, not "
                "both: with bounds the ball is the learner's own."
            )
        if norm is not None and (
            isinstance(norm, bool)
            or not isinstance(norm, numbers.Real)
            or not (math.isfinite(norm) and norm > 0)
        ):
            raise ValueError(
                f"{owner} needs a public data_norm: a finite number > 0 given "
                f"by you, never read from the data; got data_norm={norm!r}."
            )
        if bounds is not None:  # d unknown here: an array's own length
            try:
                d = max([np.size(b) for b in bounds] + [1])
            except (TypeError, ValueError):
                d = 1  # check_bounds says what is wrong
            check_bounds(bounds, d, owner)
        return eps

    def _no_bounds_message(self) -> str | None:
        """The warning when neither ``bounds`` nor ``data_norm`` is given, else None."""
        if self.bounds is None and self.data_norm is None:
            return NO_BOUNDS_MESSAGE.format(owner=type(self).__name__, norm=1.0)
        return None

    def _ball(self, d: int):
        """(bounds as arrays or None, the clipping norm, R with the intercept)."""
        if self.bounds is not None:
            bounds = check_bounds(self.bounds, d, type(self).__name__)
            norm = BOUNDS_NORM_SHARE * math.sqrt(d) if d else 1.0
        else:
            bounds = None
            norm = 1.0 if self.data_norm is None else float(self.data_norm)
        return bounds, norm, augmented_norm(norm, self.fit_intercept)

    def _float_rows(self, X, *, reset: bool) -> np.ndarray:
        """``validate_data`` without the finiteness check, then floats per entry
        (of scikit-learn's 1-D/complex X messages only line one: no values)."""
        kw = {"accept_sparse": False, "dtype": None, "ensure_all_finite": False}
        try:
            X = validate_data(self, X, reset=reset, **kw)
        except ValueError as exc:
            first = str(exc).split("\n", 1)[0].rstrip(": ")
            if not first.startswith(("Expected 2D array", "Complex data")):
                raise
            raise ValueError(
                f"{type(self).__name__}: {first} (the values are not shown). "
                "Reshape your data: X.reshape(-1, 1) for one feature, "
                "X.reshape(1, -1) for one sample; features must be real numbers."
            ) from None
        return float_rows(X)

    def _noise_source(self):
        if self.noise_random_state is not None:
            warnings.warn(
                f"{type(self).__name__}(noise_random_state=...) is set: its "
                "noise is reproducible and can be removed by whoever knows the "
                "seed; the model is NOT differentially private. Tests only.",
                PrivacyLeakWarning,
                stacklevel=3,
            )
        return check_privacy_rng(self.noise_random_state)

    def _check_targets(self, y, n: int):
        """Hook: ``y`` checked from its type and shape (:func:`check_targets`)."""
        return check_targets(y, n, type(self).__name__)

    def fit(self, X, y, sample_weight=None):
        """Fit on private rows; ε-DP (``sample_weight`` clipped into [0, 1])."""
        self._validate_params()
        self._check_privacy_params()
        message = self._no_bounds_message()
        if message is not None:
            warnings.warn(message, UserWarning, stacklevel=2)
        check_rows_container(X, type(self).__name__)
        rng = self._noise_source()
        X = self._float_rows(X, reset=True)
        self._ball(X.shape[1])  # the bounds' shape against d, before any value
        y = self._check_targets(y, X.shape[0])
        weights = check_weights(sample_weight, X.shape[0], type(self).__name__)
        with np.errstate(all="ignore"):
            return self._fit_private(X, y, rng, sample_weight=weights)

    def _predict_rows(self, X) -> np.ndarray:
        """Rows to predict on: checked like ``fit``'s (but the library's own
        :func:`checked_rows`), mapped by the same public map."""
        if not (
            X is not None
            and X is _CHECKED_ROWS.get()
            and getattr(self, "n_features_in_", None) == X.shape[1]
            and not hasattr(self, "feature_names_in_")
        ):
            check_is_fitted(self)
            X = self._float_rows(X, reset=False)
        with np.errstate(all="ignore"):
            return self._rows(X)
