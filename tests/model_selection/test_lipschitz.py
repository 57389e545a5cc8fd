"""method="lipschitz": Algorithm 3 of Kusner et al. (2015), spec DPBO.md §6."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from _stats import ALPHA, ks_pvalue
from conftest import CallbackScorer
from scipy import stats
from scipy.optimize import minimize
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression, SGDClassifier
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import Normalizer, StandardScaler, normalize
from sklearn.svm import SVC, LinearSVC

from sklearn_dpbo import DPBayesSearchCV, UselessReleaseWarning
from sklearn_dpbo.bo._candidates import CandidateSet
from sklearn_dpbo.model_selection import DPGPUCB, Lipschitz
from sklearn_dpbo.model_selection._lipschitz import (
    check_assumption_2,
    regularisation_to_lambda,
)
from sklearn_dpbo.model_selection._releases import (
    lipschitz_path_term,
    lipschitz_score_sensitivity,
    lipschitz_validation_term,
    release_best_score_lipschitz,
)
from sklearn_dpbo.privacy._builtin_scores import get_dp_scorer, make_dp_scorer

pytestmark = pytest.mark.usefixtures("single_blas_thread")

C_SPACE = {"logisticregression__C": (1e-2, 1e3, "log-uniform")}


# An L1 penalty: l1_ratio=1 from scikit-learn 1.8 (penalty deprecated), where
# 1.6 and 1.7 ignore l1_ratio unless penalty="elasticnet".
L1_PENALTY = (
    {"l1_ratio": 1.0}
    if LogisticRegression().penalty == "deprecated"
    else {"penalty": "l1"}
)


def lr_pipeline(**kw):
    kw.setdefault("fit_intercept", False)
    return make_pipeline(StandardScaler(), Normalizer(), LogisticRegression(**kw))


# ---------------------------------------------------------------------------
# Constants of spec §6, by hand
# ---------------------------------------------------------------------------
def close(a, b):
    return math.isclose(a, b, rel_tol=1e-12)


def test_path_term_by_hand():
    # (λmax − λmin) L / (λmax λmin)
    assert close(lipschitz_path_term(0.25, 1e-4, 1.0), 0.9999 * 0.25 / 1e-4)
    assert close(lipschitz_path_term(1.0, 1e-2, 1.0), 0.99 / 1e-2)
    assert close(lipschitz_path_term(0.25, 1.0, 2.0), 0.125)
    assert lipschitz_path_term(0.25, 0.3, 0.3) == 0.0


def test_validation_term_by_hand():
    # min(g*, max(2L/λmin, g* − g₀ + L/λmin))/m; the paper's L/λmin is not
    # enough (see below). Sigmoid: L = 1/4, g₀ = 1/2; ramp: L = 1, g₀ = 1.
    assert close(lipschitz_validation_term(200, 0.25, 1.0, 1e-4, 0.5), 1 / 200)
    assert close(lipschitz_validation_term(200, 0.25, 1.0, 0.5, 0.5), 1 / 200)
    assert close(lipschitz_validation_term(200, 0.25, 1.0, 0.4, 0.5), 1 / 200)
    # λmin > 1/2: a failed record (loss g*) is the farther one.
    assert close(lipschitz_validation_term(200, 0.25, 1.0, 2.0, 0.5), 0.625 / 200)
    assert close(lipschitz_validation_term(100, 0.25, 1.0, 5.0, 0.5), 0.55 / 100)
    # Ramp: g₀ = g*, a failed record is never the farther one.
    assert close(lipschitz_validation_term(50, 1.0, 1.0, 4.0, 1.0), 0.5 / 50)
    # g(0, ·) not one constant (a user's score): only g*/m.
    assert close(lipschitz_validation_term(50, 1.0, 1.0, 4.0, None), 1 / 50)
    # Never below the paper's min(g*/m, L/(m λmin)).
    for m, L, g, lam in [(200, 0.25, 1, 1e-4), (200, 0.25, 1, 2.0), (7, 1, 1, 9)]:
        for g0 in (0.5, 1.0, None):
            term = lipschitz_validation_term(m, L, g, lam, g0)
            assert term >= min(g / m, L / (m * lam))


def test_score_sensitivity_cap_by_hand():
    # λ ∈ [1e-4, 1], sigmoid (L = 1/4): the paper's bound is ~2500 → capped at g*.
    sens, capped = lipschitz_score_sensitivity(200, 0.25, 1.0, 1e-4, 1.0, 0.5)
    assert (sens, capped) == (1.0, True)
    # λ ∈ [1e-2, 1]: 24.75 + 0.005 → capped too (and for the ramp loss).
    assert lipschitz_score_sensitivity(200, 0.25, 1.0, 1e-2, 1.0, 0.5) == (1.0, True)
    assert lipschitz_score_sensitivity(200, 1.0, 1.0, 1e-2, 1.0, 1.0) == (1.0, True)
    # λ ∈ [1, 2], m = 200: 0.125 + min(1, max(0.5, 0.75))/200 = 0.12875.
    sens, capped = lipschitz_score_sensitivity(200, 0.25, 1.0, 1.0, 2.0, 0.5)
    assert close(sens, 0.12875) and not capped
    # One λ only: just the validation term, (1 − 1/2 + 1/8)/m.
    sens, capped = lipschitz_score_sensitivity(10_000, 0.25, 1.0, 2.0, 2.0, 0.5)
    assert close(sens, 6.25e-5) and not capped
    with pytest.raises(ValueError):
        lipschitz_score_sensitivity(200, 0.25, 1.0, 0.0, 1.0, 0.5)


def test_paper_validation_term_is_exceeded_by_an_example():
    """One swapped record moves the sigmoid score by > L/(m λ), ≤ 2L/(m λ).

    Hinge loss, training rows (e1, +1), (−e1, −1): every gradient is −e1, so
    w_λ = e1/λ and ‖w_λ‖ = 1/λ. Swapping a validation record (e1, +1) for
    (−e1, +1) changes its sigmoid loss by σ(1/λ·…) differences of tanh(1/(2λ)).
    """
    lam, n = 2.0, 2
    X = np.array([[1.0, 0.0], [-1.0, 0.0]])
    y = np.array([1, 0])
    svm = LinearSVC(
        C=1 / (lam * n), loss="hinge", fit_intercept=False, tol=1e-12, max_iter=100000
    ).fit(X, y)
    np.testing.assert_allclose(svm.coef_[0], [1 / lam, 0.0], atol=1e-6)
    m = 5
    V = np.tile([[0.0, 1.0]], (m, 1))
    V[0] = [1.0, 0.0]
    V2 = V.copy()
    V2[0] = [-1.0, 0.0]
    yv = np.ones(m, dtype=int)
    scorer = get_dp_scorer("neg_sigmoid_loss", svm)
    diff = abs(scorer(svm, V, yv) - scorer(svm, V2, yv))
    L = scorer.lipschitz
    assert math.isclose(diff, math.tanh(1 / (2 * lam)) / m, rel_tol=1e-5)
    assert diff > L / (m * lam)  # the paper's term is too small
    assert diff <= lipschitz_validation_term(m, L, 1.0, lam, 0.5)


@pytest.mark.parametrize("swap", ["nan", "inf", "unknown label"])
def test_validation_term_covers_a_failing_record(swap):
    """V/V': one validation record swapped for one that fails scores ``low``
    (loss g* = 1), which no scored record reaches when λ > 1/2. The released
    sensitivity must cover the change: on the earlier min(g*, 2L/λ)/m =
    0.001 the change was 0.0051 (reviewer repro r2_lipschitz_failed_record).
    """
    rng = np.random.RandomState(0)
    n, m = 200, 100
    X = rng.randn(n, 3)
    y = (X[:, 0] > 0).astype(int)
    X_va = rng.randn(m, 3)
    y_va = (X_va[:, 0] > 0).astype(int)
    X_2, y_2 = X_va.copy(), y_va.copy()
    if swap == "unknown label":
        y_2[0] = 7
    else:
        X_2[0, 1] = np.nan if swap == "nan" else np.inf
    est = make_pipeline(Normalizer(), LogisticRegression(fit_intercept=False))

    def fit(X_val, y_val):
        search = DPBayesSearchCV(
            est,
            {"logisticregression__C": [0.001]},  # λ = 1/(C n) = 5
            method="lipschitz",
            scoring="neg_sigmoid_loss",
            epsilon=1.0,
            n_iter=1,
            random_state=0,
            noise_random_state=3,
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            search.fit(X, y, X_val=X_val, y_val=y_val)
        return search

    a, b = fit(X_va, y_va), fit(X_2, y_2)
    sens = a.privacy_report_.releases[1]["sensitivity"]
    assert sens == b.privacy_report_.releases[1]["sensitivity"]  # public
    # One λ: f_BO is that λ's score, the mean of the per-record values.
    model, scorer = a.best_estimator_, a.scorer_
    f_a = scorer(model, X_va, y_va)
    f_b = scorer(model, X_2, y_2)
    assert scorer.record_values(model, X_2, y_2)[0] == -1.0  # failed: low
    assert abs(f_a - f_b) <= a.lipschitz_constants_["score_sensitivity"] <= sens
    # (1 − g₀ + L/λ)/m, nearly attained: 2L/(λ m) is 5 times too small.
    c = a.lipschitz_constants_
    assert c["loss_at_zero"] == 0.5 and c["lambda_min"] == pytest.approx(5.0)
    assert close(c["score_sensitivity"], (1 - 0.5 + 0.25 / 5) / m)
    assert abs(f_a - f_b) > 0.9 * c["score_sensitivity"]
    assert abs(f_a - f_b) > 5 * (2 * 0.25 / (5.0 * m))


def test_user_lipschitz_score_gets_the_range_bound():
    """A user's score declaring ``lipschitz`` may have a g(0, ·) that varies
    per record: only g*/m bounds one swap for a fixed λ."""
    est = lr_pipeline()
    user = make_dp_scorer(lambda y, z: -np.abs(z).clip(0, 1), bounds=(-1, 0))
    user.lipschitz = 0.25
    setup = check_assumption_2(
        est, CandidateSet({"logisticregression__C": [1e-3]}, 1, 0), user
    )
    assert setup.loss_at_zero is None
    assert close(lipschitz_validation_term(100, 0.25, 1.0, 5.0, None), 1 / 100)


# ---------------------------------------------------------------------------
# Scorers
# ---------------------------------------------------------------------------
def test_lipschitz_scorers_by_hand(cancer_split):
    X_tr, y_tr, X_va, y_va = cancer_split
    est = lr_pipeline().fit(X_tr, y_tr)
    z = est.decision_function(X_va)
    s = np.where(y_va == est.classes_[1], 1.0, -1.0)
    sig = get_dp_scorer("neg_sigmoid_loss", est)
    ramp = get_dp_scorer("neg_ramp_loss", est)
    assert math.isclose(sig(est, X_va, y_va), -np.mean(1 / (1 + np.exp(s * z))))
    assert math.isclose(ramp(est, X_va, y_va), -np.mean(np.clip(1 - s * z, 0, 1)))
    assert (sig.lipschitz, sig.bounds) == (0.25, (-1.0, 0.0))
    assert (ramp.lipschitz, ramp.bounds) == (1.0, (-1.0, 0.0))
    assert sig.sensitivity_for(200) >= 1 / 200
    assert get_dp_scorer(None, est).lipschitz is None  # accuracy
    # A user's score never declares a Lipschitz constant: the mode refuses it.
    user = make_dp_scorer(lambda y, z: -np.abs(z), bounds=(-1, 0))
    assert user.lipschitz is None
    search = DPBayesSearchCV(lr_pipeline(), C_SPACE, method="lipschitz", scoring=user)
    with pytest.raises(ValueError, match="[Ll]ipschitz"):
        search._check_settings()


# ---------------------------------------------------------------------------
# C <-> λ maps against a direct minimisation of eq. (10)
# ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def unit_ball_data():
    rng = np.random.default_rng(0)
    n, d = 120, 4
    X = normalize(rng.normal(size=(n, d)) + 0.3)
    y = (X @ rng.normal(size=d) + 0.3 * rng.normal(size=n) > 0).astype(int)
    return X, y


def eq10(X, y, lam, loss):
    s = 2 * y - 1

    def objective(w):
        z = s * (X @ w)
        per = np.logaddexp(0, -z) if loss == "log" else np.maximum(0, 1 - z)
        return lam / 2 * w @ w + per.mean()

    if loss == "log":
        res = minimize(
            objective,
            np.zeros(X.shape[1]),
            method="L-BFGS-B",
            options=dict(gtol=1e-12, maxiter=10000),
        )
    else:
        res = minimize(
            objective,
            np.zeros(X.shape[1]),
            method="Powell",
            options=dict(xtol=1e-10, ftol=1e-14, maxiter=100000),
        )
    return res.x, objective


def test_map_values():
    np.testing.assert_allclose(
        regularisation_to_lambda("C", [1.0, 0.5], 100), [0.01, 0.02]
    )
    np.testing.assert_allclose(regularisation_to_lambda("alpha", [0.3], 100), [0.3])


@pytest.mark.parametrize("lam", [1e-2, 1e-1])
def test_logistic_regression_map(unit_ball_data, lam):
    X, y = unit_ball_data
    C = 1 / (lam * len(y))  # λ = 1/(C n)
    w, f = eq10(X, y, lam, "log")
    lr = LogisticRegression(C=C, fit_intercept=False, tol=1e-10, max_iter=10000)
    coef = lr.fit(X, y).coef_[0]
    np.testing.assert_allclose(coef, w, atol=1e-5)


@pytest.mark.parametrize("lam", [1e-2, 1e-1])
def test_linear_svc_map(unit_ball_data, lam):
    X, y = unit_ball_data
    C = 1 / (lam * len(y))
    w, f = eq10(X, y, lam, "hinge")
    svm = LinearSVC(C=C, loss="hinge", fit_intercept=False, tol=1e-10, max_iter=100000)
    coef = svm.fit(X, y).coef_[0]
    # The hinge objective is non-smooth: compare objective values (liblinear's
    # dual solver is at least as good as the derivative-free minimiser).
    assert f(coef) <= f(w) + 1e-6
    np.testing.assert_allclose(coef, w, rtol=2e-2, atol=2e-2)


@pytest.mark.parametrize("loss,eq_loss", [("log_loss", "log"), ("hinge", "hinge")])
def test_sgd_map_is_alpha_not_two_alpha(unit_ball_data, loss, eq_loss):
    X, y = unit_ball_data
    lam = 0.05
    w, f = eq10(X, y, lam, eq_loss)

    def sgd(alpha):
        return (
            SGDClassifier(
                loss=loss,
                alpha=alpha,
                fit_intercept=False,
                max_iter=2000,
                tol=None,
                average=True,
                random_state=0,
            )
            .fit(X, y)
            .coef_[0]
        )

    good = sgd(lam)  # λ = α: (1/n) Σ ℓ + α ½‖w‖²
    assert f(good) - f(w) < 1e-4
    np.testing.assert_allclose(good, w, rtol=2e-2, atol=1e-2)
    bad = sgd(lam / 2)  # the spec's λ = 2α
    assert f(bad) - f(w) > 1e-3


# ---------------------------------------------------------------------------
# Assumption 2: every violation refused before any data is read
# ---------------------------------------------------------------------------
class Untouchable:
    """Data that fails the test if anything reads it."""

    def __getattr__(self, name):
        raise AssertionError(f"data touched ({name})")

    def __len__(self):
        raise AssertionError("data touched (len)")

    def __array__(self, *a, **k):
        raise AssertionError("data touched (array)")


VIOLATIONS = [
    ("accuracy", lr_pipeline(), C_SPACE, None, "not declared Lipschitz"),
    (
        "bare model",
        LogisticRegression(fit_intercept=False),
        {"C": (1e-2, 1e2, "log-uniform")},
        "neg_sigmoid_loss",
        "unit ball",
    ),
    (
        "no normalizer",
        make_pipeline(StandardScaler(), LogisticRegression(fit_intercept=False)),
        C_SPACE,
        "neg_sigmoid_loss",
        "Normalizer",
    ),
    (
        "max norm",
        make_pipeline(Normalizer(norm="max"), LogisticRegression(fit_intercept=False)),
        C_SPACE,
        "neg_sigmoid_loss",
        "Normalizer",
    ),
    (
        "intercept",
        lr_pipeline(fit_intercept=True),
        C_SPACE,
        "neg_ramp_loss",
        "fit_intercept",
    ),
    (
        "l1 penalty",
        lr_pipeline(solver="saga", **L1_PENALTY),
        C_SPACE,
        "neg_sigmoid_loss",
        "penalty",
    ),
    (
        "class weight",
        lr_pipeline(class_weight="balanced"),
        C_SPACE,
        "neg_sigmoid_loss",
        "class_weight",
    ),
    (
        "squared hinge",
        make_pipeline(Normalizer(), LinearSVC(fit_intercept=False)),
        {"linearsvc__C": (1e-2, 1e2, "log-uniform")},
        "neg_sigmoid_loss",
        "squared hinge",
    ),
    (
        "sgd loss",
        make_pipeline(
            Normalizer(), SGDClassifier(loss="modified_huber", fit_intercept=False)
        ),
        {"sgdclassifier__alpha": (1e-4, 1.0, "log-uniform")},
        "neg_sigmoid_loss",
        "modified_huber",
    ),
    (
        "sgd penalty",
        make_pipeline(Normalizer(), SGDClassifier(penalty="l1", fit_intercept=False)),
        {"sgdclassifier__alpha": (1e-4, 1.0, "log-uniform")},
        "neg_sigmoid_loss",
        "penalty",
    ),
    (
        "kernel svm",
        make_pipeline(Normalizer(), SVC()),
        {"svc__C": (1e-2, 1e2, "log-uniform")},
        "neg_sigmoid_loss",
        "not an L2-regularised linear model",
    ),
    (
        "two parameters",
        lr_pipeline(),
        {
            "logisticregression__C": (1e-2, 1e2, "log-uniform"),
            "logisticregression__tol": [1e-4, 1e-3],
        },
        "neg_sigmoid_loss",
        "only the regularisation parameter",
    ),
    (
        "wrong parameter",
        make_pipeline(Normalizer(), SGDClassifier(fit_intercept=False)),
        {"sgdclassifier__eta0": (1e-4, 1.0, "log-uniform")},
        "neg_sigmoid_loss",
        "sgdclassifier__alpha",
    ),
    (
        "zero C",
        lr_pipeline(),
        {"logisticregression__C": [0.0, 1.0]},
        "neg_sigmoid_loss",
        "finite and > 0",
    ),
]


@pytest.mark.parametrize(
    "estimator,space,scoring,message",
    [v[1:] for v in VIOLATIONS],
    ids=[v[0] for v in VIOLATIONS],
)
def test_assumption_violations_refused_before_data(estimator, space, scoring, message):
    search = DPBayesSearchCV(
        estimator, space, method="lipschitz", scoring=scoring, n_candidates=8
    )
    with pytest.raises(ValueError, match="Assumption 2") as info:
        search.fit(
            Untouchable(), Untouchable(), X_val=Untouchable(), y_val=Untouchable()
        )
    assert message in str(info.value)


def test_supported_models_pass_the_check():
    for est, space in [
        (lr_pipeline(), C_SPACE),
        (
            make_pipeline(
                Normalizer(norm="l1"), LinearSVC(loss="hinge", fit_intercept=False)
            ),
            {"linearsvc__C": [0.1, 1.0]},
        ),
        (
            make_pipeline(
                Normalizer(), SGDClassifier(loss="log_loss", fit_intercept=False)
            ),
            {"sgdclassifier__alpha": (1e-4, 1.0, "log-uniform")},
        ),
    ]:
        setup = check_assumption_2(
            est, CandidateSet(space, 8, 0), get_dp_scorer("neg_ramp_loss", est)
        )
        assert setup.lipschitz == 1.0 and setup.g_star == 1.0
        assert setup.loss_at_zero == 1.0  # ramp: g(0, ·) = 1 = g*
    sig = get_dp_scorer("neg_sigmoid_loss", lr_pipeline())
    setup = check_assumption_2(lr_pipeline(), CandidateSet(C_SPACE, 8, 0), sig)
    assert setup.loss_at_zero == 0.5  # sigmoid: g(0, ·) = 1/2


def test_ei_is_a_parameter_of_lipschitz_only():
    """Algorithm 3 holds for any acquisition; gp-ucb's guarantee needs UCB."""
    with pytest.raises(TypeError, match="acquisition"):
        DPGPUCB(acquisition="ei")
    with pytest.raises(TypeError, match="unexpected keyword argument 'acquisition'"):
        DPBayesSearchCV(lr_pipeline(), C_SPACE, method="gp-ucb", acquisition="ei")
    search = DPBayesSearchCV(lr_pipeline(), C_SPACE, method="gp-ucb")
    with pytest.raises(ValueError, match=r"method=Lipschitz\(acquisition='ei'\)"):
        search.set_params(acquisition="ei")


def test_fit_time_checks_before_validation_scoring(cancer_split):
    X_tr, y_tr, X_va, y_va = cancer_split
    calls = []

    def spy(est, X, y):
        calls.append(1)
        return np.full(len(y), -0.5)

    scorer = CallbackScorer(spy, bounds=(-1.0, 0.0), name="spy")
    scorer.lipschitz = 0.25  # as the built-in sigmoid loss declares
    search = DPBayesSearchCV(
        lr_pipeline(), C_SPACE, method="lipschitz", scoring=scorer, n_candidates=8
    )
    y3 = y_tr.copy()
    y3[:5] = 2
    with pytest.raises(ValueError, match="not binary"):
        search.fit(X_tr, y3, X_val=X_va, y_val=y_va)
    w = np.ones(len(y_tr))
    with pytest.raises(ValueError, match="fit parameters"):
        search.fit(
            X_tr, y_tr, X_val=X_va, y_val=y_va, logisticregression__sample_weight=w
        )
    assert calls == []


# ---------------------------------------------------------------------------
# The Laplace scale of f̃_L, statistically
# ---------------------------------------------------------------------------
def test_score_release_laplace_scale():
    m, L, g, lam = 10_000, 0.25, 1.0, 2.0
    sens, _ = lipschitz_score_sensitivity(m, L, g, lam, lam, 0.5)
    rng = np.random.default_rng(20240601)
    f_bo = -0.5
    rel = [
        release_best_score_lipschitz(
            f_bo,
            epsilon=0.8,
            sensitivity=sens,
            bounds=(-1.0, 0.0),
            assumption="test",
            rng=rng,
        )
        for _ in range(10_000)
    ]
    # Compare with the scale the Release records: an exact sampler on a 2^k
    # grid may inflate it slightly (Δ + 2^k), never shrink it.
    scale = rel[0].noise_scale
    assert sens / 0.8 <= scale <= sens / 0.8 * (1 + 1e-5)
    values = np.array([r.value for r in rel])
    assert ks_pvalue(values, stats.laplace(loc=f_bo, scale=scale).cdf) > ALPHA
    for wrong in (0.7, 1.3):
        cdf = stats.laplace(loc=f_bo, scale=wrong * scale).cdf
        assert ks_pvalue(values, cdf) < ALPHA
    assert rel[0].epsilon == 0.8 and rel[0].delta == 0.0


# ---------------------------------------------------------------------------
# End to end
# ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    X_tr, X_rest, y_tr, y_rest = train_test_split(
        X, y, train_size=300, random_state=0, stratify=y
    )
    X_va, X_te, y_va, y_te = train_test_split(
        X_rest, y_rest, train_size=151, random_state=0, stratify=y_rest
    )
    return X_tr, y_tr, X_va, y_va, X_te, y_te


@pytest.mark.parametrize("acquisition", ["ucb", "ei"])
def test_end_to_end_breast_cancer(cancer, acquisition):
    X_tr, y_tr, X_va, y_va, X_te, y_te = cancer
    search = DPBayesSearchCV(
        lr_pipeline(),
        C_SPACE,
        method=Lipschitz(acquisition=acquisition),
        scoring="neg_sigmoid_loss",
        n_candidates=16,
        n_iter=8,
        epsilon=2.0,
        random_state=0,
    ).fit(X_tr, y_tr, X_val=X_va, y_val=y_va)
    assert search.best_params_ in search.candidate_params_
    assert -1.0 <= search.best_score_ <= 0.0
    assert search.score(X_te, y_te) < 0 and search.predict(X_te).shape == y_te.shape
    rep = search.privacy_report_
    assert rep.epsilon == pytest.approx(2.0) and rep.delta == 0.0
    params, score = rep.releases
    assert params["quantity"] == "best_params_" and params["epsilon"] == 1.0
    assert params["sensitivity"] == pytest.approx(1 / 151)
    assert params["assumption"].startswith("row independence")
    assert score["quantity"] == "best_score_" and score["epsilon"] == 1.0
    assert "Assumption 2" in score["assumption"] and "g*=1" in score["assumption"]
    # Capped at g*: the release rests on nothing, and the short report says so.
    assert score["assumption"].startswith("none: the sensitivity is capped at g*")
    assert str(rep).splitlines()[2].endswith("; assumes none")
    c = search.lipschitz_constants_
    Cs = [p["logisticregression__C"] for p in search.candidate_params_]
    assert close(c["lambda_min"], 1 / (max(Cs) * 300))
    assert close(c["lambda_max"], 1 / (min(Cs) * 300))
    assert c["lipschitz"] == 0.25 and c["score_sensitivity_capped"]
    assert score["sensitivity"] == pytest.approx(1.0, rel=1e-5)
    assert score["noise_scale"] == pytest.approx(1.0, rel=1e-5)
    assert c["acquisition"] == acquisition


def test_selection_is_useful_at_large_epsilon(cancer):
    X_tr, y_tr, X_va, y_va, _, _ = cancer
    search = DPBayesSearchCV(
        lr_pipeline(),
        C_SPACE,
        method="lipschitz",
        scoring="neg_ramp_loss",
        n_candidates=16,
        epsilon=200.0,
        release_score=False,
        random_state=1,
    ).fit(X_tr, y_tr, X_val=X_va, y_val=y_va)
    assert len(search.privacy_report_.releases) == 1
    assert not hasattr(search, "best_score_")
    scorer = search.scorer_
    path = [
        scorer(lr_pipeline(C=p["logisticregression__C"]).fit(X_tr, y_tr), X_va, y_va)
        for p in search.candidate_params_
    ]
    # temperature 2Δ/ε = 2/(151·200): within a few hundredths of the best.
    assert path[search.best_index_] >= max(path) - 0.02


@pytest.mark.parametrize("epsilon, warned", [(1.0, True), (4.0, True), (40.0, False)])
def test_useless_score_release_is_warned(cancer, epsilon, warned):
    """F7 / issue 19: the capped score noise g*/ε₂ is announced when it is more
    than 10 % of the range [−g*, 0] (ε₂ = ε/2 < 10), not only above it."""
    X_tr, y_tr, X_va, y_va, _, _ = cancer
    search = DPBayesSearchCV(
        lr_pipeline(),
        C_SPACE,
        method="lipschitz",
        scoring="neg_sigmoid_loss",
        n_candidates=8,
        n_iter=3,
        epsilon=epsilon,
        random_state=0,
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UselessReleaseWarning)
        search.fit(X_tr, y_tr, X_val=X_va, y_val=y_va)
    useless = [str(w.message) for w in caught if w.category is UselessReleaseWarning]
    if not warned:
        assert useless == []
        return
    # Only the score: the selection's noise 2(g*/m)/ε₁ is far below g*.
    assert len(useless) == 1, useless
    assert "best_score_" in useless[0] and "method='private-selection'" in useless[0]
    score = search.privacy_report_.releases[1]
    assert score["noise_scale"] > 0.1  # the release agrees with the warning
