"""Plot polish: titles, chain legends, labelled axes; traces.png holds theta only (the
diagnostics' traces are diagnostics.png's)."""

import numpy as np

from bnnsample.evaluate import plots


def _capture(monkeypatch):
    figs = {}
    monkeypatch.setattr(plots, "save_figure", lambda fig, path: figs.__setitem__(path.name, fig))
    return figs


def test_traces_have_title_chain_legend_and_labels(tmp_path, monkeypatch):
    figs = _capture(monkeypatch)
    plots.plot_traces(tmp_path / "t.png", {"a": np.zeros((3, 5)), "b": np.ones((3, 5))}, title="T")
    fig = figs["t.png"]
    assert fig._suptitle.get_text() == "T"
    axes = fig.axes
    labels = [t.get_text() for t in axes[0].get_legend().get_texts()]
    assert labels == ["chain 0", "chain 1", "chain 2"]
    assert [ax.get_ylabel() for ax in axes] == ["a", "b"] and axes[-1].get_xlabel() == "kept draw"


def test_run_traces_do_not_repeat_the_diagnostics(tmp_path, monkeypatch):
    from bnnsample.store import SampleStore

    from ..helpers import run_inprocess

    path, _ = run_inprocess(tmp_path, ["dataset=two_batch_gaussian", "chains=4", "burn_in=5", "samples=6",
                                       "evaluate=false"])  # fmt: skip
    figs = _capture(monkeypatch)
    with SampleStore(path) as s:
        plots.plot_run(tmp_path / "plots", s, ~s.diverged(), {}, None)
    ylabels = [ax.get_ylabel() for ax in figs["traces.png"].axes]
    assert ylabels == ["theta[0]"]  # kinetic_temperature etc. are in diagnostics.png


def test_ensembles_against_size_have_y_labels(tmp_path, monkeypatch):
    import matplotlib.pyplot as plt
    import pandas as pd

    from bnnsample.evaluate.ensembles import plot_ensembles

    t = pd.DataFrame([("bayes", k, "nll", 1.0 / k, 0.1, 2) for k in (1, 2, 4)],
                     columns=["method", "ensemble_size", "metric", "mean", "std", "groups"])  # fmt: skip
    seen = []
    monkeypatch.setattr(plt.Figure, "savefig", lambda self, *a, **k: seen.append(self))
    plot_ensembles(t, tmp_path / "e.png")
    ax = seen[0].axes[0]
    assert ax.get_ylabel() == "NLL" and "ensemble size" in ax.get_xlabel()
