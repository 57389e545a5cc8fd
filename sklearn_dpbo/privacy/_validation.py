"""Shared checks, warning classes and random-number sources.

The privacy parameters are checked here by hand (not only through
scikit-learn's ``_parameter_constraints``) so that the checks cannot be
switched off with ``sklearn.set_config(skip_parameter_validation=True)``.
"""

from __future__ import annotations

import math
import numbers
import secrets
import warnings

import numpy as np

__all__ = [
    "MIN_EPSILON",
    "PrivacyLeakWarning",
    "UselessReleaseWarning",
    "check_epsilon",
    "check_delta",
    "check_privacy_rng",
    "public_rng",
]


class PrivacyLeakWarning(RuntimeWarning):
    """Warning about a setting that weakens or voids the privacy guarantee.

    Always shown (``warnings.simplefilter("always")``), as diffprivlib does.
    Its message never contains a value derived from the validation set.
    """


warnings.simplefilter("always", PrivacyLeakWarning)


class UselessReleaseWarning(UserWarning):
    """A release's noise scale is over 10% of the score range (a public check).

    Raised by ``fit`` before any validation row is read, from the settings
    and the validation set's size only: such a release carries little
    information about the data. The message names what to change.
    """


# Spends below this are refused: they vanish in floating-point sums.
MIN_EPSILON = 1e-12


def _is_real_number(x) -> bool:
    return (
        isinstance(x, numbers.Real)
        and not isinstance(x, (bool, np.bool_))
        and not isinstance(x, (str, bytes))
    )


def check_epsilon(epsilon, name: str = "epsilon") -> float:
    """Return ``epsilon`` as a float or raise ``ValueError``/``TypeError``.

    Accepts finite reals with ``epsilon >= 1e-12``. Rejects bools, NaN,
    infinities, complex numbers, strings, zero, negatives and subnormals.
    """
    if not _is_real_number(epsilon):
        raise TypeError(
            f"{name} must be a real number (float or int, not bool); got an "
            f"object of type {type(epsilon).__name__}. Pass e.g. {name}=1.0."
        )
    value = float(epsilon)
    if not math.isfinite(value) or value < MIN_EPSILON:
        raise ValueError(
            f"{name} must be a finite number >= {MIN_EPSILON:g}; got {value!r}. "
            f"Pass the total privacy budget of one fit, e.g. {name}=1.0."
        )
    return value


def check_delta(delta, name: str = "delta") -> float:
    """Return ``delta`` as a float in [0, 1) or raise."""
    if not _is_real_number(delta):
        raise TypeError(
            f"{name} must be a real number in [0, 1) (not bool); got an object "
            f"of type {type(delta).__name__}. Pass e.g. {name}=1e-5."
        )
    value = float(delta)
    if not (0.0 <= value < 1.0):
        raise ValueError(
            f"{name} must be in [0, 1); got {value!r}. A common choice is a "
            f"value well below 1/n, e.g. {name}=1e-5."
        )
    return value


def _seed_from(random_state, stream: int) -> np.random.SeedSequence:
    if isinstance(random_state, np.random.RandomState):
        entropy = int(random_state.randint(0, 2**31 - 1))
    elif isinstance(random_state, np.random.Generator):
        entropy = int(random_state.integers(0, 2**63 - 1))
    else:
        entropy = int(random_state)
    return np.random.SeedSequence([entropy, stream])


def public_rng(random_state) -> np.random.Generator:
    """Generator for *public* randomness (candidate set, tie-breaks, folds).

    ``None`` gives a fresh OS-seeded generator; an int gives a reproducible one.
    """
    if random_state is None:
        return np.random.default_rng(secrets.randbits(128))
    return np.random.default_rng(_seed_from(random_state, 0))


def check_privacy_rng(noise_random_state=None):
    """The source of the privacy noise: an object with ``randrange``.

    ``None`` (the default and the only setting for production use) is
    :class:`secrets.SystemRandom`, the operating system's CSPRNG: nothing
    about the noise can be predicted from any public value, and there is
    no generator state to keep or leak. An int gives a
    :class:`random.Random` seeded with it, for tests only (reproducible
    noise, which whoever knows the seed can subtract). ``random_state``
    never reaches this function: it seeds public randomness only.
    """
    import random

    from ._samplers import secure_source

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
