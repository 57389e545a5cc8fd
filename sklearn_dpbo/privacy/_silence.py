"""Silence for private code paths: no warning raised while private work
runs reaches the user, no log record is emitted, and no module's warning
registry, global random state or logging switch keeps a trace.

Used by every private computation of the library (the scorer's per-record
values, the DP GP's output mapping, the search's validation read).
"""

from __future__ import annotations

import io
import logging
import random
import sys
import threading
import types
import warnings
from collections import deque
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from itertools import compress, repeat, starmap
from operator import contains
from typing import Optional

import numpy as np

__all__ = ["FilterVersionPad", "filters_version", "quiet"]


_QUIET_LOCK = threading.RLock()
_IN_QUIET = threading.local()  # depth of this thread's quiet() sections


@contextmanager
def quiet(private: bool = True, *, registries: bool = True):
    """Withhold every warning raised while private work runs.

    ``warnings.catch_warnings`` changes process-global state and is not
    thread-safe: two threads entering and leaving it interleaved can leave
    a silencing filter installed, or restore the user's filters while the
    other thread is still scoring validation records (so a warning raised
    by one validation record reaches the user). Every private section of the
    library therefore holds one process-wide lock for the whole time the
    filter is installed: library threads never interleave their filter
    changes, and a private computation always runs under the filter. Under
    the threading backend (and Dask's threaded workers) private scoring is
    then serialised; process backends (loky, Dask processes) are unaffected.
    Warnings raised in the section are recorded into a list that is dropped
    at its end (the ``"always"`` filter: none is shown, none is turned into
    an error).

    A thread that is *not* the library's and warns during a private section
    has its warning withheld too (lost, never revealed); a thread that
    changes the warning filters during one is outside this protection.

    A withheld warning still touches the ``__warningregistry__`` of the
    module it is attributed to: CPython's ``warn_explicit`` creates it, or
    clears it and stamps the filters' version, *before* it looks at the
    filters. Scored in this process, a warning raised by one validation
    record would be readable there after the fit. With ``registries=True``
    (the default) the registries are saved on entry and put back on exit
    (:class:`_Registries`).
    ``registries=False`` is for sections that score public data only (the
    public-rows checks), whose warnings reveal nothing private. A section
    nested in one of the same thread is covered by the outer one (one
    registry snapshot for a whole loop of private scores).

    The section also runs under ``np.errstate(all="ignore")``: a user's
    ``np.seterr(all="raise")`` cannot turn one record's overflow into an
    exception (a nested section is covered by the outer one's state).

    With ``registries=True`` (private data) the registries are put back on
    exit whether or not a warning was recorded: a nested
    ``catch_warnings`` with an "error" filter (scikit-learn uses them)
    touches a registry without recording anything. The section also puts
    back the process-global random states (``np.random``'s legacy global
    generator and the ``random`` module's; a user estimator with
    ``random_state=None`` draws from the former, a data-dependent number
    of times) and runs with logging disabled (``logging.disable``; a user
    estimator's log records are withheld like its warnings, in every
    thread, for the section's duration).

    Not covered (documented in the threat model): the interpreter's
    warnings-filter version, a counter every ``catch_warnings`` bumps and
    no code can set back (a loop of private length pads it with
    :class:`FilterVersionPad`); modules imported for the first time inside a
    section (they stay in ``sys.modules``); ``__del__`` of private objects
    caught in reference cycles, which the garbage collector runs later.
    """
    if not private:
        yield
        return
    if getattr(_IN_QUIET, "depth", 0):
        # Nested in this thread's section: covered by it (its filter, its
        # record list and its registries), at no extra cost.
        _IN_QUIET.depth += 1
        try:
            yield
        finally:
            _IN_QUIET.depth -= 1
        return
    with _QUIET_LOCK:
        saved = _Registries() if registries else None
        state = _GlobalState() if registries else None
        _IN_QUIET.depth = 1
        try:
            # Floating-point errors neither warn nor raise in the section,
            # whatever the user's np.seterr (context-local, restored on
            # exit): a record with a huge value must not make fit raise on
            # one side of a neighbouring pair only.
            with (
                np.errstate(all="ignore"),
                warnings.catch_warnings(record=True),
                _withheld_output(registries),
            ):
                warnings.simplefilter("always")
                yield
        finally:
            _IN_QUIET.depth = 0
            if saved is not None:
                saved.restore()
            if state is not None:
                state.restore()


@contextmanager
def _withheld_output(private: bool):
    """Python-level prints of a private section go to a dropped buffer
    (``sys.stdout``/``sys.stderr`` swapped under the section's lock: a
    record's ``__hash__`` or ``__float__`` that prints shows nothing).
    Output written to the file descriptors directly (C code) is not caught."""
    if not private:
        yield
        return
    sink = io.StringIO()
    with redirect_stdout(sink), redirect_stderr(sink):
        yield


_EVERY_LEVEL = 2**62  # logging.disable(level) withholds records of level ≤ it


class _GlobalState:
    """Global random states and the logging switch, saved to put back.

    On entry logging is disabled (every level, custom ones above CRITICAL
    included); on exit the switch, NumPy's
    legacy global generator and the ``random`` module's state are as they
    were, so no number of draws made inside a private section shows.
    """

    def __init__(self):
        self.numpy = np.random.get_state()  # noqa: NPY002 - the user's global
        self.random = random.getstate()
        self.logging = logging.root.manager.disable
        logging.disable(_EVERY_LEVEL)

    def restore(self) -> None:
        logging.disable(self.logging)
        random.setstate(self.random)
        np.random.set_state(self.numpy)  # noqa: NPY002


_REGISTRY = "__warningregistry__"
# The namespace of a module, read without the module's own attribute hooks
# (reading ``__dict__`` of a lazily loaded module would import it).
_MODULE_DICT = types.ModuleType.__dict__["__dict__"]
# The loaded modules' namespaces, rebuilt when sys.modules changes size.
_NAMESPACES: dict = {"size": -1, "namespaces": []}


def _module_namespaces() -> list:
    """The global namespaces of the loaded modules (cached)."""
    if _NAMESPACES["size"] != len(sys.modules):
        _NAMESPACES["namespaces"] = [
            _MODULE_DICT.__get__(module)
            for module in list(sys.modules.values())
            if issubclass(type(module), types.ModuleType)
        ]
        _NAMESPACES["size"] = len(sys.modules)
    return _NAMESPACES["namespaces"]


class _Registries:
    """The loaded modules' ``__warningregistry__`` dicts, saved to put back."""

    def __init__(self):
        # The namespaces holding a registry are picked at C speed (most of
        # the ~2,000 loaded modules have none): the same dict as a loop
        # over every namespace, in a third of the time.
        namespaces = _module_namespaces()
        holding = compress(namespaces, map(contains, namespaces, repeat(_REGISTRY)))
        self.saved = {
            id(namespace): (registry, dict(registry))
            for namespace in holding
            if isinstance(registry := namespace[_REGISTRY], dict)
        }

    def restore(self) -> None:
        """Every registry as it was saved; one created since is removed.

        A registry created or changed in a module imported during the
        section is found too (the module list is rebuilt).
        """
        namespaces = _module_namespaces()
        # Only the namespaces holding a registry now, picked at C speed as
        # in __init__ (the same result as visiting every namespace).
        holding = compress(namespaces, map(contains, namespaces, repeat(_REGISTRY)))
        for namespace in holding:
            current = namespace[_REGISTRY]
            if current is None:
                continue
            registry, copy = self.saved.get(id(namespace), (None, None))
            if registry is None:
                del namespace[_REGISTRY]
            elif current is not registry or registry != copy:
                registry.clear()
                registry.update(copy)
                namespace[_REGISTRY] = registry


# ---------------------------------------------------------------------------
# The interpreter's warnings-filter version
# ---------------------------------------------------------------------------
class _Probe(Warning):
    """The category of :func:`filters_version`'s probe (never shown)."""


def filters_version() -> Optional[int]:
    """The interpreter's warnings-filter version, or None if unreadable.

    Every ``catch_warnings`` entry and exit and every ``simplefilter`` bumps
    this counter; no code can set it back. ``warn_explicit`` stamps it into
    the registry it is given *before* it reads the filters, so a probe
    warning with a fresh registry reads it under any filter (an "error"
    filter's exception is caught). Call it inside a :func:`quiet` section
    (there the probe is recorded and dropped, and the registry is ours);
    outside one it returns None (the probe would be shown).
    """
    if not getattr(_IN_QUIET, "depth", 0):
        return None
    registry: dict = {}
    try:
        warnings.warn_explicit(
            "sklearn_dpbo filter-version probe",
            _Probe,
            "<sklearn_dpbo probe>",
            0,
            module="sklearn_dpbo._probe",
            registry=registry,
        )
    except _Probe:
        pass
    version = registry.get("version")
    return version if type(version) is int else None


def _bump_filters_version(count: int) -> None:
    mutated = getattr(warnings, "_filters_mutated", None)
    if mutated is not None:  # CPython 3.9-3.13: one bump a call (9 ns here)
        deque(starmap(mutated, repeat((), max(count, 0))), maxlen=0)
        return
    # Elsewhere (best effort): catch_warnings bumps on entry and exit, and a
    # simplefilter inside once more: 3 once for an odd count, then pairs.
    if count % 2 and count >= 3:
        with warnings.catch_warnings():
            warnings.simplefilter("default")
        count -= 3
    for _ in range(count // 2):
        with warnings.catch_warnings():
            pass


#: Bumps of the filter version per pass that :class:`FilterVersionPad` hides
#: whatever their number (a larger count shows its power-of-two bucket).
#: scikit-learn's ``predict`` makes 3 (6 in a two-step pipeline; a random
#: forest 163), a diffprivlib fit 21.
PASS_FLOOR = 32


class FilterVersionPad:
    """Hide what private work did from the warnings-filter version.

    Private work whose filter changes depend on the data would leave the
    warnings-filter version (:func:`filters_version`) readable by a probe
    after ``fit``: random stopping's K runs of a learner that enters
    ``catch_warnings`` (diffprivlib's: 21 bumps a fit), or a validation
    batch that raises because of one record and is scored again record by
    record (thousands of bumps; found by adversarial reviews on
    2026-11-25). Use::

        pad = FilterVersionPad()          # before the work
        for ...: unit(); pad.step()       # after each unit of work
        pad.finish(max_units)             # public bound on the units

    ``finish`` bumps the counter to ``start + max_units · B``, where B is
    the largest increase of one unit rounded up to a power of two and at
    least :data:`PASS_FLOOR`: the total is then a function of the public
    bound, not of how many units ran or which failed, whenever every unit
    bumps the counter at most ``max(PASS_FLOOR, that power of two)`` times.
    Residual: a unit that bumps it more than the others' power of two (a
    record that makes a pipeline step enter ``catch_warnings`` dozens of
    times) shows the new bucket. On interpreters without
    ``warnings._filters_mutated`` (CPython has it from 3.9 to 3.13) the
    counter is bumped through ``catch_warnings`` (best effort; a remainder
    of 1 is then left). If the probe cannot read the counter, or the
    counter wrapped around (a C ``long``: 32 bits on Windows), nothing is
    padded. Threads outside the library that change the warning filters
    during the work add their own bumps (under the threading backend the
    public fits do: the total then varies by a few from run to run, not
    with the data as far as measured). Call inside a :func:`quiet`
    section.
    """

    def __init__(self):
        self.start = self.last = filters_version()
        self.most = 0

    def step(self) -> None:
        """After one unit of work: note its increase."""
        if self.last is None:
            return
        now = filters_version()
        if now is None:
            self.last = None
            return
        self.most = max(self.most, now - self.last)
        self.last = now

    def finish(self, max_units: int) -> None:
        """Bump the counter to its public total for ``max_units`` units."""
        if self.start is None or self.last is None:
            return
        per_pass = max(PASS_FLOOR, 1 << max(int(self.most) - 1, 0).bit_length())
        now = filters_version()
        if now is None:
            return
        total = int(max_units) * per_pass
        gap = self.start + total - now
        if 0 <= gap <= total:  # else the C counter wrapped (a 32-bit long)
            _bump_filters_version(gap)
