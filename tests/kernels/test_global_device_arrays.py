"""Device arrays captured as globals or closure variables (numba-cuda's
"global device arrays"): the kernel holds their address, so it sees later
changes of their contents and its writes land in them; such kernels cannot
go to the disk cache; the arrays live as long as the kernel."""
import gc
import pickle

import numpy as np
import pytest

from pycuda_jit import cuda, errors

from gpu_util import poisoned


class Foreign:
    """Another library's device array: only __cuda_array_interface__."""

    def __init__(self, arr):
        self._arr = arr
        self.__cuda_array_interface__ = arr.__cuda_array_interface__


TABLE = None


def test_global_is_read_by_address_and_sees_updates(rng):
    global TABLE
    first, second = rng.random(64), rng.random(64)
    TABLE = cuda.to_device(first)

    @cuda.jit
    def scale(x, out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = x[i] * TABLE[i]

    x = rng.random(64)
    out = cuda.to_device(poisoned(64, np.float64))
    scale[2, 32](x, out)
    np.testing.assert_array_equal(out.copy_to_host(), x * first)
    TABLE.copy_to_device(second)  # same memory, new contents
    scale[2, 32](x, out)
    np.testing.assert_array_equal(out.copy_to_host(), x * second)
    TABLE = None


@pytest.mark.parametrize("kind", ["ours", "foreign"])
def test_closure_capture_in_device_functions_strided_and_0d(kind, rng):
    host = rng.integers(-100, 100, size=(6, 8)).astype(np.int32)
    base = cuda.to_device(host)
    grid2 = base[::2, 1::3]  # strided view: layout A
    zero = cuda.to_device(np.array(11, dtype=np.int32))
    if kind == "foreign":
        grid2, zero = Foreign(grid2), Foreign(zero)

    @cuda.jit(device=True)
    def at(i, j):
        return grid2[i, j] + zero[()]

    @cuda.jit
    def k(out):
        i, j = cuda.grid(2)
        if i < out.shape[0] and j < out.shape[1]:
            out[i, j] = at(i, j)

    out = cuda.to_device(poisoned((3, 3), np.int32))
    k[1, (4, 4)](out)
    np.testing.assert_array_equal(out.copy_to_host(), host[::2, 1::3] + 11)


def test_kernel_writes_into_a_captured_array(rng):
    acc = cuda.to_device(np.zeros(32, np.float32))
    vals = rng.random(32).astype(np.float32)

    @cuda.jit
    def add(v):
        i = cuda.grid(1)
        if i < acc.size:
            acc[i] += v[i]

    add[1, 32](vals)
    add[1, 32](vals)
    np.testing.assert_array_equal(acc.copy_to_host(), vals + vals)


def test_captured_array_lives_as_long_as_the_kernel(rng):
    # The global is rebound after the compile: the kernel keeps the array it
    # captured (numba-cuda captures at compile time), whose memory must not
    # be freed and reused meanwhile.
    global TABLE
    host = rng.random(4096)
    TABLE = cuda.to_device(host)

    @cuda.jit
    def copy(out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = TABLE[i]

    out = cuda.to_device(poisoned(4096, np.float64))
    copy[16, 256](out)
    TABLE = None
    gc.collect()
    cuda.synchronize()  # releases the memory of collected arrays
    others = [cuda.to_device(np.full(4096, -1.0)) for _ in range(4)]
    copy[16, 256](out)
    np.testing.assert_array_equal(out.copy_to_host(), host)
    del others


def test_cache_true_is_refused_with_the_kernel_named():
    data = cuda.to_device(np.arange(4.0))

    @cuda.jit(cache=True)
    def cached(out):
        out[0] = data[0]

    with pytest.raises(errors.UncacheableKernelError, match="global device arrays") as e:
        cached[1, 1](cuda.device_array(1))
    assert isinstance(e.value, pickle.PicklingError)
    assert e.value.file == __file__ and "cached" in str(e.value)


def test_arrays_of_a_closed_context_are_refused():
    data = cuda.to_device(np.arange(4.0))

    @cuda.jit
    def read(out):
        out[0] = data[3]

    out = cuda.to_device(poisoned(1, np.float64))
    read[1, 1](out)
    assert out.copy_to_host()[0] == 3.0
    cuda.close()
    with pytest.raises(errors.CudaDriverError, match="captured by kernel"):
        read[1, 1](cuda.device_array(1))
