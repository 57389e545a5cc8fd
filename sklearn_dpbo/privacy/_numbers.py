"""One entry as a number, decided by that entry alone.

A container's dtype is chosen for the whole batch: ``np.array(values)``
with one string makes every entry a string (``True`` becomes ``"True"``,
``0.5 + 0j`` becomes ``"(0.5+0j)"``), one complex value makes every entry
complex. Wherever the library reads private entries one by one, it reads
them through :func:`number`, which undoes those batch conversions entry by
entry: a string is parsed (a float, ``"True"``/``"False"``, or a complex
number with no imaginary part), a complex value with no imaginary part is
its real part, a bool is 0 or 1. What it cannot undo: a float32 scalar
stringified by NumPy comes back as the shortest decimal naming it (a
difference below float32 precision).
"""

from __future__ import annotations

import numbers

import numpy as np

__all__ = ["number"]

_BOOLS = {"True": 1.0, "False": 0.0}


def number(v) -> float:
    """``v`` as a float, from ``v`` alone; raises when it is not a number.

    Raises ``ValueError`` or ``TypeError`` for a non-number (a string that
    spells none, ``None``, a complex value with an imaginary part, any
    object ``float`` refuses), ``OverflowError`` for an integer too large
    for a float, and whatever the entry's own ``__float__`` raises.
    """
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
