"""GP surrogate over a finite candidate set with fixed, public hyper-parameters.

Spec: ``DPBO.md`` §3. Zero prior mean, a normalised stationary kernel
(k(λ, λ) = 1), and the posterior of eq. (2) of Kusner et al. (2015):

    μ_t(λ)  = k(λ, Λ_t) (K_t + σ² I)⁻¹ v_t
    σ²_t(λ) = 1 − k(λ, Λ_t) (K_t + σ² I)⁻¹ k(Λ_t, λ)

maintained over the *whole* candidate set by rank-one Cholesky extensions:
with L the Cholesky factor of K_t + σ² I, the rows of V = L⁻¹ K(Λ_t, Λ)
and w = L⁻¹ v_t give μ_t = Vᵀ w and σ²_t = 1 − Σ_rows V² (O(t·|Λ|) per
point). No hyper-parameter is fitted to the scores and the scores are never
standardised: the proofs do not cover a surrogate shaped by the data.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.spatial.distance import cdist
from sklearn.gaussian_process.kernels import RBF, Kernel, Matern

from .._compat import InvalidParameterError

_SUPPORTED = (
    "RBF(length_scale=...) or Matern(nu=2.5, length_scale=...) from "
    "sklearn.gaussian_process.kernels, with one finite length_scale > 0"
)


def as_sklearn_kernel(name: str, length_scale: float) -> Kernel:
    """The scikit-learn kernel that :func:`kernel_matrix` computes for ``name``."""
    if name == "matern52":
        return Matern(nu=2.5, length_scale=length_scale)
    return RBF(length_scale=length_scale)


def internal_kernel(
    kernel, param: str = "kernel", caller: str = "this call"
) -> tuple[str, float]:
    """(internal name, length-scale) of ``Matern(nu=2.5)`` or ``RBF``, fixed; else
    ``InvalidParameterError`` naming ``param`` of ``caller`` and the reason."""
    if isinstance(kernel, Matern):  # before RBF: Matern subclasses RBF
        name = "matern52" if kernel.nu == 2.5 else None
        reason = "the GP over the candidates computes Matern with nu=2.5 only"
    elif type(kernel) is RBF:
        name, reason = "squared-exponential", ""
    elif not isinstance(kernel, Kernel):
        name, reason = None, "pass a kernel object"
    else:
        name = None
        reason = (
            "the GP over the candidates needs a normalised stationary kernel "
            "(k(x, x) = 1) with fixed hyper-parameters; its noise variance is "
            "a separate parameter, not a WhiteKernel"
        )
    if name is not None:
        try:
            ls = np.asarray(kernel.length_scale, dtype=float)
        except (TypeError, ValueError):
            ls = np.asarray(math.nan)
        if ls.ndim == 0 and math.isfinite(float(ls)) and float(ls) > 0:
            return name, float(ls)
        reason = (
            "one length-scale > 0 for every dimension of the unit-cube "
            "encoding of the candidates (not an anisotropic array)"
        )
    raise InvalidParameterError(
        f"The {param!r} parameter of {caller} must be {_SUPPORTED}. Got "
        f"{kernel!r} instead: {reason}."
    )


_JITTER = 1e-8  # diagonal variance when the observation noise is zero


def kernel_matrix(
    A: np.ndarray, B: np.ndarray, kernel: str = "matern52", length_scale: float = 0.2
) -> np.ndarray:
    """Kernel matrix k2(A, B) of a normalised stationary kernel.

    ``squared-exponential``: exp(−r²/(2ℓ²));
    ``matern52``: (1 + √5 r/ℓ + 5r²/(3ℓ²)) exp(−√5 r/ℓ), with r = ‖a − b‖₂.
    """
    r = cdist(np.atleast_2d(A), np.atleast_2d(B))
    if kernel == "squared-exponential":
        return np.exp(np.square(r / length_scale) * -0.5)
    s = r * math.sqrt(5.0) / length_scale
    return (1.0 + s + s * s / 3.0) * np.exp(-s)


class IncrementalGP:
    """GP posterior over a fixed candidate set, updated one point at a time.

    ``noise`` is the observation-noise variance σ² (0: a jitter of 1e-8),
    ``max_points`` the capacity allocated up front. GP-BUCB (Desautels et
    al. 2014): :meth:`add` extends the factor and the variance (score-free),
    :meth:`observe` later supplies the pending scores, in order.
    """

    def __init__(
        self,
        X: np.ndarray,
        *,
        kernel: str = "matern52",
        length_scale: float = 0.2,
        noise: float = 0.01,
        max_points: int = 100,
    ):
        self.X = np.asarray(X, dtype=float)
        self.kernel = kernel
        self.length_scale = float(length_scale)
        self.noise = float(noise)
        self._diag = 1.0 + (self.noise if self.noise > 0 else _JITTER)
        n = self.X.shape[0]
        cap = max(int(max_points), 1)
        self._V = np.empty((cap, n))  # rows of L⁻¹ K(Λ_t, Λ)
        self._L = np.zeros((cap, cap))  # Cholesky factor of K_t + σ²I
        self._w = np.empty(cap)  # L⁻¹ v_t
        self.index = np.empty(cap, dtype=int)  # candidate index of each row
        self.n_rows = 0  # rows added (observed + pending)
        self.n_observed = 0  # rows whose score is known
        self.mean = np.zeros(n)  # μ_t over Λ
        self.var = np.ones(n)  # σ²_t over Λ

    def add(self, j: int) -> None:
        """Add candidate ``j`` as a (pending) observation; update σ²."""
        t = self.n_rows
        k_row = kernel_matrix(self.X[j], self.X, self.kernel, self.length_scale)[0]
        ell = self._V[:t, j]  # L⁻¹ k(Λ_t, λ_j)
        d2 = self._diag - float(ell @ ell)
        d = math.sqrt(max(d2, _JITTER))
        # v_row = (k_row − ellᵀ V_t) / d, written straight into row t of V.
        v_row = self._V[t]
        np.subtract(k_row, ell @ self._V[:t], out=v_row)
        np.divide(v_row, d, out=v_row)
        self._L[t, :t] = ell
        self._L[t, t] = d
        self.index[t] = j
        self.n_rows = t + 1
        np.multiply(v_row, v_row, out=k_row)  # k_row is no longer needed
        self.var -= k_row
        np.maximum(self.var, 0.0, out=self.var)

    def observe(self, y: float) -> None:
        """Supply the score of the oldest pending point; update μ."""
        k = self.n_observed
        w_k = (float(y) - self._L[k, :k] @ self._w[:k]) / self._L[k, k]
        self._w[k] = w_k
        self.mean += w_k * self._V[k]
        self.n_observed = k + 1

    @property
    def std(self) -> np.ndarray:
        return np.sqrt(self.var)


def greedy_information_gain(
    X: np.ndarray,
    T: int,
    *,
    kernel: str = "matern52",
    length_scale: float = 0.2,
    noise: float = 0.01,
) -> float:
    """Data-free upper bound on the maximum information gain γ_T.

    γ_T = max_{|A| ≤ T} ½ log det(I + σ⁻² K_A). The set function is monotone
    submodular, so the greedy maximiser (which adds the point of largest
    posterior variance, gaining ½ log(1 + σ⁻² σ²_{t−1}(λ_t))) reaches at
    least (1 − 1/e) of the maximum: γ_T ≤ greedy / (1 − 1/e)
    (Nemhauser et al. 1978; spec §4). Depends only on Λ, the kernel, σ², T.
    """
    gp = IncrementalGP(
        X, kernel=kernel, length_scale=length_scale, noise=noise, max_points=T
    )
    total = 0.0
    for _ in range(int(T)):
        j = int(np.argmax(gp.var))
        total += 0.5 * math.log1p(gp.var[j] / noise)
        gp.add(j)
    return total / (1.0 - math.exp(-1.0))
