"""DPLogisticRegression's default C="scale": 0.3 x the plateau's C."""

import math

import numpy as np
import pytest

from sklearn_dpbo.dp_learners import DPLinearSVC, DPLogisticRegression


def _data(n=200, d=6, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (n, d))
    y = (X[:, 0] + 0.5 * rng.normal(size=n) > 0).astype(int)
    return X, y


def test_default_is_scale():
    assert DPLogisticRegression().C == "scale"
    assert DPLinearSVC().C == 1.0  # only the logistic regression's default


@pytest.mark.parametrize("epsilon, classes", [(1.0, (0, 1)), (2.0, (0, 1, 2))])
def test_scale_is_three_tenths_of_the_plateau_edge(epsilon, classes):
    # data_norm = 1.5: R^2 = 1.5^2 + 1 = 3.25 with the intercept; c = 1/4;
    # eps per problem: eps (binary) or eps/3 (one-vs-rest of three classes)
    eps = epsilon / (1 if len(classes) == 2 else len(classes))
    by_hand = 0.3 * math.expm1(0.99 * eps / 4) / (0.25 * 3.25)
    est = DPLogisticRegression(epsilon=epsilon, data_norm=1.5, classes=classes)
    R = math.sqrt(3.25)
    assert est._C(eps, R) == pytest.approx(by_hand, rel=1e-12)
    assert by_hand == pytest.approx({1.0: 0.10369, 2.0: 0.06624}[epsilon], rel=1e-3)

    def key(C):  # the plateau edge is where the learner's own plan adds Delta
        e = DPLogisticRegression(data_norm=1.5, C=C, classes=classes)
        return e._distribution_key(500, epsilon)[-1]

    edge = by_hand / 0.3
    assert key(edge * (1 + 1e-9)) == ("C", "plateau")
    assert key(edge * (1 - 1e-9)) != ("C", "plateau")
    assert key("scale") == ("C", pytest.approx(by_hand, rel=1e-12))


def test_scale_fits_the_model_of_its_number():
    X, y = _data()
    common = dict(epsilon=1.0, data_norm=math.sqrt(6) / 2, noise_random_state=7)
    with pytest.warns(Warning):
        scale = DPLogisticRegression(**common).fit(X, y)
    C = 0.3 * math.expm1(0.99 / 4) / (0.25 * (6 / 4 + 1))
    with pytest.warns(Warning):
        fixed = DPLogisticRegression(C=C, **common).fit(X, y)
        one = DPLogisticRegression(C=1.0, **common).fit(X, y)
    # the same noise draw; C by hand differs from the library's in the last bits
    np.testing.assert_allclose(scale.coef_, fixed.coef_, rtol=1e-5)
    assert scale.plan_.regularization == pytest.approx(1 / (C * 200 * 2.5))
    assert not np.array_equal(scale.coef_, one.coef_)


def test_scale_is_one_with_output_perturbation():
    X, y = _data()
    common = dict(data_norm=1.0, mechanism="output", noise_random_state=3)
    with pytest.warns(Warning):
        scale = DPLogisticRegression(**common).fit(X, y)
        one = DPLogisticRegression(C=1.0, **common).fit(X, y)
    np.testing.assert_array_equal(scale.coef_, one.coef_)
    assert scale.sensitivity_ == one.sensitivity_


def test_other_strings_are_refused():
    X, y = _data()
    with pytest.raises(ValueError, match="C"):
        DPLogisticRegression(C="auto", data_norm=1.0).fit(X, y)


def test_scale_one_vs_rest_uses_each_problems_epsilon():
    # Three classes at ε = 1.5: each problem at ε/3 = 0.5; data_norm = 1 with
    # the intercept, R² = 2, c = 1/4. By hand C = 0.3 (e^(0.99·0.5/4) − 1)/0.5.
    rng = np.random.default_rng(1)
    X = rng.uniform(-1, 1, (240, 3)) / np.sqrt(3)
    y = np.argmax(X, axis=1)
    common = dict(epsilon=1.5, data_norm=1.0, classes=(0, 1, 2), noise_random_state=4)
    C = 0.3 * math.expm1(0.99 * 0.5 / 4) / (0.25 * 2.0)
    with pytest.warns(Warning):
        scale = DPLogisticRegression(**common).fit(X, y)
        fixed = DPLogisticRegression(C=C, **common).fit(X, y)
    np.testing.assert_allclose(scale.coef_, fixed.coef_, rtol=1e-5)
    assert scale.plan_.regularization == pytest.approx(1 / (C * 240 * 2.0))
    # the variant resolving "scale" at the whole ε would regularise 3.3x less
    C_whole = 0.3 * math.expm1(0.99 * 1.5 / 4) / (0.25 * 2.0)
    assert scale.plan_.regularization > 3 / (C_whole * 240 * 2.0)


def test_subclasses_keep_a_numeric_C_and_tune_in_the_window():
    import sklearn_dpbo.model_selection._private_model._fit as pm
    from sklearn_dpbo.dp_learners import DPGradientDescentLogisticRegression

    # n·ε/d = 500·0.6/14 ≈ 21, inside auto's window [15, 30)
    assert pm.default_suffices(DPLogisticRegression(data_norm=1.0), 500, 0.6, 14)
    svm = DPLinearSVC(data_norm=1.0)
    assert not svm._auto_never_tunes
    assert not pm.default_suffices(svm, 500, 0.6, 14)
    gd = DPGradientDescentLogisticRegression(data_norm=1.0)
    assert gd.C == 1.0 and not gd._auto_never_tunes
    X, y = _data()
    for est in (svm, gd):
        with pytest.raises(ValueError, match="'C' parameter"):
            est.set_params(C="scale").fit(X, y)
