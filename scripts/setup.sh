#!/usr/bin/env bash
# One-time set-up on a fresh machine: a virtual environment in .venv with the package,
# the CPU build of PyTorch (pinned first, so no multi-GB CUDA build is pulled) and test tools.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet torch==2.13.0
# No torchvision: PyPI's wheels are built for the CUDA torch and do not import beside the CPU
# one; the hf judge builds processors without it (tests/judges/test_hf_arch_matrix.py).
# ray: tests/test_ray_engine.py runs `eval --engine ray` on a local Ray of the CI machine's CPUs.
.venv/bin/python -m pip install --quiet -e ".[hf,openai,anthropic,gemini,dev,3d,inspect,ray]"
