"""The benchmark suites' shared helpers (scripts/bench_common.py): the order of interleaved
rounds, and ratios taken round by round before the median."""

import importlib.util
import sys
from pathlib import Path

import pytest

_spec = importlib.util.spec_from_file_location(
    "bench_common", Path(__file__).resolve().parents[1] / "scripts" / "bench_common.py"
)
bench_common = sys.modules.setdefault("bench_common", importlib.util.module_from_spec(_spec))
_spec.loader.exec_module(bench_common)  # registered first: its dataclasses look their module up


def test_interleaved_calls_each_variant_once_per_round_in_order():
    calls = []

    def variant(name):
        def call():
            calls.append(name)
            return len(calls)

        return call

    res = bench_common.interleaved({name: variant(name) for name in "abc"}, 3)
    assert calls == list("abcabcabc")
    assert res == {"a": [1, 4, 7], "b": [2, 5, 8], "c": [3, 6, 9]}


def test_ratio_spread_pairs_the_rounds_before_the_median():
    # per-round ratios 1, 5, 0.5: median 1; the ratio of the medians (4 / 2) would be 2
    assert bench_common.ratio_spread([1.0, 10.0, 4.0], [1.0, 2.0, 8.0]) == pytest.approx((1.0, 0.5, 5.0))
    assert bench_common.median_spread([3.0, 1.0, 2.0]) == (2.0, 1.0, 3.0)
    with pytest.raises(ValueError, match="one value per round"):
        bench_common.ratio_spread([1.0, 2.0], [1.0])


def test_spread_text():
    assert bench_common.spread_text((1234.4, 1000.0, 2000.0), ",.0f") == "1,234 [1,000, 2,000]"


@pytest.mark.skipif(not hasattr(__import__("os"), "sched_setaffinity"), reason="needs sched_setaffinity (Linux)")
def test_peers_suite_binds_the_process_to_its_thread_count():
    """The peers suite holds every library to ``--threads`` cores by binding the process: the
    XLA flags alone left jax's CPU runtime a second busy thread. Run in a child process, whose
    affinity the binding may change."""
    import subprocess

    scripts = Path(__file__).resolve().parents[1] / "scripts"
    code = (
        "import os, sys; sys.path.insert(0, sys.argv[1]); import bench_peers; "
        "line = bench_peers.pin_threads(1); print(len(os.sched_getaffinity(0))); print(line)"
    )
    out = subprocess.run([sys.executable, "-c", code, str(scripts)], capture_output=True, text=True, check=True)
    n, line = out.stdout.splitlines()[:2]
    assert n == "1" and "process bound to core(s) " in line and "intra-op 1" in line


def test_peers_floor_runs_the_step_kernels_for_the_same_chain_steps():
    """The torch floor of the peers suite makes the same chain-steps as the samplers it bounds
    (chains x steps), with the batch shared by the chains, and has no |x| to compare."""
    import math

    import torch

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
    try:
        import bench_peers
    finally:
        sys.path.pop(0)
    g = torch.Generator().manual_seed(0)
    a, y = torch.randn(50, 4, generator=g), (torch.rand(50, generator=g) < 0.5).float()
    p = bench_peers.Problem(a, y, 1.0, 0.01, 1.0, batch=5, chains=3, steps=7, per_chain=False)
    m = bench_peers.floor_variant(p)()
    assert m.chain_steps == 21 and math.isnan(m.end_norm) and m.timing.cpu >= 0


def test_bench_md_holds_one_current_section_per_suite(tmp_path):
    """Whatever command made them, the latest section of a suite is the one bench.md shows;
    the older ones (in the file or replaced by a new run) move to bench_history.csv."""
    import csv

    md = tmp_path / "bench.md"
    md.write_text("## suite A (m1)\n\ndate: 2026-01-01\ncommand: `a --x 1`\n\n- 1\n\n"
                  "## suite B (m1)\n\ndate: 2026-01-02\n\n- 2\n\n"
                  "## suite A (m2)\n\ndate: 2026-01-03\ncommand: `a --x 2 --out bench.md`\n\n- 3\n")  # fmt: skip
    bench_common.update_bench_md(md, [])
    assert md.read_text().count("## suite A") == 1 and "- 3" in md.read_text() and "- 1" not in md.read_text()
    bench_common.update_bench_md(md, ["## suite B (m3)\n\n- 4"])
    text = md.read_text()
    assert text.count("## suite B") == 1 and "- 4" in text and "- 2" not in text
    hist = list(csv.DictReader((tmp_path / "bench_history.csv").read_text().splitlines()))
    assert [(r["suite"], r["command"], r["machine"], r["date"]) for r in hist] == [
        ("suite A", "a --x 1", "m1", "2026-01-01"), ("suite B", "", "m1", "2026-01-02")]  # fmt: skip


def test_bench_md_keeps_a_gpu_section_beside_the_cpu_one_of_a_suite(tmp_path):
    """A suite measured on a GPU does not replace its CPU section (nor the reverse); a newer
    section on the same device does."""
    md = tmp_path / "bench.md"
    md.write_text("## suite E (m1)\n\ndate: 2026-01-01\n\n- setting: x, device cpu\n- 1\n")
    bench_common.update_bench_md(md, ["## suite E (m2)\n\n- setting: x, float32, device NVIDIA H200\n- 2"])
    text = md.read_text()
    assert text.count("## suite E") == 2 and "- 1" in text and "- 2" in text
    bench_common.update_bench_md(md, ["## suite E (m3)\n\n- setting: y, device NVIDIA H200\n- 3"])
    text = md.read_text()
    assert text.count("## suite E") == 2 and "- 1" in text and "- 2" not in text and "- 3" in text


def test_peers_long_cells_and_the_per_run_cost_line():
    """Long cells hold 10,000 steps with shared minibatches, with per-chain ones 10,000 or 3M
    chain-steps where fewer; the per-run cost line takes the step cost
    from the same round's sg_hmc run: 20 ms fixed and 10 us a step make 20 / (20 + 100) ms."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
    try:
        import bench_peers as bp
    finally:
        sys.path.pop(0)
    Timing = bench_common.Timing

    assert [bp.long_steps(c, "shared") for c in (1, 10, 300, 1000, 4000)] == [10_000] * 5
    assert [bp.long_steps(c, "per-chain") for c in (1, 10, 300, 1000, 4000)] == [10_000, 10_000, 10_000, 3000, 750]
    m = lambda cpu, steps: bp.Measured(Timing(cpu, cpu), steps, 0.0)  # noqa: E731
    rounds = {bp.PER_RUN: [m(0.020, 1), m(0.020, 1)], "bnnsample sg_hmc": [m(0.020 + 500 * 1e-5, 500)] * 2,
              "blackjax": [m(0.004, 500)] * 2}  # fmt: skip
    bl = bp.Block(1, 500, "shared", rounds, compile_s=1.0)
    (line,) = bp.per_run_lines([bl])
    assert "20.0 [20.0, 20.0] CPU-ms" in line and "10.0 [10.0, 10.0] CPU-us" in line and "16.7 [16.7, 16.7]%" in line
    # 100,000 steps: bnnsample 0.02 + 1.0 s, blackjax 1.0 + 0.8 s
    (cl,) = bp.compile_lines([bl])
    assert f"{1.8 / 1.02:.3g}" in cl
    # a variant that ran fewer steps than its block says so in its row, and its rate is per chain-step
    few = bp.Block(4, 500, "per-chain", {"posteriors vmap": [bp.Measured(Timing(2.0, 2.0), 4 * 100, 0.0, 100)]})
    row = bp.rates_table([few]).splitlines()[-1]
    assert "posteriors vmap (100 of 500 steps run)" in row and "| 200 [200, 200] |" in row
