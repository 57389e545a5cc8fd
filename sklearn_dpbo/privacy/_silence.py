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
_EVERY_LEVEL = 2**62  # logging.disable(level) withholds records of level ≤ it


@contextmanager
def quiet(private: bool = True):
    """Withhold what private work warns, prints and logs.

    Warnings are recorded and dropped under one process-wide lock
    (``catch_warnings`` is process-global); ``private=True`` also drops
    ``sys.stdout``/``sys.stderr`` and disables logging (``private=False``:
    public rows, prints and logs are the user's). Both run under
    ``np.errstate(all="ignore")``.
    """
    with _QUIET_LOCK, np.errstate(all="ignore"), warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
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
