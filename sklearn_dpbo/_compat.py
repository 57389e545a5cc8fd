"""The only module that imports private scikit-learn names.

scikit-learn keeps no compatibility promise for underscore names, so every one
the library needs is imported here, once, with a fallback, and the rest of the
package imports it from here (``tests/test_compat.py`` fails on any other
private scikit-learn import). Supported: scikit-learn 1.6 to 1.9 (the range in
``pyproject.toml``, smoke-tested by ``.ci/version_smoke.sh``).

Shims, what each is for, and from which version:

``Interval``, ``StrOptions``, ``HasMethods``, ``Hidden``,
``validate_parameter_constraints``, ``InvalidParameterError``
    The constraint types of ``_parameter_constraints``, the table that
    ``BaseEstimator._validate_params`` checks and that ``check_estimator``
    reads, and the error it raises (a subclass of ``ValueError`` and
    ``TypeError``; ``Hidden`` keeps a deprecated spelling out of the
    message). Private module ``sklearn.utils._param_validation``, unchanged
    from 1.2 to 1.9; scikit-learn has no public equivalent. No fallback: a
    scikit-learn without it is unsupported, and the error says so.
``_VisualBlock``
    The HTML-repr block returned by ``DPBayesSearchCV._sk_visual_block_``.
    ``sklearn.utils._repr_html.estimator`` from 1.7,
    ``sklearn.utils._estimator_html_repr`` in 1.6. If neither exists, calling
    it raises, and scikit-learn's HTML repr catches that and draws the
    estimator as a single block (its behaviour in 1.6 to 1.9).
``_safe_indexing``
    Row indexing of arrays, sparse matrices, data frames and lists.
    ``sklearn.utils._safe_indexing``: documented but private, present from 0.22
    to 1.9. Fallback: rows of arrays, sparse matrices, pandas objects and
    sequences (the library only indexes rows).
``_num_samples``
    Number of rows of an array-like, with scikit-learn's own rules (data
    frames, objects with ``shape`` or ``__len__``).
    ``sklearn.utils.validation._num_samples``, present in every version.
    Fallback: ``shape[0]`` or ``len``.
``_safe_split``
    Our own copy of ``sklearn.utils.metaestimators._safe_split`` (identical in
    1.6 to 1.9), written on the public ``get_tags``: slices a precomputed kernel
    on both axes when the estimator's ``input_tags.pairwise`` is set.
``_routing_enabled``
    Whether metadata routing is on, read from the public ``sklearn.get_config()``
    (what the private ``sklearn.utils.metadata_routing._routing_enabled`` of
    1.3 to 1.9 returns).
``CachedParamNamesMixin``
    Overrides the private classmethod ``BaseEstimator._get_param_names``
    (1.0 to 1.9: the sorted constructor arguments, from ``inspect.signature``
    on every ``get_params``/``clone``) with the same list computed once per
    class. The search clones and validates its mode object on every fit and
    random stopping clones the learner once per run, so the signature was a
    large share of a small fit's time. A function of the class alone
    (public); nothing about any call or any data is kept. If the method
    disappears, ``super()`` raises and the mixin must go.
"""

from __future__ import annotations

import numbers

import numpy as np
import sklearn
from sklearn.utils import get_tags

try:
    from sklearn.utils._param_validation import (
        HasMethods,
        Hidden,
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
    "Hidden",
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
