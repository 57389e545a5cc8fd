"""Locate benchmarks/results/ from a gallery script (run from anywhere)."""

from __future__ import annotations

import os
from pathlib import Path


def results_dir() -> Path:
    """Return the repository's ``benchmarks/results`` directory."""
    root = os.environ.get("SKLEARN_DPBO_ROOT")
    if root:
        return Path(root) / "benchmarks" / "results"
    here = Path.cwd()
    for base in (here, *here.parents):
        candidate = base / "benchmarks" / "results"
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError("run from the sklearn-dpbo repository (benchmarks/results)")
