"""The Examples sections of the main classes' docstrings run (doctest).

The Sphinx build does not run doctests, so the examples of the classes a
user meets first are run here: ``DPBayesSearchCV``,
``DPGaussianProcessRegressor`` and ``BudgetAccountant``. Their outputs are
chosen not to depend on the (fresh) privacy noise.
"""

from __future__ import annotations

import doctest

import pytest

from sklearn_dpbo import BudgetAccountant, DPBayesSearchCV, DPGaussianProcessRegressor

CLASSES = [DPBayesSearchCV, DPGaussianProcessRegressor, BudgetAccountant]


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_class_docstring_examples_run(cls):
    assert "Examples\n    --------" in cls.__doc__, f"{cls.__name__}: no Examples"
    (test,) = doctest.DocTestFinder(recurse=False).find(cls, globs={cls.__name__: cls})
    assert len(test.examples) >= 3
    runner = doctest.DocTestRunner(
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    )
    runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{cls.__name__}: {result}"
