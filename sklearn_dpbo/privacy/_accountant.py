"""A privacy-budget ledger shared across fits (see :class:`BudgetAccountant`)."""

from __future__ import annotations

import os
import threading
from fractions import Fraction
from typing import NamedTuple

from ._validation import check_delta, check_epsilon

_COPY_REFUSAL = (
    "This BudgetAccountant is a copy made by pickling (for example a search "
    "shipped to a worker process by joblib's loky or multiprocessing backend, "
    "cross_val_score(..., n_jobs=2), Dask or multiprocessing) or inherited by "
    "a forked process (os.fork, multiprocessing's 'fork' start method), so it "
    "cannot spend: a copy's spends would never reach the original ledger, and "
    "the same budget could be spent once per copy. It can still report what was "
    "spent before the copy was made. To account for a parallel outer loop: "
    "run the outer loop with n_jobs=1 (or a threading backend, which shares "
    "the ledger); or charge the whole outer loop to your accountant yourself "
    "in the parent process (accountant.spend(k * epsilon, k * delta) for k "
    "fits) and give each inner search its own epsilon and delta with "
    "accountant=None."
)


_SLACK = Fraction(1, 10**12)  # relative slack on the total (decimal floats)


class BudgetError(ValueError):
    """A spend would exceed the accountant's budget; nothing was spent."""


class Spend(NamedTuple):
    """One entry of the ledger."""

    epsilon: float
    delta: float
    label: str


class BudgetAccountant:
    """Total (ε, δ) budget for a sequence of private fits.

    Pass it as ``accountant=``: ``fit`` checks and records its whole cost
    before it reads any data, never refunded (fail-closed).

    Parameters
    ----------
    epsilon : float
        Total ε (finite, > 0).
    delta : float, default=0.0
        Total δ in [0, 1).

    Notes
    -----
    Basic composition, computed exactly with :class:`fractions.Fraction` on
    the floats spent; a spend is atomic under threads. A spend is refused if
    the exact total would exceed the budget by more than a relative
    ``1e-12`` (on the total, not per spend: ten spends of ``0.1`` fit in
    ``1.0``), or if its ε is below ``max(1e-12, 1e-14 · epsilon)`` (such
    spends vanish in floating-point sums).

    A ledger cannot be copied into extra budget: ``copy.copy`` is refused,
    ``copy.deepcopy`` (hence ``clone``) returns the same ledger, and an
    unpickled copy (a search shipped to a worker process) can report but
    refuses :meth:`check` and :meth:`spend`; so does the ledger a forked
    child process inherits (only the process that created it spends).

    Examples
    --------
    >>> acc = BudgetAccountant(epsilon=2.0, delta=1e-5)
    >>> acc.spend(1.0, 0.0, label="first fit")
    >>> acc.remaining
    (1.0, 1e-05)
    >>> acc.spend(1.5, 0.0)
    Traceback (most recent call last):
    ...
    sklearn_dpbo.privacy._accountant.BudgetError: ...
    """

    def __init__(self, epsilon: float, delta: float = 0.0):
        self.__epsilon = Fraction(check_epsilon(epsilon, owner="BudgetAccountant"))
        self.__delta = Fraction(check_delta(delta, owner="BudgetAccountant"))
        self.__spent_epsilon = Fraction(0)
        self.__spent_delta = Fraction(0)
        self.__history: list[Spend] = []
        self.__lock = threading.Lock()
        self.__owner = os.getpid()  # None for an unpickled copy

    @property
    def epsilon(self) -> float:
        """Total ε."""
        return float(self.__epsilon)

    @property
    def delta(self) -> float:
        """Total δ."""
        return float(self.__delta)

    @property
    def spent(self) -> tuple[float, float]:
        """(ε, δ) spent so far."""
        return float(self.__spent_epsilon), float(self.__spent_delta)

    @property
    def remaining(self) -> tuple[float, float]:
        """(ε, δ) still available."""
        return (
            max(0.0, float(self.__epsilon - self.__spent_epsilon)),
            max(0.0, float(self.__delta - self.__spent_delta)),
        )

    @property
    def history(self) -> tuple[Spend, ...]:
        """Every spend, in order (a copy)."""
        return tuple(self.__history)

    @property
    def can_spend(self) -> bool:
        """False for a copy made by pickling or fork (it can only report)."""
        return self.__owner == os.getpid()

    def check(self, epsilon: float, delta: float = 0.0) -> None:
        """Raise if (ε, δ) cannot be spent; change nothing."""
        self.__refuse_copy()
        with self.__lock:
            self.__check(epsilon, delta, "BudgetAccountant.check")

    def __refuse_copy(self) -> None:
        # Before the lock: a forked child's lock may be held by a thread
        # that only exists in the parent.
        if not self.can_spend:
            raise BudgetError(_COPY_REFUSAL)

    def __check(self, epsilon, delta, caller: str) -> None:  # lock held
        eps = check_epsilon(epsilon, owner=caller)
        dlt = check_delta(delta, owner=caller)
        smallest = max(1e-12, 1e-14 * float(self.__epsilon))
        if eps < smallest:
            raise ValueError(
                f"epsilon={eps!r} is below the smallest spend this accountant "
                f"records ({smallest:g}); spend a larger amount."
            )
        new_eps = self.__spent_epsilon + Fraction(eps)
        new_delta = self.__spent_delta + Fraction(dlt)
        over_eps = new_eps > self.__epsilon * (1 + _SLACK)
        over_delta = new_delta > self.__delta * (1 + _SLACK)
        if over_eps or over_delta:
            rem_eps, rem_delta = self.remaining
            raise BudgetError(
                f"Privacy budget exceeded: this spend needs epsilon={eps:g}, "
                f"delta={dlt:g}, but only epsilon={rem_eps:g}, delta={rem_delta:g} "
                f"remain of epsilon={self.epsilon:g}, delta={self.delta:g}. Use a "
                "smaller epsilon/delta for this fit or a new accountant."
            )

    def spend(self, epsilon: float, delta: float = 0.0, *, label: str = "") -> None:
        """Check, then record (ε, δ), atomically. Never refunded."""
        self.__refuse_copy()
        with self.__lock:
            self.__check(epsilon, delta, "BudgetAccountant.spend")
            self.__spent_epsilon += Fraction(float(epsilon))
            self.__spent_delta += Fraction(float(delta))
            self.__history.append(Spend(float(epsilon), float(delta), str(label)))

    def __repr__(self) -> str:
        eps, dlt = self.spent
        copy_note = "" if self.can_spend else ", a copy: cannot spend"
        return (
            f"BudgetAccountant(epsilon={self.epsilon:g}, delta={self.delta:g}, "
            f"spent=({eps:g}, {dlt:g}), n_spends={len(self.__history)}"
            f"{copy_note})"
        )

    def __getstate__(self):
        with self.__lock:
            state = dict(self.__dict__)
        del state["_BudgetAccountant__lock"]
        return state

    def __setstate__(self, state):
        # A copy's spends would never reach the original ledger.
        self.__dict__.update(state)
        self.__lock = threading.Lock()
        self.__owner = None

    def __copy__(self):
        raise TypeError(
            "A BudgetAccountant cannot be copied: a copy would let the same "
            "budget be spent twice. Share the same object instead."
        )

    def __deepcopy__(self, memo):
        # clone() deep-copies non-estimator parameters: keep the same ledger.
        return self
