"""Validation records, each mapped on its own into a public schema.

``np.asarray`` of a list infers one dtype for all records (one label typed
``"1"`` makes every label a string) and pandas a column's dtype and
categories from the whole column: one record could decide how others are
scored. So the schema (classes, the training frame's columns and dtypes,
the training array's dtype and row shape) is read from the public training
data and each validation record is mapped into it alone; one that does not
map (its conversion raises anything but ``KeyboardInterrupt``) scores
``low``. A label matches a class equal to it, else the class with the same
:func:`~._numbers.label_key` when no other class shares that key.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any, Optional

import numpy as np

from .._compat import _num_samples, _safe_indexing
from ._numbers import label_key, number, number_or_nan


def _is_frame(X) -> bool:
    return hasattr(X, "columns") and hasattr(X, "iloc") and hasattr(X, "dtypes")


def _elements(a) -> list:
    """The records of ``a`` as a Python list; no dtype inferred over the batch."""
    if isinstance(a, (list, tuple, np.ndarray)):
        return list(a)  # an array's rows (numpy scalars or arrays), dtype kept
    if hasattr(a, "iloc") and hasattr(a, "tolist") and getattr(a, "ndim", 0) == 1:
        return a.tolist()  # a pandas Series: its values, one by one
    if hasattr(a, "iloc") and hasattr(a, "to_numpy"):
        return list(a.to_numpy(dtype=object))  # a pandas DataFrame: rows
    return list(np.asarray(a, dtype=object))


def _lookup(classes: np.ndarray) -> dict:
    """Class (or category) → its position, read by :func:`_find`: each class
    by its value, then by its :func:`label_key` unless two classes share it
    (``"01"`` and ``"1"`` are both 1: a label 1 matches neither)."""
    exact, alias, shared = {}, {}, set()
    for k, c in enumerate(classes.tolist()):
        try:
            exact.setdefault(c, k)
            key = label_key(c)
            if alias.setdefault(key, k) != k:
                shared.add(key)
        except TypeError:  # unhashable class: never matched
            pass
    return {**{a: k for a, k in alias.items() if a not in shared}, **exact}


def _find(table: dict, v) -> int:
    """The position of the class ``v`` matches (:func:`_lookup`), else KeyError."""
    k = table.get(v)
    return table[label_key(v)] if k is None else k


def _failed(exc: BaseException) -> None:
    """A record's conversion raised: its failure, unless ``KeyboardInterrupt``."""
    if isinstance(exc, KeyboardInterrupt):
        raise exc


def _or(fallback, func, *args):
    """``func(*args)``, or ``fallback`` if it raises (this record only)."""
    try:
        return func(*args)
    except BaseException as exc:  # noqa: BLE001 - a raising __hash__/__eq__ too
        _failed(exc)
        return fallback


@dataclass(frozen=True)
class RecordSchema:
    """What a validation record may look like, read from public data only.

    ``classes``: per output, the training classes (``None`` for numbers);
    ``n_outputs``: target columns (0 for ``y=None``); ``frame``: a training
    DataFrame's ``(columns, dtypes)``; ``row_dtype``, ``row_shape``: those
    of ``np.asarray`` of the training inputs; ``values``: per object column,
    the training values an object entry matches (:func:`_typed`).
    """

    classes: Optional[tuple] = None
    n_outputs: int = 1
    frame: Optional[tuple] = None
    row_dtype: Any = None
    row_shape: Optional[tuple] = None
    values: Optional[list] = None  # per column: the training values' table

    @classmethod
    def from_training(cls, X_train, y_train, *, classes: bool) -> RecordSchema:
        """The schema of the public training set (``classes``: labels, not numbers)."""
        n_outputs, labels = 0, None
        if y_train is not None:
            y = np.asarray(y_train)
            n_outputs = 1 if y.ndim == 1 else int(np.prod(y.shape[1:]))
            if classes:
                cols = [y] if y.ndim == 1 else [y[:, j] for j in range(y.shape[1])]
                try:
                    labels = tuple(np.unique(c) for c in cols)
                except TypeError as exc:  # public data only
                    raise ValueError(
                        "The training labels mix types that cannot be ordered "
                        f"({exc}). Validation labels are matched to the training "
                        "classes by value: give the training labels one type "
                        "(e.g. all int or all str)."
                    ) from exc
        frame = row_dtype = row_shape = values = None
        if _is_frame(X_train):
            frame = (list(X_train.columns), list(X_train.dtypes))
            values = [
                _column_values(X_train.iloc[:, j]) if t.kind == "O" else None
                for j, t in enumerate(frame[1])
            ]
        elif not hasattr(X_train, "toarray"):  # sparse: kept as given
            try:
                arr = np.asarray(X_train)
                row_dtype, row_shape = arr.dtype, arr.shape[1:]
            except Exception:  # ragged public rows: kept as given
                pass
            if row_dtype is not None and row_dtype.kind == "O" and len(row_shape) == 1:
                values = [_column_values(arr[:, j]) for j in range(row_shape[0])]
        return cls(labels, n_outputs, frame, row_dtype, row_shape, values)

    @classmethod
    def from_estimator(cls, estimator, y, *, classes: bool) -> RecordSchema:
        """The schema read from a fitted model's ``classes_``."""
        labels = None
        n_outputs = 0 if y is None else (1 if np.ndim(y) <= 1 else np.shape(y)[1])
        if classes and y is not None and hasattr(estimator, "classes_"):
            found = estimator.classes_  # a list for multi-output
            found = found if isinstance(found, list) else [found]
            labels = tuple(np.asarray(c) for c in found)
        return cls(classes=labels, n_outputs=n_outputs)

    def check_columns(self, X_val) -> None:
        """Refuse validation frames whose columns differ from the training set's."""
        if self.frame is None or not _is_frame(X_val):
            return
        if list(X_val.columns) != list(self.frame[0]):
            raise ValueError(
                "X_val's columns differ from the training set's: each "
                "validation record is mapped into the training set's columns "
                "and dtypes. Give X_val the same columns in the same order."
            )

    def map(self, X, y) -> Records:
        """Map every validation record into this schema, one record at a time."""
        m = _num_samples(X)
        ok = np.ones(m, dtype=bool)
        X_mapped = self._map_X(X, ok)
        y_mapped = None if y is None else self._map_y(y, m, ok)
        return Records(X=X_mapped, y=y_mapped, ok=ok)

    def _map_y(self, y, m: int, ok: np.ndarray) -> np.ndarray:
        values = _elements(y)
        if len(values) != m:
            raise ValueError("X_val and y_val have different numbers of rows.")
        multi = self.n_outputs > 1 or (
            self.classes is not None and len(self.classes) > 1
        )
        if self.classes is not None:
            tables = [_lookup(c) for c in self.classes]
            codes = np.zeros((m, len(tables)), dtype=np.intp)
            if (
                not multi
                and type(y) is np.ndarray
                and y.ndim == 1
                and y.dtype.kind in "iu"
            ):
                # Each record is its .item(), a Python int, its own label_key:
                # found in the table or not (this record only).
                table, col = tables[0], codes[:, 0]
                for i, key in enumerate(y.tolist()):
                    k = table.get(key)
                    if k is None:
                        ok[i] = False
                    else:
                        col[i] = k
                return self.classes[0][col]
            for i, v in enumerate(values):
                parts = _parts(v, len(tables)) if multi else [v]
                if parts is None:
                    ok[i] = False
                    continue
                for j, (table, part) in enumerate(zip(tables, parts)):
                    try:
                        codes[i, j] = _find(table, part)
                    except BaseException as exc:  # noqa: BLE001 - KeyError too
                        _failed(exc)
                        ok[i] = False
            cols = [c[codes[:, j]] for j, c in enumerate(self.classes)]
            return np.column_stack(cols) if multi else cols[0]
        width = max(self.n_outputs, 1)
        if not multi and type(y) is np.ndarray and y.ndim == 1:
            if y.dtype.kind in "iu" or y.dtype.char in "efd":
                return y.astype(float)  # each record's number(v): float(v), cast
        out = np.zeros((m, width) if multi else m, dtype=float)
        for i, v in enumerate(values):
            try:
                if multi:
                    row = _row(v, float)
                    if row.shape != (width,):
                        raise ValueError
                    out[i] = row
                else:
                    out[i] = number(v)
            except BaseException as exc:  # noqa: BLE001 - this record only
                _failed(exc)
                ok[i] = False
        return out

    def _map_X(self, X, ok: np.ndarray):
        if _is_frame(X) and self.frame is not None:
            return _cast_frame(X, *self.frame, self.values)
        numeric = self.row_dtype is not None and self.row_dtype.kind in "biuf"
        if isinstance(X, np.ndarray) and X.dtype != object:
            if (X.dtype.kind in "biuf") if numeric else (X.dtype.kind not in "US"):
                return X  # numbers for a numeric training set (or no strings): as given
            # A dtype one entry may have given the batch: read entry by entry.
        elif not isinstance(X, (list, tuple, np.ndarray)) and not (
            numeric and _is_frame(X)
        ):
            return X  # typed containers (sparse, …): values as given
        if self.row_dtype is None:
            return X
        rows = _elements(X)
        tables = self.values or itertools.repeat(None)  # per entry of a row
        dtype = self.row_dtype if self.row_dtype.kind in "biufc" else object
        out = np.empty((len(rows), *self.row_shape), dtype=dtype)
        for i, row in enumerate(rows):
            try:
                if numeric:
                    value = _row(row, dtype)
                else:
                    value = np.empty(np.shape(row), dtype=object)
                    flat = np.asarray(row, dtype=object).reshape(-1)
                    value.reshape(-1)[:] = list(map(_typed, flat, tables))
                    value = np.asarray(value, dtype=dtype)
                if value.shape != self.row_shape:
                    raise ValueError
                out[i] = value
            except BaseException as exc:  # noqa: BLE001 - this record only
                _failed(exc)
                ok[i] = False
                out[i] = 0 if dtype is not object else None
        return out


def _row(row, dtype) -> np.ndarray:
    """One record's row as numbers, entry by entry (integers exactly); for an
    integer training dtype a non-integral entry fails the record (no cast
    truncates 2.5 to 2)."""
    a = np.asarray(row)
    integer = np.dtype(dtype).kind in "iu"
    if a.dtype.kind in "biuf":
        if integer and a.dtype.kind == "f" and not np.all(np.mod(a, 1) == 0):
            raise ValueError("a non-integral entry for an integer training dtype")
        return np.asarray(a, dtype=dtype)

    def entry(v):  # an integer exactly, above 2**53 too
        key = label_key(v) if integer else None
        if isinstance(key, int) and not isinstance(key, bool):
            return key
        x = number(v)
        if integer and not float(x).is_integer():
            raise ValueError("a non-integral entry for an integer training dtype")
        return x

    flat = [entry(v) for v in np.asarray(a, dtype=object).reshape(-1)]
    return np.asarray(flat, dtype=dtype).reshape(a.shape)


def _parts(v, n: int):
    """The n outputs of one multi-output record, or None."""
    parts = _or(None, lambda: list(v.tolist() if isinstance(v, np.ndarray) else v))
    return parts if parts is not None and len(parts) == n else None


def _cast_frame(X, columns: list, dtypes: list, tables: list):
    """Each column cast element by element to the training frame's dtype
    (the training categories; a value that does not convert is missing), on
    a fresh 0..m-1 index (a private row label must not travel: scoring
    never reads it)."""
    import pandas as pd

    index, data = pd.RangeIndex(len(X)), {}
    for name, dtype, table in zip(columns, dtypes, tables):
        col = X[name].astype(object)
        if isinstance(dtype, pd.CategoricalDtype):
            cats = np.asarray(dtype.categories, dtype=object)
            table = (_lookup(cats), cats)
            values = [_matched(v, table) for v in col.tolist()]
            data[name] = pd.Series(values, index=index, dtype=object).astype(dtype)
        elif dtype.kind in "biuf":
            values = [number_or_nan(v) for v in col.tolist()]
            data[name] = pd.Series(values, index=index, dtype=float)
        else:  # objects: the training value each matches (_typed)
            typed = [_typed(v, table) for v in col.tolist()]
            data[name] = pd.Series(typed, index=index, dtype=object)
    return pd.DataFrame(data, index=index, columns=columns)


def _column_values(col) -> Optional[tuple]:
    """(table, values) of one public training column's distinct values for
    :func:`_typed`, or None when they are not hashable."""
    try:
        seen = list(dict.fromkeys(np.asarray(col, dtype=object).tolist()))
    except TypeError:
        return None
    vals = np.empty(len(seen), dtype=object)
    vals[:] = seen
    return _lookup(vals), vals


def _matched(v, table: tuple):
    """The training value (or category) ``v`` matches in ``(lookup, values)``
    (:func:`_find`: its own value, else an alias no two share), else None."""
    k = _or(None, _find, table[0], v)
    return None if k is None else table[1][k]


def _typed(v, table: Optional[tuple]):
    """An object entry as the training value it matches, else canonical: a
    training "02134" stays "02134", a validation "1" meets a training 1."""
    m = None if table is None else _matched(v, table)
    return _canonical(v) if m is None else m


def _canonical(v):
    """One object entry typed from itself; a whole float as an int (pandas 1.0)."""
    key = _or(None, label_key, v)
    if isinstance(key, float) and key.is_integer() and abs(key) <= 2.0**53:
        return int(key)
    return key


def _pickled(value) -> Optional[bytes]:
    """One record's value pickled alone, or ``None`` if it cannot be."""
    import pickle  # stricter than cloudpickle: what any backend can send

    return _or(None, pickle.dumps, value, pickle.HIGHEST_PROTOCOL)


def _object_part(X):
    """The object records of ``X`` as ``(rows, columns)``: an object array's
    rows, a list's items, a frame's object columns (``None``: numbers only)."""
    if _is_frame(X):
        cols = [i for i, t in enumerate(X.dtypes) if t == np.dtype("O")]
        rows = [tuple(r) for r in X.iloc[:, cols].to_numpy(dtype=object)]
        return (rows, cols) if cols else None
    if isinstance(X, np.ndarray) and X.dtype == object:  # each row's entries
        return [tuple(r) for r in _flat(X).tolist()], None
    if type(X) is list:
        return X, None
    return None


def _flat(X: np.ndarray) -> np.ndarray:
    """``X`` as rows of entries, shape ``(m, entries per row)``."""
    return X.reshape(len(X), int(np.prod(X.shape[1:])))


def _emptied(X, cols, rows):
    """A copy of ``X`` with the object records ``rows`` set to ``None``."""
    if type(X) is list:
        X = list(X)
        for i in np.arange(len(X))[rows].tolist():
            X[i] = None
        return X
    X = X.copy()
    if _is_frame(X):  # by position: index labels may repeat
        X.iloc[rows, cols] = None
    else:
        X[rows] = None
    return X


@dataclass
class Records:
    """Validation records mapped into a public schema (``ok[i]``: record i mapped).

    After :meth:`picklable`, each object record travels to a worker pickled
    alone and is unpickled there alone (:meth:`__setstate__`).
    """

    X: Any
    y: Optional[np.ndarray]
    ok: np.ndarray
    sent: Optional[tuple] = field(default=None, repr=False, compare=False)

    def __len__(self) -> int:
        return len(self.ok)

    def picklable(self) -> Records:
        """These records, each object one pickled alone (one that cannot be is
        replaced and failed alone: it cannot fail the block sent to a worker)."""
        part = _object_part(self.X)
        if part is None:
            return self
        rows, cols = part
        blobs = [_pickled(v) for v in rows]
        bad = np.array([b is None for b in blobs], dtype=bool)
        X, shell = self.X, _emptied(self.X, cols, slice(None))
        if bad.any():
            X = _emptied(X, cols, np.flatnonzero(bad))
        return Records(X, self.y, self.ok & ~bad, sent=(shell, cols, blobs))

    def __getstate__(self) -> dict:
        if self.sent is None:
            return vars(self)
        return {**vars(self), "X": None}  # the blobs and their shell only

    def __setstate__(self, state: dict) -> None:
        vars(self).update(state)
        if self.sent is not None:
            self.ok = np.array(self.ok, dtype=bool)  # writable (joblib may memmap)
            self.X, self.sent = _unpickled(*self.sent, self.ok), None

    def take(self, idx) -> Records:
        """The records ``idx`` (e.g. one owner's rows)."""
        idx = np.asarray(idx, dtype=np.intp)
        sent = self.sent
        if sent is not None:
            shell, cols, blobs = sent
            sent = (_take(shell, idx), cols, [blobs[i] for i in idx.tolist()])
        X, y = _take(self.X, idx), _take(self.y, idx)
        return Records(X=X, y=y, ok=self.ok[idx], sent=sent)


def _take(a, idx):
    """Rows ``idx`` of ``a`` (``None`` stays ``None``); ndarrays indexed directly."""
    if a is None:
        return None
    if type(a) is np.ndarray:
        return a[np.asarray(idx, dtype=np.intp)]
    return _safe_indexing(a, idx)


def _unpickled(shell, cols, blobs: list, ok: np.ndarray):
    """In the worker: each record unpickled alone, silently; one that does not
    unpickle (it raises anything but ``KeyboardInterrupt``) is failed alone."""
    import pickle

    from ._silence import quiet

    if type(shell) is list:
        flat = shell = list(shell)
    elif cols is None:
        shell = np.ascontiguousarray(shell)
        flat = _flat(shell)  # a view: each row's entries
    else:
        flat = np.empty((len(blobs), len(cols)), dtype=object)
    with quiet():
        for i, blob in enumerate(blobs):
            try:
                value = pickle.loads(blob)
                if type(shell) is list:
                    flat[i] = value
                    continue
                value = tuple(value)
                if len(value) != flat.shape[1]:
                    raise ValueError
                for k, v in enumerate(value):
                    flat[i, k] = v
            except BaseException as exc:  # noqa: BLE001 - this record only
                _failed(exc)
                ok[i] = False
        if cols is not None:
            shell.iloc[:, cols] = flat
    return shell
