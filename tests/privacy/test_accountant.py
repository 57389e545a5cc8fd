"""Unit tests of BudgetAccountant (TESTING.md B1, B2, B4, B7).

The wiring into ``DPBayesSearchCV.fit`` (refusal before data, one charge
per fit, no refund after a failed refit, interrupted fits) is tested in
``test_budget_and_noise.py``.
"""

from __future__ import annotations

import copy
import math
import os
import pickle
import sys
import threading
import warnings
from fractions import Fraction

import pytest
from sklearn.base import clone
from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import ShuffleSplit, cross_val_score

from sklearn_dpbo import BudgetAccountant, BudgetError, DPBayesSearchCV
from sklearn_dpbo.model_selection import PrivateSelection


def test_spend_records_exact_amounts_in_order():
    acc = BudgetAccountant(epsilon=2.0, delta=1e-5)
    acc.spend(0.5, 2e-6, label="a")
    acc.spend(1.25, 0.0, label="b")
    assert acc.spent == (1.75, 2e-6)
    assert acc.remaining == pytest.approx((0.25, 8e-6), rel=1e-12)
    assert [(h.epsilon, h.delta, h.label) for h in acc.history] == [
        (0.5, 2e-6, "a"),
        (1.25, 0.0, "b"),
    ]


def test_refused_spend_changes_nothing():
    acc = BudgetAccountant(epsilon=1.0, delta=1e-6)
    acc.spend(0.75)
    before = (acc.spent, acc.history)
    with pytest.raises(BudgetError, match="only epsilon=0.25"):
        acc.spend(0.5)
    with pytest.raises(BudgetError, match="delta"):
        acc.spend(0.1, 2e-6)
    acc.check(0.25)  # check alone never records
    assert (acc.spent, acc.history) == before
    acc.spend(0.25)  # exactly the rest is allowed
    with pytest.raises(BudgetError):
        acc.check(1e-3)


def test_decimal_spends_fill_the_budget_exactly():
    """Ten fits at ε = 0.1 fit in 1.0 (the float 0.1 is 0.1 + 5.6e-18)."""
    acc = BudgetAccountant(epsilon=1.0)
    for _ in range(10):
        acc.spend(0.1)
    assert Fraction(0.1) * 10 > 1  # the exact float sum does exceed 1.0 ...
    assert acc.remaining == (0.0, 0.0)  # ... by less than the 1e-12 slack
    with pytest.raises(BudgetError):
        acc.spend(1e-3)


@pytest.mark.parametrize("total", [1.0, 0.3, 2.0, 7.0])
def test_thousand_small_spends_then_refusal(total):
    """B4: the total is monotone, 1,000 spends of ε/1000 exhaust it."""
    acc = BudgetAccountant(epsilon=total)
    for _ in range(1000):
        acc.spend(total / 1000)
    assert len(acc.history) == 1000
    with pytest.raises(BudgetError):
        acc.spend(total / 1000)
    # The slack is on the total: overspent by at most 1e-12 relative.
    assert sum(Fraction(h.epsilon) for h in acc.history) <= Fraction(total) * (
        1 + Fraction(1, 10**12)
    )


def test_slack_does_not_accumulate():
    """Once the budget is full, the 1e-12 slack admits at most one more 1e-12."""
    acc = BudgetAccountant(epsilon=1.0)
    acc.spend(1.0)
    with pytest.raises(ValueError):
        acc.spend(5e-13)  # below the smallest recorded spend (1e-12)
    accepted = 0
    for _ in range(5):
        try:
            acc.spend(1e-12)
            accepted += 1
        except BudgetError:
            pass
    assert accepted <= 1
    assert sum(Fraction(h.epsilon) for h in acc.history) <= 1 + Fraction(1, 10**12)


@pytest.mark.parametrize(
    "epsilon", [5e-324, 1e-300, 1e-13, 0.0, -0.1, math.nan, math.inf, "0.1", None]
)
def test_tiny_subnormal_and_invalid_spends_are_refused(epsilon):
    """B4: tiny/subnormal ε would vanish in float sums; refused with advice."""
    acc = BudgetAccountant(epsilon=1.0)
    with pytest.raises((ValueError, TypeError)):
        acc.spend(epsilon)
    assert acc.history == () and acc.spent == (0.0, 0.0)


def test_smallest_spend_scales_with_the_budget():
    acc = BudgetAccountant(epsilon=1e4)
    with pytest.raises(ValueError, match="smallest spend"):
        acc.spend(1e-11)  # below 1e-14 · 1e4 = 1e-10
    acc.spend(2e-10)


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(epsilon=0.0),
        dict(epsilon=-1.0),
        dict(epsilon=math.inf),
        dict(epsilon=math.nan),
        dict(epsilon=1.0, delta=1.0),
        dict(epsilon=1.0, delta=-1e-9),
    ],
)
def test_invalid_totals_are_refused(kwargs):
    with pytest.raises((ValueError, TypeError)):
        BudgetAccountant(**kwargs)


def test_ledger_is_read_only():
    """B7: no public way to reset or rewrite what was spent."""
    acc = BudgetAccountant(epsilon=1.0)
    acc.spend(0.5, label="fit")
    for name in ("spent", "remaining", "history", "epsilon", "delta"):
        with pytest.raises(AttributeError):
            setattr(acc, name, 0)
    history = acc.history
    assert isinstance(history, tuple)
    with pytest.raises(AttributeError):
        history[0].epsilon = 0.0  # entries are immutable NamedTuples
    assert not hasattr(acc, "refund") and not hasattr(acc, "reset")
    assert acc.spent == (0.5, 0.0)


def test_accountant_cannot_be_copied_but_is_shared_by_clone():
    """B7: a copy would let the same budget be spent twice."""
    acc = BudgetAccountant(epsilon=1.0)
    with pytest.raises(TypeError, match="cannot be copied"):
        copy.copy(acc)
    assert copy.deepcopy(acc) is acc
    search = DPBayesSearchCV(LogisticRegression(), {"C": [1.0]}, accountant=acc)
    assert clone(search).accountant is acc
    assert search.get_params()["accountant"] is acc


def test_repr_shows_totals_not_labels():
    acc = BudgetAccountant(epsilon=2.0, delta=1e-5)
    acc.spend(1.0, label="secret-label")
    text = repr(acc)
    assert "epsilon=2" in text and "spent=(1, 0)" in text and "n_spends=1" in text
    assert "secret-label" not in text


def test_pickled_copy_can_report_but_not_spend():
    """F6: an unpickled ledger is a copy; its spends would not reach the original."""
    acc = BudgetAccountant(epsilon=2.0, delta=1e-5)
    acc.spend(0.5, 1e-6, label="before the copy")
    copy_ = pickle.loads(pickle.dumps(acc))
    assert acc.can_spend and not copy_.can_spend
    # It still reports what was spent before the copy was made.
    assert copy_.spent == acc.spent and copy_.history == acc.history
    assert copy_.remaining == acc.remaining and "cannot spend" in repr(copy_)
    for call in (copy_.check, copy_.spend):
        with pytest.raises(BudgetError, match="copy made by pickling.*n_jobs=1"):
            call(0.1)
    # A copy of the copy cannot spend either; the original is untouched.
    with pytest.raises(BudgetError, match="pickling"):
        pickle.loads(pickle.dumps(copy_)).spend(0.1)
    assert copy_.spent == acc.spent == (0.5, 1e-6)
    acc.spend(1.5)  # the original keeps working


@pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork: POSIX only")
def test_ledger_inherited_by_fork_can_report_but_not_spend():
    """Rule 6: a forked child's ledger is a byte copy; its spends would not
    reach the parent's, which would spend the same budget again."""
    acc = BudgetAccountant(epsilon=1.0)
    acc.spend(0.25, label="before the fork")
    read, write = os.pipe()
    with warnings.catch_warnings():  # Python >= 3.12: fork with threads warns
        warnings.simplefilter("ignore", DeprecationWarning)
        pid = os.fork()
    if pid == 0:  # the child: report, then leave without running pytest's exit
        try:
            seen = [acc.can_spend, "cannot spend" in repr(acc), acc.spent]
            for call in (acc.check, acc.spend):
                try:
                    call(0.5)
                    seen.append("spent")
                except BudgetError as exc:
                    seen.append("forked process" in str(exc))
            seen.append(acc.spent)
            os.write(write, pickle.dumps(seen))
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        seen = pickle.loads(pipe.read())
    os.waitpid(pid, 0)
    assert seen == [False, True, (0.25, 0.0), True, True, (0.25, 0.0)]
    # The parent still owns its ledger, untouched by the child.
    assert acc.can_spend and "cannot spend" not in repr(acc)
    acc.spend(0.75)
    assert acc.spent == (1.0, 0.0)


def test_spends_are_atomic_under_racing_threads():
    """F6: check-then-add under one lock; racing threads never overspend.

    Without the lock two threads can both pass the check before either
    records (measured on the unlocked ledger: 146 of 200 trials overspent
    with a 1 µs switch interval). The switch interval is restored after.
    """
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        counts = []
        for _ in range(100):
            acc = BudgetAccountant(epsilon=1.0)
            barrier = threading.Barrier(16)

            def work(acc=acc, barrier=barrier):
                barrier.wait()
                for _ in range(3):
                    try:
                        acc.spend(0.25)
                    except BudgetError:
                        pass

            threads = [threading.Thread(target=work) for _ in range(16)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            counts.append((len(acc.history), acc.spent[0]))
    finally:
        sys.setswitchinterval(old)
    assert all(n == 4 and spent == 1.0 for n, spent in counts), counts


def test_search_shipped_to_worker_processes_fails_loudly():
    """F6: cross_val_score(search, n_jobs=2) must not spend copies of the ledger."""
    X, y = make_classification(n_samples=120, n_features=4, random_state=0)
    acc = BudgetAccountant(epsilon=2.0)
    search = DPBayesSearchCV(
        LogisticRegression(),
        {"C": [0.1, 1.0]},
        method=PrivateSelection(shortlist="grid"),
        epsilon=1.0,
        cv=ShuffleSplit(n_splits=1, test_size=0.5, random_state=0),
        accountant=acc,
        refit=False,
    )
    with pytest.raises(ValueError, match="fits failed") as info:
        cross_val_score(
            search,
            X,
            y,
            cv=2,
            n_jobs=2,
            scoring=lambda est, X_, y_: 0.0,
        )
    assert "copy made by pickling" in str(info.value)
    assert "outer loop" in str(info.value)
    assert acc.spent == (0.0, 0.0) and acc.history == ()
