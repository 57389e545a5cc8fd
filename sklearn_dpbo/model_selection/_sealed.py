"""The fail-closed boundary of a fit: after the first private read, no detail leaves."""

from __future__ import annotations

import numpy as np


class PrivateComputationError(RuntimeError):
    """A failure after the private data was read; its details are withheld."""


def run_sealed(run, ctx, charged: list):
    """Run a mode; after the first validation read, let no private value out.

    Before the read every exception propagates unchanged. After it, an
    exception's message, context and frames could hold private values, so
    it is replaced, outside the ``except`` block, by a fixed message of a
    public type: ``KeyboardInterrupt``, ``SystemExit`` and ``MemoryError``
    keep theirs, anything else is :class:`PrivateComputationError`.
    """
    failure = None
    try:
        # Whatever np.seterr says: one row's value must not warn or raise.
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
