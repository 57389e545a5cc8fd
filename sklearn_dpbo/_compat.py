"""The only module that imports private scikit-learn names.

scikit-learn keeps no compatibility promise for underscore names, so every one
the library needs is imported here, once, with a fallback (``tests/test_compat.py``
fails on any other private scikit-learn import). Supported: scikit-learn 1.6 to
1.9 (``.ci/version_smoke.py``).

The ``_parameter_constraints`` machinery (``sklearn.utils._param_validation``)
has no public equivalent and no fallback; ``_VisualBlock`` moved in 1.7
(without it scikit-learn draws the estimator as a single block).
"""

from __future__ import annotations

import numbers

import numpy as np
import sklearn
from sklearn.utils import get_tags

try:
    from sklearn.utils._param_validation import (
        HasMethods,
        Interval,
        InvalidParameterError,
        StrOptions,
        validate_parameter_constraints,
    )
except ImportError as exc:  # pragma: no cover - unsupported scikit-learn
    raise ImportError(
        "sklearn-dpbo needs scikit-learn's parameter-validation module "
        "(scikit-learn 1.6 to 1.9 are supported); found scikit-learn "
        f"{sklearn.__version__}: install a supported version."
    ) from exc

try:  # scikit-learn >= 1.7
    from sklearn.utils._repr_html.estimator import _VisualBlock
except ImportError:  # pragma: no cover - depends on the installed version
    try:  # scikit-learn 1.6
        from sklearn.utils._estimator_html_repr import _VisualBlock
    except ImportError:

        def _VisualBlock(*args, **kwargs):
            raise NotImplementedError(
                "this scikit-learn has no _VisualBlock; its HTML repr falls "
                "back to a single block"
            )


try:
    from sklearn.utils import _safe_indexing
except ImportError:  # pragma: no cover - depends on the installed version

    def _safe_indexing(X, indices, *, axis=0):
        """Rows ``indices`` of ``X`` (the fallback supports ``axis=0`` only)."""
        if axis != 0:
            raise NotImplementedError("only row indexing (axis=0) is supported")
        if hasattr(X, "iloc"):
            return X.iloc[indices]
        if hasattr(X, "shape"):
            return X[indices]
        return [X[i] for i in np.asarray(indices).reshape(-1)]


try:
    from sklearn.utils.validation import _get_feature_names
except ImportError:  # pragma: no cover - depends on the installed version

    def _get_feature_names(X):
        """A DataFrame's column names when all are strings, else None."""
        columns = getattr(X, "columns", None)
        if columns is None:
            return None
        names = np.asarray(columns, dtype=object)
        if all(isinstance(c, str) for c in names):
            return names
        if any(isinstance(c, str) for c in names):
            raise TypeError("Feature names are only supported if all are strings.")
        return None


try:
    from sklearn.utils.validation import _num_samples
except ImportError:  # pragma: no cover - depends on the installed version

    def _num_samples(x):
        """Number of rows of ``x``."""
        message = f"Expected sequence or array-like, got {type(x)}"
        if hasattr(x, "fit") and callable(x.fit):
            raise TypeError(message)
        shape = getattr(x, "shape", None)
        if shape is not None:
            if len(shape) == 0:
                raise TypeError(
                    f"Input should have at least 1 dimension, got scalar {x!r}."
                )
            if isinstance(shape[0], numbers.Integral):
                return shape[0]
        if not hasattr(x, "__len__") and hasattr(x, "__array__"):
            x = np.asarray(x)
        try:
            return len(x)
        except TypeError as type_error:
            raise TypeError(message) from type_error


def _safe_split(estimator, X, y, indices, train_indices=None):
    """Rows ``indices`` of ``X`` and ``y``; both axes of a precomputed kernel.

    Same contract as ``sklearn.utils.metaestimators._safe_split``: when
    ``get_tags(estimator).input_tags.pairwise`` is set, ``X`` must be a square
    array or sparse matrix and is sliced on rows ``indices`` and columns
    ``train_indices`` (``indices`` when None); ``y`` is sliced on rows only.
    """
    if get_tags(estimator).input_tags.pairwise:
        if not hasattr(X, "shape"):
            raise ValueError(
                "Precomputed kernels or affinity matrices have "
                "to be passed as arrays or sparse matrices."
            )
        if X.shape[0] != X.shape[1]:
            raise ValueError("X should be a square kernel matrix")
        columns = indices if train_indices is None else train_indices
        X_subset = X[np.ix_(indices, columns)]
    else:
        X_subset = _safe_indexing(X, indices)
    y_subset = None if y is None else _safe_indexing(y, indices)
    return X_subset, y_subset


def _routing_enabled() -> bool:
    """Whether metadata routing is enabled (``sklearn.set_config``)."""
    return bool(sklearn.get_config().get("enable_metadata_routing", False))


class CachedParamNamesMixin:
    """``_get_param_names`` computed once per class (put before ``BaseEstimator``)."""

    @classmethod
    def _get_param_names(cls) -> list:
        """scikit-learn's sorted list of constructor arguments, cached on ``cls``."""
        cached = cls.__dict__.get("_param_names_cache")
        if cached is None:
            cached = tuple(super()._get_param_names())
            cls._param_names_cache = cached
        return list(cached)


__all__ = [
    "CachedParamNamesMixin",
    "HasMethods",
    "Interval",
    "InvalidParameterError",
    "StrOptions",
    "_VisualBlock",
    "_num_samples",
    "_routing_enabled",
    "_safe_indexing",
    "_safe_split",
    "validate_parameter_constraints",
]
