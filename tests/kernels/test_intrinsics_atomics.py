"""cuda.atomic.*: every operation on every dtype numba-cuda supports, on
global and shared arrays, with int and tuple indices, returning the old
value.  Many threads hit few elements, so the operations really race; the
returned old values must then form one serial history per element: the
multiset of (old -> op(old, val)) steps chains from the initial value to
the final one."""
from collections import Counter

import numpy as np
import pytest

from pycuda_jit import cuda
from gpu_util import poisoned

INTS = [np.int32, np.int64, np.uint32, np.uint64]
FLOATS = [np.float32, np.float64]


# ---- one kernel per operation; specialized per dtype --------------------------

@cuda.jit
def k_add(arr, idx, vals, old):
    i = cuda.grid(1)
    if i < vals.size:
        old[i] = cuda.atomic.add(arr, idx[i], vals[i])


@cuda.jit
def k_sub(arr, idx, vals, old):
    i = cuda.grid(1)
    if i < vals.size:
        old[i] = cuda.atomic.sub(arr, idx[i], vals[i])


@cuda.jit
def k_and(arr, idx, vals, old):
    i = cuda.grid(1)
    if i < vals.size:
        old[i] = cuda.atomic.and_(arr, idx[i], vals[i])


@cuda.jit
def k_or(arr, idx, vals, old):
    i = cuda.grid(1)
    if i < vals.size:
        old[i] = cuda.atomic.or_(arr, idx[i], vals[i])


@cuda.jit
def k_xor(arr, idx, vals, old):
    i = cuda.grid(1)
    if i < vals.size:
        old[i] = cuda.atomic.xor(arr, idx[i], vals[i])


@cuda.jit
def k_exch(arr, idx, vals, old):
    i = cuda.grid(1)
    if i < vals.size:
        old[i] = cuda.atomic.exch(arr, idx[i], vals[i])


@cuda.jit
def k_max(arr, idx, vals, old):
    i = cuda.grid(1)
    if i < vals.size:
        old[i] = cuda.atomic.max(arr, idx[i], vals[i])


@cuda.jit
def k_min(arr, idx, vals, old):
    i = cuda.grid(1)
    if i < vals.size:
        old[i] = cuda.atomic.min(arr, idx[i], vals[i])


@cuda.jit
def k_nanmax(arr, idx, vals, old):
    i = cuda.grid(1)
    if i < vals.size:
        old[i] = cuda.atomic.nanmax(arr, idx[i], vals[i])


@cuda.jit
def k_nanmin(arr, idx, vals, old):
    i = cuda.grid(1)
    if i < vals.size:
        old[i] = cuda.atomic.nanmin(arr, idx[i], vals[i])


@cuda.jit
def k_inc(arr, idx, vals, old):
    i = cuda.grid(1)
    if i < vals.size:
        old[i] = cuda.atomic.inc(arr, idx[i], vals[i])


@cuda.jit
def k_dec(arr, idx, vals, old):
    i = cuda.grid(1)
    if i < vals.size:
        old[i] = cuda.atomic.dec(arr, idx[i], vals[i])


def np_inc(old, val):
    return old.dtype.type(0) if old >= val else old + old.dtype.type(1)


def np_dec(old, val):
    return val if (old == 0 or old > val) else old - old.dtype.type(1)


def fmax_numba(old, val):  # max/min leave NaN alone on either side
    return old if (np.isnan(old) or np.isnan(val)) else max(old, val)


def fmin_numba(old, val):
    return old if (np.isnan(old) or np.isnan(val)) else min(old, val)


def fnanmax(old, val):  # NaN is a missing value
    return old if np.isnan(val) else (val if np.isnan(old) else max(old, val))


def fnanmin(old, val):
    return old if np.isnan(val) else (val if np.isnan(old) else min(old, val))


def key(x):
    x = np.asarray(x)
    return x.tobytes()  # exact, and NaN == NaN


def check_history(init, final, idx, vals, olds, op):
    """Per element: the steps old -> op(old, val) chain init to final."""
    for j in range(init.size):
        sel = idx == j
        befores = Counter(key(o) for o in olds[sel])
        afters = Counter(key(op(o, v)) for o, v in zip(olds[sel], vals[sel]))
        befores[key(final[j])] += 1
        afters[key(init[j])] += 1
        assert befores == afters, f"element {j}: no serial history explains the old values"


def run(kernel, init, idx, vals):
    arr = init.copy()
    old = poisoned(vals.size, init.dtype)
    kernel[(vals.size + 127) // 128, 128](arr, idx, vals, old)
    return arr, old


def int_vals(rng, dt, n, lo=0, hi=1000):
    return rng.integers(lo, hi, n).astype(dt)


N, M = 3000, 5  # threads, elements


@pytest.mark.parametrize("dt", INTS + FLOATS, ids=lambda d: np.dtype(d).name)
def test_add(backend, rng, dt):
    idx = rng.integers(0, M, N).astype(np.int64)
    if np.dtype(dt).kind == "f":
        vals = (rng.random(N) * 8).astype(dt)
        init = (rng.random(M) * 8).astype(dt)
    else:
        vals = int_vals(rng, dt, N)
        init = int_vals(rng, dt, M)
    arr, old = run(k_add, init, idx, vals)
    check_history(init, arr, idx, vals, old, lambda o, v: o + v)
    if np.dtype(dt).kind == "f":
        expect = init.astype(np.float64) + np.bincount(idx, vals.astype(np.float64), M)
        np.testing.assert_allclose(arr, expect, rtol=1e-4)
    else:
        np.testing.assert_array_equal(arr, init + np.bincount(idx, vals, M).astype(dt))


def test_add_float16(backend, rng):
    # Small integers are exact in float16, so any order gives the same sum.
    idx = rng.integers(0, M, 600).astype(np.int64)
    vals = rng.integers(0, 4, 600).astype(np.float16)
    init = rng.integers(0, 8, M).astype(np.float16)
    arr, old = run(k_add, init, idx, vals)
    np.testing.assert_array_equal(arr, init + np.bincount(idx, vals.astype(np.float64), M))
    check_history(init, arr, idx, vals, old, lambda o, v: o + v)


@pytest.mark.parametrize("dt", INTS + FLOATS, ids=lambda d: np.dtype(d).name)
def test_sub(backend, rng, dt):
    idx = rng.integers(0, M, N).astype(np.int64)
    if np.dtype(dt).kind == "f":
        vals = (rng.random(N) * 8).astype(dt)
        init = np.full(M, 20000, dt)
    else:
        vals = int_vals(rng, dt, N, 0, 50)
        init = np.full(M, 10**6, dt)
    arr, old = run(k_sub, init, idx, vals)
    check_history(init, arr, idx, vals, old, lambda o, v: o - v)


@pytest.mark.parametrize("name", ["and", "or", "xor"])
@pytest.mark.parametrize("dt", INTS, ids=lambda d: np.dtype(d).name)
def test_bitwise(backend, rng, dt, name):
    kernel, op = {"and": (k_and, np.bitwise_and), "or": (k_or, np.bitwise_or),
                  "xor": (k_xor, np.bitwise_xor)}[name]
    bits = np.iinfo(dt).bits
    idx = rng.integers(0, M, N).astype(np.int64)
    # Mostly-set masks for and, sparse bits for or, random for xor.
    raw = rng.integers(0, 2**63, N, dtype=np.uint64)
    if name == "and":
        raw |= rng.integers(0, 2**63, N, dtype=np.uint64)
    vals = (raw >> np.uint64(64 - bits)).astype(dt) if bits < 64 else raw.astype(dt)
    init = np.full(M, -1 if np.dtype(dt).kind == "i" else np.iinfo(dt).max, dt) \
        if name == "and" else np.zeros(M, dt)
    arr, old = run(kernel, init, idx, vals)
    check_history(init, arr, idx, vals, old, lambda o, v: op(o, v))
    for j in range(M):
        np.testing.assert_equal(arr[j], op.reduce(np.concatenate([[init[j]], vals[idx == j]])).astype(dt))


@pytest.mark.parametrize("dt", INTS + FLOATS, ids=lambda d: np.dtype(d).name)
def test_exch(backend, rng, dt):
    idx = rng.integers(0, M, N).astype(np.int64)
    vals = np.arange(N).astype(dt) + dt(1)  # distinct
    init = np.zeros(M, dt)
    arr, old = run(k_exch, init, idx, vals)
    check_history(init, arr, idx, vals, old, lambda o, v: v)


@pytest.mark.parametrize("name", ["max", "min"])
@pytest.mark.parametrize("dt", INTS + FLOATS, ids=lambda d: np.dtype(d).name)
def test_max_min(backend, rng, dt, name):
    kernel = k_max if name == "max" else k_min
    idx = rng.integers(0, M, N).astype(np.int64)
    if np.dtype(dt).kind == "f":
        vals = rng.standard_normal(N).astype(dt) * dt(100)
        op = fmax_numba if name == "max" else fmin_numba
    else:
        vals = int_vals(rng, dt, N, 0, 10**6)
        op = max if name == "max" else min
    init = np.full(M, 500000 if np.dtype(dt).kind != "f" else 0, dt)
    arr, old = run(kernel, init, idx, vals)
    check_history(init, arr, idx, vals, old, op)
    red = np.maximum if name == "max" else np.minimum
    for j in range(M):
        np.testing.assert_equal(arr[j], red.reduce(np.concatenate([[init[j]], vals[idx == j]])))


@pytest.mark.parametrize("dt", FLOATS, ids=lambda d: np.dtype(d).name)
def test_float_max_min_nan_rules(backend, dt):
    """numba-cuda: max/min ignore the update when either side is NaN;
    nanmax/nanmin treat NaN as missing."""
    nan = dt(np.nan)
    # element, value pairs: (1, 2), (NaN, 2), (1, NaN), (NaN, NaN), (3, -1)
    init = np.array([1, nan, 1, nan, 3], dt)
    vals = np.array([2, 2, nan, nan, -1], dt)
    idx = np.arange(5, dtype=np.int64)
    cases = {
        k_max: [2, nan, 1, nan, 3],
        k_min: [1, nan, 1, nan, -1],
        k_nanmax: [2, 2, 1, nan, 3],
        k_nanmin: [1, 2, 1, nan, -1],
    }
    for kernel, expect in cases.items():
        arr, old = run(kernel, init, idx, vals)
        np.testing.assert_array_equal(arr, np.array(expect, dt), err_msg=kernel.py_func.__name__)
        np.testing.assert_array_equal(old, init)


@pytest.mark.parametrize("name", ["nanmax", "nanmin"])
@pytest.mark.parametrize("dt", INTS + FLOATS, ids=lambda d: np.dtype(d).name)
def test_nanmax_nanmin_racing(backend, rng, dt, name):
    kernel = k_nanmax if name == "nanmax" else k_nanmin
    idx = rng.integers(0, M, N).astype(np.int64)
    if np.dtype(dt).kind == "f":
        vals = rng.standard_normal(N).astype(dt)
        vals[rng.random(N) < 0.2] = np.nan
        init = np.array([np.nan, 0, 0, np.nan, 1], dt)
        op = fnanmax if name == "nanmax" else fnanmin
    else:
        vals = int_vals(rng, dt, N, 0, 10**6)
        init = np.full(M, 500000, dt)
        op = max if name == "nanmax" else min
    arr, old = run(kernel, init, idx, vals)
    check_history(init, arr, idx, vals, old, op)
    red = np.fmax if name == "nanmax" else np.fmin
    for j in range(M):
        np.testing.assert_equal(arr[j], red.reduce(np.concatenate([[init[j]], vals[idx == j]])))


@pytest.mark.parametrize("dt", [np.uint32, np.uint64], ids=lambda d: np.dtype(d).name)
def test_inc_dec(backend, rng, dt):
    idx = rng.integers(0, M, N).astype(np.int64)
    limit = rng.integers(50, 400, N).astype(dt)
    init = np.array([0, 10, 399, 1000, 7], dt)
    arr, old = run(k_inc, init, idx, limit)
    check_history(init, arr, idx, limit, old, np_inc)
    arr, old = run(k_dec, init, idx, limit)
    check_history(init, arr, idx, limit, old, np_dec)


def test_inc_dec_wrap_exactly(backend):
    # One thread: the documented formulas at their edges.
    idx = np.zeros(1, np.int64)
    for start, val, inc, dec in [(5, 5, 0, 4), (4, 5, 5, 3), (0, 5, 1, 5), (9, 5, 0, 5)]:
        arr, old = run(k_inc, np.array([start], np.uint32), idx, np.array([val], np.uint32))
        assert (arr[0], old[0]) == (inc, start)
        arr, old = run(k_dec, np.array([start], np.uint64), idx, np.array([val], np.uint64))
        assert (arr[0], old[0]) == (dec, start)


# ---- cas, compare_and_swap, a spin lock ------------------------------------------

@cuda.jit
def k_cas(arr, idx, expect, vals, old):
    i = cuda.grid(1)
    if i < vals.size:
        old[i] = cuda.atomic.cas(arr, idx[i], expect[i], vals[i])


@pytest.mark.parametrize("dt", INTS, ids=lambda d: np.dtype(d).name)
def test_cas_claims_each_slot_once(backend, rng, dt):
    # Every thread tries to claim a slot (0 -> its id + 1): exactly one wins
    # per slot, and everyone else sees the winner's id.
    idx = rng.integers(0, M, N).astype(np.int64)
    vals = (np.arange(N) + 1).astype(dt)
    arr = np.zeros(M, dt)
    old = poisoned(N, dt)
    k_cas[(N + 127) // 128, 128](arr, idx, np.zeros(N, dt), vals, old)
    for j in range(M):
        sel = idx == j
        winners = vals[sel][old[sel] == 0]
        assert winners.size == 1
        assert arr[j] == winners[0]
        assert (old[sel][old[sel] != 0] == winners[0]).all()


@cuda.jit
def k_compare_and_swap(arr, expect, vals, old):
    i = cuda.grid(1)
    if i < vals.size:
        old[i] = cuda.atomic.compare_and_swap(arr, expect[i], vals[i])


def test_compare_and_swap_chain(backend):
    # Thread i swaps i -> i + 1: the counter walks 0 -> N only if each
    # swap happens exactly when the value matches.
    n = 512
    arr = np.zeros(1, np.int64)
    old = poisoned(n, np.int64)
    for _ in range(n):  # bounded: each round at least one thread succeeds
        k_compare_and_swap[4, 128](arr, np.arange(n, dtype=np.int64),
                                   np.arange(1, n + 1, dtype=np.int64), old)
        if arr[0] == n:
            break
    assert arr[0] == n


@cuda.jit
def k_spin_lock(lock, counter, trace):
    # One thread per block takes a global lock and does a non-atomic
    # read-modify-write inside it.
    if cuda.threadIdx.x == 0:
        while cuda.atomic.cas(lock, 0, 0, 1) != 0:
            cuda.nanosleep(32)
        cuda.threadfence()
        v = counter[0]
        trace[cuda.blockIdx.x] = v
        counter[0] = v + 1
        cuda.threadfence()
        cuda.atomic.exch(lock, 0, 0)


def test_cas_spin_lock(backend):
    blocks = 64
    lock = np.zeros(1, np.int32)
    counter = np.zeros(1, np.int64)
    trace = poisoned(blocks, np.int64)
    k_spin_lock[blocks, 32](lock, counter, trace)
    assert counter[0] == blocks
    assert sorted(trace) == list(range(blocks))  # each block saw a distinct value
    assert lock[0] == 0


# ---- shared memory, tuple indices, unused results ------------------------------------

NBINS = 64


@cuda.jit
def k_histogram(x, hist):
    sm = cuda.shared.array(NBINS, np.uint32)
    t = cuda.threadIdx.x
    for b in range(t, NBINS, cuda.blockDim.x):
        sm[b] = 0
    cuda.syncthreads()
    i = cuda.grid(1)
    stride = cuda.gridsize(1)
    while i < x.size:
        cuda.atomic.add(sm, x[i] % NBINS, 1)  # result unused: PTX red
        i += stride
    cuda.syncthreads()
    for b in range(t, NBINS, cuda.blockDim.x):
        cuda.atomic.add(hist, b, sm[b])


def test_histogram_shared_atomics(backend, rng):
    x = rng.integers(0, 10**6, 100_000).astype(np.int64)
    hist = np.zeros(NBINS, np.uint32)
    k_histogram[32, 256](x, hist)
    np.testing.assert_array_equal(hist, np.bincount(x % NBINS, minlength=NBINS))


@cuda.jit
def k_shared_old(idx, old, final):
    sm = cuda.shared.array(4, np.int64)
    t = cuda.threadIdx.x
    if t < 4:
        sm[t] = 100 * t
    cuda.syncthreads()
    old[cuda.grid(1)] = cuda.atomic.add(sm, idx[cuda.grid(1)], 1)
    cuda.syncthreads()
    if t < 4:
        final[cuda.blockIdx.x, t] = sm[t]


def test_shared_atomics_return_old(backend, rng):
    blocks, tpb = 6, 128
    idx = rng.integers(0, 4, blocks * tpb).astype(np.int64)
    old = poisoned(blocks * tpb, np.int64)
    final = poisoned((blocks, 4), np.int64)
    k_shared_old[blocks, tpb](idx, old, final)
    for b in range(blocks):
        sel = slice(b * tpb, (b + 1) * tpb)
        counts = np.bincount(idx[sel], minlength=4)
        np.testing.assert_array_equal(final[b], np.arange(4) * 100 + counts)
        for j in range(4):
            got = np.sort(old[sel][idx[sel] == j])
            np.testing.assert_array_equal(got, 100 * j + np.arange(counts[j]))


@cuda.jit
def k_tuple_index(grid2d, rows, cols, vals):
    i = cuda.grid(1)
    if i < vals.size:
        cuda.atomic.add(grid2d, (rows[i], cols[i]), vals[i])
        cuda.atomic.max(grid2d, (0, 0), vals[i])


def test_tuple_index_2d(backend, rng):
    n = 5000
    rows = rng.integers(1, 4, n).astype(np.int32)
    cols = rng.integers(0, 5, n).astype(np.int64)
    vals = rng.integers(1, 100, n).astype(np.int32)
    g = np.zeros((4, 5), np.int32)
    k_tuple_index[(n + 255) // 256, 256](g, rows, cols, vals)
    expect = np.zeros((4, 5), np.int32)
    np.add.at(expect, (rows, cols), vals)
    expect[0, 0] = vals.max()
    np.testing.assert_array_equal(g, expect)


@cuda.jit
def k_float_sum(x, out):
    i = cuda.grid(1)
    if i < x.size:
        cuda.atomic.add(out, 0, x[i])
        cuda.atomic.sub(out, 1, x[i])


@pytest.mark.parametrize("dt", FLOATS, ids=lambda d: np.dtype(d).name)
def test_float_sum_unused_result(backend, rng, dt):
    x = rng.random(20_000).astype(dt)
    out = np.zeros(2, dt)
    k_float_sum[(x.size + 255) // 256, 256](x, out)
    np.testing.assert_allclose(out, [x.sum(dtype=np.float64), -x.sum(dtype=np.float64)],
                               rtol=1e-4 if dt == np.float32 else 1e-12)
