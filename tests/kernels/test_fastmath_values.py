"""fastmath=True float32 math (approximate instructions on the GPU, the
accurate functions on the CPU executor) stays within the documented error
of the true value for arguments in the usual ranges."""
import math

import numpy as np
import pytest

from pycuda_jit import cuda

from gpu_util import poisoned


def make(f):
    @cuda.jit(fastmath=True)
    def k(x, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = f(x[i])
    return k


@pytest.mark.parametrize("name, lo, hi, atol, rtol", [
    ("sin", -math.pi, math.pi, 2e-6, 0),
    ("cos", -math.pi, math.pi, 2e-6, 0),
    ("tan", -1.0, 1.0, 2e-6, 4e-6),  # sin.approx/cos.approx: absolute error
    ("tanh", -4.0, 4.0, 0, 2e-3),  # tanh.approx.f32: about 2**-11 relative
    ("exp", -10.0, 10.0, 0, 4e-6),
    ("log", 1e-3, 1e3, 2e-6, 0),
    ("log2", 1e-3, 1e3, 2e-6, 0),
    ("log10", 1e-3, 1e3, 2e-6, 0),
])
def test_fastmath_float32_functions(name, lo, hi, atol, rtol, rng):
    x = rng.uniform(lo, hi, size=1000).astype(np.float32)
    out = poisoned(x.size, np.float32)
    make(getattr(math, name))[4, 256](x, out)
    want = getattr(np, name)(x.astype(np.float64))
    np.testing.assert_allclose(out, want, atol=atol, rtol=rtol)
