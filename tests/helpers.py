"""Shared test helpers: compose configs and run the pipeline in-process."""

from pathlib import Path

from hydra import compose, initialize_config_dir
from hydra.core.global_hydra import GlobalHydra


def compose_cfg(overrides=()):
    GlobalHydra.instance().clear()
    from bnnsample.plumbing.paths import conf_dir

    with initialize_config_dir(str(conf_dir()), version_base="1.3"):
        return compose("config", overrides=list(overrides))


def run_inprocess(tmp_path: Path, overrides=()):
    from bnnsample import runner

    cfg = compose_cfg(["progress=false", *overrides])
    tmp_path.mkdir(parents=True, exist_ok=True)
    return runner.run(cfg, tmp_path), cfg


def assert_theta_matches(path, mean: float, var: float, k: float = 4.0):
    """Pooled mean and variance of theta[..., 0] of a finished run agree with (mean, var) within
    k Monte Carlo standard errors (independent chains); returns the two standard errors."""
    from bnnsample.evaluate.metrics import chain_mean_se, chain_var_se
    from bnnsample.store import SampleStore

    with SampleStore(path) as s:
        theta = s.theta()[:, :, 0]
        assert not s.diverged().any()
    m, m_se = chain_mean_se(theta)
    v, v_se = chain_var_se(theta)
    assert abs(m - mean) < k * m_se, (m, mean, m_se)
    assert abs(v - var) < k * v_se, (v, var, v_se)
    return m_se, v_se


def two_batch_cycles(kind: str, period: int = 1):
    """(probability, batch sequence) of paulin2025's two-batch target (N = 2, batches of 1;
    fixed partition [[0], [1]] for reshuffle/sms) over lcm(schedule cycle, period) steps, for
    schemes whose step also depends on the step index modulo ``period``."""
    import math

    from bnnsample.analysis.stationary import batch_sequences

    part = [[0], [1]] if kind in ("sms", "reshuffle") else None
    seqs = batch_sequences(kind, 2, 2 if kind == "full" else 1, part)
    L = len(seqs[0][1])
    T = L * period // math.gcd(L, period)
    out = [(1.0, [])]
    for _ in range(T // L):
        out = [(p * q, a + list(b)) for p, a in out for q, b in seqs]
    return out


def stop_after_draws(monkeypatch, n: int) -> None:
    """A stop request (as Ctrl-C makes) right after the n-th recorded draw."""
    from bnnsample import sampler as sampler_mod

    record = sampler_mod.Sampler._record
    calls = {"n": 0}

    def stop_after(self, state, buf):
        record(self, state, buf)
        calls["n"] += 1
        if calls["n"] == n:
            sampler_mod.request_stop()

    monkeypatch.setattr(sampler_mod.Sampler, "_record", stop_after)
