"""Block-level semantics: barriers, shared memory, checked mode, launch
limits.  The same tests run on the GPU."""
import numpy as np
import pytest

from pycuda_jit import cuda, errors
from gpu_util import poisoned

TPB = 128


@cuda.jit
def tree_sum(x, out):
    sm = cuda.shared.array(TPB, np.float32)
    tid = cuda.threadIdx.x
    i = cuda.grid(1)
    sm[tid] = x[i] if i < x.size else 0.0
    cuda.syncthreads()
    s = TPB // 2
    while s > 0:
        if tid < s:
            sm[tid] += sm[tid + s]
        cuda.syncthreads()
        s //= 2
    if tid == 0:
        out[cuda.blockIdx.x] = sm[0]


def test_shared_memory_tree_reduction(backend, rng):
    n = 10_000
    x = rng.random(n, dtype=np.float32)
    nb = (n + TPB - 1) // TPB
    out = poisoned(nb, np.float32)
    tree_sum[nb, TPB](x, out)
    pad = np.zeros(nb * TPB, np.float32)
    pad[:n] = x
    np.testing.assert_allclose(out, pad.reshape(nb, TPB).sum(axis=1), rtol=1e-5)


@cuda.jit
def reverse_block(x, out):
    sm = cuda.shared.array((2, 64), np.int32)
    t = cuda.threadIdx.x
    b = cuda.blockIdx.x
    sm[0, t] = x[b * 64 + t]
    cuda.syncthreads()
    sm[1, t] = sm[0, 63 - t] * 2  # read another thread's write
    cuda.syncthreads()
    out[b * 64 + t] = sm[1, (t + 1) % 64]


def test_threads_read_each_others_shared_writes(backend, rng):
    x = rng.integers(-1000, 1000, 64 * 5).astype(np.int32)
    out = poisoned(64 * 5, np.int32)
    reverse_block[5, 64](x, out)
    blocks = x.reshape(5, 64)
    expect = np.roll(blocks[:, ::-1] * 2, -1, axis=1).reshape(-1)
    np.testing.assert_array_equal(out, expect)


@cuda.jit
def local_scratch(x, out):
    i = cuda.grid(1)
    if i < x.shape[0]:
        tmp = cuda.local.array(8, np.float64)
        for k in range(8):
            tmp[k] = x[i, k] * (k + 1)
        acc = 0.0
        for k in range(7, -1, -1):
            acc = acc * 0.5 + tmp[k]
        out[i] = acc


def test_local_array(backend, rng):
    x = rng.random((100, 8))
    out = poisoned(100, np.float64)
    local_scratch[1, 128](x, out)
    expect = np.zeros(100)
    for k in range(7, -1, -1):
        expect = expect * 0.5 + x[:, k] * (k + 1)
    np.testing.assert_allclose(out, expect)


@cuda.jit(debug=True)
def checked_write(x, n):
    i = cuda.grid(1)
    if i < n:
        x[i] = 1.0


def test_checked_mode_reports_out_of_bounds(backend):
    # Both targets (a GPU through its error record, without a trap).
    x = np.zeros(10, np.float32)
    with pytest.raises(IndexError) as info:
        checked_write[1, 32](x, 11)
    msg = str(info.value)
    assert "index 10 is out of bounds for axis 0 with size 10" in msg
    assert "checked_write" in msg and "test_cpu_executor.py" in msg
    assert "thread (10, 0, 0) block (0, 0, 0)" in msg
    # The process stays healthy: an in-bounds launch works afterwards.
    checked_write[1, 32](x, 10)
    assert (x == 1.0).all()


@cuda.jit
def partial_barrier(x):
    t = cuda.threadIdx.x
    if t >= 16:
        return  # exited threads count as arrived at the barrier
    cuda.syncthreads()
    x[t] = 1


def test_barrier_after_half_the_block_returned(backend):
    x = np.zeros(32, np.int32)
    partial_barrier[1, 32](x)
    np.testing.assert_array_equal(x, [1] * 16 + [0] * 16)


@cuda.jit
def divergent_barrier(x):
    t = cuda.threadIdx.x
    if t >= 16:
        cuda.syncthreads()
        return
    cuda.syncthreads()
    x[t] = 1


def test_divergent_barrier_is_a_deadlock_error(backend):
    if backend != "cpu":
        pytest.skip("deadlock detection is a CPU-executor feature; on a GPU this is "
                    "undefined behaviour")
    x = np.zeros(32, np.int32)
    with pytest.raises(errors.KernelDeadlockError, match="different syncthreads"):
        divergent_barrier[1, 32](x)
    tree_x = np.ones(TPB, np.float32)
    out = poisoned(1, np.float32)
    tree_sum[1, TPB](tree_x, out)
    assert out[0] == TPB


def test_launch_limits_are_the_gpus(backend):
    x = np.zeros(4, np.float32)
    with pytest.raises(errors.LaunchConfigError, match="1025"):
        checked_write[1, 1025](x, 4)
    with pytest.raises(errors.LaunchConfigError):
        checked_write[1, (1, 1, 65)](x, 4)
    with pytest.raises(ValueError):
        checked_write[0, 32](x, 4)
