"""What the GPU error record costs a launch: a launch + cuda.synchronize()
loop of a small kernel without and with a (passing) `assert`, side by side.
The kernel with the assert has error sites, so its module is bound to the
context's record and every synchronize reads the record (one load from
pinned host memory); the plain one has none.  Prints microseconds per
launch + synchronize (median of the rounds) and the ratio with / without.

    PYTHONPATH=. python3 benchmarks/error_record_overhead.py [--n 2000] [--rounds 7]

Both kernels' results are checked first.  Meant for a GPU (on the CPU
executor synchronize does nothing and the figures time the executor).
Quote the machine with the figures.
"""
import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402

from pycuda_jit import cuda  # noqa: E402


@cuda.jit
def scale_plain(a, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = 2.0 * a[i]


@cuda.jit
def scale_checked(a, out):
    i = cuda.grid(1)
    if i < a.size:
        assert a[i] >= 0.0, "negative input"
        out[i] = 2.0 * a[i]


def per_launch_us(kernel, args, n, rounds):
    kernel[4, 256](*args)  # compile, load and warm up
    cuda.synchronize()
    medians = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(n):
            kernel[4, 256](*args)
            cuda.synchronize()
        medians.append((time.perf_counter() - t0) / n * 1e6)
    return statistics.median(medians)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=2000, help="launches per round")
    ap.add_argument("--rounds", type=int, default=7)
    opts = ap.parse_args()
    rng = np.random.default_rng(1)
    a = rng.random(1024)
    d_a = cuda.to_device(a)
    results = {}
    for name, k in (("plain", scale_plain), ("assert", scale_checked)):
        d_out = cuda.to_device(np.full(1024, np.nan))
        k[4, 256](d_a, d_out)
        np.testing.assert_array_equal(d_out.copy_to_host(), 2.0 * a)
        results[name] = per_launch_us(k, (d_a, d_out), opts.n, opts.rounds)
    print(f"backend {cuda.backend()}, {opts.n} launches x {opts.rounds} rounds")
    print(f"{'kernel':8} {'us / launch+sync':>17}")
    for name, us in results.items():
        print(f"{name:8} {us:17.2f}")
    print(f"ratio assert / plain: {results['assert'] / results['plain']:.3f}")


if __name__ == "__main__":
    main()
