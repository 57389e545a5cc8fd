"""Optional plots (needs matplotlib: ``pip install "sklearn-dpbo[plot]"``).

They draw benchmark results only; nothing here touches a fitted search.
"""

from __future__ import annotations

import json
import os

__all__ = ["plot_privacy_utility"]


_LINESTYLES = ("--", ":", "-.", (0, (5, 1)), (0, (3, 1, 1, 1)), (0, (1, 3)))


def plot_privacy_utility(json_path_or_dict, ax=None, *, dataset=None, legend=True):
    """Validation regret against total ε, one line per private method.

    Parameters
    ----------
    json_path_or_dict : str, path or dict
        Output of ``benchmarks/bench_utility.py`` (its JSON file, or the
        dict ``{"meta": ..., "rows": [...]}``).
    ax : matplotlib Axes, optional
        Axes to draw on; a new figure is made when None.
    dataset : str, optional
        Which dataset of the JSON to draw (default: the first one).
    legend : bool, default=True

    Returns
    -------
    ax : matplotlib Axes
        Private methods are lines with error bars (mean ± standard error
        over seeds, accuracy points); non-private searches are horizontal
        grey lines (they do not depend on ε).
    """
    result = json_path_or_dict
    if isinstance(result, (str, os.PathLike)):
        with open(result) as fh:
            result = json.load(fh)
    elif not isinstance(result, dict):
        raise TypeError(
            "plot_privacy_utility expects the path of a bench_utility JSON file or "
            f"the dict loaded from it; got {type(result).__name__}."
        )
    try:
        import matplotlib.pyplot as plt
        from matplotlib.ticker import NullLocator
    except ImportError as exc:  # pragma: no cover - exercised without matplotlib
        raise ImportError(
            "sklearn_dpbo.plotting needs matplotlib, which is not installed. "
            'Install it with: pip install "sklearn-dpbo[plot]" (or pip install '
            "matplotlib)."
        ) from exc

    rows = result["rows"]
    names = list(dict.fromkeys(r["dataset"] for r in rows))
    if not names:
        raise ValueError("The benchmark result has no rows.")
    if dataset is None:
        dataset = names[0]
    elif dataset not in names:
        raise ValueError(f"dataset {dataset!r} not in the result; have {names}.")
    rows = [r for r in rows if r["dataset"] == dataset and "regret" in r]
    if ax is None:
        _, ax = plt.subplots(figsize=(5.5, 4))

    private = [r for r in rows if r.get("epsilon") is not None]
    epsilons = sorted({r["epsilon"] for r in private})
    for label in dict.fromkeys(r["method"] for r in private):
        sel = sorted(
            (r for r in private if r["method"] == label), key=lambda r: r["epsilon"]
        )
        se = [r["regret"].get("se", 0.0) for r in sel]
        ax.errorbar(
            [r["epsilon"] for r in sel],
            [100 * r["regret"]["mean"] for r in sel],
            yerr=[0.0 if se_ != se_ else 100 * se_ for se_ in se],  # NaN -> 0
            marker="o",
            markersize=4,
            capsize=2,
            label=label,
        )
    references = [r for r in rows if r.get("epsilon") is None]
    for k, r in enumerate(references):
        ax.axhline(
            100 * r["regret"]["mean"],
            color="0.45",
            linewidth=1,
            linestyle=_LINESTYLES[k % len(_LINESTYLES)],
            label=f"{r['method']} (non-private)",
        )
    if epsilons:
        ax.set_xscale("log")
        ax.xaxis.set_minor_locator(NullLocator())
        ax.set_xticks(epsilons)
        ax.set_xticklabels([f"{e:g}" for e in epsilons])
    ax.set_yscale("symlog", linthresh=1.0)
    top = max([100 * r["regret"]["mean"] for r in rows] + [1.0])
    ax.set_ylim(0.0, 2.0 * top)
    ax.set_xlabel("total ε")
    ax.set_ylabel("validation regret (accuracy points)")
    m = result.get("meta", {}).get("datasets", {}).get(dataset, {}).get("m_validation")
    ax.set_title(dataset if m is None else f"{dataset} (m = {m})")
    if legend:
        ax.legend(fontsize=6)
    return ax
