"""The public structure of ``fit``'s inputs (types and shapes, never a
value), checked before any budget is spent."""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.exceptions import DataConversionWarning
from sklearn.utils import get_tags

from .._compat import _num_samples
from ._entries import _is_pandas


def _shape(A):
    """``A.shape`` as a tuple of ints, or None (a list, an unknown size)."""
    try:
        return tuple(int(s) for s in A.shape)
    except (AttributeError, TypeError, ValueError):
        return None


def _one_column(name: str, y):
    """The single column of a column-vector target (no value is read)."""
    if _is_pandas(y, "DataFrame"):
        return y.iloc[:, 0]
    if isinstance(y, np.ndarray):
        return np.asarray(y)[:, 0]  # np.matrix too; a view, no conversion
    if hasattr(y, "to_series"):  # a polars DataFrame
        return y.to_series()
    if hasattr(y, "__array_namespace__"):
        return y[:, 0]
    raise TypeError(
        f"{name} is a column vector of type {type(y).__name__} with shape "
        f"{y.shape}; pass its one column as a 1-D array, e.g. "
        f"np.ravel({name}) or {name}.iloc[:, 0]."
    )


def _target(name: str, y, n_rows: int, rows_of: str, multi_output: bool):
    """(the target, its shape per row or None), from its shape only."""
    if y is None:
        return None, None
    if _num_samples(y) != n_rows:
        raise ValueError(
            f"{rows_of} has {n_rows} rows but {name} has {_num_samples(y)}: "
            "they must match (one target per row). Nothing was read or spent."
        )
    shape = _shape(y)
    if shape is None or len(shape) == 1:
        return y, None if shape is None else ()
    if shape[1:] == (1,):
        warnings.warn(
            f"A column-vector {name} was passed when a 1d array was expected. "
            f"Please change the shape of {name} to (n_samples, ), for example "
            "using ravel().",
            DataConversionWarning,
            stacklevel=4,
        )
        return _one_column(name, y), ()
    if multi_output:
        return y, shape[1:]
    raise ValueError(
        f"{name} has shape {shape}, but the estimator takes one target per "
        "row (it does not declare multi-output support): pass a 1-D array "
        f"of shape (n_samples,). Nothing was read or spent."
    )


def check_inputs(estimator, X, y, X_val, y_val):
    """(y, y_val), column vectors made 1-D; refuses bad shapes (public only)."""
    if y is None and get_tags(estimator).target_tags.required:
        raise ValueError(
            f"{type(estimator).__name__} requires y to be passed, but the "
            "target y is None. Pass the training targets as y (and the "
            "validation targets as y_val)."
        )
    multi = bool(get_tags(estimator).target_tags.multi_output)
    y, width = _target("y", y, _num_samples(X), "X", multi)
    if X_val is None:
        return y, y_val
    y_val, val_width = _target("y_val", y_val, _num_samples(X_val), "X_val", multi)
    if None not in (width, val_width) and width != val_width:
        raise ValueError(
            f"y has target shape {width} per row but y_val has {val_width}: "
            "they must match. Nothing was read or spent."
        )
    if hasattr(X, "columns") != hasattr(X_val, "columns"):
        frame, other = ("X_val", "X") if hasattr(X_val, "columns") else ("X", "X_val")
        raise ValueError(
            f"{frame} is a DataFrame but {other} is not. If the search is the "
            "last step of a Pipeline, pass X_val through the preceding steps "
            "with Pipeline(..., transform_input=['X_val']) and metadata "
            "routing, or put the preprocessing inside the searched estimator. "
            "Otherwise give X and X_val the same kind of container. Nothing "
            "was read or spent."
        )
    return y, y_val
