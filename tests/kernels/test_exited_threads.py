"""Threads that have returned count as arrived at later barriers, as on the
GPU (PTX: an exiting thread releases a barrier it was holding up, and
bar.red reductions only see the threads that arrive): block barriers,
syncthreads_count/and/or and the grid barrier of cuda.cg.this_grid().

Written in the style of numba-cuda's documented examples that return early
before a barrier (the Laplace equation with grid sync, click-stream
sessionization).  A barrier that live threads never reach (they wait at
another barrier) is still a deadlock, which the CPU executor reports."""
import numpy as np
import pytest

from pycuda_jit import cuda, errors
from gpu_util import poisoned

TPB = 128


# ---- block barriers -------------------------------------------------------------


@cuda.jit
def k_block_sums(x, out):
    # Threads past the end return before the barrier; thread 0 then sums
    # what the block's live threads staged in shared memory.
    sm = cuda.shared.array(TPB, np.int64)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    if i >= x.size:
        return
    sm[t] = x[i]
    cuda.syncthreads()
    if t == 0:
        live = min(TPB, x.size - cuda.blockIdx.x * TPB)
        acc = 0
        for j in range(live):
            acc += sm[j]
        out[cuda.blockIdx.x] = acc


def test_barrier_after_early_return(backend, rng):
    n = 5 * TPB + 37  # the last block has 37 live threads
    x = rng.integers(-1000, 1000, n)
    nb = (n + TPB - 1) // TPB
    out = poisoned(nb, np.int64)
    k_block_sums[nb, TPB](x, out)
    padded = np.zeros(nb * TPB, np.int64)
    padded[:n] = x
    np.testing.assert_array_equal(out, padded.reshape(nb, TPB).sum(1))


@cuda.jit
def k_reverse_live(x, out):
    # Reverses each block's live part through shared memory, with two
    # barriers after threads returned at different points.
    sm = cuda.shared.array(TPB, np.float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    if i >= x.size:
        return
    live = min(TPB, x.size - cuda.blockIdx.x * TPB)
    sm[t] = x[i]
    cuda.syncthreads()
    v = sm[live - 1 - t]
    cuda.syncthreads()
    if t % 3 == 2:
        return  # more threads leave between the barriers
    sm[t] = v * 2.0
    cuda.syncthreads()
    out[i] = sm[t]


def test_barriers_with_threads_leaving_between_them(backend, rng):
    n = 3 * TPB + 100
    x = rng.standard_normal(n).astype(np.float32)
    out = poisoned(n, np.float32)
    nb = (n + TPB - 1) // TPB
    k_reverse_live[nb, TPB](x, out)
    expect = np.empty(n, np.float32)
    for b in range(nb):
        seg = x[b * TPB:(b + 1) * TPB]
        expect[b * TPB:b * TPB + seg.size] = seg[::-1] * np.float32(2)
    kept = np.arange(n) % TPB % 3 != 2
    np.testing.assert_array_equal(out[kept], expect[kept])
    assert np.isnan(out[~kept]).all()


@cuda.jit
def k_reduce_live(x, live, counts, alls, anys):
    # Threads t >= live[block] return first; the others reduce x > 0.5.
    t = cuda.threadIdx.x
    b = cuda.blockIdx.x
    if t >= live[b]:
        return
    i = cuda.grid(1)
    p = x[i] > 0.5
    counts[i] = cuda.syncthreads_count(p)
    alls[i] = cuda.syncthreads_and(p)
    anys[i] = cuda.syncthreads_or(p)


@pytest.mark.parametrize("tpb", [33, 128, 1024])
def test_barrier_reductions_see_only_live_threads(backend, rng, tpb):
    nb = 5
    live = rng.integers(1, tpb + 1, nb).astype(np.int32)
    live[0] = tpb
    x = rng.random(nb * tpb)
    xb = x.reshape(nb, tpb)
    xb[1, :live[1]] = 0.9     # every live predicate true...
    xb[1, live[1]:] = 0.1     # ...the exited threads' false
    xb[2, :live[2]] = 0.1     # no live predicate true...
    xb[2, live[2]:] = 0.9     # ...the exited threads' true
    counts = poisoned(nb * tpb, np.int32)
    alls = poisoned(nb * tpb, np.int32)
    anys = poisoned(nb * tpb, np.int32)
    k_reduce_live[nb, tpb](x, live, counts, alls, anys)
    for b in range(nb):
        p = xb[b, :live[b]] > 0.5
        rows = slice(b * tpb, b * tpb + live[b])
        np.testing.assert_array_equal(counts[rows], p.sum())
        np.testing.assert_array_equal(alls[rows], int(p.all()))
        np.testing.assert_array_equal(anys[rows], int(p.any()))
        gone = slice(b * tpb + live[b], (b + 1) * tpb)
        assert (counts[gone] == np.iinfo(np.int32).min + 7).all()


# ---- grid barrier ------------------------------------------------------------------


@cuda.jit(device=True)
def _heat_step(src, dst, i, k):
    n = src.size
    if i == 0 or i == n - 1:
        dst[i] = src[i]  # fixed boundary
    else:
        dst[i] = src[i] + k * (src[i - 1] - 2.0 * src[i] + src[i + 1])


@cuda.jit
def k_heat(buf0, buf1, steps, k):
    # numba-cuda's documented Laplace example, in our words: threads past
    # the end of the rod return, the rest step in time with a grid barrier
    # between steps, ping-ponging two buffers.
    i = cuda.grid(1)
    if i >= buf0.size:
        return
    g = cuda.cg.this_grid()
    for step in range(steps):
        if step % 2 == 0:
            _heat_step(buf0, buf1, i, k)
        else:
            _heat_step(buf1, buf0, i, k)
        g.sync()


def heat_reference(u, steps, k):
    a, b = u.copy(), u.copy()
    for step in range(steps):
        src, dst = (a, b) if step % 2 == 0 else (b, a)
        dst[0], dst[-1] = src[0], src[-1]
        dst[1:-1] = src[1:-1] + k * (src[:-2] - 2.0 * src[1:-1] + src[2:])
    return a, b


@pytest.mark.parametrize("n, tpb", [(1001, 256), (300, 64), (129, 128)])
def test_laplace_grid_sync_after_early_return(backend, rng, n, tpb):
    steps, k = 40, 0.25
    u = np.zeros(n)
    u[n // 2] = 1000.0
    u[rng.integers(1, n - 1, 5)] = rng.random(5) * 100.0
    buf0 = u.copy()
    buf1 = poisoned(n, np.float64)
    nb = (n + tpb - 1) // tpb  # the last block is partly past the end
    k_heat[nb, tpb](buf0, buf1, steps, k)
    a, b = heat_reference(u, steps, k)
    np.testing.assert_allclose(buf0, a, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(buf1, b, rtol=1e-12, atol=1e-12)


@cuda.jit
def k_segment_starts(keys, labels):
    # numba-cuda's documented sessionize example, in our words: only the
    # threads at a segment start reach the grid barrier (the others
    # return); after it, each fills its segment with its own index.
    i = cuda.grid(1)
    n = keys.size
    if i >= n:
        return
    if i > 0 and keys[i] == keys[i - 1]:
        return
    labels[i] = i
    cuda.cg.this_grid().sync()
    j = i + 1
    while j < n and labels[j] < 0:
        labels[j] = i
        j += 1


@pytest.mark.parametrize("n, tpb, longest", [(28, 32, 6), (1000, 128, 20), (4000, 256, 50)])
def test_sessionize_only_segment_starts_sync(backend, rng, n, tpb, longest):
    # Segments shorter than a block: every block has a segment start, and
    # thread 0 of a block is often not one (it returns before the barrier).
    lengths = rng.integers(1, longest + 1, n)
    keys = np.repeat(np.arange(n), lengths)[:n].astype(np.int64)
    labels = np.full(n, -1, np.int64)
    nb = (n + tpb - 1) // tpb
    k_segment_starts[nb, tpb](keys, labels)
    starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
    expect = starts[np.searchsorted(starts, np.arange(n), side="right") - 1]
    np.testing.assert_array_equal(labels, expect)
    if nb > 1:  # the data exercise blocks whose thread 0 returned
        assert any(b * tpb not in set(starts) for b in range(nb))


@cuda.jit
def k_leader_gone(counter, seen, rounds):
    # Thread 0 of every block returns at once; the others count themselves,
    # meet at the grid barrier and read the total, several times.
    if cuda.threadIdx.x == 0:
        return
    g = cuda.cg.this_grid()
    for r in range(rounds):
        cuda.atomic.add(counter, r, 1)
        g.sync()
        seen[r, cuda.grid(1)] = counter[r]
        g.sync()


def test_grid_sync_when_thread_zero_returned(backend):
    nb, tpb, rounds = 6, 96, 3
    counter = np.zeros(rounds, np.int64)
    seen = poisoned((rounds, nb * tpb), np.int64)
    k_leader_gone[nb, tpb](counter, seen, rounds)
    live = np.arange(nb * tpb) % tpb != 0
    np.testing.assert_array_equal(seen[:, live], nb * (tpb - 1))
    assert (seen[:, ~live] == np.iinfo(np.int64).min + 7).all()


# ---- still deadlocks ----------------------------------------------------------------


@cuda.jit
def k_divergent_barriers(x):
    t = cuda.threadIdx.x
    if t < 16:
        cuda.syncthreads()
        x[t] = 1
    else:
        cuda.syncthreads()
        x[t] = 2


def test_divergent_barriers_are_a_deadlock(backend):
    if backend != "cpu":
        pytest.skip("undefined behaviour on a GPU; the CPU executor reports it")
    x = np.zeros(64, np.int32)
    with pytest.raises(errors.KernelDeadlockError) as info:
        k_divergent_barriers[1, 64](x)
    text = str(info.value)
    assert "different syncthreads" in text, text
    line = k_divergent_barriers.py_func.__code__.co_firstlineno
    assert f"line {line + 4}: 16 threads" in text and f"line {line + 7}: 48 threads" in text, text


@cuda.jit
def k_barrier_vs_grid(x):
    if cuda.threadIdx.x < 32:
        cuda.syncthreads()
    else:
        cuda.cg.this_grid().sync()
    x[cuda.grid(1)] = 1


def test_barrier_against_grid_barrier_is_a_deadlock(backend):
    if backend != "cpu":
        pytest.skip("undefined behaviour on a GPU; the CPU executor reports it")
    x = np.zeros(2 * 64, np.int8)
    with pytest.raises(errors.KernelDeadlockError, match="wait at syncthreads"):
        k_barrier_vs_grid[2, 64](x)
