"""Private scikit-learn names are imported in ``sklearn_dpbo/_compat.py`` only.

scikit-learn may move or drop an underscore name in any release, so they sit
in one module, checked on the oldest and newest supported versions; a new
private import elsewhere fails here.
"""

from __future__ import annotations

import ast
import pathlib

import pytest

import sklearn_dpbo
from sklearn_dpbo import _compat

PACKAGE = pathlib.Path(sklearn_dpbo.__file__).parent


def private_sklearn_imports(source: str) -> list[str]:
    """``module:name`` for each private scikit-learn import in ``source``.

    Private: any dotted part of the module, or any imported name, starts with an
    underscore. Covers ``import sklearn._x``, ``from sklearn.x import _y`` and
    ``from sklearn._x import y`` at any depth (inside functions too).
    """
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == "sklearn" and any(p.startswith("_") for p in parts):
                    found.append(alias.name)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            parts = node.module.split(".")
            if parts[0] != "sklearn":
                continue
            module_private = any(p.startswith("_") for p in parts)
            for alias in node.names:
                if module_private or alias.name.startswith("_"):
                    found.append(f"{node.module}:{alias.name}")
    return found


@pytest.mark.parametrize(
    "source, expected",
    [
        ("from sklearn.utils import _safe_indexing", ["sklearn.utils:_safe_indexing"]),
        (
            "def f():\n    from sklearn.utils._param_validation import Interval",
            ["sklearn.utils._param_validation:Interval"],
        ),
        ("import sklearn.utils._repr_html", ["sklearn.utils._repr_html"]),
        ("from sklearn.utils import get_tags\nimport sklearn", []),
        ("from ._compat import _num_samples", []),
        ("from sklearn_dpbo._x import _y", []),
    ],
)
def test_scanner_finds_private_imports(source, expected):
    assert private_sklearn_imports(source) == expected


def test_no_private_sklearn_import_outside_compat():
    offenders = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "_compat.py":
            continue
        found = private_sklearn_imports(path.read_text(encoding="utf-8"))
        if found:
            offenders[str(path.relative_to(PACKAGE))] = found
    assert offenders == {}, (
        "import these from sklearn_dpbo._compat (add a shim there, with a "
        f"fallback, if it is new): {offenders}"
    )


def test_compat_shims_match_sklearn():
    """The own ``_safe_split`` and ``_routing_enabled`` agree with scikit-learn's."""
    import numpy as np
    import sklearn
    from sklearn.svm import SVC

    X = np.arange(16.0).reshape(4, 4)
    y = np.array([0, 1, 0, 1])
    X_sub, y_sub = _compat._safe_split(SVC(), X, y, [1, 3])
    np.testing.assert_array_equal(X_sub, X[[1, 3]])
    np.testing.assert_array_equal(y_sub, [1, 1])
    # A precomputed kernel is sliced on both axes: rows [1, 3], columns [0, 2].
    K_sub, _ = _compat._safe_split(SVC(kernel="precomputed"), X, y, [1, 3], [0, 2])
    np.testing.assert_array_equal(K_sub, [[4.0, 6.0], [12.0, 14.0]])
    assert _compat._safe_split(SVC(), X, None, [0])[1] is None

    assert _compat._routing_enabled() is False
    with sklearn.config_context(enable_metadata_routing=True):
        assert _compat._routing_enabled() is True
