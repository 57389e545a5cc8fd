"""Issue 36, items 1 to 3: three silent failures a new user hits.

1. A column-vector target (``y`` or ``y_val`` of shape (n, 1), a one-column
   DataFrame) is made 1-D with scikit-learn's ``DataConversionWarning`` in
   every mode (it released garbage in the validation modes and was refused
   by the private-model mode); a target with several columns (for a
   single-output estimator) or with the wrong number of rows is refused
   from its shape, before any budget is charged.
2. A refit that fails after the charge leaves the paid-for releases in
   place, with a ``FitFailedWarning`` naming the refit's error.
3. The search as a Pipeline step: scikit-learn's ``transform_input=
   ["X_val"]`` with metadata routing sends ``X_val`` through the preceding
   steps; the plain ``step__X_val`` form is refused where its types show it.
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import numpy as np
import pytest
from conftest import NOISE_SEED_WARNING
from sklearn import config_context
from sklearn.exceptions import DataConversionWarning, FitFailedWarning
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import Normalizer, StandardScaler

from sklearn_dpbo import BudgetAccountant, DPBayesSearchCV, PrivacyLeakWarning
from sklearn_dpbo.dp_learners import DPLogisticRegression
from sklearn_dpbo.model_selection import PrivateModel, PrivateSelection, WholeData

pytestmark = pytest.mark.filterwarnings(NOISE_SEED_WARNING)

GRID = {"logisticregression__C": [0.01, 0.1, 1.0, 10.0]}
DOCS = Path(__file__).resolve().parents[2] / "docs"


def _frame(*args, **kw):
    """A pandas DataFrame (pandas is a test extra, absent from the smoke lanes)."""
    return pytest.importorskip("pandas").DataFrame(*args, **kw)


def _pipe():
    return make_pipeline(StandardScaler(), LogisticRegression())


def _releases(search) -> tuple:
    return (
        search.best_params_,
        getattr(search, "best_score_", None),
        search.privacy_report_.to_dict(),
    )


def _fit(search, X, y, **kw):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        search.fit(X, y, **kw)
    kinds = [w.category for w in caught if w.category is not PrivacyLeakWarning]
    return search, kinds


# ---------------------------------------------------------------------------
# 1. Column-vector targets, in every mode
# ---------------------------------------------------------------------------
def _validation_modes(cancer_split):
    X_tr, y_tr, X_va, y_va = cancer_split
    groups = np.repeat(np.arange(len(y_va)), 1)
    lipschitz = make_pipeline(
        StandardScaler(), Normalizer(), LogisticRegression(fit_intercept=False)
    )
    return {
        "grid": (_pipe(), GRID, {"method": PrivateSelection(shortlist="grid")}, {}),
        "gp-ucb": (_pipe(), GRID, {"method": "gp-ucb", "n_iter": 3}, {}),
        "lipschitz": (
            lipschitz,
            {"logisticregression__C": (1e-2, 1e2, "log-uniform")},
            {"method": "lipschitz", "scoring": "neg_sigmoid_loss", "n_iter": 2},
            {},
        ),
        "federated-ldp": (
            _pipe(),
            GRID,
            {"method": "federated-ldp", "n_iter": 3},
            {"val_groups": groups},
        ),
    }, (X_tr, y_tr, X_va, y_va)


@pytest.mark.parametrize(
    "mode, where, container",
    [
        ("grid", "y_val", "array"),
        ("grid", "y_val", "frame"),
        ("grid", "y", "frame"),
        ("grid", "both", "array"),
        ("gp-ucb", "both", "frame"),
        ("lipschitz", "both", "array"),
        ("federated-ldp", "both", "frame"),
    ],
)
def test_column_vector_targets_in_the_validation_modes(
    cancer_split, mode, where, container
):
    """The same releases (same public and noise seeds) as with 1-D targets,
    and one DataConversionWarning per column-vector target."""
    modes, (X_tr, y_tr, X_va, y_va) = _validation_modes(cancer_split)
    est, space, kw, fit_kw = modes[mode]

    def column(v):
        return v[:, None] if container == "array" else _frame({"target": v})

    def search():
        return DPBayesSearchCV(
            est, space, random_state=0, noise_random_state=1, n_candidates=4, **kw
        )

    flat, flat_kinds = _fit(search(), X_tr, y_tr, X_val=X_va, y_val=y_va, **fit_kw)
    y_col = column(y_tr) if where in ("y", "both") else y_tr
    y_val_col = column(y_va) if where in ("y_val", "both") else y_va
    col, kinds = _fit(search(), X_tr, y_col, X_val=X_va, y_val=y_val_col, **fit_kw)
    assert _releases(col) == _releases(flat)
    assert kinds.count(DataConversionWarning) == (2 if where == "both" else 1)
    assert [k for k in kinds if k is not DataConversionWarning] == flat_kinds


def test_issue_call_releases_the_one_dimensional_result(cancer_split):
    """The issue's call: y_val[:, None] released best_score_ ~0 (1-D: ~0.95)."""
    X_tr, y_tr, X_va, y_va = cancer_split
    search = DPBayesSearchCV(_pipe(), GRID, random_state=0, noise_random_state=0)
    with pytest.warns(DataConversionWarning, match="column-vector y_val"):
        search.fit(X_tr, y_tr, X_val=X_va, y_val=y_va[:, None])
    assert search.best_score_ > 0.8


def _whole_data_search(**kw):
    return DPBayesSearchCV(
        _pipe(),
        {"logisticregression__C": [0.1, 1.0]},
        method=WholeData(n_parts=10, max_selection_noise=None),
        refit=False,
        random_state=0,
        noise_random_state=2,
        **kw,
    )


def _private_model_search(**kw):
    return DPBayesSearchCV(
        DPLogisticRegression(data_norm=1.0),
        {"C": [0.01, 0.1, 1.0]},
        method=PrivateModel(strategy="split"),
        scoring="accuracy",
        random_state=0,
        noise_random_state=3,
        **kw,
    )


def _rows(n=400, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = (X[:, 0] + 0.3 * rng.normal(size=n) > 0).astype(int)
    return X / 4, y


@pytest.mark.parametrize(
    "make, container",
    [
        (_whole_data_search, "frame"),
        (_private_model_search, "array"),
        (_private_model_search, "frame"),
    ],
)
def test_column_vector_y_in_the_whole_data_modes(make, container):
    """Whole-data and private-model agree with the validation modes: the
    private-model mode refused a column vector before; both now release
    what the 1-D y gives."""
    X, y = _rows()
    y_col = y[:, None] if container == "array" else _frame({"t": y})
    flat, flat_kinds = _fit(make(), X, y)
    col, kinds = _fit(make(), X, y_col)
    assert _releases(col)[:2] == _releases(flat)[:2]
    assert kinds.count(DataConversionWarning) == 1
    assert [k for k in kinds if k is not DataConversionWarning] == flat_kinds


def _all_mode_searches(acc):
    return {
        "validation": (DPBayesSearchCV(_pipe(), GRID, accountant=acc), True),
        "whole-data": (_whole_data_search(accountant=acc), False),
        "private-model": (_private_model_search(accountant=acc), False),
    }


@pytest.mark.parametrize("mode", ["validation", "whole-data", "private-model"])
@pytest.mark.parametrize(
    "bad, match",
    [
        (lambda y: np.column_stack([y, y]), r"y has shape \(\d+, 2\)"),
        (lambda y: y[:, None, None], r"y has shape \(\d+, 1, 1\)"),
        (lambda y: y[:-1], r"X has \d+ rows but y has \d+"),
        (lambda y: _frame({"a": y, "b": y}), r"y has shape \(\d+, 2\)"),
    ],
    ids=["two-columns", "3-d", "short", "two-column-frame"],
)
def test_bad_y_shape_refused_before_any_charge(mode, bad, match):
    """From the shape only, before the charge: the accountant is unchanged.
    A NaN in a private row does not make the refusal (nor its absence)."""
    X, y = _rows()
    X[3, 2] = np.nan  # a value: never looked at before the charge
    acc = BudgetAccountant(epsilon=10.0, delta=1e-3)
    search, validation = _all_mode_searches(acc)[mode]
    kw = {"X_val": X[300:], "y_val": y[300:]} if validation else {}
    X_fit, y_fit = (X[:300], y[:300]) if validation else (X, y)
    with pytest.raises(ValueError, match=match):
        search.fit(X_fit, bad(y_fit), **kw)
    assert acc.history == () and acc.spent == (0.0, 0.0)


@pytest.mark.parametrize(
    "bad, match",
    [
        (lambda y: np.column_stack([y, y]), r"y_val has shape \(\d+, 2\)"),
        (lambda y: y[:-1], r"X_val has \d+ rows but y_val has \d+"),
    ],
    ids=["two-columns", "short"],
)
def test_bad_y_val_shape_refused_before_any_charge(cancer_split, bad, match):
    X_tr, y_tr, X_va, y_va = cancer_split
    acc = BudgetAccountant(epsilon=10.0, delta=1e-3)
    search = DPBayesSearchCV(_pipe(), GRID, accountant=acc)
    with pytest.raises(ValueError, match=match):
        search.fit(X_tr, y_tr, X_val=X_va, y_val=bad(y_va))
    assert acc.history == ()


def test_multi_output_targets_keep_their_columns():
    """Several target columns stay allowed where the estimator declares
    multi-output support; y_val must then have as many columns as y."""
    from sklearn.neighbors import KNeighborsClassifier

    X, y = _rows()
    Y = np.column_stack([y, 1 - y])
    search = DPBayesSearchCV(
        KNeighborsClassifier(), {"n_neighbors": [1, 5]}, noise_random_state=0
    )
    search.fit(X[:300], Y[:300], X_val=X[300:], y_val=Y[300:])
    assert search.best_estimator_.predict(X[:2]).shape == (2, 2)
    with pytest.raises(
        ValueError, match=r"y has target shape \(2,\) per row but y_val has \(\)"
    ):
        search.fit(X[:300], Y[:300], X_val=X[300:], y_val=y[300:])


def test_column_vector_decided_by_shape_not_by_values(cancer_split):
    """V/V': y_val column vectors differing in one record (a valid label, a
    NaN) behave alike before the release: same warnings, no exception, one
    charge each; the odd record only scores as a miss."""
    X_tr, y_tr, X_va, y_va = cancer_split
    outcomes = []
    for value in (y_va[0], np.nan):
        y_col = y_va[:, None].astype(float)
        y_col[0, 0] = value
        acc = BudgetAccountant(epsilon=10.0)
        search = DPBayesSearchCV(
            _pipe(),
            GRID,
            method=PrivateSelection(shortlist="grid"),
            accountant=acc,
            noise_random_state=0,
        )
        search, kinds = _fit(search, X_tr, y_tr, X_val=X_va, y_val=y_col)
        outcomes.append((kinds, acc.history, sorted(vars(search))))
    assert outcomes[0] == outcomes[1]


# ---------------------------------------------------------------------------
# 2. A refit that fails after the charge: the releases stand
# ---------------------------------------------------------------------------
def _nan_rows(n=2000, nan=True):
    X, y = _rows(n, seed=1)
    if nan:
        X[3, 2] = np.nan
    return X, y


def _whole_data_fit(X, y):
    acc = BudgetAccountant(epsilon=10.0)
    search = DPBayesSearchCV(
        _pipe(), GRID, accountant=acc, random_state=0, noise_random_state=4
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        search.fit(X, y)
    return search, acc, caught


def test_whole_data_refit_failure_keeps_the_releases():
    """The issue's call (a NaN in one row, refit=True, the default): the
    releases are set, charged once, and the refit's error is named."""
    search, acc, caught = _whole_data_fit(*_nan_rows())
    failed = [w for w in caught if w.category is FitFailedWarning]
    assert len(failed) == 1
    assert "ValueError: Input X contains NaN" in str(failed[0].message)
    assert "releases stand" in str(failed[0].message)
    assert {"best_params_", "best_score_", "privacy_report_"} <= set(vars(search))
    assert search.best_params_ in search.candidate_params_
    assert 0.0 <= search.best_score_ <= 1.0
    assert len(acc.history) == 1 and acc.spent[0] == 1.0
    assert "best_estimator_" not in vars(search)
    assert not hasattr(search, "predict")
    with pytest.raises(AttributeError) as info:
        search.predict(np.zeros((1, 3)))
    assert "refit of best_estimator_ failed" in str(info.value.__cause__)


def test_whole_data_refit_failure_handled_alike_whether_or_not_it_occurs():
    """V/V' (one row differs: a NaN makes the non-private refit fail): the
    releases are handled identically, the same attributes but
    best_estimator_ and refit_time_, the same report but the released
    values, the same charge, the same warnings but the refit's own
    FitFailedWarning (about the refit already announced as non-private by
    the PrivacyLeakWarning both fits give)."""
    runs = [_whole_data_fit(*_nan_rows(nan=nan)) for nan in (False, True)]
    (ok, ok_acc, ok_w), (bad, bad_acc, bad_w) = runs

    def report(search):
        out = search.privacy_report_.to_dict()
        for r in out["releases"]:
            r.pop("value", None)
        return out

    assert set(vars(ok)) - set(vars(bad)) == {"best_estimator_", "refit_time_"}
    assert set(vars(bad)) <= set(vars(ok))
    assert report(ok) == report(bad)
    assert ok_acc.history == bad_acc.history

    # The library's own warnings (those of the estimator's successful refit,
    # e.g. a solver's DeprecationWarning, aside: that refit is not private).
    def own(caught):
        return [
            (w.category, str(w.message))
            for w in caught
            if w.category.__module__.startswith("sklearn_dpbo")
        ]

    assert own(ok_w) == own(bad_w)
    assert any(c is PrivacyLeakWarning and "refit" in t for c, t in own(ok_w))
    assert [w.category for w in ok_w].count(FitFailedWarning) == 0
    assert [w.category for w in bad_w].count(FitFailedWarning) == 1


_LEDGER: list = []


class _FailsAfterCharge(LogisticRegression):
    """Fails once the ledger is charged: gp-ucb's post-read fits and refit."""

    def fit(self, X, y, **kw):
        if _LEDGER and _LEDGER[0].spent[0] > 0:
            raise RuntimeError("refit failed on purpose")
        return super().fit(X, y, **kw)


def test_validation_refit_failure_keeps_the_releases(cancer_split):
    """gp-ucb refits best_params_ on the public training rows after the
    charge; a failure there warns with its (public) error."""
    X_tr, y_tr, X_va, y_va = cancer_split
    acc = BudgetAccountant(epsilon=10.0, delta=1e-3)
    _LEDGER[:] = [acc]
    search = DPBayesSearchCV(
        make_pipeline(StandardScaler(), _FailsAfterCharge()),
        {"_failsaftercharge__C": [0.1, 1.0]},
        method="gp-ucb",
        n_iter=2,
        accountant=acc,
        random_state=0,
    )
    try:
        with pytest.warns(FitFailedWarning, match="RuntimeError: refit failed on"):
            search.fit(X_tr, y_tr, X_val=X_va, y_val=y_va)
    finally:
        _LEDGER.clear()
    assert {"best_params_", "best_score_", "privacy_report_"} <= set(vars(search))
    assert "best_estimator_" not in vars(search)
    assert len(acc.history) == 1


# ---------------------------------------------------------------------------
# 3. The search as a Pipeline step
# ---------------------------------------------------------------------------
def _routed_pipeline(search):
    return Pipeline(
        [
            ("scaler", StandardScaler()),
            ("search", search.set_fit_request(X_val=True, y_val=True)),
        ],
        transform_input=["X_val"],
    )


def test_pipeline_transform_input_sends_x_val_through_the_preceding_steps(
    cancer_split,
):
    """Equal releases (same seeds) to scaling X_val by hand with the scaler
    fitted on the training rows: X_val went through the preceding steps."""
    X_tr, y_tr, X_va, y_va = cancer_split

    def search():
        return DPBayesSearchCV(
            LogisticRegression(),
            {"C": [0.01, 0.1, 1.0, 10.0]},
            random_state=0,
            noise_random_state=5,
        )

    scaler = StandardScaler().fit(X_tr)
    by_hand = search().fit(
        scaler.transform(X_tr), y_tr, X_val=scaler.transform(X_va), y_val=y_va
    )
    with config_context(enable_metadata_routing=True):
        pipe = _routed_pipeline(search()).fit(X_tr, y_tr, X_val=X_va, y_val=y_va)
        # Pipeline.score passes sample_weight=None to a routed last step.
        assert pipe.score(X_va, y_va) == by_hand.score(scaler.transform(X_va), y_va)
    assert _releases(pipe[-1]) == _releases(by_hand)
    assert pipe[-1].best_score_ > 0.8
    np.testing.assert_array_equal(
        pipe.predict(X_va), by_hand.predict(scaler.transform(X_va))
    )


def test_routing_lists_the_search_requests_and_keeps_groups_for_the_splitter():
    with config_context(enable_metadata_routing=True):
        search = DPBayesSearchCV(LogisticRegression(), {"C": [1.0]})
        fit_requests = search.get_metadata_routing()._self_request.fit.requests
        assert set(fit_requests) == {"X_val", "y_val", "val_groups"}
        search.set_fit_request(X_val=True, y_val=True)
        fit_requests = search.get_metadata_routing()._self_request.fit.requests
        assert fit_requests["X_val"] is True and fit_requests["y_val"] is True


def test_plain_pipeline_step_refused_when_its_types_show_it(cancer_split):
    """``pipe.fit(X, y, step__X_val=...)`` with a DataFrame: X reaches the
    search as the scaler's array, X_val as the user's DataFrame: refused
    before any charge (it released a score on unscaled features)."""
    X_tr, y_tr, X_va, y_va = cancer_split
    cols = [f"f{i}" for i in range(X_tr.shape[1])]
    df_tr, df_va = _frame(X_tr, columns=cols), _frame(X_va, columns=cols)
    acc = BudgetAccountant(epsilon=10.0)
    search = DPBayesSearchCV(LogisticRegression(), {"C": [0.1, 1.0]}, accountant=acc)
    pipe = make_pipeline(StandardScaler(), search)
    with pytest.raises(
        ValueError, match=r"X_val is a DataFrame but X is not.*transform_input"
    ):
        pipe.fit(df_tr, y_tr, dpbayessearchcv__X_val=df_va, dpbayessearchcv__y_val=y_va)
    assert acc.history == ()


def test_docs_pipeline_example_runs():
    """The example of docs/coming_from_gridsearchcv.md runs as written."""
    text = (DOCS / "coming_from_gridsearchcv.md").read_text()
    section = text[text.index("## The search as a Pipeline step") :]
    section = section[: section.index("\n## ", 1)]
    blocks = re.findall(r"```python\n(.*?)```", section, flags=re.S)
    assert any("transform_input" in code for code in blocks)
    namespace: dict = {}
    with config_context(), warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        for code in blocks:
            exec(compile(code, "coming_from_gridsearchcv.md", "exec"), namespace)
    assert namespace["pipe"][-1].best_score_ > 0.8
