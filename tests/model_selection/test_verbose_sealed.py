"""Issue 19, N4: nothing measured after the first private read leaves ``fit``.

V/V' tests, the same noise seed on both sides, in every search mode and at
every verbose level: stdout and stderr (file-descriptor level), log
records and warnings must be byte-identical when V and V' differ in one
record.

The attack of N4 is a prediction whose duration depends on the
hyper-parameter (in ``"gp-ucb"`` the candidates after the first are
chosen from validation scores, so per-step durations spell out the
private path) and on a failing record (its bisection costs extra
``predict`` calls). Tests must not depend on real timing, so the clock is
a deterministic fake: ``time.perf_counter`` returns a counter that only
``LogisticRegression.decision_function`` advances, by an amount that
depends on ``C`` and that every call pays. Public work (public fits,
public-rows checks) advances it identically for V and V'; private work
(validation scoring) does not. Every figure printed before the read is
therefore reproducible, and any figure measured after it shows the
difference. On the code before this change each test below fails (the
``done in X s`` line, gp-ucb's per-iteration times, lipschitz's BO
iteration times and federated-ldp's per-owner times all move).

Public constants that lines may carry before the read: ε, δ, ``n_iter``,
the numbers of candidates, shortlisted candidates and owners, and the
elapsed time at the read (measured before it). After the read line the
only line is ``done``: no digit at all.
"""

from __future__ import annotations

import logging
import math
import re
import time
import warnings

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import Normalizer, StandardScaler

from sklearn_dpbo import DPBayesSearchCV
from sklearn_dpbo.model_selection._federated import owner_order
from sklearn_dpbo.model_selection._modes import MODES
from sklearn_dpbo.model_selection._progress import (
    DONE_LINE,
    PREFIX,
    READ_TEXT,
    ProgressPrinter,
)

READ_LINE = READ_TEXT.format("the validation set")

N_TRAIN, N_VAL, N_OWNERS = 150, 48, 12  # 4 rows an owner
N_ITER, N_CANDIDATES = 4, 6
EPSILON, DELTA = 1.0, 1e-3
SPACE = {"logisticregression__C": (1e-3, 1e2, "log-uniform")}
LEVELS = (1, 2, 3, 10)


class FakeClock:
    """``time.perf_counter`` replaced: advanced only by the model's predictions."""

    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch):
    """Every prediction costs 0.05 s plus 0.01 s per decade of C above 1e-3."""
    fake = FakeClock()
    monkeypatch.setattr(time, "perf_counter", fake)
    original = LogisticRegression.decision_function

    def decision_function(self, X):
        fake.now += 0.05 + 0.01 * max(0.0, math.log10(self.C) + 3)
        return original(self, X)

    monkeypatch.setattr(LogisticRegression, "decision_function", decision_function)
    return fake


@pytest.fixture(scope="module")
def data():
    X, y = load_breast_cancer(return_X_y=True)
    rng = np.random.default_rng(0)
    idx = rng.permutation(len(y))[: N_TRAIN + N_VAL]
    X, y = X[idx], y[idx]
    groups = np.repeat(np.arange(N_OWNERS), N_VAL // N_OWNERS)
    return X[:N_TRAIN], y[:N_TRAIN], X[N_TRAIN:], y[N_TRAIN:], groups


# The configurations: every mode, and the default's shortlist variants.
CONFIGS = {
    "private-selection": dict(method="private-selection"),
    "private-selection-grid": dict(method=MODES["private-selection"](shortlist="grid")),
    "gp-ucb": dict(method="gp-ucb"),
    "lipschitz": dict(method="lipschitz", scoring="neg_sigmoid_loss"),
    "federated-ldp": dict(method="federated-ldp"),
}


def _estimator(config):
    if config == "lipschitz":
        return make_pipeline(
            StandardScaler(), Normalizer(), LogisticRegression(fit_intercept=False)
        )
    return make_pipeline(StandardScaler(), LogisticRegression(max_iter=500))


def _search(config, verbose):
    return DPBayesSearchCV(
        _estimator(config),
        SPACE,
        epsilon=EPSILON,
        delta=DELTA,
        n_iter=N_ITER,
        n_candidates=N_CANDIDATES,
        verbose=verbose,
        random_state=0,
        noise_random_state=0,  # the same noise on both sides
        **CONFIGS[config],
    )


def _observe(config, verbose, data, X_val, y_val, capfd, caplog):
    """Everything fit prints, logs and warns, as bytes and strings."""
    X_tr, y_tr, _, _, groups = data
    extra = {"val_groups": groups} if config == "federated-ldp" else {}
    capfd.readouterr()
    caplog.clear()
    with caplog.at_level(logging.DEBUG):
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            _search(config, verbose).fit(X_tr, y_tr, X_val=X_val, y_val=y_val, **extra)
    out, err = capfd.readouterr()
    logs = [(r.name, r.levelno, r.getMessage()) for r in caplog.records]
    warned = [(w.category.__name__, str(w.message)) for w in seen]
    return out, err, logs, warned


def _record(config, data) -> int:
    """The record that changes: in federated-ldp, one of an asked owner's."""
    if config != "federated-ldp":
        return 7
    groups = data[4]
    owners, rows = owner_order(groups, _search(config, 0)._check_settings().seed)
    return int(rows[1][3])  # the second owner asked


def _neighbours(data, config):
    """V, and V' with one record failing (NaN features) or one label flipped."""
    _, _, X_va, y_va, _ = data
    i = _record(config, data)
    X_nan = X_va.copy()
    X_nan[i] = np.nan  # predict raises on it: the scorer bisects
    y_flip = y_va.copy()
    y_flip[i] = 1 - y_flip[i]
    return {"V": (X_va, y_va), "failing": (X_nan, y_va), "flipped": (X_va, y_flip)}


def _after_read(out: str) -> list[str]:
    lines = out.splitlines()
    reads = [i for i, ln in enumerate(lines) if READ_LINE in ln]
    assert len(reads) == 1, lines  # the read line, once
    return lines[reads[0] + 1 :]


PUBLIC_CONSTANTS = re.compile(
    r"\d+\.\d+s"  # elapsed time, measured before the read
    r"|epsilon=1\b|delta=(?:0\.001|0)\b"  # the plan's budget
    rf"|{N_CANDIDATES} candidates|{N_ITER} steps|{N_ITER}/{N_ITER}"
    rf"|iteration \d+/{N_ITER}|scoring \d+ shortlisted"
    rf"|asking {N_ITER} of {N_OWNERS} owners|path of {N_CANDIDATES}"
)


@pytest.mark.parametrize("verbose", LEVELS)
@pytest.mark.parametrize("config", sorted(CONFIGS))
def test_printed_output_identical_for_neighbours(
    config, verbose, data, clock, capfd, caplog
):
    sides = {
        name: _observe(config, verbose, data, X_val, y_val, capfd, caplog)
        for name, (X_val, y_val) in _neighbours(data, config).items()
    }
    v = sides.pop("V")
    out = v[0]
    assert f"{PREFIX} " in out  # something was printed
    for name, other in sides.items():
        assert other[0].encode() == out.encode(), name  # stdout, byte for byte
        assert other[1].encode() == v[1].encode(), name  # stderr
        assert other[2] == v[2], name  # log records
        assert other[3] == v[3], name  # warnings
    # After the read: one fixed line, with no digit at all.
    assert _after_read(out) == [f"{PREFIX} {DONE_LINE}"]
    # Before it: no digit but those of the public constants listed above.
    for line in out.splitlines():
        rest = PUBLIC_CONSTANTS.sub("", line)
        assert not re.search(r"\d", rest), line
    assert not any(name.startswith("sklearn_dpbo") for name, _, _ in v[2])


def test_the_fake_clock_sees_the_private_work(data, clock):
    """Power check: the clock does separate V from V' after the read.

    The elapsed fake time of the fits differs between V and the failing
    neighbour (the bisection's extra predictions) and, in gp-ucb, between
    V and V' whenever the path differs; a printed figure measured after
    the read would therefore differ too.
    """
    X_tr, y_tr, _, _, _ = data
    elapsed = {}
    for name, (X_val, y_val) in _neighbours(data, "private-selection").items():
        start = clock.now
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _search("private-selection", 0).fit(X_tr, y_tr, X_val=X_val, y_val=y_val)
        elapsed[name] = clock.now - start
    assert elapsed["failing"] > elapsed["V"] + 0.05


# ---------------------------------------------------------------------------
# The printer itself: sealed by construction
# ---------------------------------------------------------------------------
def test_sealed_printer_prints_nothing_but_done(capsys, monkeypatch):
    ticks = iter([0.0, 1.25])  # construction, then the read

    def clock():
        return next(ticks)  # a third reading would raise StopIteration

    monkeypatch.setattr(time, "perf_counter", clock)
    p = ProgressPrinter(3, (0.5, 0.0))
    p.plan("8 candidates")
    p.seal()
    # After the seal nothing is printed and the clock is never read again.
    p("scoring 3 records failed after 4.56s")
    p.step("iteration 2/4")
    p.seal()
    p.done()
    assert capsys.readouterr().out.splitlines() == [
        f"{PREFIX} 8 candidates",
        f"{PREFIX} {READ_LINE} (1.25s; budget epsilon=0.5, delta=0)",
        f"{PREFIX} {DONE_LINE}",
    ]


@pytest.mark.parametrize("verbose", [0, 1, 2, 3])
def test_printer_levels(verbose, capsys):
    p = ProgressPrinter(verbose, (1.0, 1e-6))
    p.plan("plan")
    p("phase")
    p.step("step")
    p.seal()
    p.done()
    lines = capsys.readouterr().out.splitlines()
    names = [ln.removeprefix(f"{PREFIX} ").split(" (")[0] for ln in lines]
    expected = {
        0: [],
        1: ["plan", "phase", "reading the validation set", DONE_LINE],
        2: ["plan", "phase", "step", "reading the validation set", DONE_LINE],
        3: ["plan", "phase", "step", "reading the validation set", DONE_LINE],
    }[verbose]
    assert names == expected
    timed = [ln for ln in lines if re.search(r"\(\d+\.\d+s; budget", ln)]
    # Times: level-2 steps at 2; at 3 every line before the read but the plan.
    assert len(timed) == {0: 0, 1: 0, 2: 1, 3: 3}[verbose]
    if verbose:
        assert lines[-1] == f"{PREFIX} {DONE_LINE}"  # never timed
