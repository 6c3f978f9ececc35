"""Synchronization: syncthreads and its reducing forms, syncwarp, the
thread fences (the "last block" reduction pattern), nanosleep."""
import numpy as np
import pytest

from pycuda_jit import cuda
from gpu_util import poisoned

TPB = 256


@cuda.jit
def k_block_sum(x, out):
    sm = cuda.shared.array(TPB, np.float64)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    sm[t] = x[i] if i < x.size else 0.0
    cuda.syncthreads()
    s = TPB // 2
    while s > 0:
        if t < s:
            sm[t] += sm[t + s]
        cuda.syncthreads()
        s //= 2
    if t == 0:
        out[cuda.blockIdx.x] = sm[0]


def test_block_reduction_shared_syncthreads(backend, rng):
    n = 50_000
    x = rng.standard_normal(n)
    nb = (n + TPB - 1) // TPB
    out = poisoned(nb, np.float64)
    k_block_sum[nb, TPB](x, out)
    pad = np.zeros(nb * TPB)
    pad[:n] = x
    np.testing.assert_allclose(out, pad.reshape(nb, TPB).sum(axis=1), rtol=1e-12, atol=1e-12)


@cuda.jit
def k_sync_reduce(x, counts, alls, anys):
    i = cuda.grid(1)
    p = x[i] > 0.5
    c = cuda.syncthreads_count(p)
    a = cuda.syncthreads_and(p)
    o = cuda.syncthreads_or(x[i])  # any number works as a predicate
    counts[i] = c
    alls[i] = a
    anys[i] = o


@pytest.mark.parametrize("tpb", [1, 33, 128, 1024])
def test_syncthreads_count_and_or(backend, rng, tpb):
    nb = 6
    x = rng.random(nb * tpb)
    x[:tpb] = 0.9          # block 0: every predicate true
    x[tpb:2 * tpb] = 0.0   # block 1: none (and x == 0 for the or)
    counts = poisoned(nb * tpb, np.int32)
    alls = poisoned(nb * tpb, np.int32)
    anys = poisoned(nb * tpb, np.int32)
    k_sync_reduce[nb, tpb](x, counts, alls, anys)
    xb = x.reshape(nb, tpb)
    p = xb > 0.5
    np.testing.assert_array_equal(counts.reshape(nb, tpb), np.repeat(p.sum(1)[:, None], tpb, 1))
    np.testing.assert_array_equal(alls.reshape(nb, tpb), np.repeat(p.all(1)[:, None], tpb, 1))
    np.testing.assert_array_equal(anys.reshape(nb, tpb), np.repeat((xb != 0).any(1)[:, None], tpb, 1))


@cuda.jit
def k_last_block_sum(x, partial, counter, total):
    # CUDA's threadFenceReduction sample: each block publishes its partial
    # sum, fences, and takes a ticket; the block with the last ticket sums
    # the partials of all others.
    sm = cuda.shared.array(TPB, np.float64)
    last = cuda.shared.array(1, np.int32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    sm[t] = x[i] if i < x.size else 0.0
    cuda.syncthreads()
    s = TPB // 2
    while s > 0:
        if t < s:
            sm[t] += sm[t + s]
        cuda.syncthreads()
        s //= 2
    if t == 0:
        partial[cuda.blockIdx.x] = sm[0]
        cuda.threadfence()
        ticket = cuda.atomic.inc(counter, 0, cuda.gridDim.x - 1)
        last[0] = 1 if ticket == cuda.gridDim.x - 1 else 0
    cuda.syncthreads()
    if last[0] == 1 and t == 0:
        acc = 0.0
        for b in range(cuda.gridDim.x):
            acc += partial[b]
        total[0] = acc


def test_threadfence_last_block_reduction(backend, rng):
    n = 40_000
    x = rng.random(n)
    nb = (n + TPB - 1) // TPB
    partial = poisoned(nb, np.float64)
    counter = np.zeros(1, np.uint32)
    total = poisoned(1, np.float64)
    k_last_block_sum[nb, TPB](x, partial, counter, total)
    np.testing.assert_allclose(total[0], x.sum(), rtol=1e-10)
    assert counter[0] == 0  # inc wrapped back to 0 after the last ticket


@cuda.jit
def k_fences(x, out):
    i = cuda.grid(1)
    out[i] = x[i] + 1
    cuda.threadfence_block()
    cuda.threadfence()
    cuda.threadfence_system()
    out[i] *= 2


def test_fences_keep_program_order(backend, rng):
    x = rng.random(256)
    out = poisoned(256, np.float64)
    k_fences[2, 128](x, out)
    np.testing.assert_allclose(out, (x + 1) * 2)


@cuda.jit
def k_syncwarp(x, out):
    sm = cuda.shared.array(64, np.int32)
    t = cuda.threadIdx.x
    sm[t] = x[t]
    cuda.syncwarp()
    # read a neighbour within the warp
    lane = t % 32
    warp_base = t - lane
    out[t] = sm[warp_base + (lane + 1) % 32]
    cuda.syncwarp(0xFFFFFFFF)


def test_syncwarp(backend, rng):
    x = rng.integers(0, 1000, 64).astype(np.int32)
    out = poisoned(64, np.int32)
    k_syncwarp[1, 64](x, out)
    np.testing.assert_array_equal(out, np.roll(x.reshape(2, 32), -1, axis=1).reshape(-1))


@cuda.jit
def k_flag_wait(flags, out):
    # Block b waits (sleeping) until block b - 1 has published its value.
    b = cuda.blockIdx.x
    if cuda.threadIdx.x == 0:
        if b > 0:
            while cuda.atomic.add(flags, b - 1, 0) == 0:
                cuda.nanosleep(100)
            cuda.threadfence()
            out[b] = out[b - 1] + b
        else:
            out[0] = 0
        cuda.threadfence()
        cuda.atomic.exch(flags, b, 1)


def test_nanosleep_spin_wait(backend):
    # The blocks must be co-resident for this to terminate: few and small.
    nb = 8
    flags = np.zeros(nb, np.int32)
    out = poisoned(nb, np.int64)
    k_flag_wait[nb, 32](flags, out)
    np.testing.assert_array_equal(out, np.cumsum(np.arange(nb)))
    np.testing.assert_array_equal(flags, 1)
