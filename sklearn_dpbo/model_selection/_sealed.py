"""The fail-closed boundary of a fit: after the first private read, no detail leaves.

:func:`run_sealed` runs a mode; once the private data has been read (the
accountant charged), any exception is replaced by one of a public type
with a fixed message (:class:`PrivateComputationError`).
"""

from __future__ import annotations

import numpy as np


class PrivateComputationError(RuntimeError):
    """A failure after the private data was read; its details are withheld."""


def run_sealed(run, ctx, charged: list):
    """Run a mode; after the first validation read, let no private value out.

    Before the validation set is read every exception is public and
    propagates unchanged (e.g. a failing public fit with
    ``error_score="raise"``). After it, an exception's message, its
    ``__context__`` and the frames of its traceback could hold raw
    validation scores or the private evaluated sequence (debuggers, error
    trackers and ``pytest --showlocals`` record frame locals). Such an
    exception is therefore replaced, outside the ``except`` block, by a new
    one of a public type with a fixed message, whose traceback starts here:
    ``KeyboardInterrupt`` and ``SystemExit`` keep their type, ``MemoryError``
    too, anything else becomes :class:`PrivateComputationError`. Validation
    records cannot cause any of these: failing records are isolated by the
    scorer, so what remains is an interruption or a library bug.
    """
    failure = None
    try:
        # Floating-point errors neither warn nor raise in here, whatever the
        # user's np.seterr: a row with a huge or tiny value must not make the
        # fit fail (or warn) on one side of a neighbouring pair only.
        with np.errstate(all="ignore"):
            return run(ctx)
    except BaseException as exc:
        if not charged:
            raise
        failure = type(exc)
        del exc  # drop the frames before anything else happens
    finally:
        ctx.rng = ctx.data = None  # nothing private outlives the run
    for public_type in (KeyboardInterrupt, SystemExit, MemoryError):
        if issubclass(failure, public_type):
            raise public_type(
                f"{public_type.__name__} while the search used the private data "
                "(the validation set, or the rows of X, y when every row is "
                "private); the budget of this fit is spent and nothing was "
                "released."
            ) from None
    raise PrivateComputationError(
        "The search failed after reading the private data (the validation "
        "set, or the rows of X, y when every row is private). The failure's "
        "details are withheld because they could describe private records; "
        "the budget of this fit is spent and nothing was released. Reproduce "
        "the search on public data (e.g. synthetic rows, or a split of the "
        "training set as X_val) to see the error."
    ) from None
