"""Gaussian naive Bayes, ε-DP by noisy sufficient statistics (Vaidya et al. 2013)."""

from __future__ import annotations

import math
import numbers
from fractions import Fraction

import numpy as np
from scipy.special import logsumexp
from sklearn.base import BaseEstimator, ClassifierMixin

from .._compat import Interval
from ..privacy._numbers import label_key
from ..privacy._samplers import (
    as_random_source,
    granularity_exponent,
    sample_discrete_laplace,
)
from ..privacy._validation import EPSILON_CONSTRAINTS, check_epsilon
from ._base import (
    DPLearnerMixin,
    check_bounds,
    check_label_types,
    check_targets,
    label_codes,
    private_matrix,
)

__all__ = ["DPGaussianNB", "release_sums"]

NO_BOUNDS_MESSAGE = (
    "DPGaussianNB got no bounds: every feature is clipped to [-1, 1] and the "
    "bounds are never read from the data. Raw features outside that range "
    "all land on its ends and lose their values. Declare bounds=(lower, "
    "upper) from the domain (scalars or one entry per feature)."
)


def release_sums(
    values, sensitivity: float, n_changed: int, n: int, epsilon: float, rng
) -> tuple[np.ndarray, float]:
    """ε-DP release of a vector of sums with L1 sensitivity Δ, on a public grid.

    ``values`` are correctly rounded sums (``math.fsum``) of n per-record
    terms; replacing one record changes at most ``n_changed`` entries and
    their exact sums by at most Δ in L1. Each entry is rounded to the
    nearest multiple of the public step g = 2^k ≤ (Δ/ε)/2^20
    (:func:`~..privacy._samplers.granularity_exponent`; exact, g is a power
    of two) and gets its own exact discrete Laplace noise
    (:func:`~..privacy._samplers.sample_discrete_laplace`) of scale
    (Δ + n_changed·(g + n·2^−52))/(ε g) steps.

    Proof: an entry's exact sum S moves by Δ_i with Σ|Δ_i| ≤ Δ. fsum
    returns S correctly rounded, within ulp(S)/2 ≤ 2^−53·|S| ≤ 2^−53·n of
    it (each term has |term| ≤ 1), and rounding to the grid moves a value by
    at most g/2: the released integers of neighbours differ by at most
    (|Δ_i| + n·2^−52 + g)/g in each changed entry and not at all in the
    others, by at most (Δ + n_changed·(g + n·2^−52))/g in L1, which the
    discrete Laplace scale turns into a density ratio ≤ e^ε (the float
    result, (integer + draw)·g, is post-processing of their sum). Returns
    the released values and the noise scale in value units.
    """
    step = 2.0 ** granularity_exponent(sensitivity / epsilon)
    slack = int(n_changed) * (Fraction(step) + Fraction(int(n), 2**52))
    scale = (Fraction(sensitivity) + slack) / (Fraction(epsilon) * Fraction(step))
    grid = np.rint(np.asarray(values, dtype=float) / step)
    source = as_random_source(rng)
    noise = np.array(
        [float(sample_discrete_laplace(scale, source)) for _ in range(grid.size)]
    ).reshape(grid.shape)
    return (grid + noise) * step, float(scale * Fraction(step))


def _shares(shares) -> tuple[float, float, float]:
    """``epsilon_shares`` as three positive fractions summing to 1 (public)."""
    try:
        parts = [float(s) for s in shares]
    except (TypeError, ValueError):
        parts = []
    if (
        len(parts) != 3
        or isinstance(shares, (str, bytes))
        or not all(math.isfinite(p) and p > 0 for p in parts)
    ):
        raise ValueError(
            "DPGaussianNB(epsilon_shares=...) must be three positive numbers "
            "(the weights of the counts, the sums and the sums of squares in "
            f"epsilon), e.g. (0.05, 0.75, 0.2); got {shares!r}."
        )
    total = sum(parts)
    return parts[0] / total, parts[1] / total, parts[2] / total


def _fsums(terms, codes, k: int) -> list[float]:
    """Correctly rounded column sums of the rows of class k (math.fsum)."""
    return [math.fsum(col) for col in terms[codes == k].T]


class DPGaussianNB(DPLearnerMixin, ClassifierMixin, BaseEstimator):
    """Gaussian naive Bayes, ε-DP by noisy per-class sufficient statistics.

    Design of Vaidya, Shafiq, Basu & Hong (WI-IAT 2013) and diffprivlib's
    ``GaussianNB`` (public bounds, Laplace noise), with the class sizes
    released too instead of assumed public, so that the guarantee holds
    under replace-one with n public only.

    Rows: each feature is clipped to its public ``bounds`` (lower_j,
    upper_j) and mapped onto [−1, 1], u_j = (x_j − m_j)/h_j with m_j the
    midpoint and h_j the half-width; a NaN or non-number entry is the
    midpoint (u_j = 0), ±inf the bound. Each row's map reads that row and
    public values only; ``predict`` maps rows the same way. Each label is
    compared with the public ``classes`` on its own; a label outside them
    belongs to no class (it is not counted).

    Released (K classes, d features, ``sample_weight`` w_i clipped into
    [0, 1], 1 by default), each with the noise of :func:`release_sums`::

        c_k  = Σ_{y_i = k} w_i                     Δ_c = 2,   ε_c = s_c ε
        S_kj = Σ_{y_i = k} w_i u_ij                Δ_S = 2d,  ε_S = s_S ε
        Q_kj = Σ_{y_i = k} w_i (u_ij² − 1/2)       Δ_Q = d,   ε_Q = s_Q ε

    with (s_c, s_S, s_Q) = ``epsilon_shares`` normalised to sum 1. With
    ``shared_variance=True`` (the default) the squares are pooled over the
    classes instead, one entry per feature (a diagonal covariance shared by
    the classes, as in linear discriminant analysis): Q_j = Σ_{y_i ∈
    classes} w_i (u_ij² − 1/2), Δ_Q = d, with K times fewer noisy entries,
    each divided by all the rows instead of one class's.

    **Sensitivity (replace-one, n public).** Each record adds a term t(x) to
    the sums of its own class, and no term to another class; the terms are
    centred: |w| ≤ 1, |w u_j| ≤ 1, |w (u_j² − 1/2)| ≤ 1/2 (u_j² ∈ [0, 1]).
    Replacing record (x, y) by (x′, y′): if y = y′ the entry of that class
    moves by |t(x) − t(x′)| ≤ 2·max|t|; otherwise the entry of y loses
    t(x) and that of y′ gains t(x′), |t(x)| + |t(x′)| ≤ 2·max|t| in L1; a
    label outside ``classes`` removes one of the two terms. So, in L1 over
    the K entries of one feature: 2 for the counts, 2 for the sums, 1 for
    the squares (centring the squares at 1/2 halves their sensitivity), and
    over the d features Δ_S = 2d, Δ_Q = d; at most 2 entries per feature
    change (``n_changed`` = 2, 2d, 2d). Pooled squares: the record's term
    (in [−1/2, 1/2], or none outside ``classes``) is replaced in the one
    entry of each feature, |q − q′| ≤ 1: Δ_Q = d, ``n_changed`` = d.
    Each block is then ε_B-DP (:func:`release_sums`, which covers the
    rounding of the sums and the grid), and the three together ε-DP by
    basic composition (the noise of each is fresh). With per-class squares
    the constants are tight: moving a record at u = +1 (every feature) from
    one class to one at u = −1 in another moves each block by its whole Δ
    (``tests/dp_learners/test_naive_bayes.py`` audits that pair in both
    modes, and catches the variant with half the sensitivities). Pooled,
    that record's squares do not move (u² = 1 on both sides), and no record
    moves all three blocks by their whole Δ at once: ε is then an upper
    bound (on that pair the loss is (s_c + s_S) ε).

    **The model (post-processing, never fails).** With public floors:
    ĉ_k = max(c_k, 1); prior ĉ_k/Σĉ; mean μ_kj = clip(S_kj/ĉ_k, −1, 1);
    second moment M_kj = clip(Q_kj/ĉ_k + 1/2, 0, 1); variance
    clip(M_kj − μ_kj², 0, 1) + ``var_smoothing`` (in units of h_j², the
    largest variance the bounds allow). Pooled: M_j = clip(Q_j/Σĉ + 1/2,
    0, 1) and the within-class variance clip(M_j − Σ_k ĉ_k μ_kj²/Σĉ, 0, 1)
    + ``var_smoothing`` for every class. ``theta_`` and ``var_`` are these
    in the features' own units (m_j + h_j μ, h_j² var).

    Privacy: pure ε-DP per ``fit`` with respect to replacing any one row
    of ``X, y`` (n public). The noise comes from the OS CSPRNG
    (``noise_random_state=None``) through exact integer samplers.

    Parameters
    ----------
    epsilon : float, default=1.0
        Privacy cost of one ``fit``.
    bounds : (lower, upper) or None, default=None
        Public bounds of the features (numbers, or arrays with one entry
        per feature), declared from the domain, never computed from the
        private rows. None: [−1, 1] for every feature (``fit`` warns).
    classes : tuple of labels, default=(0, 1)
        The public labels (numbers or strings, two or more), never read from
        y. A label outside them is not counted.
    var_smoothing : float, default=0.05
        Added to every variance, in units of the largest variance the
        bounds allow ((upper − lower)²/4): a public floor that keeps the
        noisy variances away from 0 (scikit-learn's ``var_smoothing`` is
        relative to the data's largest variance, a private value).
    epsilon_shares : tuple of three floats, default=(0.05, 0.75, 0.2)
        Weights of the counts, the sums and the sums of squares in ε
        (normalised to sum 1).
    shared_variance : bool, default=True
        Pool the squares over the classes (one variance per feature, shared
        by the classes): K times fewer noisy entries, each over n rows; False
        gives every class its own variances, as scikit-learn's GaussianNB.
    noise_random_state : int or None, default=None
        None: the OS CSPRNG (production). An int makes the noise
        reproducible and is for tests only (``PrivacyLeakWarning``).

    Attributes
    ----------
    classes_ : ndarray of shape (K,)
        ``classes`` as an array.
    class_count_ : ndarray of shape (K,)
        The released (noisy) weighted class sizes c_k.
    class_prior_ : ndarray of shape (K,)
        ĉ_k/Σĉ (the floored counts, normalised).
    theta_ : ndarray of shape (K, n_features)
        Per-class means, in the features' units.
    var_ : ndarray of shape (K, n_features)
        Per-class variances, in the features' units (smoothing included).
    sums_ : ndarray of shape (K, n_features)
        The released S_kj (mapped units).
    squares_ : ndarray of shape (K, n_features) or (1, n_features)
        The released Q_kj, or Q_j when pooled (mapped units, centred at 1/2).
    noise_scales_ : tuple of three floats
        The Laplace scales of the counts, the sums and the squares.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        When X has string column names.
    """

    _parameter_constraints: dict = {
        "epsilon": EPSILON_CONSTRAINTS,
        "bounds": [None, tuple, list],
        "classes": [tuple, list],
        "var_smoothing": [Interval(numbers.Real, 0, None, closed="neither")],
        "epsilon_shares": [tuple, list],
        "shared_variance": ["boolean"],
        "noise_random_state": [
            None,
            Interval(numbers.Integral, 0, None, closed="left"),
        ],
    }

    def __init__(
        self,
        epsilon=1.0,
        bounds=None,
        classes=(0, 1),
        var_smoothing=0.05,
        epsilon_shares=(0.05, 0.75, 0.2),
        shared_variance=True,
        noise_random_state=None,
    ):
        self.epsilon = epsilon
        self.bounds = bounds
        self.classes = classes
        self.var_smoothing = var_smoothing
        self.epsilon_shares = epsilon_shares
        self.shared_variance = shared_variance
        self.noise_random_state = noise_random_state

    def _check_privacy_params(self) -> float:
        """ε, ``bounds`` (as far as d allows), ``classes``, ``epsilon_shares``.

        Public (the parameters only): run by ``fit`` and, in the
        private-model mode, for every candidate before any row is read.
        """
        eps = check_epsilon(self.epsilon, owner="DPGaussianNB")
        if self.bounds is not None:  # d unknown here: an array's own length
            try:
                d = max([np.size(b) for b in self.bounds] + [1])
            except (TypeError, ValueError):
                d = 1  # check_bounds says what is wrong
            check_bounds(self.bounds, d, "DPGaussianNB")
        try:
            keys = {label_key(c) for c in self.classes}
        except TypeError:  # an unhashable class
            keys = ()
        if len(self.classes) < 2 or len(keys) != len(self.classes):
            raise ValueError(
                "classes must hold two or more distinct public labels, declared "
                "by you (never read from the data), e.g. classes=(0, 1) or "
                f"classes=('setosa', 'versicolor', 'virginica'); got {self.classes!r}."
            )
        _shares(self.epsilon_shares)
        return eps

    def _no_bounds_message(self) -> str | None:
        return NO_BOUNDS_MESSAGE if self.bounds is None else None

    def _ball(self, d: int):
        """(lower, upper) as arrays of shape (d,): ``bounds`` or [−1, 1]."""
        if self.bounds is None:
            return -np.ones(d), np.ones(d)
        return check_bounds(self.bounds, d, "DPGaussianNB")

    def _check_targets(self, y, n: int):
        """The labels' container against the declared classes, from types
        only (:func:`~._base.check_label_types`), then its shape."""
        check_label_types(y, self.classes, "DPGaussianNB")
        return check_targets(y, n, "DPGaussianNB")

    def _rows(self, X) -> np.ndarray:
        """u = (clip(x, lower, upper) − m)/h per entry, in [−1, 1]; NaN → 0."""
        lower, upper = self._ball(X.shape[1])
        mid, half = (lower + upper) / 2, (upper - lower) / 2
        u = (np.clip(X, lower, upper) - mid) / half
        return np.clip(np.nan_to_num(u, nan=0.0), -1.0, 1.0)

    def _fit_private(self, X, y, rng, sample_weight=None):
        eps = self._check_privacy_params()
        X, n, d = private_matrix(X, y)
        U = self._rows(X)
        w = np.ones(n) if sample_weight is None else np.asarray(sample_weight, float)
        codes = label_codes(y, self.classes)
        K = len(self.classes)
        s_c, s_s, s_q = _shares(self.epsilon_shares)
        ones, sums, squares = w[:, None], w[:, None] * U, w[:, None] * (U * U - 0.5)
        c, scale_c = release_sums(
            [_fsums(ones, codes, k)[0] for k in range(K)], 2.0, 2, n, s_c * eps, rng
        )
        S, scale_s = release_sums(
            [_fsums(sums, codes, k) for k in range(K)],
            2.0 * d,
            2 * d,
            n,
            s_s * eps,
            rng,
        )
        if self.shared_variance:  # one entry per feature: rows in classes
            pooled = [_fsums(squares, np.where(codes >= 0, 0, -1), 0)]
            Q, scale_q = release_sums(pooled, float(d), d, n, s_q * eps, rng)
        else:
            Q, scale_q = release_sums(
                [_fsums(squares, codes, k) for k in range(K)],
                float(d),
                2 * d,
                n,
                s_q * eps,
                rng,
            )
        self._set_model(c, S, Q, d)
        self.noise_scales_ = (scale_c, scale_s, scale_q)
        self.classes_ = np.asarray(self.classes)
        self.n_features_in_ = d
        return self

    def _set_model(self, c, S, Q, d: int) -> None:
        """The model from the released statistics: public floors, never fails."""
        count = np.maximum(c, 1.0)
        mean = np.clip(S / count[:, None], -1.0, 1.0)
        if self.shared_variance:
            second = np.clip(Q / count.sum() + 0.5, 0.0, 1.0)
            between = (count[:, None] * mean**2).sum(axis=0) / count.sum()
            var = np.broadcast_to(np.clip(second - between, 0.0, 1.0), mean.shape)
        else:
            second = np.clip(Q / count[:, None] + 0.5, 0.0, 1.0)
            var = np.clip(second - mean**2, 0.0, 1.0)
        lower, upper = self._ball(d)
        mid, half = (lower + upper) / 2, (upper - lower) / 2
        self.class_count_, self.sums_, self.squares_ = c, S, Q
        self.class_prior_ = count / count.sum()
        self.theta_ = mid + half * mean
        self.var_ = half**2 * (var + float(self.var_smoothing))

    _auto_never_tunes = True
    """The private-model mode's ``"auto"`` releases the default parameters
    (``_private_model.default_suffices``): tuning ``var_smoothing`` by random
    stopping lost 8 points on breast_cancer at ε = 4 and 11 on digits at
    ε = 1 (``benchmarks/bench_naive_bayes.py``), the cost of a run's half
    of ε and 70 % of the rows."""

    def _auto_default_rule(self) -> bool:
        """The private-model mode's ``"auto"`` rule applies (see above)."""
        return True

    def _joint_log_likelihood(self, X) -> np.ndarray:
        """log prior_k + Σ_j log N(x_j; θ_kj, var_kj), rows mapped as in ``fit``."""
        U = self._predict_rows(X)  # NotFittedError, then the width, first
        lower, upper = self._ball(self.n_features_in_)
        Xc = (lower + upper) / 2 + (upper - lower) / 2 * U
        diff = Xc[:, None, :] - self.theta_[None, :, :]
        ll = -0.5 * (np.log(2 * np.pi * self.var_)[None] + diff**2 / self.var_[None])
        return np.log(self.class_prior_) + ll.sum(axis=2)

    def predict_log_proba(self, X):
        jll = self._joint_log_likelihood(X)
        return jll - logsumexp(jll, axis=1, keepdims=True)

    def predict_proba(self, X):
        return np.exp(self.predict_log_proba(X))

    def predict(self, X):
        jll = self._joint_log_likelihood(X)
        return self.classes_[np.argmax(jll, axis=1)]
