"""The released quantities: one function per release, sensitivities in one place.

Kusner, Gardner, Garnett & Weinberger, "Differentially Private Bayesian
Optimization", ICML 2015 (spec ``DPBO.md``). In GP units z = (v − offset)/scale
unless said otherwise:

==============================  =========================================
quantity                        formula
==============================  =========================================
β_t                             2 log(|Λ| t² π² / δ)  (Algorithm 1 has 3δ;
                                see :func:`~._acquisition.gp_ucb_beta`)
c (Algorithm 1)                 2 √((1 − k1) log(3|Λ|/δ))
c (Algorithm 2)                 2 √((1 − k1) log(2|Λ|/δ))
q                               σ √(8 log(6T/δ))   (spec §4 note (a))
C1                              8 / log(1 + σ⁻²)
Δ_μ  (λ̃, Algorithm 1 line 12)   2 √β_{T+1} + c
b    (ṽ, Algorithm 1 line 14)   √(C1 β_T γ_T)/(ε √T) + c/ε + q/ε
Ω    (Algorithm 2)              A exp(−τ T / (log T)^{d/4})   ("icml")
                                max_{2≤t≤T} A exp(−τ t / (log t)^{d/4})
                                (t = 2: A exp(−2τ/(log 2)^{d/4}); "conservative")
b    (f̃, Algorithm 2)           Ω/ε + c/ε
Δ    (private selection)        declared scorer sensitivity, e.g. 1/m
Δ_V  (Algorithm 3, fixed λ)     min(g*, max(2L/λmin,        (score units)
                                g* − g₀ + L/λmin))/m; g*/m
                                if g(0, ·) is not one g₀
Δ_Λ  (Algorithm 3, λ ≠ λ')      (λmax − λmin) L/(λmax λmin) (score units)
Δ_L  (f̃_L, Algorithm 3)         min(g*, Δ_Λ + Δ_V)          (score units)
b    (f̃_L, Algorithm 3)         Δ_L / ε
Δ    (λ̃, mode "lipschitz")      g*/m: the score of one fixed λ, mean of
                                per-record losses in [0, g*]
==============================  =========================================

Algorithm 3 (``_lipschitz.py``): L is the Lipschitz constant of the
validation loss g in w (R = 1 behind a ``Normalizer``), g* the bound of g,
m the validation size, λmin, λmax the extremes of the candidate path of
eq. (10), g₀ = g(0, ·) the loss of every record at w = 0. Three
deviations from the paper, all towards more noise: (i) Δ_V uses 2L/λmin
where the paper has L/λmin, (ii) a failing record (loss g*) is covered by
g* − g₀ + L/λmin (both proved in :func:`lipschitz_validation_term`; (i) is
attained in ``tests/model_selection/test_lipschitz.py``); (iii) the total is
capped at g*, the width of the score range [−g*, 0], which the spec allows.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from ..bo._acquisition import gp_ucb_beta
from ..privacy._accounting import Release
from ..privacy._mechanisms import exponential_mechanism, permute_and_flip
from ..privacy._samplers import as_random_source, laplace_on_grid
from ..privacy._scorers import ROW_INDEPENDENCE

KUSNER = "Kusner et al., Differentially Private Bayesian Optimization, ICML 2015"


# --- Constants of Algorithms 1 and 2 (public: no data enters any of them) ---
def dataset_kernel_c(
    dataset_kernel: float, n_candidates: int, delta: float, *, n_events: int = 3
) -> float:
    """c = 2 √((1 − k1) log(n_events |Λ| / δ)) (n_events: 3 in Algorithm 1, 2 in 2).

    Bound on |f_V(λ) − f_V'(λ)| over all λ ∈ Λ, w.p. ≥ 1 − δ/n_events, when
    f_V, f_V' are jointly GP with dataset correlation k1 (Theorem 1's proof).
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
    beta = gp_ucb_beta(n_iter + 1, n_candidates, delta)
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
    beta_T = gp_ucb_beta(n_iter, n_candidates, delta)
    regret = math.sqrt(regret_constant_c1(noise) * beta_T * information_gain)
    c = dataset_kernel_c(dataset_kernel, n_candidates, delta)
    q = observation_noise_q(noise, n_iter, delta)
    return regret / (epsilon * math.sqrt(n_iter)) + c / epsilon + q / epsilon


def noise_free_omega(
    A: float, tau: float, n_iter: int, dim: int, variant: str = "conservative"
) -> float:
    """Ω of Algorithm 2 (de Freitas, Smola & Zoghi 2012 regret bound).

    With Ω(t) = A exp(−τ t / (log t)^{d/4}): ``"icml"``: Ω(T) (for
    f_V(λ_T)); ``"conservative"``: max_{2≤t≤T} Ω(t), never below either
    text's formula (the arXiv text's Ω(2) is not always the larger:
    t/(log t)^{d/4} is smallest at t = e^{d/4}). For T < 3 the ICML formula
    is undefined, so the conservative value is used.
    """
    t = np.arange(2, max(int(n_iter), 2) + 1, dtype=float)
    omegas = A * np.exp(-tau * t / np.log(t) ** (dim / 4.0))
    if variant == "icml" and n_iter >= 3:
        return float(omegas[-1])
    return float(omegas.max())


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


# --- Releases of Algorithms 1 and 2 (mode "gp-ucb") ---
def release_best_params_gp(
    posterior_mean: np.ndarray,
    *,
    epsilon: float,
    delta: float,
    sensitivity: float,
    score_scale: float,
    assumption: str,
    rng=None,
) -> Release:
    """λ̃ ~ Pr[λ] ∝ exp(ε μ_T(λ) / (2 Δ_μ)) over Λ (Algorithm 1, line 12).

    (ε, δ)-DP under Assumption 1 (Theorem 1 and Corollary 1).
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


def _grid_laplace(
    value: float, sensitivity: float, epsilon: float, bounds, rng
) -> tuple[float, float, float]:
    """Exact Laplace on a public 2^k grid, clipped into ``bounds``: (value, Δ + 2^k,
    (Δ + 2^k)/ε); see :func:`~._samplers.laplace_on_grid`."""
    noisy, eff_scale, k = laplace_on_grid(
        float(value), sensitivity, epsilon, as_random_source(rng)
    )
    low, high = bounds
    return (
        float(min(max(noisy, float(low)), float(high))),
        sensitivity + 2.0**k,
        eff_scale,
    )


def _score_release(value, sensitivity, epsilon, bounds, rng, *, delta=0.0, **text):
    """The ``best_score_`` record of value + :func:`_grid_laplace` noise."""
    value, sensitivity, scale = _grid_laplace(value, sensitivity, epsilon, bounds, rng)
    return Release(
        quantity="best_score_",
        value=value,
        epsilon=epsilon,
        delta=delta,
        sensitivity=sensitivity,
        noise_scale=scale,
        guarantee="(epsilon, delta)-DP" if delta else "pure epsilon-DP",
        **text,
    )


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
    rng=None,
) -> Release:
    """ṽ = max_t v_t + Lap(b) (Algorithm 1, lines 13–15).

    ``best_observed`` and b are in GP units; the value is returned in score
    units, clipped. (ε, δ)-DP under Assumption 1 (Theorem 3, Cor. 2).
    """
    return _score_release(
        score_offset + score_scale * best_observed,
        noise_scale * epsilon * score_scale,
        epsilon,
        bounds,
        rng,
        delta=delta,
        mechanism="Laplace on the best observed validation score",
        assumption=assumption,
        reference=f"{KUSNER}, Algorithm 1 lines 13-15, Theorem 3, Corollary 2",
    )


def release_best_score_noise_free(observed: float, **kwargs) -> Release:
    """f̃ = f_V + Lap(Ω/ε + c/ε) (Algorithm 2), as :func:`release_best_score_gp`.

    ``observed``: f_V(λ_T) (``"icml"``) or max_{2≤t≤T} f_V(λ_t). (ε, δ)-DP
    under Assumption 1 and de Freitas et al.'s bound (Theorem 5, Cor. 3).
    """
    return replace(
        release_best_score_gp(observed, **kwargs),
        mechanism="Laplace on the noise-free validation score",
        reference=f"{KUSNER}, Algorithm 2, Theorem 5, Corollary 3",
    )


# --- Private selection on a public shortlist (mode "private-selection") ---
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
    rng=None,
    mechanism: str | None = None,
    assumption: str = ROW_INDEPENDENCE,
    reference: str | None = None,
) -> Release:
    """Select a position of ``utilities`` (by default the public shortlist's
    validation scores; sensitivity: the scorer's, 1/m for accuracy), pure ε-DP."""
    select, ref = _SELECTORS[selection]
    return Release(
        quantity="best_params_",
        value=select(utilities, epsilon, sensitivity, rng),
        mechanism=mechanism
        or f"{selection} over the public shortlist's validation scores",
        epsilon=epsilon,
        delta=0.0,
        sensitivity=sensitivity,
        noise_scale=2.0 * sensitivity / epsilon,
        guarantee="pure epsilon-DP",
        assumption=assumption,
        reference=reference or ref,
    )


def release_best_score_selection(
    score: float,
    *,
    epsilon: float,
    sensitivity: float,
    bounds: tuple[float, float],
    rng=None,
) -> Release:
    """ṽ = v(λ̃) + Lap(Δ/ε₂), clipped; with the ε₁-DP choice of λ̃,
    (ε₁ + ε₂)-DP by adaptive basic composition."""
    return _score_release(
        score,
        sensitivity,
        epsilon,
        bounds,
        rng,
        mechanism="Laplace on the selected candidate's validation score",
        assumption=ROW_INDEPENDENCE,
        reference="Dwork, McSherry, Nissim & Smith, TCC 2006 (Laplace mechanism)",
    )


# --- Algorithm 3: Lipschitz and convex (mode "lipschitz"), score units ---
def _up(x: float) -> float:
    # One ulp up: never round a sensitivity down (zero stays zero).
    x = float(x)
    return x if x == 0.0 else math.nextafter(x, math.inf)


def lipschitz_validation_term(
    n_validation: int,
    lipschitz: float,
    g_star: float,
    lambda_min: float,
    loss_at_zero: float | None,
) -> float:
    """Δ_V = min(g*, max(2L/λmin, g* − g₀ + L/λmin))/m: |f_V(w_λ) − f_V'(w_λ)|
    for one fixed λ ≥ λmin; g*/m when ``loss_at_zero`` (g₀) is ``None``.

    The per-record loss is g = high − value ∈ [0, g*]; swapping one of the m
    validation records changes one term of the mean: by at most g*/m always.
    Under Assumption 2, ‖w_λ‖ ≤ 1/λ (the optimality condition
    λ w_λ = −(1/n) Σ ∇ℓ with 1-Lipschitz ℓ). When g(0, x̄, ȳ) = g₀ for every
    record (sigmoid loss 1/2, ramp loss 1: a function of the margin y w·x,
    which is 0 at w = 0), a record that is scored has g ∈ [g₀ − L/λ, g₀ + L/λ]
    (L-Lipschitz in w), and a record that fails (does not map, raises, gives
    a non-finite value) scores ``low``, g = g*. The swap of two scored records
    moves the mean by ≤ 2L/(λm), of a scored and a failed one by
    ≤ (g* − g₀ + L/λ)/m, of two failed ones by 0. With g(0, ·) not known to
    be one constant (any user scorer), two scored records already differ by
    up to g*: only g*/m holds. The paper's Theorem 7 writes L/(mλmin); the
    factor 2 is attained (see the module table), and failed records are
    outside its model.
    """
    m = int(n_validation)
    if loss_at_zero is None:
        return _up(g_star / m)
    lam = float(lambda_min)
    swing = max(2.0 * lipschitz / lam, g_star - loss_at_zero + lipschitz / lam)
    return _up(min(g_star, _up(swing)) / m)


def lipschitz_path_term(
    lipschitz: float, lambda_min: float, lambda_max: float
) -> float:
    """Δ_Λ = (λmax − λmin) L / (λmax λmin) (Theorem 7).

    Bounds |f_V(w_λ) − f_V(w_λ')| for λ, λ' in [λmin, λmax]: strong
    convexity of eq. (10) gives ‖w_λ − w_λ'‖ ≤ (λ' − λ)/(λ λ') and f_V is
    L-Lipschitz in w. Zero for a single λ.
    """
    return _up((lambda_max - lambda_min) * lipschitz / (lambda_max * lambda_min))


def lipschitz_score_sensitivity(
    n_validation: int,
    lipschitz: float,
    g_star: float,
    lambda_min: float,
    lambda_max: float,
    loss_at_zero: float | None,
) -> tuple[float, bool]:
    """Δ_L = min(g*, Δ_Λ + Δ_V) and whether the cap at g* is the active bound.

    Sensitivity of f_BO = max_t f_V(w_λt) when V is swapped for a neighbour
    and BO may evaluate different λ's (Theorem 7 and the paragraph after
    it): with a the best evaluated λ on V and b any fitted λ evaluated on
    V', f_V(a) ≤ f_V(b) + Δ_Λ ≤ f_V'(b) + Δ_Λ + Δ_V ≤ f_BO(V') + Δ_Λ + Δ_V,
    and symmetrically. (A λ whose public fit failed scores −g* on V and V'
    alike; BO's choices depend on the scores seen, so both runs evaluate the
    same λ's until the first fitted one, which is then b.) Every score lies
    in [−g*, 0], so any two differ by at most g*; when the cap is active
    the release needs no assumption at all.
    """
    if not (0 < lambda_min <= lambda_max and math.isfinite(lambda_max)):
        raise ValueError("need 0 < lambda_min <= lambda_max < inf.")
    bound = _up(
        lipschitz_path_term(lipschitz, lambda_min, lambda_max)
        + lipschitz_validation_term(
            n_validation, lipschitz, g_star, lambda_min, loss_at_zero
        )
    )
    if g_star <= bound:
        return float(g_star), True
    return bound, False


def release_best_score_lipschitz(
    best_observed: float,
    *,
    epsilon: float,
    sensitivity: float,
    bounds: tuple[float, float],
    assumption: str,
    rng=None,
) -> Release:
    """f̃_L = max_t f_V(w_λt) + Lap(Δ_L/ε), clipped (Algorithm 3). Pure ε-DP
    under Assumption 2 (Theorem 7, Cor. 4), or with no assumption when capped."""
    return _score_release(
        best_observed,
        sensitivity,
        epsilon,
        bounds,
        rng,
        mechanism="Laplace on the best validation score of BO (Algorithm 3)",
        assumption=assumption,
        reference=f"{KUSNER}, Algorithm 3, Theorem 7, Corollary 4",
    )
