"""bfloat16 arrays from the host (issue 15 part 5): NumPy has no bfloat16, so
they come from ml_dtypes (a 2-byte 'V' dtype named "bfloat16", typestr
'<V2') or as DLPack bfloat16 tensors; kernels, device arrays and copies
take them as bfloat16.  `+ - *` round once per operation on both backends
(no contraction into fma), so the reference rounds each step."""
import numpy as np
import pytest

from pycuda_jit import cuda

from gpu_util import poisoned

ml_dtypes = pytest.importorskip("ml_dtypes")
bf16 = ml_dtypes.bfloat16


def bits(x):
    return np.asarray(x).view(np.uint16)


def rounded(x):
    return np.asarray(x, dtype=np.float64).astype(bf16)


@cuda.jit
def axpy(a, b, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = a[i] * b[i] + a[i]


def reference(a, b):
    f = lambda v: v.astype(np.float64)
    prod = rounded(f(a) * f(b))
    return rounded(f(prod) + f(a))


def test_numpy_bfloat16_arrays_in_and_out(rng):
    a = rng.standard_normal(1000).astype(bf16)
    b = rng.standard_normal(1000).astype(bf16)
    out = poisoned(1000, np.float32).astype(bf16)
    axpy[8, 128](a, b, out)
    assert out.dtype == bf16
    np.testing.assert_array_equal(bits(out), bits(reference(a, b)))


def test_device_arrays_of_bfloat16(rng):
    a = rng.standard_normal((40, 25)).astype(bf16)
    b = rng.standard_normal((40, 25)).astype(bf16)
    da, db = cuda.to_device(a), cuda.to_device(b)
    assert da.dtype == bf16 and da.shape == (40, 25)
    np.testing.assert_array_equal(bits(da.copy_to_host()), bits(a))
    dout = cuda.device_array(1000, dtype=bf16)
    axpy[8, 128](da.reshape(1000), db.reshape(1000), dout)
    np.testing.assert_array_equal(bits(dout.copy_to_host()),
                                  bits(reference(a.reshape(1000), b.reshape(1000))))
    # the interface shows ml_dtypes' typestr, not float16's
    assert dout.__cuda_array_interface__["typestr"] == "<V2"


@cuda.jit
def widen(a, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = a[i]  # bfloat16 -> float32 is exact


def test_strided_view_and_widening(rng):
    a = rng.standard_normal(300).astype(bf16)
    view = a[1::3]  # (host arrays with negative strides are not staged)
    out = poisoned(view.size, np.float32)
    widen[3, 128](view, out)
    np.testing.assert_array_equal(out, view.astype(np.float32))


def test_special_values_round_trip():
    vals = np.array([0.0, -0.0, np.inf, -np.inf, 1e-40, -3.0e38, 65504.0], np.float32)
    a = vals.astype(bf16)
    out = poisoned(a.size, np.float32).astype(bf16)

    @cuda.jit
    def copy(src, dst):
        i = cuda.grid(1)
        if i < src.size:
            dst[i] = src[i]

    copy[1, 32](a, out)
    np.testing.assert_array_equal(bits(out), bits(a))


def test_dlpack_export_keeps_bfloat16(rng):
    # a bfloat16 device array was exported as float16 (the dtype came from
    # its '<V2' typestr): read back through DLPack it must stay bfloat16
    a = rng.standard_normal(64).astype(bf16)
    d = cuda.to_device(a)
    back = cuda.from_dlpack(d)
    assert back.dtype == bf16
    np.testing.assert_array_equal(bits(back.copy_to_host()), bits(a))


def test_dlpack_export_of_a_record_array_is_refused():
    rec = np.dtype([("x", np.float32), ("y", np.int32)])
    d = cuda.to_device(np.zeros(4, rec))
    with pytest.raises(BufferError, match="DLPack has no dtype"):
        d.__dlpack__()


_GLOBAL = None


def test_global_bfloat16_device_array_and_as_cuda_array(rng):
    global _GLOBAL
    a = rng.standard_normal(32).astype(bf16)
    _GLOBAL = cuda.to_device(a)
    assert cuda.as_cuda_array(_GLOBAL).dtype == bf16

    @cuda.jit
    def read_global(out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = _GLOBAL[i]

    out = poisoned(32, np.float32)
    read_global[1, 32](out)
    np.testing.assert_array_equal(out, a.astype(np.float32))

# The torch (DLPack) case is in test_host_interop.py with the other torch tests:
# torch initialized here, before test files that reset the primary context
# (cuda.close()), broke every later torch and CUDA call in one process.
