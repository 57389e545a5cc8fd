"""Statistical audit of objective perturbation alone: V/V′ differ in one row.

TESTING.md P3/P4 for ``DPLogisticRegression(mechanism="objective")``. One
dimension, no intercept, data_norm = 1, n = 10 rows: in V row 0 is (x = 1,
y = 1), in V′ it is the zero row (x = 0); the other nine are zero rows. ε =
1, C = 100, so Λ̃ = 1e-3 is far below the plateau and Δ > 0: the released
v̂ has density ∝ p_b(σ(−v) − nΛ′v)·(ℓ″(v) + nΛ′) on V and ∝
p_b(−nΛ′v)·nΛ′ on V′ (Λ′ = Λ̃ + Δ), so near v = 0 the Jacobian factor
(ℓ″ ≈ c = 1/4) is the largest part of the privacy loss. Outcomes: v̂ in
(−∞, −1], (−1, 0], (0, 1], (1, ∞) — found by integrating the two densities
(exact loss 0.29 over these bins for the honest mechanism, 0.38 at the
worst point, against ε = 1; at v = 0 the Jacobian factor is 1 + c/(nΛ′) =
e^(ε_obj/4), the whole Jacobian term of ``_objective``'s rank-one bound,
and ε′ = 3ε_obj/4; the expected ε̂ at N = 5,000 is about 0. With CMS's
squared factor, ε′ = ε_obj/2, before 2026-11-24: 0.27 and 0.33).

Power: the same mechanism with ε′ computed without the log term (ε′ =
ε_obj, Δ = 0, the mistake the theorem's Jacobian term guards against);
its exact loss is 3.0 near v = 0 and the expected ε̂ at N = 5,000 is 1.4,
so it must be caught (ε̂ > ε).

The draws call ``_objective.fit_objective`` (what ``fit`` runs after the
public clipping and plan; ``test_objective.py`` checks that ``fit`` uses
it) with production noise (OS CSPRNG), N = 5,000 per side.
"""

from __future__ import annotations

import sys
import warnings
from dataclasses import replace
from functools import partial
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "audits"))
from _audit import ALPHA, binned, epsilon_lower_bound, in_worker_processes  # noqa: E402

import sklearn_dpbo.dp_learners._objective as ob  # noqa: E402
from sklearn_dpbo.privacy._samplers import secure_source  # noqa: E402

N = 5_000
EPSILON = 1.0
N_ROWS = 10
C = 100.0
EDGES = (-1.0, 0.0, 1.0)


def _pair():
    X = np.zeros((N_ROWS, 1))
    X[0, 0] = 1.0
    s = -np.ones(N_ROWS)
    s[0] = 1.0
    return (X, s), (np.zeros((N_ROWS, 1)), s)


def _plan(broken: bool):
    plan = ob.objective_plan(N_ROWS, C, 1.0, EPSILON)
    if broken:  # ε′ without the log term (and so no Δ): true loss ≈ 3
        plan = replace(
            plan, extra_regularization=0.0, epsilon_prime=plan.epsilon_objective
        )
        plan = replace(plan, noise_scale=2.0 / plan.epsilon_prime)
    return plan


def _draw(side: int, n: int, broken: bool = False) -> np.ndarray:
    X, s = _pair()[side]
    plan = _plan(broken)
    rng = secure_source()
    out = np.empty(n)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i in range(n):
            out[i] = ob.fit_objective(X, s, plan, 1.0, rng, 100)[0]
    return binned(out, EDGES)


def test_plan_of_the_audit():
    honest, broken = _plan(False), _plan(True)
    assert honest.extra_regularization > 0
    assert honest.epsilon_prime == pytest.approx(0.99 * 3 / 4)
    # the Jacobian factor at v = 0: 1 + c/(nΛ′) = e^(ε_obj/4) ≈ 1.2808 honest
    # (the rank-one bound's whole Jacobian term), 26 broken
    assert 1 + 0.25 / (N_ROWS * honest.strong_convexity) == pytest.approx(1.280819)
    assert 1 + 0.25 / (N_ROWS * honest.strong_convexity) == pytest.approx(
        np.exp(0.99 / 4)
    )
    assert 1 + 0.25 / (N_ROWS * broken.strong_convexity) == pytest.approx(26.0)


@pytest.mark.slow
def test_audit_objective_perturbation():
    a, b = in_worker_processes((partial(_draw, 0), N), (partial(_draw, 1), N))
    result = epsilon_lower_bound(a, b, ALPHA)
    print("objective", result)
    assert result.epsilon_hat <= EPSILON, str(result)


@pytest.mark.slow
def test_power_missing_log_term_is_caught():
    a, b = in_worker_processes(
        (partial(_draw, 0, N, True),), (partial(_draw, 1, N, True),)
    )
    result = epsilon_lower_bound(a, b, ALPHA)
    print("objective, no log term", result)
    assert result.epsilon_hat > EPSILON, str(result)
