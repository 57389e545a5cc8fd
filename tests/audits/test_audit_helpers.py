"""Known-answer tests of the audit helpers (TESTING.md H5).

The Clopper–Pearson bounds are cross-checked against
``scipy.stats.binomtest(...).proportion_ci(method="exact")``; the ε lower
bound against closed forms and against multinomial samples of pairs whose
privacy loss is known exactly; the leak matchers against planted values.
"""

from __future__ import annotations

import functools
import math
import pickle

import numpy as np
import pytest
from _audit import (
    ALPHA,
    Secrets,
    binned,
    cp_lower,
    cp_upper,
    draw_outcomes,
    epsilon_lower_bound,
    exact_epsilon,
    in_worker_processes,
    plan_once,
    public_checks_once,
    resolution,
    walk,
)
from scipy import stats

CASES = [
    (0, 10),
    (1, 10),
    (5, 10),
    (9, 10),
    (10, 10),
    (37, 1000),
    (0, 100_000),
    (18_394, 100_000),
    (100_000, 100_000),
]


@pytest.mark.parametrize("alpha", [0.05, 1e-3, 5e-8])
@pytest.mark.parametrize("k, n", CASES)
def test_clopper_pearson_matches_scipy_binomtest(k, n, alpha):
    # A one-sided bound at level α is one end of the two-sided interval at
    # confidence 1 − 2α.
    ci = stats.binomtest(k, n).proportion_ci(
        confidence_level=1 - 2 * alpha, method="exact"
    )
    # scipy passes through confidence_level = 1 − 2α, which loses ~1e-9 of
    # relative precision on α = 5e-8 (its bound is then off by ~2e-7
    # relative, see the k = 1 closed form below).
    assert float(cp_lower(k, n, alpha)) == pytest.approx(ci.low, rel=1e-6, abs=1e-15)
    assert float(cp_upper(k, n, alpha)) == pytest.approx(ci.high, rel=1e-6, abs=1e-15)


def test_clopper_pearson_known_answers():
    # k = 0 and k = n have closed forms: 1 − α^{1/n} and α^{1/n}.
    assert float(cp_upper(0, 10, 0.05)) == pytest.approx(1 - 0.05**0.1, rel=1e-12)
    assert float(cp_upper(0, 10, 0.05)) == pytest.approx(0.258866, abs=1e-6)
    assert float(cp_lower(10, 10, 0.05)) == pytest.approx(0.741134, abs=1e-6)
    assert float(cp_lower(0, 10, 0.05)) == 0.0
    # k = 1: P[X ≥ 1] = α at p = 1 − (1 − α)^{1/n}.
    for alpha in (0.05, 5e-8):
        want = -math.expm1(math.log1p(-alpha) / 10)
        assert float(cp_lower(1, 10, alpha)) == pytest.approx(want, rel=1e-9)
    assert float(cp_upper(10, 10, 0.05)) == 1.0
    # "Rule of three": 0 successes in n trials, 95% upper bound ≈ 3/n.
    assert float(cp_upper(0, 10_000, 0.05)) == pytest.approx(3 / 10_000, rel=2e-3)
    # Vectorised, and ordered.
    lo, hi = cp_lower([0, 3, 10], 10, 1e-3), cp_upper([0, 3, 10], 10, 1e-3)
    assert lo.shape == hi.shape == (3,)
    assert np.all(lo <= np.array([0, 0.3, 1.0])) and np.all(hi >= [0, 0.3, 1.0])


def test_clopper_pearson_coverage():
    """Each one-sided bound fails at most α of the time (it is conservative)."""
    rng = np.random.default_rng(0)
    p, n, alpha = 0.3, 50, 0.05
    k = rng.binomial(n, p, size=20_000)
    miss_lo = np.mean(cp_lower(k, n, alpha) > p)
    miss_hi = np.mean(cp_upper(k, n, alpha) < p)
    # Exact miss rates are ≤ α; 20,000 draws give ± 0.005 at 3 sigma.
    assert miss_lo <= alpha + 0.005 and miss_hi <= alpha + 0.005
    assert miss_lo > 0.01 and miss_hi > 0.01  # not vacuous either


def test_epsilon_lower_bound_closed_form():
    """Deterministic outputs: ε̂ = log(a^{1/n} / (1 − a^{1/n})), a = α/(4K)."""
    n = 1000
    res = epsilon_lower_bound([n, 0], [0, n])
    a = ALPHA / 8
    expected = math.log(a ** (1 / n) / (1 - a ** (1 / n)))
    assert res.epsilon_hat == pytest.approx(expected, rel=1e-10)
    assert expected == pytest.approx(4.134, abs=0.001)
    assert (res.n, res.n_prime, res.n_outcomes) == (n, n, 2)
    # Both directions are looked at, and the result names the outcome.
    swapped = epsilon_lower_bound([0, n], [n, 0])
    assert swapped.epsilon_hat == pytest.approx(res.epsilon_hat, rel=1e-12)
    assert {res.direction, swapped.direction} <= {"V/V'", "V'/V"}
    assert "eps_hat=" in str(res)


def test_epsilon_lower_bound_of_identical_counts_is_negative():
    res = epsilon_lower_bound([500, 300, 200], [500, 300, 200])
    assert res.epsilon_hat < 0


def test_epsilon_lower_bound_bonferroni_level():
    """Every ratio uses one-sided bounds at α/(4K)."""
    c, cp = np.array([600, 400]), np.array([300, 700])
    level = ALPHA / 8
    want = max(
        math.log(cp_lower(600, 1000, level) / cp_upper(300, 1000, level)),
        math.log(cp_lower(700, 1000, level) / cp_upper(400, 1000, level)),
    )
    assert epsilon_lower_bound(c, cp).epsilon_hat == pytest.approx(want, rel=1e-12)
    with pytest.raises(ValueError):
        epsilon_lower_bound([1, 2], [1, 2, 3])


def _tight_pair(epsilon, k):
    """Outcome 0 has loss exactly ε; the rest share the remaining mass."""
    p0 = 0.4
    q0 = p0 * math.exp(-epsilon)
    p = np.r_[p0, np.full(k - 1, (1 - p0) / (k - 1))]
    q = np.r_[q0, np.full(k - 1, (1 - q0) / (k - 1))]
    return p, q


@pytest.mark.parametrize("seed", range(5))
def test_estimator_is_sound_on_an_exactly_tight_pair(seed):
    p, q = _tight_pair(1.0, 5)
    assert exact_epsilon(p, q) == pytest.approx(1.0)
    rng = np.random.default_rng(seed)
    n = 100_000
    res = epsilon_lower_bound(rng.multinomial(n, p), rng.multinomial(n, q))
    assert res.epsilon_hat <= 1.0
    # ... and close to it: within about the documented resolution.
    assert res.epsilon_hat > 1.0 - 2 * resolution(n, p[0], 1.0, 5)


def test_estimator_detects_an_excess_larger_than_its_resolution():
    n, k = 100_000, 5
    excess = 2 * resolution(n, 0.4, 1.0, k)
    p, q = _tight_pair(1.0 + excess, k)
    rng = np.random.default_rng(1)
    res = epsilon_lower_bound(rng.multinomial(n, p), rng.multinomial(n, q))
    assert res.epsilon_hat > 1.0
    assert res.outcome == 0 and res.direction == "V/V'"


def test_resolution_matches_the_testing_guide():
    """TESTING.md P3: p ≈ 0.5, K = 5, ε = 1 gives ε − 0.16, − 0.05, − 0.017."""
    got = [resolution(n, 0.5, 1.0, 5) for n in (10**4, 10**5, 10**6)]
    assert got[0] == pytest.approx(0.16, abs=0.015)
    assert got[1] == pytest.approx(0.05, abs=0.005)
    assert got[2] == pytest.approx(0.017, abs=0.002)
    assert got[0] > got[1] > got[2] > 0


def test_binned_uses_right_closed_public_bins():
    counts = binned([-5.0, 0.0, 0.1, 1.0, 1.0000001, 9.0], [0.0, 1.0])
    np.testing.assert_array_equal(counts, [2, 2, 2])
    assert binned([], [0.0]).tolist() == [0, 0]


def test_secrets_match_floats_text_and_bytes():
    secret = 0.5780346820809249  # 100/173
    s = Secrets([secret, 1.0, 0.0])
    assert len(s) == 2  # ± the secret; the public constants are dropped
    assert s.match_float(secret) and s.match_float(-secret)
    assert s.match_float(secret + 1e-13) and not s.match_float(secret + 1e-9)
    assert not s.match_float(float("nan")) and not s.match_float(1.0)
    assert s.match_array(np.array([[0.1, 0.2], [secret, 0.3]]))
    assert not s.match_array(np.array([0.1, np.inf, np.nan]))
    assert s.match_text(f"score {secret:.4f}", 3) == [f"{secret:.4f}"]
    assert s.match_text(f"score {secret:.2f}", 3) == []  # too few decimals
    assert s.match_text(f"x={secret * 10:.3e}", 3) == []
    assert s.match_text(f"x={secret:.4e}", 3)
    assert s.match_bytes(pickle.dumps(secret)) == [secret]
    assert s.match_bytes(np.asarray([secret]).astype(">f8").tobytes()) == [secret]
    assert s.match_bytes(b"nothing") == []
    empty = Secrets([])
    assert not empty.match_float(0.3) and not empty.match_array([0.3])
    assert empty.match_text("0.3000", 1) == []


def test_walk_reaches_nested_state():
    secret = 0.123456789

    class Holder:
        __slots__ = ("slot",)

    h = Holder()
    h.slot = {"k": [np.array([secret])]}
    hidden = [
        h,
        functools.partial(float, secret),
        (lambda v: lambda: v)(secret),
        np.array([{"deep": secret}], dtype=object),
    ]
    for obj in hidden:
        found = [p for p, _, o in walk({"root": obj}) if _is_secret(o, secret)]
        assert found, obj
    names = {key for _, key, _ in walk({"a": {"b_": 1}})}
    assert {"a", "b_"} <= names
    # Cycles terminate.
    cyc: list = []
    cyc.append(cyc)
    assert len(list(walk(cyc))) == 1


def _is_secret(obj, secret):
    if isinstance(obj, float):
        return obj == secret
    if isinstance(obj, np.ndarray) and obj.dtype != object:
        return bool(np.any(obj == secret))
    return False


def _secure_draws(n):
    from sklearn_dpbo.privacy._samplers import secure_source

    src = secure_source()
    return draw_outcomes(lambda: src.randrange(2**62), n, dtype=np.int64)


def test_in_worker_processes_returns_each_call_in_order():
    out = in_worker_processes(
        (functools.partial(np.arange, 3),), (pow, 2, 10), (_secure_draws, 50)
    )
    np.testing.assert_array_equal(out[0], [0, 1, 2])
    assert out[1] == 1024
    assert out[2].shape == (50,)


def test_in_worker_processes_sides_draw_independent_noise():
    """Two sides drawn at once share no noise (no copied generator state)."""
    a, b = in_worker_processes((_secure_draws, 100), (_secure_draws, 100))
    assert len(np.intersect1d(a, b)) == 0  # collisions in 2^62: p < 1e-14
    assert len(np.unique(a)) == 100


def test_public_checks_once_runs_each_distinct_check_and_refuses_alike():
    """The memo of the end-to-end audits calls the real check once per
    distinct input (a small training set: whatever the seed) and passes
    nothing the real check refuses."""
    from unittest import mock

    from sklearn.linear_model import LogisticRegression

    from sklearn_dpbo import make_dp_scorer
    from sklearn_dpbo.privacy._scorers import PUBLIC_ROWS, DPScorer

    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    y = np.array([0, 0, 1, 1])
    scorer = make_dp_scorer("accuracy")
    real = DPScorer.check_public_rows
    fitted = [LogisticRegression(C=c).fit(X, y) for c in (1.0, 1.0, 2.0)]
    with mock.patch.object(DPScorer, "check_public_rows", autospec=True) as spy:
        spy.side_effect = real
        with public_checks_once():
            for seed, est in enumerate(fitted * 2):
                scorer.check_public_rows(est, X, y, random_state=seed)
    assert spy.call_count == 2  # C = 1 and C = 2: two distinct fitted models
    with public_checks_once():
        with pytest.raises(ValueError, match="one value per record"):
            make_dp_scorer(
                lambda t, p: np.mean(t == p), bounds=(0.0, 1.0)
            ).check_public_rows(fitted[0], X, y)
    # A training set larger than the sample: the seed picks the rows.
    big_X = np.arange(2.0 * PUBLIC_ROWS)[:, None]
    big_y = (big_X[:, 0] > PUBLIC_ROWS).astype(int)
    est = LogisticRegression().fit(big_X, big_y)
    with mock.patch.object(DPScorer, "check_public_rows", autospec=True) as spy:
        spy.side_effect = real
        with public_checks_once():
            for seed in (0, 1, 0):
                scorer.check_public_rows(est, big_X, big_y, random_state=seed)
    assert spy.call_count == 2


@pytest.mark.filterwarnings("ignore::sklearn_dpbo.UselessReleaseWarning")  # m = 12
def test_plan_once_builds_one_plan_per_search_and_only_for_it():
    """``plan_once(search)``: the real plan on the first fit of ``search``,
    the same plan object on its later fits; another search builds its own
    every time; outside the block every fit builds it again."""
    from unittest import mock

    from sklearn.linear_model import LogisticRegression

    import sklearn_dpbo.model_selection._search as search_module
    from sklearn_dpbo import DPBayesSearchCV
    from sklearn_dpbo.model_selection import PrivateSelection

    X = np.array([[0.0], [1.0], [2.0], [3.0]] * 3)
    y = np.array([0, 0, 1, 1] * 3)

    def make():
        return DPBayesSearchCV(
            LogisticRegression(),
            {"C": [0.1, 1.0]},
            method=PrivateSelection(shortlist="grid"),
            refit=False,
        )

    search, other = make(), make()
    real = search_module.check_settings_and_metrics
    built = []  # (search, plan) of every real build

    def spy(s):
        built.append((s, real(s)))
        return built[-1][1]

    with mock.patch.object(search_module, "check_settings_and_metrics", spy):
        with plan_once(search):
            for s in (search, search, other, search, other):
                s.fit(X, y, X_val=X, y_val=y)
        assert [s for s, _ in built] == [search, other, other]
        search.fit(X, y, X_val=X, y_val=y)  # outside the block: built again
        assert len(built) == 4
