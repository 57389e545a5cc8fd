"""Test helper: build a mode object from a method name and flat keywords."""

from __future__ import annotations

from sklearn_dpbo.model_selection._modes import MODES


def with_mode(method: str, kw: dict, **mode_defaults) -> dict:
    """``kw`` with the mode's own parameters moved into ``method``.

    ``mode_defaults`` apply only when ``method`` has that parameter (e.g.
    ``public_cv=2`` for ``"private-selection"``); a key of ``kw`` that the
    mode does not have stays in the search's keywords, where it raises.
    """
    if isinstance(method, str) and method not in MODES:
        return dict(kw, method=method)  # invalid: left for fit to refuse
    cls = MODES[method] if isinstance(method, str) else type(method)
    names = set(cls._parameter_constraints)
    mode_kw = {k: v for k, v in mode_defaults.items() if k in names}
    mode_kw.update({k: kw.pop(k) for k in list(kw) if k in names})
    if not isinstance(method, str):
        return dict(kw, method=method.set_params(**mode_kw))
    return dict(kw, method=cls(**mode_kw) if mode_kw else method)
