"""The search's verbose lines, sealed at the first read of the validation set.

Before the read every line is public work and may carry figures (step,
elapsed time). After it any figure, and the moment a line appears, could
describe validation data, so the private-read hook seals the printer and
the only later line is the fixed ``"done"`` when ``fit`` returns.
"""

from __future__ import annotations

import sys
import time

PREFIX = "[DPBayesSearchCV]"

READ_TEXT = "reading {} (from here on: no line until done, no figure)"
DONE_LINE = "done"


class ProgressPrinter:
    """Verbose lines of one ``fit`` (levels: ``DPBayesSearchCV.verbose``);
    ``budget`` is the planned (ε, δ), ``private`` what the first read reads."""

    def __init__(
        self,
        verbose: int,
        budget: tuple[float, float],
        private: str = "the validation set",
    ):
        self._verbose = int(verbose)
        self._budget = f"budget epsilon={budget[0]:g}, delta={budget[1]:g}"
        self._start = time.perf_counter()
        self._sealed = False
        self._read_line = READ_TEXT.format(private)
        # Taken before any private section swaps sys.stdout for a dropped buffer.
        self._out = sys.stdout

    def plan(self, message: str) -> None:
        """The first line (level 1), before anything is measured: no suffix."""
        if not self._sealed and self._verbose >= 1:
            self._print(message)

    def __call__(self, message: str) -> None:
        """A phase line (level 1). Ignored once sealed."""
        self._line(message, level=1)

    def step(self, message: str) -> None:
        """A step line (level 2: a public search step). Ignored once sealed."""
        self._line(message, level=2)

    def seal(self) -> None:
        """The first private read (timed before it): no message from now on."""
        if self._sealed:
            return
        elapsed = time.perf_counter() - self._start
        self._sealed = True
        if self._verbose >= 1:
            timed = f" ({elapsed:.2f}s; {self._budget})" if self._verbose > 2 else ""
            self._print(f"{self._read_line}{timed}")

    def done(self) -> None:
        """The end of ``fit``: a fixed line, with no figure."""
        if self._verbose >= 1:
            self._print(DONE_LINE)

    def _line(self, message: str, level: int) -> None:
        if self._sealed or self._verbose < level:
            return
        suffix = ""
        if level == 2 or self._verbose > 2:
            elapsed = time.perf_counter() - self._start
            suffix = f" ({elapsed:.2f}s; {self._budget})"
        self._print(f"{message}{suffix}")

    def _print(self, text: str) -> None:
        print(f"{PREFIX} {text}", file=self._out, flush=True)
