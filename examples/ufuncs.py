"""GPU ufuncs with pycuda_jit: @vectorize (elementwise), @guvectorize (over
sub-arrays) and cuda.reduce, numba-cuda's API with only the import changed.

    python examples/ufuncs.py            # a million elements
    python examples/ufuncs.py --small    # a quick run (the CPU executor)
"""
import math
import sys

import numpy as np

from pycuda_jit import cuda, guvectorize, vectorize


# Elementwise: one call per element, broadcasting like NumPy.  The list gives
# the signatures; the arrays' dtypes pick one.
@vectorize(["float32(float32, float32, float32)", "float64(float64, float64, float64)"])
def smooth_step(x, lo, hi):
    t = (x - lo) / (hi - lo)
    t = min(max(t, 0.0), 1.0)
    return t * t * (3.0 - 2.0 * t)


# Over sub-arrays: each row of `xs` gives one mean and one spread.
@guvectorize(["void(float64[:], float64[:], float64[:])"], "(n)->(),()")
def row_stats(xs, mean, spread):
    total = 0.0
    for v in xs:
        total += v
    m = total / xs.shape[0]
    acc = 0.0
    for v in xs:
        acc += (v - m) * (v - m)
    mean[0] = m
    spread[0] = math.sqrt(acc / xs.shape[0])


@vectorize(["float64(float64, float64)"])
def hypot2(a, b):
    return math.sqrt(a * a + b * b)


def main(argv):
    n = 4096 if "--small" in argv else 1 << 20
    rng = np.random.default_rng(7)
    x = rng.random(n, dtype=np.float32) * 3 - 1

    # Host arrays in, host array out (copied both ways) ...
    y = smooth_step(x, np.float32(0), np.float32(1))
    t = np.clip(x, 0, 1)
    assert np.allclose(y, t * t * (3 - 2 * t), atol=1e-6)

    # ... or device arrays in, device array out (nothing copied).
    dx = cuda.to_device(x)
    dy = cuda.device_array_like(dx)
    smooth_step(dx, np.float32(-0.5), np.float32(0.5), out=dy)

    rows = rng.standard_normal((n // 64, 64))
    mean, spread = row_stats(rows)
    assert np.allclose(mean, rows.mean(axis=1)) and np.allclose(spread, rows.std(axis=1))

    # Reductions on the device: any associative binary function.
    total = cuda.reduce(lambda a, b: a + b)(dy)
    biggest = cuda.Reduce(lambda a, b: max(a, b))(dx, init=-np.inf)
    assert np.isclose(total, dy.copy_to_host().sum(dtype=np.float64), rtol=1e-4)
    assert biggest == x.max()
    longest = hypot2.reduce(rng.random(1000))  # a binary ufunc folded over an array
    print(f"{n} elements: mean smooth step {total / n:.4f}, largest x {biggest:.4f}, "
          f"row spread {spread.mean():.4f}, |v| of 1000 values {longest:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
