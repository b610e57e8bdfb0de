"""The resolved config stored in samples.h5 is the record every metric is computed from: it
carries a SHA-256 written with it, and a changed digit or YAML that does not parse is a
damaged store in one line, never silently other metrics."""

import h5py
import pytest

from .helpers import run_inprocess

OVR = ["dataset=two_batch_gaussian", "chains=20", "samples=10", "evaluate=false"]


@pytest.mark.parametrize("edit, rehash, words", [
    (lambda c: c.replace("step_size: 0.0625", "step_size: 0.0626"), False, "changed after the run"),
    (lambda c: c + "\n  : [unclosed", True, "not valid YAML"),  # written so, checksum and all
])  # fmt: skip
def test_a_changed_stored_config_is_named_not_evaluated(tmp_path, cli, edit, rehash, words):
    import hashlib

    path, _ = run_inprocess(tmp_path / "r", OVR)
    with h5py.File(path, "r+") as f:
        assert len(f.attrs["config_sha256"]) == 64
        f.attrs["config"] = text = edit(str(f.attrs["config"]))
        if rehash:
            f.attrs["config_sha256"] = hashlib.sha256(text.encode()).hexdigest()
    out = cli("evaluate", str(tmp_path / "r"))
    lines = [ln for ln in out.stderr.splitlines() if ln.startswith("bnnsample: error")]
    assert out.returncode != 0 and len(lines) == 1 and words in lines[0], out.stderr[-1500:]
    assert "Traceback" not in out.stderr and not (tmp_path / "r" / "metrics.csv").exists()


@pytest.mark.parametrize("rehash", [False, True], ids=["digest-differs", "digest-matches"])
@pytest.mark.parametrize("complete", [True, False], ids=["complete", "to-resume"])
def test_a_rerun_over_a_stored_config_that_does_not_parse_moves_the_store_aside(tmp_path, rehash, complete):
    """The digest is checked before the YAML is parsed: a store whose config was cut into
    invalid YAML is named as damaged and moved aside by a rerun, never an internal error."""
    import hashlib

    from bnnsample.plumbing.errors import UserError

    path, _ = run_inprocess(tmp_path / "r", OVR)
    with h5py.File(path, "r+") as f:
        f.attrs["config"] = text = str(f.attrs["config"]) + "\n  : [unclosed"
        if rehash:
            f.attrs["config_sha256"] = hashlib.sha256(text.encode()).hexdigest()
        f.attrs["complete"] = complete
    with pytest.raises(UserError) as e:
        run_inprocess(tmp_path / "r", OVR)
    words = "not valid YAML" if rehash else "changed after the run"
    assert f"{path} is damaged" in str(e.value) and words in str(e.value) and "\n" not in str(e.value)
    assert not path.exists() and len(list((tmp_path / "r").glob("samples.h5.damaged-*"))) == 1
    run_inprocess(tmp_path / "r", OVR)  # the rerun after it starts afresh
    assert path.exists()


def test_a_complete_run_without_its_resume_state_is_evaluated(tmp_path, cli):
    path, _ = run_inprocess(tmp_path / "r", OVR)
    with h5py.File(path, "r+") as f:
        del f["state"]
    out = cli("evaluate", str(tmp_path / "r"))
    assert out.returncode == 0, out.stderr[-1500:]
    assert (tmp_path / "r" / "metrics.csv").exists()


def test_a_rerun_of_a_complete_run_needs_no_state_and_restores_config_yaml(tmp_path):
    """A complete run whose state/ group was removed is still complete on a rerun (not 'not a
    whole store'), and a config.yaml edited since is rewritten from the run's config."""
    path, _ = run_inprocess(tmp_path / "r", OVR)
    with h5py.File(path, "r+") as f:
        del f["state"]
    (tmp_path / "r" / "config.yaml").write_text("step_size: 99\n")
    run_inprocess(tmp_path / "r", OVR)
    assert "step_size: 0.0625" in (tmp_path / "r" / "config.yaml").read_text()


def test_sweep_tables_label_a_run_by_its_stored_config_not_an_edited_yaml(tmp_path):
    from bnnsample.evaluate.sweep import read_config

    run_inprocess(tmp_path / "r", OVR)
    (tmp_path / "r" / "config.yaml").write_text("step_size: 99\n")
    assert read_config(tmp_path / "r")["step_size"] == 0.0625


def test_a_refused_plot_write_ends_evaluate_in_one_line(tmp_path, monkeypatch, capsys):
    """metrics.csv is written; the plot the disk refused ends `evaluate` with one line and
    exit 2, never a warning and exit 0."""
    from bnnsample.cli import main
    from bnnsample.evaluate import plots
    from bnnsample.plumbing.errors import WriteRefused

    run_inprocess(tmp_path / "r", OVR)

    def refuse(*a, **k):
        raise WriteRefused(f"could not write {tmp_path / 'r' / 'plots' / 'x.png'}: No space left on device")

    monkeypatch.setattr(plots, "plot_run", refuse)
    with pytest.raises(SystemExit) as e:
        main(["evaluate", str(tmp_path / "r")])
    text = capsys.readouterr()
    err = [ln for ln in text.err.splitlines() if ln.startswith("bnnsample: error")]
    assert e.value.code == 2 and len(err) == 1 and "No space left on device" in err[0], text.err
    assert "Traceback" not in text.err and "plotting failed" not in text.out + text.err
    assert (tmp_path / "r" / "metrics.csv").exists()


def test_a_flush_the_disk_refuses_is_a_refused_write(tmp_path, monkeypatch):
    """fsync is where a delayed ENOSPC or EIO shows: a full disk is a WriteRefused naming the store,
    a failed one (EIO) an OSError naming the store and its errno, for the command line to end the
    process at once, the store's HDF5 file left open (closing it on a failed disk crashed HDF5);
    neither is ignored; a file system that cannot sync (EINVAL) is not an error."""
    import errno

    from bnnsample import store as store_mod
    from bnnsample.plumbing.errors import WriteRefused

    s = store_mod.SampleStore.create(tmp_path / "s.h5", chains=2, draws=4, dim=1, store_theta=True)
    for code, refused in ((errno.ENOSPC, WriteRefused), (errno.EINVAL, None), (errno.EIO, OSError)):

        def fsync(fd, code=code):
            raise OSError(code, errno.errorcode[code])

        monkeypatch.setattr(store_mod.os, "fsync", fsync)
        if refused is WriteRefused:
            with pytest.raises(WriteRefused, match="s.h5: the disk refused the last flush"):
                s.flush()
            assert not s._left_open
        elif refused is OSError:
            with pytest.raises(OSError) as got:
                s.flush()
            assert got.value.errno == errno.EIO and got.value.filename == str(tmp_path / "s.h5") and s._left_open
        else:
            s.flush()
    monkeypatch.undo()
    s.close()


def test_export_of_a_path_too_long_is_one_line(capsys):
    from bnnsample.cli import main

    with pytest.raises(SystemExit) as e:
        main(["export", "/tmp/" + "x" * 5000])
    err = capsys.readouterr().err.strip().splitlines()
    assert e.value.code == 2 and len(err) == 1 and err[0].startswith("bnnsample: error: export:"), err


def test_the_stored_config_text_is_omegaconfs_yaml_for_every_dataset_and_integrator():
    """config_text (libyaml's emitter) writes the same text as OmegaConf.to_yaml(resolve=True),
    YAML 1.1 boolean words quoted as OmegaConf quotes them (gaussian_points has a key 'y'), also
    from the resolved container validate returns (the runner's: the rules must not change it)."""
    from hydra import compose, initialize_config_dir
    from omegaconf import OmegaConf

    from bnnsample.config import config_text, validate
    from bnnsample.plumbing.paths import conf_dir

    groups = {g: sorted(p.stem for p in (conf_dir() / g).glob("*.yaml")) for g in ("dataset", "integrator")}
    with initialize_config_dir(str(conf_dir()), version_base="1.3"):
        cfgs = [compose("config", overrides=[f"{g}={v}"]) for g, vs in groups.items() for v in vs]
    assert len(cfgs) > 40 and any(c.dataset.name == "gaussian_points" for c in cfgs)
    for cfg in cfgs:
        assert config_text(cfg) == config_text(validate(cfg)) == OmegaConf.to_yaml(cfg, resolve=True)


def test_the_resolved_config_reads_as_the_dictconfig_and_gives_plain_values_back():
    """config.Resolved (what the runner's stages read): every value of the composed config by
    attribute and by key as the DictConfig gives it, a missing key an AttributeError, and
    plain() nested dicts and lists that OmegaConf.create takes again."""
    from omegaconf import OmegaConf

    from bnnsample.config import Resolved, compose, validate

    cfg = compose(["dataset=chestxray", "integrator=sms_ubu"])
    c = Resolved.of(validate(cfg))
    assert c.dataset.name == cfg.dataset.name and c["integrator"]["name"] == cfg.integrator.name
    assert c.batching.per_chain == cfg.batching.per_chain and c.get("compile") == cfg.get("compile")
    with pytest.raises(AttributeError):
        c.no_such_key  # noqa: B018
    plain = c.plain()
    assert type(plain) is dict and type(plain["dataset"]) is dict
    assert OmegaConf.to_container(OmegaConf.create(plain)) == OmegaConf.to_container(cfg, resolve=True)
