"""Cost of scoring validation records by isolation (issue 19).

Every validation record is mapped into the training set's public schema on
its own and scored either in batches of public sizes (a model made only of
scikit-learn classes on the row-wise list) or alone, from a fresh copy of
the fitted model (anything else, e.g. a ``FunctionTransformer``). This
measures, for one fitted candidate on a 20-feature ``make_classification``
task (training set 2,000 rows):

- ``map``: mapping m validation records into the schema (once per fit and
  target kind; labels given as a Python list, as read from JSON/CSV);
- ``private_values``: the isolated scoring of m mapped records by one
  candidate (what each candidate costs on the validation set);
- ``batch``: the previous engine's whole-batch scoring of the same
  records (``record_values(private=False)``), the reference;
- ``ratio``: private_values / batch.

Pipelines: ``StandardScaler + LogisticRegression`` (row-wise list),
``FunctionTransformer(np.tanh) + StandardScaler + LogisticRegression``
(isolated: a user function), and ``HistGradientBoostingClassifier``
(row-wise list; its fresh copies would be costly). m in {1,000, 10,000}
(``--quick``: 200). Each figure is the best of ``--repeats`` runs (3). One
process, one BLAS thread.

    python benchmarks/bench_isolation.py            # JSON, table
    python benchmarks/bench_isolation.py --quick
"""

from __future__ import annotations

import argparse
import datetime
import json
import platform
import subprocess
import time
from pathlib import Path

import _checkout  # noqa: F401  (the checkout's sklearn_dpbo)
import numpy as np
from _results import results_dir
from sklearn.datasets import make_classification
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer, StandardScaler
from threadpoolctl import threadpool_limits

from sklearn_dpbo import make_dp_scorer
from sklearn_dpbo.privacy._records import RecordSchema
from sklearn_dpbo.privacy._rowwise import is_rowwise


def pipelines() -> dict:
    return {
        "scaler+logreg (row-wise list)": make_pipeline(
            StandardScaler(), LogisticRegression(max_iter=500)
        ),
        "FunctionTransformer+scaler+logreg (isolated)": make_pipeline(
            FunctionTransformer(np.tanh), StandardScaler(), LogisticRegression()
        ),
        "HistGradientBoosting (row-wise list)": HistGradientBoostingClassifier(
            max_iter=50, random_state=0
        ),
    }


def best_of(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def measure(scorer, schema, model, X_val, y_val, repeats: int) -> tuple:
    """Times of mapping, isolated scoring and batch scoring; same values?"""
    records = schema.map(X_val, y_val)
    y_arr = np.asarray(y_val)
    t_map = best_of(lambda: schema.map(X_val, y_val), repeats)
    t_private = best_of(lambda: scorer.private_values(model, records), repeats)
    t_batch = best_of(
        lambda: scorer.record_values(model, X_val, y_arr, private=False), repeats
    )
    same = np.allclose(
        scorer.private_values(model, records),
        scorer.record_values(model, X_val, y_arr, private=False),
    )
    return t_map, t_private, t_batch, bool(same)


def run(sizes, repeats: int) -> list[dict]:
    n_train = 2000
    X, y = make_classification(
        n_samples=n_train + max(sizes), n_features=20, random_state=0
    )
    scorer = make_dp_scorer("accuracy")
    schema = RecordSchema.from_training(X[:n_train], y[:n_train], classes=True)
    rows = []
    for name, est in pipelines().items():
        model = est.fit(X[:n_train], y[:n_train])
        for m in sizes:
            X_val, y_val = X[n_train : n_train + m], y[n_train : n_train + m].tolist()
            t_map, t_private, t_batch, same = measure(
                scorer, schema, model, X_val, y_val, repeats
            )
            rows.append(
                dict(
                    pipeline=name,
                    rowwise=bool(is_rowwise(model)),
                    m=m,
                    map_s=t_map,
                    private_values_s=t_private,
                    batch_s=t_batch,
                    ratio=t_private / t_batch,
                    per_record_us=1e6 * t_private / m,
                    same_values=bool(same),
                )
            )
            print(
                f"{name:46s} m={m:6d}  map {t_map:7.3f} s  isolated "
                f"{t_private:7.3f} s  batch {t_batch:7.4f} s  ratio "
                f"{t_private / t_batch:8.1f}x  ({1e6 * t_private / m:7.1f} us/record)"
                f"  same values: {same}",
                flush=True,
            )
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    sizes = [200] if args.quick else [1000, 10000]
    with threadpool_limits(1):
        rows = run(sizes, 1 if args.quick else args.repeats)
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True
        ).stdout.strip()
    except OSError:  # pragma: no cover
        commit = ""
    out = {
        "command": "python benchmarks/bench_isolation.py"
        + (" --quick" if args.quick else ""),
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(
            timespec="minutes"
        ),
        "commit": commit,
        "machine": platform.platform(),
        "rows": rows,
    }
    path = Path(args.out or results_dir(args.quick) / "bench_isolation.json")
    path.write_text(json.dumps(out, indent=2))
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
