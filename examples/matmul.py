"""Matrix multiplication C = A @ B with shared-memory tiles.

Each block computes a TILE x TILE block of C.  It walks along the shared
dimension in steps of TILE: the block's threads copy one tile of A and one
of B into shared memory (one element each), wait at a barrier, accumulate
the products of the two tiles, and wait again before the next tiles
overwrite them.  Every element of A and B is then read from global memory
n / TILE times instead of n times.  Sizes that are not multiples of TILE
are handled by padding the tiles with zeros.  The result is compared with
NumPy's A @ B.  Without a GPU the kernel runs on the CPU executor.

    python examples/matmul.py [n] [k] [m]
"""
import sys

import numpy as np

from pycuda_jit import cuda, float32

TILE = 16


@cuda.jit
def matmul_tiled(a, b, c):
    sa = cuda.shared.array((TILE, TILE), dtype=float32)
    sb = cuda.shared.array((TILE, TILE), dtype=float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    row, col = cuda.grid(2)
    n, k = a.shape
    m = b.shape[1]
    acc = float32(0.0)
    for t in range((k + TILE - 1) // TILE):
        # Row `row` of A and column `col` of B, the t-th tile of each.
        ka = t * TILE + ty
        kb = t * TILE + tx
        sa[tx, ty] = a[row, ka] if row < n and ka < k else float32(0.0)
        sb[tx, ty] = b[kb, col] if kb < k and col < m else float32(0.0)
        cuda.syncthreads()
        for q in range(TILE):
            acc += sa[tx, q] * sb[q, ty]
        cuda.syncthreads()
    if row < n and col < m:
        c[row, col] = acc


def matmul(a, b):
    n, m = a.shape[0], b.shape[1]
    c = cuda.device_array((n, m), dtype=np.float32)
    blocks = ((n + TILE - 1) // TILE, (m + TILE - 1) // TILE)
    matmul_tiled[blocks, (TILE, TILE)](cuda.to_device(a), cuda.to_device(b), c)
    return c.copy_to_host()


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 70
    k = int(sys.argv[2]) if len(sys.argv) > 2 else 45
    m = int(sys.argv[3]) if len(sys.argv) > 3 else 33
    rng = np.random.default_rng(7)
    a = rng.standard_normal((n, k)).astype(np.float32)
    b = rng.standard_normal((k, m)).astype(np.float32)
    got = matmul(a, b)
    expected = a.astype(np.float64) @ b.astype(np.float64)
    err = float(np.max(np.abs(got - expected)))
    print(f"({n}x{k}) @ ({k}x{m}): max |GPU - NumPy| = {err:.2e}")
    # float32 sums of k products: the error grows like sqrt(k) * eps * |terms|.
    if not np.allclose(got, expected, rtol=1e-4, atol=1e-4 * np.sqrt(k)):
        print("MISMATCH")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
