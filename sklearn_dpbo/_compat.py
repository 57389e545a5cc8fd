"""The only module that imports private scikit-learn names.

scikit-learn keeps no compatibility promise for underscore names, so every one
the library needs is imported here, once (``tests/test_compat.py`` fails on any
other private scikit-learn import). Supported: scikit-learn 1.6 to 1.9
(``.ci/version_smoke.py``).
"""

from __future__ import annotations

import sklearn

try:
    from sklearn.model_selection._search import BaseSearchCV
    from sklearn.utils import _safe_indexing
    from sklearn.utils._metadata_requests import _routing_enabled
    from sklearn.utils._param_validation import (
        HasMethods,
        Interval,
        InvalidParameterError,
        StrOptions,
        validate_parameter_constraints,
    )
    from sklearn.utils.metaestimators import _safe_split
    from sklearn.utils.validation import _get_feature_names, _num_samples
except ImportError as exc:  # pragma: no cover - unsupported scikit-learn
    raise ImportError(
        "sklearn-dpbo needs scikit-learn 1.6 to 1.9 (its parameter validation "
        f"and indexing helpers); found scikit-learn {sklearn.__version__}: "
        "install a supported version."
    ) from exc


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
    "BaseSearchCV",
    "CachedParamNamesMixin",
    "HasMethods",
    "Interval",
    "InvalidParameterError",
    "StrOptions",
    "_get_feature_names",
    "_num_samples",
    "_routing_enabled",
    "_safe_indexing",
    "_safe_split",
    "validate_parameter_constraints",
]
