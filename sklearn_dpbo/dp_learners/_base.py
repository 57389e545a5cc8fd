"""Shared parts of the DP learners: public row clipping, the noise, the checks.

Every learner here releases ``w* + b`` (output perturbation, Chaudhuri,
Monteleoni & Sarwate, JMLR 2011, Algorithm 1): ``w*`` the exact minimiser
of a Λ-strongly convex regularised empirical risk on rows clipped to
public bounds, and ``b`` drawn with density ∝ exp(−ε‖b‖/Δ) for the
L2-sensitivity Δ of ``w*`` under "replace one row" (each learner derives
its Δ in its docstring). Such a ``b`` is a uniformly random direction
times a norm distributed as Gamma(d, Δ/ε) (the density in polar
coordinates is ∝ r^(d−1) e^(−εr/Δ)); then for neighbouring D, D′ and any
w, p(w − w*(D))/p(w − w*(D′)) ≤ exp(ε‖w*(D) − w*(D′)‖/Δ) ≤ e^ε.

Nothing about the rows decides anything else: a row with a non-finite
value becomes the zero row (per row, so one row cannot move another),
labels outside the public ``classes`` are the negative class, norms are
clipped to the public ``data_norm``; n and d are public.
"""

from __future__ import annotations

import math
import numbers
import warnings

import numpy as np

from ..privacy._samplers import (
    _uniform_open,
    as_random_source,
    round_to_grid,
    sample_standard_normal,
)
from ..privacy._validation import PrivacyLeakWarning, check_epsilon, check_privacy_rng

__all__ = [
    "DPLearnerMixin",
    "clip_rows",
    "sample_gamma_norm_noise",
    "gradient_slack",
]

GRADIENT_TOL = 1e-10
"""‖∇J(ŵ)‖ the solvers reach before w is released (see :func:`gradient_slack`)."""


def clip_rows(X, data_norm: float, *, intercept: bool) -> np.ndarray:
    """Rows of X as floats, non-finite rows zeroed, L2 norms clipped to ``data_norm``.

    With ``intercept`` a constant column 1 is appended after the clipping,
    so each returned row has norm ≤ sqrt(data_norm² + 1). Row i of the
    result depends on row i of X only.
    """
    X = np.asarray(X, dtype=float)
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D; got an array of shape {X.shape}.")
    X = X.copy()
    bad = ~np.isfinite(X).all(axis=1)
    X[bad] = 0.0
    # The norm of each row scaled by its largest entry: no overflow (1e200)
    # or underflow (1e-200) on the way, so such a row is clipped along its
    # own direction, without a floating-point warning.
    scale = np.max(np.abs(X), axis=1) if X.shape[1] else np.zeros(X.shape[0])
    safe = np.where(scale > 0, scale, 1.0)
    norms = np.linalg.norm(X / safe[:, None], axis=1) * safe
    over = norms > data_norm
    X[over] *= (data_norm / norms[over])[:, None]
    if intercept:
        X = np.hstack([X, np.ones((X.shape[0], 1))])
    return X


def augmented_norm(data_norm: float, intercept: bool) -> float:
    """The public bound on a row's norm after :func:`clip_rows`."""
    return math.sqrt(data_norm**2 + 1.0) if intercept else float(data_norm)


def gradient_slack(strong_convexity: float) -> float:
    """Extra sensitivity of an approximate minimiser: 2·GRADIENT_TOL/Λ.

    If J is Λ-strongly convex and ‖∇J(ŵ)‖ ≤ g then ‖ŵ − w*‖ ≤ g/Λ, so the
    released ŵ of two neighbours are at most Δ(w*) + 2g/Λ apart.
    """
    return 2.0 * GRADIENT_TOL / strong_convexity


def sample_gamma_norm_noise(d: int, scale: float, rng) -> np.ndarray:
    """b ∈ R^d with density ∝ exp(−‖b‖/scale): uniform direction, Gamma(d, scale) norm.

    The direction is a normalised vector of d standard normals, the norm
    −scale·Σ_{i≤d} log U_i (a sum of d exponentials is Gamma(d)); every
    uniform comes from ``rng`` (the OS CSPRNG in production). Floating
    point (the caveat of ``sample_standard_normal``): the learner's output
    is then rounded to a public grid (:func:`release_weights`).
    """
    source = as_random_source(rng)
    while True:
        z = sample_standard_normal(d, source)
        length = float(np.linalg.norm(z))
        if length > 0:
            break
    u = _uniform_open(d, source)
    radius = -scale * float(np.sum(np.log(u)))
    return z / length * radius


def release_weights(w: np.ndarray, sensitivity: float, epsilon: float, rng):
    """w + b, b ∝ exp(−ε‖b‖/Δ), rounded to the public grid 2^k ≤ (Δ/ε)/2^20."""
    scale = sensitivity / epsilon
    noisy = w + sample_gamma_norm_noise(w.size, scale, rng)
    return round_to_grid(noisy, scale)


class DPLearnerMixin:
    """What the private-model mode reads and trusts in a learner of this package.

    ``epsilon`` is the per-fit cost (pure ε-DP with respect to one row of
    ``X, y`` under replace-one, with n public); every bound is a constructor
    parameter; ``noise_random_state=None`` draws the noise from the OS
    CSPRNG. :meth:`_fit_private` is the fit with an explicit noise source
    (the search passes its own).
    """

    _dp_learner = True

    @classmethod
    def _get_param_names(cls) -> list:
        """scikit-learn's list of constructor arguments, computed once per class.

        ``BaseEstimator._get_param_names`` inspects the signature on every
        ``get_params``/``clone``; random stopping clones the learner once per
        run, so the signature was a third of a run's time on small data. The
        list depends on the class only.
        """
        cached = cls.__dict__.get("_param_names")
        if cached is None:
            cached = tuple(super()._get_param_names())
            cls._param_names = cached
        return list(cached)

    def _check_privacy_params(self) -> float:
        eps = check_epsilon(self.epsilon, owner=type(self).__name__)
        norm = self.data_norm
        if (
            isinstance(norm, bool)
            or not isinstance(norm, numbers.Real)
            or not (math.isfinite(norm) and norm > 0)
        ):
            raise ValueError(
                f"{type(self).__name__} needs a public data_norm: a finite "
                f"number > 0 given by you, never read from the data; got "
                f"data_norm={norm!r}."
            )
        return eps

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

    def fit(self, X, y, sample_weight=None):
        """Fit on private rows; ε-DP (see the class docstring).

        ``sample_weight`` is refused: it would change the sensitivity.
        """
        if sample_weight is not None:
            raise ValueError(
                f"{type(self).__name__} does not take sample_weight: a weight "
                "multiplies one row's influence and the sensitivity with it."
            )
        return self._fit_private(X, y, self._noise_source())
