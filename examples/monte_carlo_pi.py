"""Estimate pi by throwing random points at the unit square, one random
number generator per GPU thread (cuda.random, numba-cuda's xoroshiro128+).

Each thread draws `samples` points (x, y) in [0, 1)^2 and counts those inside
the quarter circle x^2 + y^2 <= 1; the fraction inside is pi / 4.  The same
program runs under numba-cuda with `pycuda_jit` replaced by `numba`.

    python examples/monte_carlo_pi.py            # 2**20 threads on a GPU
    python examples/monte_carlo_pi.py --small    # a quick run (the CPU executor)
"""
import math
import sys

import numpy as np

from pycuda_jit import cuda
from pycuda_jit.cuda.random import create_xoroshiro128p_states, xoroshiro128p_uniform_float32


@cuda.jit
def count_inside(states, samples, hits):
    tid = cuda.grid(1)
    if tid >= hits.size:
        return
    inside = 0
    for _ in range(samples):
        x = xoroshiro128p_uniform_float32(states, tid)
        y = xoroshiro128p_uniform_float32(states, tid)
        if x * x + y * y <= 1.0:
            inside += 1
    hits[tid] = inside


def estimate_pi(threads, samples, seed=2024):
    states = create_xoroshiro128p_states(threads, seed=seed)
    hits = cuda.device_array(threads, dtype=np.int64)
    block = 256
    count_inside[(threads + block - 1) // block, block](states, samples, hits)
    total = cuda.reduce(lambda a, b: a + b)(hits)  # summed on the device
    return 4.0 * total / (threads * samples)


def main(argv):
    small = "--small" in argv
    threads, samples = (4096, 64) if small else (1 << 20, 1000)
    pi = estimate_pi(threads, samples)
    # The standard error of the estimate is about 1.64 / sqrt(points).
    error = abs(pi - math.pi)
    tolerance = 6 * 1.64 / math.sqrt(threads * samples)
    print(f"pi ~ {pi:.6f} from {threads * samples} points ({threads} threads x {samples}); "
          f"error {error:.2e} (tolerance {tolerance:.2e})")
    return 0 if error < tolerance else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
