"""tests/gpu: kernels checked for computed values on the GPU, or on the CPU
executor (PYCUDA_JIT_BACKEND=cpu), which runs the same compiled code.

Tests that genuinely need hardware use the `hardware` fixture, which skips
with the reason on the CPU executor.
"""
import os
import warnings
import zlib

import numpy as np
import pytest

# The CPU executor presents four virtual devices here, so the multi-device
# tests (test_multi_device.py) run without GPUs; GPUs are what they are.
os.environ.setdefault("PYCUDA_JIT_CPU_DEVICES", "4")

from pycuda_jit import cuda  # noqa: E402


@pytest.fixture(scope="session")
def backend():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return cuda.backend()


@pytest.fixture
def rng(request):
    # Seeded per test by a stable hash of its name (str hashes change per
    # process), so a failure reproduces on the next run.
    return np.random.default_rng(zlib.crc32(request.node.name.encode()))


@pytest.fixture
def hardware(backend):
    if backend != "cuda":
        pytest.skip("needs a CUDA GPU (runs on the H200 machine)")
