"""Invalid input through the real command line: for each case the exit status is not 0, stderr
holds exactly one line (no traceback) and it names the field; no samples.h5 is left behind, so
nothing can later look like a complete run.

Most cases call ``bnnsample.cli.main`` in process (a subprocess costs seconds of imports per
case); a sample of them also goes through a real subprocess."""

import pytest

from bnnsample.cli import one_line

TOY = ["dataset=two_batch_gaussian", "chains=4", "burn_in=2", "samples=2", "progress=false", "evaluate=false"]
DIGITS = ["dataset=digits", "chains=1", "burn_in=1", "samples=1", "progress=false", "evaluate=false"]

# (overrides, base, text the one line must contain: the field)
CASES = [
    # wrong types
    (["step_size=abc"], TOY, "step_size"),
    (["friction=abc"], TOY, "friction"),
    (["chains=two"], TOY, "chains"),
    (["samples=1.5"], TOY, "samples"),
    (["thin=0.5"], TOY, "thin"),
    (["burn_in=abc"], TOY, "burn_in"),
    (["seed=-1"], TOY, "seed"),
    (["store_theta=maybe"], TOY, "store_theta"),
    # out of range
    (["step_size=-1"], TOY, "step_size"),
    (["step_size=0"], TOY, "step_size"),
    (["step_size=inf"], TOY, "step_size"),
    (["step_size=nan"], TOY, "step_size"),
    (["chains=0"], TOY, "chains"),
    (["batch_size=0"], TOY, "batch_size"),
    (["batch_size=3"], TOY, "batch_size=3"),  # N = 2
    (["friction=-1"], TOY, "friction"),
    (["thin=0"], TOY, "thin"),
    (["samples=0"], TOY, "samples"),
    (["burn_in=-1"], TOY, "burn_in"),
    (["check_every=0"], TOY, "check_every"),
    (["flush_seconds=-1"], TOY, "flush_seconds"),
    (["dtype=float16"], TOY, "dtype"),
    (["device=tpu"], TOY, "device"),
    (["unit=hour"], TOY, "unit"),
    (["batching.partition=nope"], TOY, "batching.partition"),
    (["batching.per_chain=maybe"], TOY, "batching.per_chain"),
    (["control_variate=maybe"], TOY, "control_variate"),
    (["download=maybe"], TOY, "download"),
    # unknown keys, groups and options
    (["integrator=nope"], TOY, "integrator=nope"),
    (["dataset=nope"], TOY, "dataset=nope"),
    (["batching=nope"], TOY, "batching=nope"),
    (["model=nope"], TOY, "model=nope"),
    (["init=nope"], TOY, "init=nope"),
    (["experiment=nope"], TOY, "experiment=nope"),
    (["hydra/launcher=nope"], TOY, "hydra/launcher=nope"),
    (["foo=1"], TOY, "foo"),
    (["+foo=1"], TOY, "foo"),  # a new key nothing reads (a typo) is refused, not ignored
    (["+stepsize=0.1"], TOY, "stepsize"),
    (["integrator.foo=1"], TOY, "integrator.foo"),
    (["+integrator.foo=1"], TOY, "foo"),
    (["chains=[1,2"], TOY, "chains"),  # override syntax
    (["step_size=0.1,0.2"], TOY, "step_size"),  # a sweep without -m
    # incompatible combinations
    (["batching=sms", "batch_size=2"], TOY, "batch_size=2"),  # sms with the full batch: one minibatch
    (["batching=reshuffle", "batch_size=2"], TOY, "batch_size=2"),
    (["integrator=sg_nogin"], TOY, "batch_size >= 2"),  # covariance estimate from batches of 1
    (["integrator=eadl", "burn_in=0"], TOY, "burn_in"),
    (["init=swa"], TOY, "init=swa"),  # Adam+SWA on a density target (no network)
    (["init=swa", "init.lr=0"], DIGITS, "init.lr"),
    (["init=swa", "init.localization=-1"], DIGITS, "init.localization"),
    (["init=swa", "init.swa_epochs=0"], DIGITS, "init.swa_epochs"),
    (["init=swa", "init.reuse=/nonexistent/run"], DIGITS, "init.reuse"),  # a missing file
    (["dataset=fmnist"], ["data_dir={tmp}/nodata", "progress=false"], "train-images-idx3-ubyte.gz"),
    # caught late before: no store may be left behind
    (["burn_in=99999999999999999999"], TOY, "burn_in"),
    (["dataset=double_well", "integrator=exact_ou"], TOY, "exact_ou"),
    # inputs that reached the internals
    (["dataset=../../x"], TOY, "dataset=../../x: allowed values: boston"),
    (["model.prior_precision=-1"], TOY, "model.prior_precision"),
    (["model.prior_precision=nan"], TOY, "model.prior_precision"),
    (["seed=99999999999999999"], TOY, "seed"),
    (["~integrator"], TOY, "integrator=(deleted)"),
    (["+" + "a" * 300 + "=1"], TOY, "a key of 300 characters"),
    (["dataset.n_test=0"], DIGITS, "dataset.n_test"),
    (["dataset.n_test=5000"], DIGITS, "dataset.n_test=5000"),
    (["init=swa", "init.reuse=/etc/passwd"], DIGITS, "init.reuse=/etc/passwd"),
    (["step_size=1\n\x1b[31m"], TOY, "step_size=1\\n\\x1b[31m"),
    # refused before allocating
    (["chains=3000000000"], TOY, "chains=3000000000: the chain state needs about"),
    (["samples=1000000000000"], TOY, "samples=1000000000000: burn_in + samples x thin = 2e+12 steps; at most"),
    (["samples=10000000000"], TOY, "samples=10000000000, chains=4: the planned samples.h5 is about"),
]


def _check(code, stderr, field, tmp_path):
    assert code not in (0, None), stderr
    assert "Traceback" not in stderr, stderr
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, stderr
    assert lines[0].startswith("bnnsample: error: ") and field in lines[0], lines[0]
    assert not list(tmp_path.rglob("samples.h5"))  # nothing that could later look complete


def _args(case, tmp_path):
    overrides, base, _ = case
    return ["run", *[b.format(tmp=tmp_path) for b in base], *overrides, f"hydra.run.dir={tmp_path / 'run'}"]


def test_at_least_30_cases():
    assert len(CASES) >= 30


@pytest.mark.parametrize("case", CASES, ids=[" ".join(c[0]) for c in CASES])
def test_invalid_input_in_process(inprocess, capsys, tmp_path, case):
    code = inprocess(*_args(case, tmp_path))
    _check(code, capsys.readouterr().err, case[2], tmp_path)


SUBPROCESS = ["step_size=abc", "dataset=nope", "+foo=1", "batching=sms batch_size=2"]


@pytest.mark.parametrize("name", SUBPROCESS)
def test_invalid_input_subprocess(cli, tmp_path, name):
    case = next(c for c in CASES if " ".join(c[0]) == name)
    out = cli(*_args(case, tmp_path))
    _check(out.returncode, out.stderr, case[2], tmp_path)
    assert "Traceback" not in out.stdout


def test_corrected_command_runs_where_late_bad_input_failed(inprocess, capsys, tmp_path):
    run = f"hydra.run.dir={tmp_path}"
    assert inprocess("run", *TOY, "dataset=double_well", "integrator=exact_ou", run) not in (0, None)
    assert inprocess("run", *TOY, "dataset=double_well", "integrator=ubu", run) == 0


def test_evaluate_reference_yaml_errors_are_one_line(inprocess, capsys, tmp_path):
    for ref in ("reference=!!python/object:os.system x", "reference=[a,b", "reference={a: 1}"):
        code = inprocess("evaluate", str(tmp_path), ref)
        err = capsys.readouterr().err
        _check(code, err, "reference=", tmp_path)


@pytest.mark.parametrize("command", ["info", "--help"])
def test_info_into_a_closed_pipe_has_no_traceback(command):
    import subprocess
    import sys

    p = subprocess.run(
        f"'{sys.executable}' -m bnnsample.cli {command} | head -1", shell=True, capture_output=True, text=True
    )
    assert p.stdout.strip() and "Traceback" not in p.stderr and "BrokenPipe" not in p.stderr, p.stderr


def test_errors_are_printed_once_on_stderr(cli, tmp_path):
    out = cli("run", *TOY, "dataset=double_well", "integrator=exact_ou", f"hydra.run.dir={tmp_path}")
    # stdout's first line announces the run (naming the integrator); the error is on stderr alone
    assert out.returncode != 0 and "needs a linear-Gaussian target" in out.stderr
    assert "needs a linear-Gaussian target" not in out.stdout and "bnnsample: error" not in out.stdout
    assert not tmp_path.exists()  # it failed before writing anything: no folder left behind
    out = cli("evaluate", str(tmp_path / "nothing"))
    assert out.returncode != 0 and "no samples.h5" in out.stderr and "error" not in out.stdout


def test_unwritable_run_directory_is_not_an_internal_error(cli, tmp_path):
    (tmp_path / "file").write_text("x")
    out = cli("run", *TOY, f"hydra.run.dir={tmp_path / 'file' / 'run'}")
    assert out.returncode != 0 and "internal error" not in out.stderr, out.stderr
    assert len([ln for ln in out.stderr.splitlines() if ln.strip()]) == 1, out.stderr


def test_hydra_reports_become_one_line():
    missing = (
        "In 'config': Could not find 'dataset/nope'\n\nAvailable options in 'dataset':\n\tdigits\n\tmnist5k\n"
        "Config search path:\n\tprovider=hydra, path=pkg://hydra.conf\n"
    )  # fmt: skip
    assert one_line(missing) == "dataset=nope: allowed values: digits, mnist5k"
    struct = "Could not override 'foo'.\nTo append to your config use +foo=1\nKey 'foo' is not in struct\n"
    assert one_line(struct).startswith("foo: no such key in the config; top-level keys: batch_size, ")
    job = "Error executing job with overrides: ['batch_size=3']\nbatch_size=3: must be an integer in 1..2\n"
    assert one_line(job) == "the job with overrides ['batch_size=3'] failed: batch_size=3: must be an integer in 1..2"
    tb = "Traceback (most recent call last):\n  File x\nValueError: boom\n\nSet the environment variable HYDRA_FULL_ERROR=1"
    assert one_line(tb) == "ValueError: boom (internal error; HYDRA_FULL_ERROR=1 shows the traceback)"
