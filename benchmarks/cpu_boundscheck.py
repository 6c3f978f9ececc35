"""What the CPU executor's default bounds checks cost: a few kernels run on
the CPU executor with checks (the default) and with ``boundscheck=False``,
best of N launches each, and the ratio checked / unchecked.

  - triad:   a = b + s * c, grid-stride loop (memory bound);
  - stencil: 2-D 5-point stencil, one output per thread;
  - matmul:  C = A @ B, one output per thread, k-loop over global memory;
  - sgemm:   tiled SGEMM through shared memory with syncthreads (fibers).

    PYTHONPATH=. python3 benchmarks/cpu_boundscheck.py [--repeat 5] [--scale 1]

Results are checked against NumPy before timing.  Machine-dependent: quote
the machine with the figures (benchmarks/README.md has the last run).
"""
import argparse
import os
import sys
import time

os.environ.setdefault("PYCUDA_JIT_BACKEND", "cpu")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402

from pycuda_jit import cuda  # noqa: E402

TILE = 16


def triad(a, b, c, s):
    for i in range(cuda.grid(1), a.size, cuda.gridsize(1)):
        a[i] = b[i] + s * c[i]


def stencil(a, out):
    i, j = cuda.grid(2)
    n, m = a.shape
    if 0 < i < n - 1 and 0 < j < m - 1:
        out[i, j] = np.float32(0.2) * (a[i, j] + a[i - 1, j] + a[i + 1, j]
                                       + a[i, j - 1] + a[i, j + 1])


def matmul(a, b, c):
    i, j = cuda.grid(2)
    if i < c.shape[0] and j < c.shape[1]:
        acc = np.float32(0.0)
        for k in range(a.shape[1]):
            acc += a[i, k] * b[k, j]
        c[i, j] = acc


def sgemm(a, b, c):
    sa = cuda.shared.array((TILE, TILE), np.float32)
    sb = cuda.shared.array((TILE, TILE), np.float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    row = cuda.blockIdx.y * TILE + ty
    col = cuda.blockIdx.x * TILE + tx
    acc = np.float32(0.0)
    for t in range(a.shape[1] // TILE):
        sa[ty, tx] = a[row, t * TILE + tx]
        sb[ty, tx] = b[t * TILE + ty, col]
        cuda.syncthreads()
        for k in range(TILE):
            acc += sa[ty, k] * sb[k, tx]
        cuda.syncthreads()
    c[row, col] = acc


def cases(scale, rng):
    n = 1 << 22
    b, c = (rng.random(n * scale, dtype=np.float32) for _ in range(2))
    a = np.empty_like(b)
    yield ("triad", triad, (64, 256), (a, b, c, np.float32(3)),
           lambda: np.testing.assert_allclose(a, b + 3 * c, rtol=1e-6))
    m = 1024 * scale
    g = rng.random((m, m), dtype=np.float32)
    out = np.zeros_like(g)

    def stencil_ok():
        ref = np.float32(0.2) * (g[1:-1, 1:-1] + g[:-2, 1:-1] + g[2:, 1:-1]
                                 + g[1:-1, :-2] + g[1:-1, 2:])
        np.testing.assert_allclose(out[1:-1, 1:-1], ref, rtol=1e-5)
    yield ("stencil", stencil, ((m // 16, m // 16), (16, 16)), (g, out), stencil_ok)
    k = 256 * scale
    ma, mb = rng.random((k, k), dtype=np.float32), rng.random((k, k), dtype=np.float32)
    mc = np.zeros((k, k), np.float32)
    yield ("matmul", matmul, ((k // 16, k // 16), (16, 16)), (ma, mb, mc),
           lambda: np.testing.assert_allclose(mc, ma @ mb, rtol=1e-4))
    sc = np.zeros((k, k), np.float32)
    yield ("sgemm", sgemm, ((k // TILE, k // TILE), (TILE, TILE)), (ma, mb, sc),
           lambda: np.testing.assert_allclose(sc, ma @ mb, rtol=1e-4))


def best_of(kernel, config, args, repeat):
    grid, block = config
    kernel[grid, block](*args)  # compile and warm up
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        kernel[grid, block](*args)
        times.append(time.perf_counter() - t0)
    return min(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--scale", type=int, default=1)
    opts = ap.parse_args()
    if cuda.backend() != "cpu":
        sys.exit("run with PYCUDA_JIT_BACKEND=cpu")
    rng = np.random.default_rng(1)
    print(f"CPU executor, {os.cpu_count()} CPUs, best of {opts.repeat}")
    print(f"{'kernel':8} {'checked ms':>11} {'unchecked ms':>13} {'ratio':>6}")
    ratios = []
    for name, fn, config, args, check in cases(opts.scale, rng):
        checked = cuda.jit(fn)
        unchecked = cuda.jit(boundscheck=False)(fn)
        unchecked[config](*args)
        check()
        checked[config](*args)
        check()
        t_on = best_of(checked, config, args, opts.repeat)
        t_off = best_of(unchecked, config, args, opts.repeat)
        ratios.append(t_on / t_off)
        print(f"{name:8} {t_on * 1e3:11.2f} {t_off * 1e3:13.2f} {t_on / t_off:6.2f}")
    print(f"geometric mean ratio {np.exp(np.mean(np.log(ratios))):.3f}")


if __name__ == "__main__":
    main()
