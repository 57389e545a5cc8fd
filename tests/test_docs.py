"""The documentation builds and its code examples run.

Two things cannot rot silently:

- the Sphinx site (user guide, method pages, API reference generated from
  the numpydoc docstrings, examples gallery) builds with warnings as
  errors, exactly as ``sphinx-build -W --keep-going -b html docs
  docs/_build/html`` does locally (started in the background when
  collection finishes, ``_background.py``);
- every ```python block of README.md and of the user guide runs, in order,
  in one namespace per page (a block preceded by ``<!-- no-run -->`` is
  skipped: keep such marks rare, e.g. for snippets that need a cluster).
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import _background
import pytest

ROOT = Path(__file__).resolve().parents[1]
DOC_PAGES_WITH_RUNNABLE_CODE = ["README.md", "docs/user_guide.md"]
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
    for line, code in runnable:
        try:
            exec(compile(code, f"{page}:{line}", "exec"), namespace)
        except Exception as exc:  # pragma: no cover - the failure message
            pytest.fail(f"{page}, block at line {line} fails: {exc!r}\n{code}")


@pytest.mark.slow
@pytest.mark.background(
    "sphinx",
    [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-b", "html"]
    + ["-d", "{out}/doctrees", str(ROOT / "docs"), "{out}/html"],
    cwd=ROOT,
    env=dict(os.environ, MPLBACKEND="Agg", PYTHONPATH=str(ROOT)),
    timeout=2000,
)
def test_sphinx_build_without_warnings():
    # Started in the background when collection finished (_background.py).
    out, out_dir = _background.result("sphinx")
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-5000:]
    html = out_dir / "html"
    for page in ["index", "user_guide", "central_dp", "local_dp", "dp_gp", "api"]:
        assert (html / f"{page}.html").is_file(), page
    gallery = (html / "auto_examples" / "index.html").read_text(encoding="utf-8")
    assert gallery.count("sphx-glr-thumbcontainer") >= 5
    import importlib

    for space in ("model_selection", "ldp", "gaussian_process", "privacy", "bo"):
        module = importlib.import_module(f"sklearn_dpbo.{space}")
        for name in module.__all__:
            page = html / "generated" / f"sklearn_dpbo.{space}.{name}.html"
            assert page.is_file(), page.name
