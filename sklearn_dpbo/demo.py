"""Demo: private SVM tuning on scikit-learn's bundled digits data.

Run with ``python -m sklearn_dpbo.demo``. The training half of the data is
treated as public, a quarter as the sensitive validation set, and the last
quarter as a test set for the refit model.
"""

from __future__ import annotations

import argparse


def main(argv: list[str] | None = None) -> None:
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC

    from sklearn_dpbo import DPBayesSearchCV

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--epsilon", type=float, default=1.0)
    parser.add_argument(
        "--method", default="private-selection", choices=["private-selection", "gp-ucb"]
    )
    parser.add_argument("--n-jobs", type=int, default=2)
    args = parser.parse_args(argv)

    X, y = load_digits(return_X_y=True)
    X_train, X_rest, y_train, y_rest = train_test_split(
        X, y, test_size=0.5, random_state=0
    )
    X_val, X_test, y_val, y_test = train_test_split(
        X_rest, y_rest, test_size=0.5, random_state=0
    )
    search = DPBayesSearchCV(
        make_pipeline(StandardScaler(), SVC()),
        {
            "svc__C": (1e-2, 1e3, "log-uniform"),
            "svc__gamma": (1e-5, 1e0, "log-uniform"),
        },
        method=args.method,
        epsilon=args.epsilon,
        delta=1e-5,
        n_iter=30,
        n_jobs=args.n_jobs,
    )
    print(
        f"Tuning SVC(C, gamma) on digits: {len(y_train)} public training rows, "
        f"{len(y_val)} private validation rows, total epsilon={args.epsilon}, "
        f"method={args.method!r}"
    )
    search.fit(X_train, y_train, X_val=X_val, y_val=y_val)
    print(f"released best_params_: {search.best_params_}")
    print(f"released best_score_ (validation accuracy, DP): {search.best_score_:.4f}")
    print(
        f"test accuracy of the refit model (not a release): "
        f"{search.score(X_test, y_test):.4f}"
    )
    report = search.privacy_report_  # delta is 0 for the pure epsilon-DP mode
    print(f"spent: epsilon={report.epsilon:g}, delta={report.delta:g}")
    print(report)


if __name__ == "__main__":
    main()
