"""Exact stationary moments of discrete schemes on linear-Gaussian targets.

On a target with linear minibatch forces G_S(x) = H_S x - r_S, one step of a splitting scheme
is an affine map with Gaussian noise, z' = A_S z + c_S + N(0, Q_S), z = (x, v). A minibatch
schedule that repeats its law every L steps (full/iid: L = 1; reshuffle: L = N_m; sms:
L = 2 N_m) draws, per cycle, a random sequence of batches (S_1, ..., S_L) independent of
the past. The state at cycle boundaries is then a Markov chain driven by i.i.d. random
affine maps, whose stationary mean m and second moment M solve

    m = E[A] m + E[c]
    M = E[A M A^T + A m c^T + c m^T A^T + c c^T + Q]      (a linear system in vec M),

with (A, c, Q) the composition over the cycle. The law at phase p of the cycle follows by
applying the first p maps of each sequence to the boundary law. The stationary law is a
Gaussian mixture (not Gaussian); its mean and covariance are exact.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from ..integrators.ou import ou_constants


@dataclass
class AffineStep:
    A: np.ndarray
    c: np.ndarray
    Q: np.ndarray

    def then(self, other: AffineStep) -> AffineStep:
        """Apply self, then other."""
        return AffineStep(other.A @ self.A, other.A @ self.c + other.c, other.A @ self.Q @ other.A.T + other.Q)


def identity_step(m: int) -> AffineStep:
    return AffineStep(np.eye(m), np.zeros(m), np.zeros((m, m)))


def ou_affine(gamma: float, tau: float, d: int) -> AffineStep:
    """The U step as an affine-Gaussian map on z = (x, v) in R^{2d}."""
    c = ou_constants(gamma, tau)
    I = np.eye(d)
    A = np.block([[I, c.drift * I], [0 * I, c.eta * I]])
    vx, cxv, vv = c.covariance()
    Q = np.block([[vx * I, cxv * I], [cxv * I, vv * I]])
    return AffineStep(A, np.zeros(2 * d), Q)


def kick_affine(H: np.ndarray, r: np.ndarray, h: float) -> AffineStep:
    """B step v <- v - h (H x - r) as an affine map (H: [d, d], r: [d])."""
    d = len(r)
    I = np.eye(d)
    A = np.block([[I, 0 * I], [-h * H, I]])
    return AffineStep(A, np.concatenate([np.zeros(d), h * r]), np.zeros((2 * d, 2 * d)))


def ubu_affine(H, r, h: float, gamma: float) -> AffineStep:
    """One UBU step U(h/2) B(h) U(h/2) with force H x - r."""
    u = ou_affine(gamma, h / 2, len(r))
    return u.then(kick_affine(np.asarray(H, float), np.asarray(r, float), h)).then(u)


def baoab_affine(H, r, h: float, gamma: float) -> AffineStep:
    """One first-same-as-last BAOAB step on z = (x, v, g), g the cached force:
    B(h/2) A(h/2) O(h) A(h/2), g <- H x - r, B(h/2)."""
    H = np.asarray(H, float)
    d = len(r)
    I, Z = np.eye(d), np.zeros((d, d))
    B = AffineStep(np.block([[I, Z, Z], [Z, I, -h / 2 * I], [Z, Z, I]]), np.zeros(3 * d), np.zeros((3 * d, 3 * d)))
    A = AffineStep(np.block([[I, h / 2 * I, Z], [Z, I, Z], [Z, Z, I]]), np.zeros(3 * d), np.zeros((3 * d, 3 * d)))
    eta = math.exp(-gamma * h)
    O = AffineStep(
        np.block([[I, Z, Z], [Z, eta * I, Z], [Z, Z, I]]), np.zeros(3 * d),
        np.block([[Z, Z, Z], [Z, -math.expm1(-2 * gamma * h) * I, Z], [Z, Z, Z]]),
    )  # fmt: skip
    G = AffineStep(np.block([[I, Z, Z], [Z, I, Z], [H, Z, Z]]), np.concatenate([np.zeros(2 * d), -np.asarray(r, float)]),
                   np.zeros((3 * d, 3 * d)))  # fmt: skip
    return B.then(A).then(O).then(A).then(G).then(B)


def em_affine(H, r, h: float, gamma: float) -> AffineStep:
    """One Euler-Maruyama step: x' = x + h v, v' = v - h (H x - r) - h gamma v + sqrt(2 gamma h) xi."""
    H = np.asarray(H, float)
    d = len(r)
    I, Z = np.eye(d), np.zeros((d, d))
    return AffineStep(
        np.block([[I, h * I], [-h * H, (1 - h * gamma) * I]]),
        np.concatenate([np.zeros(d), h * np.asarray(r, float)]),
        np.block([[Z, Z], [Z, 2 * gamma * h * I]]),
    )


# scheme name -> (one-step affine map, phase offset of the state after sampler step s)
SCHEMES = {"ubu": (ubu_affine, 0), "baoab": (baoab_affine, 1), "em": (em_affine, 0)}


def cycle_moments(sequences: list[tuple[float, list[AffineStep]]]) -> list[tuple[np.ndarray, np.ndarray]]:
    """Stationary (mean, covariance) of z at each phase p = 0..L-1 of the cycle.

    ``sequences``: (probability, [step maps of the cycle]) for every possible batch sequence.
    Phase 0 is the cycle boundary (the state after L, 2L, ... steps); phase p the state
    after p more steps.
    """
    m_dim = sequences[0][1][0].A.shape[0]
    full = []
    for p, steps in sequences:
        comp = identity_step(m_dim)
        for s in steps:
            comp = comp.then(s)
        full.append((p, comp))
    EA = sum(p * f.A for p, f in full)
    Ec = sum(p * f.c for p, f in full)
    mean0 = np.linalg.solve(np.eye(m_dim) - EA, Ec)
    lhs = np.eye(m_dim**2) - sum(p * np.kron(f.A, f.A) for p, f in full)
    rhs = sum(p * (np.outer(f.A @ mean0, f.c) + np.outer(f.c, f.A @ mean0) + np.outer(f.c, f.c) + f.Q) for p, f in full)
    second0 = np.linalg.solve(lhs, rhs.reshape(-1)).reshape(m_dim, m_dim)
    second0 = (second0 + second0.T) / 2
    out = []
    L = len(sequences[0][1])
    for phase in range(L):
        mean = np.zeros(m_dim)
        second = np.zeros((m_dim, m_dim))
        for p, steps in sequences:
            comp = identity_step(m_dim)
            for s in steps[:phase]:
                comp = comp.then(s)
            mu = comp.A @ mean0 + comp.c
            mean += p * mu
            second += p * (comp.A @ second0 @ comp.A.T + np.outer(comp.A @ mean0, comp.c)
                           + np.outer(comp.c, comp.A @ mean0) + np.outer(comp.c, comp.c) + comp.Q)  # fmt: skip
        out.append((mean, second - np.outer(mean, mean)))
    return out


def batch_sequences(kind: str, n_data: int, batch_size: int, partition: list[list[int]] | None = None):
    """Every batch sequence of one schedule cycle with its probability (small N only).

    kind: full | iid | iid_wor | reshuffle | sms. ``partition`` fixes the minibatches of
    reshuffle/sms (partition=fixed); None enumerates fresh partitions.
    """
    N, n = n_data, batch_size
    if kind == "full":
        return [(1.0, [tuple(range(N))])]
    if kind == "iid":
        seqs = list(itertools.product(range(N), repeat=n))
        return [(1.0 / len(seqs), [s]) for s in seqs]
    if kind == "iid_wor":
        seqs = list(itertools.permutations(range(N), n))
        return [(1.0 / len(seqs), [s]) for s in seqs]
    m = N // n
    if partition is not None:
        orders = [[tuple(partition[b]) for b in perm] for perm in itertools.permutations(range(m))]
    else:
        orders = [[tuple(perm[b * n : (b + 1) * n]) for b in range(m)] for perm in itertools.permutations(range(N))]
    if kind == "sms":
        orders = [o + o[::-1] for o in orders]
    elif kind != "reshuffle":
        raise ValueError(f"unknown batching {kind!r}")
    return [(1.0 / len(orders), o) for o in orders]


def linear_scheme_moments(step_map, H_i, r_i, H0, r0, kind, batch_size, partition=None):
    """Phase-wise stationary (mean, cov) of a scheme on U = U_0 + sum_i U_i with
    grad U_i = H_i x - r_i (H_i: [N, d] diagonals), grad U_0 = H0 x - r0, and the force
    estimator H0 x - r0 + (N/n) sum_{i in S} (H_i x - r_i) (scale 1 for full batch).

    step_map(H [d, d], r [d]) -> AffineStep builds one step of the scheme.
    """
    H_i, r_i = np.asarray(H_i, float), np.asarray(r_i, float)
    N, d = H_i.shape
    scale = 1.0 if kind == "full" else N / batch_size
    cache: dict = {}

    def step_for(batch):
        if batch not in cache:
            idx = list(batch)
            H = np.diag(H0 + scale * H_i[idx].sum(0)) if np.ndim(H0) <= 1 else H0 + np.diag(scale * H_i[idx].sum(0))
            r = r0 + scale * r_i[idx].sum(0)
            cache[batch] = step_map(H, r)
        return cache[batch]

    seqs = batch_sequences(kind, N, batch_size, partition)
    return cycle_moments([(p, [step_for(b) for b in s]) for p, s in seqs])


def recorded_mixture(phase_moments, phases) -> tuple[np.ndarray, np.ndarray]:
    """Mean and covariance of the pooled law of draws taken at the given cycle phases."""
    phases = np.asarray(phases)
    w = np.bincount(phases % len(phase_moments), minlength=len(phase_moments)) / len(phases)
    mean = sum(wi * m for wi, (m, _) in zip(w, phase_moments))
    second = sum(wi * (c + np.outer(m, m)) for wi, (m, c) in zip(w, phase_moments))
    return mean, second - np.outer(mean, mean)


def active_coordinates(seqs) -> list[int]:
    """Coordinates of z that some map changes or reads: a coordinate j with A e_j = e_j,
    e_j^T A = e_j^T, c_j = 0 and Q_jj = 0 in every map is carried along untouched (SGLD's v)
    and would make the moment equations singular."""
    maps = [a for _, steps in seqs for a in steps]
    m = maps[0].A.shape[0]
    out = []
    for j in range(m):
        e = np.zeros(m)
        e[j] = 1.0
        idle = all(np.array_equal(a.A[j], e) and np.array_equal(a.A[:, j], e) and a.c[j] == 0 and a.Q[j, j] == 0
                   for a in maps)  # fmt: skip
        if not idle:
            out.append(j)
    return out
