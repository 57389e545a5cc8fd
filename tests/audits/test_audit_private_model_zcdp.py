"""Statistical audit of the private-model search with the Gaussian-noise learner.

TESTING.md P3/P4 for ``DPBayesSearchCV(DPGradientDescentLogisticRegression,
method=PrivateModel(strategy="random-stopping"), epsilon=1, delta=1e-5)``:
K ~ the logarithmic law (E[K] = 2, the two candidates; capped at K_max =
37), each run a ρ₀-zCDP fit (ρ₀ = 0.0159) and its score + Laplace at
ε_s = √(2ρ₀) = 0.178, accounted in Rényi DP (``_private_model/_zcdp.py``,
``privacy/_rdp.py``). n = 241 rows: 240 training rows and m = 1
validation row, all (x = 1, y = 1); d = 1, no intercept, one gradient
step (T = 1), C ∈ {0.1, 1}. The real ``fit`` runs once per side to
capture the strategy's inputs (the plan and the parts); the whole
random-stopping mechanism (K, the i.i.d. candidates, the learner's fits
with production discrete-Gaussian noise, the scores, their Laplace noise,
the selection) is then drawn N times per side from the OS CSPRNG.
Outcome (24): released candidate × released score (≤ 0, in (0, 1), ≥ 1)
× released weight w in 4 bins (edges w₀ − s, the midpoint between the
noise-free models of V and V′, w₀ + s; w₀ and the noise s.d. s are
public functions of the candidate: :func:`_model_edges`).

- Validation row: y = 1 in V, y = 0 in V′. Every model predicts class 1
  at x = 1 (w ≈ 1.7–2.0, s.d. 0.16–0.18), so every run's clean score
  moves by the whole range (Δ = 1/m = 1): the worst case of the score.
- Training row: one y = 1 becomes y = 0 at a row of the largest norm
  (x = 1 = ``data_norm``): its gradient term moves by ‖x‖(σ(z) + σ(−z)) =
  1 whatever w, the largest move any change of one row makes here (d = 1,
  no intercept; the declared Δ = 2R is the triangle inequality's). The
  worst case of the model.
- The test: :func:`_audit.delta_audit` (δ-aware: with probability ≥ 1 − α
  no union S of outcomes has P[S] > e^ε P′[S] + δ unnoticed) at the
  search's (ε, δ) = (1, 1e-5), α = 1e-6, on three families of events
  (:data:`FAMILIES`, α/3 each): the 24 outcomes, the 3 score classes, the
  4 model bins. A leak of one score class spread over its 8 outcomes is
  seen whole by the score family (the 24-outcome family sums 8 bounds:
  with the library's score noise ÷ 10 it gave ε̂ = 0.52 at N = 2,000,
  the score family 1.36). The V draws serve both neighbours (as in
  ``test_audit_private_model``; false alarms add up to 2α). A memoised
  pure function (``_audit.clip_rows_once``) makes a draw cheaper; every
  model, score and release is the one the real functions give.

What these pairs can show. The accounting is an upper bound, loose here
(Papernot & Steinke's theorem, then the RDP → (ε, δ) conversion). On the
validation pair the models do not depend on the changed row and every
run's score is pure ε_s-DP, so the release is pure 2ε_s = 0.36-DP
(random stopping, η = 0, pure runs); the exact law of the released score
in 6 classes (the capped logarithmic pgf and the Laplace CDF) has loss
0.22 at δ = 1e-5. So no sound audit of these pairs can catch an
accounting error below a factor of about 3: every run at the whole
search's ρ (0.0306, ε_s = 0.247) is pure 0.49-DP on the validation pair
(exact: 0.31), and on the training pair, where the released model is one
run's, a Gaussian shift of 1/σ = 0.12 s.d. ((0.43, 1e-5)-DP); best-of-K
at a fixed K = 5 is pure 0.89-DP. None violates (1, 1e-5) here
(:func:`test_whole_search_rho_per_run_is_no_violation_on_these_pairs`).
Such errors are caught by the accounting tests
(``tests/privacy/test_rdp.py`` against ``dp_accounting``,
``test_private_model_zcdp.py``). This audit checks that the composed
search (the plan, the learner's noise, the score's noise, K, the
selection, the model it releases) leaks no more than its (ε, δ) on the
worst pairs; its power checks, that it sees gross leaks of either channel.

- Power, score: the same search with the runs' score noise scale ÷ 10
  (ε_s × 10: Google's ``*WithInsufficientNoise`` ratio, TESTING.md P4.2)
  leaks through "every run scored ≤ 0": P = 0.0495 on V, 0.352 on V′
  (loss 1.96 > ε = 1). The runs are an oracle returning the clean score
  every model has here (1 on V, 0 on V′; the models do not enter this
  event), so a draw costs K Laplace draws. At N_POWER = 2,400 per side
  the same :func:`_audit` rejects with probability 1 − 2.3e-7 (computed
  exactly from the two binomials through the score family:
  :func:`test_power_of_the_check_is_computed`); at the audit's N = 2,000
  (real runs, the same leak) 1 − 4.8e-5.
- Power, model: the same search with the learner's Gaussian noise σ ÷ 100
  (the production sampler at σ/100), on the training pair: the flipped
  row moves w by 1/σ = 0.089 noise s.d., 8.9 at σ/100, so w lands above
  the midpoint edge with probability 1 − 4.2e-6 on V and 4.2e-6 on V′;
  N_MODEL = 100 per side rejects through the model family with
  probability ≥ 1 − 1e-6 (computed). σ ÷ 10 (0.89 s.d.: P = 0.67 vs 0.33
  on the midpoint's sides, loss 0.7) is no violation these bins can show.
- Resolution of the audit at N = 2,000 (``_audit.resolution``, 24
  outcomes): an outcome of probability 0.3 with a loss of exactly ε is
  reported 0.54 below it (1.4 at probability 0.05). Cost: a real draw
  ~0.7–1.3 ms (K ≈ 2 fits and scores), a score power draw ~0.15 ms; the
  file's tests take about 8 s of CPU (6,000 + 4,800 + 200 draws).
"""

from __future__ import annotations

import math
import warnings
from functools import partial

import numpy as np
import pytest
from _audit import (
    ALPHA,
    capture_private_model_run,
    clip_rows_once,
    cp_lower,
    cp_upper,
    delta_audit,
    epsilon_lower_bound,
    in_worker_processes,
)
from scipy import stats

import sklearn_dpbo.dp_learners._base as _base
import sklearn_dpbo.dp_learners._gd as gd
import sklearn_dpbo.dp_learners._logistic as logistic
import sklearn_dpbo.model_selection._private_model._fit as pm
from sklearn_dpbo import DPBayesSearchCV
from sklearn_dpbo.dp_learners import DPGradientDescentLogisticRegression
from sklearn_dpbo.dp_learners._gd import gd_noise, rho_for
from sklearn_dpbo.model_selection import PrivateModel
from sklearn_dpbo.model_selection._private_model import _stopping as st
from sklearn_dpbo.privacy._samplers import secure_source

N = 2_000
N_POWER = 2_400
EPSILON, DELTA = 1.0, 1e-5
N_ROWS = 241
FRACTION = 0.004  # m = 1 validation row
SCORE_FACTOR = 10.0  # power check: the runs' score noise scale ÷ 10
N_MODEL = 100
MODEL_FACTOR = 100.0  # power check: the learner's noise σ ÷ 100


def _search():
    return DPBayesSearchCV(
        DPGradientDescentLogisticRegression(
            data_norm=1.0, fit_intercept=False, max_iter=1
        ),
        {"C": [0.1, 1.0]},
        method=PrivateModel(strategy="random-stopping", validation_fraction=FRACTION),
        epsilon=EPSILON,
        delta=DELTA,
        scoring="accuracy",
        n_iter=2,
        random_state=3,
    )


def _capture(role):
    X = np.ones((N_ROWS, 1))
    return capture_private_model_run(_search(), X, role, FRACTION)


def _model_edges(cfg) -> dict:
    """Per candidate C, the model bins' edges: public functions of C, n, ρ₀.

    With w₀ = 0 and every training row (x = 1, y = 1), one step gives
    w = η(1/2 − Z/n_fit), Z ~ N(0, σ²) on a fine grid (η = 1/(R²/4 + 1/(C
    n_fit)), R = 1, σ from ``gd_noise`` at ρ₀: the learner's formulas,
    ``dp_learners._gd``); on V′ (training row flipped) w is η/n_fit lower.
    Edges: w₀ − s, the midpoint w₀ − η/(2 n_fit) of the two noise-free
    models, w₀ + s (s = ησ/n_fit, w₀ = η/2): a learner without enough
    noise puts V and V′ on the two sides of the midpoint.
    """
    n_fit = N_ROWS - 1
    sigma = gd_noise(2.0, cfg["rho_run"], 1, 1)[0]
    edges = {}
    for params in cfg["candidates"]:
        eta = 1.0 / (0.25 + 1.0 / (params["C"] * n_fit))
        w0, s = eta / 2, eta * sigma / n_fit
        edges[params["C"]] = np.array([w0 - s, w0 - eta / (2 * n_fit), w0 + s])
    return edges


def _outcome(release, cfg, edges) -> int:
    c, model, score = release.value
    s = 0 if score <= 0 else (2 if score >= 1 else 1)
    w = float(model.coef_[0, 0])
    b = int(np.searchsorted(edges[cfg["candidates"][c]["C"]], w, side="left"))
    return c * 12 + s * 4 + b


class _Model:
    """The power check's stand-in for a fitted learner (only scores matter)."""

    coef_ = np.zeros((1, 1))


def _oracle(clean: float):
    def fit_and_score(learner, params, eps_fit, X_tr, y_tr, X_va, y_va, scorer, rng):
        return _Model(), clean

    return fit_and_score


def _draw(role, n, broken=None):
    """Outcome counts of n draws of the random-stopping mechanism on ``role``.

    ``broken``: a power check's variant (module docstring). ``"score"``:
    the runs' score noise at ε_s × 10, runs by the oracle (its stand-in
    model has w = 0: model bin 0 on both sides). ``"model"``: the
    learner's Gaussian noise σ ÷ 100 (the production sampler at σ/100).
    """
    ctx, cfg = _capture(role)
    edges = _model_edges(cfg)
    saved = pm._fit_and_score, gd.gaussian_on_grid
    if broken == "score":
        cfg = dict(cfg, eps_score=cfg["eps_score"] * SCORE_FACTOR)
        pm._fit_and_score = _oracle(1.0 if role == "V" else 0.0)
    elif broken == "model":
        real = gd.gaussian_on_grid
        gd.gaussian_on_grid = lambda v, sigma, step, rng: real(
            v, sigma / MODEL_FACTOR, step, rng
        )
    out = np.empty(n, dtype=int)
    try:
        with warnings.catch_warnings(), clip_rows_once(logistic):
            warnings.simplefilter("ignore")
            for i in range(n):
                ctx.rng = secure_source()
                out[i] = _outcome(pm._random_stopping(ctx, cfg)[0], cfg, edges)
    finally:  # the draws may run in the test's own process (pytest-xdist)
        pm._fit_and_score, gd.gaussian_on_grid = saved
    return np.bincount(out, minlength=24)


FAMILIES = {
    "all": lambda c: c,
    "score": lambda c: c.reshape(2, 3, 4).sum(axis=(0, 2)),
    "model": lambda c: c.reshape(2, 3, 4).sum(axis=(0, 1)),
}
"""The audit's families of events: every union of the 24 outcomes, of the
3 score classes, of the 4 model bins (a leak spread over the 8 outcomes of
one score class is seen whole by the score family)."""


def _audit(a, b):
    """:func:`_audit.delta_audit` on every family at α/3 (Bonferroni: the
    family-wise error stays α); the family with the largest ε̂."""
    results = {
        name: delta_audit(fold(a), fold(b), EPSILON, DELTA, ALPHA / len(FAMILIES))
        for name, fold in FAMILIES.items()
    }
    name = max(results, key=lambda k: results[k].epsilon_hat)
    return name, results[name], max(r.delta_hat for r in results.values())


def _counts(role, n):
    """n draws on ``role`` in two worker processes (or here, under xdist)."""
    halves = in_worker_processes(
        (partial(_draw, role), n // 2), (partial(_draw, role), n - n // 2)
    )
    return np.sum(halves, axis=0)


def test_plan_of_the_audit():
    """The search plans what the module docstring audits."""
    ctx, cfg = _capture("V")
    assert cfg["strategy"] == "random-stopping" and cfg["name"] == "logarithmic"
    assert cfg["mean"] == pytest.approx(2.0) and cfg["cap"] == 37
    assert cfg["rho_run"] == pytest.approx(0.01586, rel=1e-3)
    assert cfg["eps_score"] == pytest.approx(math.sqrt(2 * cfg["rho_run"]))
    assert ctx.m == 1 and len(ctx.parts[0]) == N_ROWS - 1


@pytest.fixture(scope="module")
def counts_on_v():
    """N draws on V, shared by the two neighbour audits."""
    return _counts("V", N)


@pytest.mark.slow
@pytest.mark.xdist_group("audit_private_model_zcdp")
@pytest.mark.parametrize("role", ["val", "train"])
def test_audit_private_model_zcdp(role, counts_on_v):
    a, b = counts_on_v, _counts(role, N)
    assert a.sum() == b.sum() == N
    for counts in (a, b):  # both candidates and every score class occur
        by_class = counts.reshape(2, 3, 4)
        assert (by_class.sum(axis=(1, 2)) > 0).all()
        assert (by_class.sum(axis=(0, 2)) > 0).all()
    family, result, delta_hat = _audit(a, b)
    print(role, family, result)
    assert result.epsilon_hat <= EPSILON, str(result)
    assert delta_hat <= DELTA, str(result)


@pytest.mark.slow
@pytest.mark.parametrize(
    "broken, role, n", [("score", "val", N_POWER), ("model", "train", N_MODEL)]
)
def test_power_broken_variant_is_caught(broken, role, n):
    a, b = in_worker_processes(
        (partial(_draw, "V", n, broken),), (partial(_draw, role, n, broken),)
    )
    family, result, delta_hat = _audit(a, b)
    print(broken, family, result)
    assert result.epsilon_hat > EPSILON, str(result)
    assert delta_hat > DELTA, str(result)


@pytest.mark.parametrize("role", ["V", "train"])
def test_memoised_rows_change_no_value(role):
    """``clip_rows_once`` is speed only for this learner too: the same seeded
    runs give the same models and scores."""
    import random

    ctx, cfg = _capture(role)

    def runs():
        rng = random.Random(7)
        out = []
        for params in cfg["candidates"] * 3:
            model, value = pm._fit_and_score(
                ctx.learner, params, cfg["fit"], *ctx.parts, ctx.scorer, rng
            )
            out.append((model.coef_.tolist(), model.rho_, value))
        return out

    plain = runs()
    with clip_rows_once(logistic):
        memoised, again = runs(), runs()
    assert memoised == again == plain
    assert len({str(run) for run in plain}) == len(plain)  # fresh noise per run
    assert logistic.clip_rows is _base.clip_rows  # the real ones are back


# ---------------------------------------------------------------------------
# The power, computed (no draws)
# ---------------------------------------------------------------------------
def _all_low(clean: float, eps_s: float, cfg) -> float:
    """P[every run's noisy score ≤ 0] = E[F(0)^K], F the Laplace CDF at 0
    (continuous: the grid step is ≤ 2⁻²⁰ of the scale), K the capped law."""
    f = 0.5 * math.exp(-clean * eps_s)  # P[clean + Lap(1/ε_s) ≤ 0], clean ≥ 0
    k = np.arange(1, cfg["cap"] + 1)
    pmf = np.exp(st.log_pmf(k, cfg["eta"], cfg["gamma"]))
    pmf[-1] += 1.0 - pmf.sum()  # min(K, K_max)
    return float(np.sum(pmf * f**k))


def _power(n: int, p: float, q: float, n_outcomes: int) -> float:
    """P[the audit rejects through the event alone], n draws per side.

    The event has probability p on V and q > e^ε p on V′ and is one of the
    ``n_outcomes`` of a family; the audit rejects at least when
    (CP_lo(X′) − δ)/CP_hi(X) > e^ε at the family's level α/(3·4K)
    (:func:`_audit`), X ~ Bin(n, p), X′ ~ Bin(n, q) independent. Exact:
    summed over X′.
    """
    level = ALPHA / (len(FAMILIES) * 4 * n_outcomes)
    x = np.arange(n + 1)
    hi = cp_upper(x, n, level)  # increasing in x
    need = (cp_lower(x, n, level) - DELTA) / math.exp(EPSILON)  # for X′ = x
    x_max = np.searchsorted(hi, need, side="left") - 1  # largest X with hi < need
    caught = np.where(x_max >= 0, stats.binom.cdf(x_max, n, p), 0.0)
    return float(np.sum(stats.binom.pmf(x, n, q) * caught))


def test_power_of_the_check_is_computed():
    _, cfg = _capture("V")
    # the score check: "every run scored <= 0", ε_s × 10
    eps_s = cfg["eps_score"] * SCORE_FACTOR
    p, q = _all_low(1.0, eps_s, cfg), _all_low(0.0, eps_s, cfg)
    assert (p, q) == pytest.approx((0.0495, 0.3523), abs=5e-4)
    assert 1.0 - _power(N_POWER, p, q, 3) < 1e-6
    # the model check: w above the midpoint of the two noise-free models,
    # σ ÷ 100; Gaussian (the grid step is ≤ 2⁻²⁰ σ): on V w − w₀ ~ N(0, s²)
    # and the midpoint is η/(2 n_fit) = s/(2σ) below w₀ (w₀ + s is 100
    # s.d. above): P = Φ(1/(2σ_b)) on V, Φ(−1/(2σ_b)) on V′
    sigma_b = gd_noise(2.0, cfg["rho_run"], 1, 1)[0] / MODEL_FACTOR
    tail = float(stats.norm.sf(1 / (2 * sigma_b)))
    assert tail < 1e-5
    assert 1.0 - _power(N_MODEL, tail, 1 - tail, 4) < 1e-6
    # the correct search: the score event's loss is far below epsilon
    low = [_all_low(v, cfg["eps_score"], cfg) for v in (0.0, 1.0)]
    assert math.log(low[0] / low[1]) < 0.25 * EPSILON


def test_whole_search_rho_per_run_is_no_violation_on_these_pairs():
    """Why the power checks break the noise, not the accounting (module
    docstring): every run at the whole search's ρ is still (1, 1e-5)-DP on
    both pairs, so no sound audit of them can catch it. Validation pair:
    pure 2ε_s (random stopping, η = 0, pure ε_s runs; the models do not
    depend on the row). Training pair: the released model is one run's
    (every score is 1 on both sides), a Gaussian shift of μ = 1/σ s.d.,
    whose exact δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) (Balle & Wang,
    ICML 2018, Theorem 8)."""
    rho = rho_for(EPSILON, DELTA)  # the whole search's ρ
    assert 2 * math.sqrt(2 * rho) < EPSILON  # 0.49
    mu = 1.0 / gd_noise(2.0, rho, 1, 1)[0]
    norm = stats.norm
    delta = norm.cdf(-EPSILON / mu + mu / 2) - math.e * norm.cdf(-EPSILON / mu - mu / 2)
    assert delta < DELTA  # 7e-18


# ---------------------------------------------------------------------------
# delta_audit (the δ-aware bound, _audit.py): known answers (TESTING.md H5)
# ---------------------------------------------------------------------------
def _brute_force(c, cp, epsilon, delta, alpha=ALPHA):
    """ε̂ and δ̂ by enumerating every union S of outcomes (the docstring)."""
    k = len(c)
    level = alpha / (4 * k)
    bounds = [
        (cp_lower(c, sum(c), level), cp_upper(cp, sum(cp), level)),
        (cp_lower(cp, sum(cp), level), cp_upper(c, sum(c), level)),
    ]
    eps_hat, delta_hat = -math.inf, 0.0
    for lo, hi in bounds:
        for mask in range(1, 2**k):
            s = [o for o in range(k) if mask >> o & 1]
            low, high = float(np.sum(lo[s])), float(np.sum(hi[s]))
            delta_hat = max(delta_hat, low - math.exp(epsilon) * high)
            if low > delta:
                eps_hat = max(eps_hat, math.log((low - delta) / high))
    return eps_hat, delta_hat


@pytest.mark.parametrize("seed", range(6))
def test_delta_audit_is_the_maximum_over_every_event(seed):
    rng = np.random.default_rng(seed)
    p = rng.dirichlet(np.ones(5))
    q = 0.5 * p + 0.5 * rng.dirichlet(np.ones(5))
    c, cp = rng.multinomial(3000, p), rng.multinomial(3000, q)
    for delta in (0.0, 1e-3, 0.05):
        got = delta_audit(c, cp, 0.3, delta)
        want = _brute_force(c, cp, 0.3, delta)
        assert got.epsilon_hat == pytest.approx(want[0], rel=1e-12, abs=1e-15)
        assert got.delta_hat == pytest.approx(max(want[1], 0.0), rel=1e-12, abs=1e-15)
        # equivalent tests: δ̂(ε) > δ exactly when ε̂(δ) > ε
        for eps in (0.0, 0.2, 0.5):
            at = delta_audit(c, cp, eps, delta)
            assert (at.delta_hat > delta) == (got.epsilon_hat > eps)


def test_delta_audit_at_delta_zero_is_epsilon_lower_bound():
    c, cp = [600, 300, 100], [300, 400, 300]
    assert delta_audit(c, cp, 1.0, 0.0).epsilon_hat == pytest.approx(
        epsilon_lower_bound(c, cp).epsilon_hat, rel=1e-12
    )


def test_delta_audit_closed_form():
    # all of V on outcome 0, all of V' on outcome 1: lo = (α/8)^(1/n) on
    # V (Beta(α; n, 1)), hi' = 1 − (α/8)^(1/n) on V' (k = 0)
    n, delta = 1000, 0.01
    lo = (ALPHA / 8) ** (1 / n)
    res = delta_audit([n, 0], [0, n], 1.0, delta)
    assert res.epsilon_hat == pytest.approx(math.log((lo - delta) / (1 - lo)))
    assert res.delta_hat == pytest.approx(lo - math.e * (1 - lo))
    assert res.event == (0,) and res.direction == "V/V'"
    with pytest.raises(ValueError):
        delta_audit([1, 2], [1, 2, 3], 1.0, delta)


@pytest.mark.parametrize("seed", range(3))
def test_delta_audit_on_a_tight_pair_and_a_leaky_one(seed):
    # exactly (ε, δ)-tight: P[0] = e^ε P'[0] + δ; the bound stays below ε
    # at that δ, and a pair with 5 times that δ is caught
    eps, delta, n = 1.0, 0.02, 20_000
    q = np.array([0.05, 0.45, 0.5])
    p = np.array([math.e * 0.05 + delta, 0.0, 0.0])
    p[1:] = (1 - p[0]) * q[1:] / q[1:].sum()
    rng = np.random.default_rng(seed)
    c, cp = rng.multinomial(n, p), rng.multinomial(n, q)
    assert delta_audit(c, cp, eps, delta).epsilon_hat <= eps
    leaky = p.copy()
    leaky[0] += 4 * delta
    leaky[1:] = (1 - leaky[0]) * q[1:] / q[1:].sum()
    res = delta_audit(rng.multinomial(n, leaky), cp, eps, delta)
    assert res.epsilon_hat > eps and res.delta_hat > delta
