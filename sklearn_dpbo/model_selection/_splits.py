"""The (train, validation) split of ``cv=``: label-independent by construction.

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

import numpy as np
from sklearn.model_selection import (
    GroupShuffleSplit,
    PredefinedSplit,
    ShuffleSplit,
    check_cv,
)

__all__ = ["PUBLIC_SPLITTERS", "check_public_splitter", "public_split"]

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
