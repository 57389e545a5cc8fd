"""How a whole-data part's rows reach the estimator: typed from the part alone.

A container's dtypes and categories come from every row, so each part is
retyped from its own values (``docs/whole_data.md``, step 3): whole numbers
of magnitude ≤ 2⁵³ int64, other numbers float64, object columns re-inferred,
categoricals, sparse columns and indexes rebuilt from the part, times in
microseconds (nanoseconds where the part holds a finer value); a numeric
NumPy or SciPy sparse ``X`` float64.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ...privacy._numbers import number

_WHOLE = 2.0**53  # integers of larger magnitude are not all floats


def _numeric_kind(dtype) -> str | None:
    """ "numpy" or "masked" for a numeric dtype (bools included), else None."""
    if isinstance(dtype, np.dtype):
        return "numpy" if dtype.kind in "biufc" else None
    if str(dtype).startswith(("Int", "UInt", "Float")):  # pandas nullable
        return "masked"
    return None


def _all_whole(a: np.ndarray) -> bool:
    return bool(np.all(np.isfinite(a) & (np.abs(a) <= _WHOLE) & (a == np.round(a))))


def _canonical_numeric(values, dtype):
    """Numeric values of a part, typed from themselves (module docstring)."""
    if isinstance(dtype, np.dtype):
        a = np.asarray(values)
        if a.dtype.kind == "c":
            if np.any(a.imag != 0):
                return a  # a complex value: this part's own
            a = a.real
        a = np.asarray(a, dtype=float)
        return a.astype(np.int64) if _all_whole(a) else a
    import pandas as pd

    a = pd.array(values, dtype="Float64")
    present = a[~a.isna()].to_numpy(dtype=float)
    return a.astype("Int64") if _all_whole(present) else a


def _parsed_strings(a: np.ndarray):
    """A NumPy array of strings as numbers if every entry is one, else None."""
    try:
        flat = [number(v) for v in a.reshape(-1).tolist()]
    except Exception:  # noqa: BLE001 - an entry of this part that is no number
        return None
    values = np.asarray(flat, dtype=float).reshape(a.shape)
    return _canonical_numeric(values, np.dtype(float))


def _time_unit(a):
    """Datetimes or timedeltas (a NumPy array, a pandas Series or Index) in
    microseconds, or in nanoseconds when one of the part's own values is
    finer: the unit comes from the part, never from the batch."""
    if isinstance(a, np.ndarray):
        kind = a.dtype.kind
        us = a.astype(f"{kind}8[us]")
        return us if np.all((us == a) | np.isnat(a)) else a.astype(f"{kind}8[ns]")
    import pandas as pd

    if not hasattr(a.array, "as_unit"):  # pandas < 2: nanoseconds only
        return a
    us = a.array.as_unit("us")
    if not np.all((us == a.array) | a.array.isna()):
        return a  # nanoseconds, finer than pandas holds
    if isinstance(a, pd.Index):
        return pd.Index(us, name=a.name)
    return pd.Series(us, index=a.index, name=a.name)


def _retyped_column(col):
    """One pandas column (or Series ``y``) of a part, typed from its values."""
    import pandas as pd

    if isinstance(col.dtype, pd.SparseDtype):  # rebuilt as the part's values
        dense = _retyped_column(col.sparse.to_dense())
        fill = 0 if _numeric_kind(dense.dtype) else None  # NaN stays stored
        values = pd.arrays.SparseArray(dense.to_numpy(), fill_value=fill)
        return pd.Series(values, index=col.index, name=col.name)
    if isinstance(col.dtype, pd.CategoricalDtype):
        if col.cat.ordered:  # the user's order: kept, minus unused categories
            col = col.cat.remove_unused_categories()
            cats = _retyped_labels(col.cat.categories)
            return pd.Series(
                col.cat.rename_categories(list(cats)).array,
                index=col.index,
                name=col.name,
            )
        values = _retyped_column(pd.Series(col.astype(object).to_numpy()))
        values.index = col.index
        return values.astype("category").rename(col.name)
    col = col.infer_objects()
    if col.dtype.kind in "mM":
        return _time_unit(col)
    if _numeric_kind(col.dtype):
        values = _canonical_numeric(col.to_numpy(), col.dtype)
        col = pd.Series(values, index=col.index, name=col.name)
    return col


def _retyped_index(obj):
    import pandas as pd

    if not isinstance(obj.index, pd.MultiIndex):  # a MultiIndex: left as it is
        obj.index = _retyped_labels(obj.index)
    return obj


def _retyped_labels(index):
    """An index (or a categorical's categories) typed from its own labels."""
    import pandas as pd

    labels = pd.Index(index.tolist(), name=index.name)
    if labels.dtype.kind in "mM":
        return _time_unit(labels)
    if _numeric_kind(labels.dtype):
        values = _canonical_numeric(labels.to_numpy(), labels.dtype)
        return pd.Index(values, name=index.name)
    return labels


def part_view(X):
    """The part's ``X`` as the estimator gets it (module docstring)."""
    if hasattr(X, "iloc") and hasattr(X, "dtypes") and hasattr(X, "columns"):
        X = X.copy()
        for i in range(X.shape[1]):
            X.isetitem(i, _retyped_column(X.iloc[:, i]))
        return _retyped_index(X)
    if isinstance(X, np.ndarray) and X.dtype.kind in "US":
        parsed = _parsed_strings(X)
        return X if parsed is None else np.asarray(parsed, dtype=np.float64)
    if isinstance(X, np.ndarray) and X.dtype.kind in "biuf":
        return X.astype(np.float64)
    if isinstance(X, np.ndarray) and X.dtype.kind == "c" and not np.any(X.imag):
        return X.real.astype(np.float64)  # one complex entry made all complex
    if isinstance(X, np.ndarray) and X.dtype.kind in "mM":
        return _time_unit(X)
    if sp.issparse(X) and X.dtype.kind in "biufc":  # its stored values: the part's
        if X.dtype.kind == "c" and np.any(X.data.imag):
            return X  # a complex value: this part's own
        return (X.real if X.dtype.kind == "c" else X).astype(np.float64)
    return X


def part_fit_param(v):
    """A sample-aligned fit parameter's part, typed like ``X`` (a Series keeps
    its index): numeric or boolean values float64."""
    if hasattr(v, "iloc") and not hasattr(v, "columns"):
        return type(v)(part_view(v.to_numpy()), index=v.index, name=v.name)
    return part_view(v)


def part_target(y):
    """The part's ``y`` as the estimator gets it (module docstring)."""
    if y is None or isinstance(y, list):
        return y
    if sp.issparse(y):
        return part_view(y)
    if hasattr(y, "iloc"):
        if hasattr(y, "columns"):  # a DataFrame y
            return part_view(y)
        return _retyped_index(_retyped_column(y))
    a = np.asarray(y)
    if a.ndim not in (1, 2):
        return y
    if a.dtype == object:
        try:
            rebuilt = np.array(a.tolist())
        except Exception:  # entries NumPy cannot hold together: as given
            return y
        if rebuilt.shape != a.shape:  # entries that are sequences: as given
            return y
        a = rebuilt
    if a.dtype.kind in "US":
        parsed = _parsed_strings(a)
        return a if parsed is None else parsed
    if _numeric_kind(a.dtype):
        return _canonical_numeric(a, a.dtype)
    return a
