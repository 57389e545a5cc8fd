"""CI smoke runs of the benchmark scripts (``--quick``), in subprocesses.

CI runs them with the test suite: this is what keeps the benchmarks working.
Outputs go to a temporary folder, never to ``benchmarks/results/`` (the
stored results the docs' tables are generated from). One background
command (``_background.py``) starts when collection finishes and runs the
scripts one at a time while the other tests run: ``_quick_runner.py``
imports the libraries once and runs each script in a forked child, as
``python benchmarks/<script>.py --quick ...`` would (the imports were
most of a smoke run's CPU time); each test reads its own script's output.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import _background
import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
STORED = ROOT / "benchmarks" / "results"


def _stored_files():
    return {p.name: (p.stat().st_size, p.stat().st_mtime_ns) for p in STORED.iterdir()}


# Taken at collection, before any smoke run starts (_background.py).
STORED_AT_COLLECTION = _stored_files()

# One BLAS/OpenMP thread per smoke run, as the tests have (conftest.py): on
# the loaded 2-core machine bench_gd's non-private LogisticRegression fits
# took 36 s of CPU with 2 OpenBLAS threads and 5.7 s with one.
ONE_THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
ONE_THREAD = {**os.environ, **dict.fromkeys(ONE_THREAD_VARS, "1")}


# (script, extra arguments) of every smoke run, in the order they run.
QUICK_RUNS = [
    ("bench_scaling",),
    ("bench_overhead", "--no-memory"),
    ("bench_ldp",),
    ("bench_dp_gp",),
    ("bench_utility", "--racing", "none", "1"),
    ("bench_whole_data",),
    ("bench_gd",),
    ("bench_private_model",),
    ("bench_whole_data_cost",),
    ("bench_isolation",),
    ("bench_svm",),
    ("bench_untuned_C",),
    ("bench_naive_bayes",),
]
_SPEC = [
    [script, script, "--quick", "--out", f"{{out}}/{script}.json", *extra]
    for script, *extra in QUICK_RUNS
]
# Without --out, as a user types it (test_quick_runs_leave_the_stored_...).
_SPEC.append(["quick_default_out", "bench_solver_fuzz", "--quick"])
_RUNNER = ROOT / "tests" / "_quick_runner.py"
_ALL = pytest.mark.background(
    "benchmarks_quick",
    [sys.executable, str(_RUNNER), "{out}", json.dumps(_SPEC)],
    cwd=ROOT,
    env=ONE_THREAD,
    timeout=3000,
)


def _quick(key):
    """The test reads the smoke run ``key`` of the one background command;
    under pytest-xdist the smoke tests share a worker (one command)."""
    assert key in [k for k, *_ in _SPEC], key

    def mark(test):
        return pytest.mark.xdist_group("benchmarks_quick")(_ALL(test))

    return mark


def _output(key):
    """(exit status, stdout, stderr, output folder) of the smoke run ``key``."""
    proc, out_dir = _background.result("benchmarks_quick")
    rc = out_dir / f"{key}.rc"
    assert rc.is_file(), proc.stdout[-3000:] + proc.stderr[-3000:]
    text = [(out_dir / f"{key}.{ext}").read_text() for ext in ("stdout", "stderr")]
    return int(rc.read_text()), *text, out_dir


def _run(script):
    code, stdout, stderr, out_dir = _output(script)
    assert code == 0, stdout[-3000:] + stderr[-3000:]
    out = out_dir / f"{script}.json"
    return json.loads(out.read_text()), stdout, out_dir


@_quick("bench_utility")
def test_bench_utility_quick():
    result, stdout, _ = _run("bench_utility")
    assert all(c["identical"] for c in result["meta"]["verification"])
    methods = {r["method"] for r in result["rows"]}
    assert {"private-selection", "gp-ucb", "GridSearchCV", "BO"} <= methods
    # The racing rows and their paired differences against racing=None.
    racing = "private-selection racing=1"
    assert {"private-selection racing=none", racing} <= methods
    paired = result["meta"]["paired_vs_racing_none"]
    assert {p["method"] for p in paired} == {racing}
    assert "paired difference against racing=none" in stdout
    for r in result["rows"]:
        assert r["regret"]["mean"] >= 0
    assert "note: method='lipschitz' skipped" in stdout
    assert result["meta"]["git_commit"] and result["meta"]["date_utc_start"]


def test_bench_utility_loads_every_task():
    """Every task's loader as the benchmark calls it (``load_split``): the
    generated tasks of the quick run's table are not run by it."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import bench_utility
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    for name in bench_utility.DATASETS:
        X_tr, y_tr, X_va, y_va, X_te, y_te = bench_utility.load_split(name)
        assert len(X_tr) == len(y_tr) > 0 and len(X_va) == len(y_va) > 0, name


@_quick("bench_overhead")
def test_bench_overhead_quick():
    result, _, _ = _run("bench_overhead")
    assert result["overhead"] and result["readme_task"]
    assert result["readme_task"]["releases_identical_across_n_jobs"]
    assert "DPBayesSearchCV (gp-ucb)" in result["tools"]["tools"]


@_quick("bench_dp_gp")
def test_bench_dp_gp_quick():
    result, stdout, out_dir = _run("bench_dp_gp")
    assert "kung" not in result  # --quick never needs the network
    rows = {(r["method"], r["epsilon"]): r for r in result["synthetic"]["rmse"]}
    assert {"cloaking", "standard", "simple binning", "integral binning"} <= {
        m for m, _ in rows
    }
    assert rows[("cloaking", 1.0)]["rmse_mean"] > 0
    # Like for like with the paper (issue 24): its multiplier and selection.
    settings = {
        r["setting"]
        for r in result["synthetic"]["rmse"]
        if r["method"] == "cloaking, non-private selection"
    }
    assert settings == {"paper's (Hall) multiplier", "analytic multiplier"}
    noise = result["synthetic"]["standard_noise"]
    assert noise["exact_factor"] < noise["paper_factor_maxPN"]
    assert all(t["solver"]["converged"] for t in result["timing"])
    assert (out_dir / "bench_dp_gp.png").exists()


@_quick("bench_ldp")
def test_bench_ldp_quick():
    result, stdout, out_dir = _run("bench_ldp")
    algos = {"ldp-tgp-ucb", "ldp-ata-gp-ucb", "ldp-moma-gp-ucb", "gp-ucb"}
    assert set(result["summary"]) == {"private|se|eps=1.0", "heavy|se|student-t"}
    for env, s in result["summary"].items():
        assert set(s["algorithms"]) == algos
        assert 0.0 < s["uniform"][0] <= 2.0  # |f| <= 1
        for r in s["algorithms"].values():
            for row in ("default", "theory"):
                assert 0.0 <= r[row][0] <= 2.0
            # The default is one of the grid widths: the best is no worse.
            assert len(r["grid"]) == 2  # quick: 2 widths around the default
            assert r["best_on_grid"]["mean_se"][0] <= r["default"][0]
        # Paired rows: every row ran on the same seeds.
        seeds = {len(row["final"]) for row in result["curves"][env].values()}
        assert seeds == {len(result["meta"]["seeds"])}
    assert {g["algorithm"] for g in result["goals"]} == algos - {"gp-ucb"}
    assert algos <= set(result["speed"])
    assert "federated-ldp (eps=1 per owner)" in result["federated"]["methods"]
    assert "Time-average regret" in stdout and "Goals (issue 24)" in stdout
    for name in ("regret", "widths", "heavy", "time"):
        assert (out_dir / f"bench_ldp_{name}_quick.png").exists()


@_quick("bench_isolation")
def test_bench_isolation_quick():
    result, stdout, _ = _run("bench_isolation")
    rows = result["rows"]
    assert {r["rowwise"] for r in rows} == {True, False}
    assert all(r["same_values"] for r in rows)  # isolation = batch values here
    assert "us/record" in stdout


@_quick("bench_scaling")
def test_bench_scaling_quick():
    result, stdout, out_dir = _run("bench_scaling")
    meta = result["meta"]
    assert meta["cpu_count"] and meta["date_utc"] and "shared" in meta["note"]
    for section in ("readme_task", "large_task"):
        res = result[section]
        assert {"DPBayesSearchCV", "RandomizedSearchCV"} <= set(res["searchers"])
        for name, per in res["searchers"].items():
            assert set(per) == {"n_jobs=1", "n_jobs=2"}, name
            for rec in per.values():
                assert len(rec["all_s"]) == res["repeats"]
                assert all(t > 0 for t in rec["all_s"])
                assert 0.0 <= rec["test_accuracy_median"] <= 1.0
                assert rec["ratio_to_randomized"] > 0
        # OptunaSearchCV is measured when it imports, else skipped with a note.
        assert ("OptunaSearchCV (TPE)" in res["searchers"]) != bool(res["skipped"])
    rows = result["scheduling"]["rows"]
    cells = {(r["searcher"], r["backend"], r["k"]) for r in rows}
    for name in ("DPBayesSearchCV", "RandomizedSearchCV"):
        assert {(name, "loky", 1), (name, "loky", 2)} <= cells
    try:
        import distributed  # noqa: F401

        assert ("DPBayesSearchCV", "dask", 2) in cells, result["scheduling"]["skipped"]
    except ImportError:
        assert "dask" in result["scheduling"]["skipped"]
    for r in rows:
        assert r["median_s"] > 0 and r["speedup"] > 0
        assert 0.0 < r["efficiency"] == pytest.approx(r["speedup"] / r["k"])
    # The sequential run counted its fits: at least one public fold per
    # iteration (racing) plus the shortlist for the default search, one per
    # iteration for RandomizedSearchCV (refit=False).
    seq = {r["searcher"]: r["fits_sequential"] for r in rows if r["k"] == 1}
    assert seq["RandomizedSearchCV"] == result["scheduling"]["n_iter"]
    assert seq["DPBayesSearchCV"] >= result["scheduling"]["n_iter"]
    section = result["overhead"]
    (over,) = [r for r in section["rows"] if r["method"] == "gp-ucb"]
    assert over["n_candidates"] == section["n_candidates"] == 1024
    assert over["n_iter"] == section["n_iter"] > 0  # quick: 10 (full run: 100)
    assert over["overhead_ms_per_iter"] > 0
    assert {g["goal"].split(",")[0] for g in result["goals"]} >= {
        "README task wall time ÷ RandomizedSearchCV",
        "sleep-bound speed-up",
        "overhead per iteration",
    }
    assert "Goals of issue 13" in stdout
    if result["meta"]["matplotlib"]:
        assert (out_dir / "bench_scaling.png").exists()


def test_bench_scaling_workers_find_the_checkout(monkeypatch, tmp_path):
    """A fresh worker process (loky, Dask) of bench_scaling unpickles
    ``SleepyClassifier`` by reference and must run this checkout's
    ``sklearn_dpbo``: the ``PYTHONPATH`` the script sets finds both. (The
    smoke run forks its loky workers, ``_quick_runner.py``: it cannot tell.)"""
    import runpy
    import subprocess

    monkeypatch.setattr(sys, "path", list(sys.path))
    for var in ("PYTHONPATH", *ONE_THREAD_VARS):  # as they were, after the test
        if var in os.environ:
            monkeypatch.setenv(var, os.environ[var])
        else:
            monkeypatch.delenv(var, raising=False)
    runpy.run_path(str(ROOT / "benchmarks" / "bench_scaling.py"), run_name="env")
    code = "import importlib.util as u\nfor m in ('_sleepy', 'sklearn_dpbo'):"
    code += "\n    print(u.find_spec(m).origin)"
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        env=dict(os.environ),
        capture_output=True,
        text=True,
        check=True,
    )
    found = [Path(p).resolve() for p in out.stdout.split()]
    assert found == [
        ROOT / "benchmarks" / "_sleepy.py",
        ROOT / "sklearn_dpbo" / "__init__.py",
    ]


def _bench_private_model():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import bench_private_model as bpm
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    return bpm


def test_bench_private_model_goals_are_paired_differences():
    bpm = _bench_private_model()
    accs = {n: 0.7 for n in bpm.RULES} | {"auto": 0.75, "public default": 0.72}
    runs = [
        {n: {"acc": a + 0.01 * i, "strategy": "split"} for n, a in accs.items()}
        | {n: {"acc": 0.8} for n in bpm.REFERENCES}
        for i in range(3)
    ]
    _, rows = bpm.goals({"t|1.0": runs}, ["t"], [1.0])
    auto = rows["t|1.0|auto"]
    assert auto["minus_untuned"] == pytest.approx([0.03, 0.0], abs=1e-12)
    assert auto["minus_non_private_choice"][0] == pytest.approx(0.75 + 0.01 - 0.8)
    assert auto["within_1se_of_untuned"] and auto["strategies"] == {"split": 3}


def test_bench_private_model_quick_never_writes_the_stored_results(monkeypatch, capsys):
    bpm = _bench_private_model()
    fake = {n: {"acc": 0.5, "strategy": "default"} for n in bpm.RULES}
    fake |= {n: {"acc": 0.6} for n in bpm.REFERENCES}
    monkeypatch.setattr(bpm, "run_seed", lambda *a: fake)
    monkeypatch.setattr(bpm, "plot", lambda *a: None)
    monkeypatch.setattr(sys, "argv", ["bench_private_model.py", "--quick"])
    bpm.main()
    written = Path(capsys.readouterr().out.strip().splitlines()[-1].split(": ")[1])
    assert written.exists() and (ROOT / "benchmarks" / "results") not in written.parents


@_quick("bench_private_model")
def test_bench_private_model_quick():
    result, stdout, _ = _run("bench_private_model")
    runs = result["runs"]["breast_cancer|1.0"]
    assert len(runs) == result["meta"]["seeds"] == 2
    assert {*bpm_rules(), "non-private selection"} <= set(runs[0])
    assert all(0 <= r[k]["acc"] <= 1 for r in runs for k in r)
    assert "| breast_cancer | 1 |" in stdout
    auto = result["goals"]["breast_cancer|1.0|auto, no score"]
    diff = [
        r["auto, no score"]["acc"] - r["public default, all rows"]["acc"] for r in runs
    ]
    assert auto["minus_untuned"][0] == pytest.approx(np.mean(diff))
    assert sum(auto["strategies"].values()) == 2
    assert result["meta"]["git_commit"] and result["meta"]["date_utc_start"]


@_quick("bench_untuned_C")
def test_bench_untuned_C_quick():
    result, stdout, _ = _run("bench_untuned_C")
    runs = result["runs"]["wine_class2|1.0"]
    assert len(runs) == result["meta"]["seeds"] == 2
    assert {"C = 1", "C rule", "auto", "auto, rule"} <= set(runs[0])
    diff = [r["C rule"]["acc"] - r["C = 1"]["acc"] for r in runs]
    cell = result["summary"]["wine_class2|1.0"]
    assert cell["C rule - C = 1"][0] == pytest.approx(np.mean(diff))
    assert 0 < cell["rule_C"] < 1 and "| wine_class2 | 1 |" in stdout


def bpm_rules():
    return ["public default", "public default, all rows", "auto", "auto, no score"]


@_quick("bench_whole_data")
def test_bench_whole_data_quick():
    result, stdout, out_dir = _run("bench_whole_data")
    assert result["meta"]["seeds"] == 2
    tasks = {r["task"] for r in result["rows"]}
    assert tasks == {"breast_cancer", "diabetes_ridge"}
    methods = {r["method"] for r in result["rows"]}
    assert {"RandomizedSearchCV", "defaults", "whole-data eps=1"} <= methods
    assert set(result["wall"]) == tasks
    walls = [w for ws in result["wall"].values() for w in ws]
    assert all(w["whole_data_s"] > 0 and w["random_search_s"] > 0 for w in walls)
    assert "paired difference (method - reference)" in stdout
    assert "wall time whole-data / RandomizedSearchCV" in stdout
    if "matplotlib not installed" not in stdout:
        assert (out_dir / "bench_whole_data.png").exists()


@_quick("bench_svm")
def test_bench_svm_quick():
    result, stdout, _ = _run("bench_svm")
    assert result["splits"] == 3
    for name in ("DPLinearSVC eps=1", "DPLogisticRegression eps=1"):
        assert 0 <= result["results"][name]["mean"] <= 1
    assert "SVM − logistic" in stdout


@_quick("bench_naive_bayes")
def test_bench_naive_bayes_quick():
    result, _, _ = _run("bench_naive_bayes")
    models = {r["model"] for r in result["summary"]}
    assert "sklearn GaussianNB" in models and len(models) >= 2
    assert all(0 <= r["mean"] <= 1 for r in result["summary"])


@_quick("bench_gd")
def test_bench_gd_quick():
    result, _, _ = _run("bench_gd")
    acc = result["accuracy"]
    assert acc["DPGradientDescent (T=20, default)"]["splits"] == 2
    assert all(0 <= v["mean"] <= 1 for v in acc.values())
    assert result["budgets"]


@_quick("bench_whole_data_cost")
def test_bench_whole_data_cost_quick():
    result, _, _ = _run("bench_whole_data_cost")
    for task in result["tasks"]:
        assert task["whole_data_cpu_s"] > 0 and task["reference_cpu_s"] > 0


@_quick("quick_default_out")
def test_quick_runs_leave_the_stored_results_unchanged():
    """A ``--quick`` run without ``--out`` (as a user types it) writes to a
    fresh temporary folder that it prints; no smoke run of this session added
    or changed a file in ``benchmarks/results/``. Every script takes its
    output folder from ``benchmarks/_results.py``."""
    import shutil

    code, stdout, stderr, _ = _output("quick_default_out")
    assert code == 0, stdout[-3000:] + stderr[-3000:]
    (line,) = [x for x in stdout.splitlines() if x.startswith("--quick: ")]
    folder = Path(line.split("writing to ")[1].split(" (")[0])
    try:
        assert (folder / "bench_solver_fuzz.json").is_file()
        assert STORED not in folder.parents and folder != STORED
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    scripts = sorted((ROOT / "benchmarks").glob("bench_*.py"))
    assert len(scripts) >= 10
    for script in scripts:
        assert "results_dir(" in script.read_text(encoding="utf-8"), script.name
    assert _stored_files() == STORED_AT_COLLECTION
