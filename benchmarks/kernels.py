"""The benchmark kernels: ONE Python source, compiled by two compilers.

benchmarks/run.py executes this file twice, each time with a different
``cuda`` already in the module namespace: ``pycuda_jit.cuda`` and
``numba.cuda``.  Every name a kernel uses (cuda.grid, cuda.shared.array,
cuda.atomic.add, cuda.shfl_xor_sync, math.exp, ...) exists under both, so the
source is literally the same.  Imported on its own, the file binds
``pycuda_jit.cuda``.  The CUDA C++ twins are in cuda/kernels.cu, line for
line the same algorithms.

Typing: the kernels keep float32 arithmetic float32 under both compilers by
casting constants (``float32(0.5)``) or passing them as float32 arguments;
that makes the comparison one of code generation, not of literal typing.
The one deliberate exception is ``fma_loop``: its literals are plain Python
floats, which pycuda_jit keeps float32 (NEP 50 weak scalars) and numba-cuda
promotes to float64 -- measuring what that costs is the point of that kernel.
"""
import math

import numpy as np

if "cuda" not in globals():          # imported directly rather than exec'd by run.py
    from pycuda_jit import cuda      # noqa: F401

float32 = np.float32
int32 = np.int32

FULL_MASK = 0xFFFFFFFF
SGEMM_TILE = 32          # sgemm: 32x32 output tile per block, blockDim (32, 32)
NBODY_TILE = 256         # nbody: bodies per shared-memory tile == blockDim.x
SOFTMAX_SMALL_COLS = 128  # softmax_small: rows of exactly 4 x 32 values, a warp per row
NBINS = 256              # histogram bins (uint8 data)

# Black-Scholes: the cumulative normal distribution polynomial (Abramowitz &
# Stegun 26.2.17, as in the CUDA samples).
CND_A1 = float32(0.31938153)
CND_A2 = float32(-0.356563782)
CND_A3 = float32(1.781477937)
CND_A4 = float32(-1.821255978)
CND_A5 = float32(1.330274429)
CND_K = float32(0.2316419)
RSQRT2PI = float32(0.39894228040143267793994605993438)


# ---- memory bound: triad -----------------------------------------------------------

@cuda.jit
def triad(a, b, c, s):
    """a = b + s * c, one element per thread."""
    i = cuda.grid(1)
    if i < a.size:
        a[i] = b[i] + s * c[i]


@cuda.jit
def triad_gs(a, b, c, s):
    """a = b + s * c, grid-stride loop."""
    for i in range(cuda.grid(1), a.size, cuda.gridsize(1)):
        a[i] = b[i] + s * c[i]


# ---- warp and block reductions (device functions) -------------------------------------

@cuda.jit(device=True)
def warp_sum_down(v):
    """Sum over the warp; lane 0 holds the result."""
    off = 16
    while off > 0:
        v += cuda.shfl_down_sync(FULL_MASK, v, off)
        off //= 2
    return v


@cuda.jit(device=True)
def warp_max_all(v):
    """Max over the warp (butterfly): every lane gets the result."""
    off = 16
    while off > 0:
        v = max(v, cuda.shfl_xor_sync(FULL_MASK, v, off))
        off //= 2
    return v


@cuda.jit(device=True)
def warp_sum_all(v):
    """Sum over the warp (butterfly): every lane gets the result."""
    off = 16
    while off > 0:
        v += cuda.shfl_xor_sync(FULL_MASK, v, off)
        off //= 2
    return v


@cuda.jit(device=True)
def block_max(v, red):
    """Max over the block, returned to every thread; ``red`` is a shared
    float32[32] scratch array (one slot per warp)."""
    lane = cuda.threadIdx.x % 32
    warp = cuda.threadIdx.x // 32
    v = warp_max_all(v)
    if lane == 0:
        red[warp] = v
    cuda.syncthreads()
    if lane < cuda.blockDim.x // 32:
        v = red[lane]
    else:
        v = float32(-math.inf)
    v = warp_max_all(v)
    cuda.syncthreads()              # red is reused by the next reduction
    return v


@cuda.jit(device=True)
def block_sum(v, red):
    """Sum over the block, returned to every thread (see block_max)."""
    lane = cuda.threadIdx.x % 32
    warp = cuda.threadIdx.x // 32
    v = warp_sum_all(v)
    if lane == 0:
        red[warp] = v
    cuda.syncthreads()
    if lane < cuda.blockDim.x // 32:
        v = red[lane]
    else:
        v = float32(0.0)
    v = warp_sum_all(v)
    cuda.syncthreads()
    return v


# ---- block reduction: shared memory + warp shuffles + one atomic per block ---------------

@cuda.jit
def reduce_sum(x, out):
    """out[0] += sum(x): grid-stride partial sums, shuffle reduction per warp,
    per-warp partials in shared memory, the first warp reduces them, and one
    atomic per block."""
    partial = cuda.shared.array(32, float32)
    tid = cuda.threadIdx.x
    lane = tid % 32
    warp = tid // 32
    acc = float32(0.0)
    for i in range(cuda.grid(1), x.size, cuda.gridsize(1)):
        acc += x[i]
    acc = warp_sum_down(acc)
    if lane == 0:
        partial[warp] = acc
    cuda.syncthreads()
    if warp == 0:
        if lane < cuda.blockDim.x // 32:
            acc = partial[lane]
        else:
            acc = float32(0.0)
        acc = warp_sum_down(acc)
        if lane == 0:
            cuda.atomic.add(out, 0, acc)


# ---- tiled SGEMM ----------------------------------------------------------------------

@cuda.jit
def sgemm(A, B, C):
    """C = A @ B (float32), 32x32 shared-memory tiles, one output per thread;
    blockDim (32, 32), x along the columns."""
    sA = cuda.shared.array((SGEMM_TILE, SGEMM_TILE), float32)
    sB = cuda.shared.array((SGEMM_TILE, SGEMM_TILE), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    col = cuda.blockIdx.x * SGEMM_TILE + tx
    row = cuda.blockIdx.y * SGEMM_TILE + ty
    M = A.shape[0]
    K = A.shape[1]
    N = B.shape[1]
    acc = float32(0.0)
    for t in range((K + SGEMM_TILE - 1) // SGEMM_TILE):
        k0 = t * SGEMM_TILE
        if row < M and k0 + tx < K:
            sA[ty, tx] = A[row, k0 + tx]
        else:
            sA[ty, tx] = float32(0.0)
        if k0 + ty < K and col < N:
            sB[ty, tx] = B[k0 + ty, col]
        else:
            sB[ty, tx] = float32(0.0)
        cuda.syncthreads()
        for k in range(SGEMM_TILE):
            acc += sA[ty, k] * sB[k, tx]
        cuda.syncthreads()
    if row < M and col < N:
        C[row, col] = acc


# ---- 2-D 5-point stencil -------------------------------------------------------------------

@cuda.jit
def stencil5(u, out, c0, c1):
    """out = c0*u + c1*(sum of the 4 neighbours) inside, out = u on the border;
    cuda.grid(2) x along the columns."""
    j, i = cuda.grid(2)
    ny = u.shape[0]
    nx = u.shape[1]
    if i < ny and j < nx:
        if i == 0 or j == 0 or i == ny - 1 or j == nx - 1:
            out[i, j] = u[i, j]
        else:
            out[i, j] = c0 * u[i, j] + c1 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1])


# ---- tiled n-body ----------------------------------------------------------------------------

@cuda.jit
def nbody(pos, acc, eps2):
    """Gravitational accelerations, all pairs: pos (N, 4) = x, y, z, mass;
    acc (N, 4) = ax, ay, az, 0.  Positions go through shared memory in tiles
    of NBODY_TILE bodies; needs blockDim.x == NBODY_TILE and N % NBODY_TILE == 0."""
    sx = cuda.shared.array(NBODY_TILE, float32)
    sy = cuda.shared.array(NBODY_TILE, float32)
    sz = cuda.shared.array(NBODY_TILE, float32)
    sm = cuda.shared.array(NBODY_TILE, float32)
    i = cuda.grid(1)
    tid = cuda.threadIdx.x
    n = pos.shape[0]
    xi = pos[i, 0]
    yi = pos[i, 1]
    zi = pos[i, 2]
    ax = float32(0.0)
    ay = float32(0.0)
    az = float32(0.0)
    for tile in range(n // NBODY_TILE):
        j = tile * NBODY_TILE + tid
        sx[tid] = pos[j, 0]
        sy[tid] = pos[j, 1]
        sz[tid] = pos[j, 2]
        sm[tid] = pos[j, 3]
        cuda.syncthreads()
        for k in range(NBODY_TILE):
            dx = sx[k] - xi
            dy = sy[k] - yi
            dz = sz[k] - zi
            r2 = dx * dx + dy * dy + dz * dz + eps2
            inv = float32(1.0) / math.sqrt(r2)
            s = sm[k] * inv * inv * inv
            ax += s * dx
            ay += s * dy
            az += s * dz
        cuda.syncthreads()
    acc[i, 0] = ax
    acc[i, 1] = ay
    acc[i, 2] = az
    acc[i, 3] = float32(0.0)


# ---- Black-Scholes (float32) -------------------------------------------------------------------

@cuda.jit(device=True)
def cnd(d):
    """Cumulative normal distribution, polynomial approximation."""
    k = float32(1.0) / (float32(1.0) + CND_K * abs(d))
    c = RSQRT2PI * math.exp(float32(-0.5) * d * d) * \
        (k * (CND_A1 + k * (CND_A2 + k * (CND_A3 + k * (CND_A4 + k * CND_A5)))))
    if d > float32(0.0):
        c = float32(1.0) - c
    return c


@cuda.jit
def black_scholes(call, put, S, X, T, R, V):
    """European call and put prices; R (riskless rate) and V (volatility)
    are float32 scalars."""
    i = cuda.grid(1)
    if i < S.size:
        s = S[i]
        x = X[i]
        t = T[i]
        sqrt_t = math.sqrt(t)
        d1 = (math.log(s / x) + (R + float32(0.5) * V * V) * t) / (V * sqrt_t)
        d2 = d1 - V * sqrt_t
        cnd1 = cnd(d1)
        cnd2 = cnd(d2)
        e = math.exp(-R * t)
        call[i] = s * cnd1 - x * e * cnd2
        put[i] = x * e * (float32(1.0) - cnd2) - s * (float32(1.0) - cnd1)


# ---- row softmax ----------------------------------------------------------------------------------

@cuda.jit
def softmax_small(x, out):
    """Softmax of each row of 128 values: one warp per row, 4 values per
    lane, butterfly shuffles for the max and the sum."""
    lane = cuda.threadIdx.x % 32
    row = cuda.grid(1) // 32
    if row < x.shape[0]:            # uniform over the warp
        v0 = x[row, lane]
        v1 = x[row, lane + 32]
        v2 = x[row, lane + 64]
        v3 = x[row, lane + 96]
        m = warp_max_all(max(max(v0, v1), max(v2, v3)))
        e0 = math.exp(v0 - m)
        e1 = math.exp(v1 - m)
        e2 = math.exp(v2 - m)
        e3 = math.exp(v3 - m)
        inv = float32(1.0) / warp_sum_all(e0 + e1 + e2 + e3)
        out[row, lane] = e0 * inv
        out[row, lane + 32] = e1 * inv
        out[row, lane + 64] = e2 * inv
        out[row, lane + 96] = e3 * inv


@cuda.jit
def softmax_large(x, out):
    """Softmax of each (long) row: one block per row; block reductions
    (shuffles + shared memory) for the max and the sum."""
    red = cuda.shared.array(32, float32)
    row = cuda.blockIdx.x
    tid = cuda.threadIdx.x
    nt = cuda.blockDim.x
    n = x.shape[1]
    m = float32(-math.inf)
    for j in range(tid, n, nt):
        m = max(m, x[row, j])
    m = block_max(m, red)
    s = float32(0.0)
    for j in range(tid, n, nt):
        s += math.exp(x[row, j] - m)
    inv = float32(1.0) / block_sum(s, red)
    for j in range(tid, n, nt):
        out[row, j] = math.exp(x[row, j] - m) * inv


# ---- histogram with shared-memory atomics -----------------------------------------------------------

@cuda.jit
def histogram(data, hist):
    """hist[v] += count of v in data (uint8): a block-private histogram in
    shared memory (atomics), merged into hist with one atomic per bin."""
    sh = cuda.shared.array(NBINS, int32)
    tid = cuda.threadIdx.x
    for b in range(tid, NBINS, cuda.blockDim.x):
        sh[b] = 0
    cuda.syncthreads()
    for i in range(cuda.grid(1), data.size, cuda.gridsize(1)):
        cuda.atomic.add(sh, data[i], 1)
    cuda.syncthreads()
    for b in range(tid, NBINS, cuda.blockDim.x):
        cuda.atomic.add(hist, b, sh[b])


# ---- Mandelbrot (complex128) ----------------------------------------------------------------------

@cuda.jit
def mandelbrot(out, x0, y0, dx, dy, maxit):
    """Escape-time iteration counts, complex128 arithmetic and abs();
    cuda.grid(2) x along the columns."""
    j, i = cuda.grid(2)
    if i < out.shape[0] and j < out.shape[1]:
        c = (x0 + j * dx) + (y0 + i * dy) * 1j
        z = 0j
        n = 0
        while n < maxit and abs(z) <= 2.0:
            z = z * z + c
            n += 1
        out[i, j] = n


# ---- dense FP32 FMA loop (compute bound) -------------------------------------------------------------

@cuda.jit
def fma_loop(x, out, iters):
    """8 independent multiply-add chains per thread.  The literals are plain
    Python floats ON PURPOSE: float32 under pycuda_jit (NEP 50), float64
    under numba-cuda."""
    i = cuda.grid(1)
    if i < x.size:
        a0 = x[i]
        a1 = a0 + 0.125
        a2 = a0 + 0.25
        a3 = a0 + 0.375
        a4 = a0 + 0.5
        a5 = a0 + 0.625
        a6 = a0 + 0.75
        a7 = a0 + 0.875
        for _ in range(iters):
            a0 = a0 * 0.9999 + 0.0001
            a1 = a1 * 0.9999 + 0.0002
            a2 = a2 * 0.9999 + 0.0003
            a3 = a3 * 0.9999 + 0.0004
            a4 = a4 * 0.9999 + 0.0005
            a5 = a5 * 0.9999 + 0.0006
            a6 = a6 * 0.9999 + 0.0007
            a7 = a7 * 0.9999 + 0.0008
        out[i] = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7
