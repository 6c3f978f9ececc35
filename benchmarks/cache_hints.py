"""What the cache-hinted loads and stores do to a memory-bound kernel on the
GPU: a streaming scale (out[i] = s * x[i], grid-stride loop) with plain
accesses, with streaming hints (cuda.ldcs / cuda.stcs) and with L2-only
hints (cuda.ldcg / cuda.stcg), best of N launches each (CUDA events), and
the bandwidth ratio hinted / plain.  The hints change caching, not values:
every variant is checked against NumPy first.

    PYTHONPATH=. python3 benchmarks/cache_hints.py [--repeat 20] [--mib 1024]
    PYTHONPATH=. PYCUDA_JIT_BACKEND=cpu python3 benchmarks/cache_hints.py --smoke

On the CPU executor the hints are plain accesses: --smoke only checks that
every variant compiles and is right (its timings mean nothing).
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402

from pycuda_jit import cuda  # noqa: E402
from _timing import best_seconds  # noqa: E402


@cuda.jit
def scale_plain(out, x, s):
    for i in range(cuda.grid(1), x.size, cuda.gridsize(1)):
        out[i] = s * x[i]


@cuda.jit
def scale_streaming(out, x, s):
    for i in range(cuda.grid(1), x.size, cuda.gridsize(1)):
        cuda.stcs(out, i, s * cuda.ldcs(x, i))


@cuda.jit
def scale_l2_only(out, x, s):
    for i in range(cuda.grid(1), x.size, cuda.gridsize(1)):
        cuda.stcg(out, i, s * cuda.ldcg(x, i))


VARIANTS = [("plain", scale_plain), ("ldcs/stcs", scale_streaming),
            ("ldcg/stcg", scale_l2_only)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--mib", type=int, default=1024, help="size of x in MiB (float32)")
    ap.add_argument("--smoke", action="store_true", help="tiny size, 2 repeats")
    a = ap.parse_args()
    n = 1 << 16 if a.smoke else a.mib * (1 << 20) // 4
    repeat = 2 if a.smoke else a.repeat
    gpu = cuda.backend() == "cuda"
    rng = np.random.default_rng(0)
    x_host = rng.standard_normal(n).astype(np.float32)
    s = np.float32(1.5)
    want = s * x_host
    x = cuda.to_device(x_host)
    out = cuda.device_array(n, np.float32)
    threads = 256
    blocks = 132 * 8 if gpu else 4
    print(f"# {n * 4 / 2**20:.2f} MiB float32 in, same out; {'GPU' if gpu else 'CPU executor'}; best of {repeat}")
    print(f"{'variant':<12}{'ms':>10}{'GB/s':>10}{'vs plain':>10}")
    plain = None
    for name, kernel in VARIANTS:
        out.copy_to_device(np.full(n, np.nan, np.float32))
        kernel[blocks, threads](out, x, s)
        np.testing.assert_array_equal(out.copy_to_host(), want)
        t = best_seconds(kernel, blocks, threads, (out, x, s), repeat, gpu)
        plain = plain or t
        print(f"{name:<12}{t * 1e3:>10.3f}{2 * n * 4 / t / 1e9:>10.1f}{plain / t:>10.2f}")


if __name__ == "__main__":
    main()
