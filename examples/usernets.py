"""The examples of docs/custom.md: a user's own network and log density (tests/models/test_custom.py runs them).

    bnnsample run model=custom model.net._target_=examples.usernets.TwoLayerNet \
        +model.net.d_in=3 +model.net.hidden=16 model.noise_var=0.05 \
        dataset=files dataset.train=examples/houses.csv          (from the repository root)

    bnnsample.sample(gaussian_log_density, torch.zeros(1000, 2, dtype=torch.float64), step_size=0.5)
"""

import torch
from torch import nn


class TwoLayerNet(nn.Module):
    """x -> Linear(d_in, hidden) -> tanh -> Linear(hidden, d_out): logits (classification, d_out = K)
    or the mean (regression, d_out = 1)."""

    def __init__(self, d_in: int, hidden: int = 16, d_out: int = 1):
        super().__init__()
        self.hidden = nn.Linear(d_in, hidden)
        self.out = nn.Linear(hidden, d_out)

    def forward(self, x):
        return self.out(torch.tanh(self.hidden(x)))


# a Gaussian N(MEAN, COV): log density up to a constant, for theta [chains, 2]
MEAN = torch.tensor([1.0, -2.0], dtype=torch.float64)
COV = torch.tensor([[1.0, 0.6], [0.6, 2.0]], dtype=torch.float64)
PRECISION = torch.linalg.inv(COV)


def gaussian_log_density(theta):
    """-(theta - MEAN)^T COV^{-1} (theta - MEAN) / 2 for each chain: [chains, 2] -> [chains]."""
    z = theta - MEAN.to(theta)
    return -0.5 * ((z @ PRECISION.to(theta)) * z).sum(-1)
