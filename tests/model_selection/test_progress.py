"""verbose progress lines: public steps, elapsed time and budget before the
private read; nothing measured after it (issue 19, N4:
tests/model_selection/test_verbose_sealed.py)."""

from __future__ import annotations

import re
import warnings

import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_dpbo import DPBayesSearchCV
from sklearn_dpbo.model_selection._modes import MODES


def _fit_lines(method, verbose, capsys):
    X, y = load_breast_cancer(return_X_y=True)
    search = DPBayesSearchCV(
        make_pipeline(StandardScaler(), LogisticRegression(max_iter=200)),
        {"logisticregression__C": (1e-2, 1e2, "log-uniform")},
        # One progress line per BO step, so one per iteration.
        method=MODES[method](batch_size=1),
        epsilon=0.7,
        delta=1e-6,
        n_iter=3,
        n_candidates=16,
        verbose=verbose,
        random_state=0,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        search.fit(X[:300], y[:300], X_val=X[300:], y_val=y[300:])
    return capsys.readouterr().out.strip().splitlines()


# The delta actually spent: none in the pure epsilon-DP mode.
SPENT_DELTA = {"private-selection": "0", "gp-ucb": "1e-06"}
DONE = "[DPBayesSearchCV] done"


@pytest.mark.parametrize("method", ["private-selection", "gp-ucb"])
def test_verbose_prints_public_steps_time_and_budget(method, capsys):
    """Steps of the public search (before the read) carry time and budget;
    after the read line there is only "done", with no figure (issue 19, N4)."""
    delta = SPENT_DELTA[method]
    lines = _fit_lines(method, 2, capsys)
    steps = [ln for ln in lines if re.search(r"iteration \d+/3 ", ln)]
    # gp-ucb's steps are private: no line per step (announced before the read).
    assert len(steps) == (3 if method == "private-selection" else 0)
    for ln in steps:
        assert re.search(rf"\(\d+\.\d+s; budget epsilon=0\.7, delta={delta}\)$", ln), ln
    assert f"budget epsilon=0.7, delta={delta}" in lines[0]
    if method == "gp-ucb":
        assert "Bayesian optimisation: 3 steps on the validation set" in lines[1]
    assert lines[-2].startswith("[DPBayesSearchCV] reading the validation set")
    assert lines[-1] == DONE
    # No number other than the step, the elapsed time and the budget.
    for ln in lines:
        public = rf"\d+\.\d+s|epsilon=0\.7|delta={delta}|\d+/3|3 steps|16 candidates"
        rest = re.sub(public + r"|scoring \d+ shortlisted", "", ln)
        assert not re.search(r"\d", rest), ln


@pytest.mark.parametrize("method", ["private-selection", "gp-ucb"])
def test_verbose_levels_differ(method, capsys):
    """1: plan, phases, read, end; 2: also every public search step;
    3: timings on every line before the read (never after it)."""
    one, two, three = (_fit_lines(method, v, capsys) for v in (1, 2, 3))
    assert not any("iteration" in ln for ln in one)
    n_public_steps = 3 if method == "private-selection" else 0
    assert len(two) == len(one) + n_public_steps and len(three) == len(two)
    timed = re.compile(r"\(\d+\.\d+s; budget")
    assert not any(timed.search(ln) for ln in one)
    middle = [ln for ln in three[1:-1]]  # the plan line and "done": no time
    assert middle and all(timed.search(ln) for ln in middle)
    assert one[-1] == two[-1] == three[-1] == DONE
