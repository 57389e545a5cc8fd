"""A validation record that pickles in the parent but does not unpickle in a
worker fails alone (rule 3); its unpickling prints nothing (rule 1).

Each object record travels pickled alone and is unpickled alone, silently
(:meth:`Records.picklable`). Before, loky unpickled the whole block before
scoring started: one such record failed its job, ``fit`` raised
``PrivateComputationError`` with the budget spent (rules 3 and 6).
"""

from __future__ import annotations

import pickle
import sys
import types

import numpy as np
import pandas as pd
import pytest
from conftest import UnpicklesBadly

from sklearn_dpbo.privacy._records import Records


@pytest.mark.parametrize("kind", ["array", "frame", "list"])
def test_a_record_that_does_not_unpickle_fails_alone(kind, capsys):
    module = types.ModuleType("recfix_gone_module")
    exec("class Gone:\n    pass\n", module.__dict__)
    rows = [["a", 1], [UnpicklesBadly(), 2], ["c", 3], [module.Gone(), 4]]
    if kind == "array":
        X = np.empty((4, 2), dtype=object)
        for i, row in enumerate(rows):
            X[i, 0], X[i, 1] = row
    elif kind == "frame":
        X = pd.DataFrame({"s": [r[0] for r in rows], "n": [1.0, 2.0, 3.0, 4.0]})
    else:
        X = rows
    sys.modules[module.__name__] = module
    try:
        records = Records(X=X, y=np.arange(4.0), ok=np.ones(4, dtype=bool))
        blob = pickle.dumps(records.picklable())  # the parent's side
    finally:
        del sys.modules[module.__name__]  # the worker cannot import it
    sent = pickle.loads(blob)
    assert sent.ok.tolist() == [True, False, True, False]
    assert capsys.readouterr().out == ""  # the unpickling printed, withheld
    if kind == "array":
        assert sent.X[[0, 2]].tolist() == [["a", 1], ["c", 3]]
    elif kind == "frame":
        assert sent.X["s"].iloc[[0, 2]].tolist() == ["a", "c"]
        assert sent.X["n"].tolist() == [1.0, 2.0, 3.0, 4.0]
        assert list(sent.X.dtypes) == list(X.dtypes)
    else:
        assert [sent.X[0], sent.X[2]] == [["a", 1], ["c", 3]]


def test_blocks_of_sent_records_keep_their_records():
    X = np.array([[str(i)] for i in range(10)], dtype=object)
    X[7, 0] = UnpicklesBadly()
    records = Records(X=X, y=np.zeros(10), ok=np.ones(10, dtype=bool))
    part = pickle.loads(pickle.dumps(records.picklable().take([8, 7, 2])))
    assert part.ok.tolist() == [True, False, True]
    assert part.X[[0, 2], 0].tolist() == ["8", "2"]
    numeric = Records(X=np.ones((3, 2)), y=None, ok=np.ones(3, dtype=bool))
    assert numeric.picklable() is numeric  # numbers: sent as they are
