"""Write the docs' benchmark tables from the stored results.

Usage::

    python benchmarks/report.py           # rewrite the tables in the docs
    python benchmarks/report.py --check   # exit 1 if a table is out of date

Every table of ``docs/benchmarks.md`` and the results table of ``README.md``
sits between ``<!-- report:NAME -->`` and ``<!-- /report:NAME -->`` and is
generated here from ``benchmarks/results/*.json`` (written by a full run of
the script named under each table); nothing between the marks is edited by
hand. Accuracies and regrets are in accuracy points (percent), as mean ± one
standard error over the seeds.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
PAGES = [ROOT / "README.md", ROOT / "docs" / "benchmarks.md"]
PAGES.append(ROOT / "docs" / "private_model.md")


def load(name: str) -> dict:
    return json.loads((RESULTS / name).read_text(encoding="utf-8"))


def pm(mean: float, se: float, scale: float = 100.0, digits: int = 2) -> str:
    if not se or se != se:  # one run, or no spread: no error bar
        return f"{mean * scale:.{digits}f}"
    return f"{mean * scale:.{digits}f} ± {se * scale:.{digits}f}"


def table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def command(meta: dict, script: str) -> str:
    if meta.get("command"):
        return meta["command"]
    argv = [a for a in meta.get("argv", []) if not a.startswith("/")]
    argv = [a for a in argv if a != "--cache-dir"]
    return " ".join([f"python benchmarks/{script}.py", *argv])


def source(meta: dict, script: str, json_name: str, date: str | None = None) -> str:
    date = date or meta.get("date_utc") or meta.get("date") or ""
    when = f", {date}" if date else ""
    return f"`{command(meta, script)}` (`benchmarks/results/{json_name}`{when})"


def eps_label(e: float) -> str:
    return f"ε = {e:g}"


# --------------------------------------------------------------------------
# One function per table: (stored JSON) -> markdown.


def utility() -> str:
    """Validation regret of the central-DP searches (bench_utility.py)."""
    res = load("bench_utility.json")
    rows, meta = res["rows"], res["meta"]
    epsilons = sorted({r["epsilon"] for r in rows if r["epsilon"] is not None})
    private = list(dict.fromkeys(r["method"] for r in rows if r["private"]))
    public = list(dict.fromkeys(r["method"] for r in rows if not r["private"]))
    where = source(meta, "bench_utility", "bench_utility.json")
    out = [
        f"Validation regret (accuracy points below the best candidate's "
        f"validation accuracy), {len(meta['seeds'])} seeds, "
        f"{meta['n_iter']} iterations; {where}."
    ]
    for dataset, info in meta["datasets"].items():
        cell = {
            (r["method"], r["epsilon"]): pm(r["regret"]["mean"], r["regret"]["se"])
            for r in rows
            if r["dataset"] == dataset
        }
        body = [[m] + [cell.get((m, e), "") for e in epsilons] for m in private]
        out.append(
            f"\n**{dataset}** (validation set of {info['m_validation']} rows, "
            f"best candidate {info['oracle_val_accuracy'] * 100:.2f} %):\n"
        )
        out.append(table(["method"] + [eps_label(e) for e in epsilons], body))
        refs = ", ".join(f"{m} {cell[(m, None)]}" for m in public)
        out.append(f"\nNon-private, same candidates and seeds: {refs}.")
    return "\n".join(out)


WHOLE_DATA = (
    "small",
    "tree_noisy_20000",
    "logreg_20000",
    "knn_noisy_20000",
    "tree_noisy_200000",
)


def whole_data() -> str:
    """Test accuracy of the whole-data mode (bench_whole_data.py)."""
    rows = [
        dict(r, seeds=r["n"])
        for name in WHOLE_DATA
        for r in load(f"bench_whole_data_{name}.json")["table"]
    ]
    tasks = list(dict.fromkeys(r["task"] for r in rows))
    methods = list(dict.fromkeys(r["method"] for r in rows))
    cell = {(r["task"], r["method"]): r for r in rows}
    body = [
        [t, str(cell[(t, methods[0])]["seeds"])]
        + [pm(cell[(t, m)]["mean"], cell[(t, m)]["se"]) for m in methods]
        for t in tasks
    ]
    head = (
        "Test accuracy (R² × 100 for `diabetes_ridge`), paired seeds; "
        "`python benchmarks/bench_whole_data.py [--tasks NAME]` "
        "(`benchmarks/results/bench_whole_data_<task>.json`).\n\n"
    )
    return head + table(["task", "seeds"] + methods, body)


PRIVATE_MODEL_TASKS = {
    "breast_cancer": "breast_cancer (scaled by public ranges)",
    "digits": "digits 0–4 vs 5–9",
    "synthetic": "make_classification 10,000 × 20",
    "breast_cancer_raw": "breast_cancer raw, bounds (0, 1.25 × max)",
    "wine": "wine, class 0 vs rest",
    "diabetes": "diabetes, target > median",
    "synthetic_small": "make_classification 2,000 × 8",
    "iris": "iris (3 classes), bounds",
    "digits10": "digits (10 classes), bounds (0, 16)",
}


PRIVATE_MODEL_ROWS = {  # name in the runs → column; the first from the rerun
    "auto, no score": "auto",
    "public default, all rows": "C = 1",
    "auto": "auto, `release_score=True`",
    "non-private selection": "non-private choice",
    "non-DP LR": "non-DP LR",
}


def mean_se(values: list[float]) -> tuple[float, float]:
    """Mean and standard error of the mean (ddof 1), as the scripts store."""
    n = len(values)
    mean = sum(values) / n
    var = sum((v - mean) ** 2 for v in values) / (n - 1) if n > 1 else float("nan")
    return mean, math.sqrt(var / n)


def private_model_cells() -> list[tuple[str, float, dict]]:
    """(task, ε, {row: per-split test accuracies}) per cell of the docs table.

    The automatic rule (``auto``, ``auto, no score``) at the learner's
    default C: ``bench_private_model_default.json``. The rows that do not
    depend on it (the untuned model at C = 1, the non-private choice, the
    non-DP LR): ``bench_private_model.json`` (learner C = 1; later runs
    winning), on the same public splits (same seeds, paired).
    """
    default = {}
    for run in load("bench_private_model_default.json")["runs"].values():
        for key, splits in run["runs"].items():
            default[key] = (run["meta"], splits)
    cells = {}
    for run in load("bench_private_model.json")["runs"].values():
        meta = run["meta"]
        for task in meta["tasks"]:
            for eps in meta["epsilons"]:
                key = f"{task}|{float(eps)}"
                if f"{key}|auto" in run["summary"]:
                    cells[key] = (task, float(eps), meta, run["runs"][key])
    out = []
    for key, (task, eps, meta, stored) in cells.items():
        new_meta, rerun = default[key]
        if (new_meta["first_seed"], len(rerun)) != (meta["first_seed"], len(stored)):
            raise ValueError(f"{key}: the rerun's splits are not the stored ones")
        acc = {}
        for name in PRIVATE_MODEL_ROWS:
            splits = rerun if name.startswith("auto") else stored
            acc[name] = [r[name]["acc"] for r in splits]
        out.append((task, eps, acc))
    return out


def private_model() -> str:
    """The released DP model at the defaults (bench_private_model.py)."""
    body = []
    for task, eps, acc in private_model_cells():
        diff = [
            a - b
            for a, b in zip(acc["auto, no score"], acc["public default, all rows"])
        ]
        cells = ["{:.3f} ± {:.3f}".format(*mean_se(acc[n])) for n in PRIVATE_MODEL_ROWS]
        cells.insert(2, "{:+.3f} ± {:.3f}".format(*mean_se(diff)))
        label = PRIVATE_MODEL_TASKS.get(task, task)
        body.append([label, f"{eps:g}", str(len(diff)), *cells])
    head = (
        "Test accuracy of the released model, mean ± s.e. over public 70/30 "
        "splits; both `auto` columns at the learner's default C (`python "
        "benchmarks/bench_private_model.py --tasks ... --epsilons ... --rules "
        'auto "auto, no score" --no-references`, '
        "`benchmarks/results/bench_private_model_default.json`), the others "
        "on the same splits with the learner's C = 1 "
        "(`benchmarks/results/bench_private_model.json`; each run's command is "
        "stored in both).\n\n"
    )
    header = ["task", "ε", "splits", "auto", "C = 1", "auto − C = 1"]
    header += list(PRIVATE_MODEL_ROWS.values())[2:]
    return head + table(header, body)


HELD_OUT_2 = {  # task → (label, rows, features), sizes of load() in the script
    "wine_class1": ("wine, class 1 vs rest", 178, 13),
    "iris_virginica": ("iris, virginica vs rest", 150, 4),
    "digits_3v8": ("digits 3 vs 8", 357, 64),
    "breast_cancer_mean": ("breast_cancer, 10 mean features", 569, 10),
    "diabetes_q75": ("diabetes, target in top quarter", 442, 10),
    "synthetic_600x20": ("make_classification 600 × 20", 600, 20),
    "synthetic_1000x40": ("make_classification 1,000 × 40", 1000, 40),
}


def private_model_held_out() -> str:
    """The rule on tasks fixed before its run, with what selection can reach."""
    body = []
    for run in load("bench_private_model_heldout2.json")["runs"].values():
        meta, summary, goals = run["meta"], run["summary"], run["goals"]
        for task in meta["tasks"]:
            for eps in meta["epsilons"]:
                key = f"{task}|{float(eps)}"
                label, n, d = HELD_OUT_2[task]
                x = (n - math.ceil(0.3 * n)) * float(eps) / d

                def acc(rule, key=key, summary=summary):
                    s = summary[f"{key}|{rule}"]
                    return f"{s['mean']:.3f} ± {s['se']:.3f}"

                def diff(name, what, key=key, goals=goals):
                    return "{:+.3f} ± {:.3f}".format(*goals[f"{key}|{name}"][what])

                goal = goals[f"{key}|auto, no score"]
                body.append(
                    [
                        label,
                        f"{eps:g}",
                        f"{x:.0f}",
                        str(meta["seeds"]),
                        ", ".join(sorted(goal["strategies"])),
                        acc("auto, no score"),
                        diff("auto, no score", "minus_untuned"),
                        acc("non-private selection"),
                        diff("auto, no score", "minus_non_private_choice"),
                        diff("noisy-score selection", "minus_non_private_choice"),
                        diff("best fixed C (hindsight)", "minus_non_private_choice"),
                    ]
                )
    head = (
        "Test accuracy, mean ± s.e. over public 70/30 splits (paired); "
        "differences in accuracy (× 100 for points); n·ε/d with n the "
        "training rows; `python benchmarks/bench_private_model.py --tasks "
        + " ".join(HELD_OUT_2)
        + " --epsilons E --seeds 20 --jobs 2` "
        "(`benchmarks/results/bench_private_model_heldout2.json`).\n\n"
    )
    header = ["task", "ε", "n·ε/d", "splits", "auto ran", "auto"]
    header += ["auto − untuned", "non-private choice", "auto − it"]
    header += ["noisy-score selection − it", "best fixed C − it"]
    return head + table(header, body)


def ldp() -> str:
    """Time-average regret of the LDP optimisers (bench_ldp.py --goals)."""
    res = load("bench_ldp_goals.json")
    meta, goals = res["meta"], res["goals"]
    epsilons = sorted({g["epsilon"] for g in goals})
    algos = list(dict.fromkeys(g["algorithm"] for g in goals))
    cell = {(g["algorithm"], g["epsilon"]): g for g in goals}

    def f(v):
        return f"{v[0]:.3f} ± {v[1]:.3f}"

    body = [[a] + [f(cell[(a, e)]["default"]) for e in epsilons] for a in algos]
    first = algos[0]
    body.append(
        ["GP-UCB on the same reports"]
        + [f(cell[(first, e)]["gp_ucb"]) for e in epsilons]
    )
    body.append(
        ["uniform exploration"] + [f(cell[(first, e)]["uniform"]) for e in epsilons]
    )
    where = source(meta, "bench_ldp", "bench_ldp_goals.json")
    head = (
        f"Time-average regret R_T/T, T = {meta['horizon']}, "
        f"{len(meta['seeds'])} seeds; {where}.\n\n"
    )
    return head + table(["algorithm"] + [eps_label(e) for e in epsilons], body)


def dp_gp() -> str:
    """RMSE of the DP GP release on the !Kung heights (bench_dp_gp.py)."""
    res = load("bench_dp_gp.json")
    meta = res["meta"]
    data = "kung" if res.get("kung") else "synthetic"
    rmse = res[data]["rmse"]
    epsilons = sorted({r["epsilon"] for r in rmse if r["epsilon"] is not None})
    keys = list(dict.fromkeys((r["method"], r["setting"]) for r in rmse))
    cell = {(r["method"], r["setting"], r["epsilon"]): r for r in rmse}
    body = []
    for method, setting in keys:
        row = [f"{method} ({setting})"]
        for e in epsilons:
            r = cell.get((method, setting, e)) or cell.get((method, setting, None))
            row.append(pm(r["rmse_mean"], r["rmse_se"], 1.0, 1) if r else "")
        body.append(row)
    name = "!Kung heights (cm)" if data == "kung" else "synthetic data"
    where = source(meta, "bench_dp_gp", "bench_dp_gp.json")
    head = (
        f"RMSE of the released regression curve on the {name}, "
        f"δ = {meta['delta']}, {meta['seeds']} seeds; {where}.\n\n"
    )
    return head + table(["method"] + [eps_label(e) for e in epsilons], body)


def scaling() -> str:
    """Wall time against RandomizedSearchCV, parallel speed-up (bench_scaling.py)."""
    res = load("bench_scaling.json")
    meta = res["meta"]
    out = [
        f"Median wall time and its ratio to `RandomizedSearchCV`'s in the same run; "
        f"{source(meta, 'bench_scaling', 'bench_scaling.json')}, "
        f"{meta['cpu_count']} cores.\n"
    ]
    body = []
    for section in ("readme_task", "large_task"):
        task = res[section]
        name = re.sub(r"^README task \((.*)\)$", r"\1", task["task"])
        name = name if len(name) < 50 else name.split(",")[0]
        label = f"{name}, {task['n_train']} training rows"
        for name, per in task["searchers"].items():
            body.append(
                [label, name]
                + [
                    f"{per[k]['median_s']:.2f} s ({per[k]['ratio_to_randomized']:.2f}×)"
                    for k in ("n_jobs=1", "n_jobs=2")
                ]
            )
    out.append(table(["task", "searcher", "n_jobs=1", "n_jobs=2"], body))
    sched = res["scheduling"]
    ks = sorted({r["k"] for r in sched["rows"]})
    speedup = {
        (r["searcher"], r["backend"], r["k"]): r["speedup"] for r in sched["rows"]
    }
    pairs = list(dict.fromkeys((r["searcher"], r["backend"]) for r in sched["rows"]))
    body = [
        [f"{s} ({b})"] + [f"{speedup[(s, b, k)]:.2f}×" for k in ks if k > 1]
        for s, b in pairs
    ]
    ms = sched["sleep_s"] * 1000
    out.append(
        f"\nSpeed-up with k workers, sleep-bound fits of {ms:g} ms, "
        f"n_iter = {sched['n_iter']}:\n"
    )
    out.append(table(["searcher (backend)"] + [f"k = {k}" for k in ks if k > 1], body))
    body = [
        [
            r["method"],
            r["n_candidates"],
            r["n_iter"],
            f"{r['overhead_ms_per_iter']:.2f}",
        ]
        for r in res["overhead"]["rows"]
    ]
    out.append("\nSearch overhead per iteration (ms), trivial estimator:\n")
    out.append(table(["mode", "candidates", "iterations", "ms / iteration"], body))
    return "\n".join(out)


def rule() -> str:
    """The default public signal before/after on large tasks (--sections rule)."""
    body = []
    for t in ("hgb", "rf"):
        res = load(f"bench_scaling_rule_{t}.json")
        task = res["default_rule"][t]
        for name, r in task["searchers"].items():
            if not name.startswith("DPBayesSearchCV"):
                continue
            body.append(
                [
                    f"{task['task'].split('(')[0]}, {task['n_train']:,} rows",
                    name.replace("DPBayesSearchCV ", ""),
                    f"{r['cpu_ratio_to_cv3_total']:.2f}×",
                    f"{r['cpu_ratio_to_one_split_total']:.2f}×",
                    f"{r['wall_ratio_to_one_split_total']:.2f}×",
                ]
            )
    head = (
        "`DPBayesSearchCV` against `RandomizedSearchCV` (same `n_iter`, "
        "`n_jobs=1`), totals over paired seeds; "
        "`python benchmarks/bench_scaling.py --sections rule`, stored in "
        "`benchmarks/results/bench_scaling_rule_*.json` (test accuracy per seed "
        "there). CPU time is the load-independent measure on a shared machine.\n\n"
    )
    return head + table(
        [
            "task",
            "public signal",
            "CPU ÷ RSCV(cv=3)",
            "CPU ÷ RSCV(one split)",
            "wall ÷ RSCV(one split)",
        ],
        body,
    )


def readme() -> str:
    """The README's one table: a headline number per mode, at ε = 1."""
    u = load("bench_utility.json")
    regret = {
        r["dataset"]: r["regret"]
        for r in u["rows"]
        if r["method"] == "private-selection" and r["epsilon"] == 1.0
    }
    big = "tree_noisy_20000"
    wd = {r["method"]: r for r in load(f"bench_whole_data_{big}.json")["table"]}
    w1, wr = wd["whole-data eps=1"], wd["RandomizedSearchCV"]
    p = {  # each cell of the private-model table (private_model_cells)
        f"{task}|{eps}|{name}": mean_se(values)
        for task, eps, acc in private_model_cells()
        for name, values in acc.items()
    }
    g = {
        (x["algorithm"], x["epsilon"]): x for x in load("bench_ldp_goals.json")["goals"]
    }["ldp-ata-gp-ucb", 1.0]
    k = load("bench_dp_gp.json")
    kung = k["kung"]["rmse"] if k.get("kung") else k["synthetic"]["rmse"]
    (cloak,) = [
        r
        for r in kung
        if r["method"] == "cloaking"
        and r["setting"] == "ell=25"
        and r["epsilon"] == 1.0
    ]
    sc = load("bench_scaling.json")
    s = sc["readme_task"]["searchers"]["DPBayesSearchCV"]
    hgb = load("bench_scaling_rule_hgb.json")["default_rule"]["hgb"]
    big_s = hgb["searchers"]["DPBayesSearchCV (default)"]
    rows = [
        [
            "validation-only (default)",
            "validation regret, accuracy points: "
            + ", ".join(f"{d} {pm(v['mean'], v['se'])}" for d, v in regret.items()),
            "`python benchmarks/bench_utility.py`",
        ],
        [
            "whole-data",
            f"test accuracy on a 20,000-row task: {pm(w1['mean'], w1['se'])}, "
            "the estimator's defaults (non-private `RandomizedSearchCV`: "
            f"{pm(wr['mean'], wr['se'])}); within 0.03 points of the defaults "
            "on every seed of every task",
            "`python benchmarks/bench_whole_data.py`",
        ],
        [
            "private-model",
            "test accuracy of the released DP model: "
            + ", ".join(
                f"{t} {pm(*p[f'{t}|1.0|auto, no score'])}"
                for t in ("breast_cancer", "digits", "synthetic")
            )
            + " (the same DP models selected without privacy: "
            + ", ".join(
                f"{p[f'{t}|1.0|non-private selection'][0] * 100:.2f}"
                for t in ("breast_cancer", "digits", "synthetic")
            )
            + ")",
            "`python benchmarks/bench_private_model.py`",
        ],
        [
            "local DP",
            f"time-average regret of LDP-ATA-GP-UCB {g['default'][0]:.3f} ± "
            f"{g['default'][1]:.3f} (uniform exploration {g['uniform'][0]:.3f})",
            "`python benchmarks/bench_ldp.py --goals`",
        ],
        [
            "DP Gaussian process",
            "RMSE of the released curve (!Kung heights): "
            f"{pm(cloak['rmse_mean'], cloak['rmse_se'], 1, 1)} cm",
            "`python benchmarks/bench_dp_gp.py`",
        ],
        [
            "speed",
            "wall time ÷ `RandomizedSearchCV`'s at `n_jobs=1`: "
            f"{s['n_jobs=1']['ratio_to_randomized']:.2f}× (digits, SVC), "
            f"CPU time {big_s['cpu_ratio_to_cv3_total']:.2f}× "
            "`RandomizedSearchCV(cv=3)`'s "
            f"(HistGradientBoosting, {hgb['n_train']:,} rows)",
            "`python benchmarks/bench_scaling.py [--sections rule]`",
        ],
    ]
    return table(["mode", "measured at ε = 1", "regenerate with"], rows)


SECTIONS = {
    "readme": readme,
    "utility": utility,
    "whole_data": whole_data,
    "private_model": private_model,
    "private_model_held_out": private_model_held_out,
    "ldp": ldp,
    "dp_gp": dp_gp,
    "scaling": scaling,
    "rule": rule,
}
MARK = re.compile(
    r"(<!-- report:(?P<name>\w+) -->\n)(?P<body>.*?)(<!-- /report:(?P=name) -->)",
    re.S,
)


def render(text: str) -> str:
    """``text`` with every marked table regenerated."""

    def one(match):
        name = match.group("name")
        if name not in SECTIONS:
            raise KeyError(f"unknown report section {name!r}")
        return match.group(1) + SECTIONS[name]() + "\n" + match.group(4)

    return MARK.sub(one, text)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check")
    args = parser.parse_args(argv)
    stale = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        new = render(text)
        if new != text:
            stale.append(page.relative_to(ROOT))
            if not args.check:
                page.write_text(new, encoding="utf-8")
    if args.check and stale:
        print("out of date (run python benchmarks/report.py):", *stale)
        return 1
    print(
        ("rewrote " if stale else "up to date: ") + ", ".join(map(str, stale or PAGES))
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
