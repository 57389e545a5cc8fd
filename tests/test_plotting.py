"""The optional plotting helper (runs when matplotlib is importable)."""

from __future__ import annotations

import json

import pytest

from sklearn_dpbo import plotting

RESULT = {
    "meta": {"datasets": {"toy": {"m_validation": 100}}},
    "rows": [
        {
            "dataset": "toy",
            "method": "private-selection",
            "epsilon": e,
            "private": True,
            "regret": {"mean": r, "se": 0.002},
        }
        for e, r in ((0.5, 0.05), (1.0, 0.02), (2.0, 0.01))
    ]
    + [
        {
            "dataset": "toy",
            "method": "BO",
            "epsilon": None,
            "private": False,
            "regret": {"mean": 0.004, "se": float("nan")},
        },
        {
            "dataset": "other",
            "method": "BO",
            "epsilon": None,
            "private": False,
            "regret": {"mean": 0.0, "se": 0.0},
        },
    ],
}


def test_plot_privacy_utility_from_dict_and_path(tmp_path):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ax = plotting.plot_privacy_utility(RESULT)
    assert ax.get_xlabel() == "total ε"
    assert ax.get_title() == "toy (m = 100)"
    labels = ax.get_legend_handles_labels()[1]
    assert sorted(labels) == ["BO (non-private)", "private-selection"]
    plt.close(ax.figure)

    path = tmp_path / "bench.json"
    path.write_text(json.dumps(RESULT))
    fig, ax = plt.subplots()
    out = plotting.plot_privacy_utility(str(path), ax=ax, dataset="other")
    assert out is ax and ax.get_title() == "other"
    fig.savefig(tmp_path / "plot.png")
    assert (tmp_path / "plot.png").stat().st_size > 0
    plt.close(fig)


def test_plot_privacy_utility_bad_input():
    pytest.importorskip("matplotlib")
    with pytest.raises(TypeError, match="bench_utility JSON"):
        plotting.plot_privacy_utility(42)
    with pytest.raises(ValueError, match="not in the result"):
        plotting.plot_privacy_utility(RESULT, dataset="nope")


def test_clear_import_error_without_matplotlib(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def fake_import(name, *args, **kwargs):
        if name.startswith("matplotlib"):
            raise ImportError(f"No module named {name!r}")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake_import)
    with pytest.raises(ImportError, match=r"sklearn-dpbo\[plot\]"):
        plotting.plot_privacy_utility(RESULT)
