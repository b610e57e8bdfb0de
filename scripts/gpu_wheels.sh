#!/usr/bin/env bash
# Wheels of bnnsample's dependencies that the GPU machines' image lacks (they have torch,
# numpy, scipy, pandas, h5py, matplotlib, scikit-learn, xarray, joblib, ... but no network),
# written to .whl/ (ignored by git) for `scripts/gpu_queue.sh` to install there. Run here, where
# the package registry is reachable:
#   bash scripts/gpu_wheels.sh && mkdir -p data && cp /usr/share/datasets/fashion-mnist/*.gz data/
# then carry .whl and data to the GPU machine (about 35 MB together).
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf .whl && mkdir -p .whl
python3 -m pip wheel -q --no-deps -w .whl \
    hydra-core==1.3.2 omegaconf==2.3.0 antlr4-python3-runtime==4.9.3 mlxtend arviz xarray-einstats h5netcdf \
    platformdirs hydra-joblib-launcher hydra-submitit-launcher submitit
# the peers suite's baselines (bench.py --suite peers --device cuda), in their own folder: the queue
# installs them apart, so a wheel that does not fit that machine's torch costs only those variants
mkdir -p .whl/bench
python3 -m pip wheel -q --no-deps -w .whl/bench posteriors==0.1.3 blackjax==1.7.1 pyvers graphviz
python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
    --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
    -d .whl/bench optree torchopt tensordict
ls .whl .whl/bench
