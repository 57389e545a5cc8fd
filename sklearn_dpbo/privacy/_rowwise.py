"""Which fitted models predict row by row by construction.

Row-wise prediction is a property of a model's *code*, which running it
cannot check, so :func:`is_rowwise` accepts only scikit-learn classes on an
explicit list read from their source; anything else is scored one record at
a time. Left off on purpose: ``FunctionTransformer`` (user code),
``IterativeImputer`` (``sample_posterior`` draws from one stream for the
whole batch), ``KNNImputer`` (distances only for the rows with a missing
value, in one block: how many other records miss a value changes a row's
rounding and, on a near-tie, its donor), ``NMF``/``MiniBatchNMF``/
``LatentDirichletAllocation``/dictionary learning (iterative ``transform``
with a batch-wide stopping rule), the dummy estimators (random strategies
draw per batch).
"""

from __future__ import annotations

import importlib
import types
from typing import Any

import numpy as np

_TABLE = """
sklearn.calibration: CalibratedClassifierCV
sklearn.compose: ColumnTransformer TransformedTargetRegressor
sklearn.cross_decomposition: PLSRegression PLSCanonical CCA
sklearn.decomposition: PCA IncrementalPCA KernelPCA TruncatedSVD FactorAnalysis
    FastICA
sklearn.discriminant_analysis: LinearDiscriminantAnalysis
    QuadraticDiscriminantAnalysis
sklearn.ensemble: AdaBoostClassifier AdaBoostRegressor BaggingClassifier
    BaggingRegressor ExtraTreesClassifier ExtraTreesRegressor
    GradientBoostingClassifier GradientBoostingRegressor
    HistGradientBoostingClassifier HistGradientBoostingRegressor
    RandomForestClassifier RandomForestRegressor StackingClassifier
    StackingRegressor VotingClassifier VotingRegressor
sklearn.feature_selection: GenericUnivariateSelect RFE RFECV SelectFdr SelectFpr
    SelectFromModel SelectFwe SelectKBest SelectPercentile VarianceThreshold
sklearn.gaussian_process: GaussianProcessClassifier GaussianProcessRegressor
sklearn.impute: MissingIndicator SimpleImputer
sklearn.kernel_approximation: AdditiveChi2Sampler Nystroem PolynomialCountSketch
    RBFSampler SkewedChi2Sampler
sklearn.kernel_ridge: KernelRidge
sklearn.linear_model: ARDRegression BayesianRidge ElasticNet ElasticNetCV
    GammaRegressor HuberRegressor Lars LarsCV Lasso LassoCV LassoLars
    LassoLarsCV LassoLarsIC LinearRegression LogisticRegression
    LogisticRegressionCV OrthogonalMatchingPursuit PassiveAggressiveClassifier
    PassiveAggressiveRegressor Perceptron PoissonRegressor QuantileRegressor
    RANSACRegressor Ridge RidgeCV RidgeClassifier RidgeClassifierCV
    SGDClassifier SGDOneClassSVM SGDRegressor TheilSenRegressor TweedieRegressor
sklearn.multiclass: OneVsOneClassifier OneVsRestClassifier OutputCodeClassifier
sklearn.multioutput: ClassifierChain MultiOutputClassifier MultiOutputRegressor
    RegressorChain
sklearn.naive_bayes: BernoulliNB CategoricalNB ComplementNB GaussianNB
    MultinomialNB
sklearn.neighbors: KNeighborsClassifier KNeighborsRegressor
    KNeighborsTransformer NearestCentroid NeighborhoodComponentsAnalysis
    RadiusNeighborsClassifier RadiusNeighborsRegressor
    RadiusNeighborsTransformer
sklearn.neural_network: BernoulliRBM MLPClassifier MLPRegressor
sklearn.pipeline: FeatureUnion Pipeline
sklearn.preprocessing: Binarizer KBinsDiscretizer KernelCenterer MaxAbsScaler
    MinMaxScaler Normalizer OneHotEncoder OrdinalEncoder PolynomialFeatures
    PowerTransformer QuantileTransformer RobustScaler SplineTransformer
    StandardScaler TargetEncoder
sklearn.random_projection: GaussianRandomProjection SparseRandomProjection
sklearn.svm: LinearSVC LinearSVR NuSVC NuSVR OneClassSVM SVC SVR
sklearn.tree: DecisionTreeClassifier DecisionTreeRegressor ExtraTreeClassifier
    ExtraTreeRegressor
"""


_CACHE: dict = {}


def rowwise_classes() -> frozenset:
    """The accepted classes (exact types; subclasses are not accepted)."""
    if "classes" not in _CACHE:
        found = set()
        for word in _TABLE.split():
            if word.endswith(":"):
                module = importlib.import_module(word[:-1])
            elif isinstance(cls := getattr(module, word, None), type):
                found.add(cls)  # a class absent in older versions is skipped
        _CACHE["classes"] = frozenset(found)
    return _CACHE["classes"]


_KERNELS_MODULE = "sklearn.gaussian_process.kernels"
_PLAIN = (type(None), bool, int, float, complex, str, bytes, slice, np.generic)


def _sklearn_function(value: Any) -> bool:
    """A plain function or ufunc defined in scikit-learn, NumPy or SciPy."""
    if isinstance(value, np.ufunc):
        return True
    if not isinstance(value, (types.FunctionType, types.BuiltinFunctionType)):
        return False
    if value.__name__ == "<lambda>":
        return False
    module = getattr(value, "__module__", None) or ""
    return module.split(".")[0] in ("sklearn", "numpy", "scipy")


def _value_ok(value: Any, depth: int) -> bool:
    if isinstance(value, dict):
        value = list(value.values())
    if depth > 50:
        return False
    if isinstance(value, (*_PLAIN, np.random.RandomState, np.dtype)) or (
        isinstance(value, type)
        and (issubclass(value, np.generic) or value in (int, float, bool, str))
    ):  # a dtype parameter (e.g. OneHotEncoder(dtype=np.float64))
        return True
    if isinstance(value, np.ndarray):  # e.g. OneHotEncoder's categories
        return value.dtype != object or all(
            isinstance(v, _PLAIN) for v in value.ravel().tolist()
        )
    if isinstance(value, (list, tuple)):
        return all(_value_ok(v, depth + 1) for v in value)
    cls = type(value)
    if cls in rowwise_classes() or (
        cls.__module__ == _KERNELS_MODULE and hasattr(value, "get_params")
    ):
        return _params_ok(value, depth + 1)
    return _sklearn_function(value)


def _params_ok(obj: Any, depth: int) -> bool:
    try:
        params = obj.get_params(deep=False)
    except Exception:
        return False
    return all(_value_ok(v, depth) for v in params.values())


def is_rowwise(estimator: Any) -> bool:
    """Whether ``estimator`` is known to predict row by row by construction.

    True only if the exact class of it and of every estimator among its
    parameters is listed, and every other parameter is a plain value, a
    scikit-learn kernel, or a (non-lambda) scikit-learn/NumPy/SciPy function.
    """
    if type(estimator) not in rowwise_classes():
        return False
    return _params_ok(estimator, 0)
