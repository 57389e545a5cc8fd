"""Sphinx configuration of the sklearn-dpbo documentation.

Build locally (warnings are errors, as in CI)::

    pip install ".[docs]"
    python -m sphinx -W --keep-going -b html docs docs/_build/html
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
# Gallery scripts read the benchmarks' saved JSON relative to the repository.
os.environ.setdefault("SKLEARN_DPBO_ROOT", str(ROOT))

import sklearn_dpbo  # noqa: E402

project = "sklearn-dpbo"
author = "sklearn-dpbo developers"
copyright = "2026, sklearn-dpbo developers"
version = release = sklearn_dpbo.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "auto_examples/*.ipynb", "auto_examples/*.py"]
templates_path = ["_templates"]

# API reference: generated from the numpydoc docstrings.
autosummary_generate = True
autodoc_default_options = {"members": True, "inherited-members": False}
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_validation_checks = set()

# Markdown pages: GitHub-style anchors for in-page and cross-page links.
myst_heading_anchors = 4
myst_enable_extensions = ["dollarmath"]
# The pages moved from the README keep their heading levels (## then ####).
suppress_warnings = ["myst.header"]

sphinx_gallery_conf = {
    "examples_dirs": str(ROOT / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "ignore_pattern": r"(__init__|_paths)\.py",
    "download_all_examples": False,
    "plot_gallery": "True",
    "remove_config_comments": True,
    "matplotlib_animations": False,
}

html_theme = "alabaster"
html_title = "sklearn-dpbo"
html_static_path = []


def _skip_metadata_requests(app, what, name, obj, skip, options):
    """Hide scikit-learn's generated ``set_*_request`` methods.

    Their docstrings come from scikit-learn and cross-reference its
    glossary, which is not part of this site.
    """
    if name.startswith("set_") and name.endswith("_request"):
        return True
    return skip


_LITERAL = re.compile(r"(``.*?``)")


def _escape_bars(app, what, name, obj, options, lines):
    """Escape ``|x|`` (absolute values in the formulas) outside literals.

    reStructuredText reads ``|x|`` as a substitution; the docstrings use it
    as the mathematical absolute value. Grid-table rows are left alone.
    """
    for i, line in enumerate(lines):
        if "|" not in line or line.lstrip().startswith(("|", "+")):
            continue
        parts = _LITERAL.split(line)
        lines[i] = "".join(
            part if part.startswith("``") else part.replace("|", "\\|")
            for part in parts
        )


def setup(app):
    app.connect("autodoc-skip-member", _skip_metadata_requests)
    app.connect("autodoc-process-docstring", _escape_bars)
