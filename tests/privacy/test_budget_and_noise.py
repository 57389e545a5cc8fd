"""Budget accountant wiring (B1-B3, B6), dp_accounting export, exact noise
(P7, P8) and interrupted fits of DPBayesSearchCV."""

from __future__ import annotations

import inspect
import math
import random
import re
import secrets
from fractions import Fraction

import numpy as np
import pytest
from _modekw import with_mode
from _stats import ALPHA, chi_square_pvalue
from conftest import (
    NOISE_SEED_WARNING,
    CallbackScorer,
    RowSpyClassifier,
    make_spy_scorer,
)
from sklearn.exceptions import FitFailedWarning
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import Normalizer, StandardScaler

from sklearn_dpbo import BudgetAccountant, BudgetError, DPBayesSearchCV
from sklearn_dpbo.model_selection import PrivateSelection
from sklearn_dpbo.privacy import _mechanisms, _samplers
from sklearn_dpbo.privacy._samplers import laplace_on_grid, sample_discrete_laplace
from sklearn_dpbo.privacy._validation import check_privacy_rng

pytestmark = [
    pytest.mark.usefixtures("single_blas_thread"),
    pytest.mark.filterwarnings(NOISE_SEED_WARNING),
]


def spy_search(method="private-selection", **kw):
    params = dict(scoring=make_spy_scorer(), n_iter=3, random_state=0)
    params.update(kw)
    params = with_mode(method, params, public_cv=2)
    return DPBayesSearchCV(RowSpyClassifier(), {"C": [0.01, 0.1, 1.0, 10.0]}, **params)


def _fit(search, id_data):
    X, y, tr, va = id_data
    return search.fit(X[tr], y[tr], X_val=X[va], y_val=y[va])


# ---------------------------------------------------------------------------
# Accountant
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("method", ["private-selection", "gp-ucb"])
def test_accountant_charged_once_with_the_planned_cost(id_data, method):
    acc = BudgetAccountant(epsilon=2.5, delta=1e-4)
    s = _fit(spy_search(method, epsilon=1.0, delta=1e-5, accountant=acc), id_data)
    (spend,) = acc.history
    report = s.privacy_report_
    assert (spend.epsilon, spend.delta) == (report.epsilon, report.delta)
    assert spend.delta == (0.0 if method == "private-selection" else 1e-5)
    _fit(spy_search(method, epsilon=1.0, delta=1e-5, accountant=acc), id_data)
    assert len(acc.history) == 2
    with pytest.raises(BudgetError, match="budget exceeded"):
        _fit(spy_search(method, epsilon=1.0, delta=1e-5, accountant=acc), id_data)
    assert len(acc.history) == 2


def test_refused_fit_touches_no_data_and_leaves_ledger(id_data, spy_log):
    acc = BudgetAccountant(epsilon=1.0)
    with pytest.raises(BudgetError, match="smaller epsilon"):
        _fit(spy_search(epsilon=1.2, accountant=acc), id_data)
    assert spy_log == []  # no fit, no scorer call on any row
    assert acc.spent == (0.0, 0.0) and acc.history == ()
    assert not hasattr(spy_search(accountant=acc), "best_params_")


class _Touched(Exception):
    """Raised by :class:`_Untouchable` when anything reads it."""


class _Untouchable:
    """A validation set that raises on any read (len, index, attribute, array)."""

    def __getattr__(self, name):
        raise _Touched(name)

    def __len__(self):
        raise _Touched("len")

    def __getitem__(self, key):
        raise _Touched("getitem")

    def __iter__(self):
        raise _Touched("iter")

    def __array__(self, *args, **kwargs):
        raise _Touched("array")


@pytest.mark.parametrize(
    "method, kw, match",
    [
        ("private-selection", dict(budget_split=1e-13), "best_params_ an epsilon"),
        ("private-selection", dict(budget_split=1 - 1e-13), "best_score_ an epsilon"),
        ("gp-ucb", dict(budget_split=1e-13), "best_params_ an epsilon"),
        ("gp-ucb", dict(delta=5e-324), "best_params_ a delta"),
        # Units (F7): refused before data too.
        ("gp-ucb", dict(score_scale=0.01), "score_scale=0.01 is below"),
        ("gp-ucb", dict(score_offset=0.9), r"inside \[-2, 2\]"),
    ],
)
def test_per_release_floors_are_refused_before_data(
    id_data, spy_log, method, kw, match
):
    """F5: a per-release ε (δ) below the floor, or gp-ucb units that inflate
    the loss, are refused before any read or charge."""
    X, y, tr, _ = id_data
    acc = BudgetAccountant(epsilon=10.0, delta=1e-3)
    search = spy_search(method, epsilon=1.0, accountant=acc, **kw)
    with pytest.raises(ValueError, match=match) as info:
        search.fit(X[tr], y[tr], X_val=_Untouchable(), y_val=_Untouchable())
    advice = ("budget_split nearer 0.5", "score_scale=None", "score_offset=None")
    assert any(a in str(info.value) for a in advice)
    assert spy_log == [] and acc.history == () and acc.spent == (0.0, 0.0)
    # Power check: with a valid split the same fit does read the validation set.
    search.set_params(budget_split=0.5, delta=1e-5, method=method)
    with pytest.raises(_Touched):
        search.fit(X[tr], y[tr], X_val=_Untouchable(), y_val=_Untouchable())


def test_no_accountant_means_a_fresh_budget_per_fit(id_data):
    search = spy_search(epsilon=1.0)
    for _ in range(3):  # would exhaust any shared epsilon=2 ledger
        _fit(search, id_data)
    assert search.accountant is None


def test_spend_happens_at_first_validation_read(id_data):
    """Public CV scores (training rows) run uncharged; validation ones charged."""
    acc = BudgetAccountant(epsilon=5.0)
    X, y, tr, va = id_data
    val_ids = set(va.tolist())
    seen = []

    def scorer(est, X, y):
        ids = set(np.asarray(X)[:, 0].astype(int).tolist())
        seen.append((bool(ids & val_ids), acc.spent[0]))
        return (est.predict(X) == y).astype(float)

    scoring = CallbackScorer(scorer, bounds=(0, 1))
    _fit(spy_search(accountant=acc, scoring=scoring), id_data)
    assert any(v for v, _ in seen) and any(not v for v, _ in seen)
    assert all(spent == (1.0 if v else 0.0) for v, spent in seen)


_CALLS = []


class InterruptOnFit(RowSpyClassifier):
    """Raises KeyboardInterrupt on the n-th call of fit (counted globally),
    or, with ``on_restore``, when unpickled (private-selection restores the
    selected candidate's pre-read fit instead of refitting)."""

    at = 3
    on_restore = False

    def fit(self, X, y):
        _CALLS.append(1)
        if len(_CALLS) == type(self).at:
            raise KeyboardInterrupt
        return super().fit(X, y)

    def __setstate__(self, state):
        if type(self).on_restore:
            raise KeyboardInterrupt
        super().__setstate__(state)


@pytest.mark.parametrize(
    "method, at, on_restore, charged",
    [
        (PrivateSelection(public_cv=2), 3, False, False),  # 3rd fit: public CV
        (PrivateSelection(public_cv=2), -1, True, True),  # restoring the fit
        ("gp-ucb", None, False, True),  # None: the last fit, gp-ucb's refit
    ],
    ids=["during-public-search", "during-restore", "during-refit"],
)
def test_keyboard_interrupt_keeps_only_paid_releases(
    id_data, method, at, on_restore, charged
):
    """Interrupted in the public search (nothing read, nothing released): not
    charged, no fitted attribute. Interrupted while scoring the validation
    set (restoring a candidate's pre-read fit): charged, nothing released,
    no fitted attribute. Interrupted in gp-ucb's refit, after the releases:
    charged, and the releases stand without best_estimator_ (paid for)."""
    X, y, tr, va = id_data

    def search(acc):
        return DPBayesSearchCV(
            InterruptOnFit(),
            {"C": [0.01, 0.1, 1.0, 10.0]},
            scoring=make_spy_scorer(),
            n_iter=3,
            random_state=0,
            method=method,
            accountant=acc,
        )

    InterruptOnFit.on_restore = False
    if at is None:  # count the fits of a full run; the last one is the refit
        InterruptOnFit.at = -1
        _CALLS.clear()
        search(BudgetAccountant(5.0, 1e-3)).fit(X[tr], y[tr], X_val=X[va], y_val=y[va])
        at = len(_CALLS)
    InterruptOnFit.at = at
    InterruptOnFit.on_restore = on_restore
    _CALLS.clear()
    acc = BudgetAccountant(epsilon=5.0, delta=1e-3)
    s = search(acc)
    try:
        with pytest.raises(KeyboardInterrupt):
            s.fit(X[tr], y[tr], X_val=X[va], y_val=y[va])
    finally:
        InterruptOnFit.on_restore = False
    if at > 0:
        assert len(_CALLS) == at
    fitted = {a for a in vars(s) if a.endswith("_") and not a.startswith("_")}
    if method == "gp-ucb":  # interrupted in the refit: after the releases
        assert {"best_params_", "best_score_", "privacy_report_"} <= fitted
        assert "best_estimator_" not in fitted
    else:
        assert fitted == set()
    assert (acc.spent[0] > 0) == charged
    assert len(acc.history) == int(charged)


def test_refit_failure_after_release_is_not_refunded(id_data):
    acc = BudgetAccountant(epsilon=5.0)
    X, y, tr, va = id_data

    full_fits = []

    class FailsOnRefit(RowSpyClassifier):
        def fit(self, X, y):
            if len(X) == len(tr):  # the 2 shortlisted candidates, then the refit
                full_fits.append(1)
                if len(full_fits) == 3:
                    raise ValueError("refit failed")
            return super().fit(X, y)

    search = DPBayesSearchCV(
        FailsOnRefit(),
        {"C": [0.01, 0.1]},
        scoring=make_spy_scorer(),
        n_iter=2,
        method=PrivateSelection(public_cv=2),
        accountant=acc,
    )
    with pytest.warns(FitFailedWarning, match=r"\(ValueError: refit failed\)"):
        search.fit(X[tr], y[tr], X_val=X[va], y_val=y[va])
    assert acc.spent[0] == 1.0 and len(acc.history) == 1
    # The releases are paid for and stand; best_estimator_ is not set.
    assert "best_params_" in vars(search) and "best_score_" in vars(search)
    assert "best_estimator_" not in vars(search) and not hasattr(search, "predict")


# ---------------------------------------------------------------------------
# dp_accounting export
# ---------------------------------------------------------------------------
def test_to_dp_event_recomputes_the_guarantee(id_data):
    dp_accounting = pytest.importorskip("dp_accounting")
    from dp_accounting.pld import pld_privacy_accountant

    s = _fit(spy_search(epsilon=1.0, budget_split=0.3), id_data)
    event = s.privacy_report_.to_dp_event()
    assert isinstance(event, dp_accounting.ComposedDpEvent)
    assert len(event.events) == 2
    acc = pld_privacy_accountant.PLDAccountant(
        dp_accounting.NeighboringRelation.ADD_OR_REMOVE_ONE
    )
    acc.compose(event)
    eps = acc.get_epsilon(1e-12)  # the release is pure: delta = 0 (+1e-12)
    ledger = s.privacy_report_.epsilon
    assert eps <= ledger + 1e-3
    assert eps >= ledger - 0.02  # pure-epsilon composition is tight
    # At a larger delta the PLD accountant gives a smaller epsilon.
    assert acc.get_epsilon(1e-3) < ledger


@pytest.mark.parametrize("method", ["private-selection", "gp-ucb"])
def test_to_pld_recomputes_the_guarantee_of_every_mode(id_data, method):
    """to_pld covers (ε, δ) releases, which have no dp_accounting DpEvent."""
    dp_accounting = pytest.importorskip("dp_accounting")

    s = _fit(spy_search(method=method, epsilon=1.0, budget_split=0.3), id_data)
    report = s.privacy_report_
    pld = report.to_pld()
    if method == "gp-ucb":
        assert report.delta > 0
        # No generic (ε, δ) event: to_dp_event refuses rather than under-count.
        events = report.to_dp_event().events
        assert all(isinstance(e, dp_accounting.UnsupportedDpEvent) for e in events)
        # The δ is carried, not dropped: below the total δ no ε suffices.
        assert pld.get_epsilon_for_delta(report.delta / 2) == math.inf
    eps = pld.get_epsilon_for_delta(max(report.delta, 1e-12))
    # Never above basic composition (up to the 1e-4 discretisation) ...
    assert eps <= report.epsilon + 1e-3
    # ... and tight for two worst-case releases at δ = δ1 + δ2.
    assert eps >= report.epsilon - 0.02
    assert pld.get_epsilon_for_delta(max(report.delta, 0) + 1e-3) < report.epsilon


def _fit_mode(method, epsilon, release_score, id_data, cancer_split):
    if method != "lipschitz":
        search = spy_search(method, epsilon=epsilon, release_score=release_score)
        return _fit(search, id_data)
    X_tr, y_tr, X_va, y_va = cancer_split
    search = DPBayesSearchCV(
        make_pipeline(
            StandardScaler(), Normalizer(), LogisticRegression(fit_intercept=False)
        ),
        {"logisticregression__C": (1e-2, 1e3, "log-uniform")},
        method="lipschitz",
        scoring="neg_sigmoid_loss",
        epsilon=epsilon,
        n_candidates=8,
        n_iter=3,
        release_score=release_score,
        random_state=0,
    )
    return search.fit(X_tr, y_tr, X_val=X_va, y_val=y_va)


@pytest.mark.parametrize("epsilon", [0.3, 1.0])
@pytest.mark.parametrize("release_score", [True, False])
@pytest.mark.parametrize("method", ["private-selection", "gp-ucb", "lipschitz"])
def test_to_pld_epsilon_at_the_report_delta_is_at_most_the_report_epsilon(
    id_data, cancer_split, method, release_score, epsilon
):
    """F8: to_pld().get_epsilon_for_delta(report.delta) ≤ report.epsilon + grid.

    For a pure-ε fit with a Laplace score release (δ = 0) this was ∞: the
    PLD composition's default tail truncation and the Laplace PLD's
    connect-the-dots residue both leave mass at an infinite loss.
    """
    pytest.importorskip("dp_accounting")
    search = _fit_mode(method, epsilon, release_score, id_data, cancer_split)
    report = search.privacy_report_
    assert len(report.releases) == (2 if release_score else 1)
    assert (report.delta == 0) == (method != "gp-ucb")
    eps = report.to_pld().get_epsilon_for_delta(report.delta)
    # At most one discretisation step (1e-4) per release above basic composition.
    assert eps <= report.epsilon + 1e-4 * len(report.releases) + 1e-9
    # ... and tight: the worst case of each release is attained.
    assert eps >= report.epsilon - 0.02


# ---------------------------------------------------------------------------
# B5: the charge follows the noise
# ---------------------------------------------------------------------------
def test_halving_epsilon_doubles_the_empirical_noise_scale():
    """Mean |ṽ − v| of the Laplace score release at ε and ε/2.

    |Lap(b)| is Exp(b): mean b, sd b. With n = 20,000 draws per ε the
    ratio of the two sample means has sd ≈ 2·√2/√n = 0.020; the bounds are
    2 ± 5 sd (two-sided miss rate ≈ 6e-7).
    """
    from sklearn_dpbo.model_selection._releases import release_best_score_selection

    n, v, delta_u = 20_000, 0.5, 0.01
    rng = random.Random(5)

    def mean_abs_noise(eps):
        draws = [
            release_best_score_selection(
                v, epsilon=eps, sensitivity=delta_u, bounds=(-1e3, 1e3), rng=rng
            ).value
            for _ in range(n)
        ]
        return float(np.mean(np.abs(np.asarray(draws) - v)))

    ratio = mean_abs_noise(0.5) / mean_abs_noise(1.0)
    sd = 2 * math.sqrt(2 / n)
    assert 2 - 5 * sd <= ratio <= 2 + 5 * sd


@pytest.mark.parametrize("method", ["private-selection", "gp-ucb"])
def test_more_noise_is_never_charged_more_epsilon(id_data, method):
    """A larger ε buys less noise in every release; n_iter never changes ε.

    The charge of a fit is its ``epsilon`` (and ``delta``) whatever n_iter
    is (the whole search is one release); for gp-ucb the noise
    grows with n_iter = T instead (Δ_μ and b depend on T).
    """
    reports = {}
    for eps in (0.5, 1.0, 2.0):
        for n_iter in (2, 4):
            s = _fit(spy_search(method=method, epsilon=eps, n_iter=n_iter), id_data)
            r = s.privacy_report_
            assert r.epsilon == pytest.approx(eps, rel=1e-12)
            reports[eps, n_iter] = {x["quantity"]: x for x in r.releases}
    for quantity in ("best_params_", "best_score_"):
        for n_iter in (2, 4):
            scales = [reports[e, n_iter][quantity]["noise_scale"] for e in (0.5, 1, 2)]
            assert scales[0] > scales[1] > scales[2]
            charged = [reports[e, n_iter][quantity]["epsilon"] for e in (0.5, 1, 2)]
            assert charged[0] < charged[1] < charged[2]
        if method == "gp-ucb":
            assert (
                reports[1.0, 4][quantity]["noise_scale"]
                > reports[1.0, 2][quantity]["noise_scale"]
            )
        else:
            assert (
                reports[1.0, 4][quantity]["noise_scale"]
                == reports[1.0, 2][quantity]["noise_scale"]
            )


# ---------------------------------------------------------------------------
# P7: randomness
# ---------------------------------------------------------------------------
def test_noise_source_is_secrets_when_unset(monkeypatch):
    assert isinstance(check_privacy_rng(None), secrets.SystemRandom)
    assert isinstance(check_privacy_rng(3), random.Random)
    calls = []
    real = _samplers.secure_source

    def spy():
        calls.append(1)
        return real()

    monkeypatch.setattr(_samplers, "secure_source", spy)
    _mechanisms.permute_and_flip([0.1, 0.5], 1.0, 0.1)
    _mechanisms.exponential_mechanism([0.1, 0.5], 1.0, 0.1)
    _mechanisms.laplace_mechanism(0.3, 0.1, 1.0)
    assert len(calls) == 3


def test_no_rng_kept_after_fit(id_data):
    s = _fit(spy_search(method="gp-ucb"), id_data)
    rng_types = (random.Random, np.random.Generator, np.random.BitGenerator)
    stack, seen = [s], set()
    while stack:
        obj = stack.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        assert not isinstance(obj, rng_types)
        if hasattr(obj, "__dict__"):
            stack += list(vars(obj).values())
        elif isinstance(obj, (list, tuple, dict)):
            stack += list(obj.values() if isinstance(obj, dict) else obj)


def test_same_random_state_two_fits_differ(id_data):
    """random_state fixes public randomness only: the noise is fresh each fit.

    (n_jobs=2 == n_jobs=1 with a seeded noise: test_search.py.)
    """
    a = _fit(spy_search(epsilon=30.0), id_data)
    b = _fit(spy_search(epsilon=30.0), id_data)
    assert a.best_score_ != b.best_score_
    c = _fit(spy_search(epsilon=30.0, noise_random_state=4), id_data)
    d = _fit(spy_search(epsilon=30.0, noise_random_state=4), id_data)
    assert (c.best_index_, c.best_score_) == (d.best_index_, d.best_score_)


# ---------------------------------------------------------------------------
# P8: the output lattice
# ---------------------------------------------------------------------------
def test_releases_are_multiples_of_2k_with_identical_low_bits():
    sens, eps, n = 1.0 / 173, 0.5, 20_000
    rng = random.Random(8)
    bits = {}
    for value in (0.0, 1.0):
        out = [laplace_on_grid(value, sens, eps, rng) for _ in range(n)]
        ks = {k for _, _, k in out}
        assert len(ks) == 1  # k depends on public (sens, eps) only
        (k,) = ks
        step = Fraction(2) ** k
        mults = [Fraction(v) / step for v, _, _ in out]
        assert all(m.denominator == 1 for m in mults)
        bits[value] = {int(m) % 256 for m in mults}
    assert bits[0.0] == bits[1.0] == set(range(256))


def _laplace_on_grid_reference(value, sensitivity, epsilon, rng, *, bits=20):
    """``laplace_on_grid`` as written with ``Fraction`` before issue 25 (the
    integer arithmetic of the library must give the same results)."""
    if not math.isfinite(value):
        raise ValueError("value must be finite.")
    k = _samplers.granularity_exponent(sensitivity / epsilon, bits=bits)
    step = Fraction(2) ** k
    eff_sensitivity = Fraction(sensitivity) + step
    scale_steps = eff_sensitivity / (Fraction(epsilon) * step)
    n = round(Fraction(value) / step)
    z = sample_discrete_laplace(scale_steps, rng)
    return float((n + z) * step), float(eff_sensitivity / Fraction(epsilon)), k


def test_laplace_on_grid_integer_arithmetic_equals_the_fraction_reference():
    """Same release, scale, k, error and random draws as the Fraction code,
    on 4,000 inputs: ties to even, tiny and huge values, ints, numpy floats,
    Fractions, every ``bits`` in use, bad inputs."""
    gen = random.Random(5)
    for _ in range(4000):
        c = gen.random()
        value = (
            gen.choice([0.0, -0.0, 2.5, -3.5, math.inf, math.nan])
            if c < 0.1
            else gen.randint(-999, 999)
            if c < 0.2
            else np.float64(gen.uniform(-5, 5))
            if c < 0.3
            else Fraction(gen.randint(-99, 99), gen.randint(1, 99))
            if c < 0.35
            else gen.uniform(-1, 1) * 10 ** gen.uniform(-30, 30)
        )
        sens = gen.choice([1.0, 1 / 3, 2.0**-40, 7, Fraction(1, 7), -1.0, 0.0])
        sens = sens if gen.random() < 0.5 else 10 ** gen.uniform(-12, 12)
        eps = gen.choice([1.0, 0.4, 5, 2.0**-10, -1.0])
        eps = eps if gen.random() < 0.5 else 10 ** gen.uniform(-6, 3)
        bits = gen.choice([20, 0, 5, 52, 60])
        if gen.random() < 0.1 and sens > 0 and eps > 0:  # a tie between grid points
            k = _samplers.granularity_exponent(sens / eps, bits=bits)
            value = float((gen.randint(-50, 50) + Fraction(1, 2)) * Fraction(2) ** k)
        seed = gen.getrandbits(64)
        outs = []
        for fn in (_laplace_on_grid_reference, laplace_on_grid):
            rng = random.Random(seed)
            try:
                out = fn(value, sens, eps, rng, bits=bits)
                out = (out, [type(x) for x in out])
            except (ValueError, ZeroDivisionError, OverflowError) as exc:
                out = (type(exc), str(exc))
            outs.append((out, rng.getrandbits(64)))
        assert outs[0] == outs[1], (value, sens, eps, bits)


@pytest.mark.parametrize(
    "numpy_type", [np.int8, np.int32, np.int64, np.uint16, np.float32, np.float64]
)
def test_laplace_on_grid_numpy_scalars_are_their_python_values(numpy_type):
    """A NumPy scalar input releases exactly what its Python value does (the
    integer arithmetic uses Python ints: a NumPy integer would wrap around
    and, e.g., shrink the noise scale)."""
    for value, sens, eps, bits in [
        (5, 1, 1, 20),
        (3, 2, 1, 0),
        (7, 1, 1, 60),
        (1, 3, 1, 5),
        (100, 1, 1, 52),
    ]:
        for which in range(3):  # one input at a time as a NumPy scalar
            args = [value, sens, eps]
            args[which] = numpy_type(args[which])
            python = [
                float(a) if numpy_type in (np.float32, np.float64) else a
                for a in (value, sens, eps)
            ]
            python[which] = args[which].item()
            a = laplace_on_grid(*args, random.Random(3), bits=bits)
            b = laplace_on_grid(*python, random.Random(3), bits=bits)
            assert a == b and [type(x) for x in a] == [type(x) for x in b]


def test_discrete_laplace_matches_exact_pmf_and_rejects_wrong_scales():
    scale, n = Fraction(5, 2), 60_000
    rng = random.Random(1)
    draws = np.array([sample_discrete_laplace(scale, rng) for _ in range(n)])
    support = np.arange(-12, 13)

    def pmf(t):
        a = math.exp(-1.0 / t)
        p = (1 - a) / (1 + a) * a ** np.abs(support)
        tail = (1 - p.sum()) / 2  # lump the tails into the end bins
        p[0] += tail
        p[-1] += tail
        return p

    counts = np.array(
        [np.sum(draws <= -12)]
        + [np.sum(draws == z) for z in support[1:-1]]
        + [np.sum(draws >= 12)]
    )
    assert chi_square_pvalue(counts, pmf(float(scale))) > ALPHA
    for factor in (0.7, 1.3):
        assert chi_square_pvalue(counts, pmf(float(scale) * factor)) < ALPHA


def test_no_float_log_of_a_uniform_in_the_samplers():
    for fn in (
        _samplers.sample_discrete_laplace,
        _samplers._discrete_laplace,
        _samplers.laplace_on_grid,
        _samplers._bernoulli_exp_ratio,
        _samplers._bernoulli_exp_unit_ratio,
        _samplers._geometric,
        _mechanisms.exponential_mechanism,
        _mechanisms.permute_and_flip,
        _mechanisms.laplace_mechanism,
    ):
        src = inspect.getsource(fn).split('"""')[-1]  # code after the docstring
        src = re.sub(r"#.*", "", src)  # comments may name exp(−γ)
        banned = re.compile(r"\b(log|log1p|exp|random|laplace|exponential)\(")
        assert not banned.search(src), (fn.__name__, banned.search(src))
