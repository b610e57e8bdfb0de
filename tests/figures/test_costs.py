"""One source for every cost: the ledger results/costs.csv. The README's cost table states the
ledger's numbers, and `figure --list` and `figure ID --help` print them from it."""

import re
from pathlib import Path

from bnnsample.cli import main
from bnnsample.figures.costs import LEDGER, command_key, cost_text, cpu_text, key, ledger_rows, measured_costs
from bnnsample.plumbing.machine import wall_text

ROOT = Path(__file__).resolve().parents[2]
CPU_NUMBER = re.compile(r"[\d.,]+ CPU-(?:s|minutes|hours)\b")


def ledger() -> dict:
    return {(r["figure"], r["scale"], r["options"]): r for r in ledger_rows(ROOT / "results" / LEDGER)}


def readme_cost_rows() -> list[list[str]]:
    """The cells of each row of the README's table "What to run, and what it costs"."""
    text = (ROOT / "README.md").read_text()
    table = text.split("## What to run, and what it costs", 1)[1].split("\n\n| task |", 1)[1].split("\n\n", 1)[0]
    return [[c.strip() for c in line.strip("|").split(" | ")] for line in table.splitlines()[2:]]


def test_the_ledger_names_the_cpu_model_of_every_cpu_measurement():
    rows = ledger_rows(ROOT / "results" / LEDGER)
    assert rows and all(r["cpu_model"] for r in rows if "NVIDIA" not in r["machine"])
    assert all(r["options"] == key(r["figure"], {"scale": r["scale"], **_options(r)})[2] for r in rows)


def _options(row: dict) -> dict:
    return dict(w.split("=", 1) for w in row["options"].split())


def test_the_readme_cost_table_states_the_ledgers_numbers():
    """Every CPU time in the table's CPU column is the ledger's CPU time (as ``cpu_text`` writes
    it) of a command named in that row; a row measured on a GPU states the ledger's wall time."""
    costs, matched = ledger(), 0
    for cells in readme_cost_rows():
        task, cpu, gpu = cells[0], cells[2], cells[3]
        commands = re.findall(r"`(bnnsample [^`]*)`", " | ".join(cells))
        rows = [costs[k] for k in map(command_key, commands) if k in costs]
        stated = CPU_NUMBER.findall(cpu)
        assert set(stated) <= {cpu_text(float(r["cpu_s"])) for r in rows if r["cpu_s"]}, (task, stated, rows)
        for r in rows:
            if "NVIDIA" in r["machine"]:
                assert wall_text(float(r["wall_s"])) in gpu, (task, r)
        matched += len(rows)
    assert matched >= 5


def test_list_and_help_print_the_ledgers_costs(monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    main(["figure", "--list"])
    listed = capsys.readouterr().out
    main(["figure", "paulin2025-fig1", "--help"])
    helped = capsys.readouterr().out
    row = measured_costs(ROOT / "results")[("paulin2025-fig1", "paper")]
    assert f"scale=paper: {cost_text(row)}" in listed and f"scale=paper: {cost_text(row)}" in helped
    assert cpu_text(float(row["cpu_s"])) in cost_text(row) and row["cpu_model"] in cost_text(row)


def test_command_keys():
    assert command_key("bnnsample run") == ("run", "", "")
    assert command_key("bnnsample run experiment=fmnist_cpu hydra.run.dir=x") == ("run", "", "experiment=fmnist_cpu")
    assert command_key("bnnsample export RUN_DIR") == ("export", "", "")
    assert command_key("bnnsample figure paulin2025-fig4 scale=paper runs=16 device=cuda time_limit=540") == (
        "paulin2025-fig4", "paper", "device=cuda runs=16")  # fmt: skip
    assert command_key("bnnsample info") is None
