"""Cooperative groups: cuda.cg.this_grid().sync() across every block of a
cooperatively launched grid (the GPU launch is cooperative when the kernel
uses grid sync; the CPU executor keeps every block alive)."""
import numpy as np
import pytest

from pycuda_jit import cuda, errors
from gpu_util import poisoned


@cuda.jit
def k_two_phase(x, tmp, out):
    i = cuda.grid(1)
    n = x.size
    if i < n:
        tmp[i] = x[i] * 2.0
    g = cuda.cg.this_grid()
    g.sync()
    # phase 2 reads what other blocks wrote in phase 1
    if i < n:
        out[i] = tmp[(i + 1) % n] + tmp[n - 1 - i]


@pytest.mark.parametrize("blocks, tpb", [(1, 64), (8, 128), (24, 96)])
def test_grid_sync_two_phase(backend, rng, blocks, tpb):
    n = blocks * tpb - 5
    x = rng.standard_normal(n)
    tmp = poisoned(n, np.float64)
    out = poisoned(n, np.float64)
    k_two_phase[blocks, tpb](x, tmp, out)
    t = 2 * x
    np.testing.assert_array_equal(out, np.roll(t, -1) + t[::-1])


@cuda.jit
def k_jacobi(a, b, steps):
    # Repeated grid-wide barriers: a 1-d smoothing, ping-ponging buffers.
    i = cuda.grid(1)
    n = a.size
    for s in range(steps):
        if i < n:
            left = a[i - 1] if i > 0 else a[i]
            right = a[i + 1] if i < n - 1 else a[i]
            b[i] = 0.25 * left + 0.5 * a[i] + 0.25 * right
        cuda.cg.this_grid().sync()
        if i < n:
            a[i] = b[i]
        cuda.cg.this_grid().sync()


def test_grid_sync_many_rounds(backend, rng):
    n, steps = 1000, 25
    a = rng.random(n)
    expect = a.copy()
    for _ in range(steps):
        padded = np.concatenate([expect[:1], expect, expect[-1:]])
        expect = 0.25 * padded[:-2] + 0.5 * padded[1:-1] + 0.25 * padded[2:]
    b = poisoned(n, np.float64)
    k_jacobi[8, 128](a, b, steps)
    np.testing.assert_allclose(a, expect, rtol=1e-12)


@cuda.jit
def k_grid_count(counter, seen):
    # every thread counts itself, the grid syncs, every thread reads the total
    cuda.atomic.add(counter, 0, 1)
    cuda.cg.this_grid().sync()
    seen[cuda.grid(1)] = counter[0]


def test_grid_sync_orders_atomics(backend):
    blocks, tpb = 16, 64
    counter = np.zeros(1, np.int64)
    seen = poisoned(blocks * tpb, np.int64)
    k_grid_count[blocks, tpb](counter, seen)
    np.testing.assert_array_equal(seen, blocks * tpb)


@cuda.jit
def k_grid_big(x):
    cuda.cg.this_grid().sync()
    x[cuda.grid(1)] = 1


def test_grid_too_large_is_a_clear_error(backend):
    blocks, tpb = 4096, 1024
    x = cuda.device_array(blocks * tpb, np.int8)
    with pytest.raises(Exception) as info:
        k_grid_big[blocks, tpb](x)
        cuda.synchronize()
    text = str(info.value)
    if backend == "cpu":
        assert isinstance(info.value, errors.KernelError), type(info.value)
        assert "needs all 4096 blocks" in text and "grid-stride loop" in text
    else:
        assert "COOPERATIVE_LAUNCH_TOO_LARGE" in text


@cuda.jit
def k_grid_early_return(x):
    if cuda.blockIdx.x == 1:
        return  # never reaches the grid barrier: the others wait forever
    cuda.cg.this_grid().sync()
    x[cuda.grid(1)] = 1


def test_grid_sync_deadlock_detected_on_cpu(backend):
    if backend != "cpu":
        pytest.skip("on a GPU this kernel hangs; the CPU executor diagnoses it")
    x = np.zeros(4 * 32, np.int8)
    with pytest.raises(errors.KernelError) as info:
        k_grid_early_return[4, 32](x)
    text = str(info.value)
    assert "deadlock" in text and "returned without reaching it" in text
