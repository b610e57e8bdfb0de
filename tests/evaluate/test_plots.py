"""Plot polish: titles, chain legends, labelled axes; traces.png holds theta only (the
diagnostics' traces are diagnostics.png's)."""

import numpy as np
import pytest

from bnnsample.evaluate import plots


def _capture(monkeypatch):
    figs = {}
    monkeypatch.setattr(plots, "save_figure", lambda fig, path: figs.__setitem__(path.name, fig))
    return figs


@pytest.mark.smoke
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


def test_traces_draw_at_most_four_chains_and_a_line_at_one_for_temperatures(tmp_path, monkeypatch):
    figs = _capture(monkeypatch)
    series = {"kinetic_temperature": np.ones((16, 5)), "minibatch_loss": np.zeros((16, 5))}
    plots.plot_traces(tmp_path / "t.png", series)
    kin, loss = figs["t.png"].axes
    chains = [ln for ln in kin.lines if ln.get_label().startswith("chain ")]
    assert len(chains) == 4 and kin.get_legend().get_title().get_text() == "kept chains (first 4 of 16)"
    unit = [ln for ln in kin.lines if not ln.get_label().startswith("chain ")]
    assert len(unit) == 1 and list(unit[0].get_ydata()) == [1.0, 1.0]  # the dashed line at 1
    assert all(ln.get_label().startswith("chain ") for ln in loss.lines)  # no such line on other panels


@pytest.mark.smoke
def test_reliability_shows_the_number_of_test_points_per_bin(tmp_path, monkeypatch):
    figs = _capture(monkeypatch)
    rng = np.random.default_rng(0)
    p = rng.dirichlet(np.ones(3), size=200)
    y = rng.integers(0, 3, size=200)
    plots.plot_reliability(tmp_path / "r.png", {"swa": p, "bayes": p}, y, n_bins=10)
    rel, counts = figs["r.png"].axes
    assert rel.get_ylabel() == "accuracy" and counts.get_ylabel() == "test points per bin"
    assert counts.get_xlabel() == "confidence"
    steps = counts.patches  # one step outline per predictive
    assert len(steps) == 2
    values, edges, _ = steps[0].get_data()
    want = np.histogram(p.max(1), bins=np.linspace(0, 1, 11))[0]
    np.testing.assert_array_equal(values, want)
    assert values.sum() == 200 and len(edges) == 11
