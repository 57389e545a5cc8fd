"""One entry as a number, decided by that entry alone.

``np.array(values)`` with one string makes every entry a string (``True``
becomes ``"True"``), one complex value makes every entry complex;
:func:`number` undoes such batch conversions entry by entry.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

_BOOLS = {"True": 1.0, "False": 0.0}


def number(v) -> float:
    """``v`` as a float, from ``v`` alone (strings parsed, "True" is 1, a real
    complex is its real part); raises when it is not a number."""
    if isinstance(v, (bytes, np.bytes_)):
        v = bytes(v).decode()
    if isinstance(v, str):
        s = v.strip()
        if s in _BOOLS:
            return _BOOLS[s]
        try:
            return float(s)
        except ValueError:
            return number(complex(s.replace(" ", "")))  # "(0.5+0j)"; else raises
    if isinstance(v, (complex, np.complexfloating)):
        if v.imag != 0:
            raise ValueError("a complex number with an imaginary part")
        return float(v.real)
    if isinstance(v, (bool, np.bool_)):
        return float(bool(v))
    if isinstance(v, numbers.Number) or hasattr(v, "__float__"):
        return float(v)
    raise TypeError("not a number")


def number_or_nan(v, *, inf_on_overflow: bool = False) -> float:
    """:func:`number`, or NaN when ``v`` is no number; never raises.

    Only ``KeyboardInterrupt`` propagates. An integer too large for a float
    is NaN, or ±inf with ``inf_on_overflow`` (NaN if ``v > 0`` fails).
    """
    try:
        try:
            return number(v)
        except OverflowError:
            if not inf_on_overflow:
                return math.nan
            return math.inf if v > 0 else -math.inf
    except KeyboardInterrupt:
        raise
    except BaseException:  # noqa: BLE001 - this entry's own failure
        return math.nan


_NAN = math.nan  # the one NaN key: a dict finds it by identity (NaN != NaN)


def label_key(v):
    """The key a label (or a category) is matched by, from ``v`` alone.

    ``1``, ``1.0``, ``True``, ``"1"`` and ``np.int64(1)`` all give ``1``
    (a string spelling an integer gives it exactly, above 2**53 too); every
    NaN (``"nan"``, ``np.nan``) gives the same NaN object.
    """
    key = _key(v)
    return _NAN if isinstance(key, float) and math.isnan(key) else key


def _key(v):
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, bytes):
        try:
            v = v.decode()
        except UnicodeDecodeError:
            return v
    if isinstance(v, str):
        s = v.strip()
        if s in _BOOLS:
            return int(_BOOLS[s])
        try:
            return int(s)
        except ValueError:
            pass
        try:
            return number(s)
        except (TypeError, ValueError, OverflowError):
            return v
    if isinstance(v, complex) and v.imag == 0:
        return v.real
    return v
