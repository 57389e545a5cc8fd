"""The package's layout: one folder per system, two shared layers, imports down.

Layers, lowest first (``docs/reference.md`` draws the same picture):

0. ``sklearn_dpbo/_compat.py``: scikit-learn compatibility shims;
1. ``privacy/``: mechanisms, samplers, accounting, private scores;
2. ``bo/``: candidate sets, GPs, acquisition, the BO loop;
3. the systems ``ldp/`` (local-DP BO) and ``gaussian_process/`` (DP GP),
   siblings that never import each other;
4. ``model_selection/`` (the search; its federated-ldp mode uses ``ldp``);
5. the top level (``__init__``, ``demo``, ``plotting``).

A module may import from its own folder and from lower layers only. Every
module stays at most 800 lines and the search class at most 700.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[1] / "sklearn_dpbo"
LAYER = {
    "_compat": 0,
    "privacy": 1,
    "bo": 2,
    "ldp": 3,
    "gaussian_process": 3,
    "dp_learners": 3,
    "model_selection": 4,
}
TOP = 5
MAX_MODULE_LINES = 800
MAX_SEARCH_CLASS_LINES = 700


def _modules():
    return sorted(p for p in PKG.rglob("*.py") if "__pycache__" not in p.parts)


def _unit(path: Path) -> str:
    """The layer unit of a module: its subpackage, or its own name at the top."""
    rel = path.relative_to(PKG)
    if len(rel.parts) > 1:
        return rel.parts[0]
    return rel.stem


def _layer(unit: str) -> int:
    return LAYER.get(unit, TOP)


def _imported_units(path: Path, root: Path = PKG) -> set[str]:
    """Units of ``sklearn_dpbo`` that ``path`` imports, lazy imports included."""
    tree = ast.parse(path.read_text())
    rel = path.relative_to(root)
    package = list(rel.parts[:-1])  # the module's package under sklearn_dpbo
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                if node.level - 1 > len(package):
                    raise AssertionError(f"{rel}: relative import above the package")
                parts = base + (node.module.split(".") if node.module else [])
                if not parts:  # "from .. import x": x is the unit
                    found |= {alias.name for alias in node.names}
                else:
                    found.add(parts[0])
            elif node.module and node.module.split(".")[0] == "sklearn_dpbo":
                parts = node.module.split(".")[1:]
                found |= {parts[0]} if parts else {a.name for a in node.names}
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == "sklearn_dpbo" and len(parts) > 1:
                    found.add(parts[1])
    return found


def test_every_unit_is_classified():
    units = {_unit(p) for p in _modules()}
    assert units - set(LAYER) <= {"__init__", "demo", "plotting"}, units


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(PKG)))
def test_imports_only_go_down(path):
    me = _unit(path)
    for unit in _imported_units(path):
        if unit == me or _layer(me) == TOP:  # the top level may use anything
            continue
        assert _layer(unit) < _layer(me), (
            f"{path.relative_to(PKG)} (layer {_layer(me)}) imports {unit!r} "
            f"(layer {_layer(unit)}): imports only go down, and sibling "
            "systems do not import each other"
        )


def test_the_checker_sees_upward_and_sibling_imports(tmp_path):
    """Power check: relative, lazy and absolute imports are all resolved."""
    root = tmp_path / "sklearn_dpbo"
    (root / "privacy").mkdir(parents=True)
    (root / "ldp").mkdir()
    up = root / "privacy" / "_bad.py"
    up.write_text("def f():\n    from ..model_selection._search import X\n")
    sibling = root / "ldp" / "_bad.py"
    sibling.write_text("import sklearn_dpbo.gaussian_process._regressor\n")
    top = root / "ldp" / "_top.py"
    top.write_text("from .. import _compat, plotting\n")
    assert _imported_units(up, root) == {"model_selection"}
    assert _imported_units(sibling, root) == {"gaussian_process"}
    assert _imported_units(top, root) == {"_compat", "plotting"}
    assert _layer("model_selection") > _layer("privacy")
    assert _layer("gaussian_process") == _layer("ldp")  # siblings: refused
    assert _layer("plotting") > _layer("ldp")


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(PKG)))
def test_module_size(path):
    n = len(path.read_text().splitlines())
    assert n <= MAX_MODULE_LINES, f"{path.relative_to(PKG)}: {n} lines"


def test_search_class_size():
    path = PKG / "model_selection" / "_search.py"
    tree = ast.parse(path.read_text())
    (cls,) = [
        n
        for n in tree.body
        if isinstance(n, ast.ClassDef) and n.name == "DPBayesSearchCV"
    ]
    n = cls.end_lineno - cls.lineno + 1
    assert n <= MAX_SEARCH_CLASS_LINES, f"DPBayesSearchCV: {n} lines"


def test_public_namespaces_one_path_per_name():
    import sklearn_dpbo
    from sklearn_dpbo import gaussian_process, ldp, model_selection, privacy

    assert {"DPBayesSearchCV", "DPGaussianProcessRegressor", "BudgetAccountant"} <= set(
        sklearn_dpbo.__all__
    )
    assert model_selection.PrivateSelection and ldp.LaplaceRandomizer
    assert gaussian_process.PublicDataSelection and privacy.DPScorer
    # Names that live in a subpackage are not reachable from the top level.
    for name in ("GPUCB", "PrivateSelection", "LaplaceRandomizer", "DPScorer"):
        with pytest.raises(AttributeError):
            getattr(sklearn_dpbo, name)
    assert set(dir(sklearn_dpbo)) >= set(sklearn_dpbo.__all__)
    assert "GPUCB" not in dir(sklearn_dpbo)
