"""The package's layout: one folder per system, two shared layers, imports down.

Layers, lowest first (``docs/reference.md`` draws the same picture):

0. ``sklearn_dpbo/_compat.py``: scikit-learn compatibility shims;
1. ``privacy/``: mechanisms, samplers, accounting, private scores;
2. ``bo/``: candidate sets, GPs, acquisition, the BO loop;
3. the systems ``ldp/`` (local-DP BO) and ``gaussian_process/`` (DP GP),
   siblings that never import each other;
4. ``model_selection/`` (the search; its federated-ldp mode uses ``ldp``);
5. the top level (``__init__``, ``demo``, ``plotting``).

A module may import from its own folder and from lower layers only, and
``model_selection``'s modules import each other without a cycle. Every
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


def _package_graph(root: Path) -> dict[str, set[str]]:
    """Which modules of the package ``root`` each of its modules imports.

    Nodes are dotted names relative to ``root`` (a package by its own name,
    ``""`` for ``root``); every ``from .x import`` counts, lazy ones
    included, and ``from sklearn_dpbo.<root>.x import`` too.
    """
    names = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        names[path] = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
    known = set(names.values())
    absolute = f"sklearn_dpbo.{root.name}."
    graph = {}
    for path, name in names.items():
        package = (
            name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        )
        package = [p for p in package if p]
        found = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.ImportFrom):
                continue
            module, level = node.module or "", node.level
            if not level and module.startswith(absolute):
                module, level = module[len(absolute) :], len(package) + 1
            if not level or level - 1 > len(package):
                continue  # another package or a lower layer (checked above)
            base = package[: len(package) - (level - 1)]
            target = base + (module.split(".") if module else [])
            for alias in node.names:
                sub = ".".join([*target, alias.name])
                found.add(sub if sub in known else ".".join(target))
        graph[name] = found & known - {name}
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle of ``graph`` (its modules in order), or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(v):
        state[v] = 1
        path.append(v)
        for w in sorted(graph.get(v, ())):
            if state.get(w) == 1:
                return path[path.index(w) :] + [w]
            if w not in state and (found := visit(w)):
                return found
        state[v] = 2
        path.pop()
        return None

    for v in sorted(graph):
        if v not in state and (found := visit(v)):
            return found
    return None


def test_model_selection_imports_have_no_cycle():
    """A module of model_selection never imports, even lazily, a module
    that imports it back: the modes and settings stay layered."""
    graph = _package_graph(PKG / "model_selection")
    assert {"_search", "_context", "_whole_data._fit", "_private_model._fit"} <= set(
        graph
    )
    assert "_whole_data._fit" in graph["_search"]
    cycle = _cycle(graph)
    assert cycle is None, "import cycle in model_selection: " + " -> ".join(cycle)


def test_the_cycle_checker_sees_lazy_and_nested_cycles(tmp_path):
    """Power check: a cycle closed by a lazy import, or through a subpackage."""
    root = tmp_path / "model_selection"
    (root / "_mode").mkdir(parents=True)
    (root / "__init__.py").write_text("from ._a import A\n")
    (root / "_a.py").write_text("from ._b import B\n")
    (root / "_b.py").write_text("def f():\n    from ._a import A\n")
    (root / "_mode" / "__init__.py").write_text("")
    (root / "_mode" / "_fit.py").write_text(
        "from .. import _c\nfrom ...privacy import x\n"
    )
    (root / "_c.py").write_text(
        "from sklearn_dpbo.model_selection._mode._fit import f\n"
    )
    graph = _package_graph(root)
    assert graph["_mode._fit"] == {"_c"} and graph["_c"] == {"_mode._fit"}
    assert graph[""] == {"_a"}
    assert _cycle(graph) == ["_a", "_b", "_a"]
    (root / "_b.py").write_text("")
    assert _cycle(_package_graph(root)) == ["_c", "_mode._fit", "_c"]
    (root / "_c.py").write_text("")
    assert _cycle(_package_graph(root)) is None


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
