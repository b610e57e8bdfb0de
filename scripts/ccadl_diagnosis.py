"""Why CC-ADL diverges at matthews2018's step sizes (issue 16); results in results/ccadl_diagnosis.md.

    PYTHONPATH=. OMP_NUM_THREADS=1 python scripts/ccadl_diagnosis.py [--chains 4000] [--T 150]

Parts (each prints a markdown table):

1. matthews2018 Fig. 1 setting (Sec. 5.1: 1-D N(0, 1) and double well V = (x^2 - 1)^2 / 4,
   force noise sigma(x) = 1 - cos(1 + 5x), Sigma = sigma^2 given exactly), the quick grid
   h = 2^-3 .. 2^-1, chains from x = 0 for time T plus 10% burn-in, A = gamma = 1, thermostat
   mass mu = 1: fraction of diverged chains for
     ours         the project's ``ccadl`` integrator (papers.matthews2018.toy_runs.toy_bias)
     authors      the same update in numpy, xi_0 = 0 (matthews2018's authors' code)
     shang        Shang et al. 2015 Algorithm 1 literally: xi_0 = A
     half-h       the authors' update with step h/2 (if the paper's h meant two steps)
     exp          friction applied as exp(-h (xi + h Sigma / 2)) instead of 1 - h xi - h^2 Sigma / 2
     shared       the authors' update with one thermostat for all chains (replicas), driven by p^2
                  averaged over the live chains, as their public code runs its replicas
                  (github.com/c-matthews/nogin, lib/integrators/ccadl.py); the project's
                  ``ccadl integrator.shared_thermostat=true``
   and the fraction of chains surviving 100,000 steps at h = 0.25 (Fig. 1 right panel).
2. Linear stability on the Gaussian target, Sigma = s constant: the frozen-friction map of
   (x, p), its stability interval in xi, and the thermostat's mean-field equilibria: the
   stationary E p^2 of the frozen map as a function of xi, E(xi) = 1 at xi* (stable) and
   xi** (unstable, the basin edge), with the eigenvalues there.
3. matthews2018 Fig. 2 setting (gmm3, h = 0.02): the largest eigenvalue of the covariance
   estimate at posterior draws per batch size n, against the bound h^2 lambda / 2 < 2, and
   the fraction of ``ccadl`` chains that diverge within 2000 steps.
"""

from __future__ import annotations

import argparse
import math

import numpy as np

A = MU = 1.0  # gamma (the noise amplitude A) and the thermostat mass, as in the authors' code
H_GRID = [2**-3, 2**-2.5, 2**-2, 2**-1.5, 2**-1]


def sigma2(x):
    return (1 - np.cos(1 + 5 * x)) ** 2


def grad_u(x, target):
    return x if target == "gaussian" else x**3 - x


def ccadl_numpy(target, h, chains, steps, *, form="euler", xi0=0.0, seed=0):
    """Fraction of diverged chains (|x| > 1e3 or non-finite at any step) of one CC-ADL form:

    x <- x + h p;  G = U'(x) + sigma(x) R1;  Sigma = sigma(x)^2
    euler:  p <- p - h G - (h^2/2) Sigma p - h xi p + sqrt(2 A h) R2
    exp:    p <- exp(-h xi - (h^2/2) Sigma) p - h G + sqrt(2 A h) R2
    xi <- xi + (h/mu) (p^2 - 1)
    shared: the euler update with one xi for all chains, xi <- xi + (h/mu) (mean of p^2 over the
            chains not diverged - 1)
    """
    rng = np.random.default_rng(seed)
    x, p, xi = np.zeros(chains), rng.standard_normal(chains), np.full(chains, xi0)
    dead = np.zeros(chains, bool)
    shared_xi = xi0  # the shared thermostat's one value (the per-chain array is reset at dead chains)
    for _ in range(steps):
        x = x + h * p
        s2 = sigma2(x)
        g = grad_u(x, target) + np.sqrt(s2) * rng.standard_normal(chains)
        r = rng.standard_normal(chains)
        with np.errstate(all="ignore"):
            if form in ("euler", "shared"):
                p = p - h * g - (h * h / 2) * s2 * p - h * xi * p + math.sqrt(2 * A * h) * r
            else:
                p = np.exp(-h * xi - h * h * s2 / 2) * p - h * g + math.sqrt(2 * A * h) * r
            if form == "shared":
                live = ~dead & np.isfinite(p)
                shared_xi += (h / MU) * (np.mean(p[live] ** 2) - 1) if live.any() else 0.0
                xi = np.full(chains, shared_xi)
            else:
                xi = xi + (h / MU) * (p * p - 1)
            dead |= ~np.isfinite(x) | (np.abs(x) > 1e3)
        x[dead], p[dead], xi[dead] = 0.0, 0.0, xi0  # frozen: keeps the arithmetic finite
    return float(dead.mean())


def part1(chains, T, long_chains, long_steps):
    from bnnsample.papers.matthews2018.toy_runs import toy_bias

    forms = {"authors": dict(xi0=0.0), "shang": dict(xi0=A), "exp": dict(form="exp")}
    print(f"\n### 1. Fig. 1 setting: diverged fraction of {chains} chains, time {T} + 10% burn-in\n")
    print(
        "| target | h | ours (project ccadl) | authors (xi0=0) | shang Alg. 1 (xi0=A) | half-h (step h/2) | exp friction "
        "| shared thermostat |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for target in ("gaussian", "double_well"):
        for i, h in enumerate(H_GRID):
            steps = math.ceil(T / h)
            steps += steps // 10
            ours = toy_bias(target, "ccadl", h, chains, T, seed=100 + i)
            row = [f"{ours['diverged'] / chains:.4f}"]
            row += [
                f"{ccadl_numpy(target, h, chains, steps, seed=i, **kw):.4f}" for k, kw in forms.items() if k != "exp"
            ]
            half = math.ceil(T / (h / 2))
            row.append(f"{ccadl_numpy(target, h / 2, chains, half + half // 10, seed=i):.4f}")
            row.append(f"{ccadl_numpy(target, h, chains, steps, seed=i, **forms['exp']):.4f}")
            row.append(f"{ccadl_numpy(target, h, chains, steps, seed=i, form='shared'):.4f}")
            print(f"| {target} | {h:.4f} | " + " | ".join(row) + " |", flush=True)
    print(f"\nh = 0.25, {long_steps} steps (Fig. 1 right panel length), {long_chains} chains: diverged fraction")
    for target in ("gaussian", "double_well"):
        a = ccadl_numpy(target, 0.25, long_chains, long_steps, seed=11)
        e = ccadl_numpy(target, 0.25, long_chains, long_steps, seed=11, form="exp")
        s = ccadl_numpy(target, 0.25, long_chains, long_steps, seed=11, form="shared")
        print(f"- {target}: authors/ours form {a:.4f}, exp friction {e:.4f}, shared thermostat {s:.4f}")


# -- 2. linear stability on the Gaussian target ------------------------------------------------
def frozen_map(h, xi, s, form="euler"):
    """(x, p) -> M (x, p) + noise of one step with frozen xi on U = x^2/2, Sigma = s:
    x' = x + h p, p' = c p - h x', c = 1 - h xi - h^2 s / 2 (euler) or exp(-h xi - h^2 s / 2);
    the noise enters p only, variance 2 A h + h^2 s (injected plus gradient noise)."""
    c = 1 - h * xi - h * h * s / 2 if form == "euler" else math.exp(-h * xi - h * h * s / 2)
    M = np.array([[1.0, h], [-h, c - h * h]])
    Q = np.diag([0.0, 2 * A * h + h * h * s])
    return M, Q


def stationary_p2(h, xi, s, form="euler"):
    """E p^2 of the frozen map's stationary law (discrete Lyapunov P = M P M^T + Q); inf if unstable."""
    M, Q = frozen_map(h, xi, s, form)
    if np.max(np.abs(np.linalg.eigvals(M))) >= 1:
        return math.inf
    P = np.linalg.solve(np.eye(4) - np.kron(M, M), Q.reshape(-1)).reshape(2, 2)
    return float(P[1, 1])


def roots(h, s, form):
    """Friction values xi where the frozen map's E p^2 = 1 (the thermostat's mean-field equilibria)."""
    grid = np.linspace(1e-4, 2 / h + 1, 4001)
    e = np.array([stationary_p2(h, xi, s, form) for xi in grid]) - 1
    out = []
    for k in np.where(np.isfinite(e[:-1]) & np.isfinite(e[1:]) & (np.sign(e[:-1]) != np.sign(e[1:])))[0]:
        a, b = grid[k], grid[k + 1]
        for _ in range(60):
            m = (a + b) / 2
            if np.sign(stationary_p2(h, m, s, form) - 1) == np.sign(e[k]):
                a = m
            else:
                b = m
        out.append((a + b) / 2)
    return out


def part2():
    print("\n### 2. Linear stability, Gaussian target U = x^2/2, Sigma = s (frozen friction xi)\n")
    print("Frozen map: x' = x + h p, p' = (1 - h xi_e - h^2) p - h x, xi_e = xi + h s/2; det = 1 - h xi_e,")
    print("trace = 2 - h xi_e - h^2: stable iff 0 < xi_e < 2/h - h/2 (Jury). Mean-field thermostat:")
    print("xi <- xi + (h/mu)(E(xi) - 1), E(xi) = stationary E p^2 of the frozen map; multiplier 1 + (h/mu) E'(xi).\n")
    print(
        "| h | s | 2/h - h/2 | form | xi* (stable) | mult. at xi* | |eig M| at xi* | xi** (basin edge) | mult. at xi** | eig M at xi** |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for s in (0.0, 1.5):
        for h in H_GRID:
            for form in ("euler", "exp"):
                r = roots(h, s, form)
                cells = []
                for xi in (r + [math.nan, math.nan])[:2]:
                    if math.isnan(xi):
                        cells += ["none", "", ""]
                        continue
                    d = 1e-6
                    dE = (stationary_p2(h, xi + d, s, form) - stationary_p2(h, xi - d, s, form)) / (2 * d)
                    eig = np.linalg.eigvals(frozen_map(h, xi, s, form)[0])
                    eigs = ", ".join(
                        f"{z.real:+.3f}{z.imag:+.3f}i" if abs(z.imag) > 1e-12 else f"{z.real:+.3f}" for z in eig
                    )
                    cells += [
                        f"{xi:.3f}",
                        f"{1 + h / MU * dE:.4f}",
                        eigs if len(cells) else f"{np.max(np.abs(eig)):.4f}",
                    ]
                print(f"| {h:.4f} | {s} | {2 / h - h / 2:.3f} | {form} | " + " | ".join(cells) + " |")


# -- 3. Fig. 2: the covariance term on the GMM --------------------------------------------------
def part3(chains, steps):
    import torch

    from bnnsample.potential import covariance_factor
    from bnnsample.simulate import build_target, simulate

    h = 0.02
    pot = build_target(["dataset=gmm3"], seed=0, threads=1).potential
    st = simulate(pot, "baoab", h=h, gamma=1.0, x0=torch.zeros(chains, pot.dim, dtype=torch.float64), steps=3000)
    st = simulate(pot, "baoab", h=0.03, gamma=1.0, x0=st.x, steps=3000, seed=1)
    x = st.x[torch.isfinite(st.x).all(1)]
    g = pot.per_datum_grads(x, None)  # [C, N, d]: all N per-datum gradients at each draw
    sx = torch.stack([torch.cov(gc.T) for gc in g])  # per-datum covariance (ddof 1), [C, d, d]
    lam = torch.linalg.eigvalsh(sx)[:, -1].numpy()
    hess = torch.stack(
        [pot.hvp(x, e.expand_as(x).contiguous(), None, 1.0) for e in torch.eye(pot.dim, dtype=x.dtype)], 1
    )
    w2 = torch.linalg.eigvalsh((hess + hess.transpose(1, 2)) / 2)[:, -1].numpy()  # stiffest curvature omega^2
    N = pot.n_data
    rng = np.random.default_rng(0)
    gn = g.numpy()
    print(
        f"\n### 3. Fig. 2 setting (gmm3, N = {N}, h = {h}): Sigma-hat = eps(n) x batch covariance of per-datum gradients\n"
    )
    print("Euler CC-ADL multiplies p by (1 - h xi - (h^2/2) Sigma-hat) before the kick: along Sigma-hat's top")
    print(
        "eigenvector the frozen map is unstable once (h^2/2) lambda_max + h xi > 2 - h^2 omega^2 / 2 (omega^2: curvature"
    )
    print(
        f"along it; h^2 max omega^2 / 2 = {np.median(h * h * w2 / 2):.3f} at the median draw). {len(x)} posterior draws;"
    )
    print("exact: eps(n) Sigma_x (the true Cov of the minibatch force); estimate: 50 minibatches per draw.\n")
    print(
        f"| n | eps(n) = N(N-n)/n | (h^2/2) lambda_max exact, median | estimate, median | estimate, 99% | ccadl chains diverged in {steps} steps |"
    )
    print("|---|---|---|---|---|---|")
    for n in (4, 8, 32, 128, 256, 384, 512, 768):
        eps = covariance_factor(n, N, with_replacement=False)
        v = h * h / 2 * eps * lam
        est = []
        for c in range(len(gn)):
            for _ in range(50):
                b = gn[c, rng.choice(N, n, replace=False)]
                est.append(np.linalg.eigvalsh(np.atleast_2d(np.cov(b.T)))[-1])
        e = h * h / 2 * eps * np.array(est)
        x0 = x[:16].clone()
        end = simulate(pot, "ccadl", h=h, gamma=1.0, x0=x0, steps=steps, batching="iid_wor", batch_size=n, seed=n)
        bad = (~torch.isfinite(end.x).all(1)) | (end.x.abs().amax(1) > 1e6)
        print(
            f"| {n} | {eps:.4g} | {np.median(v):.3g} | {np.median(e):.3g} | {np.percentile(e, 99):.3g} | "
            f"{int(bad.sum())}/{len(x0)} |",
            flush=True,
        )


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--chains", type=int, default=4000)
    ap.add_argument("--T", type=float, default=150.0)
    ap.add_argument("--long-chains", type=int, default=400)
    ap.add_argument("--long-steps", type=int, default=100_000)
    ap.add_argument("--gmm-steps", type=int, default=2000)
    ap.add_argument("--parts", default="123")
    a = ap.parse_args()
    if "1" in a.parts:
        part1(a.chains, a.T, a.long_chains, a.long_steps)
    if "2" in a.parts:
        part2()
    if "3" in a.parts:
        part3(32, a.gmm_steps)


if __name__ == "__main__":
    main()
