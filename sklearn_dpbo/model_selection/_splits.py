"""The validation split: ``X_val`` given, or one label-independent ``cv`` split.

Which rows are (public) training rows must not depend on any validation
record: a splitter gets placeholders for ``X`` and ``y`` that refuse to give
any value, and the public ``groups`` (:func:`public_split`).
"""

from __future__ import annotations

import numbers

import numpy as np
import scipy.sparse as sp
from sklearn.model_selection import GroupShuffleSplit, PredefinedSplit, check_cv
from sklearn.utils import get_tags
from sklearn.utils.validation import indexable

from .._compat import _num_samples, _safe_split
from ._entries import _is_pandas

_USE_INSTEAD = (
    "DPBayesSearchCV needs exactly one (train, validation) split fixed by "
    "public information: cv=[(train_idx, val_idx)], PredefinedSplit(test_fold) "
    "with one fold, ShuffleSplit(n_splits=1), GroupShuffleSplit(n_splits=1) "
    "with fit(..., groups=public_groups); or split yourself and pass X_val, "
    "y_val to fit."
)


def several_splits_message(what: str) -> str:
    """The refusal of several splits: ``what`` says how many were given."""
    return (
        f"{what}; DPBayesSearchCV uses exactly one (train, validation) split. "
        "With several splits, a row validated in one is a training row in "
        "another, and training rows are public here (fitted without noise), so "
        "no validation record would stay protected. "
        "Pass one split instead: cv=[(train_idx, val_idx)] (e.g. one of your "
        "folds), ShuffleSplit(n_splits=1, test_size=0.2), PredefinedSplit with "
        "one fold, or X_val, y_val to fit. If every row is sensitive, leave "
        "cv=None and call fit(X, y): the whole-data mode protects every row "
        "(docs/whole_data.md)."
    )


def check_public_splitter(cv) -> None:
    """Refuse a ``cv`` splitter known to read the labels (before data)."""
    if cv is None or not hasattr(cv, "split"):
        return  # iterables of fixed index arrays are counted in public_split
    stratified = [k.__name__ for k in type(cv).__mro__ if "Stratified" in k.__name__]
    if stratified:
        raise ValueError(
            f"cv={type(cv).__name__}(...) is refused: a stratified split is a "
            "function of every row's label, so swapping one validation label "
            "can move rows into the public training set. If the labels you "
            "stratify on are public, split yourself and pass X_val, y_val. "
            + _USE_INSTEAD
        )


class _ValueRead(Exception):
    """A splitter tried to read a value of the placeholder rows."""


class _RowsOnly:
    """``X`` (or ``y``) for a splitter: ``len`` and ``shape``; a read raises."""

    def __init__(self, n_rows: int, ndim: int = 2):
        self.shape = (int(n_rows), 1)[:ndim]

    def __len__(self) -> int:
        return self.shape[0]

    def _refuse(self, *args, **kwargs):
        raise _ValueRead

    __getitem__ = __array__ = __iter__ = _refuse


def public_split(cv, n_rows: int, groups=None) -> list[tuple[np.ndarray, ...]]:
    """The splits of ``cv`` over ``n_rows`` rows, computed without ``X`` or ``y``;
    a splitter that reads a value, fails, or miscounts its splits is refused."""
    if type(cv) is GroupShuffleSplit and groups is None:
        raise ValueError(
            "cv=GroupShuffleSplit needs the public group of every row: call "
            "fit(X, y, groups=groups)."
        )
    splitter = check_cv(cv)  # wraps iterables; splitters pass through as-is
    placeholder, no_labels = _RowsOnly(n_rows), _RowsOnly(n_rows, ndim=1)
    name = type(cv).__name__
    try:
        splits = [
            tuple(np.asarray(part) for part in split)
            for split in splitter.split(placeholder, no_labels, groups)
        ]
    except _ValueRead:
        raise ValueError(
            f"cv={name}(...) is refused: it reads the features or labels of "
            "the rows it splits, but which rows are public training rows must "
            "not depend on any validation record. " + _USE_INSTEAD
        ) from None
    except Exception as exc:
        raise ValueError(
            f"cv={name}(...).split failed when given only public information "
            f"(the number of rows, the groups): {type(exc).__name__}: {exc}. "
            "A splitter that needs the labels or features is refused. " + _USE_INSTEAD
        ) from exc
    if hasattr(cv, "get_n_splits"):
        try:
            expected = cv.get_n_splits(placeholder, no_labels, groups)
        except Exception:
            expected = None  # it needs the data to count: the count is checked
        if expected is not None and expected != len(splits):
            raise ValueError(
                "cv.split and cv.get_n_splits return inconsistent results. "
                f"Expected {expected} splits, got {len(splits)}. DPBayesSearchCV "
                "needs a splitter that yields exactly the one split it announces."
            )
    return splits


def check_cpu_inputs(**inputs) -> None:
    """Refuse array-API inputs on a non-CPU device (public, like the shape)."""
    for name, value in inputs.items():
        device = getattr(value, "device", None)
        if device is None or not hasattr(value, "__array_namespace__"):
            continue
        if "cpu" not in str(device).lower():
            raise ValueError(
                f"{name} is an array on the device {device!r}; DPBayesSearchCV "
                "scores every validation record on its own with NumPy: pass the "
                "data on the CPU instead (e.g. X.cpu(), or xp.asarray(X, "
                "device=<the cpu device>))."
            )


def check_cv_structure(cv) -> None:
    """Refuse a ``cv`` that is not exactly one public split (before data)."""
    if cv is None:
        return
    if isinstance(cv, numbers.Integral):
        if cv == 1:
            raise ValueError(
                "cv=1 is not one split: an int is a number of KFold folds. For "
                "one (train, validation) split pass cv=ShuffleSplit(n_splits=1, "
                "test_size=0.2, random_state=0) or [(train_idx, val_idx)], or "
                "X_val, y_val to fit; or leave cv=None and call fit(X, y) to "
                "protect every row (the whole-data mode)."
            )
        raise ValueError(several_splits_message(f"cv={cv!r} asks for {cv} folds"))
    if isinstance(cv, (list, tuple)) and len(cv) != 1:
        raise ValueError(several_splits_message(f"cv gives {len(cv)} splits"))
    if hasattr(cv, "get_n_splits") and not isinstance(cv, PredefinedSplit):
        try:
            n = cv.get_n_splits()
        except (TypeError, ValueError):
            n = 1  # needs the data to count (e.g. LeaveOneOut): counted later
        if n != 1:
            raise ValueError(several_splits_message(f"cv gives {n} splits"))
    check_public_splitter(cv)


def split_data(estimator, cv, X, y, X_val, y_val, groups=None, split_params=None):
    """(X_train, y_train, X_val, y_val, train indices or None), shapes checked."""
    if X_val is not None or y_val is not None:
        if groups is not None:
            raise ValueError(
                "groups is used only by cv's splitter; with X_val/y_val there "
                "is nothing to split. Drop groups, or pass "
                "cv=GroupShuffleSplit(n_splits=1) and the whole data as X, y."
            )
        if cv is not None:
            raise ValueError(
                "Pass either X_val/y_val to fit or cv, not both: both define "
                "the validation set."
            )
        if X_val is None or (y is not None and y_val is None):
            raise ValueError("Pass both X_val and y_val (or neither).")
        X, y = indexable(X, y)
        X_val, y_val = indexable(X_val, y_val)
        if get_tags(estimator).input_tags.pairwise:
            _check_pairwise_val(X, X_val)
        elif hasattr(X, "shape") and hasattr(X_val, "shape"):
            if len(X.shape) > 1 and X.shape[1:] != X_val.shape[1:]:
                raise ValueError(
                    f"X has {X.shape[1:]} features per row but X_val has "
                    f"{X_val.shape[1:]}; they must match."
                )
        return X, y, X_val, y_val, None
    if cv is None:
        raise ValueError(
            "This method needs a validation set: call fit(X_train, y_train, "
            "X_val=..., y_val=...), or set cv to exactly one (train, "
            "validation) split. To protect every row of X, y with no "
            "validation set, use method='whole-data'."
        )
    X, y = indexable(X, y)
    split_params = dict(split_params or {})
    if groups is not None:
        split_params["groups"] = groups
    splits = public_split(cv, _num_samples(X), split_params.get("groups"))
    if not splits:
        raise ValueError(
            "No fits were performed. Was the CV iterator empty? Were there no "
            "candidates? cv gave no (train, validation) split; it needs "
            "exactly one (a one-shot iterator can be used once only: pass a "
            "list [(train_idx, val_idx)])."
        )
    if len(splits) != 1:
        raise ValueError(several_splits_message(f"cv gives {len(splits)} splits"))
    train, val = _row_indices(splits[0], _num_samples(X))
    X_tr, y_tr = _safe_split(estimator, X, y, train)
    X_va, y_va = _safe_split(estimator, X, y, val, train)
    # The validation part is left as given, like X_val: each of its records
    # is mapped alone into the training part's schema (privacy/_records.py).
    return own_types(X_tr), own_types(y_tr), X_va, y_va, train


def own_types(a):
    """A container of a ``cv=`` training part with what validation rows decided
    about its types undone, its values unchanged: a pandas object column
    re-inferred from the training rows (one validation string made a number
    column object), a categorical's unused categories dropped (a
    validation-only category), an object NumPy array of numbers rebuilt as
    numbers, a complex one with no imaginary part real."""
    if _is_pandas(a, "DataFrame"):
        a = a.copy()
        for i in range(a.shape[1]):
            a.isetitem(i, own_types(a.iloc[:, i]))
        return a
    if _is_pandas(a, "Series"):
        if a.dtype.name == "category":
            a = a.cat.remove_unused_categories()
            cats = a.cat.categories
            return a.cat.rename_categories(np.asarray(own_types(cats.to_series())))
        if a.dtype == object:  # kept only as numbers, booleans or times
            b = a.infer_objects()
            if b.dtype.kind not in "biufcmM":
                b = a.convert_dtypes()  # pd.NA among numbers: nullable numbers
            return b if b.dtype.kind in "biufcmM" else a
        if a.dtype.kind == "c" and not np.any(a.to_numpy().imag):
            return type(a)(a.to_numpy().real, index=a.index, name=a.name)
        return a
    if isinstance(a, np.ndarray) and a.dtype == object:
        try:
            b = np.array(a.tolist())
        except Exception:  # noqa: BLE001 - entries NumPy cannot hold together
            return a
        return b if b.shape == a.shape and b.dtype.kind in "biuf" else a
    if (isinstance(a, np.ndarray) or sp.issparse(a)) and a.dtype.kind == "c":
        imag = a.data.imag if sp.issparse(a) else a.imag
        return a if np.any(imag) else a.real.copy()
    return a


def _row_indices(split, n_rows: int) -> tuple[np.ndarray, np.ndarray]:
    """The split's (train, val) as row numbers; public: from ``cv`` and ``n``."""
    try:
        train, val = (np.arange(n_rows)[np.asarray(a)] for a in split)
    except (IndexError, TypeError, ValueError) as exc:
        raise ValueError(
            f"The cv split is not two arrays of row indices (or boolean masks) "
            f"into the {n_rows} rows of X: {exc}."
        ) from exc
    if len(val) == 0 or len(train) == 0:
        raise ValueError("The cv split has an empty training or validation part.")
    for name, part in (("validation", val), ("training", train)):
        if len(np.unique(part)) != len(part):
            raise ValueError(
                f"The cv split repeats a row in its {name} part. A repeated "
                "validation row would move the private score by as many "
                "records as it appears (the noise covers one), a repeated "
                "training row would weight its fit. Give each row once: "
                "cv=[(np.unique(train_idx), np.unique(val_idx))]."
            )
    if np.intersect1d(train, val).size:
        raise ValueError(
            "The cv split has rows in both its training and validation parts. "
            "Training rows are public (fitted without noise, released in "
            "best_estimator_), so such a validation row would not be "
            "protected. Make the parts disjoint: cv=[(np.setdiff1d(train_idx, "
            "val_idx), val_idx)]."
        )
    return train, val


def _check_pairwise_val(X, X_val) -> None:
    n_train = _num_samples(X)
    shape_X, shape_val = getattr(X, "shape", None), getattr(X_val, "shape", None)
    if shape_X is not None and len(shape_X) == 2 and shape_X[1] != n_train:
        raise ValueError(
            "Precomputed matrix must be a square matrix: X is the "
            f"training-vs-training kernel (or distances), got shape {shape_X}."
        )
    if shape_val is not None and len(shape_val) == 2 and shape_val[1] != n_train:
        raise ValueError(
            "With a precomputed kernel (or distance matrix), X_val is the "
            "validation-vs-training matrix of shape (n_validation, "
            f"n_train={n_train}); got shape {shape_val}."
        )
