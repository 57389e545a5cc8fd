"""Constructor parameter names computed once per class.

``BaseEstimator._get_param_names`` inspects ``__init__``'s signature on
every ``get_params`` and ``clone``. The search clones and validates its mode
object on every fit, and random stopping clones the learner once per run, so
the signature was a large share of a small fit's time. The names are a
function of the class alone (public, the same in every process), so they
are computed once per class and kept on it; nothing about any call or any
data is recorded.
"""

from __future__ import annotations

__all__ = ["CachedParamNamesMixin"]


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
