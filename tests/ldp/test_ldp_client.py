"""Client-side randomisers of local-DP BO (``_ldp_client.py``).

Statistical audit (TESTING.md P3/P4): on the extreme input pair (a, b) of
the public range, ε̂ from one-sided Clopper–Pearson bounds (family-wise
α = 1e-6, ``audits/_audit.py``) must not exceed ε, and the same audit
must flag a randomiser with half the noise (true loss 2ε).

Resolution: at N = 20,000 draws per side and 5 bins, an exactly ε-tight
outcome of probability 0.30 (the lower Laplace tail bin at ε = 1) is
reported about 0.16 below ε (``resolution``), so an excess of more than
about 0.2 over ε would be detected and half the noise (2ε) is caught with
a wide margin.
"""

from __future__ import annotations

import itertools
import logging
import math
import pickle
import random
import warnings
from fractions import Fraction

import numpy as np
import pytest
from audits._audit import ALPHA, binned, epsilon_lower_bound, resolution

from sklearn_dpbo import PrivacyLeakWarning
from sklearn_dpbo.ldp import (
    LaplaceRandomizer,
    LDPReport,
    RandomizedResponse,
    ldp_maximize,
)
from sklearn_dpbo.privacy._samplers import laplace_on_grid, secure_source

EPS = 1.0
N_AUDIT = 20_000
EDGES = (-0.5, 0.0, 1.0, 1.5)  # public bins around [a, b] = [0, 1]


def _draw(fn, value, n):
    return np.fromiter((fn(value) for _ in range(n)), dtype=float, count=n)


_LAPLACE = LaplaceRandomizer((0.0, 1.0), EPS)  # production: OS CSPRNG
_RR = RandomizedResponse((0.0, 1.0), EPS)
_BROKEN_SOURCE = random.SystemRandom()


def _laplace_production(value):
    return _LAPLACE.privatize(value).value


_HALF = secure_source()


def _laplace_half_noise(value):
    # Broken variant: calibrated to half the range (true loss 2ε).
    return laplace_on_grid(min(max(value, 0.0), 1.0), 0.5, EPS, _HALF)[0]


@pytest.mark.slow
def test_laplace_randomizer_audit_extreme_pair():
    a, b = (
        _draw(_laplace_production, 0.0, N_AUDIT),
        _draw(_laplace_production, 1.0, N_AUDIT),
    )
    res = epsilon_lower_bound(binned(a, EDGES), binned(b, EDGES), ALPHA)
    assert res.epsilon_hat <= EPS, str(res)
    # The audit is not vacuous: it resolves a tight ε to within 0.17, and
    # the tail bins are ε-tight (Pr 0.30 vs 0.11 below -0.5).
    assert resolution(N_AUDIT, 0.30, EPS, len(EDGES) + 1) < 0.17
    assert res.epsilon_hat > EPS - 0.3, str(res)


@pytest.mark.slow
def test_laplace_audit_catches_half_the_noise():
    n = 6_000
    a, b = _draw(_laplace_half_noise, 0.0, n), _draw(_laplace_half_noise, 1.0, n)
    res = epsilon_lower_bound(binned(a, EDGES), binned(b, EDGES), ALPHA)
    assert res.epsilon_hat > EPS, str(res)


def test_laplace_clips_before_noise():
    # Inputs beyond the bounds behave exactly as the bounds (same seed).
    with pytest.warns(PrivacyLeakWarning):
        r1 = LaplaceRandomizer((0.0, 1.0), EPS, noise_random_state=3)
    with pytest.warns(PrivacyLeakWarning):
        r2 = LaplaceRandomizer((0.0, 1.0), EPS, noise_random_state=3)
    assert [r1.privatize(x).value for x in (5.0, -7.0, float("nan"))] == [
        r2.privatize(x).value for x in (1.0, 0.0, 0.0)
    ]


def test_laplace_report_on_public_grid_and_scale():
    r = LaplaceRandomizer((-2.0, 2.0), 0.5)
    spec = r.public_spec()
    k = math.floor(math.log2(4.0 / 0.5)) - 20
    assert spec.noise_scale == pytest.approx((4.0 + 2.0**k) / 0.5, rel=1e-15)
    assert spec.second_moment == pytest.approx(4.0 + 2.0 * spec.noise_scale**2)
    for _ in range(200):
        v = r.privatize(0.123456789).value
        assert (Fraction(v) / Fraction(2) ** k).denominator == 1


def test_laplace_noise_distribution_matches_scale():
    # Mean absolute deviation of Laplace(l) is l; 4000 draws: s.d. of the
    # mean is l/sqrt(4000) ≈ 0.016 l; tolerance 6 s.d. Also rejects l/2.
    with pytest.warns(PrivacyLeakWarning):
        r = LaplaceRandomizer((0.0, 1.0), 2.0, noise_random_state=11)
    draws = np.array([r.privatize(0.5).value for _ in range(4000)]) - 0.5
    mad = np.abs(draws).mean()
    scale = r.public_spec().noise_scale
    assert abs(mad - scale) < 6 * scale / math.sqrt(4000)
    assert abs(mad - scale / 2) > 6 * scale / math.sqrt(4000)


def _rr_exact_p1(u: float, eps: float) -> float:
    q = 1.0 / (1.0 + math.exp(eps))
    return q + u * (1.0 - 2.0 * q)


def test_randomized_response_distribution_and_unbiased():
    eps = 1.0
    with pytest.warns(PrivacyLeakWarning):
        r = RandomizedResponse((0.0, 1.0), eps, noise_random_state=5)
    n = 4_000
    for u in (0.0, 0.3, 1.0):
        vals = np.array([r.privatize(u).value for _ in range(n)])
        hi = r.public_spec().report_half_width + 0.5
        assert set(np.round(vals, 12)) <= {round(hi, 12), round(1.0 - hi, 12)}
        p_hat = np.mean(vals > 0.5)
        p = _rr_exact_p1(u, eps)
        assert abs(p_hat - p) < 5 * math.sqrt(p * (1 - p) / n)
        assert abs(vals.mean() - u) < 5 * vals.std() / math.sqrt(n)


def _rr_production(value):
    return _RR.privatize(value).value


def _rr_broken(value):
    # Flip probability of 2ε: true loss 2ε.
    q = 1.0 / (1.0 + math.exp(2 * EPS))
    bit = value >= 0.5
    return float(bit != (_BROKEN_SOURCE.random() < q))


@pytest.mark.slow
def test_randomized_response_audit_and_power():
    n = 12_000
    edges = (0.5,)
    a, b = _draw(_rr_production, 0.0, n), _draw(_rr_production, 1.0, n)
    res = epsilon_lower_bound(binned(a, edges), binned(b, edges), ALPHA)
    assert EPS - 0.2 < res.epsilon_hat <= EPS, str(res)
    a, b = _draw(_rr_broken, 0.0, n), _draw(_rr_broken, 1.0, n)
    res = epsilon_lower_bound(binned(a, edges), binned(b, edges), ALPHA)
    assert res.epsilon_hat > EPS, str(res)


def test_report_runs_objective_inside_and_returns_report_only():
    seen = []

    def objective(p):
        seen.append(p)
        return 0.25

    r = LaplaceRandomizer((0.0, 1.0), 1.0)
    rep = r.report(objective, {"x": 1})
    assert isinstance(rep, LDPReport) and seen == [{"x": 1}]
    assert rep.spec == r.public_spec()
    assert set(vars(rep)) == {"value", "spec"}


def test_seed_warns_and_pickle_drops_the_source():
    with pytest.warns(PrivacyLeakWarning, match="NOT locally differentially"):
        r = LaplaceRandomizer((0.0, 1.0), 1.0, noise_random_state=1)
    blob = pickle.dumps(r)
    assert b"_source" not in blob
    r2 = pickle.loads(blob)
    assert r2.public_spec() == r.public_spec()
    default = LaplaceRandomizer((0.0, 1.0), 1.0)
    assert isinstance(default._source, random.SystemRandom)


@pytest.mark.parametrize(
    "bounds, eps",
    [((1.0, 0.0), 1.0), ((0.0, math.inf), 1.0), ((0.0, 1.0), 0.0), ((0, 1), math.nan)],
)
def test_bad_settings_rejected(bounds, eps):
    with pytest.raises(ValueError):
        LaplaceRandomizer(bounds, eps)


class _LoudReward:
    def __float__(self):
        print("secret reward")
        raise RuntimeError("secret")


@pytest.mark.parametrize(
    "reward, same_as",
    [
        ("0.731", 0.731),  # a string spelling a number is that number
        ("x", math.nan),  # no number: the worst value, like NaN
        (None, math.nan),
        (_LoudReward(), math.nan),
        (10**400, 1.0),  # a real number too large for a float: clipped
        (True, 1.0),
        (0.25 + 0j, 0.25),
    ],
)
def test_any_reward_is_read_on_its_own_and_never_raises(reward, same_as, capsys):
    """Since 2026-11-25 (fourth review): a reward of the wrong type raised a
    TypeError naming its type, and 10**400 an OverflowError, so whether a
    report was made depended on the owner's value."""
    for cls in (LaplaceRandomizer, RandomizedResponse):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = cls((0.0, 1.0), 1.0, noise_random_state=3)
            ref = cls((0.0, 1.0), 1.0, noise_random_state=3)
            assert got.privatize(reward) == ref.privatize(same_as)
    assert capsys.readouterr() == ("", "")


_RR_BOUNDS = [(0.0, 1.0), (-1.0, 1.0), (0.1, 0.7), (-3.3, 2.9), (0.0, 0.3), (1.0, 7.0)]
_RR_EPS = [0.1, 0.3, 0.5, 0.7, 1.0, 1.3, 2.0, 3.0, 5.0, 709.0, 710.0, 1e6]


def test_randomized_response_reports_never_exceed_their_truncation_level():
    """The level TGP-UCB truncates at is the reports' own bound: no report
    may be cut. Computed apart from the report, it was one ulp below it for
    24 of 126 (bounds, ε, bit) cases (reviewer's rr_trunc.py; e.g. (0, 1),
    ε = 5), so TGP zeroed every such report and learned the midpoint."""
    for (lo, hi), eps in itertools.product(_RR_BOUNDS, _RR_EPS):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PrivacyLeakWarning)
            r = RandomizedResponse((lo, hi), eps, noise_random_state=0)
        spec = r.public_spec()
        level = spec.truncation_level(100, 0.1)
        seen = {r.privatize(u).value for u in (lo, hi) for _ in range(40)}
        assert seen <= {r._report(False), r._report(True)}
        for bit in (False, True):
            value = r._report(bit)
            assert abs(value - spec.midpoint) <= level, (lo, hi, eps, bit)
        q = 1.0 / (1.0 + math.exp(eps)) if eps < 709.5 else 0.0
        assert spec.noise_scale == q  # same bits as the closed form
        assert level == pytest.approx(0.5 * (hi - lo) / (1 - 2 * q), rel=1e-12)


def test_randomized_response_takes_any_epsilon():
    """1/(1 + e^ε) overflowed from ε = 710 (reviewer's rr_overflow.py)."""
    for eps in (710.0, 1e6, 1e300):
        r = RandomizedResponse((0.0, 1.0), eps)
        assert r.public_spec().noise_scale == 0.0
        assert r.privatize(0.0).value == 0.0 and r.privatize(1.0).value == 1.0


def _owner_objective(values, loud: bool):
    """One owner's evaluation per call. ``loud``: the owner with a negative
    value raises, and one with a large value warns, prints and logs, each
    message carrying her value; otherwise NaN and plain returns."""
    owners = iter(values)

    def objective(params):
        v = next(owners)
        if loud and v < 0:
            raise ValueError(f"negative value in the owner's records: {v}")
        if loud and v > 0.85:
            warnings.warn(f"owner value {v} is large", stacklevel=2)
            print(f"owner value {v}")
            logging.getLogger("owner").warning("owner value %s", v)
        return math.nan if v < 0 else v

    return objective


def test_failing_or_warning_objective_is_not_observable_beyond_its_report(
    capsys, caplog
):
    """V/V': an objective that raises or warns with the owner's value vs one
    that returns NaN (the lower bound) or the value silently: the same
    reports, result, warnings and printed output (reviewer's
    ldp_objective_raise.py: the exception and its message reached the
    learner and the reports made so far were lost)."""
    values = [0.7, 0.4, 0.9, -3.0, 0.5, 0.6]
    seen = []
    for loud in (True, False):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            res = ldp_maximize(
                _owner_objective(values, loud),
                {"x": (0.0, 1.0)},
                n_calls=len(values),
                n_candidates=16,
                algorithm="gp-ucb",
                random_state=0,
                noise_random_state=7,
            )
        out = (capsys.readouterr(), [r.getMessage() for r in caplog.records])
        caplog.clear()
        seen.append(
            (res.x, res.mean, res.reports.tolist(), [str(m.message) for m in w], out)
        )
    assert seen[0] == seen[1]
    assert len(seen[0][2]) == len(values)
    assert not any("owner" in m for m in seen[0][3])
    # The client alone: a failure is the report of NaN, i.e. of the lower bound.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        a = LaplaceRandomizer((0.0, 1.0), 1.0, noise_random_state=2)
        b = LaplaceRandomizer((0.0, 1.0), 1.0, noise_random_state=2)
    assert a.report(lambda: 1 / 0) == b.privatize(0.0)


def test_interrupting_the_objective_still_stops_the_client():
    def objective():
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        LaplaceRandomizer((0.0, 1.0), 1.0).report(objective)
