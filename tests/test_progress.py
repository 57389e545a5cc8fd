"""verbose progress lines: iteration, elapsed time and budget, nothing private."""

from __future__ import annotations

import re
import warnings

import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_dpbo import DPBayesSearchCV


@pytest.mark.parametrize("method", ["private-selection", "gp-ucb"])
def test_verbose_prints_iteration_time_and_budget(method, capsys):
    X, y = load_breast_cancer(return_X_y=True)
    search = DPBayesSearchCV(
        make_pipeline(StandardScaler(), LogisticRegression(max_iter=200)),
        {"logisticregression__C": (1e-2, 1e2, "log-uniform")},
        method=method,
        epsilon=0.7,
        delta=1e-6,
        n_iter=3,
        n_candidates=16,
        batch_size=1,  # one progress line per BO step, so one per iteration
        verbose=1,
        random_state=0,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        search.fit(X[:300], y[:300], X_val=X[300:], y_val=y[300:])
    lines = capsys.readouterr().out.strip().splitlines()
    steps = [ln for ln in lines if re.search(r"iteration \d+/3 ", ln)]
    assert len(steps) == 3
    for ln in steps:
        assert re.search(r"\(\d+\.\d+s; budget epsilon=0\.7, delta=1e-06\)$", ln), ln
    assert lines[-1].startswith("[DPBayesSearchCV] done in ")
    # No number other than the step, the elapsed time and the budget.
    for ln in lines:
        rest = re.sub(r"\d+\.\d+s|epsilon=0\.7|delta=1e-06|\d+/3", "", ln)
        assert not re.search(r"\d\.\d", rest), ln
