"""Nyström embedding of the LDP learners ATA and MoMA (base paper, Algorithm 3 [B]).

Spec: ``LDP_BO.md`` §4, A2–A3 (Chowdhury & Gopalan, NeurIPS 2019). Tags
as in :mod:`._algorithms`. Public computations on privatised reports only.
"""

from __future__ import annotations

import math

import numpy as np

_EIG_RTOL = 1e-10


def nystrom_embedding(K: np.ndarray, dictionary: np.ndarray) -> np.ndarray:
    """Φ (n_candidates × |D|), rows φ̃(x) = (K_D^{1/2})⁺ k_D(x), by ``eigh`` of K_D
    with eigenvalues below ``_EIG_RTOL``·max set to 0 (spec §6)."""
    D = np.asarray(dictionary, dtype=int)
    if D.size == 0:
        return np.zeros((K.shape[0], 0))
    w, U = np.linalg.eigh(K[np.ix_(D, D)])
    keep = w > _EIG_RTOL * max(float(w.max()), 0.0)
    inv_half = (U[:, keep] / np.sqrt(w[keep])) @ U[:, keep].T
    return K[:, D] @ inv_half


def _sample_dictionary(counts, var, q, rng) -> np.ndarray:
    """Distinct candidates of D_t (spec A2 [B]): each past point enters w.p.
    p = min(q σ̃²_{t−1}(x_i), 1), so candidate j (c_j plays) w.p. 1 − (1 − p_j)^{c_j};
    copies add only null directions to φ̃, so D_t keeps each once [R]."""
    S = np.flatnonzero(counts)
    p = np.minimum(q * var[S], 1.0)
    p_any = 1.0 - np.power(1.0 - p, counts[S])
    return S[rng.random(S.size) < p_any]


def _dtc_variance(K_diag, Phi, Vinv, lam):
    """σ̃² = k(x,x) − ‖φ̃‖² + λ φ̃ᵀṼ⁻¹φ̃ (DTC variance, spec A2 [B])."""
    quad = ((Phi @ Vinv) * Phi).sum(axis=1)
    return np.maximum(K_diag - (Phi * Phi).sum(axis=1) + lam * quad, 0.0)


def _nystrom_q(q, eps_n: float, delta: float, horizon: int) -> float:
    """The dictionary rate q: "theory" [B], "practical" [B code] or a number."""
    if q == "theory":
        rho = (1.0 + eps_n) / (1.0 - eps_n)
        return 6.0 * rho * math.log(4.0 * horizon / delta) / eps_n**2  # [B]
    if q == "practical":
        return math.log(max(horizon, 2)) / eps_n**2  # [B code]
    return float(q)


def _nystrom_b_term(p, eps_n: float) -> float:
    """B (1 + 1/√(1 − ε_N)): the Nyström-inflated RKHS bound [B]."""
    return p.rkhs_norm * (1.0 + 1.0 / math.sqrt(1.0 - eps_n))
