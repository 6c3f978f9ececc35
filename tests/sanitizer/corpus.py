"""The sanitizer corpus: kernels with one seeded bug each, and their fixed
twins (issue 17).

Every case has a kind -- "race", "init", "bounds", "uaf" (use after free,
part of the bounds check) or "sync" -- a buggy kernel whose source marks the
lines of the bug with a trailing ``# !<kind>`` comment, a fixed kernel, and a
``setup(rng, fixed)`` that returns the launch: grid, block, arguments, the
dynamic shared memory size, and for the fixed kernel a check of its results.

    python tests/sanitizer/corpus.py list
    python tests/sanitizer/corpus.py run CASE bug|fix [--sanitize]

``run`` executes one case on the current backend (the GPU, or the CPU
executor with PYCUDA_JIT_BACKEND=cpu) and exits with 3 when the sanitizer
reported something (it prints the kinds and lines), 4 when a fixed kernel
computed a wrong result, else 0; benchmarks/
sanitizer_vs_compute_sanitizer.py runs every case that way under
compute-sanitizer.  tests/sanitizer/test_corpus.py checks on the CPU executor
that the sanitizer finds every bug at its marked lines and nothing in the
fixed kernels.
"""
import inspect
import os
import sys
from collections import namedtuple

import numpy as np

if __package__ in (None, ""):  # run as a script
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from pycuda_jit import cuda  # noqa: E402

FULL = 0xFFFFFFFF
f32 = np.float32

Launch = namedtuple("Launch", "grid block args shared check")


def launch(grid, block, args, shared=0, check=None):
    return Launch(grid, block, args, shared, check)


class Case:
    def __init__(self, name, kind, buggy, fixed, setup, what):
        self.name, self.kind, self.buggy, self.fixed = name, kind, buggy, fixed
        self.setup, self.what = setup, what

    def marked_lines(self):
        """Absolute source lines of the buggy kernel marked ``# !<kind>``."""
        lines, first = inspect.getsourcelines(self.buggy)
        tag = "# !" + self.kind
        return {first + k for k, text in enumerate(lines) if text.rstrip().endswith(tag)}


CASES = {}


def case(name, kind, buggy, fixed, what):
    def register(setup):
        assert name not in CASES, name
        CASES[name] = Case(name, kind, buggy, fixed, setup, what)
        return setup
    return register


def allclose(out, ref, rtol=1e-5, atol=1e-6):
    """A check that `out` (an array, or a function returning one) equals ref."""
    def check():
        got = out() if callable(out) else out
        np.testing.assert_allclose(np.asarray(got), ref, rtol=rtol, atol=atol)
    return check


def poisoned(shape, dtype=f32):
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return np.full(shape, np.nan, dtype)
    return np.full(shape, np.iinfo(dtype).min + 7, dtype)


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


TILE = 16


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


# =============================================================================
# Barrier and warp-synchronization misuse
# =============================================================================

def ifelse_bug(x, out):
    sm = cuda.shared.array(64, f32)
    t = cuda.threadIdx.x
    if t < 32:
        sm[t] = x[t]
        cuda.syncthreads()  # !sync
        out[t] = sm[t + 32]
    else:
        sm[t] = x[t] * f32(2)
        cuda.syncthreads()  # !sync
        out[t] = sm[t - 32]


def ifelse_fix(x, out):
    sm = cuda.shared.array(64, f32)
    t = cuda.threadIdx.x
    sm[t] = x[t] if t < 32 else x[t] * f32(2)
    cuda.syncthreads()
    out[t] = sm[t + 32] if t < 32 else sm[t - 32]


@case("sync_divergent_barriers", "sync", ifelse_bug, ifelse_fix,
      "syncthreads in both branches of a thread-dependent if")
def _(rng, fixed):
    x = rng.random(64, dtype=f32)
    out = poisoned(64)
    ref = np.concatenate([2 * x[32:], x[:32]])
    return launch(1, 64, (x, out), check=allclose(out, ref))


def loopbar_bug(x, out):
    sm = cuda.shared.array(64, f32)
    t = cuda.threadIdx.x
    for k in range(t % 2 + 1):
        sm[t] = x[t] + k
        cuda.syncthreads()  # !sync
    cuda.syncthreads()  # !sync
    out[t] = sm[(t + 1) % 64]


def loopbar_fix(x, out):
    sm = cuda.shared.array(64, f32)
    t = cuda.threadIdx.x
    for k in range(2):
        if k <= t % 2:
            sm[t] = x[t] + k
        cuda.syncthreads()
    cuda.syncthreads()
    out[t] = sm[(t + 1) % 64]


@case("sync_barrier_in_thread_dependent_loop", "sync", loopbar_bug, loopbar_fix,
      "syncthreads inside a loop whose trip count depends on the thread")
def _(rng, fixed):
    x = rng.random(64, dtype=f32)
    out = poisoned(64)
    t = np.arange(64)
    ref = (x + (t % 2))[(t + 1) % 64]
    return launch(1, 64, (x, out), check=allclose(out, ref))


def halfwarp_bug(x, out):
    sm = cuda.shared.array(32, f32)
    lane = cuda.threadIdx.x
    sm[lane] = x[lane]
    if lane < 16:
        cuda.syncwarp(FULL)  # !sync
        out[lane] = sm[lane + 16]
    else:
        out[lane] = x[lane - 16]


def halfwarp_fix(x, out):
    sm = cuda.shared.array(32, f32)
    lane = cuda.threadIdx.x
    sm[lane] = x[lane]
    cuda.syncwarp(FULL)
    if lane < 16:
        out[lane] = sm[lane + 16]
    else:
        out[lane] = x[lane - 16]


@case("sync_syncwarp_in_half_of_the_warp", "sync", halfwarp_bug, halfwarp_fix,
      "syncwarp with a full mask reached by half of the warp")
def _(rng, fixed):
    x = rng.random(32, dtype=f32)
    out = poisoned(32)
    return launch(1, 32, (x, out), check=allclose(out, np.roll(x, 16)))


def early_bug(x, out):
    i = cuda.grid(1)
    if i >= x.size:
        return
    v = x[i]
    v += cuda.shfl_down_sync(FULL, v, 1)  # !sync
    out[i] = v


def early_fix(x, out):
    i = cuda.grid(1)
    v = x[i] if i < x.size else f32(0)
    v += cuda.shfl_down_sync(FULL, v, 1)
    if i < x.size:
        out[i] = v


@case("sync_shuffle_after_early_return", "sync", early_bug, early_fix,
      "a full-mask shuffle after some lanes of the warp returned")
def _(rng, fixed):
    x = rng.random(48, dtype=f32)
    out = poisoned(48)
    nxt = np.append(x[1:], 0).astype(f32)
    nxt[31] = x[31]  # shfl_down at the warp's last lane gives its own value
    nxt[47] = 0
    return launch(1, 64, (x, out), check=allclose(out, x + nxt))


def selfmask_bug(x, out):
    sm = cuda.shared.array(32, f32)
    lane = cuda.threadIdx.x
    sm[lane] = x[lane]
    cuda.syncwarp(0x0000FFFF)  # !sync
    out[lane] = sm[lane ^ 1]


def selfmask_fix(x, out):
    sm = cuda.shared.array(32, f32)
    lane = cuda.threadIdx.x
    sm[lane] = x[lane]
    cuda.syncwarp(FULL)
    out[lane] = sm[lane ^ 1]


@case("sync_syncwarp_mask_without_caller", "sync", selfmask_bug, selfmask_fix,
      "syncwarp called by lanes its mask does not name")
def _(rng, fixed):
    x = rng.random(32, dtype=f32)
    out = poisoned(32)
    return launch(1, 32, (x, out), check=allclose(out, x[np.arange(32) ^ 1]))


def ballot_bug(x, out):
    lane = cuda.threadIdx.x
    if lane < 16:
        b = cuda.ballot_sync(FULL, x[lane] > f32(0.5))  # !sync
    else:
        b = cuda.ballot_sync(0xFFFF0000, x[lane] > f32(0.5))  # !sync
    out[lane] = b


def ballot_fix(x, out):
    lane = cuda.threadIdx.x
    if lane < 16:
        b = cuda.ballot_sync(0x0000FFFF, x[lane] > f32(0.5))
    else:
        b = cuda.ballot_sync(0xFFFF0000, x[lane] > f32(0.5))
    out[lane] = b


@case("sync_ballot_masks_disagree", "sync", ballot_bug, ballot_fix,
      "lanes of one warp voting with different masks that name each other")
def _(rng, fixed):
    x = rng.random(32, dtype=f32)
    out = np.zeros(32, np.uint32)
    bits = (x > 0.5).astype(np.uint64) << np.arange(32, dtype=np.uint64)
    lo, hi = int(bits[:16].sum()), int(bits[16:].sum())
    return launch(1, 32, (x, out), check=allclose(out, [lo] * 16 + [hi] * 16))


# =============================================================================
# Running a case
# =============================================================================

def compiled(c, fixed, **options):
    """The case's kernel compiled with `options` (cached per case)."""
    key = (c.name, fixed, tuple(sorted(options.items())))
    k = _compiled.get(key)
    if k is None:
        k = _compiled[key] = cuda.jit(**options)(c.fixed if fixed else c.buggy)
    return k


_compiled = {}


def run(c, fixed, rng, **options):
    """Runs one case once; returns its Launch (check() verifies a fixed one)."""
    k = compiled(c, fixed, **options)  # first: a sanitized kernel arms the
    spec = c.setup(rng, fixed)          # tracking of freed memory
    if spec.shared:
        k[spec.grid, spec.block, 0, spec.shared](*spec.args)
    else:
        k[spec.grid, spec.block](*spec.args)
    cuda.synchronize()
    return spec


def main(argv):
    import argparse
    ap = argparse.ArgumentParser(description="the sanitizer corpus")
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("list")
    r = sub.add_parser("run")
    r.add_argument("case")
    r.add_argument("version", choices=("bug", "fix"))
    r.add_argument("--sanitize", action="store_true",
                   help="compile with sanitize=True (the CPU executor's checks)")
    a = ap.parse_args(argv)
    if a.cmd == "list":
        for c in CASES.values():
            print(f"{c.name:44} {c.kind:7} {c.what}")
        return 0
    c = CASES[a.case]
    rng = np.random.default_rng(17)
    from pycuda_jit import errors
    try:
        spec = run(c, a.version == "fix", rng, **({"sanitize": True} if a.sanitize else {}))
    except errors.KernelError as e:
        kinds = sorted({f.kind for f in e.findings}) or [type(e).__name__]
        lines = sorted({line for f in e.findings for line in f.lines})
        print(f"{c.name} {a.version}: FOUND {','.join(kinds)} lines {lines}")
        return 3
    if a.version == "fix":
        try:
            spec.check()
        except AssertionError as e:
            print(f"{c.name} {a.version}: WRONG RESULT {e}")
            return 4
    print(f"{c.name} {a.version}: ran")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
