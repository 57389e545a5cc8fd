"""Paired differences of two ``bench_utility.py`` rows over the seeds of several runs.

A run of ``bench_utility.py --first-seed K`` adds seeds to an earlier run of
the same command; this pools them. For each dataset, per seed, the
difference between two methods (``--method`` minus ``--baseline``) in
validation regret and in test accuracy, from the released candidate indices
and the per-candidate table (``--cache-dir`` of the runs), averaged over the
ε both runs have; then mean ± s.e. over all seeds, in points. A seed present
in two runs must give the same indices in both (checked).

Usage (repository root)::

    python benchmarks/paired_seeds.py RUN1.json RUN2.json [...] \\
        --method "private-selection budget=auto racing=0.5" \\
        --baseline "private-selection racing=0.5" --cache-dir /tmp/hgbcache
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_utility as bu  # noqa: E402


def per_seed_indices(runs, dataset, method):
    """{ε: {seed: released index}} of ``method`` on ``dataset`` over the runs."""
    out: dict = {}
    for run in runs:
        for r in run["rows"]:
            if (r["dataset"], r["method"]) != (dataset, method) or "indices" not in r:
                continue
            seen = out.setdefault(r["epsilon"], {})
            for seed, index in zip(r["seeds"], r["indices"]):
                if seen.setdefault(seed, index) != index:
                    raise AssertionError(f"{dataset} {method} seed {seed}: runs differ")
    return out


def pooled(runs, dataset, method, baseline, table):
    a = per_seed_indices(runs, dataset, method)
    b = per_seed_indices(runs, dataset, baseline)
    epsilons = sorted(set(a) & set(b))
    seeds = sorted(set.intersection(*(set(a[e]) & set(b[e]) for e in epsilons)))
    val, test = table["val"], table["test"]
    d_regret = np.mean(
        [[val[b[e][s]] - val[a[e][s]] for s in seeds] for e in epsilons], axis=0
    )
    d_test = np.mean(
        [[test[a[e][s]] - test[b[e][s]] for s in seeds] for e in epsilons], axis=0
    )
    return {
        "dataset": dataset,
        "seeds": [int(s) for s in seeds],
        "epsilons": epsilons,
        "regret": dict(zip(("mean", "se"), bu.mean_se(100 * d_regret))),
        "test_accuracy": dict(zip(("mean", "se"), bu.mean_se(100 * d_test))),
    }


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("runs", nargs="+", type=Path)
    ap.add_argument("--method", required=True)
    ap.add_argument("--baseline", required=True)
    ap.add_argument("--cache-dir", type=Path, required=True)
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args(argv)
    runs = [json.loads(p.read_text()) for p in args.runs]
    datasets = list(dict.fromkeys(r["dataset"] for run in runs for r in run["rows"]))
    out = []
    print(f"{args.method} − {args.baseline}, points, mean ± s.e. over seeds")
    print("| task | seeds | Δ regret | Δ test accuracy |")
    print("|---|---:|---:|---:|")
    for name in datasets:
        table = bu.precompute(name, 1, args.cache_dir)
        res = pooled(runs, name, args.method, args.baseline, table)
        out.append(res)
        g, t = res["regret"], res["test_accuracy"]
        print(
            f"| {name} | {len(res['seeds'])} | {g['mean']:+.3f} ± {g['se']:.3f} | "
            f"{t['mean']:+.3f} ± {t['se']:.3f} |"
        )
    if args.out:
        args.out.write_text(
            json.dumps(
                {
                    "argv": sys.argv[1:],
                    "runs": [str(p) for p in args.runs],
                    "pooled": out,
                },
                indent=1,
            )
        )
    return out


if __name__ == "__main__":
    main()
