"""Shared checks, warning classes and random-number sources.

:func:`check_epsilon` / :func:`check_delta` check the ranges the estimators
declare, with scikit-learn's message, wherever a privacy parameter is taken,
so ``skip_parameter_validation=True`` cannot switch the check off.
"""

from __future__ import annotations

import math
import numbers
import random
import secrets
import warnings

import numpy as np

from .._compat import Interval, InvalidParameterError, validate_parameter_constraints
from ._samplers import secure_source


class PrivacyLeakWarning(RuntimeWarning):
    """A setting weakens or voids the privacy guarantee (always shown)."""


warnings.simplefilter("always", PrivacyLeakWarning)


class UselessReleaseWarning(UserWarning):
    """A release's noise scale is over 10% of the score range (checked from
    public settings before any validation row is read)."""


# Spends below this are refused: they vanish in floating-point sums.
MIN_EPSILON = 1e-12

EPSILON_CONSTRAINTS = [Interval(numbers.Real, MIN_EPSILON, None, closed="left")]
"""ε: a finite float ≥ 1e-12 (the message says "in the range [1e-12, inf)")."""
DELTA_CONSTRAINTS = [Interval(numbers.Real, 0, 1, closed="left")]
"""δ: a float in [0, 1); a mechanism that needs δ > 0 says so with its reason."""
PROBABILITY_CONSTRAINTS = [Interval(numbers.Real, 0, 1, closed="neither")]
"""A confidence or failure probability in (0, 1) (the δ of a regret bound)."""


def _check_real(value, name: str, owner: str, constraints: list) -> float:
    """``value`` as a float, or scikit-learn's ``InvalidParameterError`` (bools too)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise InvalidParameterError(
            f"The {name!r} parameter of {owner} must be {constraints[0]}. "
            f"Got {value!r} instead."
        )
    if not any(c.is_satisfied_by(value) for c in constraints):  # the same test
        validate_parameter_constraints({name: constraints}, {name: value}, owner)
    return float(value)


def check_epsilon(epsilon, name: str = "epsilon", owner: str = "this call") -> float:
    """Return ``epsilon`` as a float ≥ 1e-12 (``EPSILON_CONSTRAINTS``), or raise
    ``InvalidParameterError`` (bools, NaN, infinities, zero, subnormals...)."""
    if type(epsilon) is float and MIN_EPSILON <= epsilon < math.inf:
        return epsilon  # what _check_real returns, without its generic checks
    return _check_real(epsilon, name, owner, EPSILON_CONSTRAINTS)


def check_delta(delta, name: str = "delta", owner: str = "this call") -> float:
    """Return ``delta`` as a float in [0, 1), or raise ``InvalidParameterError``."""
    if type(delta) is float and 0.0 <= delta < 1.0:
        return delta  # what _check_real returns, without its generic checks
    return _check_real(delta, name, owner, DELTA_CONSTRAINTS)


def require_positive_delta(delta: float, owner: str, why: str) -> None:
    """Refuse δ = 0 for an (ε, δ) mechanism, saying why and what to pass."""
    if not delta > 0:
        raise ValueError(
            f"{owner} needs delta > 0: {why}. Got delta={delta!r}; pass e.g. "
            "delta=1e-5."
        )


def check_probability(value, name: str, owner: str) -> float:
    """A probability in (0, 1) (a regret bound's δ), in the same form."""
    return _check_real(value, name, owner, PROBABILITY_CONSTRAINTS)


def public_rng(random_state) -> np.random.Generator:
    """Generator for *public* randomness (``None``: fresh, OS-seeded)."""
    if random_state is None:
        return np.random.default_rng(secrets.randbits(128))
    if isinstance(random_state, np.random.RandomState):
        entropy = int(random_state.randint(0, 2**31 - 1))
    elif isinstance(random_state, np.random.Generator):
        entropy = int(random_state.integers(0, 2**63 - 1))
    else:
        entropy = int(random_state)
    return np.random.default_rng(np.random.SeedSequence([entropy, 0]))


def check_privacy_rng(noise_random_state=None):
    """The noise source: ``None``, the OS CSPRNG; an int, a seeded
    :class:`random.Random` (tests only)."""
    if noise_random_state is None:
        return secure_source()
    if isinstance(noise_random_state, (bool, np.bool_)) or not isinstance(
        noise_random_state, numbers.Integral
    ):
        raise TypeError(
            "noise_random_state must be None (production) or an int (tests only); "
            f"got {type(noise_random_state).__name__}."
        )
    return random.Random(int(noise_random_state))
