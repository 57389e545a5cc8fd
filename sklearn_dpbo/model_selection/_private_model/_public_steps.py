"""Pipelines in the private-model mode: steps that learn nothing from the rows.

The accepted steps: ``docs/private_model.md`` (Preprocessing), :data:`_ACCEPTED`
and :func:`_check_step`; checked from the parameters before any row is read
(:func:`split_pipeline`), fitted on one public dummy row
(:func:`fit_public_steps`), applied one row at a time (:func:`transform_rows`:
row i's output depends on row i alone; a row whose transform raises or has
another width is a row of NaN).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from sklearn.base import clone

from ..._compat import _safe_indexing
from ...privacy._numbers import number_or_nan
from .._entries import _is_pandas

_STATELESS = ("Normalizer", "FunctionTransformer")
_ACCEPTED = (
    "Normalizer, FunctionTransformer, OneHotEncoder(categories=[...] with every "
    "category given, handle_unknown='ignore'), a ColumnTransformer of these "
    "(columns by name, index, slice or mask), 'passthrough'"
)


def _refuse(name: str, step: Any, why: str) -> None:
    raise TypeError(
        f"method='private-model': the pipeline step {name!r} "
        f"({type(step).__name__}) {why} Every row is private in this mode, so "
        "a step may not learn from the rows (checked before any row is read "
        "and before any budget is spent). Declare the scale from public "
        "knowledge instead: the DP learner's bounds=(lower, upper) (each row "
        "is mapped and clipped into its norm ball), or a FunctionTransformer "
        "with public constants, e.g. FunctionTransformer(lambda X: (X - low) / "
        f"(high - low)). Accepted steps: {_ACCEPTED}."
    )


def _passthrough(step: Any) -> bool:
    return step is None or (isinstance(step, str) and step == "passthrough")


def _is_sklearn(step: Any, name: str) -> bool:
    cls = type(step)
    return cls.__name__ == name and cls.__module__.startswith("sklearn.")


def _check_step(name: str, step: Any) -> None:
    if _passthrough(step) or any(_is_sklearn(step, k) for k in _STATELESS):
        return
    if _is_sklearn(step, "OneHotEncoder"):
        p = step.get_params()
        why = None
        if isinstance(p["categories"], str):
            why = (
                "has categories='auto': it would learn the categories from the "
                "rows. Give every category, categories=[[...], ...], and "
                "handle_unknown='ignore'."
            )
        elif p["handle_unknown"] != "ignore":
            why = (
                f"has handle_unknown={p['handle_unknown']!r}: a private value "
                "outside the categories would raise (one record deciding "
                "whether fit fails). Pass handle_unknown='ignore' (an unknown "
                "value is encoded as all zeros)."
            )
        elif p["min_frequency"] is not None or p["max_categories"] is not None:
            why = (
                "groups infrequent categories, counted on the rows. Leave "
                "min_frequency and max_categories unset."
            )
        if why:
            _refuse(name, step, why)
        for cats in p["categories"]:
            for c in cats:
                if isinstance(c, str) and not math.isnan(number_or_nan(c)):
                    raise ValueError(
                        f"method='private-model': the pipeline step {name!r} "
                        f"has the string category {c!r}, which spells a number: "
                        "this mode reads a numeric string as its number (so "
                        "that a column's dtype, decided by all rows, cannot "
                        "change how a record is read). Give the category as "
                        f"a number, {number_or_nan(c)!r}."
                    )
        return
    if _is_sklearn(step, "ColumnTransformer"):
        for sub_name, sub, cols in step.transformers:
            if callable(cols):
                _refuse(
                    name,
                    step,
                    f"selects the columns of {sub_name!r} with a callable, "
                    "which reads the data (its dtypes).",
                )
            if not (isinstance(sub, str) and sub == "drop"):
                _check_step(f"{name}: {sub_name}", sub)
        rem = step.remainder
        if not (isinstance(rem, str) and rem in ("drop", "passthrough")):
            _check_step(f"{name}: remainder", rem)
        return
    fitted = "learns from the rows it is fitted on."
    if type(step).__name__ in ("StandardScaler", "MinMaxScaler", "RobustScaler"):
        fitted = "learns its centre and scale from the rows it is fitted on."
    _refuse(name, step, fitted)


def split_pipeline(estimator: Any, names) -> tuple[list, Any, str]:
    """(public steps, DP learner, parameter prefix): a non-Pipeline is its own
    learner; only a Pipeline's last step's parameters may be searched."""
    if not _is_sklearn(estimator, "Pipeline"):
        return [], estimator, ""
    steps = list(estimator.steps)
    for name, step in steps[:-1]:
        _check_step(name, step)
    last, learner = steps[-1]
    prefix = f"{last}__"
    other = sorted(k for k in names if not k.startswith(prefix))
    if other:
        raise ValueError(
            f"method='private-model' searches the DP learner's parameters only "
            f"(named {prefix}...); got {other}: a preprocessing parameter would "
            "be one more transform of the private rows per candidate."
        )
    return steps[:-1], learner, prefix


def _encoded_columns(step: Any, positions) -> dict:
    """{column position: first category} of the columns an encoder in ``step``
    encodes; ``positions``: one row holding the positions of ``step``'s input
    columns, selected as scikit-learn selects (names, indices, slices, masks)."""
    out = {}
    if _is_sklearn(step, "OneHotEncoder"):
        for j, cats in zip(np.asarray(positions).ravel(), step.categories):
            out[int(j)] = cats[0] if len(cats) else 0.0
    elif _is_sklearn(step, "ColumnTransformer"):
        for _, sub, cols in step.transformers:
            out.update(_encoded_columns(sub, _safe_indexing(positions, cols, axis=1)))
    return out


def fit_public_steps(steps: list, X) -> tuple[list, Any, int]:
    """(fitted steps, dummy, width the learner receives): the steps fitted on
    a row of X's columns holding 0.0, or the first category where the first
    step encodes; no row of X is read."""
    positions = _row_container(list(range(X.shape[1])), X)
    cats = _encoded_columns(steps[0][1] if steps else None, positions)
    values = [cats.get(j, 0.0) for j in range(X.shape[1])]
    dummy = _row_container(values, X)
    fitted, Z = [], dummy
    for name, step in steps:
        if not _passthrough(step):
            step = clone(step).fit(Z)
            Z = step.transform(Z)
        fitted.append((name, step))
    return fitted, dummy, int(_dense(Z).shape[1])


def _entry(v) -> Any:
    """One entry on its own: a number, a numeric string's number, a string, NaN."""
    f = number_or_nan(v)
    return v if math.isnan(f) and isinstance(v, str) else f


def _row_container(values: list, X) -> Any:
    """One row as X's kind of container, its types decided by its own entries."""
    if _is_pandas(X, "DataFrame"):
        import pandas as pd

        return pd.DataFrame([values], columns=X.columns)
    dtype = object if any(isinstance(v, str) for v in values) else np.float64
    return np.array([values], dtype=dtype)


def _dense(Z) -> np.ndarray:
    return np.asarray(Z.toarray() if hasattr(Z, "toarray") else Z)


def _row_wise(step: Any) -> bool:
    """Whether ``step`` maps each row on its own by construction (not a
    ``FunctionTransformer``: user code may compute across rows)."""
    if _passthrough(step) or (isinstance(step, str) and step == "drop"):
        return True
    if _is_sklearn(step, "Normalizer") or _is_sklearn(step, "OneHotEncoder"):
        return True
    if _is_sklearn(step, "ColumnTransformer"):
        # the declared steps (``transformers_`` makes "passthrough" a function)
        subs = [t for _, t, _ in step.transformers]
        return all(_row_wise(t) for t in [*subs, step.remainder])
    return False


def _apply(steps: list, Z) -> np.ndarray:
    for _, step in steps:
        Z = Z if _passthrough(step) else step.transform(Z)
    return _dense(Z)


def transform_rows(steps: list, X, width: int) -> np.ndarray:
    """The fitted public steps applied to each private row on its own, entries
    read by :func:`_entry` (module docstring); at once when every step is
    :func:`_row_wise`, row by row if that raises."""
    n = X.shape[0]
    out = np.full((n, width), np.nan, dtype=object)
    if all(_row_wise(step) for _, step in steps):
        batch = _entries_of(X)
        try:
            Z = _apply(steps, batch)
            if Z.shape == (n, width):
                return Z
        except Exception:  # noqa: BLE001 - some row fails: row by row below
            pass
        rows_of = batch.iloc if _is_pandas(batch, "DataFrame") else batch
        rows = (rows_of[i : i + 1] for i in range(n))
    else:
        it = X.itertuples(index=False) if _is_pandas(X, "DataFrame") else iter(X)
        rows = (_row_container([_entry(v) for v in row], X) for row in it)
    for i, row in enumerate(rows):
        try:
            Z = _apply(steps, row)
            if Z.shape == (1, width):
                out[i] = Z[0]
        except Exception:  # noqa: BLE001 - this row's own failure: a NaN row
            pass
    return out


def _entries_of(X) -> Any:
    """X with every entry read on its own (:func:`_entry`), object dtype."""
    if _is_pandas(X, "DataFrame"):
        import pandas as pd

        cols = {
            c: np.fromiter(map(_entry, X[c].to_numpy(dtype=object)), dtype=object)
            for c in X.columns
        }
        return pd.DataFrame(cols, columns=X.columns, dtype=object)
    flat = np.asarray(X, dtype=object).reshape(-1)
    return np.fromiter(map(_entry, flat), dtype=object).reshape(X.shape)
