"""Whole-array reductions in kernels (np.sum(row), row.max(), np.var(row))
side by side with the same loops written by hand: one thread per row of a
(rows, cols) float32 matrix, contiguous rows and strided ones (every second
column), best of N launches each, and the ratio reduction / hand loop (1.0:
the registry's loops cost what the user's own loops, the same passes, cost).  Every variant is
checked first (the hand loops are the same left-to-right folds, so the
values are equal).

    PYTHONPATH=. python3 benchmarks/reductions.py [--repeat 20] [--rows 65536] [--cols 256]
    PYTHONPATH=. PYCUDA_JIT_BACKEND=cpu python3 benchmarks/reductions.py --smoke

On the CPU executor --smoke only checks that both variants compile and
agree (its timings, on a shared machine, mean little); the ratio is the
GPU's.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402

from pycuda_jit import cuda  # noqa: E402
from _timing import best_seconds  # noqa: E402


@cuda.jit
def numpy_forms(a, step, out):
    i = cuda.grid(1)
    if i < a.shape[0]:
        r = a[i, ::step]
        out[i, 0] = np.sum(r)
        out[i, 1] = r.max()
        out[i, 2] = np.var(r)


@cuda.jit
def hand_loops(a, step, out):
    # The same passes as the reductions: sum; max; var's mean and squares.
    i = cuda.grid(1)
    if i < a.shape[0]:
        r = a[i, ::step]
        n = r.shape[0]
        s = np.float32(0)
        for k in range(n):
            s += r[k]
        m = r[0]
        for k in range(n):
            v = r[k]
            if not (m > v or m != m):
                m = v
        t = np.float32(0)
        for k in range(n):
            t += r[k]
        mean = t / np.float32(n)
        q = np.float32(0)
        for k in range(n):
            d = r[k] - mean
            q += d * d
        out[i, 0] = s
        out[i, 1] = m
        out[i, 2] = q / np.float32(n)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--rows", type=int, default=1 << 16)
    ap.add_argument("--cols", type=int, default=256)
    ap.add_argument("--smoke", action="store_true", help="tiny size, 2 repeats")
    a = ap.parse_args()
    rows, cols = (256, 32) if a.smoke else (a.rows, a.cols)
    repeat = 2 if a.smoke else a.repeat
    gpu = cuda.backend() == "cuda"
    x = np.random.default_rng(0).standard_normal((rows, cols)).astype(np.float32)
    d_x = cuda.to_device(x)
    threads = 128
    blocks = (rows + threads - 1) // threads
    print(f"backend {cuda.backend()}, {rows} rows x {cols} float32, one thread per row")
    print(f"{'view':>10} {'np forms s':>12} {'hand s':>12} {'ratio':>7}")
    for step, label in ((1, "contiguous"), (2, "strided")):
        outs = []
        times = []
        for kern in (numpy_forms, hand_loops):
            out = cuda.to_device(np.full((rows, 3), np.nan, np.float32))
            kern[blocks, threads](d_x, step, out)
            outs.append(out.copy_to_host())
            times.append(best_seconds(kern, blocks, threads, (d_x, step, out), repeat, gpu))
        # fmad=True may fuse the hand loop's d * d into its sum: var within
        # the error bound of a sum of n terms, the rest equal.
        np.testing.assert_array_equal(outs[0][:, :2], outs[1][:, :2])
        n = (cols + step - 1) // step
        np.testing.assert_allclose(outs[0][:, 2], outs[1][:, 2],
                                   rtol=2 * n * np.finfo(np.float32).eps)
        np.testing.assert_array_equal(outs[0][:, 1], x[:, ::step].max(axis=1))
        print(f"{label:>10} {times[0]:12.6f} {times[1]:12.6f} {times[0] / times[1]:7.2f}")


if __name__ == "__main__":
    main()
