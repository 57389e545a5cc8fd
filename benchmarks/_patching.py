"""Replace the library's candidate-evaluation functions for a benchmark run.

The benchmarks replay or time the work a search does on candidates by
swapping the functions of :mod:`sklearn_dpbo.model_selection._evaluation` that run it
(``_public_fold``, ``fit_public``, ``score_private``,
``fit_and_score_private``). Some library modules import these functions by
name (``from ._evaluation import score_private``), so replacing the
attribute of ``_evaluation`` alone would miss their calls: :func:`replaced`
swaps the function in every loaded ``sklearn_dpbo`` module that holds it,
and restores them all on exit. For in-process runs only (``n_jobs=1`` or
``None``): joblib workers in other processes import the originals.
"""

from __future__ import annotations

import sys
from contextlib import contextmanager

import sklearn_dpbo  # noqa: F401  (loads every module that imports them)
import sklearn_dpbo.model_selection._evaluation as evaluation

__all__ = ["replaced", "evaluation"]


@contextmanager
def replaced(**functions):
    """Swap ``sklearn_dpbo.model_selection._evaluation.<name>`` for ``functions[name]``.

    Every loaded ``sklearn_dpbo`` module whose global ``name`` is the
    original function gets the replacement; on exit every swapped global is
    restored. Raises ``AttributeError`` for a name ``_evaluation`` does not
    define (a renamed function must break the benchmark loudly, not leave it
    timing or replaying nothing).
    """
    swapped = []
    try:
        for name, new in functions.items():
            original = getattr(evaluation, name)
            for mod_name, module in list(sys.modules.items()):
                if not (
                    mod_name == "sklearn_dpbo" or mod_name.startswith("sklearn_dpbo.")
                ):
                    continue
                if getattr(module, name, None) is original:
                    setattr(module, name, new)
                    swapped.append((module, name, original))
        yield
    finally:
        for module, name, original in reversed(swapped):
            setattr(module, name, original)
