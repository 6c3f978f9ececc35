"""The sanitizer corpus: uninitialized reads, bounds and use after free (see corpus.py)."""
import numpy as np

from pycuda_jit import cuda
from corpus_lib import TILE, f32, case, launch, allclose, poisoned

# =============================================================================
# Uninitialized reads
# =============================================================================

def partial_bug(x, out):
    sm = cuda.shared.array(64, f32)
    t = cuda.threadIdx.x
    if t < 32:
        sm[t] = x[t]
    cuda.syncthreads()
    out[t] = sm[63 - t]  # !init


def partial_fix(x, out):
    sm = cuda.shared.array(64, f32)
    t = cuda.threadIdx.x
    sm[t] = x[t]
    cuda.syncthreads()
    out[t] = sm[63 - t]


@case("init_shared_partially_filled", "init", partial_bug, partial_fix,
      "reading shared memory only half of the block filled")
def _(rng, fixed):
    x = rng.random(64, dtype=f32)
    out = poisoned(64)
    return launch(1, 64, (x, out), check=allclose(out, x[::-1]))


def tail_bug(x, out):
    sm = cuda.shared.array(128, f32)
    t = cuda.threadIdx.x
    sm[t] = x[cuda.grid(1)]
    cuda.syncthreads()
    s = 64
    while s > 0:
        if t < s:
            sm[t] += sm[t + s]  # !init
        cuda.syncthreads()
        s //= 2
    if t == 0:
        out[cuda.blockIdx.x] = sm[0]


def tail_fix(x, out):
    sm = cuda.shared.array(128, f32)
    t = cuda.threadIdx.x
    sm[t] = x[cuda.grid(1)]
    if t < 128 - cuda.blockDim.x:
        sm[t + cuda.blockDim.x] = f32(0)
    cuda.syncthreads()
    s = 64
    while s > 0:
        if t < s:
            sm[t] += sm[t + s]
        cuda.syncthreads()
        s //= 2
    if t == 0:
        out[cuda.blockIdx.x] = sm[0]


@case("init_reduction_non_power_of_two_block", "init", tail_bug, tail_fix,
      "a 96-thread block reducing 128 slots of which 32 were never written")
def _(rng, fixed):
    x = rng.random(2 * 96, dtype=f32)
    out = poisoned(2)
    return launch(2, 96, (x, out), check=allclose(out, x.reshape(2, 96).sum(1), rtol=1e-5))


def localtail_bug(x, out):
    i = cuda.grid(1)
    buf = cuda.local.array(8, f32)
    for k in range(7):
        buf[k] = x[i * 8 + k]
    s = f32(0)
    for k in range(8):
        s += buf[k]  # !init
    out[i] = s


def localtail_fix(x, out):
    i = cuda.grid(1)
    buf = cuda.local.array(8, f32)
    for k in range(8):
        buf[k] = x[i * 8 + k]
    s = f32(0)
    for k in range(8):
        s += buf[k]
    out[i] = s


@case("init_local_array_off_by_one", "init", localtail_bug, localtail_fix,
      "a local array filled with one element too few")
def _(rng, fixed):
    x = rng.random(64 * 8, dtype=f32)
    out = poisoned(64)
    return launch(2, 32, (x, out), check=allclose(out, x.reshape(64, 8).sum(1), rtol=1e-5))


def accumulate_bug(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] += x[i]  # !init


def accumulate_fix(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = x[i]


@case("init_device_array_accumulated", "init", accumulate_bug, accumulate_fix,
      "accumulating into a device_array nothing initialized")
def _(rng, fixed):
    x = rng.random(300, dtype=f32)
    out = cuda.device_array(300, f32)
    return launch(2, 256, (x, out), check=allclose(out.copy_to_host, x))


def prev_bug(x, state, out):
    i = cuda.grid(1)
    if i < x.size:
        prev = state[i]  # !init
        state[i] = x[i]
        out[i] = x[i] - prev


def prev_fix(x, state, out):
    i = cuda.grid(1)
    if i < x.size:
        prev = state[i]
        state[i] = x[i]
        out[i] = x[i] - prev


@case("init_device_array_state_never_set", "init", prev_bug, prev_fix,
      "reading last step's state from a device_array the host never filled")
def _(rng, fixed):
    x = rng.random(200, dtype=f32)
    if fixed:
        state = cuda.to_device(np.zeros(200, f32))  # the fix: start from zeros
    else:
        state = cuda.device_array(200, f32)
    out = poisoned(200)
    return launch(1, 256, (x, state, out), check=allclose(out, x))


def dyn_bug(x, out):
    dyn = cuda.shared.array(0, f32)
    t = cuda.threadIdx.x
    dyn[t] = x[t]
    cuda.syncthreads()
    out[t] = dyn[t] + dyn[t + cuda.blockDim.x]  # !init


def dyn_fix(x, out):
    dyn = cuda.shared.array(0, f32)
    t = cuda.threadIdx.x
    dyn[t] = x[t]
    dyn[t + cuda.blockDim.x] = x[t] * f32(2)
    cuda.syncthreads()
    out[t] = dyn[t] + dyn[t + cuda.blockDim.x]


@case("init_dynamic_shared_second_half", "init", dyn_bug, dyn_fix,
      "dynamic shared memory twice the block, only the first half written")
def _(rng, fixed):
    x = rng.random(64, dtype=f32)
    out = poisoned(64)
    return launch(1, 64, (x, out), shared=2 * 64 * 4, check=allclose(out, 3 * x))


def cond_bug(x, out):
    i = cuda.grid(1)
    tmp = cuda.local.array(2, f32)
    if x[i] > f32(0.5):
        tmp[0] = x[i]
        tmp[1] = -x[i] * f32(2)
    out[i] = tmp[0] + tmp[1]  # !init


def cond_fix(x, out):
    i = cuda.grid(1)
    tmp = cuda.local.array(2, f32)
    tmp[0] = f32(0)
    tmp[1] = f32(0)
    if x[i] > f32(0.5):
        tmp[0] = x[i]
        tmp[1] = -x[i] * f32(2)
    out[i] = tmp[0] + tmp[1]


@case("init_local_set_on_one_branch", "init", cond_bug, cond_fix,
      "a local array written on one branch only, read on both")
def _(rng, fixed):
    x = rng.random(64, dtype=f32)
    out = poisoned(64)
    return launch(2, 32, (x, out), check=allclose(out, np.where(x > 0.5, -x, 0)))


def edge_bug(a, b, c):
    sa = cuda.shared.array((TILE, TILE), f32)
    sb = cuda.shared.array((TILE, TILE), f32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    row = cuda.blockIdx.y * TILE + ty
    col = cuda.blockIdx.x * TILE + tx
    M, K = a.shape
    N = b.shape[1]
    acc = f32(0)
    for t in range((K + TILE - 1) // TILE):
        if row < M and t * TILE + tx < K:
            sa[ty, tx] = a[row, t * TILE + tx]
        if t * TILE + ty < K and col < N:
            sb[ty, tx] = b[t * TILE + ty, col]
        cuda.syncthreads()
        for k in range(TILE):
            acc += sa[ty, k] * sb[k, tx]  # !init
        cuda.syncthreads()
    if row < M and col < N:
        c[row, col] = acc


def edge_fix(a, b, c):
    sa = cuda.shared.array((TILE, TILE), f32)
    sb = cuda.shared.array((TILE, TILE), f32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    row = cuda.blockIdx.y * TILE + ty
    col = cuda.blockIdx.x * TILE + tx
    M, K = a.shape
    N = b.shape[1]
    acc = f32(0)
    for t in range((K + TILE - 1) // TILE):
        if row < M and t * TILE + tx < K:
            sa[ty, tx] = a[row, t * TILE + tx]
        else:
            sa[ty, tx] = f32(0)
        if t * TILE + ty < K and col < N:
            sb[ty, tx] = b[t * TILE + ty, col]
        else:
            sb[ty, tx] = f32(0)
        cuda.syncthreads()
        for k in range(TILE):
            acc += sa[ty, k] * sb[k, tx]
        cuda.syncthreads()
    if row < M and col < N:
        c[row, col] = acc


@case("init_tile_edges_not_zero_filled", "init", edge_bug, edge_fix,
      "tiled matmul of ragged sizes leaving the tile edges unwritten")
def _(rng, fixed):
    a = rng.random((20, 24), dtype=f32)
    b = rng.random((24, 18), dtype=f32)
    c = poisoned((20, 18))
    return launch((2, 2), (TILE, TILE), (a, b, c), check=allclose(c, a @ b, rtol=1e-4))


# =============================================================================
# Bounds and use after free
# =============================================================================

def guard_bug(x, out):
    i = cuda.grid(1)
    if i <= x.size:
        out[i] = x[i] * f32(2)  # !bounds


def guard_fix(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = x[i] * f32(2)


@case("bounds_guard_off_by_one", "bounds", guard_bug, guard_fix,
      "a size guard written <= instead of <")
def _(rng, fixed):
    x = rng.random(1000, dtype=f32)
    out = poisoned(1000)
    return launch(4, 256, (x, out), check=allclose(out, 2 * x))


def edge3_bug(x, out):
    i = cuda.grid(1)
    if 0 < i < x.size:
        out[i] = x[i - 1] + x[i] + x[i + 1]  # !bounds


def edge3_fix(x, out):
    i = cuda.grid(1)
    if 0 < i < x.size - 1:
        out[i] = x[i - 1] + x[i] + x[i + 1]


@case("bounds_stencil_right_edge", "bounds", edge3_bug, edge3_fix,
      "a 3-point stencil reading past the last element")
def _(rng, fixed):
    x = rng.random(256, dtype=f32)
    out = poisoned(256)
    ref = np.full(256, np.nan, f32)
    ref[1:-1] = x[:-2] + x[1:-1] + x[2:]
    return launch(1, 256, (x, out), check=allclose(out, ref))


def shalo_bug(x, out):
    sm = cuda.shared.array(64, f32)
    t = cuda.threadIdx.x
    sm[t + 1] = x[t]  # !bounds
    cuda.syncthreads()
    out[t] = sm[t]


def shalo_fix(x, out):
    sm = cuda.shared.array(65, f32)
    t = cuda.threadIdx.x
    sm[t + 1] = x[t]
    if t == 0:
        sm[0] = f32(0)
    cuda.syncthreads()
    out[t] = sm[t]


@case("bounds_shared_tile_too_small", "bounds", shalo_bug, shalo_fix,
      "a shared tile one element short of its halo")
def _(rng, fixed):
    x = rng.random(64, dtype=f32)
    out = poisoned(64)
    return launch(1, 64, (x, out), check=allclose(out, np.concatenate([[0], x[:-1]])))


def swap_bug(a, out):
    i, j = cuda.grid(2)
    if i < out.shape[0] and j < out.shape[1]:
        out[i, j] = a[j, i] * f32(2)  # !bounds


def swap_fix(a, out):
    i, j = cuda.grid(2)
    if i < out.shape[0] and j < out.shape[1]:
        out[i, j] = a[i, j] * f32(2)


@case("bounds_swapped_2d_indices", "bounds", swap_bug, swap_fix,
      "row and column swapped on a non-square array")
def _(rng, fixed):
    a = rng.random((16, 48), dtype=f32)
    out = poisoned((16, 48))
    return launch((1, 3), (16, 16), (a, out), check=allclose(out, 2 * a))


def lover_bug(x, out):
    i = cuda.grid(1)
    buf = cuda.local.array(4, f32)
    for k in range(5):
        buf[k] = x[i] * k  # !bounds
    out[i] = buf[0] + buf[3]


def lover_fix(x, out):
    i = cuda.grid(1)
    buf = cuda.local.array(4, f32)
    for k in range(4):
        buf[k] = x[i] * k
    out[i] = buf[0] + buf[3]


@case("bounds_local_array_overrun", "bounds", lover_bug, lover_fix,
      "a loop writing one element past a local array")
def _(rng, fixed):
    x = rng.random(64, dtype=f32)
    out = poisoned(64)
    return launch(2, 32, (x, out), check=allclose(out, 3 * x))


def stride_bug(x, out):
    for i in range(cuda.grid(1), x.size + 1, cuda.gridsize(1)):
        out[i] = x[i] + f32(1)  # !bounds


def stride_fix(x, out):
    for i in range(cuda.grid(1), x.size, cuda.gridsize(1)):
        out[i] = x[i] + f32(1)


@case("bounds_grid_stride_limit", "bounds", stride_bug, stride_fix,
      "a grid-stride loop running to size + 1")
def _(rng, fixed):
    x = rng.random(1024, dtype=f32)
    out = poisoned(1024)
    return launch(2, 128, (x, out), check=allclose(out, x + 1))


class _Borrowed:
    """Another library's view of device memory: only the interface."""

    def __init__(self, cai):
        self.__cuda_array_interface__ = cai


def uaf_bug(x, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = x[i] + f32(1)  # !uaf


def uaf_fix(x, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = x[i] + f32(1)


@case("uaf_freed_device_array", "uaf", uaf_bug, uaf_fix,
      "a borrowed interface to a device array that was freed meanwhile")
def _(rng, fixed):
    host = rng.random(256, dtype=f32)
    owner = cuda.to_device(host)
    x = _Borrowed(dict(owner.__cuda_array_interface__))
    if fixed:
        x.owner = owner  # the fix: keep the owner alive while it is used
    del owner
    cuda.synchronize()  # deferred frees happen here on the GPU
    out = cuda.to_device(poisoned(256))
    return launch(1, 256, (x, out), check=allclose(out.copy_to_host, host + 1))
