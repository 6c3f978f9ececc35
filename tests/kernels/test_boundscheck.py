"""Array bounds: checked by default on the CPU executor (an out-of-bounds
access raises KernelIndexError naming the thread, block, file:line, index and
shape instead of corrupting the interpreter), unchecked by default on the GPU
(debug=True or boundscheck=True check there).  boundscheck=False, or
PYCUDA_JIT_BOUNDSCHECK=0, turns the checks off."""
import numpy as np
import pytest

from pycuda_jit import cuda, errors
from gpu_util import poisoned


def checked(kernel):
    """Whether the kernel's lowered IR has bounds checks (either target)."""
    text = kernel.inspect_stage("llvm", kernel.signatures[0])
    return "pcj_cpu_index_error" in text or "IndexError:" in text


def cpu_only(backend):
    if backend != "cpu":
        pytest.skip("on the GPU an out-of-bounds access is unchecked by default "
                    "(boundscheck=True: test_kernel_raise.py::"
                    "test_bounds_check_raises_with_index_and_shape)")


@cuda.jit
def k_write_n(x, n):
    i = cuda.grid(1)
    if i < n:
        x[i] = 1.0


def test_out_of_bounds_raises_by_default(backend):
    cpu_only(backend)
    x = np.zeros(10, np.float32)
    with pytest.raises(errors.KernelIndexError) as info:
        k_write_n[1, 32](x, 11)
    msg = str(info.value)
    line = k_write_n.py_func.__code__.co_firstlineno + 4
    assert "index 10 is out of bounds for axis 0 with size 10" in msg, msg
    assert "index (10,) into shape (10,)" in msg, msg
    assert f"test_boundscheck.py:{line}" in msg, msg
    assert "thread (10, 0, 0) block (0, 0, 0)" in msg, msg
    assert "x[i] = 1.0" in msg, msg  # the source line
    assert isinstance(info.value, IndexError)
    # The process stays healthy and in-bounds launches work.
    k_write_n[1, 32](x, 10)
    np.testing.assert_array_equal(x, 1.0)


@cuda.jit
def k_read2d(a, rows, cols, out):
    i, j = cuda.grid(2)
    if i < rows and j < cols:
        out[i, j] = a[i, j + 1]


def test_second_axis_reports_the_whole_index_and_shape(backend):
    cpu_only(backend)
    a = np.arange(20.0).reshape(4, 5)
    out = poisoned((4, 5), np.float64)
    with pytest.raises(errors.KernelIndexError) as info:
        k_read2d[(1, 1), (8, 8)](a, 4, 5, out)
    msg = str(info.value)
    assert "index 5 is out of bounds for axis 1 with size 5" in msg, msg
    assert "into shape (4, 5)" in msg and ", 5) into" in msg, msg
    assert "block (0, 0, 0)" in msg
    k_read2d[(1, 1), (8, 8)](a, 4, 4, out)
    np.testing.assert_array_equal(out[:, :4], a[:, 1:])


@cuda.jit
def k_negative(x, k, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = x[i - k]  # Python wrap-around for -len(x) <= i - k < 0


def test_negative_indices_wrap_and_beyond_raise(backend, rng):
    x = rng.random(16)
    out = poisoned(16, np.float64)
    k_negative[1, 16](x, 3, out)
    np.testing.assert_array_equal(out, x[np.arange(16) - 3])
    if backend == "cpu":
        with pytest.raises(errors.KernelIndexError, match="index -17 is out of bounds"):
            k_negative[1, 16](x, 17, out)


def test_device_array_and_shared_memory_checked(backend):
    cpu_only(backend)

    @cuda.jit
    def k_shared(x):
        sm = cuda.shared.array(8, np.int32)
        t = cuda.threadIdx.x
        sm[t] = t  # 16 threads, 8 slots
        cuda.syncthreads()
        x[t] = sm[t]

    x = cuda.to_device(np.zeros(16, np.int32))
    with pytest.raises(errors.KernelIndexError, match="axis 0 with size 8"):
        k_shared[1, 16](x)


def test_boundscheck_false_removes_the_checks(backend):
    @cuda.jit(boundscheck=False)
    def k_unchecked(x, n):
        i = cuda.grid(1)
        if i < n:
            x[i] = 2.0

    @cuda.jit(boundscheck=True)
    def k_checked(x, n):
        i = cuda.grid(1)
        if i < n:
            x[i] = 2.0

    x = np.zeros(64, np.float32)
    k_unchecked[2, 32](x, 64)
    k_checked[2, 32](x, 64)
    np.testing.assert_array_equal(x, 2.0)
    assert not checked(k_unchecked)
    assert checked(k_checked)
    plain = cuda.jit(k_write_n.py_func)
    plain[1, 32](x, 10)
    assert checked(plain) == (backend == "cpu")  # the default per target


def test_environment_turns_checks_off(backend, monkeypatch):
    monkeypatch.setenv("PYCUDA_JIT_BOUNDSCHECK", "0")
    k = cuda.jit(k_write_n.py_func)
    x = np.zeros(8, np.float32)
    k[1, 8](x, 8)
    assert not checked(k)
    monkeypatch.setenv("PYCUDA_JIT_BOUNDSCHECK", "1")
    k2 = cuda.jit(boundscheck=False)(k_write_n.py_func)
    k2[1, 8](x, 8)
    assert checked(k2)  # the environment wins, as NUMBA_BOUNDSCHECK does
    monkeypatch.setenv("PYCUDA_JIT_BOUNDSCHECK", "yes")
    with pytest.raises(ValueError, match="PYCUDA_JIT_BOUNDSCHECK"):
        cuda.jit(k_write_n.py_func)


def test_debug_without_boundscheck(backend):
    k = cuda.jit(debug=True, boundscheck=False)(k_write_n.py_func)
    x = np.zeros(8, np.float32)
    k[1, 8](x, 8)
    assert not checked(k)


def test_tuple_indices_are_bounds_checked_too(backend):
    cpu_only(backend)

    @cuda.jit
    def pick(idx, out):
        i = cuda.grid(1)
        if i < idx.size:
            t = (1.5, 2.5, 3.5)
            out[i] = t[idx[i]]

    out = poisoned(4, np.float64)
    with pytest.raises(errors.KernelIndexError, match="tuple index out of range"):
        pick[1, 4](np.array([0, 1, 2, 3]), out)
    pick[1, 3](np.array([2, -1, -3]), out)
    np.testing.assert_array_equal(out[:3], [3.5, 3.5, 1.5])
