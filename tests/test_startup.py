"""`--help`, `info`, `figure --list` and bad input answer without importing torch (seconds of
CPU, tens of seconds of wall time on a loaded machine)."""

import os
import subprocess
import sys

import pytest

import bnnsample

HERE = os.path.dirname(os.path.dirname(bnnsample.__file__))  # the bnnsample under test

PROBE = """
import runpy, sys
sys.argv = ["bnnsample", *sys.argv[1:]]
try:
    runpy.run_module("bnnsample.cli", run_name="__main__")
except SystemExit:
    pass
print("TORCH_IMPORTED" if "torch" in sys.modules else "TORCH_NOT_IMPORTED", file=sys.stderr)
"""


@pytest.mark.parametrize(
    "args",
    [
        pytest.param(["--help"], marks=pytest.mark.smoke),
        pytest.param(["info"], marks=pytest.mark.smoke),
        ["figure", "--list"],
        pytest.param(["figure", "no_such_figure"], marks=pytest.mark.smoke),
        ["run", "stepsize=0.1"],
        pytest.param(["run", "integrator=sms_ubuu"], marks=pytest.mark.smoke),
        ["run", "step_size=-1"],
        pytest.param(["run", "chains=0"], marks=pytest.mark.smoke),
        ["run", "chains=four"],
        ["run", "model.prior_precision=-1"],
        ["run", "dataset.n_test=-5"],
        ["run", "init.lr=-1"],
        ["run", "model.memory_format=fast"],
        ["run", "model.precision=fp8"],
        ["run", "deterministic=maybe"],
        ["run", "reference=/no/such/run"],
    ],
)
def test_answers_without_torch(args, tmp_path):
    path = os.pathsep.join(filter(None, [HERE, os.environ.get("PYTHONPATH")]))
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONPATH=path)
    extra = [f"hydra.run.dir={tmp_path / 'run'}"] if args[0] == "run" else []
    out = subprocess.run(
        [sys.executable, "-c", PROBE, *args, *extra], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert "TORCH_NOT_IMPORTED" in out.stderr, out.stderr
    assert "Traceback" not in out.stderr
    if args[0] == "run":  # one line naming the field
        key = args[1].split("=")[0]
        assert f"bnnsample: error: {key}" in out.stderr, out.stderr


def test_run_uses_one_torch_thread_unless_told(tmp_path):
    """OMP_NUM_THREADS unset: `bnnsample run` runs torch on one thread; set: as told."""
    code = ("import sys, torch; from bnnsample import cli\n"
            "try:\n    cli.main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
            "print('THREADS', torch.get_num_threads())")  # fmt: skip
    args = ["run", "dataset=two_batch_gaussian", "chains=2", "burn_in=1", "samples=2", "evaluate=false",
            "progress=false"]  # fmt: skip
    path = os.pathsep.join(filter(None, [HERE, os.environ.get("PYTHONPATH")]))
    for env_threads, want in ((None, "THREADS 1"), ("2", "THREADS 2")):
        env = {k: v for k, v in os.environ.items() if k != "OMP_NUM_THREADS"}
        env["PYTHONPATH"] = path
        if env_threads:
            env["OMP_NUM_THREADS"] = env_threads
        run_dir = f"hydra.run.dir={tmp_path / str(env_threads)}"
        out = subprocess.run([sys.executable, "-c", code, *args, run_dir], cwd=tmp_path, env=env,
                             capture_output=True, text=True)  # fmt: skip
        assert want in out.stdout, out.stderr[-2000:]
