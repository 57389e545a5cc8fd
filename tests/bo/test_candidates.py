"""Tests of the finite public candidate set Λ (``DPBO.md`` §2)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats
from sklearn.model_selection import ParameterGrid

from sklearn_dpbo.bo._candidates import CandidateSet


def _as_set(params):
    return {tuple(sorted((k, repr(v)) for k, v in p.items())) for p in params}


# ---------------------------------------------------------------------------
# Grids
# ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "grid",
    [
        {"C": [0.1, 1.0, 10.0]},
        {"C": [0.1, 1.0, 10.0], "kernel": ["rbf", "linear"], "degree": [2, 3]},
        {"penalty": ["l2"], "C": [1, 2, 3, 4]},
        {"fit_intercept": [True, False], "alpha": [1e-4, 1e-2, 1.0]},
    ],
)
def test_grid_equals_parameter_grid(grid):
    cs = CandidateSet(grid)
    assert cs.params == list(ParameterGrid(grid))
    assert len(cs) == len(ParameterGrid(grid))
    assert cs.X.shape[0] == len(cs)
    assert np.all((cs.X >= 0) & (cs.X <= 1))
    # Distinct candidates get distinct encodings.
    assert len({tuple(row) for row in cs.X}) == len(cs)


def test_grid_encoding_hand_values():
    cs = CandidateSet({"C": [1e-2, 1.0, 1e2], "kernel": ["rbf", "linear"]})
    by_params = {(p["C"], p["kernel"]): row for p, row in zip(cs.params, cs.X)}
    # C spans four decades: encoded as (log10 C + 2) / 4; kernel is one-hot.
    np.testing.assert_allclose(by_params[(1e-2, "rbf")], [0.0, 1.0, 0.0])
    np.testing.assert_allclose(by_params[(1.0, "linear")], [0.5, 0.0, 1.0])
    np.testing.assert_allclose(by_params[(1e2, "rbf")], [1.0, 1.0, 0.0])
    # A narrow numeric list is min-max encoded on the linear scale.
    cs = CandidateSet({"x": [2.0, 3.0, 6.0]})
    np.testing.assert_allclose(cs.X[:, 0], [0.0, 0.25, 1.0])


def test_single_value_dimension_has_no_column():
    cs = CandidateSet({"C": [1.0, 2.0], "kernel": ["rbf"]})
    assert cs.X.shape == (2, 1)
    assert cs.params == [{"C": 1.0, "kernel": "rbf"}, {"C": 2.0, "kernel": "rbf"}]


def test_list_of_dicts_is_the_union():
    spaces = [
        {"kernel": ["linear"], "C": [1, 10]},
        {"kernel": ["rbf"], "C": [1, 10], "gamma": [0.1, 1.0]},
    ]
    cs = CandidateSet(spaces)
    assert cs.params == list(ParameterGrid(spaces))
    assert cs.parameter_names == {"kernel", "C", "gamma"}
    # One-hot block identifying the dict, then each dict's own columns.
    np.testing.assert_array_equal(cs.X[:, :2].sum(axis=1), 1.0)
    np.testing.assert_array_equal(cs.X[:2, 0], 1.0)
    assert len({tuple(row) for row in cs.X}) == len(cs)


def test_union_removes_settings_shared_by_several_dicts():
    spaces = [{"C": [1, 2]}, {"C": [2, 3]}, {"C": [3, 1]}]
    cs = CandidateSet(spaces)
    assert cs.params == [{"C": 1}, {"C": 2}, {"C": 3}]
    assert _as_set(cs.params) == _as_set(ParameterGrid(spaces))


def test_union_of_grid_and_range():
    spaces = [{"C": [0.5, 1.0]}, {"C": (1e-3, 1e3, "log-uniform")}]
    cs = CandidateSet(spaces, n_candidates=16, seed=1)
    assert cs.params[:2] == [{"C": 0.5}, {"C": 1.0}]
    assert len(cs) == 18
    assert np.all((cs.X >= 0) & (cs.X <= 1))


def test_duplicates_removed():
    cs = CandidateSet({"C": [1.0, 2.0, 1.0, 2.0], "k": ["a", "a"]})
    assert cs.params == [{"C": 1.0, "k": "a"}, {"C": 2.0, "k": "a"}]
    # Integer ranges round many Sobol points onto the same value.
    cs = CandidateSet({"n": (1, 3)}, n_candidates=64, seed=0)
    assert sorted(p["n"] for p in cs.params) == [1, 2, 3]


# ---------------------------------------------------------------------------
# Ranges and distributions (Sobol points through each prior)
# ---------------------------------------------------------------------------
def test_log_uniform_range_bounds_and_log10_encoding():
    lo, hi = 1e-4, 1e2
    cs = CandidateSet({"C": (lo, hi, "log-uniform")}, n_candidates=256, seed=3)
    c = np.array([p["C"] for p in cs.params])
    assert len(cs) == 256 and cs.X.shape == (256, 1)
    assert np.all((c >= lo) & (c <= hi))
    expected = (np.log10(c) - (-4.0)) / (2.0 - (-4.0))
    np.testing.assert_allclose(cs.X[:, 0], expected, rtol=0, atol=1e-12)
    assert np.all((cs.X >= 0) & (cs.X <= 1))
    # Log-uniform: about a sixth of the points per decade (Sobol balance).
    per_decade = np.histogram(np.log10(c), bins=6, range=(-4, 2))[0]
    assert per_decade.min() >= 256 / 6 - 4 and per_decade.max() <= 256 / 6 + 4


def test_uniform_range_bounds_and_encoding():
    cs = CandidateSet({"x": (-2.0, 3.0)}, n_candidates=128, seed=0)
    x = np.array([p["x"] for p in cs.params])
    assert all(isinstance(p["x"], float) for p in cs.params)
    assert np.all((x >= -2.0) & (x <= 3.0))
    np.testing.assert_allclose(cs.X[:, 0], (x + 2.0) / 5.0, atol=1e-15)
    # A 1-D scrambled Sobol set of 2^7 points has one point per 1/128
    # stratum, so each fifth of the range holds 25 or 26 points.
    counts = np.histogram(x, bins=5, range=(-2, 3))[0]
    assert counts.min() >= 25 and counts.max() <= 26
    assert cs.params == CandidateSet({"x": (-2.0, 3.0, "uniform")}, 128, 0).params


def test_integer_range_gives_ints_covering_the_range():
    cs = CandidateSet({"n": (3, 17)}, n_candidates=256, seed=0)
    values = [p["n"] for p in cs.params]
    assert all(type(v) is int for v in values)
    assert sorted(values) == list(range(3, 18))
    x = cs.X[np.argsort(values), 0]
    np.testing.assert_allclose(x, (np.arange(3, 18) - 3) / 14)


def test_integer_log_uniform_range():
    cs = CandidateSet({"n": (1, 1000, "log-uniform")}, n_candidates=512, seed=2)
    values = np.array([p["n"] for p in cs.params])
    assert all(type(p["n"]) is int for p in cs.params)
    assert values.min() >= 1 and values.max() <= 1000
    assert 1 in values and values.max() > 500  # both ends reached
    assert np.all((cs.X >= 0) & (cs.X <= 1))
    np.testing.assert_allclose(cs.X[:, 0], np.log10(values) / 3.0, atol=1e-12)


def test_scipy_distributions():
    spaces = {
        "a": stats.norm(loc=1.0, scale=2.0),
        "b": stats.loguniform(1e-3, 1e1),
        "k": stats.randint(2, 6),
    }
    cs = CandidateSet(spaces, n_candidates=64, seed=0)
    a = np.array([p["a"] for p in cs.params])
    b = np.array([p["b"] for p in cs.params])
    k = [p["k"] for p in cs.params]
    assert np.all(np.isfinite(a))
    assert np.all((b >= 1e-3) & (b <= 1e1))
    assert all(type(v) is int for v in k) and set(k) == {2, 3, 4, 5}
    assert np.all((cs.X >= 0) & (cs.X <= 1))
    # The encoding of a distribution is its CDF.
    np.testing.assert_allclose(cs.X[:, 0], stats.norm(1.0, 2.0).cdf(a), atol=1e-12)
    np.testing.assert_allclose(
        cs.X[:, 1], (np.log10(b) + 3) / 4, atol=1e-9
    )  # loguniform CDF is the log10 scale


def test_mixed_range_and_categories():
    spaces = {"C": (1e-2, 1e2, "log-uniform"), "kernel": ["rbf", "linear", "poly"]}
    cs = CandidateSet(spaces, n_candidates=64, seed=0)
    assert cs.X.shape == (64, 4)
    kernels = [p["kernel"] for p in cs.params]
    assert set(kernels) == {"rbf", "linear", "poly"}
    np.testing.assert_array_equal(cs.X[:, 1:].sum(axis=1), 1.0)
    assert set(np.unique(cs.X[:, 1:])) == {0.0, 1.0}


def test_n_candidates_not_a_power_of_two():
    cs = CandidateSet({"x": (0.0, 1.0)}, n_candidates=100, seed=0)
    assert len(cs) == 100


def test_same_seed_same_candidates_other_seed_different():
    spaces = {"C": (1e-3, 1e3, "log-uniform"), "g": (0.0, 1.0)}
    a = CandidateSet(spaces, n_candidates=32, seed=5)
    b = CandidateSet(spaces, n_candidates=32, seed=5)
    c = CandidateSet(spaces, n_candidates=32, seed=6)
    assert a.params == b.params
    np.testing.assert_array_equal(a.X, b.X)
    assert a.params != c.params
    assert not np.allclose(a.X, c.X)


# ---------------------------------------------------------------------------
# Bad specifications
# ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "spaces, match",
    [
        ([], "empty list"),
        ({"C": []}, "'C'.*empty"),
        ({"C": (1.0, 1.0)}, "'C'.*low < high"),
        ({"C": (2.0, 1.0)}, "'C'.*low < high"),
        ({"C": (2, 1, "log-uniform")}, "'C'.*low < high"),
        ({"C": (0.0, float("inf"))}, "'C'.*finite"),
        ({"C": (float("nan"), 1.0)}, "'C'.*finite"),
        ({"C": (-float("inf"), 0.0)}, "'C'.*finite"),
        ({"C": (0.0, 1.0, "log-uniform")}, "'C'.*0 < low"),
        ({"C": (-1.0, 1.0, "log-uniform")}, "'C'.*0 < low"),
        ({"C": (0.1, 1.0, "normal")}, "'C'.*prior must be one of"),
        ({"C": (0.1, 1.0, "loguniform")}, "'C'.*prior must be one of"),
        ({"C": (0.1,)}, "'C'.*range is"),
        ({"C": (0.1, 1.0, "uniform", 3)}, "'C'.*range is"),
        ({"C": ("a", "b")}, "'C'.*must be numbers"),
        ({"C": (True, 5)}, "'C'.*must be numbers"),
        ({"C": (None, 5)}, "'C'.*must be numbers"),
        ({"C": [1.0, float("nan")]}, "'C'.*finite"),
        ({"C": [1.0, float("inf")]}, "'C'.*finite"),
        ({"C": "rbf"}, "'C'.*unsupported.*list of values"),
        ({"C": 1.0}, "'C'.*unsupported.*list of values"),
        ({"C": {1, 2}}, "'C'.*unsupported"),
        ({"C": None}, "'C'.*unsupported"),
        ({1: [1, 2]}, "names must be strings"),
        ("C", "dict or a list of dicts"),
        (42, "dict or a list of dicts"),
        (None, "dict or a list of dicts"),
        ([{"C": [1]}, ["C"]], r"search_spaces\[1\] must be a dict"),
    ],
)
def test_bad_specs_raise_value_error(spaces, match):
    with pytest.raises(ValueError, match=match):
        CandidateSet(spaces, n_candidates=8, seed=0)


def test_empty_dict_is_the_defaults_and_sequences_are_grids():
    # As ParameterGrid: {} is one candidate (the estimator's defaults); a
    # range or 1-D array is a grid; a tuple stays a range.
    assert CandidateSet({}).params == [{}]
    assert CandidateSet([{"C": [1]}, {}]).params == [{"C": 1}, {}]
    assert CandidateSet({"C": range(1, 4)}).params == [{"C": 1}, {"C": 2}, {"C": 3}]
    assert CandidateSet({"C": np.array([2, 3])}).params == [{"C": 2}, {"C": 3}]
    assert len(CandidateSet({"C": (1, 3)}, n_candidates=8).params) == 3


@pytest.mark.parametrize("spaces", ["C", 42, None, {"C": 1.0}, [{"C": [1]}, ["C"]]])
def test_bad_types_raise_type_error(spaces):
    with pytest.raises(TypeError):
        CandidateSet(spaces, n_candidates=8, seed=0)


def test_unfrozen_distribution_and_tuple_messages():
    from scipy.stats import loguniform

    with pytest.raises(TypeError, match="freeze it"):
        CandidateSet({"C": loguniform})
    with pytest.raises(ValueError, match="use a list for a grid"):
        CandidateSet({"kernel": ("rbf", "linear")})


def test_messages_are_helpful():
    with pytest.raises(ValueError) as info:
        CandidateSet({"C": 3.0})
    msg = str(info.value)
    assert "list of values" in msg and "log-uniform" in msg and "scipy.stats" in msg
    with pytest.raises(ValueError) as info:
        CandidateSet({"C": (0.0, 1.0, "log-uniform")})
    assert "0 < low" in str(info.value)


def test_candidates_are_finite_and_encoding_is_finite():
    cs = CandidateSet(
        [{"C": (1e-6, 1e6, "log-uniform"), "k": ["x", "y"]}, {"n": (0, 5)}],
        n_candidates=64,
        seed=9,
    )
    assert np.all(np.isfinite(cs.X))
    assert np.all((cs.X >= 0) & (cs.X <= 1))
    for p in cs.params:
        for v in p.values():
            if isinstance(v, float):
                assert math.isfinite(v)
