"""Import the library from this checkout, not from an installed copy.

``python benchmarks/<script>.py`` puts ``benchmarks/`` on ``sys.path``, not
the repository root, so ``import sklearn_dpbo`` would find whatever copy
``pip install .`` installed last, possibly older than the checkout (CI
installs the checkout first, so it was never affected; a local run after
an edit was). Every benchmark imports this module before ``sklearn_dpbo``:
it puts the repository root first on ``sys.path``.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = str(Path(__file__).resolve().parents[1])
if sys.path[:1] != [ROOT]:
    sys.path.insert(0, ROOT)
