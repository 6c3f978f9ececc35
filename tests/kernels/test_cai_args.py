"""Objects that expose only __cuda_array_interface__ (as CuPy arrays, torch
tensors or other libraries' device arrays do) are kernel arguments, zero-copy,
on the GPU and on the CPU executor: shape, strides, typestr, the readonly
flag and the stream field are honoured."""
import numpy as np
import pytest

from pycuda_jit import cuda
from gpu_util import poisoned


class Foreign:
    """Another library's device array: nothing but the interface."""

    def __init__(self, desc, owner):
        self.__cuda_array_interface__ = desc
        self._owner = owner  # keeps the memory alive


def foreign(d, **changes):
    desc = dict(d.__cuda_array_interface__)
    desc.update(changes)
    return Foreign(desc, d)


@cuda.jit
def k_axpy(a, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int16, np.uint32])
def test_foreign_arrays_as_arguments(backend, rng, dtype):
    n = 1000
    # Integers: a * x + y is exact, fused into an fma or not.
    hx = rng.integers(0, 1000, n).astype(dtype)
    hy = rng.integers(0, 1000, n).astype(dtype)
    dx, dy = cuda.to_device(hx), cuda.to_device(hy)
    dout = cuda.to_device(poisoned(n, dtype))
    a = dtype(3)
    k_axpy[(n + 127) // 128, 128](a, foreign(dx), foreign(dy), foreign(dout))
    np.testing.assert_array_equal(dout.copy_to_host(), a * hx + hy)


@cuda.jit
def k_copy2d(src, dst):
    i, j = cuda.grid(2)
    if i < dst.shape[0] and j < dst.shape[1]:
        dst[i, j] = src[i, j] * 2


def test_strides_from_the_interface(backend, rng):
    m, n = 37, 23
    host = rng.integers(-100, 100, (m, n)).astype(np.int64)
    d = cuda.to_device(host)
    # The transpose, described by the interface alone: shape (n, m), strides
    # (8, 8 * n) over the C-ordered (m, n) buffer.
    t = foreign(d, shape=(n, m), strides=(8, 8 * n))
    out = cuda.to_device(poisoned((n, m), np.int64))
    k_copy2d[(2, 3), (16, 16)](t, foreign(out))
    np.testing.assert_array_equal(out.copy_to_host(), host.T * 2)
    # A strided view's own interface (every third row, every other column).
    v = d[::3, ::2]
    out2 = cuda.to_device(poisoned(v.shape, np.int64))
    k_copy2d[(1, 1), (16, 16)](foreign(v), foreign(out2))
    np.testing.assert_array_equal(out2.copy_to_host(), host[::3, ::2] * 2)
    # Negative strides: the reversed rows, the pointer at the last row.
    last = d.__cuda_array_interface__["data"][0] + (m - 1) * n * 8
    r = foreign(d, data=(last, False), strides=(-8 * n, 8))
    out3 = cuda.to_device(poisoned((m, n), np.int64))
    k_copy2d[(3, 2), (16, 16)](r, foreign(out3))
    np.testing.assert_array_equal(out3.copy_to_host(), host[::-1] * 2)


@cuda.jit
def k_sum_rows(x, out):
    i = cuda.grid(1)
    if i < x.shape[0]:
        acc = 0.0
        for j in range(x.shape[1]):
            acc += x[i, j]
        out[i] = acc


def test_readonly_input_is_read(backend, rng):
    host = rng.random((40, 7))
    d = cuda.to_device(host)
    ro = foreign(d, data=(d.__cuda_array_interface__["data"][0], True))
    out = cuda.to_device(poisoned(40, np.float64))
    k_sum_rows[1, 64](ro, foreign(out))
    np.testing.assert_allclose(out.copy_to_host(), host.sum(1), rtol=1e-14)


def test_stream_field(backend, rng):
    n = 500
    hx = rng.integers(-1000, 1000, n).astype(np.float64)
    dx = cuda.to_device(hx)
    dout = cuda.device_array(n)
    s = cuda.stream()
    producer = s.handle if s.handle else 1  # the CPU executor's streams are 0
    for stream in (1, 2, producer, None):
        k_axpy[4, 128](2.0, foreign(dx, stream=stream), foreign(dx), dout)
        np.testing.assert_array_equal(dout.copy_to_host(), 3 * hx)
    with pytest.raises(ValueError, match="stream is 0"):
        k_axpy[4, 128](2.0, foreign(dx, stream=0), dx, dout)


def test_empty_and_bad_interfaces(backend):
    d = cuda.device_array(0)
    k_axpy[1, 32](1.0, foreign(d), foreign(d), foreign(d))  # nothing to do
    x = cuda.device_array(8)
    with pytest.raises(TypeError, match="typestr|not supported|dtype"):
        k_axpy[1, 32](1.0, foreign(x, typestr=">U4"), x, x)
    with pytest.raises(TypeError, match="shape"):
        k_axpy[1, 32](1.0, foreign(x, strides=(8, 8)), x, x)


def test_memory_the_cpu_cannot_read_is_refused(backend):
    if backend != "cpu":
        pytest.skip("a bad device pointer faults the GPU context")
    x = cuda.device_array(8)
    for ptr in (0, 8, 1 << 46):  # null, unmapped
        bad = foreign(x, data=(ptr, False))
        with pytest.raises(ValueError, match="needs host memory") as info:
            k_axpy[1, 32](1.0, bad, x, x)
        assert "kernel argument 2 (a Foreign)" in str(info.value)
        with pytest.raises(ValueError, match="needs host memory"):
            cuda.as_cuda_array(bad)


GPU_MEMORY_ON_CPU = r"""
import ctypes, numpy as np
from pycuda_jit import cuda
cu = ctypes.CDLL("libcuda.so.1")
assert cu.cuInit(0) == 0
dev, ctx, ptr = ctypes.c_int(), ctypes.c_void_p(), ctypes.c_uint64()
assert cu.cuDeviceGet(ctypes.byref(dev), 0) == 0
assert cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev) == 0
assert cu.cuCtxSetCurrent(ctx) == 0
assert cu.cuMemAlloc_v2(ctypes.byref(ptr), ctypes.c_size_t(4096)) == 0

class Foreign:
    __cuda_array_interface__ = {"shape": (512,), "typestr": "<f8", "version": 3,
                                "data": (ptr.value, False), "strides": None}

@cuda.jit
def k(x):
    x[cuda.grid(1)] = 1.0

try:
    k[1, 32](Foreign())
except ValueError as e:
    assert "GPU memory" in str(e), e
    print("refused")
"""


def test_gpu_memory_is_refused_by_the_cpu_executor(hardware, tmp_path):
    # A process on a GPU machine that runs kernels on the CPU executor, given
    # device memory another library allocated: an error, not a segfault.
    import os
    import subprocess
    import sys
    script = tmp_path / "gpu_on_cpu.py"
    script.write_text(GPU_MEMORY_ON_CPU)
    env = dict(os.environ, PYCUDA_JIT_BACKEND="cpu")
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    r = subprocess.run([sys.executable, str(script)], env=env, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0 and "refused" in r.stdout, (r.returncode, r.stdout, r.stderr)
