"""Mode objects: ``DPBayesSearchCV(method=PrivateSelection(...))`` and friends.

The mode's own parameters live on the mode object, nested in the search as
a kernel in ``GaussianProcessRegressor(kernel=...)``: ``method__<name>`` in
``get_params(deep=True)``, ``set_params`` and ``clone``; validated in
``fit`` before any data is read; the strings are shorthands for the
defaults; a former flat keyword says where it moved.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from conftest import NOISE_SEED_WARNING, RowSpyClassifier, make_spy_scorer
from sklearn.base import clone
from sklearn.gaussian_process.kernels import RBF
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, ParameterGrid, ShuffleSplit
from sklearn.utils._param_validation import InvalidParameterError

from sklearn_dpbo import DPBayesSearchCV
from sklearn_dpbo.model_selection import (
    DPGPUCB,
    FederatedLDP,
    Lipschitz,
    PrivateSelection,
    SearchMode,
)
from sklearn_dpbo.model_selection._modes import MODES, resolve_mode

pytestmark = [
    pytest.mark.usefixtures("single_blas_thread"),
    pytest.mark.filterwarnings(NOISE_SEED_WARNING),
    pytest.mark.filterwarnings("ignore::sklearn_dpbo.UselessReleaseWarning"),
]

MODE_CLASSES = [PrivateSelection, DPGPUCB, Lipschitz, FederatedLDP]
# A non-default value for every parameter of every mode.
NON_DEFAULT = {
    "shortlist": "grid",
    "shortlist_size": 5,
    "public_cv": 4,
    "selection": "exponential",
    "racing": 2.0,
    "public_budget": 1.5,
    "batch_size": 3,
    "kernel": RBF(length_scale=0.5),
    "noise": 0.05,
    "dataset_kernel": 0.9,
    "score_offset": 0.4,
    "score_scale": 0.3,
    "noise_free_constants": (1.0, 0.5),
    "noise_free_bound": "icml",
    "acquisition": "ei",
}
MOVED = sorted(NON_DEFAULT)
SPACE = {"C": [0.01, 0.1, 1.0, 10.0]}


def _spy_search(**kw):
    params = dict(scoring=make_spy_scorer(), n_iter=3, random_state=0)
    params.update(kw)
    return DPBayesSearchCV(RowSpyClassifier(), SPACE, **params)


def _fit(search, id_data):
    X, y, tr, va = id_data
    return search.fit(X[tr], y[tr], X_val=X[va], y_val=y[va])


# ---------------------------------------------------------------------------
# The mode objects themselves
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("cls", MODE_CLASSES)
def test_mode_params_round_trip_through_get_set_params_and_clone(cls):
    mode = cls()
    names = set(mode.get_params())
    assert names == set(cls._parameter_constraints)  # one rule per parameter
    changed = {k: NON_DEFAULT[k] for k in names}
    assert mode.set_params(**changed) is mode
    assert mode.get_params(deep=False) == changed
    # A kernel object's own parameters are nested, as in a GP regressor.
    assert mode.get_params()["kernel__length_scale"] == 0.5
    copy = clone(mode)
    assert copy is not mode and copy == mode
    assert copy.get_params(deep=False) == changed
    assert cls(**changed) == mode
    assert cls() != mode  # the comparison can fail
    with pytest.raises(ValueError, match="Invalid parameter"):
        mode.set_params(not_a_parameter=1)


def test_repr_shows_only_the_changed_parameters_like_a_kernel():
    assert repr(DPGPUCB()) == "DPGPUCB()"
    assert repr(DPGPUCB(noise=0.05)) == "DPGPUCB(noise=0.05)"
    assert repr(PrivateSelection(shortlist="grid", shortlist_size=5)) == (
        "PrivateSelection(shortlist='grid', shortlist_size=5)"
    )
    search = DPBayesSearchCV(LogisticRegression(), SPACE, method=DPGPUCB(noise=0.05))
    assert "method=DPGPUCB(noise=0.05)" in repr(search)


@pytest.mark.parametrize("name", sorted(MODES))
def test_string_shorthand_is_the_default_object(name):
    cls = MODES[name]
    assert cls.method == name and issubclass(cls, SearchMode)
    assert resolve_mode(name) == cls()
    user = cls()
    assert resolve_mode(user) == user and resolve_mode(user) is not user


@pytest.mark.parametrize(
    "name, kw", [("private-selection", {}), ("gp-ucb", dict(n_iter=2))]
)
def test_string_and_default_object_give_the_same_releases(id_data, name, kw):
    """Same public seed and noise seed: identical releases, bit for bit."""
    a = _fit(_spy_search(method=name, noise_random_state=3, **kw), id_data)
    b = _fit(_spy_search(method=MODES[name](), noise_random_state=3, **kw), id_data)
    assert (a.best_index_, a.best_score_) == (b.best_index_, b.best_score_)
    assert a.privacy_report_.to_dict() == b.privacy_report_.to_dict()


def test_a_mode_parameter_changes_what_the_mode_does(id_data):
    small = _fit(_spy_search(method=PrivateSelection(shortlist_size=1)), id_data)
    grid = _fit(_spy_search(method=PrivateSelection(shortlist="grid")), id_data)
    assert len(small.shortlist_) == 1
    assert sorted(grid.shortlist_.tolist()) == list(range(len(SPACE["C"])))
    # gp-ucb: k1 enters the sensitivity of best_params_ (Δ_μ = 2√β + c).
    a, b = (
        _fit(_spy_search(method=DPGPUCB(dataset_kernel=k1), n_iter=2), id_data)
        for k1 in (0.95, 0.5)
    )
    sens = [s.privacy_report_.releases[0]["sensitivity"] for s in (a, b)]
    assert sens[1] > sens[0]


# ---------------------------------------------------------------------------
# Nesting in the search
# ---------------------------------------------------------------------------
def test_nested_params_in_get_params_set_params_and_clone():
    mode = DPGPUCB(noise=0.05)
    search = DPBayesSearchCV(LogisticRegression(), SPACE, method=mode)
    deep = search.get_params(deep=True)
    assert deep["method"] is mode and deep["method__noise"] == 0.05
    assert {f"method__{k}" for k in mode.get_params()} <= set(deep)
    assert "method__noise" not in search.get_params(deep=False)

    search.set_params(method__noise=0.2, method__dataset_kernel=0.9)
    assert mode.noise == 0.2 and mode.dataset_kernel == 0.9

    copy = clone(search)
    assert copy.method is not mode and copy.method == mode
    copy.set_params(method__noise=0.3)
    assert mode.noise == 0.2  # the clone's mode is its own

    # A new mode and its parameter in one call, as GridSearchCV may do.
    search.set_params(method=PrivateSelection(), method__shortlist_size=4)
    assert search.method == PrivateSelection(shortlist_size=4)


def test_parameter_grid_over_nested_mode_params_as_gridsearchcv_does():
    base = DPBayesSearchCV(LogisticRegression(), SPACE, method=PrivateSelection())
    grid = ParameterGrid({"method__shortlist_size": [1, 2], "epsilon": [0.5, 1.0]})
    seen = set()
    for params in grid:
        s = clone(base).set_params(**params)
        seen.add((s.method.shortlist_size, s.epsilon))
        assert base.method.shortlist_size == 3  # the base is untouched
    assert seen == {(1, 0.5), (1, 1.0), (2, 0.5), (2, 1.0)}


def test_gridsearchcv_over_a_nested_mode_parameter(id_data):
    """An outer (public) GridSearchCV tunes a mode parameter of the search."""
    X, y, tr, _ = id_data
    inner = _spy_search(
        method=PrivateSelection(public_cv=2),
        cv=ShuffleSplit(n_splits=1, test_size=0.3, random_state=0),
        n_iter=2,
        noise_random_state=0,
    )
    outer = GridSearchCV(inner, {"method__shortlist_size": [1, 2]}, cv=2)
    outer.fit(X[tr], y[tr])
    assert [p["method__shortlist_size"] for p in outer.cv_results_["params"]] == [
        1,
        2,
    ]
    assert outer.best_estimator_.method.shortlist_size in (1, 2)
    assert inner.method.shortlist_size == 3  # never modified


def test_set_params_of_a_string_mode_says_what_to_pass():
    search = DPBayesSearchCV(LogisticRegression(), SPACE, method="gp-ucb")
    with pytest.raises(ValueError, match=r"set_params\(method=DPGPUCB\(noise=0.5\)\)"):
        search.set_params(method__noise=0.5)
    with pytest.raises(ValueError, match=r"method=DPGPUCB\(noise=0.5\)"):
        search.set_params(noise=0.5)
    assert search.method == "gp-ucb"


def test_fit_never_modifies_the_users_mode_object(id_data):
    mode = PrivateSelection(public_cv=2, shortlist_size=2)
    before = mode.get_params()
    search = _fit(_spy_search(method=mode), id_data)
    assert search.method is mode and mode.get_params() == before
    assert vars(mode).keys() == before.keys()  # nothing fitted on it


# ---------------------------------------------------------------------------
# Validation before any data is read
# ---------------------------------------------------------------------------
class _Untouchable:
    def __len__(self):
        raise AssertionError("the validation set was read")

    def __array__(self, *args, **kwargs):
        raise AssertionError("the validation set was read")


@pytest.mark.parametrize(
    "mode, error, match",
    [
        (DPGPUCB(noise=-1.0), InvalidParameterError, "'method__noise' parameter"),
        (DPGPUCB(kernel=RBF(0.0)), InvalidParameterError, "method__kernel"),
        (DPGPUCB(dataset_kernel=1.5), InvalidParameterError, "method__dataset"),
        (DPGPUCB(kernel="rbf"), InvalidParameterError, "method__kernel"),
        (DPGPUCB(noise=0.0), ValueError, r"noise_free_constants=\(A, tau\)"),
        (DPGPUCB(noise=0.0, noise_free_constants=(1.0, -1.0)), ValueError, "tau"),
        (DPGPUCB(batch_size=2), ValueError, "release_score=False"),
        (DPGPUCB(score_scale=0.01), ValueError, "score_scale=0.01 is below"),
        (PrivateSelection(shortlist="all"), InvalidParameterError, "shortlist'"),
        (PrivateSelection(shortlist_size=0), InvalidParameterError, "shortlist_"),
        (PrivateSelection(shortlist_size=True), ValueError, "not a bool"),
        (PrivateSelection(public_cv=1), InvalidParameterError, "method__public_cv"),
        (PrivateSelection(selection="max"), InvalidParameterError, "selection"),
        (Lipschitz(acquisition="pi"), InvalidParameterError, "method__acquisition"),
        (FederatedLDP(kernel=RBF(-1.0)), InvalidParameterError, "method__kernel"),
    ],
    ids=repr,
)
def test_mode_params_are_validated_in_fit_before_any_data(
    id_data, spy_log, mode, error, match
):
    X, y, tr, _ = id_data
    search = _spy_search(method=mode)
    with pytest.raises(error, match=match):
        search.fit(X[tr], y[tr], X_val=_Untouchable(), y_val=_Untouchable())
    assert spy_log == []  # nothing was fitted or scored
    assert not hasattr(search, "best_params_")


def test_method_of_the_wrong_type_is_refused():
    with pytest.raises(InvalidParameterError, match="'method' parameter"):
        _spy_search(method=LogisticRegression()).fit(np.zeros((4, 2)), [0, 1] * 2)


def test_a_mode_of_unknown_class_is_refused(id_data, spy_log):
    class Custom(PrivateSelection):
        pass

    X, y, tr, _ = id_data
    with pytest.raises(ValueError, match="not one of the library's modes"):
        _spy_search(method=Custom()).fit(X[tr], y[tr], X_val=_Untouchable(), y_val=1)
    assert spy_log == []


# ---------------------------------------------------------------------------
# The constructor and the moved keywords
# ---------------------------------------------------------------------------
def test_the_constructor_holds_only_mode_independent_parameters():
    params = list(inspect.signature(DPBayesSearchCV).parameters)
    assert params == [
        "estimator",
        "search_spaces",
        "method",
        "epsilon",
        "delta",
        "budget_split",
        "release_score",
        "n_iter",
        "n_candidates",
        "scoring",
        "refit",
        "cv",
        "n_jobs",
        "pre_dispatch",
        "verbose",
        "error_score",
        "random_state",
        "noise_random_state",
        "accountant",
    ]
    assert not set(params) & set(MOVED)


@pytest.mark.parametrize("name", MOVED)
def test_a_moved_keyword_says_where_it_moved(name):
    value = NON_DEFAULT[name]
    owner = next(c for c in MODE_CLASSES if name in c._parameter_constraints)
    # The constructor: Python's own error, as for any unknown keyword.
    with pytest.raises(TypeError, match=f"unexpected keyword argument {name!r}"):
        DPBayesSearchCV(LogisticRegression(), SPACE, **{name: value})
    # set_params: where it moved.
    with pytest.raises(ValueError) as info:
        DPBayesSearchCV(LogisticRegression(), SPACE).set_params(**{name: value})
    msg = str(info.value)
    assert f"Invalid parameter {name!r}" in msg
    assert f"method={owner.__name__}({name}={value!r})" in msg
    assert f"set_params(method__{name}=...)" in msg


def test_a_moved_keyword_names_the_mode_given_first():
    search = DPBayesSearchCV(LogisticRegression(), SPACE, method="gp-ucb")
    with pytest.raises(ValueError, match=r"pass method=DPGPUCB\(noise=0.05\)"):
        search.set_params(noise=0.05)
    with pytest.raises(ValueError, match=r"pass method=Lipschitz\(noise=0.05\)"):
        search.set_params(method=Lipschitz(), noise=0.05)
    assert search.method == "gp-ucb"  # nothing set
    # scikit-learn's own error for a keyword that never existed.
    with pytest.raises(ValueError, match="Invalid parameter 'nosie'"):
        search.set_params(nosie=0.05)
