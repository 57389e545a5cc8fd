"""Silence for private code paths: no warning, print or log record raised
while private work runs reaches the user, and no floating-point error raises.
"""

from __future__ import annotations

import io
import logging
import threading
import warnings
from contextlib import contextmanager, redirect_stderr, redirect_stdout

import numpy as np

_QUIET_LOCK = threading.RLock()
_THREAD = threading.local()  # .log: the warnings list of this thread's quiet()
_EVERY_LEVEL = 2**62  # logging.disable(level) withholds records of level ≤ it


@contextmanager
def quiet(private: bool = True):
    """Withhold what private work warns, prints and logs.

    Warnings are recorded and dropped under one process-wide lock
    (``catch_warnings`` is process-global); ``private=True`` also drops
    ``sys.stdout``/``sys.stderr`` and disables logging (``private=False``:
    public rows, prints and logs are the user's). Both run under
    ``np.errstate(all="ignore")``. Inside this thread's ``quiet()`` section,
    which holds the lock and withholds all of that already, a nested
    ``quiet`` only drops the warnings recorded meanwhile (the outer section
    restores the user's state on exit).
    """
    log = getattr(_THREAD, "log", None)
    if log is not None:
        start = len(log)
        try:
            yield
        finally:
            del log[start:]  # memory: what a nested section withheld is dropped
        return
    withheld = warnings.catch_warnings(record=True)  # entered under the lock
    with _QUIET_LOCK, np.errstate(all="ignore"), withheld as log:
        warnings.simplefilter("always")
        if not private:
            yield
            return
        # logging.disable clears every logger's cache: called only to change
        # the level (not when an enclosing quiet() already set it).
        disabled = logging.root.manager.disable
        if disabled != _EVERY_LEVEL:
            logging.disable(_EVERY_LEVEL)
        try:
            _THREAD.log = log
            sink = io.StringIO()
            with redirect_stdout(sink), redirect_stderr(sink):
                yield
        finally:
            _THREAD.log = None
            if logging.root.manager.disable != disabled:
                logging.disable(disabled)
