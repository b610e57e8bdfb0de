"""Thermostat integrators (SGNHT, AdL, eAdL, CC-ADL).

1. Frozen thermostat (thermostat_mass=inf): each scheme is a linear recursion; its exact
   stationary moments (affine maps written here from the equations) are compared with the real
   pipeline under full, iid, reshuffle and sms batching, within 4 Monte Carlo standard errors.
2. AdL's mean friction on a Gaussian-mean target equals gamma + eps(n) h Sigma_x / 2
   (sekkat2023 Lemma 9), with eps(n) with/without replacement (eq. 13).
3. Finite thermostat mass, full batch: kinetic temperature 1, Var(x) close to the posterior.
4. The matrix OU step against expm and quadrature, incl. zero and negative eigenvalues.
"""

import math

import numpy as np
import pytest
import torch

from bnnsample.analysis.stationary import AffineStep, batch_sequences, cycle_moments, recorded_mixture

from ..helpers import assert_theta_matches, run_inprocess

BURN, THIN, SAMPLES, CHAINS, STEP, GAMMA = 600, 3, 400, 3000, 0.125, 1.0
TWO_H, TWO_R = np.array([4.0, 0.25]), np.array([-4.0, 0.25])  # two_batch_gaussian: grad U_i = H_i x - R_i
PTS_Y = np.array([-1.0, 0.0, 0.5, 2.0])  # gaussian_points (noise_sd 1, batch 2): grad U_i = x - y_i


def lin(A, c=None, q=None):
    A = np.asarray(A, float)
    m = A.shape[0]
    return AffineStep(A, np.zeros(m) if c is None else np.asarray(c, float),
                      np.zeros((m, m)) if q is None else np.asarray(q, float))  # fmt: skip


# --- frozen-thermostat recursions on z = (x, v); Hb, rb: the batch force Hb x - rb, S: its Sigma-hat


def adl_frozen(Hb, rb, S, h, gamma):
    """sekkat eq. 58 with xi = gamma: O(h/2) A(h/2) B(h) A(h/2) O(h/2), O exact with variance 1 - e^{-gamma h}."""
    e = math.exp(-gamma * h / 2)
    O = lin([[1, 0], [0, e]], q=np.diag([0, 1 - e**2]))
    A = lin([[1, h / 2], [0, 1]])
    B = lin([[1, 0], [-h * Hb, 1]], c=[0, h * rb])
    return O.then(A).then(B).then(A).then(O)


def sgnht_split_frozen(Hb, rb, S, h, gamma):
    """A(h/2), p <- e^{-gamma h/2} p, p <- p - h G + sqrt(2 gamma h) zeta, damp, A(h/2)."""
    A = lin([[1, h / 2], [0, 1]])
    D = lin([[1, 0], [0, math.exp(-gamma * h / 2)]])
    K = lin([[1, 0], [-h * Hb, 1]], c=[0, h * rb], q=np.diag([0, 2 * gamma * h]))
    return A.then(D).then(K).then(D).then(A)


def sgnht_euler_frozen(Hb, rb, S, h, gamma):
    """p' = (1 - gamma h) p - h G(x) + sqrt(2 gamma h) zeta, x' = x + h p'."""
    P = lin([[1, 0], [-h * Hb, 1 - gamma * h]], c=[0, h * rb], q=np.diag([0, 2 * gamma * h]))
    return P.then(lin([[1, h], [0, 1]]))


def ccadl_frozen(Hb, rb, S, h, gamma, xi0=1.0, sigma_term=True):
    """x' = x + h p; p' = p - h G(x') - (h^2/2) S p - h xi0 p + sqrt(2 gamma h) R."""
    damp = 1 - (h * h / 2) * S * sigma_term - h * xi0
    return lin([[1, h], [0, 1]]).then(lin([[1, 0], [-h * Hb, damp]], c=[0, h * rb], q=np.diag([0, 2 * gamma * h])))


def two_batch_maps(step, kind):
    scale = 1.0 if kind == "full" else 2.0
    seqs = batch_sequences(kind, 2, 2 if kind == "full" else 1, [[0], [1]] if kind in ("sms", "reshuffle") else None)
    return [(p, [step(scale * TWO_H[list(b)].sum(), scale * TWO_R[list(b)].sum(), 0.0, STEP, GAMMA) for b in s])
            for p, s in seqs]  # fmt: skip


def points_maps(step, kind):
    """gaussian_points y = PTS_Y, noise_sd 1, batch 2, partition fresh: Sigma-hat_S = eps(n) * (sample
    variance, ddof 1, of the batch's per-datum gradients x - y_i) with eps from sekkat eq. 13."""
    N, n = len(PTS_Y), 2
    if kind == "full":
        seqs, scale, eps = batch_sequences("full", N, N), 1.0, 0.0
    else:
        seqs, scale = batch_sequences(kind, N, n, None), N / n
        eps = N * (N - 1) / n if kind == "iid" else N * (N - n) / n

    def one(b):
        yb = PTS_Y[list(b)]
        S = eps * np.var(yb, ddof=1) if kind != "full" else 0.0
        return step(scale * len(b), scale * yb.sum(), S, STEP, GAMMA)

    return [(p, [one(b) for b in s]) for p, s in seqs]


def exact(maps):
    return recorded_mixture(cycle_moments(maps), BURN + THIN * np.arange(1, SAMPLES + 1))


TWO = "dataset=two_batch_gaussian"
PTS = "dataset=gaussian_points batch_size=2 batching.partition=fresh"
FROZEN = [  # (preset and overrides, dataset, affine step, batching kinds)
    ("adl integrator.thermostat_mass=inf", TWO, adl_frozen, ("full", "iid", "reshuffle", "sms")),
    ("adl integrator.thermostat_mass=inf integrator.friction_kind=full", TWO, adl_frozen, ("sms",)),
    ("eadl integrator.thermostat_mass=inf integrator.edges=[-2,-1,0,1] integrator.degree=1 "
     "integrator.friction_kind=scalar", TWO, adl_frozen, ("iid",)),
    ("sgnht integrator.thermostat_mass=inf", TWO, sgnht_split_frozen, ("full", "iid", "reshuffle", "sms")),
    ("sgnht_euler integrator.thermostat_mass=inf", TWO, sgnht_euler_frozen, ("full", "sms")),
    ("ccadl integrator.thermostat_mass=inf integrator.initial_friction=1.0", PTS, ccadl_frozen,
     ("full", "iid", "reshuffle", "sms")),
]  # fmt: skip
CASES = [(p, ds, st, k) for p, ds, st, kinds in FROZEN for k in kinds]


@pytest.mark.parametrize(
    "preset,dataset,step,kind", CASES, ids=[f"{c[0].split()[0]}-{i}-{c[3]}" for i, c in enumerate(CASES)]
)
def test_frozen_thermostat_moments(tmp_path, preset, dataset, step, kind):
    path, cfg = run_inprocess(
        tmp_path,
        [*f"integrator={preset}".split(), *dataset.split(), f"batching={kind}", f"chains={CHAINS}",
         f"step_size={STEP}", f"friction={GAMMA}", f"burn_in={BURN}", f"thin={THIN}", f"samples={SAMPLES}", "seed=5"],
    )  # fmt: skip
    maps = two_batch_maps if dataset == TWO else points_maps
    mean, cov = exact(maps(step, kind))
    m_se, v_se = assert_theta_matches(path, mean[0], cov[0, 0])
    other_mean, other_cov = exact(maps(step, "full" if kind != "full" else "iid"))
    assert abs(cov[0, 0] - other_cov[0, 0]) > 8 * v_se or abs(mean[0] - other_mean[0]) > 8 * m_se
    if step is ccadl_frozen and kind != "full":  # and the Sigma-hat term is visible
        no_sigma = exact(maps(lambda *a: ccadl_frozen(*a, sigma_term=False), kind))[1]
        assert abs(cov[0, 0] - no_sigma[0, 0]) > 8 * v_se


# --- 2. AdL mean friction = gamma + eps(n) h Sigma_x / 2


def _run_direct(name, params, y, kind, h, chains, burn_time, time, seed, every=10):
    """Run an integrator without the sampler; returns per-chain time averages of xi and the final state."""
    from bnnsample.batching import Schedule
    from bnnsample.integrators import StepContext, get_integrator
    from bnnsample.models.analytic import GaussianMean
    from bnnsample.plumbing.rng import GaussianNoise
    from bnnsample.potential import Oracle

    pot = GaussianMean(torch.tensor(y, dtype=torch.float64), torch.tensor(1.0, dtype=torch.float64))
    sched = Schedule(kind, pot.n_data, 2, chains=chains, generator=torch.Generator().manual_seed(seed))
    burn = int(burn_time / h) // every * every
    ctx = StepContext(h=h, gamma=GAMMA, noise=GaussianNoise("cpu", seed + 1), burn_in=burn)
    integ = get_integrator(name, **params)
    state = integ.init_state(torch.zeros(chains, pot.dim, dtype=torch.float64), ctx)

    def next_force():
        return Oracle(pot, sched.next(), sched.scale, sched.eps)

    total, n_avg = 0, int(time / h) // every
    for b in range(burn // every + n_avg):
        ctx.step = b * every
        state = integ.advance(state, every, next_force, ctx)
        if b >= burn // every:
            xi = state.extra["xi"]
            if name == "eadl":
                xi = xi / state.extra["basis_norm"].view(1, -1, *([1] * (xi.dim() - 2)))
            total = total + xi
    return (total / n_avg).reshape(chains, -1).numpy(), state


def _sigma_x(y):
    """Per-datum gradient covariance (sekkat eq. 12, ddof 1) of grad U_i = x - y_i: the sample covariance of y."""
    y = np.asarray(y, float).reshape(len(y), -1)
    return np.atleast_2d(np.cov(y.T, ddof=1))


def _eps(kind, N=4, n=2):
    return N * (N - 1) / n if kind == "iid" else N * (N - n) / n


@pytest.mark.parametrize("kind", ["iid", "iid_wor"])
def test_adl_scalar_mean_friction(kind):
    """Scalar AdL, d = 1: E[xi] = gamma + eps(n) h Sigma_x / 2 (the discretisation bias at h = 0.05
    is about 0.002, below the Monte Carlo error; it was 0.017 at h = 0.1)."""
    h, C = 0.05, 1000
    xi, _ = _run_direct("adl", {"friction_kind": "scalar"}, PTS_Y, kind, h, C, 30.0, 150.0, seed=3)
    m, se = xi[:, 0].mean(), xi[:, 0].std(ddof=1) / math.sqrt(C)
    S = _sigma_x(PTS_Y)[0, 0]
    pred = GAMMA + _eps(kind) * h * S / 2
    assert abs(m - pred) < 4 * se, (m, pred, se)
    wrong = GAMMA + _eps("iid_wor" if kind == "iid" else "iid") * h * S / 2  # the other replacement formula
    assert abs(m - wrong) > 8 * se and abs(m - GAMMA) > 8 * se, (m, wrong, se)


def test_adl_full_matrix_mean_friction():
    """Full-matrix AdL, d = 2, correlated per-datum gradients: E[xi] = gamma I + eps(n) h Sigma_x / 2
    entrywise (sekkat Lemma 9), and xi stays symmetric."""
    y = [[-1.0, 0.5], [0.0, 0.0], [0.5, 1.0], [2.0, 2.0]]
    h, C = 0.05, 600
    xi, state = _run_direct("adl", {"friction_kind": "full"}, y, "iid_wor", h, C, 30.0, 100.0, seed=4)
    assert torch.equal(state.extra["xi"], state.extra["xi"].transpose(1, 2))
    S = _sigma_x(y)
    pred = (GAMMA * np.eye(2) + _eps("iid_wor") * h * S / 2).reshape(-1)
    wrong = (GAMMA * np.eye(2) + _eps("iid") * h * S / 2).reshape(-1)
    m, se = xi.mean(0), xi.std(0, ddof=1) / math.sqrt(C)
    assert np.all(np.abs(m - pred) < 4 * se), (m, pred, se)
    assert np.max(np.abs(m - wrong) / se) > 8 and abs(m[1] - 0) > 8 * se[1], (m, wrong, se)


def test_eadl_cell_frictions_match_theorem_17():
    """eAdL with two indicator cells (norms estimated on the burn-in): with constant Sigma_x each
    normalized coefficient xi_k / c_k has mean gamma + eps h Sigma_x / 2 (sekkat Theorem 17)."""
    h, C = 0.05, 1000
    params = {"edges": [-1.0, 0.375, 2.0], "degree": 0, "friction_kind": "scalar"}
    xi, state = _run_direct("eadl", params, PTS_Y, "iid_wor", h, C, 30.0, 100.0, seed=6)
    assert "basis_sq" not in state.extra  # the estimate ended with the burn-in
    norms = state.extra["basis_norm"].numpy()
    assert np.allclose(norms, math.sqrt(0.5), atol=0.02)  # the posterior is symmetric about the cut
    pred = GAMMA + _eps("iid_wor") * h * _sigma_x(PTS_Y)[0, 0] / 2
    m, se = xi.mean(0), xi.std(0, ddof=1) / math.sqrt(C)
    assert np.all(np.abs(m - pred) < 4 * se), (m, pred, se)
    assert np.all(np.abs(m - GAMMA) > 8 * se)


# --- 3. finite thermostat mass, full batch: kinetic temperature and Var(x)


@pytest.mark.parametrize("preset", ["adl", "adl integrator.friction_kind=full", "sgnht", "sgnht_euler", "ccadl"])
def test_thermostat_temperature_and_variance(tmp_path, preset):
    """SGNHT and CC-ADL update xi with the recorded p, so E|p|^2/d = 1 exactly at stationarity;
    AdL controls it at the half steps, so the recorded temperature is 1 up to O(h^2). Var(x) is
    compared with the posterior 1/4 within 4 SE plus 3% (first-order schemes: O(h) bias)."""
    from bnnsample.evaluate.metrics import chain_mean_se, chain_var_se
    from bnnsample.store import SampleStore

    path, _ = run_inprocess(
        tmp_path,
        [*f"integrator={preset}".split(), "dataset=gaussian_points", "batching=full", "chains=1000",
         "step_size=0.02", "burn_in=2000", "thin=10", "samples=200", "seed=9"],
    )  # fmt: skip
    with SampleStore(path) as s:
        theta = s.theta()[:, :, 0]
        kt = s.diagnostics()["kinetic_temperature"]
        xi = s.read_state()["tensor/xi"]
    k, k_se = chain_mean_se(kt)
    v, v_se = chain_var_se(theta)
    tol = 0.0 if preset.startswith(("sgnht", "ccadl")) else 0.005
    assert abs(k - 1) < 4 * k_se + tol, (k, k_se)
    assert abs(v - 0.25) < 4 * v_se + 0.03 * 0.25, (v, v_se)
    assert np.isfinite(xi).all() and xi.std() > 0.1  # the thermostat moves


# --- 4. the matrix OU step


def _reference_cov(xi, gamma, t):
    from scipy.integrate import quad_vec
    from scipy.linalg import expm

    return quad_vec(lambda s: 2 * gamma * expm(-2 * s * xi), 0, t, epsabs=1e-13, epsrel=1e-12)[0]


@pytest.mark.parametrize("eigs", [[2.0, 0.5, 0.0], [1.0, -0.7, 0.0], [1e-13, -3.0, 4.0], [0.0, 0.0, 0.0]])
def test_matrix_ou_step_is_exact(eigs):
    """p' = M p + S g: read M and S off the step with unit vectors and compare M with expm(-t xi)
    and S S^T with 2 int_0^t e^{-s xi} gamma e^{-s xi} ds (= gamma xi^{-1} (I - e^{-2 t xi}))."""
    from scipy.linalg import expm
    from scipy.stats import ortho_group

    from bnnsample.integrators.thermostats import Friction, matrix_ou

    d, gamma, t = 3, 1.7, 0.3
    U = ortho_group.rvs(d, random_state=1)
    xi = U @ np.diag(eigs) @ U.T
    xi = (xi + xi.T) / 2
    X = torch.tensor(xi)[None].expand(d, d, d)
    I = torch.eye(d, dtype=torch.float64)
    M = matrix_ou(I, X, gamma, t, torch.zeros(d, d, dtype=torch.float64)).T.numpy()
    S = matrix_ou(torch.zeros(d, d, dtype=torch.float64), X, gamma, t, I).T.numpy()
    np.testing.assert_allclose(M, expm(-t * xi), atol=1e-12)
    np.testing.assert_allclose(S @ S.T, _reference_cov(xi, gamma, t), atol=1e-11)
    fr = Friction("full")  # and through the friction class, with fused/unfused times
    S2 = fr.ou(torch.zeros(d, d, dtype=torch.float64), X, gamma, 2 * t, I).T.numpy()
    np.testing.assert_allclose(S2 @ S2.T, _reference_cov(xi, gamma, 2 * t), atol=1e-11)


@pytest.mark.parametrize("lam", [0.0, -0.8, 1e-300, 2.5])
def test_elementwise_ou_noise_and_limits(lam):
    from bnnsample.integrators.thermostats import Friction

    gamma, t = 0.6, 0.25
    p = torch.tensor([[1.5, -2.0]], dtype=torch.float64)
    for kind, xi in [("scalar", [lam]), ("diagonal", [[lam, lam]]), ("groups", [[lam]])]:
        fr = Friction(kind, [2] if kind == "groups" else None)
        xi = torch.tensor(xi, dtype=torch.float64)
        decay = fr.ou(p, xi, gamma, t, torch.zeros_like(p))
        noise = fr.ou(torch.zeros_like(p), xi, gamma, t, torch.ones_like(p))
        np.testing.assert_allclose(decay.numpy(), p.numpy() * math.exp(-t * lam), rtol=1e-14)
        var = 2 * gamma * t if lam == 0 or abs(lam) < 1e-200 else gamma * (1 - math.exp(-2 * t * lam)) / lam
        np.testing.assert_allclose(noise.numpy() ** 2, var, rtol=1e-13)


# --- eAdL basis, consistency with AdL, config errors


def test_eadl_basis_values():
    from bnnsample.integrators.thermostats import PartitionBasis

    b = PartitionBasis([[0.0, 0.7, 1.4], [0.0, 0.7, 1.4]], 1, 2)
    assert b.size == 16
    x = torch.tensor([[0.35, 1.05], [2.0, -1.0]], dtype=torch.float64)
    f = b(x).numpy()
    # chain 0: cell (0, 1) = index 1, u = (0.5, 0.5): functions 1, u2, u1, u1 u2 (C order over (i1, i2))
    np.testing.assert_allclose(f[0, 4:8], [1, 0.5, 0.5, 0.25])
    assert np.count_nonzero(f[0]) == 4
    # chain 1 lies outside the box: the outer cell (1, 0) = index 2 extends, u clamped to (1, 0)
    np.testing.assert_allclose(f[1, 8:12], [1, 0, 1, 0])
    assert np.count_nonzero(f[1]) == 2


def test_eadl_one_cell_is_adl():
    """One unbounded cell of degree 0 with norm 1 gives AdL's trajectory exactly."""
    from bnnsample.integrators import StepContext, get_integrator
    from bnnsample.models.analytic import GaussianMean
    from bnnsample.plumbing.rng import GaussianNoise
    from bnnsample.potential import Oracle

    pot = GaussianMean(torch.tensor(PTS_Y), torch.tensor(1.0, dtype=torch.float64))
    out = {}
    for name, params in [("adl", {"friction_kind": "full"}),
                         ("eadl", {"edges": [0.0, 1.0], "degree": 0, "friction_kind": "full", "normalization": "none"})]:  # fmt: skip
        ctx = StepContext(h=0.1, gamma=1.0, noise=GaussianNoise("cpu", 0))
        integ = get_integrator(name, **params)
        st = integ.init_state(torch.zeros(5, 1, dtype=torch.float64), ctx)
        for _ in range(7):
            st = integ.advance(st, 3, lambda: Oracle(pot, None, 1.0), ctx)
        out[name] = st
    torch.testing.assert_close(out["adl"].x, out["eadl"].x, rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(out["adl"].extra["xi"], out["eadl"].extra["xi"][:, 0], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name,params,field", [
    ("adl", {"friction_kind": "cubic"}, "friction_kind"), ("adl", {"friction_kind": "groups"}, "groups"),
    ("adl", {"thermostat_mass": 0}, "thermostat_mass"), ("sgnht", {"form": "leapfrog"}, "form"),
    ("eadl", {"edges": [1.0, 0.0]}, "edges"), ("eadl", {"edges": [0, 1], "normalization": "given"}, "basis_norms"),
    ("ccadl", {"thermostat_mass": "heavy"}, "thermostat_mass"),
])  # fmt: skip
def test_bad_parameters_name_the_field(name, params, field):
    from bnnsample.integrators import get_integrator

    with pytest.raises(ValueError, match=field):
        get_integrator(name, **params)


def test_groups_must_sum_to_d():
    from bnnsample.integrators import StepContext, get_integrator

    integ = get_integrator("adl", friction_kind="groups", groups=[1, 2])
    with pytest.raises(ValueError, match="groups"):
        integ.init_state(torch.zeros(2, 4), StepContext(h=0.1, gamma=1.0, noise=None))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("name,params", [("adl", {"friction_kind": "full"}), ("adl", {"friction_kind": "groups", "groups": [1, 2]}),
                                          ("sgnht", {"thermostat": "diagonal"}), ("ccadl", {}),
                                          ("eadl", {"edges": [-1, 0, 1], "degree": 1, "friction_kind": "diagonal"})])  # fmt: skip
def test_dtypes_and_shapes(name, params, dtype):
    from bnnsample.integrators import StepContext, get_integrator
    from bnnsample.models.analytic import GaussianMean
    from bnnsample.plumbing.rng import GaussianNoise
    from bnnsample.potential import Oracle

    y = torch.tensor([[-1.0, 0.0, 1.0], [0.5, 1.0, 0.0], [1.0, -1.0, 2.0]], dtype=dtype)
    pot = GaussianMean(y, torch.tensor(1.0, dtype=dtype))
    ctx = StepContext(h=0.05, gamma=1.0, noise=GaussianNoise("cpu", 0), burn_in=4)
    integ = get_integrator(name, **params)
    st = integ.init_state(torch.zeros(4, 3, dtype=dtype), ctx)
    for k in range(3):
        ctx.step = 2 * k
        st = integ.advance(st, 2, lambda: Oracle(pot, torch.tensor([0, 1]), 1.5, 1.5), ctx)
    assert st.x.dtype == dtype and st.extra["xi"].dtype == dtype and torch.isfinite(st.x).all()


# --- 5. CC-ADL's stability interval (results/ccadl_diagnosis.md)


@pytest.mark.parametrize("xi, unstable", [(7.0, False), (7.6, False), (8.0, True), (8.5, True)])
def test_ccadl_frozen_friction_stability_interval(xi, unstable):
    """CC-ADL is explicit Euler in the friction (Shang et al. 2015 Algorithm 1, as matthews2018's
    runs use it): with xi frozen, on U = x^2/2 with Sigma = s, one step maps (x, p) by
    [[1, h], [-h, 1 - h xi_e - h^2]], xi_e = xi + h s / 2, with det 1 - h xi_e and trace
    2 - h xi_e - h^2, so it is stable iff 0 < xi_e < 2/h - h/2 (Jury); h = 0.25, s = 1: xi < 7.75.
    Past it the momentum flips sign and grows every step: the divergence seen in matthews2018
    Fig. 1 once the thermostat's excursions reach this bound."""
    from bnnsample.models.analytic import NoisyGradientGaussian
    from bnnsample.simulate import simulate

    h, s = 0.25, 1.0
    bound = 2 / h - h / 2 - h * s / 2
    assert (xi > bound) == unstable
    pot = NoisyGradientGaussian(1, sigma=math.sqrt(s), sigma_model="constant", seed=3)
    st = simulate(pot, "ccadl", h=h, gamma=1.0, x0=torch.zeros(64, 1, dtype=torch.float64), steps=1500,
                  params={"thermostat_mass": math.inf, "initial_friction": xi}, seed=3)  # fmt: skip
    big = ~torch.isfinite(st.x) | (st.x.abs() > 1e3)
    assert bool(big.all()) if unstable else not bool(big.any())


def test_ccadl_shared_thermostat_is_one_xi_driven_by_the_mean_over_chains():
    """shared_thermostat: every chain carries the same xi, and one step moves it by
    (h/mu)(mean over the chains and coordinates of p^2 - 1) computed from the new momenta;
    per-chain thermostats differ. A chain gone non-finite does not poison the others' xi."""
    from bnnsample.integrators import StepContext, get_integrator
    from bnnsample.models.analytic import NoisyGradientGaussian
    from bnnsample.plumbing.rng import GaussianNoise
    from bnnsample.potential import Oracle
    from bnnsample.simulate import simulate

    pot = NoisyGradientGaussian(1, sigma=1.0, sigma_model="constant", seed=3)
    x0 = torch.zeros(500, 1, dtype=torch.float64)
    shared = simulate(pot, "ccadl", h=0.1, gamma=1.0, x0=x0, steps=400, params={"shared_thermostat": True}, seed=3)
    own = simulate(pot, "ccadl", h=0.1, gamma=1.0, x0=x0, steps=400, seed=3)
    assert float(shared.extra["xi"].std()) == 0.0 and float(own.extra["xi"].std()) > 0.1
    assert abs(float((shared.v**2).mean()) - 1.0) < 0.15  # the shared thermostat holds the mean p^2 at 1

    integ = get_integrator("ccadl", shared_thermostat=True)
    ctx = StepContext(h=0.1, gamma=1.0, noise=GaussianNoise("cpu", 0))
    st = integ.init_state(torch.zeros(6, 2, dtype=torch.float64), ctx)
    st.v[0] = float("nan")
    xi0 = st.extra["xi"].clone()
    nxt = integ.advance(st, 1, lambda: Oracle(pot, None, 1.0, 0.0), ctx)
    p2 = (nxt.v[1:] ** 2).mean()
    torch.testing.assert_close(nxt.extra["xi"][1:], (xi0[1:] + 0.1 * (p2 - 1)).expand(5), rtol=1e-12, atol=1e-12)
    with pytest.raises(ValueError, match="shared_thermostat"):
        get_integrator("ccadl", shared_thermostat="yes")
