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
_THREAD = threading.local()  # .private: this thread is inside quiet(private=True)
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
    ``quiet`` adds nothing: it only yields (the outer section restores the
    user's state on exit).
    """
    if getattr(_THREAD, "private", False):
        yield
        return
    with _QUIET_LOCK, np.errstate(all="ignore"), warnings.catch_warnings(record=True):
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
            _THREAD.private = True
            sink = io.StringIO()
            with redirect_stdout(sink), redirect_stderr(sink):
                yield
        finally:
            _THREAD.private = False
            if logging.root.manager.disable != disabled:
                logging.disable(disabled)
