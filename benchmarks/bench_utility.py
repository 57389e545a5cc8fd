"""Utility benchmark of DPBayesSearchCV: what does privacy cost in accuracy?

Task: ``make_pipeline(StandardScaler(), SVC())`` (RBF kernel) tuning
``svc__C`` in [1e-2, 1e3] and ``svc__gamma`` in [1e-5, 1e0] (log scale) on
scikit-learn's ``load_digits`` and ``load_breast_cancer``, each split once
(stratified, seed 0) into a public training set (50 %), a private
validation set (25 %) and a test set (25 %).

Candidate set: a fixed public grid of 32 log-spaced C x 32 log-spaced gamma
values (1024 candidates), passed as ``search_spaces`` lists, so
``candidate_params_`` is the same for every ``random_state``.

Methods (one row each; the private ones for every total epsilon):

- ``private-selection``: ``DPBayesSearchCV`` with the library defaults
  (public BO on 3-fold CV inside the training set, shortlist scored on the
  validation set, permute-and-flip, Laplace score).
- ``private random search``: ``shortlist="random", shortlist_size=30``.
- ``gp-ucb``: ``method="gp-ucb", n_iter=30`` (Kusner et al. 2015, Alg. 1).
- non-private references on the same split: ``oracle`` (argmax of the
  validation accuracy over all 1024 candidates, i.e. exhaustive grid
  search), ``random search`` (argmax of validation accuracy over the same 30
  public random candidates the private random search scores), ``BO``
  (``sklearn_dpbo._bo.bayesian_optimisation`` with the library's kernel,
  noise and public-BO exploration weight, run on the validation scores,
  argmax of the 30 observations) and ``uniform`` (a uniformly random
  candidate; its exact expectation over the 1024 candidates is reported,
  hence no standard error).

Metrics, mean +- standard error over seeds (``random_state`` of the search),
in accuracy points (x100):

- validation regret: oracle validation accuracy minus the validation
  accuracy of the released candidate;
- test accuracy of the released candidate refit on the training set;
- |best_score_ - true validation accuracy of the released candidate|
  (zero for the non-private references, which report the exact score).

How it is made fast, and why that is exact: the validation and test
accuracy of every candidate (fitted on the training set) is computed once
per dataset, and the public 3-fold CV score of a candidate on a given fold
is computed the first time it is requested and cached (the folds depend on
the public seed derived from ``random_state``, so the cache is keyed by a
fingerprint of the fold's data, not by the seed). The library then runs
unmodified except that ``sklearn_dpbo._evaluation.fit_and_score`` (the single
function the search uses to fit and score one candidate) is replaced by a
lookup in these tables, with ``n_jobs=1`` so that the replacement is the
function actually called. SVC is deterministic, so the lookup returns
exactly what a real fit would. ``--verify`` (also run at the start of every
benchmark run) checks this: for one seed per dataset it runs the real,
unpatched search (with ``refit=True``) and the patched one for
private-selection, private random search and gp-ucb, and asserts that they
release the same ``best_index_`` and bit-identical ``best_score_``, that the
refit model's test accuracy equals the table's, and that
``candidate_params_`` is the same for two different ``random_state``.

Second mode, ``--defaults``: private-selection's validation regret and
score error at total epsilon 0.5 and 1 for a grid of ``shortlist_size`` x
``budget_split`` values (written to ``bench_defaults.json``), to choose the
library defaults.

Usage (from the repository root)::

    python benchmarks/bench_utility.py            # full run, < 10 min on 2 cores
    python benchmarks/bench_utility.py --quick    # CI smoke run
    python benchmarks/bench_utility.py --defaults # defaults study
    python benchmarks/bench_utility.py --verify   # exactness check only
    # supplementary grid at larger epsilon (bench_defaults_high_eps.json):
    python benchmarks/bench_utility.py --defaults --epsilons 2 5 --sizes 2 3 5 8 \
        --splits 0.5 0.7 --out benchmarks/results/bench_defaults_high_eps.json

``--cache-dir DIR`` keeps the per-candidate tables between runs.

Results go to ``benchmarks/results/`` (JSON, plus a PNG of regret against
epsilon when matplotlib is importable). ``random_state`` is fixed for
reproducibility: that makes the privacy noise predictable and is for
benchmarking only.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np
import sklearn
from joblib import Parallel, delayed
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer, load_digits
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

import sklearn_dpbo
import sklearn_dpbo._evaluation as evaluation_module
from sklearn_dpbo import CandidateSet, DPBayesSearchCV
from sklearn_dpbo._acquisition import ucb_beta
from sklearn_dpbo._bo import bayesian_optimisation
from sklearn_dpbo._evaluation import fit_and_score as real_fit_and_score
from sklearn_dpbo._private_selection import PUBLIC_BO_DELTA
from sklearn_dpbo._scorers import get_dp_scorer
from sklearn_dpbo._validation import public_rng

RESULTS = Path(__file__).resolve().parent / "results"

DATASETS = {"digits": load_digits, "breast_cancer": load_breast_cancer}
SPLIT_SEED = 0
C_VALUES = [float(v) for v in np.logspace(-2, 3, 32)]
GAMMA_VALUES = [float(v) for v in np.logspace(-5, 0, 32)]
SEARCH_SPACES = {"svc__C": C_VALUES, "svc__gamma": GAMMA_VALUES}
DELTA = 1e-5
N_ITER = 30
EPSILONS = (0.5, 1.0, 2.0, 5.0)

# Private methods: label -> DPBayesSearchCV keyword arguments (besides epsilon).
PRIVATE_METHODS = {
    "private-selection": {},
    "private random search": {"shortlist": "random", "shortlist_size": 30},
    "private grid search": {"shortlist": "grid"},
    "gp-ucb": {"method": "gp-ucb"},
}
REFERENCE_METHODS = ("oracle", "random search", "BO", "uniform")

# Defaults study grid.
DEFAULT_SIZES = (1, 2, 3, 5, 8, 10, 15, 20, 30)
DEFAULT_SPLITS = (0.5, 0.7, 0.8, 0.9)
DEFAULT_EPSILONS = (0.5, 1.0)

# Public-BO exploration weight of the library (used by the BO reference).
_PUBLIC_BO_DELTA = PUBLIC_BO_DELTA


def make_estimator():
    return make_pipeline(StandardScaler(), SVC())


def candidates() -> list[dict]:
    return CandidateSet(SEARCH_SPACES, len(C_VALUES) * len(GAMMA_VALUES)).params


def load_split(name: str):
    """Public train 50 % / private validation 25 % / test 25 %, stratified."""
    X, y = DATASETS[name](return_X_y=True)
    X_tr, X_rest, y_tr, y_rest = train_test_split(
        X, y, test_size=0.5, random_state=SPLIT_SEED, stratify=y
    )
    X_va, X_te, y_va, y_te = train_test_split(
        X_rest, y_rest, test_size=0.5, random_state=SPLIT_SEED, stratify=y_rest
    )
    return X_tr, y_tr, X_va, y_va, X_te, y_te


# ---------------------------------------------------------------------------
# Precomputation: validation and test accuracy of every candidate
# ---------------------------------------------------------------------------
def _score_chunk(name, params_list):
    X_tr, y_tr, X_va, y_va, X_te, y_te = load_split(name)
    estimator = make_estimator()
    scorer = get_dp_scorer(None, estimator)  # the library's accuracy scorer
    val, test = [], []
    for params in params_list:
        est = clone(estimator).set_params(**clone(params, safe=False))
        est.fit(X_tr, y_tr)
        val.append(scorer(est, X_va, y_va))
        test.append(scorer(est, X_te, y_te))
    return val, test


def precompute(name: str, n_jobs: int, cache_dir: Path | None) -> dict:
    params = candidates()
    cache = None
    if cache_dir is not None:
        key = f"{name}-sklearn{sklearn.__version__}-{len(params)}"
        cache = cache_dir / f"table-{key}.npz"
        if cache.exists():
            data = np.load(cache)
            return {"val": data["val"], "test": data["test"], "seconds": 0.0}
    start = time.perf_counter()
    chunks = [params[i : i + 32] for i in range(0, len(params), 32)]
    out = Parallel(n_jobs=n_jobs)(delayed(_score_chunk)(name, c) for c in chunks)
    val = np.concatenate([np.asarray(v, dtype=float) for v, _ in out])
    test = np.concatenate([np.asarray(t, dtype=float) for _, t in out])
    seconds = time.perf_counter() - start
    if cache is not None:
        cache.parent.mkdir(parents=True, exist_ok=True)
        np.savez(cache, val=val, test=test)
    return {"val": val, "test": test, "seconds": seconds}


# ---------------------------------------------------------------------------
# The lookup that replaces sklearn_dpbo._evaluation.fit_and_score
# ---------------------------------------------------------------------------
def _fingerprint(*arrays) -> bytes:
    h = hashlib.blake2b(digest_size=16)
    for a in arrays:
        a = np.ascontiguousarray(a)
        h.update(str((a.shape, a.dtype.str)).encode())
        h.update(a.tobytes())
    return h.digest()


class TableLookup:
    """Drop-in for ``fit_and_score`` backed by precomputed scores.

    Validation scores (``privacy`` "score" or "candidate") come from the
    per-candidate table; public CV scores (``privacy="public"``) are computed
    by the real function on first request and cached by (fold fingerprint,
    candidate).
    """

    def __init__(self, params: list[dict], val: np.ndarray, X_val, y_val):
        self.index = {(p["svc__C"], p["svc__gamma"]): j for j, p in enumerate(params)}
        self.val = val
        self.X_val, self.y_val = X_val, y_val
        self.cv_cache: dict = {}
        self.n_cv_fits = 0

    def __call__(
        self,
        estimator,
        params,
        X_fit,
        y_fit,
        X_score,
        y_score,
        scorer,
        *,
        error_score,
        fit_params,
        privacy="public",
    ):
        j = self.index[(params["svc__C"], params["svc__gamma"])]
        if privacy != "public":
            if X_score is not self.X_val and not (
                np.array_equal(X_score, self.X_val)
                and np.array_equal(y_score, self.y_val)
            ):
                raise AssertionError("private score requested on unknown data")
            return float(self.val[j])
        key = (_fingerprint(X_fit, y_fit, X_score, y_score), j)
        if key not in self.cv_cache:
            self.cv_cache[key] = real_fit_and_score(
                estimator,
                params,
                X_fit,
                y_fit,
                X_score,
                y_score,
                scorer,
                error_score=error_score,
                fit_params=fit_params,
                privacy=privacy,
            )
            self.n_cv_fits += 1
        return self.cv_cache[key]


class patched:
    """Context manager: replace ``sklearn_dpbo._evaluation.fit_and_score``
    (called by every search mode through ``evaluate_candidates``) by
    ``lookup``."""

    def __init__(self, lookup):
        self.lookup = lookup

    def __enter__(self):
        self.saved = evaluation_module.fit_and_score
        evaluation_module.fit_and_score = self.lookup
        return self.lookup

    def __exit__(self, *exc):
        evaluation_module.fit_and_score = self.saved
        return False


def make_search(seed: int, epsilon: float, **kwargs) -> DPBayesSearchCV:
    kwargs.setdefault("refit", False)
    kwargs.setdefault("n_jobs", 1)
    return DPBayesSearchCV(
        make_estimator(),
        SEARCH_SPACES,
        epsilon=epsilon,
        delta=DELTA,
        n_iter=N_ITER,
        random_state=seed,
        **kwargs,
    )


# ---------------------------------------------------------------------------
# One (dataset, seed): every configuration, patched
# ---------------------------------------------------------------------------
def _reference_indices(seed: int, val: np.ndarray) -> dict:
    """Indices chosen by the non-private references (ε-independent)."""
    n = len(val)
    tie_break = public_rng(seed).permutation(n)

    def best_of(indices):
        indices = np.asarray(indices)
        top = indices[val[indices] == val[indices].max()]
        return int(top[np.argmin(tie_break[top])])

    # The same 30 public random candidates as shortlist="random" scores.
    sample = np.argsort(tie_break)[:N_ITER]
    trace = bayesian_optimisation(
        lambda idx: [(val[j] - 0.5) / 0.25 for j in idx],
        CandidateSet(SEARCH_SPACES, n).X,
        n_iter=N_ITER,
        beta=lambda t: ucb_beta(t, n, _PUBLIC_BO_DELTA),
        tie_break=tie_break,
    )
    return {"random search": best_of(sample), "BO": best_of(trace.indices)}


def run_seed(name: str, seed: int, configs: list[dict], val: np.ndarray) -> dict:
    """Run every config for one seed; return released indices and scores."""
    X_tr, y_tr, X_va, y_va, _, _ = load_split(name)
    params = candidates()
    lookup = TableLookup(params, val, X_va, y_va)
    out = {"index": [], "score": [], "shortlist": None}
    start = time.perf_counter()
    with patched(lookup):
        for cfg in configs:
            search = make_search(seed, **cfg)
            search.fit(X_tr, y_tr, X_val=X_va, y_val=y_va)
            out["index"].append(int(search.best_index_))
            if search.method == "private-selection" and search.shortlist == "bo":
                # Public: the longest BO shortlist of this seed (the shortlist
                # for a smaller shortlist_size is its prefix).
                sl = [int(j) for j in search.shortlist_]
                if out["shortlist"] is None or len(sl) > len(out["shortlist"]):
                    out["shortlist"] = sl
            out["score"].append(float(search.best_score_))
    if search.candidate_params_ != params:
        raise AssertionError("candidate_params_ differs from the fixed grid")
    out["references"] = _reference_indices(seed, val)
    out["n_cv_fits"] = lookup.n_cv_fits
    out["seconds"] = time.perf_counter() - start
    return out


def run_all(tables: dict, seeds, configs, n_jobs: int) -> dict:
    tasks = [(name, seed) for name in tables for seed in seeds]
    results = Parallel(n_jobs=n_jobs)(
        delayed(run_seed)(name, seed, configs, tables[name]["val"])
        for name, seed in tasks
    )
    return {task: res for task, res in zip(tasks, results)}


# ---------------------------------------------------------------------------
# Verification: patched run == real run
# ---------------------------------------------------------------------------
def verify(names, tables: dict, seed: int = 0, n_jobs: int = 2) -> list[dict]:
    checks = []
    params = candidates()
    # Same candidate set for another random_state (the Sobol seed is unused
    # for lists, but check it through the library's own plan).
    other_params = make_search(seed + 1, 1.0)._check_settings().candidates.params
    if other_params != params:
        raise AssertionError("candidate set depends on random_state")
    for name in names:
        X_tr, y_tr, X_va, y_va, X_te, y_te = load_split(name)
        table = tables[name]
        for label, kwargs in PRIVATE_METHODS.items():
            real = make_search(seed, 1.0, refit=True, n_jobs=n_jobs, **kwargs)
            t0 = time.perf_counter()
            real.fit(X_tr, y_tr, X_val=X_va, y_val=y_va)
            t_real = time.perf_counter() - t0
            fake = make_search(seed, 1.0, **kwargs)
            lookup = TableLookup(params, table["val"], X_va, y_va)
            t0 = time.perf_counter()
            with patched(lookup):
                fake.fit(X_tr, y_tr, X_val=X_va, y_val=y_va)
            t_fake = time.perf_counter() - t0
            test_real = real.score(X_te, y_te)
            ok = bool(
                real.best_index_ == fake.best_index_
                and real.best_score_ == fake.best_score_
                and real.candidate_params_ == fake.candidate_params_ == params
                and test_real == table["test"][fake.best_index_]
            )
            checks.append(
                {
                    "dataset": name,
                    "method": label,
                    "seed": seed,
                    "identical": ok,
                    "real_seconds": round(t_real, 2),
                    "patched_seconds": round(t_fake, 2),
                }
            )
            print(
                f"verify {name:13s} {label:22s} seed={seed}: "
                f"{'identical' if ok else 'MISMATCH'} best_index_ and best_score_ "
                f"(real {t_real:.1f}s, patched {t_fake:.2f}s)",
                flush=True,
            )
            if not ok:
                raise AssertionError(
                    f"patched run differs from real run: {name}, {label}"
                )
    return checks


# ---------------------------------------------------------------------------
# Summaries
# ---------------------------------------------------------------------------
def mean_se(x) -> tuple[float, float]:
    x = np.asarray(x, dtype=float)
    if x.size < 2:
        return float(x.mean()), float("nan")
    return float(x.mean()), float(x.std(ddof=1) / math.sqrt(x.size))


def _metric_block(regret, test, err=None) -> dict:
    block = {}
    for key, arr in (("regret", regret), ("test_accuracy", test), ("score_error", err)):
        if arr is None:
            continue
        m, s = mean_se(arr)
        block[key] = {"mean": m, "se": s}
    return block


def summarise_utility(tables, runs, seeds, configs) -> list[dict]:
    rows = []
    for name, table in tables.items():
        val, test = table["val"], table["test"]
        best = val.max()
        oracle_test = test[val == best].mean()
        for label in REFERENCE_METHODS:
            if label == "oracle":
                r, t, e = [0.0], [oracle_test], [0.0]
                block = _metric_block(r, t, e)
                block["test_accuracy"]["note"] = "mean over the tied val maximisers"
                rows.append(
                    {
                        "dataset": name,
                        "method": label,
                        "epsilon": None,
                        "private": False,
                        **block,
                    }
                )
                continue
            if label == "uniform":
                block = {
                    "regret": {"mean": float(best - val.mean()), "se": 0.0},
                    "test_accuracy": {"mean": float(test.mean()), "se": 0.0},
                    "note": "exact expectation over the candidate set",
                }
                rows.append(
                    {
                        "dataset": name,
                        "method": label,
                        "epsilon": None,
                        "private": False,
                        **block,
                    }
                )
                continue
            idx = np.array([runs[(name, s)]["references"][label] for s in seeds])
            block = _metric_block(best - val[idx], test[idx], np.zeros(len(idx)))
            rows.append(
                {
                    "dataset": name,
                    "method": label,
                    "epsilon": None,
                    "private": False,
                    "indices": idx.tolist(),
                    **block,
                }
            )
        for c, cfg in enumerate(configs):
            idx = np.array([runs[(name, s)]["index"][c] for s in seeds])
            score = np.array([runs[(name, s)]["score"][c] for s in seeds])
            block = _metric_block(best - val[idx], test[idx], np.abs(score - val[idx]))
            rows.append(
                {
                    "dataset": name,
                    "method": cfg["label"],
                    "epsilon": cfg["epsilon"],
                    "private": True,
                    "indices": idx.tolist(),
                    "released_scores": score.tolist(),
                    **block,
                }
            )
    return rows


def _pts(block, key) -> str:
    if key not in block:
        return "—"
    m, s = 100 * block[key]["mean"], 100 * block[key]["se"]
    if not math.isfinite(s) or s == 0:
        return f"{m:.2f}"
    return f"{m:.2f} ± {s:.2f}"


def utility_table(rows, tables, n_seeds) -> str:
    out = []
    for name, table in tables.items():
        val = table["val"]
        out.append(
            f"\n### {name}: oracle validation accuracy {100 * val.max():.2f} %, "
            f"mean over candidates {100 * val.mean():.2f} %, {n_seeds} seeds, "
            f"m = {table['m']} validation rows\n"
        )
        out.append(
            "| method | total ε | val regret (pts) | test acc (%) "
            "| abs(best_score_ − true) (pts) |"
        )
        out.append("|---|---|---|---|---|")
        for r in rows:
            if r["dataset"] != name:
                continue
            eps = "—" if r["epsilon"] is None else f"{r['epsilon']:g}"
            label = r["method"] if r["private"] else f"{r['method']} (non-private)"
            err = (
                "0 (exact)"
                if not r["private"] and r["method"] != "uniform"
                else (_pts(r, "score_error"))
            )
            out.append(
                f"| {label} | {eps} | {_pts(r, 'regret')} | "
                f"{_pts(r, 'test_accuracy')} | {err} |"
            )
    return "\n".join(out)


def plot_utility(rows, tables, path: Path) -> bool:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import matplotlib.ticker
    except ImportError:
        return False
    names = list(tables)
    fig, axes = plt.subplots(
        1, len(names), figsize=(5.5 * len(names), 4), squeeze=False
    )
    for ax, name in zip(axes[0], names):
        eps_all = sorted({r["epsilon"] for r in rows if r["epsilon"] is not None})
        for label in PRIVATE_METHODS:
            sel = [r for r in rows if r["dataset"] == name and r["method"] == label]
            sel.sort(key=lambda r: r["epsilon"])
            ax.errorbar(
                [r["epsilon"] for r in sel],
                [100 * r["regret"]["mean"] for r in sel],
                yerr=[100 * r["regret"]["se"] for r in sel],
                marker="o",
                capsize=3,
                label=label,
            )
        styles = {"random search": ":", "BO": "--", "uniform": "-."}
        for r in rows:
            if r["dataset"] == name and r["method"] in styles:
                ax.axhline(
                    100 * r["regret"]["mean"],
                    color="grey",
                    linestyle=styles[r["method"]],
                    label=f"{r['method']} (non-private)",
                )
        ax.set_xscale("log")
        ax.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())
        ax.set_xticks(eps_all)
        ax.set_xticklabels([f"{e:g}" for e in eps_all])
        ax.set_xlabel("total ε")
        ax.set_ylabel("validation regret (accuracy points)")
        ax.set_yscale("symlog", linthresh=1.0)
        top = max(100 * r["regret"]["mean"] for r in rows if r["dataset"] == name)
        ax.set_ylim(0.0, 2.0 * top)
        ax.set_title(name)
        ax.legend(fontsize=7)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True


# ---------------------------------------------------------------------------
# Defaults study
# ---------------------------------------------------------------------------
def summarise_defaults(tables, runs, seeds, configs) -> list[dict]:
    rows = []
    for name, table in tables.items():
        val, best = table["val"], table["val"].max()
        for c, cfg in enumerate(configs):
            idx = np.array([runs[(name, s)]["index"][c] for s in seeds])
            score = np.array([runs[(name, s)]["score"][c] for s in seeds])
            regret = best - val[idx]
            err = np.abs(score - val[idx])
            rows.append(
                {
                    "dataset": name,
                    **{
                        k: cfg[k] for k in ("epsilon", "shortlist_size", "budget_split")
                    },
                    "regret": dict(zip(("mean", "se"), mean_se(regret))),
                    "score_error": dict(zip(("mean", "se"), mean_se(err))),
                    "regret_per_seed": regret.tolist(),
                    "score_error_per_seed": err.tolist(),
                }
            )
    return rows


def shortlist_floor(tables, runs, seeds, sizes=DEFAULT_SIZES) -> dict:
    """Regret of the best *validation* candidate among the first k of the
    public BO shortlist: what a non-private selection from it would reach."""
    floor = {}
    for name, table in tables.items():
        val, best = table["val"], table["val"].max()
        floor[name] = {}
        for k in sizes:
            regret = [best - val[runs[(name, s)]["shortlist"][:k]].max() for s in seeds]
            floor[name][k] = dict(zip(("mean", "se"), mean_se(regret)))
    return floor


def _find(rows, **kw):
    for r in rows:
        if all(r[k] == v for k, v in kw.items()):
            return r
    raise KeyError(kw)


def defaults_tables(rows, tables, floor, grid, baseline=(5, 0.5)) -> str:
    epsilons, sizes, splits = grid
    if baseline[0] not in sizes or baseline[1] not in splits:
        baseline = (sizes[0], splits[0])
    out = []
    for name in tables:
        for eps in epsilons:
            out.append(
                f"\n### {name}, total ε = {eps:g}: mean validation regret ± SE "
                "(pts), rows shortlist_size, columns budget_split; last column: "
                "regret of the best validation candidate in the shortlist "
                "(non-private floor)\n"
            )
            sel = [r for r in rows if r["dataset"] == name and r["epsilon"] == eps]
            top = min(sel, key=lambda r: r["regret"]["mean"])
            out.append(
                "| size | " + " | ".join(f"split {s:g}" for s in splits) + " | floor |"
            )
            out.append("|---" * (len(splits) + 2) + "|")
            for k in sizes:
                cells = []
                for s in splits:
                    r = _find(
                        rows,
                        dataset=name,
                        epsilon=eps,
                        shortlist_size=k,
                        budget_split=s,
                    )
                    cell = _pts(r, "regret")
                    cells.append(f"**{cell}**" if r is top else cell)
                cells.append(_pts({"floor": floor[name][k]}, "floor"))
                out.append(f"| {k} | " + " | ".join(cells) + " |")
            errs = []
            for s in splits:
                sel = [
                    r
                    for r in rows
                    if r["dataset"] == name
                    and r["epsilon"] == eps
                    and r["budget_split"] == s
                ]
                errs.append(
                    f"{100 * np.mean([r['score_error']['mean'] for r in sel]):.2f}"
                    f" ± {100 * np.mean([r['score_error']['se'] for r in sel]):.2f}"
                )
            out.append(
                "| abs(best_score_ − true) (pts; mean over sizes ± typical SE) | "
                + " | ".join(errs)
                + " | — |"
            )
    # Paired comparison with the baseline, averaged over the four settings.
    out.append(
        f"\n### paired difference of regret vs shortlist_size={baseline[0]}, "
        f"budget_split={baseline[1]} (pts, mean ± paired SE over seeds, "
        "averaged over datasets and ε; negative = better)\n"
    )
    out.append("| size | " + " | ".join(f"{s:g}" for s in splits) + " |")
    out.append("|---" * (len(splits) + 1) + "|")
    for k in sizes:
        cells = []
        for s in splits:
            m, se = paired_difference(rows, tables, (k, s), baseline, epsilons)
            cells.append(f"{100 * m:+.2f} ± {100 * se:.2f}")
        out.append(f"| {k} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def paired_difference(rows, tables, config, baseline, epsilons=DEFAULT_EPSILONS):
    """Mean over (dataset, ε) of per-seed regret differences, and its SE."""
    diffs = []
    for name in tables:
        for eps in epsilons:
            a = _find(
                rows,
                dataset=name,
                epsilon=eps,
                shortlist_size=config[0],
                budget_split=config[1],
            )["regret_per_seed"]
            b = _find(
                rows,
                dataset=name,
                epsilon=eps,
                shortlist_size=baseline[0],
                budget_split=baseline[1],
            )["regret_per_seed"]
            diffs.append(np.asarray(a) - np.asarray(b))
    d = np.mean(diffs, axis=0)  # per seed, averaged over the four settings
    return mean_se(d)


# ---------------------------------------------------------------------------
# main
# ---------------------------------------------------------------------------
def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument(
        "--quick",
        action="store_true",
        help="smoke run: breast_cancer, 2 seeds, epsilon=1",
    )
    mode.add_argument(
        "--defaults",
        action="store_true",
        help="shortlist_size x budget_split study of private-selection",
    )
    mode.add_argument(
        "--verify",
        action="store_true",
        help="only check that the patched run equals the real run",
    )
    parser.add_argument(
        "--seeds",
        type=int,
        default=None,
        help="number of seeds (default: 20 full, 40 --defaults)",
    )
    parser.add_argument(
        "--epsilons", type=float, nargs="+", default=None, help="total epsilons"
    )
    parser.add_argument(
        "--sizes",
        type=int,
        nargs="+",
        default=list(DEFAULT_SIZES),
        help="shortlist sizes (--defaults)",
    )
    parser.add_argument(
        "--splits",
        type=float,
        nargs="+",
        default=list(DEFAULT_SPLITS),
        help="budget splits (--defaults)",
    )
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument(
        "--cache-dir",
        type=Path,
        default=None,
        help="cache the per-candidate tables here between runs",
    )
    parser.add_argument(
        "--no-verify",
        action="store_true",
        help="skip the exactness check at the start of a run",
    )
    parser.add_argument("--out", type=Path, default=None, help="JSON output path")
    args = parser.parse_args(argv)

    t_start = time.perf_counter()
    names = ["breast_cancer"] if args.quick else list(DATASETS)
    if args.quick:
        n_seeds, epsilons = 2, (1.0,)
    elif args.defaults:
        n_seeds, epsilons = 40, DEFAULT_EPSILONS
    else:
        n_seeds, epsilons = 20, EPSILONS
    if args.seeds is not None:
        n_seeds = args.seeds
    if args.epsilons is not None:
        epsilons = tuple(args.epsilons)
    seeds = list(range(n_seeds))

    tables = {}
    for name in names:
        table = precompute(name, args.n_jobs, args.cache_dir)
        table["m"] = len(load_split(name)[3])
        tables[name] = table
        print(
            f"precomputed {name}: {len(table['val'])} candidates in "
            f"{table['seconds']:.1f}s",
            flush=True,
        )

    checks = []
    if args.verify or not args.no_verify:
        checks = verify(names, tables, seed=0, n_jobs=args.n_jobs)
    if args.verify:
        print(f"total {time.perf_counter() - t_start:.1f}s")
        return 0

    if args.defaults:
        configs = [
            {"epsilon": e, "shortlist_size": k, "budget_split": s}
            for e in epsilons
            for k in args.sizes
            for s in args.splits
        ]
    else:
        configs = [
            {"label": label, "epsilon": e, **kwargs}
            for label, kwargs in PRIVATE_METHODS.items()
            for e in epsilons
        ]
    run_configs = [{k: v for k, v in c.items() if k != "label"} for c in configs]
    t_runs = time.perf_counter()
    runs = run_all(tables, seeds, run_configs, args.n_jobs)
    t_runs = time.perf_counter() - t_runs

    defaults = DPBayesSearchCV(make_estimator(), SEARCH_SPACES)
    meta = {
        "python": platform.python_version(),
        "sklearn": sklearn.__version__,
        "sklearn_dpbo": sklearn_dpbo.__version__,
        "numpy": np.__version__,
        "cpu_count": os.cpu_count(),
        "n_jobs": args.n_jobs,
        "argv": sys.argv[1:] if argv is None else list(argv),
        "datasets": {
            n: {
                "m_validation": t["m"],
                "oracle_val_accuracy": float(t["val"].max()),
                "mean_val_accuracy": float(t["val"].mean()),
                "precompute_seconds": t["seconds"],
            }
            for n, t in tables.items()
        },
        "n_candidates": len(candidates()),
        "grid": {"svc__C": C_VALUES, "svc__gamma": GAMMA_VALUES},
        "delta": DELTA,
        "n_iter": N_ITER,
        "seeds": seeds,
        "library_defaults": {
            "shortlist_size": defaults.shortlist_size,
            "budget_split": defaults.budget_split,
        },
        "public_cv_fits": int(sum(r["n_cv_fits"] for r in runs.values())),
        "run_seconds": t_runs,
        "verification": checks,
    }

    if args.defaults:
        rows = summarise_defaults(tables, runs, seeds, configs)
        floor = shortlist_floor(tables, runs, seeds, args.sizes)
        meta["shortlist_floor"] = floor
        text = defaults_tables(rows, tables, floor, (epsilons, args.sizes, args.splits))
        out = args.out or RESULTS / "bench_defaults.json"
    else:
        rows = summarise_utility(tables, runs, seeds, configs)
        text = utility_table(rows, tables, len(seeds))
        stem = "bench_utility_quick" if args.quick else "bench_utility"
        out = args.out or RESULTS / f"{stem}.json"
        png = out.with_suffix(".png")
        if plot_utility(rows, tables, png):
            print(f"wrote {png}")
        else:
            print("matplotlib not importable: no plot")
    print(text)
    meta["total_seconds"] = time.perf_counter() - t_start
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out, "w") as fh:
        json.dump({"meta": meta, "rows": rows}, fh, indent=1)
    print(
        f"\nwrote {out}; total {meta['total_seconds']:.1f}s "
        f"(runs {t_runs:.1f}s, {meta['public_cv_fits']} public CV fits)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
