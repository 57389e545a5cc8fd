"""Tests of the constants of Algorithms 1-2 and of the release records.

Every expected value is written out with literal numbers from the formulas
of ``DPBO.md`` §4-5, independently of the code under test.
"""

from __future__ import annotations

import copy
import math

import numpy as np
import pytest

from sklearn_dpbo.model_selection._releases import (
    dataset_kernel_c,
    gp_ucb_params_sensitivity,
    gp_ucb_score_scale,
    noise_free_omega,
    noise_free_score_scale,
    observation_noise_q,
    regret_constant_c1,
    release_best_params_gp,
    release_best_params_selection,
    release_best_score_gp,
    release_best_score_noise_free,
    release_best_score_selection,
)
from sklearn_dpbo.privacy._accounting import Release
from sklearn_dpbo.privacy._mechanisms import exponential_mechanism, permute_and_flip
from sklearn_dpbo.privacy._samplers import (
    as_random_source,
    granularity_exponent,
    laplace_on_grid,
)
from sklearn_dpbo.privacy._scorers import ROW_INDEPENDENCE

PI2 = math.pi**2


# ---------------------------------------------------------------------------
# Constants (§4-5)
# ---------------------------------------------------------------------------
def test_dataset_kernel_c_three_events():
    # Algorithm 1: c = 2 √((1 − k1) log(3|Λ|/δ)), k1 = 0.95, |Λ| = 1024, δ = 1e-5.
    expected = 2 * math.sqrt(0.05 * math.log(3 * 1024 / 1e-5))
    assert dataset_kernel_c(0.95, 1024, 1e-5) == pytest.approx(expected, rel=1e-14)
    assert dataset_kernel_c(0.95, 1024, 1e-5, n_events=3) == pytest.approx(
        1.9770184399361475, rel=1e-12
    )


def test_dataset_kernel_c_two_events():
    # Algorithm 2: c = 2 √((1 − k1) log(2|Λ|/δ)), k1 = 0.8, |Λ| = 50, δ = 1e-3.
    expected = 2 * math.sqrt(0.2 * math.log(2 * 50 / 1e-3))
    got = dataset_kernel_c(0.8, 50, 1e-3, n_events=2)
    assert got == pytest.approx(expected, rel=1e-14)
    assert got == pytest.approx(3.034854258770293, rel=1e-12)
    # k1 = 1 (identical dataset functions): c = 0.
    assert dataset_kernel_c(1.0, 50, 1e-3) == 0.0


def test_observation_noise_q():
    # q = σ √(8 log(6T/δ)), σ² = 0.01, T = 20, δ = 1e-5.
    expected = 0.1 * math.sqrt(8 * math.log(6 * 20 / 1e-5))
    assert observation_noise_q(0.01, 20, 1e-5) == pytest.approx(expected, rel=1e-14)
    assert observation_noise_q(0.01, 20, 1e-5) == pytest.approx(
        1.141942807946257, rel=1e-12
    )
    # More conservative than both paper versions (spec §4 note (a)).
    assert expected > 0.1 * math.sqrt(8 * math.log(3 / 1e-5))
    assert expected > 0.1 * math.sqrt(4 * math.log(3 / 1e-5))


def test_regret_constant_c1():
    # C1 = 8 / log(1 + σ⁻²); σ² = 0.01 gives 8 / log(101).
    assert regret_constant_c1(0.01) == pytest.approx(8 / math.log(101), rel=1e-14)
    assert regret_constant_c1(0.25) == pytest.approx(8 / math.log(5), rel=1e-14)
    assert regret_constant_c1(0.01) == pytest.approx(1.7334325226842533, rel=1e-12)


def test_gp_ucb_params_sensitivity():
    # Δ_μ = 2 √β_{T+1} + c, T = 20, |Λ| = 1024, δ = 1e-5, k1 = 0.95:
    # β_21 = 2 log(1024 · 441 · π² / 1e-5) (gp_ucb_beta: Srinivas et al.'s
    # Lemma 5.1 at δ/6 per dataset; Algorithm 1 prints 3e-5 here, F9).
    beta_21 = 2 * math.log(1024 * 441 * PI2 / 1e-5)
    c = 2 * math.sqrt(0.05 * math.log(3072 / 1e-5))
    expected = 2 * math.sqrt(beta_21) + c
    got = gp_ucb_params_sensitivity(20, 1024, 1e-5, 0.95)
    assert got == pytest.approx(expected, rel=1e-14)
    assert got == pytest.approx(16.625677605256456, rel=1e-12)


def test_gp_ucb_score_scale():
    # b = √(C1 β_T γ_T)/(ε √T) + c/ε + q/ε with ε = 0.5, T = 20, |Λ| = 1024,
    # δ = 1e-5, k1 = 0.95, σ² = 0.01, γ_T = 12.5.
    c1 = 8 / math.log(101)
    beta_20 = 2 * math.log(1024 * 400 * PI2 / 1e-5)  # the β the search runs with
    c = 2 * math.sqrt(0.05 * math.log(3072 / 1e-5))
    q = 0.1 * math.sqrt(8 * math.log(120 / 1e-5))
    regret = math.sqrt(c1 * beta_20 * 12.5) / (0.5 * math.sqrt(20))
    expected = regret + c / 0.5 + q / 0.5
    got = gp_ucb_score_scale(0.5, 20, 1024, 1e-5, 0.95, 0.01, 12.5)
    assert got == pytest.approx(expected, rel=1e-14)
    assert got == pytest.approx(21.457406984771133, rel=1e-12)
    # Inversely proportional to ε.
    assert gp_ucb_score_scale(1.0, 20, 1024, 1e-5, 0.95, 0.01, 12.5) == pytest.approx(
        got / 2, rel=1e-14
    )


def test_noise_free_omega_icml():
    # Ω = A exp(−τ T / (log T)^{d/4}), A = 2, τ = 0.1, T = 10, d = 2.
    expected = 2 * math.exp(-0.1 * 10 / math.log(10) ** 0.5)
    got = noise_free_omega(2.0, 0.1, 10, 2, "icml")
    assert got == pytest.approx(expected, rel=1e-14)
    assert got == pytest.approx(1.0347263044248975, rel=1e-12)
    # d = 4: (log T)^1.
    assert noise_free_omega(3.0, 0.5, 50, 4, "icml") == pytest.approx(
        3 * math.exp(-0.5 * 50 / math.log(50)), rel=1e-14
    )


def test_noise_free_omega_conservative():
    # Ω = A exp(−2τ / (log 2)^{d/4}), A = 2, τ = 0.1, d = 2 (independent of T).
    expected = 2 * math.exp(-0.2 / math.log(2) ** 0.5)
    for T in (1, 2, 3, 10, 1000):
        got = noise_free_omega(2.0, 0.1, T, 2, "conservative")
        assert got == pytest.approx(expected, rel=1e-14)
    assert noise_free_omega(2.0, 0.1, 10, 2) == pytest.approx(expected, rel=1e-14)
    assert expected == pytest.approx(1.5729025945607678, rel=1e-12)
    # Here the ICML value at T = 10 is the smaller one.
    assert noise_free_omega(2.0, 0.1, 10, 2, "icml") < expected


def test_noise_free_omega_conservative_is_never_below_either_text():
    """F9: for d = 8 the arXiv text's Ω(2) is the *smallest* of the bounds.

    t/(log t)^2 is smallest at t = e^2 ≈ 7.4; over t = 2..30 at t = 7:
    7/(ln 7)^2 = 7/3.786566 = 1.848640, so Ω = exp(−1.848640) = 0.157451
    (A = τ = 1). The ICML value Ω(30) = exp(−30/(ln 30)^2) = exp(−2.593356)
    = 0.074771 and the arXiv value Ω(2) = exp(−2/(ln 2)^2) = exp(−4.162737)
    = 0.015563.
    """
    got = noise_free_omega(1.0, 1.0, 30, 8, "conservative")
    assert got == pytest.approx(0.157451, rel=1e-5)
    assert got == pytest.approx(math.exp(-7 / math.log(7) ** 2), rel=1e-14)
    icml = noise_free_omega(1.0, 1.0, 30, 8, "icml")
    assert icml == pytest.approx(0.074771, rel=1e-4)
    assert got >= icml and got >= math.exp(-2 / math.log(2) ** 2)


@pytest.mark.parametrize("T", [1, 2])
def test_noise_free_omega_icml_falls_back_for_small_t(T):
    # (log T)^{d/4} is 0 at T = 1 and the bound is not meant for T < 3.
    expected = 2 * math.exp(-0.2 / math.log(2) ** 0.5)
    got = noise_free_omega(2.0, 0.1, T, 2, "icml")
    assert math.isfinite(got)
    assert got == pytest.approx(expected, rel=1e-14)


def test_noise_free_score_scale():
    # b = Ω/ε + c/ε with c over 2 events, ε = 0.25, A = 1, τ = 0.2, T = 8,
    # d = 3, |Λ| = 64, δ = 1e-4, k1 = 0.9.
    omega_icml = 1.0 * math.exp(-0.2 * 8 / math.log(8) ** 0.75)
    omega_cons = 1.0 * math.exp(-0.4 / math.log(2) ** 0.75)
    c = 2 * math.sqrt(0.1 * math.log(2 * 64 / 1e-4))
    got_icml = noise_free_score_scale(0.25, 1.0, 0.2, 8, 3, 64, 1e-4, 0.9, "icml")
    got_cons = noise_free_score_scale(0.25, 1.0, 0.2, 8, 3, 64, 1e-4, 0.9)
    assert got_icml == pytest.approx(omega_icml / 0.25 + c / 0.25, rel=1e-14)
    assert got_cons == pytest.approx(omega_cons / 0.25 + c / 0.25, rel=1e-14)
    assert got_cons == pytest.approx(11.849342337812367, rel=1e-12)


# ---------------------------------------------------------------------------
# Release records
# ---------------------------------------------------------------------------
def _clone(seed):
    rng = np.random.default_rng(seed)
    return rng, copy.deepcopy(rng)


def _grid_laplace(value, sensitivity, epsilon, twin, bounds):
    """The exact 2^k-grid Laplace release the functions must produce.

    Returns (clipped value, inflated sensitivity Δ + 2^k, scale (Δ + 2^k)/ε).
    """
    k = granularity_exponent(sensitivity / epsilon)
    source = as_random_source(twin)
    out, scale, k2 = laplace_on_grid(value, sensitivity, epsilon, source)
    assert k2 == k
    step = 2.0**k
    assert out / step == round(out / step)  # an exact multiple of 2^k
    return min(max(out, bounds[0]), bounds[1]), sensitivity + step, scale


def test_release_best_params_gp_record_and_rng():
    mean = np.random.default_rng(0).normal(size=40)
    rng, twin = _clone(3)
    rel = release_best_params_gp(
        mean,
        epsilon=0.5,
        delta=1e-5,
        sensitivity=4.0,
        score_scale=0.25,
        assumption="Assumption 1, k1=0.95",
        rng=rng,
    )
    assert isinstance(rel, Release)
    assert rel.quantity == "best_params_"
    assert rel.value == exponential_mechanism(mean, 0.5, 4.0, twin)
    assert rel.epsilon == 0.5 and rel.delta == 1e-5
    assert rel.sensitivity == pytest.approx(4.0 * 0.25, rel=1e-15)  # score units
    assert rel.noise_scale == pytest.approx(2 * 4.0 * 0.25 / 0.5, rel=1e-15)
    assert rel.assumption == "Assumption 1, k1=0.95"
    assert "value" not in rel.describe()
    assert "value" not in repr(rel)
    # The rng has been advanced: the same call now gives the next draw.
    assert rng.random() == twin.random()


def test_release_best_params_gp_is_randomised():
    mean = np.linspace(0, 1, 20)  # Δ_μ ≫ range: close to uniform
    values = {
        release_best_params_gp(
            mean,
            epsilon=1.0,
            delta=1e-5,
            sensitivity=5.0,
            score_scale=1.0,
            assumption="a",
            rng=np.random.default_rng(s),
        ).value
        for s in range(60)
    }
    assert len(values) > 10


def test_release_best_score_gp_record_and_rng():
    rng, twin = _clone(4)
    rel = release_best_score_gp(
        0.8,
        epsilon=0.4,
        delta=1e-6,
        noise_scale=0.3,
        score_offset=0.5,
        score_scale=0.25,
        bounds=(0.0, 1.0),
        assumption="Assumption 1",
        rng=rng,
    )
    # Laplace(b) is calibrated to a sensitivity b·ε (score units), plus the
    # grid step 2^k: the release is exact discrete Laplace in score units.
    value, sens, scale = _grid_laplace(
        0.5 + 0.25 * 0.8, 0.3 * 0.4 * 0.25, 0.4, twin, (0.0, 1.0)
    )
    assert rel.quantity == "best_score_"
    assert rel.value == value
    assert rel.epsilon == 0.4 and rel.delta == 1e-6
    assert rel.noise_scale == scale
    assert rel.noise_scale == pytest.approx(0.3 * 0.25, rel=2e-6)
    assert rel.sensitivity == sens
    assert rel.sensitivity == pytest.approx(0.3 * 0.4 * 0.25, rel=2e-6)


def test_release_best_score_gp_clips_into_bounds():
    values = [
        release_best_score_gp(
            0.0,
            epsilon=1.0,
            delta=1e-5,
            noise_scale=50.0,
            score_offset=0.5,
            score_scale=0.25,
            bounds=(0.0, 1.0),
            assumption="a",
            rng=np.random.default_rng(s),
        ).value
        for s in range(200)
    ]
    assert min(values) == 0.0 and max(values) == 1.0
    assert all(0.0 <= v <= 1.0 for v in values)


def test_release_best_score_noise_free_record_and_rng():
    rng, twin = _clone(5)
    rel = release_best_score_noise_free(
        -0.4,
        epsilon=2.0,
        delta=1e-5,
        noise_scale=0.1,
        score_offset=0.5,
        score_scale=0.25,
        bounds=(0.0, 1.0),
        assumption="Assumption 1",
        rng=rng,
    )
    value, sens, scale = _grid_laplace(
        0.5 + 0.25 * -0.4, 0.1 * 2.0 * 0.25, 2.0, twin, (0.0, 1.0)
    )
    assert rel.value == value
    assert rel.quantity == "best_score_"
    assert rel.epsilon == 2.0 and rel.delta == 1e-5
    assert rel.noise_scale == scale
    assert rel.noise_scale == pytest.approx(0.025, rel=2e-6)
    assert rel.sensitivity == sens
    assert rel.sensitivity == pytest.approx(0.1 * 2.0 * 0.25, rel=2e-6)
    # The report names Algorithm 2's release, not Algorithm 1's it reuses.
    assert rel.mechanism == "Laplace on the noise-free validation score"
    assert "Algorithm 2, Theorem 5, Corollary 3" in rel.reference
    assert rel.assumption == "Assumption 1"
    values = {
        release_best_score_noise_free(
            0.0,
            epsilon=1.0,
            delta=1e-5,
            noise_scale=100.0,
            score_offset=-1.0,
            score_scale=2.0,
            bounds=(-2.0, 3.0),
            assumption="a",
            rng=np.random.default_rng(s),
        ).value
        for s in range(100)
    }
    assert min(values) == -2.0 and max(values) == 3.0


@pytest.mark.parametrize(
    "selection, mechanism",
    [("exponential", exponential_mechanism), ("permute-and-flip", permute_and_flip)],
)
def test_release_best_params_selection(selection, mechanism):
    u = np.array([0.7, 0.8, 0.75, 0.6])
    rng, twin = _clone(6)
    rel = release_best_params_selection(
        u, epsilon=0.3, sensitivity=0.01, selection=selection, rng=rng
    )
    assert rel.value == mechanism(u, 0.3, 0.01, twin)
    assert rel.quantity == "best_params_"
    assert rel.epsilon == 0.3 and rel.delta == 0.0
    assert rel.sensitivity == 0.01
    assert rel.noise_scale == pytest.approx(2 * 0.01 / 0.3, rel=1e-15)
    assert rel.assumption == ROW_INDEPENDENCE and "pure" in rel.guarantee
    assert (
        len(
            {
                release_best_params_selection(
                    u,
                    epsilon=0.3,
                    sensitivity=0.1,
                    selection=selection,
                    rng=np.random.default_rng(s),
                ).value
                for s in range(40)
            }
        )
        > 1
    )


def test_release_best_score_selection():
    rng, twin = _clone(7)
    rel = release_best_score_selection(
        0.9, epsilon=0.5, sensitivity=0.02, bounds=(0.0, 1.0), rng=rng
    )
    value, sens, scale = _grid_laplace(0.9, 0.02, 0.5, twin, (0.0, 1.0))
    assert rel.value == value
    assert rel.epsilon == 0.5 and rel.delta == 0.0
    assert rel.sensitivity == sens
    assert rel.sensitivity == pytest.approx(0.02, rel=2e-6)
    assert rel.noise_scale == scale
    assert rel.noise_scale == pytest.approx(0.04, rel=2e-6)
    clipped = [
        release_best_score_selection(
            0.5,
            epsilon=0.01,
            sensitivity=1.0,
            bounds=(0.0, 1.0),
            rng=np.random.default_rng(s),
        ).value
        for s in range(100)
    ]
    assert min(clipped) == 0.0 and max(clipped) == 1.0


def test_release_validates_privacy_parameters():
    with pytest.raises(ValueError):
        release_best_params_gp(
            np.zeros(3),
            epsilon=0.0,
            delta=1e-5,
            sensitivity=1.0,
            score_scale=1.0,
            assumption="a",
            rng=np.random.default_rng(0),
        )
    with pytest.raises(TypeError):
        release_best_params_selection(
            np.zeros(3),
            epsilon=True,
            sensitivity=1.0,
            selection="exponential",
            rng=np.random.default_rng(0),
        )
    with pytest.raises(ValueError):
        release_best_score_gp(
            0.0,
            epsilon=1.0,
            delta=1e-5,
            noise_scale=0.0,
            score_offset=0.0,
            score_scale=1.0,
            bounds=(0.0, 1.0),
            assumption="a",
            rng=np.random.default_rng(0),
        )
