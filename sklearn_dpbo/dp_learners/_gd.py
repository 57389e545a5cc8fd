"""Logistic regression by noisy full-batch gradient descent, ρ-zCDP.

The Gaussian-noise learner of the package (every other learner is pure ε):
its privacy is stated in zero-concentrated DP, which composes over the
iterations by adding ρ and whose random stopping the private-model mode
accounts in Rényi DP (``privacy._rdp``).
"""

from __future__ import annotations

import functools
import math
import numbers

import numpy as np
from scipy.special import expit

from .._compat import Interval, StrOptions
from ..privacy._discrete_gaussian import gaussian_on_grid, grid_step
from ..privacy._rdp import largest_parameter, zcdp_epsilon
from ..privacy._samplers import as_random_source
from ..privacy._validation import check_delta, require_positive_delta
from ._base import SHARED_CONSTRAINTS, private_matrix
from ._logistic import DPLogisticRegression

__all__ = ["DPGradientDescentLogisticRegression", "gd_noise", "rho_for"]

_SAFETY = 1e-9
"""Relative margin on σ: the computed ρ of each step is ≤ its share."""


@functools.lru_cache(maxsize=256)
def rho_for(epsilon: float, delta: float) -> float:
    """The largest ρ whose zCDP → (ε, δ) conversion gives at most ``epsilon``.

    ``privacy._rdp.zcdp_epsilon`` (Canonne, Kamath & Steinke 2020,
    Proposition 12, on the order grid); bisection, the returned ρ meets
    the condition. Public values only.
    """
    return largest_parameter(lambda r: zcdp_epsilon(r, delta), epsilon)


def gd_noise(sensitivity: float, rho: float, n_steps: int, d: int):
    """(σ, h): the noise of each of ``n_steps`` gradient sums for ρ in all.

    Each step gets ρ/T (zCDP composes by adding ρ, Bun & Steinke 2016,
    Lemma 2.3). The grid step h = 2^k ≤ σ₀/2^20 is fixed from σ₀ = Δ/√(2ρ/T)
    and σ = (Δ + √d·h)/√(2ρ/T)·(1 + 10⁻⁹), so that the grid release's
    ρ = (Δ + √d·h)²/(2σ²) (``privacy._discrete_gaussian.grid_rho``) is at
    most ρ/T.
    """
    share = float(rho) / int(n_steps)
    step = grid_step(float(sensitivity) / math.sqrt(2.0 * share))
    sigma = (float(sensitivity) + math.sqrt(d) * step) / math.sqrt(2.0 * share)
    return sigma * (1.0 + _SAFETY), step


class DPGradientDescentLogisticRegression(DPLogisticRegression):
    """L2-regularised logistic regression by noisy gradient descent, (ε, δ)-DP.

    Rows, labels, classes, ``bounds``/``data_norm``, ``sample_weight``
    (each clipped into [0, 1]) and the prediction are those of
    :class:`DPLogisticRegression`: each row is mapped into the public ball
    of radius R (with the intercept's constant 1: R = √(norm² + 1)), a row
    with a NaN is the zero row, and ``predict`` applies the same public map.

    **The algorithm** (Bassily, Smith & Thakurta, FOCS 2014, Algorithm 1 in
    its full-batch form; Song, Chaudhuri & Sarwate 2013). With J(w) =
    (1/n) Σ ω_i log(1 + exp(−s_i w·x_i)) + (Λ/2)‖w‖², Λ = 1/(C n) (scikit-
    learn's C Σ loss + ½‖w‖² divided by C n), w₀ = 0 and for t = 1, …, T
    (T = ``max_iter``, public)::

        G_t = Σ_i ω_i ∇ℓ_i(w_{t−1}) released as h·(round(G_t/h) + Z_t),
              Z_t ~ N_ℤ(0, (σ/h)²)^d (exact discrete Gaussian on the grid hℤ)
        w_t = w_{t−1} − η (G̃_t / n + Λ w_{t−1}),

    η = ``learning_rate`` ("auto": 1/(R²/4 + Λ), the inverse of J's public
    smoothness bound). The model is w_T.

    **Privacy.** One row's gradient ω∇ℓ = ω ℓ′(s w·x) s x has norm ≤ R
    (|ℓ′| < 1, ω ∈ [0, 1]); replacing a row moves G_t by at most Δ = 2R
    in L2, whatever w_{t−1}. Each grid release is (Δ + √d·h)²/(2σ²)-zCDP
    (``privacy._discrete_gaussian``: CKS20, Proposition 5, per coordinate,
    added over the independent coordinates, with the rounding's √d·h added
    to Δ). The T releases are adaptive, and zCDP composes by adding ρ (Bun
    & Steinke, TCC 2016, Lemma 2.3); w_T is post-processing. σ is set so
    that the whole fit is ρ-zCDP (:func:`gd_noise`), with ρ = ``rho_`` the
    largest ρ whose conversion to (ε, δ) gives at most ``epsilon`` at
    ``delta`` (the improved conversion of Canonne, Kamath & Steinke 2020,
    Proposition 12; ``privacy._rdp``): **(ε, δ)-DP and ρ-zCDP per fit**
    with respect to replacing one row (n public). K ≥ 3 classes:
    one-vs-rest, each problem at ρ/K (a replaced record replaces a row in
    every problem; zCDP adds up).

    The noise comes from the OS CSPRNG, drawn exactly (integers and
    fractions, ``privacy._discrete_gaussian``); every released gradient is
    an exact multiple of the public grid step h ≤ σ/2^20.

    Parameters
    ----------
    epsilon : float, default=1.0
        Privacy cost of one ``fit``, with ``delta``.
    delta : float, default=1e-5
        δ of the (ε, δ) guarantee, in (0, 1); take it below 1/n.
    bounds : (lower, upper) or None, default=None
        Public bounds of the features, declared from the domain (as in
        :class:`DPLogisticRegression`).
    data_norm : float or None, default=None
        For rows you have already scaled: public bound on a row's L2 norm.
    C : float, default=1.0
        Inverse regularisation strength, as in scikit-learn (Λ = 1/(C n)).
    fit_intercept : bool, default=True
        Append a constant feature (regularised intercept).
    classes : tuple of labels, default=(0, 1)
        The public labels, never read from y (as in
        :class:`DPLogisticRegression`).
    max_iter : int, default=20
        T, the number of noisy gradient steps (public; the noise per step
        grows as √T).
    learning_rate : "auto" or float, default="auto"
        Step size η; "auto" is 1/(R²/4 + Λ).
    noise_random_state : int or None, default=None
        None: the OS CSPRNG (production). An int makes the noise
        reproducible and is for tests only (``PrivacyLeakWarning``).

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features) or (K, n_features)
        Weights on the mapped rows (the ball's units).
    intercept_ : ndarray of shape (1,) or (K,)
    classes_ : ndarray
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        When X has string column names.
    n_iter_ : int
        T (public).
    rho_ : float
        ρ of the fit (zCDP, all problems).
    sensitivity_ : float
        Δ = 2R of one gradient sum.
    noise_scale_ : float
        σ of each coordinate of each gradient sum (one problem).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_dpbo.dp_learners import DPGradientDescentLogisticRegression
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]]); y = np.array([0, 0, 1, 1])
    >>> clf = DPGradientDescentLogisticRegression(epsilon=1.0, bounds=(0, 3))
    >>> clf.fit(X, y).predict(X).shape
    (4,)
    >>> round(clf.rho_, 4)
    0.0306
    """

    _privacy_notion = "zcdp"
    """The private-model mode reads it: ``epsilon`` is not a pure-ε cost."""

    _parameter_constraints: dict = {
        **SHARED_CONSTRAINTS,
        "delta": [Interval(numbers.Real, 0, 1, closed="neither")],
        "C": [Interval(numbers.Real, 0, None, closed="neither")],
        "classes": [tuple, list],
        "max_iter": [Interval(numbers.Integral, 1, None, closed="left")],
        "learning_rate": [
            StrOptions({"auto"}),
            Interval(numbers.Real, 0, None, closed="neither"),
        ],
    }

    def __init__(
        self,
        epsilon=1.0,
        delta=1e-5,
        bounds=None,
        data_norm=None,
        C=1.0,
        fit_intercept=True,
        classes=(0, 1),
        max_iter=20,
        learning_rate="auto",
        noise_random_state=None,
    ):
        self.epsilon = epsilon
        self.delta = delta
        self.bounds = bounds
        self.data_norm = data_norm
        self.C = C
        self.fit_intercept = fit_intercept
        self.classes = classes
        self.max_iter = max_iter
        self.learning_rate = learning_rate
        self.noise_random_state = noise_random_state

    def _check_privacy_params(self) -> float:
        """ε, δ > 0, the bounds and the classes (public parameters only)."""
        eps = super()._check_privacy_params()
        delta = check_delta(self.delta, owner=type(self).__name__)
        require_positive_delta(
            delta, type(self).__name__, "its Gaussian noise is (epsilon, delta)-DP"
        )
        return eps

    def _zcdp_rho(self) -> float:
        """ρ of one fit, from ``epsilon`` and ``delta`` (:func:`rho_for`)."""
        eps = self._check_privacy_params()
        return rho_for(float(eps), float(self.delta))

    def _auto_default_rule(self) -> bool:
        return False

    def _distribution_key(self, n, epsilon) -> tuple:
        """Every candidate its own key: no two parameter sets share a law."""
        params = self.get_params()
        params.update(epsilon=epsilon, noise_random_state=None)
        return tuple(sorted((k, repr(v)) for k, v in params.items()))

    def _descend(self, Xc, s, weights, rho, row_norm, rng) -> np.ndarray:
        """w_T after T noisy gradient steps at ρ (class docstring)."""
        n, d = Xc.shape
        T = int(self.max_iter)
        lam = 1.0 / (float(self.C) * n)
        lr = self.learning_rate
        lr = 1.0 / (row_norm**2 / 4.0 + lam) if lr == "auto" else float(lr)
        sigma, step = gd_noise(2.0 * row_norm, rho, T, d)
        sw = s if weights is None else s * weights
        w = np.zeros(d)
        for _ in range(T):
            # ω ℓ′(s w·x) s x with ℓ′(z) = −σ(−z): each term's norm ≤ R; a
            # NaN margin (0·inf once w overflows) is that row's own zero term
            coef = -sw * expit(-s * (Xc @ w))
            coef[np.isnan(coef)] = 0.0
            g = Xc.T @ coef
            noisy = gaussian_on_grid(g, sigma, step, rng)
            w = w - lr * (noisy / n + lam * w)
        self.noise_scale_ = sigma
        return w

    def _fit_private(self, X, y, rng, sample_weight=None):
        rho = self._zcdp_rho()
        rng = as_random_source(rng)
        X, n, d = private_matrix(X, y)
        Xc = self._rows(X)
        row_norm = self._ball(d)[2]
        problems = self._binary_problems(y)
        W = np.array(
            [
                self._descend(Xc, s, sample_weight, rho / len(problems), row_norm, rng)
                for s in problems
            ]
        )
        if self.fit_intercept:
            self.coef_, self.intercept_ = W[:, :-1], W[:, -1]
        else:
            self.coef_, self.intercept_ = W, np.zeros(len(problems))
        self.classes_ = np.asarray(self.classes)
        self.n_features_in_ = d
        self.n_iter_ = int(self.max_iter)
        self.rho_ = rho
        self.sensitivity_ = 2.0 * row_norm
        return self
