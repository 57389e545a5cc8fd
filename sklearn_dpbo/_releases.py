"""The released quantities: one function per release, sensitivities in one place.

Read next to Kusner, Gardner, Garnett & Weinberger, "Differentially Private
Bayesian Optimization", ICML 2015 (``shared/papers/001_*.txt``) and the
restatement in ``shared/spec/DPBO.md``.

Sensitivities and noise scales (all in GP units z = (v − offset)/scale
unless said otherwise):

==============================  =========================================
quantity                        formula
==============================  =========================================
β_t                             2 log(|Λ| t² π² / (3δ))
c (Algorithm 1)                 2 √((1 − k1) log(3|Λ|/δ))
c (Algorithm 2)                 2 √((1 − k1) log(2|Λ|/δ))
q                               σ √(8 log(6T/δ))   (spec §4 note (a))
C1                              8 / log(1 + σ⁻²)
Δ_μ  (λ̃, Algorithm 1 line 12)   2 √β_{T+1} + c
b    (ṽ, Algorithm 1 line 14)   √(C1 β_T γ_T)/(ε √T) + c/ε + q/ε
Ω    (Algorithm 2)              A exp(−τ T / (log T)^{d/4})   ("icml")
                                A exp(−2τ / (log 2)^{d/4})     ("conservative")
b    (f̃, Algorithm 2)           Ω/ε + c/ε
Δ    (private selection)        declared scorer sensitivity, e.g. 1/m
==============================  =========================================

Every release function returns a :class:`~._accounting.Release`; the
search copies its fitted attributes from these records only.
"""

from __future__ import annotations

import math

import numpy as np

from ._accounting import Release
from ._acquisition import ucb_beta
from ._mechanisms import exponential_mechanism, laplace_mechanism, permute_and_flip

__all__ = [
    "dataset_kernel_c",
    "observation_noise_q",
    "regret_constant_c1",
    "gp_ucb_params_sensitivity",
    "gp_ucb_score_scale",
    "noise_free_omega",
    "noise_free_score_scale",
    "release_best_params_gp",
    "release_best_score_gp",
    "release_best_score_noise_free",
    "release_best_params_selection",
    "release_best_score_selection",
]

KUSNER = "Kusner et al., Differentially Private Bayesian Optimization, ICML 2015"


# ---------------------------------------------------------------------------
# Constants of Algorithms 1 and 2 (public: no data enters any of them)
# ---------------------------------------------------------------------------
def dataset_kernel_c(
    dataset_kernel: float, n_candidates: int, delta: float, *, n_events: int = 3
) -> float:
    """c = 2 √((1 − k1) log(n_events |Λ| / δ)).

    Bound on |f_V(λ) − f_V'(λ)| over all λ ∈ Λ, w.p. ≥ 1 − δ/n_events, when
    f_V, f_V' are jointly GP with dataset correlation k1 (Theorem 1's proof).
    ``n_events`` is 3 in Algorithm 1 and 2 in Algorithm 2.
    """
    return 2.0 * math.sqrt(
        (1.0 - dataset_kernel) * math.log(n_events * n_candidates / delta)
    )


def observation_noise_q(noise: float, n_iter: int, delta: float) -> float:
    """q = σ √(8 log(6T/δ)) = 2σγ with γ = √(2 log(6T/δ)), σ = √noise.

    Each of the 2T Gaussian observation-noise terms on V and V' is below σγ
    in absolute value w.p. ≥ 1 − δ/3 (union bound with Pr[|Z| > γ] ≤
    e^{−γ²/2}), so the difference of any two is below q. The ICML text has
    σ√(8 log(3/δ)) and a later version σ√(4 log(3/δ)); both bound a single
    pair, while the proof needs all T on both sets: this conservative
    union-bound constant is DPBO.md §4 note (a).
    """
    return math.sqrt(noise) * math.sqrt(8.0 * math.log(6.0 * n_iter / delta))


def regret_constant_c1(noise: float) -> float:
    """C1 = 8 / log(1 + σ⁻²) of GP-UCB's regret bound (Srinivas et al. 2010)."""
    return 8.0 / math.log1p(1.0 / noise)


def gp_ucb_params_sensitivity(
    n_iter: int, n_candidates: int, delta: float, dataset_kernel: float
) -> float:
    """Δ_μ = 2 √β_{T+1} + c: sensitivity of μ_T (Theorem 1), GP units."""
    beta = ucb_beta(n_iter + 1, n_candidates, delta)
    return 2.0 * math.sqrt(beta) + dataset_kernel_c(dataset_kernel, n_candidates, delta)


def gp_ucb_score_scale(
    epsilon: float,
    n_iter: int,
    n_candidates: int,
    delta: float,
    dataset_kernel: float,
    noise: float,
    information_gain: float,
) -> float:
    """b = √(C1 β_T γ_T)/(ε √T) + c/ε + q/ε (Algorithm 1 line 14), GP units.

    ``information_gain`` must be an upper bound on γ_T computed without
    data (:func:`~._gp.greedy_information_gain`).
    """
    beta_T = ucb_beta(n_iter, n_candidates, delta)
    regret = math.sqrt(regret_constant_c1(noise) * beta_T * information_gain)
    c = dataset_kernel_c(dataset_kernel, n_candidates, delta)
    q = observation_noise_q(noise, n_iter, delta)
    return regret / (epsilon * math.sqrt(n_iter)) + c / epsilon + q / epsilon


def noise_free_omega(
    A: float, tau: float, n_iter: int, dim: int, variant: str = "conservative"
) -> float:
    """Ω of Algorithm 2 (de Freitas, Smola & Zoghi 2012 regret bound).

    ``"icml"``: Ω = A exp(−τ T / (log T)^{d/4}) (ICML text, bound at t = T);
    ``"conservative"``: Ω = A exp(−2τ / (log 2)^{d/4}) (arXiv text, bound at
    t = 2, the larger). For T < 3 the ICML formula is undefined
    ((log T)^{d/4} ≤ 0 for T = 1), so the conservative value is used.
    """
    if variant == "icml" and n_iter >= 3:
        return A * math.exp(-tau * n_iter / math.log(n_iter) ** (dim / 4.0))
    return A * math.exp(-2.0 * tau / math.log(2.0) ** (dim / 4.0))


def noise_free_score_scale(
    epsilon: float,
    A: float,
    tau: float,
    n_iter: int,
    dim: int,
    n_candidates: int,
    delta: float,
    dataset_kernel: float,
    variant: str = "conservative",
) -> float:
    """b = Ω/ε + c/ε with c = 2√((1 − k1) log(2|Λ|/δ)) (Algorithm 2), GP units."""
    omega = noise_free_omega(A, tau, n_iter, dim, variant)
    c = dataset_kernel_c(dataset_kernel, n_candidates, delta, n_events=2)
    return omega / epsilon + c / epsilon


# ---------------------------------------------------------------------------
# Releases of Algorithms 1 and 2 (mode "gp-ucb")
# ---------------------------------------------------------------------------
def release_best_params_gp(
    posterior_mean: np.ndarray,
    *,
    epsilon: float,
    delta: float,
    sensitivity: float,
    score_scale: float,
    assumption: str,
    rng: np.random.Generator,
) -> Release:
    """λ̃ ~ Pr[λ] ∝ exp(ε μ_T(λ) / (2 Δ_μ)) over Λ (Algorithm 1, line 12).

    ``sensitivity`` is Δ_μ from :func:`gp_ucb_params_sensitivity` (GP
    units). (ε, δ)-DP under Assumption 1 (Theorem 1 and Corollary 1).
    """
    index = exponential_mechanism(posterior_mean, epsilon, sensitivity, rng)
    return Release(
        quantity="best_params_",
        value=index,
        mechanism="exponential mechanism on the GP posterior mean",
        epsilon=epsilon,
        delta=delta,
        sensitivity=sensitivity * score_scale,
        noise_scale=2.0 * sensitivity * score_scale / epsilon,
        guarantee="(epsilon, delta)-DP",
        assumption=assumption,
        reference=f"{KUSNER}, Algorithm 1 line 12, Theorem 1, Corollary 1",
    )


def _to_score(z: float, offset: float, scale: float, bounds) -> float:
    # Post-processing: back to score units, clipped into the scorer's range.
    return float(np.clip(offset + scale * z, *bounds))


def release_best_score_gp(
    best_observed: float,
    *,
    epsilon: float,
    delta: float,
    noise_scale: float,
    score_offset: float,
    score_scale: float,
    bounds: tuple[float, float],
    assumption: str,
    rng: np.random.Generator,
) -> Release:
    """ṽ = max_t v_t + Lap(b) (Algorithm 1, lines 13–15).

    ``best_observed`` and ``noise_scale`` b are in GP units; the value is
    returned in score units, clipped into the scorer's range
    (post-processing). (ε, δ)-DP under Assumption 1 (Theorem 3, Cor. 2).
    """
    z = laplace_mechanism(best_observed, noise_scale, rng)
    return Release(
        quantity="best_score_",
        value=_to_score(z, score_offset, score_scale, bounds),
        mechanism="Laplace on the best observed validation score",
        epsilon=epsilon,
        delta=delta,
        sensitivity=noise_scale * epsilon * score_scale,
        noise_scale=noise_scale * score_scale,
        guarantee="(epsilon, delta)-DP",
        assumption=assumption,
        reference=f"{KUSNER}, Algorithm 1 lines 13-15, Theorem 3, Corollary 2",
    )


def release_best_score_noise_free(
    observed: float,
    *,
    epsilon: float,
    delta: float,
    noise_scale: float,
    score_offset: float,
    score_scale: float,
    bounds: tuple[float, float],
    assumption: str,
    rng: np.random.Generator,
) -> Release:
    """f̃ = f_V + Lap(Ω/ε + c/ε) (Algorithm 2), value in score units.

    ``observed`` is f_V(λ_T) for the ``"icml"`` variant, max_{2≤t≤T} f_V(λ_t)
    for the ``"conservative"`` one (GP units). (ε, δ)-DP under Assumption 1
    and the de Freitas et al. (2012) regret bound with the user's A, τ
    (Theorem 5, Corollary 3).
    """
    z = laplace_mechanism(observed, noise_scale, rng)
    return Release(
        quantity="best_score_",
        value=_to_score(z, score_offset, score_scale, bounds),
        mechanism="Laplace on the noise-free validation score",
        epsilon=epsilon,
        delta=delta,
        sensitivity=noise_scale * epsilon * score_scale,
        noise_scale=noise_scale * score_scale,
        guarantee="(epsilon, delta)-DP",
        assumption=assumption,
        reference=f"{KUSNER}, Algorithm 2, Theorem 5, Corollary 3",
    )


# ---------------------------------------------------------------------------
# Private selection on a public shortlist (mode "private-selection")
# ---------------------------------------------------------------------------
_SELECTORS = {
    "permute-and-flip": (permute_and_flip, "McKenna & Sheldon, NeurIPS 2020"),
    "exponential": (exponential_mechanism, "McSherry & Talwar, FOCS 2007"),
}


def release_best_params_selection(
    utilities: np.ndarray,
    *,
    epsilon: float,
    sensitivity: float,
    selection: str,
    rng: np.random.Generator,
) -> Release:
    """Select a shortlist position from validation scores, pure ε-DP.

    ``utilities[i]`` is the (clipped) validation score of the i-th
    shortlisted candidate and ``sensitivity`` the scorer's swap-one
    sensitivity (1/m for accuracy). The shortlist is a function of public
    data only, so nothing else about the validation set is used.
    """
    select, ref = _SELECTORS[selection]
    position = select(utilities, epsilon, sensitivity, rng)
    return Release(
        quantity="best_params_",
        value=position,
        mechanism=f"{selection} over the public shortlist's validation scores",
        epsilon=epsilon,
        delta=0.0,
        sensitivity=sensitivity,
        noise_scale=2.0 * sensitivity / epsilon,
        guarantee="pure epsilon-DP",
        assumption="none",
        reference=ref,
    )


def release_best_score_selection(
    score: float,
    *,
    epsilon: float,
    sensitivity: float,
    bounds: tuple[float, float],
    rng: np.random.Generator,
) -> Release:
    """ṽ = v(λ̃) + Lap(Δ/ε₂), clipped into the scorer's range. Pure ε-DP.

    For a fixed candidate the validation score has sensitivity Δ; the
    candidate itself was chosen by an ε₁-DP release, so the pair is
    (ε₁ + ε₂)-DP by adaptive basic composition.
    """
    value = laplace_mechanism(score, sensitivity / epsilon, rng)
    return Release(
        quantity="best_score_",
        value=float(np.clip(value, *bounds)),
        mechanism="Laplace on the selected candidate's validation score",
        epsilon=epsilon,
        delta=0.0,
        sensitivity=sensitivity,
        noise_scale=sensitivity / epsilon,
        guarantee="pure epsilon-DP",
        assumption="none",
        reference="Dwork, McSherry, Nissim & Smith, TCC 2006 (Laplace mechanism)",
    )
