"""Sweeps under Hydra launchers: per-job seeds, failed jobs, a sweep killed half way and rerun
(joblib), preemption and requeue (submitit_local), the SLURM preset."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from hydra.core.global_hydra import GlobalHydra
from omegaconf import OmegaConf

from bnnsample.cli import job_seed
from bnnsample.store import SampleStore

from .helpers import compose_cfg, run_inprocess

TOY = ["dataset=two_batch_gaussian", "chains=20", "burn_in=20", "samples=30", "thin=1", "progress=false",
       "evaluate=false"]  # fmt: skip


def theta(run_dir: Path) -> np.ndarray:
    with SampleStore(run_dir / "samples.h5") as s:
        assert s.complete
        return s.theta()


def job_overrides(run_dir: Path) -> list[str]:
    return yaml.safe_load((run_dir / ".hydra" / "overrides.yaml").read_text())


def test_job_seed_rule():
    a = job_seed(0, ["step_size=0.1", "chains=5"])
    assert a == job_seed(0, ["chains=5", "step_size=0.1"])  # order of the overrides does not matter
    assert len({a, job_seed(0, ["step_size=0.1", "chains=6"]), job_seed(1, ["step_size=0.1", "chains=5"])}) == 3
    # jobs differing only in the step size share their random numbers (step-size sweeps)
    assert a == job_seed(0, ["step_size=0.2", "chains=5"])
    assert 0 <= a < 2**31


def test_sweep_jobs_get_their_own_seeds_unless_seed_is_given(inprocess, tmp_path, capsys):
    """Two jobs differing only in the number of draws share their first 30 draws exactly when
    they share a seed; otherwise their streams are independent."""
    toy = [o for o in TOY if not o.startswith("samples=")]
    own, common = tmp_path / "own", tmp_path / "common"
    assert inprocess("run", "-m", *toy, "samples=30,31", f"hydra.sweep.dir={own}") == 0
    assert inprocess("run", "-m", *toy, "samples=30,31", "seed=3", f"hydra.sweep.dir={common}") == 0
    a, b = theta(own / "0"), theta(own / "1")[:, :30]
    assert np.abs(a - b).max() > 0.1  # independent streams
    np.testing.assert_array_equal(theta(common / "0"), theta(common / "1")[:, :30])  # common random numbers
    # the seed used is in the job's config: the job reruns alone with seed=<that>
    for job in ("0", "1"):
        seed = yaml.safe_load((own / job / "config.yaml").read_text())["seed"]
        assert seed == job_seed(0, job_overrides(own / job))
    assert yaml.safe_load((common / "0" / "config.yaml").read_text())["seed"] == 3
    seed0 = yaml.safe_load((own / "0" / "config.yaml").read_text())["seed"]
    alone, _ = run_inprocess(tmp_path / "alone", [*toy, "samples=30", f"seed={seed0}"])
    np.testing.assert_array_equal(theta(alone.parent), a)
    capsys.readouterr()


def test_keys_that_do_not_change_the_draws_do_not_change_the_seed():
    base = ["step_size=0.1", "samples=30"]
    assert job_seed(0, base) == job_seed(0, [*base, "progress=false", "+reference=r.h5"])
    # check_every changes the draws (UBU fuses the OU half-steps inside a block): not ignored
    assert job_seed(0, base) != job_seed(0, [*base, "check_every=7"])
    assert job_seed(0, base) != job_seed(0, [*base, "friction=2"])
    assert job_seed(0, base) != job_seed(1, base)


def test_failed_job_is_reported_in_one_line_and_the_others_finish(inprocess, tmp_path, capsys):
    sweep = tmp_path / "sweep"
    code = inprocess("run", "-m", *TOY, "batch_size=1,3", f"hydra.sweep.dir={sweep}")
    err = capsys.readouterr().err
    assert code not in (0, None)
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and "Traceback" not in err, err
    assert lines[0].startswith("bnnsample: error: the job with overrides") and "batch_size=3" in lines[0]
    assert theta(sweep / "0").shape == (20, 30, 1)  # the good job finished
    assert not (sweep / "1" / "samples.h5").exists()


# --------------------------------------------------------------------------
# a joblib sweep killed half way and rerun
# --------------------------------------------------------------------------

# sweep order: the last key varies fastest -> jobs 0, 2 short, jobs 1, 3 long
SWEEP = ["dataset=two_batch_gaussian", "chains=20", "burn_in=40", "thin=1", "flush_seconds=0.3", "check_every=25",
         "progress=false", "evaluate=false", "step_size=0.1,0.2", "samples=60,6000"]  # fmt: skip


def _env():
    return dict(os.environ, OMP_NUM_THREADS="1", HYDRA_FULL_ERROR="0")


def _done(job: Path) -> bool:
    log = job / "bnnsample.log"
    return log.exists() and "sampling done" in log.read_text()


def _table(sweep: Path) -> pd.DataFrame:
    from bnnsample.evaluate.report import evaluate_paths

    assert evaluate_paths([sweep]) == []
    t = pd.read_csv(sweep / "sweep.csv", dtype={"run": str}).drop(columns=["run_dir"])
    return t.sort_values(["run", "group", "metric"]).reset_index(drop=True)


@pytest.mark.slow  # end-to-end processes: left out by -m "not slow"
def test_joblib_sweep_killed_half_way_and_rerun_gives_the_same_table(inprocess, tmp_path, capsys):
    sweep = tmp_path / "killed"
    cmd = [sys.executable, "-m", "bnnsample.cli", "run", "-m", "hydra/launcher=joblib", "hydra.launcher.n_jobs=2",
           *SWEEP, f"hydra.sweep.dir={sweep}"]  # fmt: skip
    p = subprocess.Popen(cmd, cwd=tmp_path, env=_env(), start_new_session=True,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    try:
        deadline, seen = time.monotonic() + 300, None
        while time.monotonic() < deadline and p.poll() is None:
            if _done(sweep / "0") and (sweep / "1" / "samples.h5").exists():
                seen = seen or time.monotonic()
                if time.monotonic() - seen > 0.7:  # job 1 has flushed draws and resume state
                    break
            time.sleep(0.02)
    finally:
        os.killpg(p.pid, signal.SIGKILL)  # the whole sweep: launcher and its workers
        p.wait()
    assert _done(sweep / "0")
    was_incomplete = not _done(sweep / "1")

    rerun = subprocess.run(cmd, check=False, cwd=tmp_path, env=_env(), capture_output=True, text=True, timeout=600)
    assert rerun.returncode == 0, rerun.stderr[-3000:]
    assert "already complete; nothing to do" in rerun.stdout  # job 0 is skipped ...
    if was_incomplete:  # ... job 1 resumes from its state/, or restarts if the kill tore that state
        resumed = f"resuming {sweep / '1' / 'samples.h5'}" in rerun.stdout
        torn = "killed while writing its resume state; starting afresh" in rerun.stdout
        assert resumed or torn, rerun.stdout[-3000:]
        with capsys.disabled():  # shown with pytest -s
            print(f"\njob 1 {'resumed' if resumed else 'restarted (its state was torn by the kill)'}")

    reference = tmp_path / "reference"
    assert inprocess("run", "-m", *SWEEP, f"hydra.sweep.dir={reference}") == 0
    for job in "0123":
        np.testing.assert_array_equal(theta(sweep / job), theta(reference / job))
    a, b = _table(sweep), _table(reference)
    capsys.readouterr()
    assert a["run"].nunique() == 4 and (a.status == "ok").all()
    pd.testing.assert_frame_equal(a, b)


# --------------------------------------------------------------------------
# submitit: preemption -> checkpoint -> requeue -> resume; the SLURM preset
# --------------------------------------------------------------------------


def _task_pids(folder: Path) -> list[int]:
    """Pids of submitit task processes (python -m submitit.core._submit FOLDER/...) of this test."""
    pids = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                cmd = (d / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                continue
            if "submitit.core._submit" in cmd and str(folder) in cmd:
                pids.append(int(d.name))
    return pids


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="finds the job's process through /proc")
@pytest.mark.slow  # end-to-end processes: left out by -m "not slow"
def test_submitit_local_preempted_job_is_requeued_and_resumes_bit_exact(tmp_path):
    sweep = tmp_path / "sweep"
    # long enough (a few seconds on a quiet machine) to be caught mid-run
    ovr = ["dataset=two_batch_gaussian", "chains=50", "burn_in=50", "samples=12000", "thin=1", "flush_seconds=0.05",
           "progress=false", "evaluate=false", "step_size=0.1", "device=cpu"]  # fmt: skip
    # device=cpu: submitit_local hides the GPUs from a job unless gpus_per_node is set, and the
    # run alone below must use the same device
    cmd = [sys.executable, "-m", "bnnsample.cli", "run", "-m", "hydra/launcher=submitit_local",
           "hydra.launcher.timeout_min=20", *ovr, f"hydra.sweep.dir={sweep}"]  # fmt: skip
    p = subprocess.Popen(cmd, cwd=tmp_path, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    job, signalled = sweep / "0", False
    deadline, seen = time.monotonic() + 300, None
    while time.monotonic() < deadline and p.poll() is None and not signalled:
        if (job / "samples.h5").exists():
            seen = seen or time.monotonic()
            pids = _task_pids(sweep)
            if time.monotonic() - seen > 0.1 and pids and not _done(job):
                for pid in pids:
                    os.kill(pid, signal.SIGUSR2)  # what SLURM sends before preemption / the time limit
                signalled = True
        time.sleep(0.02)
    _, err = p.communicate(timeout=600)
    assert p.returncode == 0, err[-3000:]
    logs = "".join(f.read_text() for f in (sweep / ".submitit").rglob("*_log.*"))
    if signalled:
        assert "stopping to requeue" in logs and "Requeued job" in logs, logs[-3000:]
        assert f"resuming {job / 'samples.h5'}" in logs, logs[-3000:]
    seed = yaml.safe_load((job / "config.yaml").read_text())["seed"]
    assert seed == job_seed(0, job_overrides(job))
    alone, _ = run_inprocess(tmp_path / "alone", [*ovr, f"seed={seed}"])
    np.testing.assert_array_equal(theta(job), theta(alone.parent))
    assert signalled, "the job finished before it could be signalled"


def test_slurm_preset_makes_a_valid_sbatch_script(tmp_path, monkeypatch):
    """hydra/launcher=slurm composes, and submitit's SLURM executor turns it into sbatch lines
    (built, not submitted: no cluster here)."""
    import submitit
    from hydra import compose, initialize_config_dir
    from hydra_plugins.hydra_submitit_launcher.config import BaseQueueConf
    from omegaconf import OmegaConf

    from bnnsample.plumbing.paths import conf_dir

    GlobalHydra.instance().clear()
    with initialize_config_dir(str(conf_dir()), version_base="1.3"):
        hcfg = compose("config", overrides=["hydra/launcher=slurm", "hydra.launcher.partition=gpu",
                                            "hydra.launcher.timeout_min=90"], return_hydra_config=True)  # fmt: skip
    launcher = OmegaConf.to_container(hcfg.hydra.launcher, resolve=False)
    assert launcher["_target_"].endswith("SlurmLauncher")
    assert launcher["gpus_per_node"] == 1 and launcher["max_num_timeout"] > 0 and launcher["signal_delay_s"] > 0
    # the plugin's own mapping of its keys onto the executor (hydra_submitit_launcher.launch)
    params = {k: v for k, v in launcher.items() if k not in ("_target_", "submitit_folder", "max_num_timeout")}
    params["name"] = "bnnsample"
    base = set(OmegaConf.structured(BaseQueueConf).keys())
    monkeypatch.setattr(submitit.SlurmExecutor, "affinity", classmethod(lambda cls: 1))  # "srun is there"
    ex = submitit.AutoExecutor(folder=tmp_path, cluster="slurm", slurm_max_num_timeout=launcher["max_num_timeout"])
    ex.update_parameters(**{k if k in base else f"slurm_{k}": v for k, v in params.items()})
    text = ex._executor._make_submission_file_text("python -m submitit.core._submit x", "uid")
    for line in ("--partition=gpu", "--time=90", "--gpus-per-node=1", "--cpus-per-task=4", "--mem=16GB",
                 "--signal=USR2@120"):  # fmt: skip
        assert f"#SBATCH {line}" in text, text


def test_check_every_changes_ubu_draws_so_a_run_with_another_is_not_reused(tmp_path):
    """UBU fuses the OU half-steps inside a block of check_every steps: other block ends give
    other draws (of the same law). So check_every is a sampling key: a rerun with another value
    in the same directory is refused instead of continuing or reusing the run."""
    from bnnsample.plumbing.errors import UserError
    from bnnsample.runner import same_sampling_config

    toy = ["dataset=two_batch_gaussian", "integrator=sms_ubu", "chains=4", "burn_in=10", "samples=5", "thin=2",
           "evaluate=false", "seed=1"]  # fmt: skip
    a, cfg_a = run_inprocess(tmp_path / "a", [*toy, "check_every=1"])
    b, cfg_b = run_inprocess(tmp_path / "b", [*toy, "check_every=100"])
    assert not np.array_equal(theta(a.parent), theta(b.parent))
    assert not same_sampling_config(OmegaConf.to_container(cfg_a, resolve=True), OmegaConf.to_yaml(cfg_b, resolve=True))
    with pytest.raises(UserError, match="different config"):
        run_inprocess(tmp_path / "a", [*toy, "check_every=100"])


def test_runs_stored_before_the_arithmetic_keys_are_the_same_runs():
    """A run stored before `deterministic` and `model.precision` existed (its config lacks them) is the
    same run as one with their defaults on the CPU, so it is resumed or reused, not made again; another
    precision is another run."""
    from bnnsample.runner import same_sampling_config

    cfg = compose_cfg(["model=cnn_small", "device=cpu"])
    new = OmegaConf.to_container(cfg, resolve=True)
    old = {k: v for k, v in new.items() if k != "deterministic"}
    old["model"] = {k: v for k, v in new["model"].items() if k != "precision"}
    assert "precision" in new["model"] and "deterministic" in new
    assert same_sampling_config(old, OmegaConf.to_yaml(cfg, resolve=True))
    other = dict(new, model=dict(new["model"], precision="bf16"))
    assert not same_sampling_config(old, yaml.safe_dump(other))
