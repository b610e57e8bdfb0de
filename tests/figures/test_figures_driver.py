"""The recipe driver (bnnsample/figures/driver.py): a declared recipe's rows CSV, plot,
claims.csv and REPRODUCTION.md section, written by one function."""

import csv

import pytest

from bnnsample.figures.claims import Claim, by_z
from bnnsample.figures.driver import Figure, Invocation, drive

CLAIM = Claim("the mean is zero", "§1, Fig. 1", "0", tolerance="within 2 s.e.", method="mean of the cells")


def _rows(inv, bar):
    rows = []
    for i in range(inv.st["cells"]):
        rows.append({"cell": i, "value": 0.5 * (-1) ** i})
        bar.done(f"cell {i}")
    return rows


def _outcomes(rows, inv):
    mean = sum(r["value"] for r in rows) / len(rows)
    return [(CLAIM, by_z(mean, inv.st["se"], f"{mean:.3g}"))]


def _plot(rows, inv, path):
    path.write_text("not a png")
    return path


TOY = Figure("toy2024-fig1", ": a toy", "a toy recipe", scales={"quick": {"cells": 2, "se": 0.1},
             "paper": {"cells": 3, "se": 0.01}}, rows=_rows, outcomes=_outcomes, plot=_plot,
             settings=lambda rows, inv: f"{inv.st['cells']} cells", cells=lambda inv: inv.st["cells"],
             notes=lambda rows, inv: "a note", csv="toy.csv", png="toy.png")  # fmt: skip


def _drive(out_dir, options):
    return drive(TOY, Invocation(TOY.id, out_dir, options, TOY.scales, title=TOY.title))


def test_the_driver_writes_rows_plot_claims_and_section(tmp_path):
    files = _drive(tmp_path, {})
    assert [p.name for p in files] == ["toy.csv", "toy.png"]
    assert (tmp_path / "toy2024-fig1" / "toy.csv").read_text() == "cell,value\n0,0.5\n1,-0.5\n"
    claims = list(csv.DictReader((tmp_path / "toy2024-fig1" / "claims.csv").read_text().splitlines()))
    assert [(c["claim"], c["verdict"], c["ours"], c["setting"]) for c in claims] == [
        ("the mean is zero", "reproduced", "0", "bnnsample figure toy2024-fig1 scale=quick")]  # fmt: skip
    text = (tmp_path / "REPRODUCTION.md").read_text()
    assert "## toy2024-fig1: a toy" in text and "Settings: 2 cells" in text and "a note" in text
    assert "Files: `toy.csv`, `toy.png`." in text
    _drive(tmp_path, {"scale": "paper"})
    claims = list(csv.DictReader((tmp_path / "toy2024-fig1" / "claims.csv").read_text().splitlines()))
    assert claims[0]["verdict"] == "not reproduced (16.7 s.e.)" and claims[0]["setting"].endswith("scale=paper")
    assert (tmp_path / "REPRODUCTION.md").read_text().count("## toy2024-fig1") == 1


def test_the_driver_refuses_bad_options_before_running(tmp_path):
    with pytest.raises(ValueError, match="scale=huge: allowed values: quick, paper"):
        _drive(tmp_path, {"scale": "huge"})
    with pytest.raises(ValueError, match="unknown option 'cels'; allowed: scale, data_dir"):
        _drive(tmp_path, {"cels": "3"})
    assert not (tmp_path / "toy2024-fig1").exists()
