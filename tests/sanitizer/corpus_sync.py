"""The sanitizer corpus: barrier and warp-synchronization misuse (see corpus.py)."""
import numpy as np

from pycuda_jit import cuda
from corpus_lib import FULL, f32, case, launch, allclose, poisoned

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
