"""What an array made in a kernel costs: a per-thread scratch array of n
float32 filled and summed, as np.empty(n) on the device heap (malloc/free
per thread) side by side with cuda.local.array(n) (the stack), best of N
launches each (CUDA events on the GPU), and the ratio heap / local.  Both
variants are checked against NumPy first.

    PYTHONPATH=. python3 benchmarks/kernel_alloc.py [--repeat 20] [--threads 262144]
    PYTHONPATH=. PYCUDA_JIT_BACKEND=cpu python3 benchmarks/kernel_alloc.py --smoke

The whole grid's arrays must fit the heap at once (8 MiB by default): the
script sets cuda.set_malloc_heap_size to fit them before the first launch.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402

from pycuda_jit import cuda  # noqa: E402
from _timing import best_seconds  # noqa: E402

N = 32  # elements per thread (a compile-time constant for cuda.local.array)


@cuda.jit
def scratch_heap(x, out):
    i = cuda.grid(1)
    if i < out.size:
        t = np.empty(N, np.float32)
        for k in range(N):
            t[k] = x[i] * k
        s = np.float32(0)
        for k in range(N):
            s += t[N - 1 - k]
        out[i] = s


@cuda.jit
def scratch_local(x, out):
    i = cuda.grid(1)
    if i < out.size:
        t = cuda.local.array(N, np.float32)
        for k in range(N):
            t[k] = x[i] * k
        s = np.float32(0)
        for k in range(N):
            s += t[N - 1 - k]
        out[i] = s


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--threads", type=int, default=1 << 18)
    ap.add_argument("--smoke", action="store_true", help="1024 threads, 2 repeats")
    a = ap.parse_args()
    n = 1024 if a.smoke else a.threads
    repeat = 2 if a.smoke else a.repeat
    gpu = cuda.backend() == "cuda"
    # Every thread's block (its data and malloc's bookkeeping) at once.
    cuda.set_malloc_heap_size(max(8 << 20, 4 * n * (4 * N + 64)))
    rng = np.random.default_rng(0)
    x = rng.standard_normal(n).astype(np.float32)
    want = x * np.float32(np.arange(N).sum())
    d_x = cuda.to_device(x)
    d_out = cuda.device_array(n, np.float32)
    times = {}
    for name, kernel in [("heap", scratch_heap), ("local", scratch_local)]:
        kernel[(n + 255) // 256, 256](d_x, d_out)
        np.testing.assert_allclose(d_out.copy_to_host(), want, rtol=1e-5)
        times[name] = best_seconds(kernel, (n + 255) // 256, 256, (d_x, d_out), repeat, gpu)
        print(f"{name:6s} {times[name] * 1e6:10.1f} us  ({n} threads, {N} float32 each)")
    print(f"ratio heap / local: {times['heap'] / times['local']:.2f}")


if __name__ == "__main__":
    main()
