"""Leak scanners shared by the privacy-rule tests and the leak audit.

``walk`` yields everything reachable from a fitted estimator; ``Secrets``
holds private floats and finds them in floats, arrays, text and bytes.
Imported as ``from _leaks import ...`` (``tests/`` is on ``sys.path``
through ``tests/conftest.py``).
"""

from __future__ import annotations

import dataclasses
import functools
import math
import re
import struct

import numpy as np

__all__ = ["SECONDS_RE", "Secrets", "public_texts", "walk"]

_NUMBER_RE = re.compile(r"(?<![\w.])[-+]?\d*\.(\d+)(?:[eE][-+]?\d+)?")
SECONDS_RE = re.compile(r"\d+\.\d+s\b")
"""Elapsed times printed at verbose > 0 (public, and random-looking)."""


def walk(root, name: str = "root"):
    """Yield (path, attribute-or-key name, object) for everything reachable.

    Follows instance dicts and slots, dataclass fields, dict keys and
    values, sequences, sets, object arrays, bound methods' ``__self__``,
    function closures and defaults, and partials (stored state only:
    properties are not evaluated). Modules, classes and function globals
    are not followed (they are code, not fitted state).
    """
    seen: set[int] = set()
    stack = [(name, None, root)]
    while stack:
        path, key, obj = stack.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        yield path, key, obj
        if isinstance(obj, (str, bytes, int, float, complex, bool, type(None))):
            continue
        if isinstance(obj, (np.generic, type)) or type(obj).__name__ == "module":
            continue
        children: list = []
        if isinstance(obj, np.ndarray):
            if obj.dtype == object:
                children = [(f"{path}[{i}]", None, v) for i, v in enumerate(obj.flat)]
        elif isinstance(obj, dict):
            for k, v in obj.items():
                kname = k if isinstance(k, str) else None
                children.append((f"{path}<key>", kname, k))
                children.append((f"{path}[{k!r}]", kname, v))
        elif isinstance(obj, (list, tuple, set, frozenset)):
            children = [(f"{path}[{i}]", None, v) for i, v in enumerate(obj)]
        elif isinstance(obj, functools.partial):
            children = [
                (f"{path}.func", "func", obj.func),
                (f"{path}.args", "args", obj.args),
                (f"{path}.keywords", "keywords", obj.keywords),
            ]
        elif callable(obj) and hasattr(obj, "__code__"):
            for i, cell in enumerate(obj.__closure__ or ()):
                try:
                    children.append((f"{path}.<cell{i}>", None, cell.cell_contents))
                except ValueError:  # empty cell
                    pass
            children.append((f"{path}.__defaults__", None, obj.__defaults__))
            children.append((f"{path}.__kwdefaults__", None, obj.__kwdefaults__))
        else:
            if hasattr(obj, "__self__") and not isinstance(obj, type):
                children.append((f"{path}.__self__", None, obj.__self__))
            if hasattr(obj, "__dict__"):
                for k, v in vars(obj).items():
                    children.append((f"{path}.{k}", k, v))
            for cls in type(obj).__mro__:
                for k in getattr(cls, "__slots__", ()):
                    if isinstance(k, str) and hasattr(obj, k):
                        children.append((f"{path}.{k}", k, getattr(obj, k)))
            if dataclasses.is_dataclass(obj):
                for f in dataclasses.fields(obj):
                    children.append((f"{path}.{f.name}", f.name, getattr(obj, f.name)))
        stack.extend(children)


class Secrets:
    """Private floats, and the matchers that look for them.

    Parameters
    ----------
    values : iterable of float
        Private values (raw scores in score and GP units, GP state, noise).
        Their negatives are added too. Values within ``1e-9`` of a public
        constant given in ``public`` are dropped: they cannot be told apart
        from it.
    tol : float
        A float within ``tol`` of a secret matches.
    """

    def __init__(self, values, public=(0.0, 1.0, -1.0), tol: float = 1e-12):
        v = np.asarray(list(values), dtype=float).ravel()
        v = v[np.isfinite(v)]
        v = np.concatenate([v, -v])
        for c in public:
            v = v[np.abs(v - c) > 1e-9]
        self.values = np.unique(v)
        self.tol = tol

    def __len__(self) -> int:
        return int(self.values.size)

    def match_float(self, x) -> bool:
        x = float(x)
        if not math.isfinite(x) or not self.values.size:
            return False
        return bool(np.min(np.abs(self.values - x)) <= self.tol)

    def match_array(self, a) -> bool:
        a = np.asarray(a, dtype=float).ravel()
        a = a[np.isfinite(a)]
        if a.size == 0 or not self.values.size:
            return False
        v = self.values
        idx = np.searchsorted(v, a)
        right = v[np.minimum(idx, v.size - 1)]
        left = v[np.maximum(idx - 1, 0)]
        near = np.minimum(np.abs(right - a), np.abs(left - a))
        return bool(np.any(near <= self.tol))

    def match_text(self, text: str, min_decimals: int) -> list[str]:
        """Numbers in ``text`` (≥ ``min_decimals`` decimals) that round a secret."""
        hits = []
        if not self.values.size:
            return hits
        for m in _NUMBER_RE.finditer(text):
            decimals = len(m.group(1))
            if decimals < min_decimals:
                continue
            try:
                x = float(m.group(0))
            except ValueError:
                continue
            exponent = re.search(r"[eE]([-+]?\d+)", m.group(0))
            scale = 10.0 ** (int(exponent.group(1)) if exponent else 0)
            tol = 0.5 * 10.0 ** (-decimals) * scale + 1e-15
            if np.min(np.abs(self.values - x)) <= tol:
                hits.append(m.group(0))
        return hits

    def match_bytes(self, blob: bytes) -> list[float]:
        """Secrets whose float64 bytes (either endianness) occur in ``blob``."""
        hits = []
        for v in self.values:
            if any(struct.pack(f, float(v)) in blob for f in ("<d", ">d")):
                hits.append(float(v))
        return hits


def public_texts(search, out: str, err: str, recwarn, caplog) -> dict:
    """Every text a fitted search shows, as {where: (text, min_decimals)}.

    Captured stdout/stderr, repr/str of the search and of its privacy
    report, warnings and log records. ``min_decimals`` is the precision
    from which a number in that text counts as a match
    (:meth:`Secrets.match_text`).
    """
    return {
        "stdout": (out, 2),
        "stderr": (err, 2),
        "repr": (repr(search), 3),
        "str": (str(search), 3),
        "report": (str(search.privacy_report_), 3),
        "report explain": (search.privacy_report_.explain(), 3),
        "report repr": (repr(search.privacy_report_), 3),
        "warnings": ("\n".join(str(w.message) for w in recwarn.list), 2),
        "logs": ("\n".join(r.getMessage() for r in caplog.records), 2),
    }
