"""Helpers of the statistical privacy audit and of the leak audit.

Statistical audit (TESTING.md P3, P4; checked by ``test_audit_helpers.py``,
H5). A mechanism M is run N times on a validation set V and N' times on a
neighbour V'; its outputs are mapped to K public outcomes (the released
index, or the bin of a noisy score between public thresholds). For every
outcome o and both directions,

    ε̂_o = log( CP_lo(P[M(V) = o]) / CP_hi(P[M(V') = o]) ),

with one-sided Clopper–Pearson bounds. The audit reports ε̂ = max_o ε̂_o
over the 2K ratios. Each ratio needs two one-sided bounds, so the 4K
bounds are taken at level α/(4K) each (Bonferroni): with probability at
least 1 − α (family-wise, α = 1e-6) all of them hold at once, and then
ε̂ ≤ ε_true for every outcome and direction. An audit that finds
ε̂ > ε_declared has therefore shown, at confidence 1 − 1e-6, that the
mechanism is not ε_declared-DP on this pair (for δ = 0; for an (ε, δ)
release the same bound shows P[o] > e^ε P'[o] on an event o whose
probability exceeds δ by far, see :func:`epsilon_lower_bound`).

Resolution: even a mechanism whose privacy loss is exactly ε on an
outcome is reported below ε, because the bounds are conservative.
:func:`resolution` computes that gap, ε − ε̂ on the expected counts of an
exactly ε-tight pair; an excess over ε smaller than about this gap cannot
be detected at that N.

Leak audit (TESTING.md P6): :func:`walk` visits everything reachable from
an object; :class:`Secrets` matches floats, numbers printed in text and the
IEEE-754 bytes of private values.
"""

from __future__ import annotations

import atexit
import contextlib
import dataclasses
import math
import multiprocessing
import os
import sys
import warnings
from concurrent.futures import ProcessPoolExecutor
from typing import Callable, Iterable
from unittest import mock

import numpy as np

# The leak scanners live in tests/_leaks.py (shared with test_privacy_rules.py).
from _leaks import SECONDS_RE, Secrets, public_texts, walk  # noqa: F401  (re-exported)
from scipy import stats

__all__ = [
    "capture_private_model_run",
    "checked_once",
    "ALPHA",
    "AuditResult",
    "Secrets",
    "binned",
    "clip_rows_once",
    "solve_once",
    "cp_lower",
    "cp_upper",
    "DeltaAuditResult",
    "delta_audit",
    "draw_outcomes",
    "epsilon_lower_bound",
    "in_worker_processes",
    "public_checks_once",
    "plan_once",
    "assert_plan_randomness_decides_nothing",
    "exact_epsilon",
    "recorded_releases",
    "resolution",
    "same_calls",
    "walk",
]

ALPHA = 1e-6
"""Family-wise error rate of every audit (OpenDP ``samplers/test.rs``)."""


# ---------------------------------------------------------------------------
# Clopper–Pearson
# ---------------------------------------------------------------------------
def cp_lower(k, n, alpha: float) -> np.ndarray:
    """One-sided exact (Clopper–Pearson) lower bound of a binomial proportion.

    P[p ≥ cp_lower(k, n, α)] ≥ 1 − α. It is Beta(α; k, n − k + 1), and 0 for
    k = 0. Vectorised over ``k``.
    """
    k = np.asarray(k, dtype=float)
    safe = np.where(k > 0, k, 1.0)
    out = stats.beta.ppf(alpha, safe, n - safe + 1.0)
    return np.where(k > 0, out, 0.0)


def cp_upper(k, n, alpha: float) -> np.ndarray:
    """One-sided exact (Clopper–Pearson) upper bound of a binomial proportion.

    P[p ≤ cp_upper(k, n, α)] ≥ 1 − α. It is Beta(1 − α; k + 1, n − k), and 1
    for k = n. Vectorised over ``k``.
    """
    k = np.asarray(k, dtype=float)
    safe = np.where(k < n, k, n - 1.0)
    out = stats.beta.isf(alpha, safe + 1.0, n - safe)
    return np.where(k < n, out, 1.0)


@dataclasses.dataclass(frozen=True)
class AuditResult:
    """ε̂ and where it was attained."""

    epsilon_hat: float  # max over outcomes and directions
    outcome: int  # outcome attaining it
    direction: str  # "V/V'" (P[o] large) or "V'/V"
    n: int  # draws on V
    n_prime: int  # draws on V'
    n_outcomes: int

    def __str__(self) -> str:
        return (
            f"eps_hat={self.epsilon_hat:.4f} (outcome {self.outcome}, "
            f"{self.direction}, N={self.n}/{self.n_prime}, K={self.n_outcomes})"
        )


def epsilon_lower_bound(counts, counts_prime, alpha: float = ALPHA) -> AuditResult:
    """ε̂ = max over outcomes o and both directions of log(CP_lo / CP_hi).

    ``counts[o]`` is how often outcome o came out of N = ``counts.sum()``
    runs on V, ``counts_prime`` the same on V'. Bonferroni over the 2K
    one-sided tests (4K one-sided Clopper–Pearson bounds, each at
    α/(4K)), so P[ε̂ > ε_true] ≤ α family-wise. For an (ε, δ)-DP release,
    ε̂ > ε on outcome o also needs CP_lo(p_o) − e^ε CP_hi(q_o) ≤ δ to be
    excluded; every audit below reports the outcome and its counts, which
    are far above δ = 1e-5 whenever ε̂ is large.
    """
    c = np.asarray(counts, dtype=float)
    cp = np.asarray(counts_prime, dtype=float)
    if c.shape != cp.shape or c.ndim != 1:
        raise ValueError("counts and counts_prime must be 1-D of the same length")
    n, n_prime = int(c.sum()), int(cp.sum())
    k = c.size
    level = alpha / (4 * k)
    lo, hi = cp_lower(c, n, level), cp_upper(c, n, level)
    lo_p, hi_p = cp_lower(cp, n_prime, level), cp_upper(cp, n_prime, level)
    with np.errstate(divide="ignore"):
        forward = np.log(lo) - np.log(hi_p)  # P[o] / P'[o]
        backward = np.log(lo_p) - np.log(hi)  # P'[o] / P[o]
    i, j = int(np.argmax(forward)), int(np.argmax(backward))
    if forward[i] >= backward[j]:
        return AuditResult(float(forward[i]), i, "V/V'", n, n_prime, k)
    return AuditResult(float(backward[j]), j, "V'/V", n, n_prime, k)


@dataclasses.dataclass(frozen=True)
class DeltaAuditResult:
    """ε̂ at δ, δ̂ at ε, and the event that attains ε̂ (:func:`delta_audit`)."""

    epsilon_hat: float  # ε̂(δ): no (ε, δ)-DP for any ε < ε̂, at 1 − α
    delta_hat: float  # δ̂(ε): no (ε, δ)-DP for any δ < δ̂, at 1 − α
    event: tuple  # outcomes of the event attaining ε̂ (() if none)
    direction: str  # "V/V'" (P[S] large) or "V'/V"
    epsilon: float
    delta: float
    n: int
    n_prime: int
    n_outcomes: int

    def __str__(self) -> str:
        return (
            f"eps_hat={self.epsilon_hat:.4f} at delta={self.delta:g}, "
            f"delta_hat={self.delta_hat:.4g} at eps={self.epsilon:g} (event "
            f"{list(self.event)}, {self.direction}, N={self.n}/{self.n_prime}, "
            f"K={self.n_outcomes})"
        )


def delta_audit(
    counts, counts_prime, epsilon: float, delta: float, alpha: float = ALPHA
) -> DeltaAuditResult:
    """Lower bounds on the (ε, δ) of a mechanism, from outcome counts on V and V'.

    (ε, δ)-DP requires P[M(V) ∈ S] ≤ e^ε P[M(V') ∈ S] + δ for every event
    S (and with V, V' swapped). The outcomes o = 0..K−1 get the same 4K
    one-sided Clopper–Pearson bounds as :func:`epsilon_lower_bound`, each at
    α/(4K): lo_o ≤ P[o] ≤ hi_o and lo'_o ≤ P'[o] ≤ hi'_o, all at once with
    probability ≥ 1 − α (Bonferroni). On that event, for *every* union S of
    outcomes, even one chosen after seeing the counts,
    Σ_S lo_o ≤ P[S] and Σ_S hi'_o ≥ P'[S]; so, with probability ≥ 1 − α,

        δ̂(ε) = max_S (Σ_S lo_o − e^ε Σ_S hi'_o) = Σ_o max(0, lo_o − e^ε hi'_o)
        ε̂(δ) = max_S log((Σ_S lo_o − δ) / Σ_S hi'_o)     (−∞ if no S has Σ_S lo_o > δ)

    (maximum over both directions) satisfy δ̂(ε) ≤ δ_true(ε) and ε̂(δ) ≤
    ε_true(δ): an audit with δ̂(ε) > δ, equivalently ε̂(δ) > ε, has shown at
    confidence 1 − α that the mechanism is not (ε, δ)-DP on this pair. The
    maximum over S in ε̂ is attained on a prefix of the outcomes sorted by
    lo_o/hi'_o (at the threshold ε the best S is {o : lo_o > e^ε hi'_o}),
    so it is computed over the K prefixes. With δ = 0, ε̂ equals
    :func:`epsilon_lower_bound`'s (a union's ratio never exceeds its best
    outcome's). Summing per-outcome bounds is conservative for large S:
    keep K small.
    """
    c = np.asarray(counts, dtype=float)
    cp = np.asarray(counts_prime, dtype=float)
    if c.shape != cp.shape or c.ndim != 1:
        raise ValueError("counts and counts_prime must be 1-D of the same length")
    if not (0 <= delta < 1 and epsilon >= 0):
        raise ValueError(
            f"need epsilon >= 0 and 0 <= delta < 1; got {epsilon}, {delta}"
        )
    n, n_prime = int(c.sum()), int(cp.sum())
    k = c.size
    level = alpha / (4 * k)
    lo, hi = cp_lower(c, n, level), cp_upper(c, n, level)
    lo_p, hi_p = cp_lower(cp, n_prime, level), cp_upper(cp, n_prime, level)
    best = (-math.inf, (), "V/V'")
    delta_hat = 0.0
    for low, high, direction in ((lo, hi_p, "V/V'"), (lo_p, hi, "V'/V")):
        delta_hat = max(
            delta_hat, float(np.sum(np.maximum(low - math.exp(epsilon) * high, 0.0)))
        )
        with np.errstate(divide="ignore"):
            order = np.argsort(-(np.log(low) - np.log(high)), kind="stable")
        excess = np.cumsum(low[order]) - delta
        mass = np.cumsum(high[order])
        with np.errstate(divide="ignore", invalid="ignore"):
            eps = np.where(excess > 0, np.log(excess) - np.log(mass), -math.inf)
        j = int(np.argmax(eps))
        if eps[j] > best[0]:
            best = (
                float(eps[j]),
                tuple(sorted(int(o) for o in order[: j + 1])),
                direction,
            )
    return DeltaAuditResult(
        best[0],
        delta_hat,
        best[1],
        best[2],
        float(epsilon),
        float(delta),
        n,
        n_prime,
        k,
    )


def resolution(
    n: int, p: float, epsilon: float, n_outcomes: int, alpha: float = ALPHA
) -> float:
    """ε − ε̂ on the expected counts of an exactly ε-tight outcome.

    The outcome has probability ``p`` on V and p·e^{−ε} on V' (privacy loss
    exactly ε), each side sampled ``n`` times, in an audit over
    ``n_outcomes`` outcomes. A mechanism whose loss exceeds ε by less than
    about this gap passes the audit at that N.
    """
    q = p * math.exp(-epsilon)
    level = alpha / (4 * n_outcomes)
    lo = float(cp_lower(round(p * n), n, level))
    hi = float(cp_upper(round(q * n), n, level))
    return epsilon - math.log(lo / hi)


def exact_epsilon(p, q) -> float:
    """max_o |log(p_o / q_o)| of two exact output distributions."""
    p, q = np.asarray(p, dtype=float), np.asarray(q, dtype=float)
    return float(np.max(np.abs(np.log(p) - np.log(q))))


# ---------------------------------------------------------------------------
# Sampling
# ---------------------------------------------------------------------------
def draw_outcomes(draw: Callable[[], float], n: int, dtype=float) -> np.ndarray:
    """``n`` calls of ``draw()`` as an array."""
    return np.fromiter((draw() for _ in range(n)), dtype=dtype, count=n)


# ---------------------------------------------------------------------------
# Both sides of an audit at once
# ---------------------------------------------------------------------------
AUDIT_WORKERS = int(
    os.environ.get(
        "DPBO_AUDIT_WORKERS", "1" if os.environ.get("PYTEST_XDIST_WORKER") else "2"
    )
)
"""Worker processes for the audits' draws (1: run everything in-process).

Under pytest-xdist (the default run, ``-n auto``) every core already runs a
test, so the draws stay in the test's process."""

_POOL: ProcessPoolExecutor | None = None


def _init_worker(path: list[str]) -> None:
    # Spawned workers import the test modules (which hold the picklable
    # draw functions) from the same paths as the pytest process.
    sys.path[:] = path


def _pool() -> ProcessPoolExecutor:
    global _POOL
    if _POOL is None:
        # "spawn", not "fork": the pytest process may hold threads (joblib,
        # dask) whose locks a forked child would inherit.
        _POOL = ProcessPoolExecutor(
            max_workers=AUDIT_WORKERS,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_init_worker,
            initargs=(list(sys.path),),
        )
        atexit.register(_POOL.shutdown)
    return _POOL


def in_worker_processes(*calls: tuple) -> list:
    """``[f(*args) for (f, *args) in calls]``, run concurrently in worker processes.

    Each audit draws its N samples on V and its N samples on V' as two
    calls, so the two sides run on two cores at once. ``f`` and ``args``
    must be picklable (module-level functions, ``functools.partial`` of
    them). The draws are independent across processes: every production
    draw reads the OS CSPRNG, which has no state to share. With
    ``DPBO_AUDIT_WORKERS=1`` the calls run in this process, in order.
    """
    if AUDIT_WORKERS <= 1:
        return [f(*args) for f, *args in calls]
    futures = [_pool().submit(f, *args) for f, *args in calls]
    return [fut.result() for fut in futures]


# ---------------------------------------------------------------------------
# End-to-end audits in two layers
# ---------------------------------------------------------------------------
# An end-to-end audit runs complete ``fit`` calls, whose cost (~1 ms each) is
# nearly all deterministic work: the same public plan, the same fits, the same
# validation scores on every call; only the release functions draw noise.
# Layer 1 runs N_fit complete fits and records, in every fit, each call of the
# release functions (arguments, noise source, released value), and checks
# that (a) every fit calls each release function exactly once, with the same
# arguments in every fit (the fit's output is then F(args, fresh noise) for
# one F and one args), (b) the arguments are the expected ones and the noise
# source is the OS CSPRNG, and (c) the fit's released attributes are the
# values those calls returned. Layer 2 draws F(args) N times from the same
# release functions (the module attributes the fit calls) with the recorded
# arguments and the production noise source, and runs the audit at that N.
# Given (a)-(c) on every fit of layer 1, the fit's output distribution *is*
# the distribution layer 2 samples, so the audit has the power of N complete
# fits against every error that changes the arguments (a wrong sensitivity,
# ε, utility, clipping) or the release functions; what layer 2 cannot see, a
# fit whose output departs from F(args) in fewer than ~1/N_fit of the fits or
# noise shared between fits, is what layer 1's own checks and audit cover.


@contextlib.contextmanager
def recorded_releases(module, *names: str):
    """Record every call of ``module.<name>`` made while the block runs.

    Yields ``{name: [(args, kwargs, noise source type, value), ...]}``; the
    release functions take their noise source as ``rng=`` and return a
    ``Release``. Whatever ``module.<name>`` is on entry (the production
    function, or a broken one a power check put there) is what runs.
    """
    calls: dict = {name: [] for name in names}

    def spy(name, func):
        def recorded(*args, rng=None, **kwargs):
            release = func(*args, rng=rng, **kwargs)
            args = tuple(_plain(a) for a in args)
            kwargs = {k: _plain(v) for k, v in kwargs.items()}
            calls[name].append((args, kwargs, type(rng).__name__, release.value))
            return release

        return recorded

    with contextlib.ExitStack() as stack:
        for name in names:
            stack.enter_context(
                mock.patch.object(module, name, spy(name, getattr(module, name)))
            )
        yield calls


def _state_key(estimator) -> tuple:
    """The estimator's attributes as an exact, hashable key (arrays by bytes:
    printing them was most of the check's cost)."""
    return tuple(
        (k, ("ndarray", v.shape, v.dtype.str, v.tobytes()))
        if isinstance(v, np.ndarray) and v.dtype != object
        else (k, repr(v))
        for k, v in sorted(vars(estimator).items())
    )


@contextlib.contextmanager
def public_checks_once():
    """``DPScorer.check_public_rows`` runs once per distinct input.

    The check scores a fitted candidate on public training rows and returns
    nothing or raises; it is a pure function of the scorer, the fitted
    candidate (the oracle's fit keeps only ``k`` and the public shapes), the
    training rows and the rows it samples. With at most ``n_rows`` training
    rows it scores all of them, whatever the public seed; so every fit after
    the first calls it with an input it has already passed. Inputs not seen
    before (or a sample that depends on the seed) run the real check.
    """
    from sklearn_dpbo.privacy._scorers import PUBLIC_ROWS, DPScorer

    real = DPScorer.check_public_rows
    passed = set()

    def check(self, estimator, X, y, *, n_rows=None, random_state=0):
        n_rows = PUBLIC_ROWS if n_rows is None else n_rows
        A, b = np.asarray(X), np.asarray(y)
        key = (
            type(self),
            self.name,
            self.bounds,
            type(estimator),
            _state_key(estimator),  # params and fitted state
            (A.shape, A.dtype.str, A.tobytes(), b.dtype.str, b.tobytes()),
            n_rows,
            "all rows" if len(A) <= n_rows else random_state,
        )
        if key not in passed:
            real(self, estimator, X, y, n_rows=n_rows, random_state=random_state)
            passed.add(key)

    with mock.patch.object(DPScorer, "check_public_rows", check):
        yield


@contextlib.contextmanager
def plan_once(search):
    """``search.fit``'s public plan (``check_settings_and_metrics``) built once.

    The plan is a function of the constructor arguments and of public
    randomness only (``random_state=None``: a fresh public seed and tie-break
    order per fit); it runs scikit-learn's parameter validation of the
    search and of its ``method`` and builds the candidate set, about 40 % of
    an oracle's fit. The first fit in the block builds it; later fits of the
    same, unchanged ``search`` reuse it (other searches build their own). An
    audit using this shows that its outputs do not depend on the plan's
    public randomness (``test_audit_search.test_plan_randomness_decides_
    nothing``): then every fit's output has the law it has with a fresh plan.
    """
    import sklearn_dpbo.model_selection._search as search_module

    real = search_module.check_settings_and_metrics
    built: list = []

    def check_settings_and_metrics(s):
        if s is not search:
            return real(s)
        if not built:
            built.append(real(s))
        return built[0]

    with mock.patch.object(
        search_module, "check_settings_and_metrics", check_settings_and_metrics
    ):
        yield


def assert_plan_randomness_decides_nothing(make_search, fit, module, *names):
    """Fits that differ only in ``random_state`` (the plan's public seed and
    tie-break order, fresh in every fit with ``None``) call the release
    functions ``module.<names>`` with the same arguments and, on the same
    seeded noise, release the same values and candidates: what
    :func:`plan_once` needs. ``fit(search)`` fits one search on the audit's
    data."""
    from sklearn_dpbo import PrivacyLeakWarning

    for noise in (0, 1, 2):
        seen = set()
        for random_state in (None, 0, 1, 12345):
            search = make_search().set_params(
                random_state=random_state, noise_random_state=noise
            )
            with (
                warnings.catch_warnings(record=True) as caught,
                recorded_releases(module, *names) as calls,
            ):
                warnings.simplefilter("always")
                fit(search)
            assert [w.category for w in caught] == [PrivacyLeakWarning]
            assert [len(calls[name]) for name in names] == [1] * len(names)
            outputs = (
                [calls[name][0] for name in names],  # arguments and values
                search.best_index_,
                getattr(search, "best_score_", None),
                search.candidate_params_,
                search.shortlist_.tolist(),
            )
            seen.add(repr(outputs))
        assert len(seen) == 1, seen


@contextlib.contextmanager
def clip_rows_once(*modules):
    """``module.clip_rows`` of each DP-learner module, memoised on its arguments.

    An audit that fits a learner N times on the same rows re-clipped the
    same rows on every fit; ``clip_rows`` is a pure function of the rows'
    values, ``data_norm`` and ``intercept``, so the memo keys on exactly
    those (the float array's bytes and shape) and returns the array the
    real function returned, read-only (a caller writing into it would raise
    instead of changing a later fit). Speed only: every fitted model, score
    and release is the one the real function gives
    (``test_audit_private_model.test_memoised_clipping_changes_no_value``).
    """
    from sklearn_dpbo.dp_learners._base import clip_rows as real

    memo: dict = {}

    def clip_rows(X, data_norm, *, intercept):
        A = np.asarray(X, dtype=float)
        key = (A.shape, A.tobytes(), float(data_norm), bool(intercept))
        out = memo.get(key)
        if out is None:
            out = real(A, data_norm, intercept=intercept)
            out.setflags(write=False)
            memo[key] = out
        return out

    with contextlib.ExitStack() as stack:
        for module in modules:
            stack.enter_context(mock.patch.object(module, "clip_rows", clip_rows))
        yield


def _array_key(a) -> tuple | None:
    if a is None:
        return None
    a = np.asarray(a)
    return (a.shape, a.dtype.str, a.tobytes())


@contextlib.contextmanager
def solve_once(module):
    """``module.certified_newton`` (a DP learner's solver), memoised on its arguments.

    With output perturbation the minimiser w* is a deterministic function of
    the clipped rows, the labels and public constants; an audit that fits a
    learner N times on the same rows solved the same problem N times (half
    of a draw). The memo keys on every argument's value (arrays by bytes,
    shape and dtype) and returns the real solver's array, read-only; the
    noise is drawn after it, fresh on every fit. With objective
    perturbation the linear term is random, so every call runs the real
    solver. Speed only (``test_audit_dp_learners.test_memos_change_no_fit``).
    """
    real = module.certified_newton
    memo: dict = {}

    def certified_newton(X, s, lam, lin, max_iter, gradient_bound, what, weights=None):
        key = (
            _array_key(X),
            _array_key(s),
            float(lam),
            _array_key(lin),
            int(max_iter),
            float(gradient_bound),
            what,
            _array_key(weights),
        )
        out = memo.get(key)
        if out is None:
            out = real(X, s, lam, lin, max_iter, gradient_bound, what, weights)
            out.setflags(write=False)
            memo[key] = out
        return out

    with mock.patch.object(module, "certified_newton", certified_newton):
        yield


@contextlib.contextmanager
def checked_once():
    """The selections' public work on their arguments, memoised: speed only.

    A selection audit calls the same release N times with the same
    utilities, ε and Δ; each call re-checked them
    (``_mechanisms._check_selection_inputs``) and, where the module builds
    them in a function of their own (``_exact_gammas``), rebuilt the exact
    ratios γ_i: about half of a draw. Both are pure functions of those
    public arguments: the memo keys on their values (the array's bytes) and
    returns what the real function returned (a read-only array). The
    randomness (the order, the coins) is drawn fresh in every call
    (``test_audit_mechanisms.test_memos_change_no_selection``).
    """
    import sklearn_dpbo.privacy._mechanisms as mech

    real_check = mech._check_selection_inputs
    real_gammas = mech._exact_gammas
    checked: dict = {}
    gammas: dict = {}

    def check(utilities, epsilon, sensitivity, owner):
        u = np.asarray(utilities)
        key = (u.shape, u.dtype.str, u.tobytes(), epsilon, sensitivity, owner)
        out = checked.get(key)
        if out is None:
            u_checked, eps, delta_u = real_check(utilities, epsilon, sensitivity, owner)
            u_checked = u_checked.copy()
            u_checked.setflags(write=False)
            out = checked[key] = (u_checked, eps, delta_u)
        return out

    def exact_gammas(u, epsilon, sensitivity):
        key = (u.tobytes(), epsilon, sensitivity)
        out = gammas.get(key)
        if out is None:
            out = gammas[key] = real_gammas(u, epsilon, sensitivity)
        return out

    with contextlib.ExitStack() as stack:
        stack.enter_context(mock.patch.object(mech, "_check_selection_inputs", check))
        stack.enter_context(mock.patch.object(mech, "_exact_gammas", exact_gammas))
        yield


def _plain(value):
    """An argument in a comparable form (arrays as tuples of floats)."""
    return tuple(map(float, value)) if isinstance(value, np.ndarray) else value


def same_calls(calls: list, n_fits: int, *, positional: bool = True) -> tuple:
    """(args, kwargs, noise source type) of ``n_fits`` fits' calls of one
    release function, after checking that there is exactly one call per fit
    and that every call had the same arguments (``positional=False``: the
    same keyword arguments and noise source; the positional ones are then
    checked by the caller). The released values may differ."""
    assert len(calls) == n_fits, (len(calls), n_fits)
    key = (lambda c: c[:3]) if positional else (lambda c: c[1:3])
    first = key(calls[0])
    differ = sum(1 for c in calls if key(c) != first)
    assert differ == 0, f"{differ} of {n_fits} fits called it with other arguments"
    return calls[0][:3]


def treat_as_rowwise(*classes: type) -> None:
    """Score the audits' oracle estimators in batches, as a listed model.

    Off the row-wise list, every validation record is scored alone from a
    fresh copy of the model (issue 19): the values are the same for an
    oracle whose ``predict`` reads one column of each row, but 10⁴–10⁵ fits
    per side would then cost minutes. The audits measure the mechanisms on
    those values; ``test_audit_helpers`` checks that both paths give the
    same values for every oracle registered here. Called at import of the
    test module, so that spawned audit workers register them too.
    """
    from sklearn_dpbo.privacy import _rowwise

    _rowwise._CACHE["classes"] = _rowwise.rowwise_classes() | frozenset(classes)


def assert_batches_equal_records_alone(scorer, estimator, records) -> None:
    """The batched values of a model registered by :func:`treat_as_rowwise`
    equal its values with every record scored alone, on a fresh copy."""
    from sklearn_dpbo.privacy._silence import quiet

    alone = np.full(len(records), -np.inf)
    with quiet():
        scorer._fill_alone(estimator, records, alone)
    np.testing.assert_array_equal(
        scorer.private_values(estimator, records), scorer._clip(alone)
    )


def binned(values, edges: Iterable[float]) -> np.ndarray:
    """Counts of ``values`` in the public bins (−∞, e₁], (e₁, e₂], …, (e_last, ∞)."""
    edges = np.asarray(list(edges), dtype=float)
    idx = np.searchsorted(edges, np.asarray(values, dtype=float), side="left")
    return np.bincount(idx, minlength=edges.size + 1)


def capture_private_model_run(search, X, role: str, fraction: float):
    """The inputs (ctx, cfg) a private-model ``search`` gives its random-stopping
    strategy when fitted on ``role``'s data: X with every label 1, and for
    ``role`` "val" / "train" the first validation / training row's label 0
    (the public split of ``fraction`` from the search's own seed)."""
    import sklearn_dpbo.model_selection._private_model._fit as pm

    y = np.ones(len(X), dtype=int)
    train, val = pm.split_rows(len(X), fraction, search._check_settings().seed)
    assert len(val) == 1
    if role == "val":
        y[val[0]] = 0
    elif role == "train":
        y[train[0]] = 0
    seen = {}
    real = pm._STRATEGIES["random-stopping"]

    def spy(ctx, cfg):
        seen["ctx"], seen["cfg"] = ctx, cfg
        return real(ctx, cfg)

    pm._STRATEGIES["random-stopping"] = spy
    try:
        search.fit(X, y)
    finally:
        pm._STRATEGIES["random-stopping"] = real
    return seen["ctx"], seen["cfg"]
