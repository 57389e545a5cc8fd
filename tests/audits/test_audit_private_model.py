"""Statistical audit of the private-model mode: V/V′ differ in one row.

TESTING.md P3/P4 for ``DPBayesSearchCV(method=PrivateModel(...))`` with
random stopping with the mode's default law (logarithmic, η = 0, ε = 1, so
ε₀ = 0.5; the negative-binomial law, the default before 2026-11-24, was
audited the same way at ε₀ = 0.4). n = 241 rows: 240
training rows (x = 0, y = 1) and m = 1 validation row; C ∈ {0.005, 0.01}
keeps the learner's intercept noise well below w* (with 60 rows and C =
0.05 about 13 % of the models flipped class, which hid the power check's
signal). The real ``fit`` runs once
per side to capture the strategy's inputs (the public plan and the
parts); the random-stopping mechanism is then drawn N times per side with
production noise (OS CSPRNG) in worker processes. Outcome: (released
candidate, released score ≤ 0 / in (0, 1) / = 1, sign of the released
intercept).

- Validation row: (x = 0, y = 1) in V, (x = 0, y = 0) in V′. Almost every
  model predicts class 1 at x = 0, so every run's clean score moves by the
  whole range (Δ = 1/m = 1): the worst case of the score.
- Training row: one (x = 0, y = 1) becomes (x = 0, y = 0).
- Cost: the N draws on V are made once and serve both neighbours, in two
  halves of N/2, so that the two ``role`` audits run side by side on two
  pytest-xdist workers. Each audit claims its own half (an exclusive file
  in the session's temporary directory) and draws it, then its own N on
  V′; then it claims the other half and draws it, or, if the other audit
  has claimed it, waits for it (``_claim_and_draw``; a half whose draws
  raised is released and drawn by the waiting audit). Whose draws an audit
  uses is decided by when the halves were claimed, before they were
  drawn, never by their values: each audit compares N independent draws
  on V with N independent draws on its own V′, at α; the two audits'
  false-alarm probabilities add up to 2α whatever their dependence, as
  when they drew V twice. Every run re-clipped the same training and
  validation rows; the draws memoise the learner's ``clip_rows`` on its
  arguments' values (``_audit.clip_rows_once``: a pure function of them, so
  every model, score and release is the same); the validation rows are
  scored as the fit scores them (the library's ``checked_rows``: not
  re-validated by scikit-learn). They run inside ``quiet()``, as the fit
  runs the strategy.
- Power: the same mechanism with K fixed at 5 (best of 5 runs, no random
  stopping) leaks ≈ 5ε₀ = 2.5 through "every run scored ≤ 0" (P ≈ 0.5⁵ on
  V′, (0.5e^−0.5)⁵ on V); it must be caught (ε̂ > ε). Its outcomes are the
  three score classes only, to keep the Bonferroni factor small.
"""

from __future__ import annotations

import os
import time
from functools import partial

import numpy as np
import pytest
from _audit import (
    ALPHA,
    capture_private_model_run,
    clip_rows_once,
    epsilon_lower_bound,
    in_worker_processes,
)

import sklearn_dpbo.dp_learners._base as _base
import sklearn_dpbo.dp_learners._logistic as logistic
import sklearn_dpbo.model_selection._private_model._fit as pm
from sklearn_dpbo import DPBayesSearchCV
from sklearn_dpbo.dp_learners import DPLogisticRegression
from sklearn_dpbo.model_selection import PrivateModel
from sklearn_dpbo.privacy._samplers import secure_source
from sklearn_dpbo.privacy._silence import quiet

N = 20_000
N_POWER = 40_000  # 0.5⁵ vs 0.0026: ~1250 vs ~100 counts (0.0042 at ε₀ = 0.4)
EPSILON = 1.0
N_ROWS = 241
FRACTION = 0.004  # m = 1 validation row


def _search():
    return DPBayesSearchCV(
        DPLogisticRegression(data_norm=1.0),
        {"C": [0.005, 0.01]},
        method=PrivateModel(
            strategy="random-stopping", mean_runs=4, validation_fraction=FRACTION
        ),
        epsilon=EPSILON,
        scoring="accuracy",
        n_iter=2,
        random_state=3,
    )


def _capture(role):
    X = np.zeros((N_ROWS, 1))
    return capture_private_model_run(_search(), X, role, FRACTION)


def _outcome(release):
    c, model, score = release.value
    s = 0 if score <= 0 else (2 if score >= 1 else 1)
    return c * 6 + s * 2 + int(model.intercept_[0] > 0)


class _Model:
    """The power check's stand-in for a fitted learner (only scores matter)."""

    intercept_ = np.zeros(1)


def _oracle(clean: float):
    def fit_and_score(learner, params, eps_fit, X_tr, y_tr, X_va, y_va, scorer, rng):
        return _Model(), clean

    return fit_and_score


def _draw(role, n, fixed_runs=None, coarse=False):
    ctx, cfg = _capture(role)
    saved = pm.st.sample_runs, pm._fit_and_score
    if fixed_runs is not None:
        # Power: K fixed. This leak goes through the runs' noisy scores, not
        # the models, so a run is an oracle returning the clean score that
        # (almost) every model has here: 1 on V, 0 on V' (the real learner
        # made this test take minutes; the model path is audited above and
        # in tests/dp_learners).
        pm.st.sample_runs = lambda *a: fixed_runs
        pm._fit_and_score = _oracle(1.0 if role == "V" else 0.0)
    out = np.empty(n, dtype=int)
    try:
        # quiet(): the section the fit runs the strategy in (fit_private_model)
        with quiet(), clip_rows_once(logistic):
            for i in range(n):
                ctx.rng = secure_source()
                o = _outcome(pm._random_stopping(ctx, cfg)[0])
                out[i] = (o % 6) // 2 if coarse else o
    finally:  # the draws may run in the test's own process (pytest-xdist)
        pm.st.sample_runs, pm._fit_and_score = saved
    return np.bincount(out, minlength=3 if coarse else 12)


def test_plan_of_the_audit():
    ctx, cfg = _capture("V")
    assert cfg["eps0"] == pytest.approx(EPSILON / 2)  # logarithmic: 2ε₀ = ε
    assert ctx.m == 1 and cfg["cap"] >= 6


def _counts(role, n):
    """Outcome counts of n draws on ``role``'s data, in two worker processes
    (or here, under pytest-xdist): n independent draws either way."""
    halves = in_worker_processes(
        (partial(_draw, role), n // 2), (partial(_draw, role), n - n // 2)
    )
    return np.sum(halves, axis=0)


def _v_path(directory, half: int):
    return directory / f"audit_private_model_v{half}.npy"


def _claim_and_draw(directory, half: int) -> np.ndarray | None:
    """Half ``half`` (0 or 1) of the N draws on V if this audit claims it
    (``O_EXCL``, holding its pid; written atomically once drawn), None if the
    other did. A claim whose draws raise is released for the other audit."""
    path = _v_path(directory, half)
    claim = f"{path}.claim"
    try:
        fd = os.open(claim, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        return None
    with os.fdopen(fd, "w") as f:
        f.write(str(os.getpid()))
    try:
        counts = _counts("V", N // 2 if half == 0 else N - N // 2)
    except BaseException:
        os.remove(claim)
        raise
    tmp = directory / f"{path.name}.{os.getpid()}.tmp"
    with open(tmp, "wb") as f:
        np.save(f, counts)
    os.replace(tmp, path)
    return counts


def _owner_gone(claim: str) -> bool:
    """Whether the process that claimed a half has ended without writing it."""
    try:
        with open(claim) as f:
            pid = int(f.read() or 0)
    except FileNotFoundError:
        return False  # released: the next turn claims it
    if pid <= 0:
        return False  # being written
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        pass
    return False


def _claimed(directory, half: int, counts: np.ndarray | None) -> np.ndarray:
    """``counts``, or the other audit's half once written (it writes a half
    right after drawing it, before it waits for anything: no deadlock); a
    half released by a failed draw is claimed and drawn here."""
    path = _v_path(directory, half)
    claim = f"{path}.claim"
    for _ in range(36_000):  # an hour
        if counts is not None:
            return counts
        if path.exists():
            counts = np.load(path)
        elif not os.path.exists(claim):
            counts = _claim_and_draw(directory, half)
        elif _owner_gone(claim) and not path.exists():
            raise RuntimeError(f"the audit drawing half {half} on V has died")
        else:
            time.sleep(0.1)
    raise TimeoutError(f"half {half} of the draws on V never came")


@pytest.fixture(scope="module")
def shared_dir(tmp_path_factory):
    """The session's temporary directory, the same for every xdist worker."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def test_a_half_whose_draw_failed_is_drawn_by_the_other_audit(tmp_path, monkeypatch):
    """No wait for a half that will never come: a draw that raises releases
    its claim (the other audit draws the half), a claim whose process has
    ended raises at once."""
    import subprocess
    import sys

    drawn = []

    def counts(role, n):
        drawn.append(n)
        if len(drawn) == 1:
            raise RuntimeError("the draws failed")
        return np.array([n, 0])

    def no_wait(seconds):
        raise AssertionError("waited for a half that never comes")

    monkeypatch.setattr(sys.modules[__name__], "_counts", counts)
    monkeypatch.setattr(time, "sleep", no_wait)
    with pytest.raises(RuntimeError, match="the draws failed"):
        _claim_and_draw(tmp_path, 0)
    assert _claimed(tmp_path, 0, None).tolist() == [N // 2, 0]
    assert drawn == [N // 2, N // 2]
    ended = subprocess.Popen([sys.executable, "-c", "pass"])
    ended.wait()
    with open(f"{_v_path(tmp_path, 1)}.claim", "w") as f:
        f.write(str(ended.pid))
    with pytest.raises(RuntimeError, match="has died"):
        _claimed(tmp_path, 1, None)


@pytest.mark.slow
@pytest.mark.parametrize(
    "role, half",
    [pytest.param("val", 0, id="val"), pytest.param("train", 1, id="train")],
)
def test_audit_private_model(role, half, shared_dir):
    own = _claim_and_draw(shared_dir, half)
    b = _counts(role, N)
    other = _claim_and_draw(shared_dir, 1 - half)
    a = _claimed(shared_dir, half, own) + _claimed(shared_dir, 1 - half, other)
    assert a.sum() == b.sum() == N
    result = epsilon_lower_bound(a, b, ALPHA)
    print(role, result)
    assert result.epsilon_hat <= EPSILON, str(result)


@pytest.mark.slow
def test_power_best_of_fixed_k_is_caught():
    a, b = in_worker_processes(
        (partial(_draw, "V", N_POWER, 5, True),),
        (partial(_draw, "val", N_POWER, 5, True),),
    )
    result = epsilon_lower_bound(a, b, ALPHA)
    print("fixed K=5", result)
    assert result.epsilon_hat > EPSILON, str(result)


@pytest.mark.parametrize("role", ["V", "train"])
def test_memoised_rows_change_no_value(role):
    """``_audit.clip_rows_once`` is speed only: the same seeded runs give the
    same models and scores with it and without."""
    import random

    ctx, cfg = _capture(role)

    def runs():
        rng = random.Random(7)
        out = []
        for params in cfg["candidates"] * 3:
            model, value = pm._fit_and_score(
                ctx.learner, params, cfg["eps0"], *ctx.parts, ctx.scorer, rng
            )
            out.append((model.coef_.tolist(), model.intercept_.tolist(), value))
        return out

    plain = runs()
    with clip_rows_once(logistic):
        memoised, again = runs(), runs()
    assert memoised == again == plain
    assert len({str(run) for run in plain}) == len(plain)  # fresh noise per run
    assert logistic.clip_rows is _base.clip_rows  # the real ones are back
