"""The documentation's code examples run, and the API reference is complete.

- every ```python block of README.md and of the docs pages runs, in order,
  in one namespace per page (a block preceded by ``<!-- no-run -->`` is
  skipped: keep such marks rare, e.g. for snippets that need a cluster);
- ``docs/api.rst`` lists every public name of every subpackage;
- every public docstring opens with a one-line summary (numpydoc SS06).

The Sphinx site itself is built, warnings as errors, by its own CI step
(``.ci/run``): ``pip install ".[docs]" && python -m sphinx -W --keep-going
-b html docs docs/_build/html``.
"""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path

import pytest
import sklearn

ROOT = Path(__file__).resolve().parents[1]
DOC_PAGES_WITH_RUNNABLE_CODE = [
    page
    for page in ["README.md"]
    + sorted(f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md"))
    if "```python" in (ROOT / page).read_text(encoding="utf-8")
]
NO_RUN = "<!-- no-run -->"
FENCE = re.compile(r"^(?P<indent>[ \t]*)```(?P<lang>[\w-]*)\s*$")


def python_blocks(text: str) -> list[tuple[int, str, bool]]:
    """Return ``(line number, code, runnable)`` for each ```python block.

    Fences may be indented (inside a list item); the indentation is removed.
    A block is not runnable when the last non-blank line before it is the
    ``<!-- no-run -->`` mark.
    """
    lines = text.splitlines()
    blocks = []
    i = 0
    while i < len(lines):
        match = FENCE.match(lines[i])
        if not match or not match.group("lang"):
            i += 1
            continue
        indent, lang, start = match.group("indent"), match.group("lang"), i
        body = []
        i += 1
        while i < len(lines) and lines[i].strip() != "```":
            line = lines[i]
            body.append(line[len(indent) :] if line.startswith(indent) else line)
            i += 1
        i += 1
        if lang != "python":
            continue
        previous = [line.strip() for line in lines[:start] if line.strip()]
        runnable = not (previous and previous[-1] == NO_RUN)
        blocks.append((start + 1, "\n".join(body) + "\n", runnable))
    return blocks


def test_block_extraction_finds_indented_and_marked_blocks():
    text = (
        "intro\n```python\nx = 1\n```\n- item\n\n  ```python\n  y = x + 1\n  ```\n"
        "<!-- no-run -->\n\n```python\nraise SystemExit\n```\n```bash\nls\n```\n"
    )
    blocks = python_blocks(text)
    assert [(code, runnable) for _, code, runnable in blocks] == [
        ("x = 1\n", True),
        ("y = x + 1\n", True),
        ("raise SystemExit\n", False),
    ]
    assert [line for line, _, _ in blocks] == [2, 7, 12]


@pytest.mark.parametrize("page", DOC_PAGES_WITH_RUNNABLE_CODE)
def test_code_blocks_run(page, tmp_path, monkeypatch):
    import matplotlib

    matplotlib.use("Agg")
    blocks = python_blocks((ROOT / page).read_text(encoding="utf-8"))
    runnable = [(line, code) for line, code, ok in blocks if ok]
    assert runnable, f"{page} has no runnable python block"
    skipped = len(blocks) - len(runnable)
    assert skipped <= 2, f"{page}: {skipped} blocks marked {NO_RUN}; keep them rare"
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "__docs__"}
    # A page may call sklearn.set_config (e.g. metadata routing): restored after.
    with sklearn.config_context():
        for line, code in runnable:
            try:
                exec(compile(code, f"{page}:{line}", "exec"), namespace)
            except Exception as exc:  # pragma: no cover - the failure message
                pytest.fail(f"{page}, block at line {line} fails: {exc!r}\n{code}")


def test_api_reference_lists_every_public_name():
    api = (ROOT / "docs" / "api.rst").read_text(encoding="utf-8")
    for space in (
        "model_selection",
        "dp_learners",
        "ldp",
        "gaussian_process",
        "privacy",
        "bo",
    ):
        module = importlib.import_module(f"sklearn_dpbo.{space}")
        section = api.split(f".. currentmodule:: sklearn_dpbo.{space}\n")[1]
        section = section.split(".. currentmodule::")[0]
        listed = set(re.findall(r"^   (\w+)$", section, flags=re.M))
        missing = set(module.__all__) - listed
        assert not missing, f"docs/api.rst, sklearn_dpbo.{space}: {sorted(missing)}"


def test_benchmark_tables_match_the_stored_results():
    """The tables of docs/benchmarks.md and README.md are written by
    ``python benchmarks/report.py`` from ``benchmarks/results/*.json``."""
    import sys

    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import report
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    for page in report.PAGES:
        text = page.read_text(encoding="utf-8")
        names = set(report.MARK.findall(text))
        assert names, f"{page.name} has no generated table"
        assert report.render(text) == text, (
            f"{page.name}: a table differs from the stored results; "
            "run python benchmarks/report.py"
        )


def test_readme_shows_every_line_of_the_ci_script():
    readme = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    for line in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines():
        assert line in readme, line


def test_public_docstrings_open_with_a_one_line_summary():
    # numpydoc's SS06/GL02: the API pages and autosummary tables show line one.
    bad = []
    for space in ("model_selection", "dp_learners", "ldp", "gaussian_process"):
        module = importlib.import_module(f"sklearn_dpbo.{space}")
        for name in module.__all__:
            obj = getattr(module, name)
            members = [(name, obj)]
            if inspect.isclass(obj):
                members += [
                    (f"{name}.{k}", v)
                    for k, v in vars(obj).items()
                    if not k.startswith("_")
                    and (callable(v) or isinstance(v, property))
                ]
            for qualname, member in members:
                doc = inspect.getdoc(member)
                if doc and "\n" in doc.split("\n\n")[0].strip():
                    bad.append(f"sklearn_dpbo.{space}.{qualname}")
    assert not bad, f"summary on more than one line: {bad}"
