"""Laplace's equation on a square plate by Jacobi iteration.

The plate's top edge is held at 1, the other three edges at 0.  Every
iteration replaces each interior point by the mean of its four neighbours,
reading one grid and writing the other; after enough sweeps the grid
approaches the harmonic function with those boundary values.

Each block first copies its tile of the grid, plus a one-point halo, into
shared memory, waits at a barrier, and computes its points from the tile, so
every grid value is read from global memory about once per block instead of
four times.  A second kernel does the same sweep without shared memory, and
the two must agree.  The result is compared with the same iteration in
NumPy.  Without a GPU the kernels run on the CPU executor.

    python examples/laplace.py [n] [iterations]
"""
import sys

import numpy as np

from pycuda_jit import cuda, float64

TILE = 16  # threads per block in each direction


@cuda.jit
def jacobi_shared(src, dst):
    tile = cuda.shared.array((TILE + 2, TILE + 2), dtype=float64)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    i, j = cuda.grid(2)  # i: row, j: column
    n, m = src.shape
    # The tile holds rows i-1..i+TILE, columns j-1..j+TILE of the grid.
    if i < n and j < m:
        tile[tx + 1, ty + 1] = src[i, j]
        if tx == 0 and i > 0:
            tile[0, ty + 1] = src[i - 1, j]
        if tx == TILE - 1 and i + 1 < n:
            tile[TILE + 1, ty + 1] = src[i + 1, j]
        if ty == 0 and j > 0:
            tile[tx + 1, 0] = src[i, j - 1]
        if ty == TILE - 1 and j + 1 < m:
            tile[tx + 1, TILE + 1] = src[i, j + 1]
    cuda.syncthreads()
    if i < n and j < m:
        if 0 < i < n - 1 and 0 < j < m - 1:
            # An interior point's neighbours are in the tile: a thread of
            # this block loaded them, or an edge thread loaded the halo (in
            # a partial block the last row/column is the grid's boundary).
            dst[i, j] = 0.25 * (tile[tx, ty + 1] + tile[tx + 2, ty + 1]
                                + tile[tx + 1, ty] + tile[tx + 1, ty + 2])
        else:
            dst[i, j] = tile[tx + 1, ty + 1]


@cuda.jit
def jacobi_global(src, dst):
    i, j = cuda.grid(2)
    n, m = src.shape
    if i < n and j < m:
        if 0 < i < n - 1 and 0 < j < m - 1:
            dst[i, j] = 0.25 * (src[i - 1, j] + src[i + 1, j]
                                + src[i, j - 1] + src[i, j + 1])
        else:
            dst[i, j] = src[i, j]


def initial_grid(n):
    grid = np.zeros((n, n), dtype=np.float64)
    grid[0, :] = 1.0
    return grid


def solve(kernel, n, iterations):
    """Runs `iterations` Jacobi sweeps of `kernel` on the GPU (or the CPU
    executor); returns the final grid."""
    a = cuda.to_device(initial_grid(n))
    b = cuda.to_device(initial_grid(n))
    blocks = ((n + TILE - 1) // TILE, (n + TILE - 1) // TILE)
    for _ in range(iterations):
        kernel[blocks, (TILE, TILE)](a, b)
        a, b = b, a
    return a.copy_to_host()


def solve_numpy(n, iterations):
    a = initial_grid(n)
    for _ in range(iterations):
        b = a.copy()
        b[1:-1, 1:-1] = 0.25 * (a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:])
        a = b
    return a


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 45
    iterations = int(sys.argv[2]) if len(sys.argv) > 2 else 60
    expected = solve_numpy(n, iterations)
    for kernel in (jacobi_shared, jacobi_global):
        got = solve(kernel, n, iterations)
        err = float(np.max(np.abs(got - expected)))
        name = kernel.py_func.__name__
        print(f"{name}: {n}x{n} grid, {iterations} sweeps, max |GPU - NumPy| = {err:.2e}")
        if not np.allclose(got, expected, rtol=1e-12, atol=1e-12):
            print(f"{name}: MISMATCH")
            return 1
    centre = expected[n // 2, n // 2]
    print(f"value at the centre after {iterations} sweeps: {centre:.6f} "
          "(the steady state there is 0.25)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
