"""The validation split: ``X_val`` given, or one label-independent ``cv`` split.

``fit`` gets its validation set either explicitly (``X_val``, ``y_val``)
or from ``cv``: exactly one (train, validation) split, never k folds
(each fold would be another release of validation data).
:func:`split_data` returns the four parts and checks their public
structure (shapes, precomputed kernels) before any row is read.

The training set is public and unprotected: it trains ``best_estimator_``
and every candidate. So which rows are training rows must not depend on
any validation record. A splitter that reads the labels (stratified
splits) or the features of the rows it splits fails this: swapping one
validation label re-partitions the data (``StratifiedShuffleSplit(
n_splits=1)``, 200 training rows: 3 to 108 training rows changed in the
configurations measured, ``docs/configurations.md``) and can move the
protected record itself into the training set.

Only splitters whose split is a function of public information are
accepted, by exact class (a subclass may override ``split``):

- an iterable ``[(train_idx, val_idx)]`` of fixed index arrays;
- :class:`~sklearn.model_selection.PredefinedSplit` (public ``test_fold``);
- :class:`~sklearn.model_selection.ShuffleSplit` (number of rows and
  ``random_state`` only);
- :class:`~sklearn.model_selection.GroupShuffleSplit` (also public
  ``groups``).

A permutation test (split with y and with a permuted y, refuse if the
split changes) was considered and rejected: it cannot prove independence
(a splitter may read the features, or react to labels in a way one
permutation does not reveal). Defence in depth: the accepted splitters are
called with a placeholder of the right number of rows instead of ``X``
and with ``y=None``, so no feature and no label can reach them.
"""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.model_selection import (
    GroupShuffleSplit,
    PredefinedSplit,
    ShuffleSplit,
    check_cv,
)
from sklearn.utils import get_tags
from sklearn.utils.validation import indexable

from .._compat import _num_samples, _safe_split

__all__ = [
    "PUBLIC_SPLITTERS",
    "check_cv_structure",
    "check_public_splitter",
    "num_rows",
    "public_split",
    "split_data",
]

PUBLIC_SPLITTERS = (PredefinedSplit, ShuffleSplit, GroupShuffleSplit)
"""Splitter classes whose split does not read ``X`` or ``y``."""

_USE_INSTEAD = (
    "DPBayesSearchCV needs exactly one (train, validation) split fixed by "
    "public information: cv=[(train_idx, val_idx)] with index arrays fixed "
    "without looking at the validation labels, PredefinedSplit(test_fold) with "
    "one fold, ShuffleSplit(n_splits=1), or GroupShuffleSplit(n_splits=1) "
    "with fit(..., groups=public_groups); or split yourself and pass X_val, "
    "y_val to fit."
)


def check_public_splitter(cv) -> None:
    """Refuse a ``cv`` splitter whose split may depend on the data (before data).

    Accepts ``None`` (``X_val``/``y_val`` given to ``fit``), iterables of
    fixed index arrays and the classes of :data:`PUBLIC_SPLITTERS`.
    """
    if cv is None or not hasattr(cv, "split"):
        return  # iterables of fixed index arrays are counted in public_split
    if type(cv) in PUBLIC_SPLITTERS:
        return
    name = type(cv).__name__
    if "Stratified" in name:
        why = (
            f"cv={name}(...) is refused: a stratified split is a function of "
            "every row's label, the validation labels included, so swapping "
            "one validation label can move other rows between the training "
            "and validation parts, and put the protected record into the "
            "public training set and best_estimator_. If the labels you "
            "stratify on are public, split yourself and pass X_val, y_val. "
        )
    else:
        why = (
            f"cv={name}(...) is refused: only the splitter classes "
            "PredefinedSplit, ShuffleSplit and GroupShuffleSplit (exact "
            "classes, not subclasses) are known not to read the labels or "
            "features of the rows they split; any other split may depend on "
            "the validation records, and the training set must not. "
        )
    raise ValueError(why + _USE_INSTEAD)


def public_split(cv, n_rows: int, groups=None) -> list[tuple[np.ndarray, ...]]:
    """The splits of ``cv`` over ``n_rows`` rows, computed without ``X`` or ``y``.

    The splitter receives a placeholder with ``n_rows`` rows, ``y=None``
    and the public ``groups``; raises ``ValueError`` with advice when a
    group splitter gets no groups.
    """
    check_public_splitter(cv)
    if type(cv) is GroupShuffleSplit and groups is None:
        raise ValueError(
            "cv=GroupShuffleSplit needs the public group of every row: call "
            "fit(X, y, groups=groups)."
        )
    splitter = check_cv(cv)  # wraps iterables; splitters pass through as-is
    placeholder = np.broadcast_to(0.0, (int(n_rows), 1))  # no memory, no data
    return [
        tuple(np.asarray(part) for part in split)
        for split in splitter.split(placeholder, None, groups)
    ]


def num_rows(X) -> int:
    """The number of rows of ``X`` (public: the shape)."""
    return int(_num_samples(X))


def check_cv_structure(cv) -> None:
    """Refuse a ``cv`` that is not exactly one public split (before data)."""
    if cv is None:
        return
    if isinstance(cv, numbers.Integral):
        raise ValueError(
            f"cv={cv!r}: DPBayesSearchCV needs exactly one (train, validation) "
            "split, not k folds: every fold would be a separate release of "
            "validation data. Pass X_val and y_val to fit, or "
            "cv=PredefinedSplit(test_fold) with one fold, or "
            "cv=[(train_idx, val_idx)]."
        )
    if hasattr(cv, "get_n_splits") and not isinstance(cv, PredefinedSplit):
        try:
            n = cv.get_n_splits()
        except (TypeError, ValueError):
            # Needs the data (e.g. LeaveOneOut): refused by class below.
            n = 1
        if n != 1:
            raise ValueError(
                f"cv gives {n} splits; DPBayesSearchCV needs exactly one "
                "(train, validation) split (each extra fold would be another "
                "release of validation data). Use e.g. ShuffleSplit("
                "n_splits=1), PredefinedSplit with one fold, or "
                "[(train_idx, val_idx)]."
            )
    check_public_splitter(cv)


def split_data(estimator, cv, X, y, X_val, y_val, groups=None, split_params=None):
    """(X_train, y_train, X_val, y_val, train indices or None), shapes checked.

    With ``X_val``/``y_val`` they are the validation set (``cv`` must be
    None); otherwise ``cv`` gives exactly one split of ``X``, ``y``
    (:func:`public_split`). With a precomputed kernel or distance matrix
    (``pairwise`` tag of ``estimator``) and ``cv``, the training block is
    X[train][:, train] and the validation block X[val][:, train]; with
    ``X_val`` the user passes the validation-vs-training matrix themselves.
    """
    if X_val is not None or y_val is not None:
        if groups is not None:
            raise ValueError(
                "groups is used only by cv's splitter to split X into training "
                "and validation rows; with X_val/y_val there is nothing to "
                "split. Drop groups, or pass cv=GroupShuffleSplit(n_splits=1) "
                "and the whole data as X, y."
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
            "DPBayesSearchCV needs a validation set: call fit(X_train, "
            "y_train, X_val=..., y_val=...), or set cv to exactly one "
            "(train, validation) split (PredefinedSplit, [(train_idx, "
            "val_idx)] or ShuffleSplit(n_splits=1))."
        )
    X, y = indexable(X, y)
    split_params = dict(split_params or {})
    if groups is not None:
        split_params["groups"] = groups
    splits = public_split(cv, num_rows(X), split_params.get("groups"))
    if not splits:
        raise ValueError(
            "No fits were performed. Was the CV iterator empty? Were there no "
            "candidates? cv gave no (train, validation) split; it needs "
            "exactly one (a one-shot iterator can be used once only: pass a "
            "list [(train_idx, val_idx)])."
        )
    if len(splits) != 1:
        raise ValueError(
            f"cv gives {len(splits)} splits; DPBayesSearchCV needs exactly one "
            "(train, validation) split. Pass X_val and y_val to fit, or use "
            "e.g. ShuffleSplit(n_splits=1), PredefinedSplit with one fold, or "
            "[(train_idx, val_idx)]."
        )
    train, val = (np.asarray(a) for a in splits[0])
    if len(val) == 0 or len(train) == 0:
        raise ValueError("The cv split has an empty training or validation part.")
    X_tr, y_tr = _safe_split(estimator, X, y, train)
    X_va, y_va = _safe_split(estimator, X, y, val, train)
    return X_tr, y_tr, X_va, y_va, train


def _check_pairwise_val(X, X_val) -> None:
    n_train = num_rows(X)
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
