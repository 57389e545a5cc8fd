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

__all__ = ["quiet"]


_QUIET_LOCK = threading.RLock()
_IN_QUIET = threading.local()  # depth of this thread's quiet() sections
_EVERY_LEVEL = 2**62  # logging.disable(level) withholds records of level ≤ it


@contextmanager
def quiet(private: bool = True):
    """Withhold what private work warns, prints and logs.

    Warnings are recorded into a list dropped at the end
    (``catch_warnings(record=True)``, filter ``"always"``: none is shown or
    turned into an error); the user's filters are put back on exit.
    ``catch_warnings`` is process-global and not thread-safe, so a section
    holds one process-wide lock (private scoring is serialised under
    threading backends; another thread's output during a section is
    withheld, never revealed).

    ``private=True``: ``sys.stdout``/``sys.stderr`` go to a dropped buffer
    and logging is disabled at every level (output C code writes to the file
    descriptors is not caught). ``private=False`` (public rows): warnings are
    withheld, prints and logs are the user's. Both run under
    ``np.errstate(all="ignore")``. A nested section shares the outer one's
    filter.
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
