"""The private-model mode: stopping laws, accounting, refusals, attributes."""

from __future__ import annotations

import importlib.util
import math
import random

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

import sklearn_dpbo.model_selection._private_model._fit as pm
import sklearn_dpbo.model_selection._private_model._stopping as st
from sklearn_dpbo import BudgetAccountant, DPBayesSearchCV, PrivacyLeakWarning
from sklearn_dpbo.dp_learners import DPLogisticRegression
from sklearn_dpbo.model_selection import PrivateModel
from sklearn_dpbo.model_selection._private_model._fit import choose_strategy

GRID = {"C": [0.01, 0.1, 1.0]}


def _data(n=300, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = (X[:, 0] + 0.3 * rng.normal(size=n) > 0).astype(int)
    return X / 4, y


def _search(**kw):
    mode = kw.pop("method", PrivateModel(strategy="random-stopping"))
    return DPBayesSearchCV(
        kw.pop("estimator", DPLogisticRegression(data_norm=1.0)),
        kw.pop("grid", GRID),
        method=mode,
        epsilon=kw.pop("epsilon", 1.0),
        scoring="accuracy",
        n_iter=kw.pop("n_iter", 3),
        random_state=0,
        **kw,
    )


@pytest.mark.parametrize(
    "eta,gamma", [(0.5, 0.05), (1.0, 0.1), (0.0, 0.05), (2.0, 0.2)]
)
def test_pmf_sums_to_one_and_mean_matches_the_closed_form(eta, gamma):
    k = np.arange(1, 20_000)
    p = np.exp(st.log_pmf(k, eta, gamma))
    assert p.sum() == pytest.approx(1.0, abs=1e-12)
    assert (k * p).sum() == pytest.approx(st.mean_of(eta, gamma), rel=1e-10)


def test_geometric_tail_is_exact_and_gamma_inverts_the_mean():
    assert st.tail_probability(10, 1.0, 0.1) == pytest.approx(0.9**10, rel=1e-9)
    for eta in (0.0, 0.5, 1.0):
        g = st.gamma_for_mean(eta, 12.0)
        assert st.mean_of(eta, g) == pytest.approx(12.0, rel=1e-9)


@pytest.mark.parametrize("eta", [0.0, 0.5, 1.0])
def test_cap_is_the_smallest_within_delta(eta):
    g = st.gamma_for_mean(eta, 12.0)
    cap = st.cap_for_delta(eta, g, 1.0, 1e-5)
    assert (
        st.added_delta(cap, eta, g, 1.0) <= 1e-5 < st.added_delta(cap - 1, eta, g, 1.0)
    )
    # the figures of docs/private_model.md (E[K] = 12, ε = 1, δ = 1e-5): the
    # logarithmic law's heavier tail needs about twice the cap
    if eta == 0.5:
        assert cap == 214
    if eta == 0.0:
        assert cap == 429


def test_cap_found_where_every_fitting_cap_lies_between_powers_of_two():
    # logarithmic, E[K] = 16, ε = 1, δ = 1e-8: added_delta falls with the tail
    # then rises with the sampler's cap²·2⁻⁵⁰; the caps that fit are 1088 up to
    # about 1500, neither 1024 nor 2048 (a doubling search jumped past them).
    g = st.gamma_for_mean(0.0, 16.0)
    added = [st.added_delta(c, 0.0, g, 1.0) for c in (1024, 1087, 1088, 2048)]
    assert added[2] <= 1e-8 < min(added[0], added[1], added[3])
    assert st.cap_for_delta(0.0, g, 1.0, 1e-8) == 1088
    mode = PrivateModel(strategy="random-stopping", mean_runs=16)
    assert pm.resolve_distribution(mode, 16, 1.0, 1e-8) == ("logarithmic", 0.0)
    X, y = _data()
    grid = {"C": list(np.logspace(-3, 3, 16))}
    s = _search(method=mode, grid=grid, n_iter=16, delta=1e-8).fit(X, y)
    stop = s.privacy_report_.stopping
    assert (stop["shape"], stop["max_runs"], stop["epsilon_run"]) == (0.0, 1088, 0.5)


def test_epsilon_where_e_to_the_epsilon_overflows():
    # ε ≥ 709.8: no cap fits (refused with the reason); the untuned strategy
    # needs none (both raised OverflowError)
    X, y = _data()
    assert st.added_delta(10, 0.0, 0.5, 710.0) == math.inf
    with pytest.raises(ValueError, match="no cap"):
        _search(epsilon=710.0, delta=1e-6).fit(X, y)
    mode = PrivateModel(strategy="default")
    assert _search(method=mode, epsilon=710.0, delta=1e-6).fit(X, y).strategy_


@pytest.mark.parametrize("eta", [0.0, 1.0])
def test_sampled_runs_follow_the_law(eta):
    g = st.gamma_for_mean(eta, 4.0)
    rng = random.Random(1)
    draws = [st.sample_runs(eta, g, 1000, rng) for _ in range(20_000)]
    k = np.arange(1, 5000)
    p = np.exp(st.log_pmf(k, eta, g))
    assert p.sum() == pytest.approx(1.0, abs=1e-9)
    assert (k * p).sum() == pytest.approx(4.0, rel=1e-6)
    sd = np.sqrt((k * k * p).sum() - 16.0)  # geometric ≈ 3.46, logarithmic ≈ 5.4
    # the mean of 20,000 draws within 4 standard errors of 4
    assert abs(np.mean(draws) - 4.0) < 4 * sd / np.sqrt(20_000)
    # and P[K = 1] within 4 s.e. of the pmf (the logarithmic law puts more
    # mass there than the geometric at the same mean)
    p1 = p[0]
    assert abs(np.mean(np.array(draws) == 1) - p1) < 4 * np.sqrt(p1 * (1 - p1) / 20_000)


def test_one_run_law_is_a_point_mass():
    # E[K] = 1 gives γ = 1: K = 1 always (log(1 − γ) is never taken)
    assert st.gamma_for_mean(0.0, 1.0) == 1.0
    assert {st.sample_runs(0.0, 1.0, 5, random.Random(s)) for s in range(50)} == {1}
    X, y = _data()
    s = _search(grid={"C": [0.1]}, n_iter=1, delta=1e-6).fit(X, y)
    assert s.strategy_ == "random-stopping" and s.best_params_ == {"C": 0.1}
    s = _search(
        method=PrivateModel(strategy="random-stopping", mean_runs=1), delta=1e-6
    ).fit(X, y)
    assert s.best_params_ in s.candidate_params_


@pytest.mark.parametrize("delta", [1e-6, 0.0])
def test_one_run_costs_epsilon_and_no_delta(delta):
    # K = 1 (E[K] = 1): the run is the release, at the whole ε, pure DP (so
    # delta=0 is accepted); the report, its event and the charge agree
    X, y = _data()
    acct = BudgetAccountant(epsilon=5.0, delta=1e-4)
    mode = PrivateModel(strategy="random-stopping", mean_runs=1)
    s = _search(method=mode, delta=delta, accountant=acct).fit(X, y)
    report, stop = s.privacy_report_, s.privacy_report_.stopping
    assert (stop["gamma"], stop["epsilon_run"], stop["added_delta"]) == (1, 1, 0)
    assert s.best_estimator_.epsilon == 1.0
    assert acct.spent == (1.0, 0.0) == (report.epsilon, report.delta)
    assert "pure epsilon-DP" in report.explain()
    if importlib.util.find_spec("dp_accounting"):
        from dp_accounting import dp_event

        assert isinstance(report.to_dp_event(), dp_event.RandomizedResponseDpEvent)


def test_auto_with_one_candidate_fits_that_candidate():
    X, y = _data()
    est = DPLogisticRegression(data_norm=1.0, C=1.0)
    s = _search(estimator=est, grid={"C": [0.003]}, method=PrivateModel(), n_iter=1)
    s.fit(X, y)
    assert s.best_params_ == {"C": 0.003} == s.candidate_params_[0]
    assert s.best_estimator_.C == 0.003 and s.best_estimator_.epsilon == 1.0


def test_auto_law_falls_back_where_no_logarithmic_cap_fits():
    # 60 candidates, ε = 4, δ = 1e-6: no cap keeps the logarithmic law's
    # added δ below δ; the negative-binomial one fits, so "auto" takes it and
    # the search runs (it ran with the former default); logarithmic, asked
    # for explicitly, is refused before any row is read.
    mode = PrivateModel(strategy="random-stopping")
    assert pm.resolve_distribution(mode, 12, 1.0, 1e-6) == ("logarithmic", 0.0)
    assert pm.resolve_distribution(mode, 60, 4.0, 1e-6) == ("negative-binomial", 0.5)
    with pytest.raises(ValueError, match="no cap"):
        st.cap_for_delta(0.0, st.gamma_for_mean(0.0, 60.0), 4.0, 1e-6)
    explicit = PrivateModel(strategy="random-stopping", distribution="logarithmic")
    assert pm.resolve_distribution(explicit, 60, 4.0, 1e-6) == ("logarithmic", 0.0)
    X, y = _data()
    grid = {"C": list(np.logspace(-4, 2, 60))}
    # output perturbation: no plateau, so all 60 candidates are kept (E[K] = 60)
    out = DPLogisticRegression(data_norm=1.0, mechanism="output")
    kw = dict(grid=grid, n_iter=60, delta=1e-6, epsilon=4.0, estimator=out)
    s = _search(**kw).fit(X, y)
    assert len(s.candidate_params_) == 60
    assert s.privacy_report_.delta <= 1e-6
    assert s.privacy_report_.stopping["shape"] == 0.5
    with pytest.raises(ValueError, match="negative-binomial"):
        _search(method=explicit, **kw).fit(X, y)


@pytest.mark.parametrize("shape", [0.0, 0.5, 1.0])
def test_cost_matches_the_rdp_accountant(shape):
    rdp = pytest.importorskip("dp_accounting.rdp")
    from dp_accounting.privacy_accountant import NeighboringRelation

    dist = {0.0: "logarithmic", 0.5: "negative-binomial", 1.0: "geometric"}[shape]
    X, y = _data()
    s = _search(method=PrivateModel(strategy="random-stopping", distribution=dist))
    s.fit(X, y)
    acc = rdp.RdpAccountant(
        orders=[1 + x / 10 for x in range(1, 100)] + list(range(12, 4000, 5)),
        neighboring_relation=NeighboringRelation.REPLACE_ONE,
    )
    acc.compose(s.privacy_report_.to_dp_event())
    eps_rdp = acc.get_epsilon(1e-9)
    # The pure-DP constant (2 + η)ε₀ = ε; the RDP route is at most 1% above.
    assert s.privacy_report_.epsilon == pytest.approx(1.0)
    assert 1.0 <= eps_rdp <= 1.01


def test_released_model_is_the_selected_run_and_one_charge():
    X, y = _data()
    acct = BudgetAccountant(epsilon=5.0, delta=1e-4)
    s = _search(accountant=acct).fit(X, y)
    model = s.best_estimator_
    assert isinstance(model, DPLogisticRegression)
    # ε₀ = ε/2 (the default, logarithmic law: 2ε₀ = ε), not refit at ε
    assert model.epsilon == pytest.approx(1.0 / 2)
    assert model.C == s.best_params_["C"]
    assert 0.0 <= s.best_score_ <= 1.0
    assert s.strategy_ == "random-stopping"
    assert acct.spent[0] == pytest.approx(1.0)
    assert 0 < acct.spent[1] == s.privacy_report_.delta <= 1e-5
    assert "replace any one row" in s.privacy_report_.neighbouring
    assert not s.privacy_report_.uncovered
    # K, the other runs and durations are not published.
    assert {a for a in vars(s) if a.endswith("_")} == {
        "strategy_",
        "candidate_params_",
        "best_index_",
        "best_params_",
        "best_estimator_",
        "best_score_",
        "scorer_",
        "multimetric_",
        "privacy_report_",
        "cv_results_",
    }
    assert set(s.cv_results_) == {"param_C", "params"}  # public: no score


def test_noise_random_state_reproduces_and_warns():
    X, y = _data()
    outs = []
    for _ in range(2):
        with pytest.warns(PrivacyLeakWarning):
            s = _search(noise_random_state=3).fit(X, y)
        outs.append((s.best_score_, s.best_estimator_.coef_.tolist()))
    assert outs[0] == outs[1]


@pytest.mark.parametrize("strategy", ["split", "default"])
def test_pure_strategies_spend_epsilon_only(strategy):
    X, y = _data()
    s = _search(method=PrivateModel(strategy=strategy), delta=0.0).fit(X, y)
    assert s.privacy_report_.epsilon == pytest.approx(1.0)
    assert s.privacy_report_.delta == 0.0
    expected = 1.0 / 3 if strategy == "split" else 1.0
    assert s.best_estimator_.epsilon == pytest.approx(expected)


def test_refusals_before_any_row_is_read():
    X, y = _data()
    bad = X.copy()
    with pytest.raises(TypeError, match="differentially private learner"):
        _search(estimator=LogisticRegression()).fit(bad, y)
    with pytest.raises(ValueError, match="do not search it"):
        _search(grid={"epsilon": [0.1, 1.0]}).fit(X, y)
    with pytest.raises(ValueError, match="noise_random_state"):
        _search(estimator=DPLogisticRegression(noise_random_state=1)).fit(X, y)
    with pytest.raises(ValueError, match="delta > 0"):
        _search(delta=0.0).fit(X, y)
    with pytest.raises(ValueError, match="fit\\(X, y\\) only"):
        _search().fit(X, y, X_val=X, y_val=y)
    with pytest.raises(ValueError, match="adds delta"):
        _search(method=PrivateModel(strategy="random-stopping", max_runs=2)).fit(X, y)


def test_searched_noise_random_state_is_refused_before_the_charge():
    """It would be ignored (the search draws the noise) yet shown in best_params_."""
    X, y = _data()
    acc = BudgetAccountant(epsilon=1.0, delta=1e-5)
    search = _search(grid={"C": [0.1, 1.0], "noise_random_state": [None, 1]})
    with pytest.raises(ValueError, match=r"does not search \['noise_random_state'\]"):
        search.set_params(accountant=acc).fit(X, y)
    assert acc.spent[0] == 0.0


def test_release_score_auto_spends_on_the_model_not_on_a_score():
    # "auto" (the default) is False in this mode: the untuned model on every
    # row at epsilon, the naive split selecting at epsilon; random stopping's
    # score is part of its selection and released. True keeps the score.
    X, y = _data()
    default = PrivateModel(strategy="default")
    s = _search(method=default, delta=0.0).fit(X, y)
    assert not hasattr(s, "best_score_")
    assert "on every row" in str(s.privacy_report_)
    s = _search(method=PrivateModel(strategy="split"), delta=0.0).fit(X, y)
    assert not hasattr(s, "best_score_") and "(epsilon=1)" in str(s.privacy_report_)
    assert 0.0 <= _search(delta=1e-5).fit(X, y).best_score_ <= 1.0
    s = _search(method=default, delta=0.0, release_score=True).fit(X, y)
    assert 0.0 <= s.best_score_ <= 1.0
    assert "on the training part" in str(s.privacy_report_)


def test_verbose_says_the_rows_of_x_y_are_read(capsys):
    X, y = _data()
    _search(verbose=1, delta=1e-5).fit(X, y)
    out = capsys.readouterr().out
    assert "reading the rows of X, y" in out
    assert "validation set" not in out


def test_auto_rule_is_public_and_documented():
    assert choose_strategy(300, 1, 1.0, 0.5) == "default"
    assert choose_strategy(30, 12, 0.5, 0.5) == "default"  # 1/(30·0.2) > 5%
    assert choose_strategy(300, 3, 1.0, 0.5) == "split"
    assert choose_strategy(300, 12, 1.0, 0.5) == "random-stopping"
    assert math.isclose(st.cost_factor(0.5), 2.5)


@pytest.mark.parametrize(
    "make",
    [
        lambda X, y: (X.tolist(), y),  # a list: one conversion of the batch
        lambda X, y: (X, y.tolist()),
    ],
)
def test_lists_are_refused_before_any_row_is_read(make):
    X, y = _data()
    acct = BudgetAccountant(epsilon=5.0, delta=1e-4)
    with pytest.raises(TypeError, match="numeric NumPy array"):
        _search(accountant=acct).fit(*make(X, y))
    assert acct.spent == (0.0, 0.0)


@pytest.mark.filterwarnings("ignore::sklearn_dpbo.PrivacyLeakWarning")
@pytest.mark.parametrize(
    "make",
    [
        lambda X, y, pd: (X.astype(object), y),
        lambda X, y, pd: (X, y.astype(str)),  # "1" is read as 1.0: class 1
        lambda X, y, pd: (
            pd.DataFrame({i: pd.array(X[:, i], dtype="Float64") for i in range(3)}),
            pd.Series(y, dtype="Int64"),
        ),
    ],
)
def test_other_dtypes_are_read_entry_by_entry(make):
    # Since 2026-11-25 (refused before, from the dtype, which one row can
    # decide): each entry is read as float(v) on its own, so the same numbers
    # in any container give the same releases.
    pd = pytest.importorskip("pandas")
    X, y = _data()
    base = _search(noise_random_state=4).fit(X, y)
    other = _search(noise_random_state=4).fit(*make(X, y, pd))
    assert other.best_params_ == base.best_params_
    assert other.best_score_ == base.best_score_
    np.testing.assert_array_equal(
        other.best_estimator_.coef_, base.best_estimator_.coef_
    )


def test_dataframe_with_numeric_columns_is_accepted():
    pd = pytest.importorskip("pandas")
    X, y = _data()
    s = _search().fit(pd.DataFrame(X), pd.Series(y))
    assert 0.0 <= s.best_score_ <= 1.0


@pytest.mark.filterwarnings("ignore::sklearn_dpbo.PrivacyLeakWarning")
@pytest.mark.parametrize("bad", [np.nan, np.inf, 1e300])
def test_one_bad_entry_moves_its_own_row_only(bad):
    # Numeric containers leave nothing to convert: a non-finite feature makes
    # its row the zero row, a huge one is clipped to data_norm, a label
    # outside `classes` is a negative. With the same seeded noise the
    # releases equal those of the row replaced by its documented image.
    X, y = _data()
    X_bad, X_img = X.copy(), X.copy()
    X_bad[7, 1] = bad
    if np.isfinite(bad):  # clipped to norm 1 along its own direction
        unit = X_bad[7] / np.abs(X_bad[7]).max()
        X_img[7] = unit / np.linalg.norm(unit)
    else:
        X_img[7] = 0.0
    y_bad, y_img = y.copy(), y.copy()
    y_bad[11], y_img[11] = 7, 0
    runs = []
    for Xs, ys in ((X_bad, y_bad), (X_img, y_img)):
        s = _search(noise_random_state=5).fit(Xs, ys)
        runs.append((s.best_params_, s.best_score_, s.best_estimator_.coef_))
    assert runs[0][:2] == runs[1][:2]
    np.testing.assert_allclose(runs[0][2], runs[1][2], rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("extreme", [1e200, 1e-200])
def test_floating_point_errors_do_not_depend_on_a_row(extreme):
    # A user's np.seterr(all="raise") does not reach the private computation:
    # a row with a huge or tiny value neither raises nor warns on one side.
    X, y = _data()
    X[7] = extreme
    old = np.seterr(all="raise")
    try:
        s = _search().fit(X, y)
    finally:
        np.seterr(**old)
    assert 0.0 <= s.best_score_ <= 1.0


def test_formerly_failing_solver_settings_fit_on_both_neighbours():
    # n = 6, C = 1e15, ε = 160 (one fit at ε = 160 after pruning; random
    # stopping refuses this ε publicly: no cap keeps (1 + e^ε)P[K > K_max]
    # below δ). The Newton solver's
    # condition number was ~1e9 and a fit could raise on one side of a
    # neighbouring pair. With the public conditioning floor both sides fit,
    # and the two C values share one distribution (pruned to one candidate).
    X, y = _data(n=6, seed=3)
    X2, y2 = X.copy(), y.copy()
    X2[0], y2[0] = -X[0] * 40, 1 - y[0]
    out = []
    for Xs, ys in ((X, y), (X2, y2)):
        s = DPBayesSearchCV(
            DPLogisticRegression(data_norm=1.0, max_iter=4),
            {"C": [1e12, 1e15]},
            method=PrivateModel(strategy="split"),
            epsilon=160.0,
            delta=1e-6,
            scoring="accuracy",
            n_iter=2,
            random_state=0,
        ).fit(Xs, ys)
        out.append((s.candidate_params_, s.best_params_))
    assert out[0] == out[1] == ([{"C": 1e12}], {"C": 1e12})


@pytest.mark.parametrize(
    "grid",
    [
        {"C": [-1.0, 1.0]},  # was pruned silently as a plateau duplicate
        {"C": [-1.0]},
        {"max_iter": [0]},
        {"data_norm": [-2.0, 1.0]},
        {"bounds": [(0.0, 1.0, 2.0)]},  # not a (lower, upper) pair
    ],
)
@pytest.mark.parametrize("strategy", ["split", "random-stopping", "auto"])
def test_bad_candidate_is_refused_before_any_budget_is_spent(grid, strategy):
    # Before, such a value failed inside the sealed run (after the charge:
    # a PrivateComputationError and the budget gone) or was pruned.
    X, y = _data()
    acct = BudgetAccountant(epsilon=5.0, delta=1e-4)
    search = _search(grid=grid, accountant=acct, method=PrivateModel(strategy=strategy))
    with pytest.raises(ValueError, match="before any budget is spent"):
        search.fit(X, y)
    assert acct.spent == (0.0, 0.0)
    with pytest.raises(ValueError, match="before any budget is spent"):
        _search(estimator=DPLogisticRegression(classes=(0,))).fit(X, y)
    with pytest.raises(ValueError, match="the estimator is not a valid"):
        _search(estimator=DPLogisticRegression(C=-1.0)).fit(X, y)


def test_both_all_rows_modes_share_the_tuning_rule():
    """One public rule: tune only when the comparison's noise is at most the limit."""
    from sklearn_dpbo.model_selection import WholeData
    from sklearn_dpbo.model_selection._whole_data._fit import can_tell_apart, tunes

    assert can_tell_apart(0.05, 0.05) and not can_tell_apart(0.0501, 0.05)
    assert can_tell_apart(10.0, None)
    # whole-data: 2/(k eps1) = 2/(40 * 1) = 0.05; private-model: 1/(m eps0)
    assert tunes(WholeData(), 40, 1.0) and not tunes(WholeData(), 39, 1.0)
    assert choose_strategy(40, 12, 1.0, 0.0) == "random-stopping"  # 1/(40*0.5)
    assert choose_strategy(39, 12, 1.0, 0.0) == "default"
