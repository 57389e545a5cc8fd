"""Exact samplers for noise that survives floating-point attacks.

Float Laplace samplers leak the unnoised value through their reachable
low-order bits (Mironov 2012). Here every release is an exact multiple of a
public 2^k, the noise an exact discrete Laplace on ℤ drawn with integer
arithmetic only (Canonne, Kamath & Steinke, NeurIPS 2020 (CKS20), Algorithms
1 and 2; OpenDP's ``sample_discrete_laplace_Z2k``), from the OS CSPRNG
(:func:`secure_source`) unless a test passes its own ``random.Random``.
"""

from __future__ import annotations

import functools
import math
import os
import random
import threading
from fractions import Fraction
from typing import Protocol

import numpy as np


class RandomSource(Protocol):
    def randrange(self, n: int) -> int: ...  # pragma: no cover


_BLOCK = 1 << 16  # bytes read from os.urandom at once
_urandom = os.urandom


class _Block(threading.local):
    """This thread's block of OS random bytes and the next unread byte, as the
    list ``block = [data, pos]`` (one thread-local read per draw)."""

    def __init__(self):
        self.block = [b"", 0]


_THREAD = _Block()


def _new_block() -> None:
    """Drop this thread's unread bytes."""
    _THREAD.block = [b"", 0]


if hasattr(os, "register_at_fork"):  # a forked child never reuses the parent's bytes
    os.register_at_fork(after_in_child=_new_block)


def _take(n: int) -> bytes:
    """The next n unread bytes of this thread's block (a new block when it runs out)."""
    block = _THREAD.block
    data, pos = block
    end = pos + n
    if end > len(data):
        if n > _BLOCK:
            return _urandom(n)
        data, pos, end = _urandom(_BLOCK), 0, n
        block[0] = data
    block[1] = end
    return data[pos:end]


class BufferedSystemRandom(random.SystemRandom):
    """:class:`secrets.SystemRandom` reading ``os.urandom`` in 64 KiB blocks.

    Each OS byte is served once (one block per thread; a forked child drops
    the parent's). ``randrange(n)`` is exactly uniform by rejection: r = the
    top k = (n − 1).bit_length() bits of ⌈k/8⌉ fresh bytes, uniform on
    [0, 2^k), kept when r < n (acceptance > ½).
    """

    def random(self) -> float:
        return (int.from_bytes(_take(7), "big") >> 3) * 2.0**-53

    def getrandbits(self, k: int) -> int:
        if k < 0:
            raise ValueError("number of bits must be non-negative")
        numbytes = (k + 7) // 8
        return int.from_bytes(_take(numbytes), "big") >> (numbytes * 8 - k)

    def randbytes(self, n: int) -> bytes:
        return _take(n) if n >= 0 else _urandom(n)  # os.urandom raises

    def randrange(self, start, stop=None, step=1):
        if stop is not None or step != 1 or type(start) is not int or start <= 0:
            return super().randrange(start, stop, step)
        k = (start - 1).bit_length()
        if not k:
            return 0  # start = 1: no byte to read
        numbytes = (k + 7) >> 3
        shift = (numbytes << 3) - k
        block = _THREAD.block
        while True:  # _take(numbytes), inlined while the block lasts
            data, pos = block
            end = pos + numbytes
            if end > len(data):
                r = int.from_bytes(_take(numbytes), "big")
            elif numbytes == 1:
                block[1], r = end, data[pos]
            else:
                block[1], r = end, int.from_bytes(data[pos:end], "big")
            r >>= shift
            if r < start:
                return r


_SECURE = BufferedSystemRandom()  # stateless: its bytes live in the thread's block


def secure_source() -> RandomSource:
    """The OS CSPRNG as an object with ``randrange`` (:class:`BufferedSystemRandom`)."""
    return _SECURE


class _NumpySource:
    """``randrange`` on top of a NumPy ``Generator`` (tests only: not a CSPRNG)."""

    def __init__(self, generator):
        self._gen = generator

    def randrange(self, n: int) -> int:
        n = int(n)
        if n <= 0:
            raise ValueError("n must be > 0.")
        if n <= 2**62:
            return int(self._gen.integers(0, n))
        bits = n.bit_length()
        n_bytes = (bits + 7) // 8
        while True:  # rejection on the exact bit length: uniform on [0, n)
            r = int.from_bytes(self._gen.bytes(n_bytes), "little") >> (
                8 * n_bytes - bits
            )
            if r < n:
                return r


def as_random_source(rng=None) -> RandomSource:
    """The noise source: ``None`` gives :func:`secure_source`; a
    ``random.Random`` or NumPy ``Generator`` (tests only) is wrapped."""
    if rng is None:
        return secure_source()
    if hasattr(rng, "randrange"):
        return rng
    if isinstance(rng, np.random.Generator):
        return _NumpySource(rng)
    raise TypeError(
        "the noise source must be None (the OS CSPRNG), a random.Random or a "
        f"numpy Generator; got {type(rng).__name__}."
    )


def sample_bernoulli(p: Fraction, rng: RandomSource) -> bool:
    """Exact Bernoulli(p) for a rational p in [0, 1]."""
    if not 0 <= p <= 1:
        raise ValueError("p must be in [0, 1].")
    return rng.randrange(p.denominator) < p.numerator


def _bernoulli_exp_unit_ratio(a: int, b: int, rng: RandomSource) -> bool:
    """Exact Bernoulli(exp(−a/b)) for integers 0 ≤ a ≤ b (CKS20 Alg. 1, γ ≤ 1).

    The k-th coin Bernoulli(a/(b·k)) is ``randrange(b·k) < a``.
    """
    k, randrange = 1, rng.randrange
    while randrange(b * k) < a:
        k += 1
    return k % 2 == 1


def _bernoulli_exp_ratio(a: int, b: int, rng: RandomSource) -> bool:
    """Exact Bernoulli(exp(−a/b)) for integers a ≥ 0, b > 0 (CKS20 Alg. 1)."""
    while a > b:
        if not _bernoulli_exp_unit_ratio(1, 1, rng):
            return False
        a -= b
    return _bernoulli_exp_unit_ratio(a, b, rng)


def sample_bernoulli_exp(gamma: Fraction, rng: RandomSource) -> bool:
    """Exact Bernoulli(exp(−γ)) for a rational γ ≥ 0 (CKS20, Algorithm 1)."""
    gamma = Fraction(gamma)
    if gamma < 0:
        raise ValueError("gamma must be >= 0.")
    return _bernoulli_exp_ratio(gamma.numerator, gamma.denominator, rng)


def sample_discrete_laplace(scale: Fraction, rng: RandomSource) -> int:
    """Exact sample of Lap_ℤ(scale): Pr[z] ∝ exp(−|z| / scale), z ∈ ℤ.

    CKS20 Algorithm 2 with scale = t/s:

    1. U ~ Uniform{0, …, t−1}; accept with probability exp(−U/t), else restart;
    2. V ~ Geometric(1 − e^{−1}); X = U + tV;  (X ~ Geometric(1 − e^{−1/t}))
    3. Y = ⌊X/s⌋;  B ~ Bernoulli(½); if B = 1 and Y = 0 restart;
    4. return (1 − 2B) Y.
    """
    scale = Fraction(scale)
    if scale <= 0:
        raise ValueError("scale must be > 0.")
    return _discrete_laplace(scale.numerator, scale.denominator, rng)


def _geometric(t: int, s: int, rng: RandomSource) -> int:
    """Y ≥ 0 with Pr[Y = y] = (1 − e^(−s/t)) e^(−y s/t): CKS20 Alg. 2, steps 1–3."""
    randrange = rng.randrange
    while True:
        u = randrange(t)
        if _bernoulli_exp_unit_ratio(u, t, rng):  # exp(−u/t), u/t < 1
            v = 0  # V ~ Geometric(1 − e^{−1}): heads of Bernoulli(e^{−1})
            while _bernoulli_exp_unit_ratio(1, 1, rng):
                v += 1
            return (u + t * v) // s


def _discrete_laplace(t: int, s: int, rng: RandomSource) -> int:
    """:func:`sample_discrete_laplace` for scale = t/s in lowest terms, t, s > 0."""
    randrange = rng.randrange
    while True:
        y = _geometric(t, s, rng)
        b = randrange(2)
        if b == 1 and y == 0:
            continue
        return -y if b else y


_FRACTION_BITS = 53  # bits of each exponential's fraction (sample_gamma_on_lattice)


def sample_gamma_on_lattice(d: int, scale: float, step: float, rng) -> float:
    """Exact Gamma(d, scale) on a lattice of step·2^−54: a sum of d exponentials.

    Each exponential E ~ Exp(scale) is drawn as E = step·(G + V), exactly:
    by memorylessness G = ⌊E/step⌋ and the fraction V = E/step − G are
    independent, G ~ Geometric(1 − e^(−step/scale)) (:func:`_geometric`,
    integers only, with step/scale = s/t rational because both are floats)
    and V has density ∝ e^(−V·step/scale) on [0, 1), drawn by rejection:
    V = (2k + 1)/2^54 for k uniform on {0, …, 2^53 − 1}, accepted with
    probability exp(−V·step/scale) by CKS20's exact Bernoulli(exp(−a/b)) on
    integers. V is thus the midpoint of its 2^−53 cell, drawn with that
    cell's exact probability up to a factor within e^(±2^−54·step/scale)
    (the density's variation across a cell). The sum of d independent
    exponentials is Gamma(d, scale).

    The result is ``float(step·(ΣG + ΣV))``, the exact rational rounded once:
    every radius, the far tail included, lies on a lattice far finer than
    ``step`` (unlike −scale·log U of a float U). ``step`` is a power of two,
    usually the release grid 2^k ≤ scale/2^20 (:func:`granularity_exponent`).
    """
    d = int(d)
    if d < 1:
        raise ValueError("d must be >= 1.")
    (ap, aq), (bp, bq) = _ratio(scale), _ratio(step)
    if ap <= 0 or bp <= 0:
        raise ValueError("scale and step must be > 0.")
    g = math.gcd(ap * bq, aq * bp)
    t, s = ap * bq // g, aq * bp // g  # scale/step, lowest terms
    one, randrange = 1 << _FRACTION_BITS, rng.randrange
    whole, frac = 0, 0  # Σ G and Σ (2k + 1), exactly
    for _ in range(d):
        whole += _geometric(t, s, rng)
        while True:  # V ∝ e^(−V s/t) on [0, 1): accept w.p. exp(−(2k+1)s/(2^54 t))
            odd = 2 * randrange(one) + 1
            if _bernoulli_exp_ratio(odd * s, 2 * one * t, rng):
                frac += odd
                break
    # float(Fraction(step) * (whole + Fraction(frac, 2 * one))), correctly rounded.
    return (bp * (whole * 2 * one + frac)) / (bq * 2 * one)


def granularity_exponent(scale: float, *, bits: int = 20) -> int:
    """Public grid exponent k: the largest 2^k ≤ scale / 2^bits (scale only)."""
    if not (math.isfinite(scale) and scale > 0):
        raise ValueError("scale must be finite and > 0.")
    return math.floor(math.log2(scale)) - bits


def laplace_on_grid(
    value: float,
    sensitivity: float,
    epsilon: float,
    rng: RandomSource,
    *,
    bits: int = 20,
) -> tuple[float, float, int]:
    """ε-DP release of ``value`` (sensitivity Δ) as an exact multiple of 2^k.

    The value is rounded exactly to the nearest multiple of 2^k (ties to
    even), and discrete Laplace noise of scale (Δ + 2^k)/(ε 2^k) grid steps
    is added on ℤ. Rounding is 1-Lipschitz up to 2^k: neighbouring values
    round to grid points at most Δ + 2^k apart, hence the inflated
    sensitivity. Returns (release, scale in value units, k); every reachable
    output is a multiple of 2^k.
    """
    if not math.isfinite(value):
        raise ValueError("value must be finite.")
    k, tp, tq, t, s, eff_scale = _grid_constants(sensitivity, epsilon, bits)
    vp, vq = _ratio(value)
    # n = round(Fraction(value) / step): ties to even, exactly.
    q, r = divmod(vp * tq, vq * tp)
    twice = 2 * r
    n = q + (twice > vq * tp or (twice == vq * tp and q % 2 == 1))
    z = _discrete_laplace(t, s, rng)
    # float((n + z) * step), float(eff_sensitivity / Fraction(epsilon)).
    m = n + z
    release = (m << k) / 1 if k >= 0 else m / tq
    return release, eff_scale, k


@functools.lru_cache(maxsize=64, typed=True)
def _grid_constants(sensitivity, epsilon, bits: int) -> tuple:
    """(k, 2^k = tp/tq, scale t/s in grid steps, (Δ + 2^k)/ε) of
    :func:`laplace_on_grid`: public settings only, computed once per setting."""
    k = granularity_exponent(sensitivity / epsilon, bits=bits)
    # Exact integer arithmetic computing the Fraction expressions in the
    # comments; the step is 2^k = tp/tq.
    sp, sq = _ratio(sensitivity)
    ep, eq = _ratio(epsilon)
    tp, tq = (1 << k, 1) if k >= 0 else (1, 1 << -k)
    # scale_steps = (Fraction(sensitivity) + step) / (Fraction(epsilon) * step),
    # in lowest terms with a positive denominator (what the sampler reads).
    eff_num, eff_den = sp * tq + tp * sq, sq * tq  # Fraction(sensitivity) + step
    num, den = eff_num * eq * tq, eff_den * ep * tp
    g = math.gcd(num, den)
    t, s = num // g, den // g
    if s < 0:
        t, s = -t, -s
    if t <= 0:
        raise ValueError("scale must be > 0.")
    # float(eff_sensitivity / Fraction(epsilon)) as the last item.
    return k, tp, tq, t, s, (eff_num * eq) / (eff_den * ep)


def _ratio(x) -> tuple[int, int]:
    """x = p/q exactly as Python ints (never wrapping NumPy integers), q > 0."""
    if isinstance(x, (float, np.float16, np.float32)):
        p, q = float(x).as_integer_ratio()
    else:
        f = Fraction(x)
        p, q = f.numerator, f.denominator
    return int(p), int(q)


def _uniform_open(n: int, rng) -> np.ndarray:
    """n uniforms on (0, 1): (k + ½)/2⁵³ for k uniform on {0, …, 2⁵³ − 1}."""
    if hasattr(rng, "randbytes"):  # BufferedSystemRandom, random.Random
        raw = rng.randbytes(8 * n)  # random.Random: getrandbits(64n), little-endian
    else:  # _NumpySource (tests only)
        raw = rng._gen.bytes(8 * n)
    k = np.frombuffer(raw, dtype="<u8") >> np.uint64(11)
    return (k.astype(np.float64) + 0.5) * 2.0**-53


def sample_standard_normal(n: int, rng: RandomSource) -> np.ndarray:
    """n independent N(0, 1) floats from the noise source (Box–Muller).

    53-bit uniforms from ``rng``; ``sqrt(−2 ln U₁)·(cos, sin)(2π U₂)`` with
    U₁ ≥ 2⁻⁵⁴ truncates the tail at 8.7 sd (probability < 2⁻⁵³, added to δ).
    A *floating-point* Gaussian (Mironov 2012; Jin et al., S&P 2022): the GP
    release mitigates by :func:`round_to_grid`, not a proof (``docs/dp_gp.md``).
    """
    n = int(n)
    if n < 0:
        raise ValueError("n must be >= 0.")
    m = (n + 1) // 2
    u = _uniform_open(2 * m, rng)
    radius = np.sqrt(-2.0 * np.log(u[:m]))
    angle = 2.0 * np.pi * u[m:]
    z = np.concatenate([radius * np.cos(angle), radius * np.sin(angle)])
    return z[:n]


def round_to_grid(values, scale: float, *, bits: int = 20) -> np.ndarray:
    """Round ``values`` to multiples of the public step 2^k ≤ scale / 2^bits."""
    step = 2.0 ** granularity_exponent(scale, bits=bits)
    return np.round(np.asarray(values, dtype=float) / step) * step
