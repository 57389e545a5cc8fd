"""Reading the private rows of the private-model mode, entry by entry:
nothing about the batch as a whole may decide how a record is read."""

from __future__ import annotations

import numbers
import sys
from typing import Any

import numpy as np

from ..privacy._numbers import label_key, number_or_nan

_EXACT_LABELS = 2.0**53  # below it, numbers compare equal as float64 iff equal


def _textual(classes) -> bool:
    """Whether some class is a label that is no number (``"yes"``): public."""
    return any(isinstance(label_key(c), (str, bytes)) for c in classes)


def check_label_classes(estimator: Any, where: str = "the estimator") -> None:
    """Refuse numeric ``classes`` that a float64 label cannot equal exactly
    (|c| < 2**53 and exact in float64 is needed; public: parameters only)."""
    classes = estimator.get_params().get("classes", None)
    if classes is None or _textual(classes):
        return

    def exact(c) -> bool:
        if isinstance(c, str) or not isinstance(c, numbers.Real):
            return False
        try:
            f = float(c)
        except (TypeError, ValueError, OverflowError):
            return False
        return bool(f == c) and abs(f) < _EXACT_LABELS

    if not all(exact(c) for c in classes):
        raise ValueError(
            f"method='private-model': {where} has classes={classes!r}, but "
            "this mode reads every numeric label as a float64 on its own: "
            "numeric classes must hold numbers that float64 holds exactly "
            "(|c| < 2**53), e.g. classes=(0, 1), or be strings, e.g. "
            "classes=('no', 'yes')."
        )


def read_labels(y, classes) -> np.ndarray:
    """The labels, label by label: :func:`float_entries`, or each matched
    to a textual class on its own (else a public sentinel that is no class)."""
    if classes is None or not _textual(classes):
        return float_entries(y)
    outside = "<label outside classes>"
    while outside in classes:
        outside += "_"
    keys = [label_key(c) for c in classes]
    values = y.to_numpy(dtype=object) if _is_pandas(y, "Series") else y

    def one(v):
        try:
            k = label_key(v)
            return next((c for c, key in zip(classes, keys) if key == k), outside)
        except Exception:  # noqa: BLE001 - this label's own failure: no class
            return outside

    return np.array([one(v) for v in np.asarray(values, dtype=object)], dtype=object)


def _is_pandas(A, name: str) -> bool:
    """Whether A is a pandas ``name`` (a subclass too); from its type only."""
    pd = sys.modules.get("pandas")  # not imported: A is no pandas object
    return pd is not None and isinstance(A, getattr(pd, name))


def check_containers(X, y) -> None:
    """Refuse, from the containers' types and shapes alone, what cannot be
    read: X a 2-D array or DataFrame, y a 1-D array or Series, any dtype."""
    from scipy import sparse

    for name, A in (("X", X), ("y", y)):
        if A is None:
            continue
        if sparse.issparse(A):
            raise TypeError(
                f"method='private-model' does not take a sparse {name} "
                f"({type(A).__name__}): pass a dense array, e.g. "
                f"{name}.toarray(), chosen without looking at the data."
            )
        frame = "DataFrame" if name == "X" else "Series"
        # A DataFrame y is refused below from its shape, with the fix.
        if not (
            isinstance(A, np.ndarray)
            or _is_pandas(A, frame)
            or _is_pandas(A, "DataFrame")
        ):
            raise TypeError(
                f"method='private-model' needs {name} as a NumPy array or a "
                f"pandas {frame}; got "
                f"{type(A).__name__}. Converting it would be one conversion of "
                "the whole batch (one mistyped entry could change how every row "
                "is read): convert it yourself into a numeric NumPy array, e.g. "
                f"np.asarray({name}, dtype=float)."
            )
        ndim = len(A.shape)
        if name == "X" and ndim != 2:
            raise ValueError(
                "method='private-model' needs X of shape (n_samples, "
                f"n_features); got shape {A.shape}. Reshape it publicly, e.g. "
                "X.reshape(len(X), -1)."
            )
        if name == "y" and ndim != 1:
            raise ValueError(
                "method='private-model' needs y of shape (n_samples,); got "
                f"shape {A.shape}. Pass y.ravel() (np.asarray(y).ravel() for a "
                "matrix or a one-column DataFrame); one target per row only."
            )


def _array_entries(A) -> np.ndarray:
    A = np.asarray(A)
    if A.dtype.kind in "biuf":
        # Vectorised: the same value as float(v) for every entry.
        with np.errstate(all="ignore"):
            return np.asarray(A, dtype=np.float64)
    flat = np.asarray(A, dtype=object).reshape(-1)
    out = np.fromiter(map(number_or_nan, flat), dtype=np.float64, count=flat.size)
    return out.reshape(A.shape)


def _series_entries(col) -> np.ndarray:
    dtype = col.dtype
    if isinstance(dtype, np.dtype) and dtype.kind in "biuf":
        return _array_entries(col.to_numpy())
    return _array_entries(col.to_numpy(dtype=object))  # pd.NA stays an entry


def float_entries(A) -> np.ndarray:
    """A checked container as float64, each entry on its own (NaN when no
    number; never raises); NumPy-numeric columns at once, to the same values."""
    if A is None:
        return None
    if _is_pandas(A, "DataFrame"):
        cols = [_series_entries(col) for _, col in A.items()]
        if not cols:
            return np.empty((A.shape[0], 0))
        return np.column_stack(cols)
    if _is_pandas(A, "Series"):
        return _series_entries(A)
    return _array_entries(A)
