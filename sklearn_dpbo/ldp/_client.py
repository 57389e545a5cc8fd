"""Client-side randomisers of local-DP Bayesian optimisation.

Spec: ``LDP_BO.md`` §2 (Zhou & Tan, AAAI 2021). A data owner runs one of
these on her own reward; the learner only ever receives the
:class:`LDPReport` it returns and reads only :meth:`public_spec`. Exact
samplers drawing from the OS CSPRNG unless a test passes
``noise_random_state``.
"""

from __future__ import annotations

import math
import warnings
from contextlib import nullcontext
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable

import numpy as np
from scipy.special import expit

from ..privacy._numbers import number_or_nan
from ..privacy._samplers import (
    granularity_exponent,
    laplace_on_grid,
    sample_bernoulli,
    sample_bernoulli_exp,
)
from ..privacy._silence import quiet
from ..privacy._validation import PrivacyLeakWarning, check_epsilon, check_privacy_rng


@dataclass(frozen=True)
class MechanismSpec:
    """Public description of a randomiser: all a learner may know about it.

    Attributes
    ----------
    mechanism : str
        ``"laplace"`` or ``"randomized-response"``.
    bounds : (float, float)
        Public reward range [a, b] the owner clips into.
    epsilon : float
        ε of one report (ε-LDP, δ = 0).
    noise_scale : float
        Laplace: the effective scale (b − a + 2^k)/ε; randomised response:
        the flip probability q = 1/(1 + e^ε).
    report_half_width : float or None
        Randomised response: max |report − (a + b)/2| over its two reports
        (≈ (b − a)/2 · (e^ε + 1)/(e^ε − 1)); ``None`` for Laplace.
    second_moment : float
        Bound v on E[(report − (a + b)/2)²] for every reward in [a, b]
        (spec §2 [R]): ((b − a)/2)² + 2 l², or the square of ``report_half_width``.
    """

    mechanism: str
    bounds: tuple[float, float]
    epsilon: float
    noise_scale: float
    report_half_width: float | None
    second_moment: float

    @property
    def midpoint(self) -> float:
        return 0.5 * (self.bounds[0] + self.bounds[1])

    @property
    def half_width(self) -> float:
        """(b − a)/2, the bound B + R on the centred clipped reward."""
        return 0.5 * (self.bounds[1] - self.bounds[0])

    def truncation_level(
        self, horizon: int, delta: float, tail: float | None = None
    ) -> float:
        """LDP-TGP-UCB's level b: (b − a)/2 + κ l for Laplace reports.

        ``tail=None``: κ = ln(2T/δ), so Pr[any of T centred reports exceeds
        b] ≤ δ/2 (spec A1 [R]: Pr[|L| > s] ≤ e^{−s/l} on the grid too, union
        bound); else κ = ``tail``. Randomised response: ``report_half_width``.
        """
        if self.report_half_width is not None:
            return self.report_half_width
        kappa = math.log(2.0 * horizon / delta) if tail is None else float(tail)
        return self.half_width + self.noise_scale * kappa


@dataclass(frozen=True)
class LDPReport:
    """One privatised reward: the only thing a learner may receive.

    ``value``: reward units, unbiased for the clipped reward; ``spec``: public."""

    value: float
    spec: MechanismSpec


def _check_bounds(bounds) -> tuple[float, float]:
    try:
        low, high = (float(b) for b in bounds)
    except (TypeError, ValueError):
        raise ValueError(
            "bounds must be a pair (low, high) of finite numbers, the public "
            f"range every reward is clipped into; got {bounds!r}."
        ) from None
    if not (math.isfinite(low) and math.isfinite(high) and low < high):
        raise ValueError(
            f"bounds must be finite with low < high; got {bounds!r}. Give the "
            "public range of the reward, e.g. bounds=(0.0, 1.0) for an accuracy."
        )
    return low, high


def _clip(value, low: float, high: float) -> float:
    """The reward in [low, high], read silently, never raising: ±inf clipped,
    a non-number or NaN the worst value ``low`` (like ``DPScorer``)."""
    with nullcontext() if type(value) in _PLAIN else quiet():  # plain: nothing shown
        value = number_or_nan(value, inf_on_overflow=True)
    return low if math.isnan(value) else min(max(value, low), high)


_PLAIN = (float, int, np.float64)


class _Randomizer:
    """Shared parts: checks, the noise source, the objective boundary."""

    mechanism = ""

    def __init__(
        self, bounds=(0.0, 1.0), epsilon: float = 1.0, *, noise_random_state=None
    ):
        self.bounds = _check_bounds(bounds)
        self.epsilon = check_epsilon(epsilon, owner=type(self).__name__)
        if noise_random_state is not None:
            warnings.warn(
                f"{type(self).__name__}(noise_random_state=...) makes the "
                "privacy noise reproducible: whoever knows the seed can remove "
                "it, so the reports are NOT locally differentially private. "
                "Use it in tests only; leave noise_random_state=None in "
                "production.",
                PrivacyLeakWarning,
                stacklevel=2,
            )
        self.noise_random_state = noise_random_state
        self._source = check_privacy_rng(noise_random_state)
        self._spec = self.public_spec()

    def privatize(self, reward: float) -> LDPReport:
        """Clip ``reward`` into ``bounds`` and randomise it (ε-LDP)."""
        return self._privatize(reward, self._source)

    def _privatize(self, reward, source) -> LDPReport:
        low, high = self.bounds
        return LDPReport(self._noisy(_clip(reward, low, high), source), self._spec)

    def report(
        self, objective: Callable[..., float], *args: Any, **kwargs: Any
    ) -> LDPReport:
        """The report of ``objective(*args, **kwargs)``, evaluated on the owner's side.

        The objective runs silenced; an ``Exception`` counts as the lower
        bound ``a`` (ε-LDP for any reward, the failure included);
        ``KeyboardInterrupt`` and other ``BaseException`` propagate.
        """
        try:
            with quiet():
                reward = objective(*args, **kwargs)
        except Exception:  # noqa: BLE001 - the owner's failure is her reward a
            reward = math.nan
        return self.privatize(reward)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(bounds={self.bounds}, epsilon={self.epsilon!r})"

    def __getstate__(self):  # a restored randomiser starts a fresh noise source
        return {k: v for k, v in vars(self).items() if k != "_source"}

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._source = check_privacy_rng(self.noise_random_state)


class LaplaceRandomizer(_Randomizer):
    """ε-LDP Laplace randomiser of a bounded reward (client side).

    ``report = clip(y, a, b) + L``, L a discrete Laplace on a public 2^k grid
    with scale l = (b − a + 2^k)/ε, k = ⌊log2((b − a)/ε)⌋ − 20 (so l exceeds
    (b − a)/ε by a factor ≤ 1 + 2^−20).

    Constants (spec ``LDP_BO.md`` §2): scale (b − a)/ε for a reward in
    [a, b] [S], i.e. 2(B + R)/ε for |y| ≤ B + R [R] ((B + R)/ε would only
    give 2ε-LDP); the owner clips before the noise [S] (NaN counts as ``a``).

    Parameters
    ----------
    bounds : (float, float), default=(0.0, 1.0)
        Public range [a, b] of the reward, fixed before any data is seen.
    epsilon : float, default=1.0
        ε of each report.
    noise_random_state : None or int, default=None
        **Tests only.** ``None``: the OS CSPRNG. An int makes the noise
        predictable and the constructor warns (:class:`PrivacyLeakWarning`).

    Notes
    -----
    Privacy: for any two rewards y, y', the clipped values are within
    b − a, their grid roundings within b − a + 2^k, so the output
    distributions differ by a factor ≤ exp(ε) (Dwork et al. 2006): each
    report is ε-LDP for the owner of that reward; an owner who reports m
    times gets mε (basic composition).
    """

    mechanism = "laplace"

    def public_spec(self) -> MechanismSpec:
        low, high = self.bounds
        width = high - low
        k = granularity_exponent(width / self.epsilon)
        scale = float((Fraction(width) + Fraction(2) ** k) / Fraction(self.epsilon))
        v = (0.5 * width) * (0.5 * width) + 2.0 * scale * scale
        return MechanismSpec(self.mechanism, self.bounds, self.epsilon, scale, None, v)

    def _noisy(self, clipped: float, source) -> float:
        low, high = self.bounds
        return laplace_on_grid(clipped, high - low, self.epsilon, source)[0]


class RandomizedResponse(_Randomizer):
    """ε-LDP randomised response for a bounded reward (client side).

    With u = (clip(y, a, b) − a)/(b − a) ∈ [0, 1]: draw B ~ Bernoulli(u)
    exactly (randomised rounding), flip it with probability
    q = 1/(1 + e^ε) (exact coin: propose keep/flip with weights 1 and
    e^−ε by rejection), and report a + (b − a)(B' − q)/(1 − 2q), an
    unbiased estimate of the clipped reward taking two values.

    Constants: flip probability 1/(1 + e^ε), Warner's randomised response
    [S] (the paper uses Laplace [P]); the rounding to one bit [S]. Reports
    are bounded, |report − (a + b)/2| ≤ (b − a)/2 · (e^ε + 1)/(e^ε − 1),
    hence sub-Gaussian, with variance below the Laplace randomiser's.

    Parameters
    ----------
    bounds : (float, float), default=(0.0, 1.0)
    epsilon : float, default=1.0
    noise_random_state : None or int, default=None
        Tests only (see :class:`LaplaceRandomizer`).

    Notes
    -----
    Privacy: Pr[B' = 1 | y] = q + u(1 − 2q) ∈ [q, 1 − q] and
    (1 − q)/q = e^ε, so the report is ε-LDP for every pair of rewards.
    """

    mechanism = "randomized-response"

    def _flip_probability(self) -> float:
        """q = 1/(1 + e^ε) (no overflow), which debiases; the flip is exact."""
        return float(expit(-self.epsilon))

    def _report(self, bit: bool) -> float:
        """a + (b − a)(B' − q)/(1 − 2q): the report of the flipped bit B'."""
        low, high = self.bounds
        q = self._flip_probability()
        return low + (high - low) * ((1.0 if bit else 0.0) - q) / (1.0 - 2.0 * q)

    def public_spec(self) -> MechanismSpec:
        q = self._flip_probability()
        mid = 0.5 * (self.bounds[0] + self.bounds[1])  # MechanismSpec.midpoint
        b = max(abs(self._report(True) - mid), abs(self._report(False) - mid))
        return MechanismSpec(self.mechanism, self.bounds, self.epsilon, q, b, b * b)

    def _noisy(self, clipped: float, source) -> float:
        low, high = self.bounds
        u = (Fraction(clipped) - Fraction(low)) / (Fraction(high) - Fraction(low))
        bit = sample_bernoulli(min(max(u, Fraction(0)), Fraction(1)), source)
        gamma = Fraction(self.epsilon)
        while True:  # keep w.p. 1/(1 + e^-ε), flip w.p. e^-ε/(1 + e^-ε)
            if source.randrange(2) == 0:
                break  # keep (weight 1)
            if sample_bernoulli_exp(gamma, source):
                bit = not bit  # flip (weight e^-ε)
                break
        return self._report(bit)
