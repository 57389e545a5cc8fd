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

from .._compat import CachedParamNamesMixin
from ..privacy._samplers import (
    as_random_source,
    granularity_exponent,
    round_to_grid,
    sample_gamma_on_lattice,
    sample_standard_normal,
)
from ..privacy._validation import PrivacyLeakWarning, check_epsilon, check_privacy_rng

__all__ = [
    "DPLearnerMixin",
    "clip_rows",
    "sample_gamma_norm_noise",
    "gradient_slack",
    "conditioned",
    "solver_iterations",
]

GRADIENT_TOL = 1e-10
"""‖∇J(ŵ)‖ / (per-row gradient bound) the solvers reach before w is released.

The tolerance is relative to the public bound on one row's loss gradient
(R for the logistic loss, R(RB/√α + B) for ridge), so that it stays above
the floating-point floor of the computed gradient whatever the public
scales (:func:`gradient_slack`)."""

SOLVER_MAX_CONDITION = 1e5
"""κ_max: the largest condition number L/μ of an objective the solvers minimise.

μ below L/(κ_max − 1) (a tiny regularisation: huge C, or objective
perturbation at a large ε) is raised to it, a public change of the
objective decided from public values only (:func:`conditioned`). Beyond
κ ≈ 10⁷ the computed gradient of a Newton iterate can stall above the
tolerance in floating point (found by a fuzz of 15,876 public settings and
adversarial data sets, ``benchmarks/bench_solver_fuzz.py``: 0 misses at
κ_max = 10⁵ and 10⁶, 6 at 10⁷, 57 at 10⁸); 10⁵ keeps a margin of 100.
In the rows' own units the floor is negligible: for rows of norm ≤ 1 it
is μ ≥ 2.5·10⁻⁶."""

SOLVER_MIN_ITER = 200
"""The solvers run at least this many iterations before they give up
(``max_iter`` below it acts as it): the fuzz above needed at most 32
(55 at κ_max = 10⁶)."""


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


def gradient_slack(strong_convexity: float, scale: float = 1.0) -> float:
    """Extra sensitivity of an approximate minimiser: 2·GRADIENT_TOL·scale/Λ.

    If J is Λ-strongly convex and ‖∇J(ŵ)‖ ≤ g then ‖ŵ − w*‖ ≤ g/Λ, so the
    released ŵ of two neighbours are at most Δ(w*) + 2g/Λ apart; the
    solvers stop at g = GRADIENT_TOL·scale, ``scale`` the public bound on
    one row's loss gradient.
    """
    return 2.0 * GRADIENT_TOL * float(scale) / strong_convexity


def conditioned(strong_convexity: float, smoothness: float) -> float:
    """max(μ, L/(κ_max − 1)): the regularisation the solver actually uses.

    ``smoothness`` L is the public bound on the loss's curvature (R²/4 for
    the logistic loss on rows of norm ≤ R, R² for the squared loss), so the
    objective's condition number (L + μ)/μ is at most
    :data:`SOLVER_MAX_CONDITION`. Public inputs only.
    """
    floor = float(smoothness) / (SOLVER_MAX_CONDITION - 1.0)
    return max(float(strong_convexity), floor)


def solver_iterations(max_iter: int) -> int:
    """The iteration cap: ``max_iter``, at least :data:`SOLVER_MIN_ITER`."""
    return max(int(max_iter), SOLVER_MIN_ITER)


class SolverError(RuntimeError):
    """A solver missed its certified gradient tolerance (outside the guarantee)."""


def sample_gamma_norm_noise(d: int, scale: float, rng) -> np.ndarray:
    """b ∈ R^d with density ∝ exp(−‖b‖/scale): uniform direction, Gamma(d, scale) norm.

    The norm is drawn exactly (:func:`~..privacy._samplers.sample_gamma_on_lattice`:
    a sum of d exact exponentials, each a CKS20 geometric number of steps
    of the public grid 2^k ≤ scale/2^20 plus an exact fraction of a step),
    so that its law is Gamma(d, scale) in the far tail too: a radius drawn
    as −scale·Σ log U_i from 53-bit uniforms reaches only values farther
    apart than the grid once U is near 2^−53 (about 10⁻¹¹ of the mass per
    fit), which would let a neighbour's release be impossible there. The
    direction is a normalised vector of d standard normals (Box–Muller on
    53-bit uniforms from ``rng``, the OS CSPRNG in production): a
    floating-point unit vector (relative error ~2^−52 per coordinate, far
    below the grid step relative to the radius; the caveat of
    ``sample_standard_normal``), and the release is rounded to the public
    grid (:func:`release_weights`).

    Privacy (for the exact law): with ‖b‖ ~ Gamma(d, s) and b/‖b‖ uniform
    on the sphere, b has density ∝ r^(d−1)e^(−r/s)/r^(d−1) = e^(−‖b‖/s) in
    polar coordinates, so w + b and w′ + b have density ratio ≤
    e^(‖w − w′‖/s) at every point, and rounding to the grid is
    post-processing.
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


class DPLearnerMixin(CachedParamNamesMixin):
    """What the private-model mode reads and trusts in a learner of this package.

    ``epsilon`` is the per-fit cost (pure ε-DP with respect to one row of
    ``X, y`` under replace-one, with n public); every bound is a constructor
    parameter; ``noise_random_state=None`` draws the noise from the OS
    CSPRNG. :meth:`_fit_private` is the fit with an explicit noise source
    (the search passes its own) and parameters already validated: by
    :meth:`fit`, or, in the private-model mode, for every candidate before
    any row is read (``check_candidate_params``); it still checks the
    privacy parameters (ε, ``data_norm``) itself.
    """

    _dp_learner = True

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
        Floating-point events (an underflow in a far-out row's logistic
        term, say) depend on the rows, so none is reported: the private
        computation runs under ``np.errstate(all="ignore")``.
        """
        if sample_weight is not None:
            raise ValueError(
                f"{type(self).__name__} does not take sample_weight: a weight "
                "multiplies one row's influence and the sensitivity with it."
            )
        self._validate_params()
        rng = self._noise_source()
        with np.errstate(all="ignore"):
            return self._fit_private(X, y, rng)
