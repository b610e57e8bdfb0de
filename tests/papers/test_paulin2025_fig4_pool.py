"""paulin2025-fig4 over several GPU windows: first_part= makes parts of other numbers (seeds) under
the same run root, and with_groups= pools an earlier section's groups (its runs.csv and parts.json)
with this invocation's, so that the table and the paired standard errors are over all of them."""

import json

import pandas as pd
import pytest

from bnnsample.evaluate.ensembles import summarise_groups
from bnnsample.papers import get_recipe
from bnnsample.papers.paulin2025 import fig4 as fig


def _tiny(tmp_path):
    from ..data.test_images import make_fmnist

    make_fmnist(tmp_path / "data", n_train=240, n_test=20)
    return dict(fig.REDUCED, chains=2, part_runs=2, overrides=[
        "dataset.n_train=200", "init.train_epochs=1", "init.swa_epochs=1", "burn_in=1", "samples=2", "unit=epoch",
        "model.n_calibration=100", f"data_dir={tmp_path / 'data'}", "progress=false", "batch_size=100",
    ])  # fmt: skip


def test_two_windows_pool_their_groups(tmp_path, monkeypatch):
    """Window 1 makes part 0, window 2 part 1 (first_part=1) and pools window 1's groups: part 1's
    runs are other runs (seed 1, own folder); runs.csv holds both windows' groups, numbered apart;
    fig4.csv is their summary (2 groups at size 2); the paired table's s.e. is over both; a second
    pooling of the same parts, or of another protocol, is refused with the folder named."""
    monkeypatch.setitem(fig.SETTINGS, "reduced", _tiny(tmp_path))
    recipe = get_recipe(fig.FIG)
    recipe.make(tmp_path / "w1", {"scale": "reduced", "methods": "sms_ubu"})
    first = tmp_path / "w1" / fig.FIG
    assert json.loads((first / "parts.json").read_text())["parts"] == [0]
    recipe.make(tmp_path / "w2", {"scale": "reduced", "methods": "sms_ubu", "first_part": "1",
                                  "with_groups": str(first)})  # fmt: skip
    second = tmp_path / "w2" / fig.FIG
    assert json.loads((second / "parts.json").read_text())["parts"] == [1]
    assert "seed: 1" in (second / "runs" / "reduced_fmnist" / "part1" / "sms_ubu" / "config.yaml").read_text()
    runs = pd.read_csv(second / "runs.csv")
    at2 = runs[(runs.method == "sms_ubu") & (runs.ensemble_size == 2) & (runs.metric == "nll")]
    assert sorted(at2.group) == [0, 1] and sorted(at2.runs.str.split(":").str[0]) == ["parts 0-0", "parts 1-1"]
    own = pd.read_csv(first / "runs.csv")
    mine = own[(own.method == "sms_ubu") & (own.ensemble_size == 2) & (own.metric == "nll")].value.iloc[0]
    assert mine in set(at2.value)  # window 1's group, carried over unchanged
    table = pd.read_csv(second / "fig4.csv")
    pd.testing.assert_frame_equal(table, summarise_groups(runs), check_dtype=False)
    assert set(table[table.ensemble_size == 2].groups) == {2}
    for base in ("swa", "standard"):
        d = fig.recompute_paired(runs, "sms_ubu", base)
        assert (d[d.ensemble_size == 2].groups == 2).all() and d[d.ensemble_size == 2].se.notna().all()
    text = (tmp_path / "w2" / "REPRODUCTION.md").read_text()
    assert "pool this invocation's groups with those of" in text and ", 4 runs" in text
    with pytest.raises(ValueError, match=r"parts \[1\] are pooled already"):
        fig.pool_groups(runs, {"chains": 2, "part_runs": 2, "first_part": 1}, [second], json.loads(
            (second / "parts.json").read_text())["protocol"])  # fmt: skip
    with pytest.raises(ValueError, match="its runs were made at"):
        fig.pool_groups(runs, {"chains": 2, "part_runs": 2, "first_part": 5}, [first], "another protocol")
    with pytest.raises(ValueError, match="no readable parts.json and runs.csv"):
        fig.pool_groups(runs, {"chains": 2, "part_runs": 2, "first_part": 5}, [tmp_path], "p")


def test_first_part_is_for_the_scales_made_in_parts(tmp_path):
    from bnnsample.figures.driver import Invocation

    inv = Invocation(fig.FIG, tmp_path, {"scale": "quick", "first_part": "2"}, fig.SETTINGS, fig.OPTIONS)
    with pytest.raises(ValueError, match="first_part=2: scale=quick makes its runs in one part"):
        fig._settings(inv)
    inv = Invocation(fig.FIG, tmp_path, {"scale": "paper", "runs": "16", "first_part": "2", "part": "1"},
                     fig.SETTINGS, fig.OPTIONS)  # fmt: skip
    with pytest.raises(ValueError, match=r"part=1: allowed values: comma list of 2..3"):
        fig._settings(inv)
