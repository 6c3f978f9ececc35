"""A failed driver call is a CudaDriverError, and also an instance of
cuda-python's ``cuda.core`` CUDAError when the process has imported
cuda.core (numba-cuda raises that class: code written for it catches it).
pycuda_jit never imports cuda-python itself; here a stand-in module plays
cuda.core."""
import pickle
import sys
import types

import numpy as np
import pytest

from pycuda_jit import cuda, errors

CUDA_CORE_ERRORS = "cuda.core._utils.cuda_utils"


@cuda.jit(launch_bounds=128)
def scaled(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = x[i] * 2.5


@pytest.fixture
def cuda_core(monkeypatch):
    mod = types.ModuleType(CUDA_CORE_ERRORS)

    class CUDAError(Exception):
        pass

    mod.CUDAError = CUDAError
    monkeypatch.setitem(sys.modules, CUDA_CORE_ERRORS, mod)
    return mod


def launch_ok(rng):
    x = rng.random(128).astype(np.float32)
    out = cuda.to_device(np.full(128, np.nan, np.float32))
    scaled[1, 128](x, out)
    np.testing.assert_array_equal(out.copy_to_host(), x * np.float32(2.5))
    return x, out


def test_launch_above_launch_bounds_is_cuda_core_error(cuda_core, monkeypatch, rng):
    x, out = launch_ok(rng)
    with pytest.raises(cuda_core.CUDAError, match="CUDA_ERROR_INVALID_VALUE") as info:
        scaled[1, 256](x, out)
    err = info.value
    assert isinstance(err, errors.CudaDriverError) and isinstance(err, RuntimeError)
    assert err.name == "CUDA_ERROR_INVALID_VALUE" and err.code == 1
    assert "launch_bounds allow at most 128" in str(err)
    # Pickled as pycuda_jit's own class: unpickled where cuda.core is not
    # loaded, it is that class alone.
    data = pickle.dumps(err)
    back = pickle.loads(data)
    assert isinstance(back, cuda_core.CUDAError) and isinstance(back, errors.CudaDriverError)
    monkeypatch.delitem(sys.modules, CUDA_CORE_ERRORS)
    back = pickle.loads(data)
    assert type(back) is errors.CudaDriverError
    assert (back.code, back.name, back.call, str(back)) == (err.code, err.name, err.call, str(err))
    launch_ok(rng)  # the context still works


def test_without_cuda_core_the_class_is_ours(monkeypatch, rng):
    monkeypatch.delitem(sys.modules, CUDA_CORE_ERRORS, raising=False)
    x, out = launch_ok(rng)
    with pytest.raises(errors.CudaDriverError) as info:
        scaled[1, 256](x, out)
    assert type(info.value) is errors.CudaDriverError


def test_subclasses_keep_their_class(cuda_core, monkeypatch):
    err = errors.CudaOutOfMemoryError("out of memory", 2, "CUDA_ERROR_OUT_OF_MEMORY", "cuMemAlloc")
    assert isinstance(err, errors.CudaOutOfMemoryError) and isinstance(err, MemoryError)
    assert isinstance(err, cuda_core.CUDAError)
    data = pickle.dumps(err)
    monkeypatch.delitem(sys.modules, CUDA_CORE_ERRORS)
    assert type(pickle.loads(data)) is errors.CudaOutOfMemoryError
