"""Silence for private code paths: no warning, print or log record raised
while private work runs reaches the user, and no floating-point error
raises.

Used by every private computation of the library (the scorer's per-record
values, the DP GP's output mapping, the search's validation read, the
whole-data parts, the private-model runs).
"""

from __future__ import annotations

import io
import logging
import threading
import warnings
from contextlib import contextmanager, redirect_stderr, redirect_stdout

import numpy as np

__all__ = ["quiet"]


_QUIET_LOCK = threading.RLock()
_IN_QUIET = threading.local()  # depth of this thread's quiet() sections
_EVERY_LEVEL = 2**62  # logging.disable(level) withholds records of level ≤ it


@contextmanager
def quiet(private: bool = True):
    """Withhold what private work warns, prints and logs.

    Warnings raised in the section are recorded into a list that is dropped
    at its end (``catch_warnings(record=True)`` with the ``"always"``
    filter: none is shown, none is turned into an error; a nested
    ``catch_warnings`` of the user's code records into the same list). On
    exit the user's filters are put back as they were, so a later warning of
    the user is shown exactly as without the section.

    ``warnings.catch_warnings`` changes process-global state and is not
    thread-safe: two threads entering and leaving it interleaved can leave a
    silencing filter installed, or restore the user's filters while the
    other thread still scores validation records. Every section therefore
    holds one process-wide lock while its filter is installed; under the
    threading backend (and Dask's threaded workers) private scoring is
    serialised; process backends are unaffected. A thread that is not the
    library's and warns, prints or logs during a section loses that output
    (withheld, never revealed).

    With ``private=True`` (the default) ``sys.stdout``/``sys.stderr`` are
    swapped for a dropped buffer and logging is disabled at every level for
    the section's duration (output that C code writes to the file
    descriptors directly is not caught). ``private=False`` is for sections
    that score public rows only: their warnings are withheld, their prints
    and log records are the user's.

    The section also runs under ``np.errstate(all="ignore")``: a user's
    ``np.seterr(all="raise")`` cannot turn one record's overflow into an
    exception. A section nested in one of the same thread shares the outer
    one's warning filter and withholds its own prints and logs if private.
    """
    if getattr(_IN_QUIET, "depth", 0):  # the outer section's filter covers it
        _IN_QUIET.depth += 1
        try:
            with _withheld_output(private):
                yield
        finally:
            _IN_QUIET.depth -= 1
        return
    with _QUIET_LOCK:
        _IN_QUIET.depth = 1
        try:
            with (
                np.errstate(all="ignore"),
                warnings.catch_warnings(record=True),
                _withheld_output(private),
            ):
                warnings.simplefilter("always")
                yield
        finally:
            _IN_QUIET.depth = 0


@contextmanager
def _withheld_output(private: bool):
    """Prints go to a dropped buffer and logging is disabled (private only)."""
    if not private:
        yield
        return
    disabled = logging.root.manager.disable
    logging.disable(_EVERY_LEVEL)
    try:
        sink = io.StringIO()
        with redirect_stdout(sink), redirect_stderr(sink):
            yield
    finally:
        logging.disable(disabled)
