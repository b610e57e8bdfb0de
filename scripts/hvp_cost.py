"""What one Hessian-vector product of cnn_fmnist costs against one gradient, one batch of 200 on the CPU, one
thread: CPU seconds and the number of aten ops (each a kernel launch on a GPU). paulin2025-fig7's scale=paper cost
(``fig7.HVP_GRADIENTS``, ``fig7.HVP_CPU_S``) rests on these numbers; needs the Fashion-MNIST files
(``dataset=fmnist``). Writes them to results/paulin2025-fig7/hvp_cost.csv (``--out``), where the rows cite them.

    OMP_NUM_THREADS=1 python scripts/hvp_cost.py
"""

import argparse
import datetime
import time
from pathlib import Path

import torch
from torch.profiler import ProfilerActivity, profile

from bnnsample.papers.paulin2025.local_chains import fmnist_target

OUT = Path(__file__).resolve().parents[1] / "results" / "paulin2025-fig7" / "hvp_cost.csv"


def cpu_seconds(f, k: int = 3) -> float:
    f()
    t0 = time.process_time()
    for _ in range(k):
        f()
    return (time.process_time() - t0) / k


def aten_ops(f) -> int:
    with profile(activities=[ProfilerActivity.CPU]) as p:
        f()
    return sum(1 for e in p.events() if e.name.startswith("aten::"))


def main() -> None:
    from bnnsample.figures.common import write_rows

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()
    torch.set_num_threads(1)
    pot = fmnist_target("cnn_fmnist", ["dataset=fmnist", "batch_size=200"], "cpu").potential
    torch.manual_seed(0)
    x, u, b = 0.05 * torch.randn(1, pot.dim), torch.randn(1, pot.dim), torch.arange(200)
    grad, hvp = (lambda: pot.force(x, b, 1.0)), (lambda: pot.hvp(x, u, b, 1.0))
    g, h = cpu_seconds(grad), cpu_seconds(hvp)
    ng, nh = aten_ops(grad), aten_ops(hvp)
    print(
        f"gradient {g:.3f} CPU-s, {ng} aten ops; hvp {h:.3f} CPU-s, {nh} aten ops; ratios {h / g:.2f} and {nh / ng:.2f}"
    )
    write_rows(args.out, [{
        "date": datetime.date.today().isoformat(), "model": "cnn_fmnist", "batch": 200, "threads": 1,
        "gradient_cpu_s": g, "gradient_aten_ops": ng, "hvp_cpu_s": h, "hvp_aten_ops": nh, "cpu_ratio": h / g,
        "ops_ratio": nh / ng,
    }])  # fmt: skip


if __name__ == "__main__":
    main()
