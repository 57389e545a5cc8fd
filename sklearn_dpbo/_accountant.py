"""A privacy-budget ledger shared across fits.

Check-then-spend, basic composition in exact rational arithmetic (no
rounding can let a spend slip through), no refunds, no process-wide
default (every fit without an accountant gets its own budget, so
scikit-learn's common checks and test order cannot exhaust a shared one).
"""

from __future__ import annotations

from fractions import Fraction
from typing import NamedTuple

from ._validation import check_delta, check_epsilon

__all__ = ["BudgetAccountant", "BudgetError", "Spend"]


_SLACK = Fraction(1, 10**12)
"""Relative slack on the total budget (float representation of decimals)."""


class BudgetError(ValueError):
    """A spend would exceed the accountant's budget; nothing was spent."""


class Spend(NamedTuple):
    """One entry of the ledger."""

    epsilon: float
    delta: float
    label: str


class BudgetAccountant:
    """Total (ε, δ) budget for a sequence of private fits.

    Pass it as ``accountant=`` to a private estimator. ``fit`` checks the
    whole cost of the fit against the remaining budget before it reads any
    data, and records it once, before any noise is drawn; the spend is never
    refunded, even if the fit fails afterwards (fail-closed).

    Parameters
    ----------
    epsilon : float
        Total ε (finite, > 0).
    delta : float, default=0.0
        Total δ in [0, 1).

    Notes
    -----
    Composition is basic (sums of ε and of δ), computed exactly with
    :class:`fractions.Fraction` on the floats spent. A spend is refused if
    the exact total would exceed the budget by more than a relative
    ``1e-12``: ten spends of ``0.1`` then fit in a budget of ``1.0``
    (exactly, the float ``0.1`` is 0.1000000000000000055…, so their sum
    exceeds 1 by 5.6e-17), and the ledger can never be overspent by more
    than ``1e-12 · epsilon`` (resp. ``· delta``) in total: the slack is on
    the total, not per spend. A spend whose ε is below
    ``max(1e-12, 1e-14 · epsilon)`` is refused: such spends vanish in
    floating-point sums and have been used to bypass accountants.

    Examples
    --------
    >>> acc = BudgetAccountant(epsilon=2.0, delta=1e-5)
    >>> acc.spend(1.0, 0.0, label="first fit")
    >>> acc.remaining
    (1.0, 1e-05)
    >>> acc.spend(1.5, 0.0)
    Traceback (most recent call last):
    ...
    sklearn_dpbo._accountant.BudgetError: ...
    """

    def __init__(self, epsilon: float, delta: float = 0.0):
        self.__epsilon = Fraction(check_epsilon(epsilon))
        self.__delta = Fraction(check_delta(delta))
        self.__spent_epsilon = Fraction(0)
        self.__spent_delta = Fraction(0)
        self.__history: list[Spend] = []

    # Read-only views ----------------------------------------------------
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

    # Ledger -------------------------------------------------------------
    def _min_epsilon(self) -> float:
        return max(1e-12, 1e-14 * float(self.__epsilon))

    def check(self, epsilon: float, delta: float = 0.0) -> None:
        """Raise if (ε, δ) cannot be spent; change nothing."""
        eps = check_epsilon(epsilon)
        dlt = check_delta(delta)
        if eps < self._min_epsilon():
            raise ValueError(
                f"epsilon={eps!r} is below the smallest spend this accountant "
                f"records ({self._min_epsilon():g}); spend a larger amount."
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
        """Check, then record (ε, δ). Never refunded."""
        self.check(epsilon, delta)
        self.__spent_epsilon += Fraction(float(epsilon))
        self.__spent_delta += Fraction(float(delta))
        self.__history.append(Spend(float(epsilon), float(delta), str(label)))

    def __repr__(self) -> str:
        eps, dlt = self.spent
        return (
            f"BudgetAccountant(epsilon={self.epsilon:g}, delta={self.delta:g}, "
            f"spent=({eps:g}, {dlt:g}), n_spends={len(self.__history)})"
        )

    def __copy__(self):
        raise TypeError(
            "A BudgetAccountant cannot be copied: a copy would let the same "
            "budget be spent twice. Share the same object instead."
        )

    def __deepcopy__(self, memo):
        # clone() deep-copies non-estimator parameters: keep the same ledger.
        return self
