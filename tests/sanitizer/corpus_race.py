"""The sanitizer corpus: races in shared and global memory (see corpus.py)."""
import numpy as np

from pycuda_jit import cuda
from corpus_lib import FULL, TILE, f32, case, launch, allclose, poisoned

# =============================================================================
# Races in shared memory (within a block)
# =============================================================================

def reverse_bug(x, out):
    sm = cuda.shared.array(128, f32)
    t = cuda.threadIdx.x
    sm[t] = x[t]  # !race
    out[t] = sm[127 - t]  # !race


def reverse_fix(x, out):
    sm = cuda.shared.array(128, f32)
    t = cuda.threadIdx.x
    sm[t] = x[t]
    cuda.syncthreads()
    out[t] = sm[127 - t]


@case("race_shared_reverse", "race", reverse_bug, reverse_fix,
      "reversing through shared memory without syncthreads")
def _(rng, fixed):
    x = rng.random(128, dtype=f32)
    out = poisoned(128)
    return launch(1, 128, (x, out), check=allclose(out, x[::-1]))


def tree_bug(x, out):
    sm = cuda.shared.array(128, f32)
    t = cuda.threadIdx.x
    sm[t] = x[cuda.blockIdx.x * 128 + t]
    cuda.syncthreads()
    s = 64
    while s > 0:
        if t < s:
            sm[t] += sm[t + s]  # !race
        s //= 2
    if t == 0:
        out[cuda.blockIdx.x] = sm[0]


def tree_fix(x, out):
    sm = cuda.shared.array(128, f32)
    t = cuda.threadIdx.x
    sm[t] = x[cuda.blockIdx.x * 128 + t]
    cuda.syncthreads()
    s = 64
    while s > 0:
        if t < s:
            sm[t] += sm[t + s]
        cuda.syncthreads()
        s //= 2
    if t == 0:
        out[cuda.blockIdx.x] = sm[0]


@case("race_reduction_no_sync_in_loop", "race", tree_bug, tree_fix,
      "tree reduction without syncthreads between the steps")
def _(rng, fixed):
    x = rng.random(4 * 128, dtype=f32)
    out = poisoned(4)
    return launch(4, 128, (x, out), check=allclose(out, x.reshape(4, 128).sum(1), rtol=1e-5))


def npsum_bug(x, out):
    sm = cuda.shared.array(128, f32)
    t = cuda.threadIdx.x
    sm[t] = x[t]  # !race
    if t == 0:
        out[0] = np.sum(sm)  # !race


def npsum_fix(x, out):
    sm = cuda.shared.array(128, f32)
    t = cuda.threadIdx.x
    sm[t] = x[t]
    cuda.syncthreads()
    if t == 0:
        out[0] = np.sum(sm)


@case("race_np_sum_of_shared_without_sync", "race", npsum_bug, npsum_fix,
      "one thread sums a shared array (np.sum) the others are still filling")
def _(rng, fixed):
    x = rng.random(128, dtype=f32)
    out = poisoned(1)
    return launch(1, 128, (x, out), check=allclose(out, [np.cumsum(x)[-1]]))


def warpsum_bug(x, out):
    sm = cuda.shared.array(32, f32)
    lane = cuda.threadIdx.x
    sm[lane] = x[lane]
    cuda.syncwarp()
    off = 16
    while off > 0:
        if lane < off:
            sm[lane] += sm[lane + off]  # !race
        off //= 2
    if lane == 0:
        out[0] = sm[0]


def warpsum_fix(x, out):
    sm = cuda.shared.array(32, f32)
    lane = cuda.threadIdx.x
    sm[lane] = x[lane]
    cuda.syncwarp()
    off = 16
    while off > 0:
        if lane < off:
            sm[lane] += sm[lane + off]
        cuda.syncwarp()
        off //= 2
    if lane == 0:
        out[0] = sm[0]


@case("race_warp_reduction_no_syncwarp", "race", warpsum_bug, warpsum_fix,
      "warp-synchronous shared-memory reduction without syncwarp (wrong since Volta)")
def _(rng, fixed):
    x = rng.random(32, dtype=f32)
    out = poisoned(1)
    return launch(1, 32, (x, out), check=allclose(out, [x.sum()], rtol=1e-5))


def halo_bug(x, out):
    sm = cuda.shared.array(130, f32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    n = x.size
    sm[t + 1] = x[i]  # !race
    if t == 0:
        sm[0] = x[i - 1] if i > 0 else x[i]
    if t == cuda.blockDim.x - 1:
        sm[t + 2] = x[i + 1] if i + 1 < n else x[i]
    out[i] = (sm[t] + sm[t + 1] + sm[t + 2]) / f32(3)  # !race


def halo_fix(x, out):
    sm = cuda.shared.array(130, f32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    n = x.size
    sm[t + 1] = x[i]
    if t == 0:
        sm[0] = x[i - 1] if i > 0 else x[i]
    if t == cuda.blockDim.x - 1:
        sm[t + 2] = x[i + 1] if i + 1 < n else x[i]
    cuda.syncthreads()
    out[i] = (sm[t] + sm[t + 1] + sm[t + 2]) / f32(3)


@case("race_stencil_halo_no_sync", "race", halo_bug, halo_fix,
      "1-D stencil reading its shared tile and halo without syncthreads")
def _(rng, fixed):
    x = rng.random(512, dtype=f32)
    out = poisoned(512)
    p = np.concatenate([x[:1], x, x[-1:]])
    ref = (p[:-2] + p[1:-1] + p[2:]) / f32(3)
    return launch(4, 128, (x, out), check=allclose(out, ref))




def tiled_bug(a, b, c):
    sa = cuda.shared.array((TILE, TILE), f32)
    sb = cuda.shared.array((TILE, TILE), f32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    row = cuda.blockIdx.y * TILE + ty
    col = cuda.blockIdx.x * TILE + tx
    acc = f32(0)
    for t in range(a.shape[1] // TILE):
        sa[ty, tx] = a[row, t * TILE + tx]  # !race
        sb[ty, tx] = b[t * TILE + ty, col]  # !race
        cuda.syncthreads()
        for k in range(TILE):
            acc += sa[ty, k] * sb[k, tx]  # !race
    c[row, col] = acc


def tiled_fix(a, b, c):
    sa = cuda.shared.array((TILE, TILE), f32)
    sb = cuda.shared.array((TILE, TILE), f32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    row = cuda.blockIdx.y * TILE + ty
    col = cuda.blockIdx.x * TILE + tx
    acc = f32(0)
    for t in range(a.shape[1] // TILE):
        sa[ty, tx] = a[row, t * TILE + tx]
        sb[ty, tx] = b[t * TILE + ty, col]
        cuda.syncthreads()
        for k in range(TILE):
            acc += sa[ty, k] * sb[k, tx]
        cuda.syncthreads()
    c[row, col] = acc


@case("race_tiled_matmul_missing_second_sync", "race", tiled_bug, tiled_fix,
      "tiled matmul overwriting a tile others still read (no second syncthreads)")
def _(rng, fixed):
    a = rng.random((32, 64), dtype=f32)
    b = rng.random((64, 32), dtype=f32)
    c = poisoned((32, 32))
    return launch((2, 2), (TILE, TILE), (a, b, c), check=allclose(c, a @ b, rtol=1e-4))


def shist_bug(x, hist):
    sh = cuda.shared.array(16, np.int32)
    t = cuda.threadIdx.x
    if t < 16:
        sh[t] = 0
    cuda.syncthreads()
    i = cuda.grid(1)
    if i < x.size:
        sh[x[i] % 16] += 1  # !race
    cuda.syncthreads()
    if t < 16:
        cuda.atomic.add(hist, t, sh[t])


def shist_fix(x, hist):
    sh = cuda.shared.array(16, np.int32)
    t = cuda.threadIdx.x
    if t < 16:
        sh[t] = 0
    cuda.syncthreads()
    i = cuda.grid(1)
    if i < x.size:
        cuda.atomic.add(sh, x[i] % 16, 1)
    cuda.syncthreads()
    if t < 16:
        cuda.atomic.add(hist, t, sh[t])


@case("race_shared_histogram_plain_increment", "race", shist_bug, shist_fix,
      "shared-memory histogram with += instead of an atomic")
def _(rng, fixed):
    x = rng.integers(0, 1000, 1000).astype(np.int32)
    hist = np.zeros(16, np.int32)
    ref = np.bincount(x % 16, minlength=16).astype(np.int32)
    return launch(8, 128, (x, hist), check=allclose(hist, ref))


def counter_bug(out):
    cnt = cuda.shared.array(1, np.int32)
    t = cuda.threadIdx.x
    if t == 0:
        cnt[0] = 0
    cuda.syncthreads()
    if t % 2 == 0:
        cnt[0] = cnt[0] + 1  # !race
    cuda.syncthreads()
    if t == 0:
        out[cuda.blockIdx.x] = cnt[0]


def counter_fix(out):
    cnt = cuda.shared.array(1, np.int32)
    t = cuda.threadIdx.x
    if t == 0:
        cnt[0] = 0
    cuda.syncthreads()
    if t % 2 == 0:
        cuda.atomic.add(cnt, 0, 1)
    cuda.syncthreads()
    if t == 0:
        out[cuda.blockIdx.x] = cnt[0]


@case("race_shared_counter_plain", "race", counter_bug, counter_fix,
      "threads incrementing one shared counter without an atomic")
def _(rng, fixed):
    out = poisoned(3, np.int32)
    return launch(3, 64, (out,), check=allclose(out, [32, 32, 32]))


def scan_bug(x, out):
    sm = cuda.shared.array(128, f32)
    t = cuda.threadIdx.x
    sm[t] = x[t]
    cuda.syncthreads()
    d = 1
    while d < 128:
        if t >= d:
            sm[t] += sm[t - d]  # !race
        cuda.syncthreads()
        d *= 2
    out[t] = sm[t]


def scan_fix(x, out):
    sm = cuda.shared.array(128, f32)
    t = cuda.threadIdx.x
    sm[t] = x[t]
    cuda.syncthreads()
    d = 1
    while d < 128:
        v = sm[t - d] if t >= d else f32(0)
        cuda.syncthreads()
        sm[t] += v
        cuda.syncthreads()
        d *= 2
    out[t] = sm[t]


@case("race_scan_in_place", "race", scan_bug, scan_fix,
      "Hillis-Steele scan reading and writing one buffer in the same step")
def _(rng, fixed):
    x = rng.random(128, dtype=f32)
    out = poisoned(128)
    return launch(1, 128, (x, out), check=allclose(out, np.cumsum(x), rtol=1e-5))


def transpose_bug(a, out):
    tile = cuda.shared.array((16, 17), f32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    tile[ty, tx] = a[cuda.blockIdx.y * 16 + ty, cuda.blockIdx.x * 16 + tx]  # !race
    out[cuda.blockIdx.x * 16 + ty, cuda.blockIdx.y * 16 + tx] = tile[tx, ty]  # !race


def transpose_fix(a, out):
    tile = cuda.shared.array((16, 17), f32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    tile[ty, tx] = a[cuda.blockIdx.y * 16 + ty, cuda.blockIdx.x * 16 + tx]
    cuda.syncthreads()
    out[cuda.blockIdx.x * 16 + ty, cuda.blockIdx.y * 16 + tx] = tile[tx, ty]


@case("race_transpose_no_sync", "race", transpose_bug, transpose_fix,
      "shared-memory transpose reading the tile before all threads wrote it")
def _(rng, fixed):
    a = rng.random((32, 48), dtype=f32)
    out = poisoned((48, 32))
    return launch((3, 2), (16, 16), (a, out), check=allclose(out, a.T))


def exchange_bug(x, out):
    sm = cuda.shared.array(32, f32)
    lane = cuda.threadIdx.x
    sm[lane] = x[lane]  # !race
    out[lane] = sm[lane ^ 1]  # !race


def exchange_fix(x, out):
    sm = cuda.shared.array(32, f32)
    lane = cuda.threadIdx.x
    sm[lane] = x[lane]
    cuda.syncwarp()
    out[lane] = sm[lane ^ 1]


@case("race_warp_exchange_no_syncwarp", "race", exchange_bug, exchange_fix,
      "lanes swapping values through shared memory without syncwarp")
def _(rng, fixed):
    x = rng.random(32, dtype=f32)
    out = poisoned(32)
    return launch(1, 32, (x, out), check=allclose(out, x[np.arange(32) ^ 1]))


def bcast_bug(x, out):
    v = cuda.shared.array(1, f32)
    if cuda.threadIdx.x == 0:
        v[0] = x[cuda.blockIdx.x]  # !race
    out[cuda.grid(1)] = v[0] * f32(2)  # !race


def bcast_fix(x, out):
    v = cuda.shared.array(1, f32)
    if cuda.threadIdx.x == 0:
        v[0] = x[cuda.blockIdx.x]
    cuda.syncthreads()
    out[cuda.grid(1)] = v[0] * f32(2)


@case("race_broadcast_no_sync", "race", bcast_bug, bcast_fix,
      "thread 0 broadcasting through shared memory without syncthreads")
def _(rng, fixed):
    x = rng.random(2, dtype=f32)
    out = poisoned(128)
    return launch(2, 64, (x, out), check=allclose(out, np.repeat(x * 2, 64)))


def reset_bug(x, out):
    acc = cuda.shared.array(1, f32)
    t = cuda.threadIdx.x
    total = f32(0)
    for r in range(4):
        if t == 0:
            acc[0] = f32(0)  # !race
        cuda.syncthreads()
        cuda.atomic.add(acc, 0, x[r, t])
        cuda.syncthreads()
        total += acc[0]  # !race
    out[t] = total


def reset_fix(x, out):
    acc = cuda.shared.array(1, f32)
    t = cuda.threadIdx.x
    total = f32(0)
    for r in range(4):
        if t == 0:
            acc[0] = f32(0)
        cuda.syncthreads()
        cuda.atomic.add(acc, 0, x[r, t])
        cuda.syncthreads()
        total += acc[0]
        cuda.syncthreads()
    out[t] = total


@case("race_accumulator_reset_in_loop", "race", reset_bug, reset_fix,
      "a shared accumulator reset for the next round while others still read it")
def _(rng, fixed):
    x = rng.integers(0, 8, (4, 64)).astype(f32)  # exact sums in any order
    out = poisoned(64)
    return launch(1, 64, (x, out), check=allclose(out, np.full(64, x.sum())))


def scratch_bug(x, out):
    red = cuda.shared.array(4, f32)
    t = cuda.threadIdx.x
    lane = t % 32
    w = t // 32
    v = x[cuda.grid(1)]
    off = 16
    while off > 0:
        v += cuda.shfl_xor_sync(FULL, v, off)
        off //= 2
    if lane == 0:
        red[w] = v
    cuda.syncthreads()
    total = red[0] + red[1] + red[2] + red[3]  # !race
    if lane == 0:
        red[w] = v * v  # !race
    cuda.syncthreads()
    sq = red[0] + red[1] + red[2] + red[3]
    out[cuda.grid(1)] = total + sq


def scratch_fix(x, out):
    red = cuda.shared.array(4, f32)
    t = cuda.threadIdx.x
    lane = t % 32
    w = t // 32
    v = x[cuda.grid(1)]
    off = 16
    while off > 0:
        v += cuda.shfl_xor_sync(FULL, v, off)
        off //= 2
    if lane == 0:
        red[w] = v
    cuda.syncthreads()
    total = red[0] + red[1] + red[2] + red[3]
    cuda.syncthreads()
    if lane == 0:
        red[w] = v * v
    cuda.syncthreads()
    sq = red[0] + red[1] + red[2] + red[3]
    out[cuda.grid(1)] = total + sq


@case("race_block_scratch_reused", "race", scratch_bug, scratch_fix,
      "a block reduction's scratch reused for a second one without syncthreads")
def _(rng, fixed):
    x = rng.integers(0, 4, 128).astype(f32)
    out = poisoned(128)
    warps = x.reshape(4, 32).sum(1)
    return launch(1, 128, (x, out), check=allclose(out, np.full(128, warps.sum() + (warps ** 2).sum())))


def flush_bug(x, hist):
    sh = cuda.shared.array(8, np.int32)
    t = cuda.threadIdx.x
    if t < 8:
        sh[t] = 0
    cuda.syncthreads()
    i = cuda.grid(1)
    if i < x.size:
        cuda.atomic.add(sh, x[i] % 8, 1)  # !race
    if t < 8:
        cuda.atomic.add(hist, t, sh[t])  # !race


def flush_fix(x, hist):
    sh = cuda.shared.array(8, np.int32)
    t = cuda.threadIdx.x
    if t < 8:
        sh[t] = 0
    cuda.syncthreads()
    i = cuda.grid(1)
    if i < x.size:
        cuda.atomic.add(sh, x[i] % 8, 1)
    cuda.syncthreads()
    if t < 8:
        cuda.atomic.add(hist, t, sh[t])


@case("race_privatized_histogram_flush", "race", flush_bug, flush_fix,
      "flushing a per-block histogram before every thread added to it")
def _(rng, fixed):
    x = rng.integers(0, 100, 500).astype(np.int32)
    hist = np.zeros(8, np.int32)
    ref = np.bincount(x % 8, minlength=8).astype(np.int32)
    return launch(4, 128, (x, hist), check=allclose(hist, ref))


# =============================================================================
# Races in global memory (within and across blocks)
# =============================================================================

def ghist_bug(x, hist):
    i = cuda.grid(1)
    if i < x.size:
        hist[x[i] % 8] += 1  # !race


def ghist_fix(x, hist):
    i = cuda.grid(1)
    if i < x.size:
        cuda.atomic.add(hist, x[i] % 8, 1)


@case("race_global_histogram_plain_increment", "race", ghist_bug, ghist_fix,
      "global histogram with += instead of an atomic")
def _(rng, fixed):
    x = rng.integers(0, 100, 1000).astype(np.int32)
    hist = np.zeros(8, np.int32)
    ref = np.bincount(x % 8, minlength=8).astype(np.int32)
    return launch(4, 256, (x, hist), check=allclose(hist, ref))


def gsum_bug(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[0] += x[i]  # !race


def gsum_fix(x, out):
    i = cuda.grid(1)
    if i < x.size:
        cuda.atomic.add(out, 0, x[i])


@case("race_global_sum_plain", "race", gsum_bug, gsum_fix,
      "every thread adding into out[0] without an atomic")
def _(rng, fixed):
    x = rng.integers(0, 10, 700).astype(np.float64)  # exact in any order
    out = np.zeros(1)
    return launch(3, 256, (x, out), check=allclose(out, [x.sum()]))


def smooth_bug(a, out):
    i = cuda.grid(1)
    if 0 < i < a.size - 1:
        a[i] = (a[i - 1] + a[i + 1]) * f32(0.5)  # !race
    if i < a.size:
        out[i] = i


def smooth_fix(a, out):
    i = cuda.grid(1)
    if 0 < i < a.size - 1:
        out[i] = (a[i - 1] + a[i + 1]) * f32(0.5)
    elif i < a.size:
        out[i] = a[i]


@case("race_global_in_place_smoothing", "race", smooth_bug, smooth_fix,
      "in-place smoothing reading neighbours other threads overwrite")
def _(rng, fixed):
    a = rng.random(600, dtype=f32)
    out = poisoned(600)
    ref = a.copy()
    ref[1:-1] = (a[:-2] + a[2:]) * f32(0.5)
    return launch(3, 256, (a, out), check=allclose(out, ref))


def waw_bug(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i // 2] = x[i]  # !race


def waw_fix(x, out):
    i = cuda.grid(1)
    if i < x.size and i % 2 == 0:
        out[i // 2] = x[i] + x[i + 1]


@case("race_global_two_writers", "race", waw_bug, waw_fix,
      "two threads writing the same output element")
def _(rng, fixed):
    x = rng.random(512, dtype=f32)
    out = poisoned(256)
    return launch(2, 256, (x, out), check=allclose(out, x[0::2] + x[1::2]))


def neighbour_bug(x, tmp, out):
    i = cuda.grid(1)
    tmp[i] = x[i] * f32(2)  # !race
    j = (i + cuda.blockDim.x) % tmp.size
    out[i] = tmp[j] + f32(1)  # !race


def neighbour_fix(x, tmp, out):
    i = cuda.grid(1)
    tmp[i] = x[i] * f32(2)
    cuda.cg.this_grid().sync()
    j = (i + cuda.blockDim.x) % tmp.size
    out[i] = tmp[j] + f32(1)


@case("race_global_missing_grid_sync", "race", neighbour_bug, neighbour_fix,
      "reading another block's results without a grid sync")
def _(rng, fixed):
    x = rng.random(256, dtype=f32)
    tmp = poisoned(256)
    out = poisoned(256)
    return launch(4, 64, (x, tmp, out), check=allclose(out, np.roll(x, -64) * 2 + 1))


def lastblock_bug(x, partial, counter, total):
    sm = cuda.shared.array(64, f32)
    t = cuda.threadIdx.x
    sm[t] = x[cuda.grid(1)]
    cuda.syncthreads()
    if t == 0:
        s = f32(0)
        for k in range(64):
            s += sm[k]
        partial[cuda.blockIdx.x] = s  # !race
        cuda.threadfence()
        ticket = counter[0]  # !race
        counter[0] = ticket + 1  # !race
        if ticket == cuda.gridDim.x - 1:
            acc = f32(0)
            for b in range(cuda.gridDim.x):
                acc += partial[b]  # !race
            total[0] = acc


def lastblock_fix(x, partial, counter, total):
    sm = cuda.shared.array(64, f32)
    t = cuda.threadIdx.x
    sm[t] = x[cuda.grid(1)]
    cuda.syncthreads()
    if t == 0:
        s = f32(0)
        for k in range(64):
            s += sm[k]
        partial[cuda.blockIdx.x] = s
        cuda.threadfence()
        ticket = cuda.atomic.add(counter, 0, 1)
        if ticket == cuda.gridDim.x - 1:
            acc = f32(0)
            for b in range(cuda.gridDim.x):
                acc += partial[b]
            total[0] = acc


@case("race_last_block_plain_counter", "race", lastblock_bug, lastblock_fix,
      "'last block' reduction taking its ticket without an atomic")
def _(rng, fixed):
    x = rng.integers(0, 8, 6 * 64).astype(f32)
    partial = poisoned(6)
    counter = np.zeros(1, np.int32)
    total = poisoned(1)
    return launch(6, 64, (x, partial, counter, total), check=allclose(total, [x.sum()]))


def peek_bug(x, out, peek):
    i = cuda.grid(1)
    cuda.atomic.add(out, 0, x[i])  # !race
    if i == 5:
        peek[0] = out[0]  # !race


def peek_fix(x, out, peek):
    i = cuda.grid(1)
    old = cuda.atomic.add(out, 0, x[i])
    if i == 5:
        peek[0] = old


@case("race_atomic_mixed_with_plain_read", "race", peek_bug, peek_fix,
      "a plain read of an element other threads update atomically")
def _(rng, fixed):
    x = rng.integers(1, 5, 64).astype(np.int64)
    out = np.zeros(1, np.int64)
    peek = np.full(1, -1, np.int64)

    def check():
        assert out[0] == x.sum()
        assert 0 <= peek[0] < x.sum()
    return launch(1, 64, (x, out, peek), check=check)
