"""scripts/bench_gpu.py (the throughput suite): the device's peaks by name, and the table on the
CPU at a tiny size (the GPU numbers come from the GPU queue's run)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))

import bench_gpu  # noqa: E402


def test_peaks_by_device_name():
    assert bench_gpu.device_peaks("NVIDIA H200") == (494.7e12, 989.4e12)
    assert bench_gpu.device_peaks("NVIDIA H100 80GB HBM3") == (494.7e12, 989.4e12)
    assert bench_gpu.device_peaks("NVIDIA H100 PCIe") == (378.0e12, 756.0e12)
    assert bench_gpu.device_peaks("NVIDIA A100-SXM4-80GB") == (156.0e12, 312.0e12)
    assert bench_gpu.device_peaks("cpu") is None


def test_table_on_the_cpu_at_a_tiny_size():
    variants = [v for v in bench_gpu.VARIANTS if v[0] in ("float32, deterministic", "bf16, autotuned")]
    text = bench_gpu.run_suite([1, 2], steps=1, repeats=1, device="cpu", n_data=32, variants=variants, batch=4)
    assert "unknown for this device" in text
    rows = [r for r in text.splitlines() if r.startswith("| 1 ") or r.startswith("| 2 ")]
    assert len(rows) == 2 * 2 * 2  # runs x variants x (train, sample)
    assert all(float(r.split("|")[6]) > 0 for r in rows)  # TFLOP/s
