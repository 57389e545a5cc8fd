"""The search's verbose lines, sealed at the first read of the validation set.

Before the validation set is read, everything the search does is public
work (the plan, the public search on the training set, public fits and
checks), so a line may carry figures measured then: the step, the elapsed
time. From the first private read on, any figure measured (an elapsed
time, a count of anything that happened) could describe validation data:
in ``"gp-ucb"`` the per-step durations spell out the privately chosen
candidates, and a failing record's bisection costs extra ``predict``
calls. The moment a line appears is a measurement too (a terminal or a
log collector time-stamps it), so after the read the printer prints no
line until the fit ends.

By construction: the private-read hook seals the printer before
``X_val`` is handed out, and a sealed printer ignores every message; the
only later line is the fixed ``"done"`` when ``fit`` returns.
"""

from __future__ import annotations

import sys
import time

PREFIX = "[DPBayesSearchCV]"

READ_TEXT = "reading {} (from here on: no line until done, no figure)"
"""Printed (level 1) at the first private read, naming what is read."""

DONE_LINE = "done"
"""The one line printed after the read, when ``fit`` returns."""


class ProgressPrinter:
    """Verbose lines of one ``fit``: figures before the private read, none after.

    Parameters
    ----------
    verbose : int
        ``DPBayesSearchCV.verbose``. 1: the plan, the phases, the read and
        the end; 2: also every step of the public search (before the read);
        3 and more: also the elapsed time and the budget on every line
        printed before the read.
    budget : tuple of float
        The (ε, δ) the fit spends, fixed before any data is read.
    private : str, default="the validation set"
        What the first private read reads, for the read line.
    """

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
        # The stream of the user's prints, taken before any private section
        # (those swap sys.stdout for a dropped buffer): the read line is
        # printed from inside one.
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
