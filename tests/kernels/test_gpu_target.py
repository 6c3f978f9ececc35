"""The target a GPU kernel is compiled for (support/GpuTargets.h): native
code for the device, or, with PYCUDA_JIT_NEWEST_CC below the device's cc
(e.g. 8.0 on the H200), PTX of that architecture JIT-compiled by nvJitLink
for the device -- the path a GPU newer than the compiler takes.  Run all of
tests/kernels with PYCUDA_JIT_NEWEST_CC=8.0 to check every kernel on that path."""
import os

import numpy as np

from gpu_util import poisoned
from pycuda_jit import _core, cuda


@cuda.jit
def scaled_sum(a, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


def test_kernel_reports_its_target(hardware, rng):
    n = 1000
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    out = poisoned(n, np.float32)
    scaled_sum[(n + 127) // 128, 128](np.float32(1.5), x, y, out)
    # a * x + y is one fma (contraction): the reference rounds once too
    want = (1.5 * x.astype(np.float64) + y.astype(np.float64)).astype(np.float32)
    np.testing.assert_allclose(out, want, rtol=1e-6, atol=1e-7)
    cc = cuda.get_current_device().compute_capability
    arch = f"sm_{cc[0]}{cc[1]}"
    target = scaled_sum.stats["target"]
    assert target == _core.gpu_target(*cc)[1]
    newest = os.environ.get("PYCUDA_JIT_NEWEST_CC")
    if newest and tuple(map(int, newest.split("."))) < tuple(cc):
        major, minor = newest.split(".")
        assert target == f"sm_{major}{minor} PTX JIT-compiled for {arch}"
        assert f".target sm_{major}{minor}\n" in scaled_sum.inspect_asm(
            scaled_sum.signatures[0])
    else:
        assert target == f"native {arch}"
