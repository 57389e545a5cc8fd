"""The default noise source: the OS CSPRNG read in blocks (``BufferedSystemRandom``).

What makes it the same CSPRNG as ``secrets.SystemRandom``, checked here:

- it is the default (``secure_source``, ``check_privacy_rng(None)``);
- every output is a function of the next unread OS bytes, in order, each
  byte served once, across block refills (a fake ``os.urandom`` whose
  bytes are known, against a reference reader);
- ``randrange(n)`` is exactly uniform: fed every byte string of its width
  once, it returns every value of {0, …, n − 1} equally often;
- threads read disjoint blocks, and a forked child never replays the
  parent's unread bytes;
- on the real OS bytes, draws and consecutive pairs of draws pass a
  chi-square test, and the test rejects a source that serves bytes twice.
"""

from __future__ import annotations

import os
import random
import secrets
import threading

import numpy as np
import pytest
from _stats import ALPHA, chi_square_pvalue

from sklearn_dpbo.privacy import _samplers
from sklearn_dpbo.privacy._samplers import BufferedSystemRandom, secure_source
from sklearn_dpbo.privacy._validation import check_privacy_rng


class _KnownBytes:
    """A fake ``os.urandom``: bytes of a seeded stream, and a record of reads."""

    def __init__(self):
        self.rng = random.Random(1)
        self.stream = bytearray()
        self.reads = []

    def __call__(self, n):
        out = self.rng.randbytes(n)
        self.stream += out
        self.reads.append(n)
        return out


@pytest.fixture
def fake_os(monkeypatch):
    fake = _KnownBytes()
    monkeypatch.setattr(_samplers, "_urandom", fake)
    monkeypatch.setattr(_samplers, "_BLOCK", 16)  # many refills
    _samplers._new_block()  # drop this thread's unread real bytes
    yield fake
    _samplers._new_block()  # no fake bytes left for later tests


def test_it_is_the_default_and_a_system_random():
    src = secure_source()
    assert type(src) is BufferedSystemRandom
    assert isinstance(src, secrets.SystemRandom)
    assert type(check_privacy_rng(None)) is BufferedSystemRandom
    with pytest.raises(NotImplementedError):  # no state to copy, as SystemRandom
        src.getstate()


def test_outputs_are_the_next_unread_bytes_in_order(fake_os):
    """Each call reads the bytes SystemRandom's own call would read from
    ``os.urandom``, from the stream in order, none twice or skipped
    (a call's bytes never straddle two blocks: a refill drops the block's
    short tail, which is never served)."""
    src = secure_source()
    at = {"pos": 0, "end": 0}  # the reference reader, in stream offsets

    def next_bytes(n):
        if at["pos"] + n > at["end"]:  # the next block (16 bytes)
            at["pos"], at["end"] = at["end"], at["end"] + 16
        out = bytes(fake_os.stream[at["pos"] : at["pos"] + n])
        at["pos"] += n
        return out

    rng = random.Random(0)
    for _ in range(400):
        kind = rng.randrange(4)
        if kind == 0:
            k = rng.randrange(1, 100)
            x = src.getrandbits(k)
            nb = (k + 7) // 8
            assert x == int.from_bytes(next_bytes(nb), "big") >> (nb * 8 - k)
        elif kind == 1:
            x = src.random()
            assert x == (int.from_bytes(next_bytes(7), "big") >> 3) * 2.0**-53
        elif kind == 2:
            n = rng.randrange(1, 9)
            assert src.randbytes(n) == next_bytes(n)
        else:
            n = rng.choice([1, 2, 3, 5, 200, 256, 257, 1000, 2**53, 3 * 2**70])
            x = src.randrange(n)
            k = (n - 1).bit_length()
            nb = (k + 7) // 8
            while True:
                r = int.from_bytes(next_bytes(nb), "big") >> (nb * 8 - k)
                if r < n:
                    break
            assert x == r
    assert len(fake_os.reads) > 100 and set(fake_os.reads) == {16}  # many refills


@pytest.mark.parametrize("n", [1, 2, 3, 5, 6, 7, 100, 255, 256, 257, 1000, 40_000])
def test_randrange_is_exactly_uniform_over_every_byte_string(monkeypatch, n):
    """Fed each byte string of randrange's width once (one block holding
    them all), the accepted values hit every value of {0, …, n − 1}
    equally often (2^shift times each)."""
    k = (n - 1).bit_length()
    nb = (k + 7) // 8
    shift = 8 * nb - k
    every = b"".join(i.to_bytes(nb, "big") for i in range(256**nb))
    reads = []
    monkeypatch.setattr(_samplers, "_urandom", lambda size: reads.append(size) or every)
    monkeypatch.setattr(_samplers, "_BLOCK", len(every))
    _samplers._new_block()
    src = secure_source()
    try:
        out = [src.randrange(n) for _ in range(n << shift)]
        assert reads == ([len(every)] if nb else [])  # one pass: each string once
    finally:
        _samplers._new_block()
    assert (np.bincount(out, minlength=n) == 1 << shift).all()


def test_threads_read_disjoint_blocks(fake_os):
    got = {}

    def draw(name):
        got[name] = secure_source().randbytes(8)

    threads = [threading.Thread(target=draw, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    # Each thread's first read starts a block of its own.
    starts = sorted(fake_os.stream.index(b) for b in got.values())
    assert starts == [0, 16, 32, 48] and fake_os.reads == [16] * 4


def test_a_forked_child_does_not_replay_the_parents_bytes():
    src = secure_source()
    src.randbytes(1)  # this thread now holds a block with unread bytes
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # child
        try:
            os.write(write, src.randbytes(32))
        finally:
            os._exit(0)
    os.close(write)
    child = b""
    while len(child) < 32:
        child += os.read(read, 32)
    os.close(read)
    os.waitpid(pid, 0)
    assert child != src.randbytes(32)


def _chi_square_of(draw, n_draws=60_000):
    """p-values of (draws of randrange(6) uniform, consecutive pairs uniform)."""
    x = np.fromiter((draw() for _ in range(n_draws)), dtype=int, count=n_draws)
    single = chi_square_pvalue(np.bincount(x, minlength=6), np.full(6, 1 / 6))
    pairs = np.bincount(6 * x[0::2] + x[1::2], minlength=36)
    return single, chi_square_pvalue(pairs, np.full(36, 1 / 36))


def test_real_os_draws_are_uniform_and_independent_and_the_test_has_power():
    src = secure_source()
    single, pairs = _chi_square_of(lambda: src.randrange(6))
    assert single > ALPHA and pairs > ALPHA, (single, pairs)

    # Power: a source serving every byte twice (a block position not
    # advanced every other call) gives equal consecutive pairs.
    class Twice(BufferedSystemRandom):
        last = None

        def getrandbits(self, k):
            if self.last is None:
                self.last = super().getrandbits(k)
                return self.last
            out, self.last = self.last, None
            return out

        def randrange(self, n):
            return self._randbelow_with_getrandbits(n)

    twice = Twice()
    single, pairs = _chi_square_of(lambda: twice.randrange(6))
    assert pairs < ALPHA, pairs
