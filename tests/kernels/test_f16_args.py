"""float16 kernel arguments: a number passed to a float16 parameter of an
explicit signature arrives rounded once to nearest even with subnormals
kept (the reference: NumPy's float64 -> float16 cast, correctly rounded),
and a np.float16 scalar arrives exactly.  Both were truncated, and
subnormals flushed to zero, by the argument packer."""
import numpy as np

from pycuda_jit import cuda, types
from gpu_util import poisoned


@cuda.jit(types.void(types.float16, types.float16[::1]))
def store(x, out):
    out[0] = x


def test_python_floats_round_once_to_nearest_even(rng):
    every = np.arange(0x7C00, dtype=np.uint16)  # every finite non-negative half
    v = every.view(np.float16).astype(np.float64)
    mid = (v[:-1] + v[1:]) / 2
    picks = rng.choice(mid.size, 400, replace=False)
    xs = np.concatenate([mid[picks], np.nextafter(mid[picks], 0),
                         np.nextafter(mid[picks], np.inf), v[rng.choice(v.size, 200)],
                         [65504.0, 65519.99, 65520.0, 1e6, 2.0 ** -25, 2.0 ** -25 * 1.0001,
                          2.0 ** -26, 5.960464477539063e-08, 6.1e-05, np.inf]])
    xs = np.concatenate([xs, -xs, [0.0, -0.0]])
    for x in xs:
        out = poisoned(1, np.float16)
        store[1, 1](float(x), out)
        want = np.float16(x)
        assert out.view(np.uint16)[0] == want.view(np.uint16), (x, out[0], want)


def test_numpy_float16_scalars_arrive_exactly():
    for b in (0x0001, 0x03FF, 0x0400, 0x3C01, 0x8001, 0x7BFF, 0xFBFF):
        x = np.uint16(b).view(np.float16)
        out = poisoned(1, np.float16)
        store[1, 1](x, out)
        assert out.view(np.uint16)[0] == b, hex(b)
