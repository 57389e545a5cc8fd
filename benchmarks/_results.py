"""Where a benchmark script writes its JSON and plots.

A full run writes to ``benchmarks/results/`` (the stored results the docs'
tables are generated from). A ``--quick`` smoke run writes to a fresh
temporary folder, printed by the script, so that it never overwrites or adds
to the stored results. ``--out PATH`` overrides both.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"


def results_dir(quick: bool) -> Path:
    """``benchmarks/results/`` for a full run, a new temporary folder if quick."""
    if not quick:
        return RESULTS
    folder = Path(tempfile.mkdtemp(prefix="sklearn_dpbo_quick_"))
    print(f"--quick: writing to {folder} (benchmarks/results/ is left unchanged)")
    return folder
