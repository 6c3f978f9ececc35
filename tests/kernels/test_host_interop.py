"""Host API, kernel arguments and interop: our device arrays, CuPy arrays and
torch tensors (zero-copy through __cuda_array_interface__, GPU machine),
DLPack producers (torch, and a DLPack-only wrapper on both backends), our
arrays consumed by CuPy and torch, numpy host arrays copied in and out,
Python and numpy scalars, and tuples."""
import numpy as np
import pytest

from pycuda_jit import cuda
from pycuda_jit._lazy import core


@cuda.jit
def axpy_strided(a, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


@cuda.jit
def scale2d(x, out, s):
    i, j = cuda.grid(2)
    if i < x.shape[0] and j < x.shape[1]:
        out[i, j] = x[i, j] * s + j


@cuda.jit
def tuple_args(t, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = t[0] * t[1][i] + t[2]


@cuda.jit
def scalars(out, b, i8, u16, i32, i64, f32, f64, pyint, pyfloat):
    out[0] = b
    out[1] = i8
    out[2] = u16
    out[3] = i32
    out[4] = i64
    out[5] = f32
    out[6] = f64
    out[7] = pyint
    out[8] = pyfloat


class _DlpackOnly:
    """Only the DLPack protocol (forwards to `arr`): exercises the DLPack
    kernel-argument path."""

    def __init__(self, arr):
        self.arr = arr

    def __dlpack__(self, **kw):
        return self.arr.__dlpack__(**kw)

    def __dlpack_device__(self):
        return self.arr.__dlpack_device__()


def test_scalar_arguments(backend):
    out = cuda.to_device(np.full(9, np.nan))
    scalars[1, 1](out, True, np.int8(-7), np.uint16(65000), np.int32(-123456),
                  np.int64(2**40 + 3), np.float32(1.5), np.float64(-2.25), 77, 0.125)
    np.testing.assert_array_equal(out.copy_to_host(),
                                  [1, -7, 65000, -123456, 2**40 + 3, 1.5, -2.25, 77, 0.125])


@cuda.jit
def store_scalar(out, v):
    out[0] = v


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32,
                                   np.uint32, np.int64, np.uint64, np.float16, np.float32,
                                   np.float64])
def test_numpy_scalar_values_of_every_dtype(backend, dtype, rng):
    # The first launch learns the scalar type; later ones read the value
    # stored in the scalar object: every launch must see its own value.
    if dtype == np.bool_:
        values = [True, False, True]
    elif np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        values = [info.min, info.max, *rng.integers(info.min, info.max, 3, endpoint=True, dtype=dtype)]
    else:
        info = np.finfo(dtype)
        values = [info.min, info.max, -0.0, *rng.standard_normal(3)]
    for v in values:
        x = dtype(v)
        out = cuda.to_device(np.full(1, 1 if dtype == np.bool_ else 99, dtype))
        if dtype == np.bool_:
            out = cuda.to_device(np.full(1, 7, np.int32))
        store_scalar[1, 1](out, x)
        got = out.copy_to_host()[0]
        assert got == x and np.signbit(got) == np.signbit(x), (dtype, v, got)


class _ZeroDim:
    """Not a numpy scalar, but looks like one to the argument reader (a 0-d
    array interface, a dtype, __float__), and its object is numpy-scalar
    sized with an unset (NULL) slot where numpy keeps the value: it must be
    read through __float__ every time."""
    __slots__ = ("spare",)
    values = {}
    dtype = np.dtype(np.float64)
    shape = ()
    __array_interface__ = {"shape": (), "typestr": "<f8", "data": (0, True), "version": 3}

    def __init__(self, v):
        _ZeroDim.values[id(self)] = v

    def __float__(self):
        return float(_ZeroDim.values[id(self)])


def test_scalar_lookalikes_are_read_through_the_number_protocol(backend):
    out = cuda.to_device(np.full(1, np.nan))
    for v in (0.0, 2.5, -7.25):  # the first value is 0, like the NULL slot
        z = _ZeroDim(v)
        store_scalar[1, 1](out, z)
        assert out.copy_to_host()[0] == v


def test_tuple_arguments(backend, rng):
    x = rng.standard_normal(300).astype(np.float32)
    out = cuda.to_device(np.full(300, np.nan, np.float32))
    tuple_args[3, 128]((np.float32(2.5), cuda.to_device(x), np.int32(-4)), out)
    np.testing.assert_allclose(out.copy_to_host(), 2.5 * x - 4, rtol=1e-6, atol=1e-6)


def test_numpy_arguments_copied_in_and_out(backend, rng):
    x = rng.standard_normal(1000)
    y = rng.standard_normal(1000)
    out = np.full(1000, np.nan)
    x.flags.writeable = False  # read-only inputs are not copied back
    axpy_strided[8, 128](3.0, x, y, out)
    np.testing.assert_allclose(out, 3.0 * x + y)
    before = core().memory_stats()
    axpy_strided[8, 128](1.0, x, y, out)
    np.testing.assert_allclose(out, x + y)
    after = core().memory_stats()
    staged = after["staged_arguments"] - before["staged_arguments"]
    assert staged == (3 if backend == "cuda" else 0)  # the CPU uses them in place
    assert after["live_allocations"] == before["live_allocations"]


def test_dlpack_producer_arguments(backend, rng):
    # On the CPU executor a numpy array is a host DLPack producer; on the GPU
    # our own device arrays are CUDA producers.
    x = rng.standard_normal(500).astype(np.float32)
    y = rng.standard_normal(500).astype(np.float32)
    if backend == "cuda":
        px, py = _DlpackOnly(cuda.to_device(x)), _DlpackOnly(cuda.to_device(y))
    else:
        px, py = _DlpackOnly(x), _DlpackOnly(y)
    out = cuda.to_device(np.full(500, np.nan, np.float32))
    axpy_strided[4, 128](np.float32(2), px, py, out)
    np.testing.assert_allclose(out.copy_to_host(), 2 * x + y, rtol=1e-6)


def test_foreign_arrays_not_in_host_memory_rejected_by_the_cpu_executor(backend):
    # The CPU executor uses __cuda_array_interface__ objects in place
    # (tests/kernels/test_cai_args.py) when their memory is host memory.
    if backend != "cpu":
        pytest.skip("CPU executor behaviour")

    class FakeGpuArray:
        __cuda_array_interface__ = {"shape": (4,), "typestr": "<f4", "data": (64, False),
                                    "version": 3, "strides": None}

    with pytest.raises(ValueError, match="CPU executor, which needs host memory"):
        axpy_strided[1, 4](1.0, FakeGpuArray(), FakeGpuArray(), FakeGpuArray())


# ---- CuPy and torch (the GPU machine has both) -------------------------------------------


@pytest.fixture
def cupy(hardware):
    return pytest.importorskip("cupy", reason="CuPy is not installed")


@pytest.fixture
def torch(hardware):
    torch = pytest.importorskip("torch", reason="torch is not installed")
    if not torch.cuda.is_available():
        pytest.skip("torch was built without CUDA")
    return torch


def test_cupy_arrays_as_kernel_arguments(cupy, rng):
    x = rng.standard_normal(4096).astype(np.float32)
    y = rng.standard_normal(4096).astype(np.float32)
    cx, cy = cupy.asarray(x), cupy.asarray(y)
    cout = cupy.full(4096, cupy.nan, dtype=cupy.float32)
    axpy_strided[32, 128](np.float32(1.5), cx, cy, cout)
    cuda.synchronize()
    # a * x + y may be one fused multiply-add on the GPU
    np.testing.assert_allclose(cupy.asnumpy(cout), 1.5 * x + y, rtol=1e-6, atol=1e-6)
    # non-contiguous CuPy views (layout A)
    m = rng.standard_normal((64, 96)).astype(np.float64)
    cm = cupy.asarray(m)
    cres = cupy.full((32, 32), cupy.nan)
    scale2d[(2, 2), (16, 16)](cm[::2, 2::3], cres, 2.0)
    cuda.synchronize()
    np.testing.assert_allclose(cupy.asnumpy(cres), m[::2, 2::3] * 2 + np.arange(32))


def test_cupy_stream_field_is_honoured(cupy, rng):
    # CuPy exports the stream its array was made on; our launch on another
    # stream must wait for it.
    s = cupy.cuda.Stream(non_blocking=True)
    ours = cuda.stream()
    out = cuda.to_device(np.full(4096, np.nan, np.float32))
    with s:  # CuPy exports its current stream in the interface
        big = cupy.arange(1 << 24, dtype=cupy.float32)
        cx = cupy.sqrt(big * big)[:4096] + 1  # queued work on s
        assert cx.__cuda_array_interface__.get("stream") in (s.ptr, None)
        axpy_strided[32, 128, ours](np.float32(2), cx, cx, out)
    ours.synchronize()
    np.testing.assert_allclose(out.copy_to_host(), 3 * (np.arange(4096) + 1), rtol=1e-6)
    # as_cuda_array with sync waits for the producer's stream
    d = cuda.as_cuda_array(cx)
    np.testing.assert_allclose(d.copy_to_host(), np.arange(4096) + 1)


def test_our_arrays_in_cupy(cupy, rng):
    x = rng.standard_normal((30, 40))
    d = cuda.to_device(x)
    c = cupy.asarray(d)  # zero-copy through __cuda_array_interface__
    assert c.data.ptr == d.device_ctypes_pointer_value
    c *= 2
    np.testing.assert_array_equal(d.copy_to_host(), 2 * x)
    v = cupy.asarray(d[::3, 1::2])
    np.testing.assert_array_equal(cupy.asnumpy(v), 2 * x[::3, 1::2])
    f = cupy.from_dlpack(d)  # and through DLPack
    assert f.data.ptr == d.device_ctypes_pointer_value
    back = cuda.from_dlpack(c)
    assert back.device_ctypes_pointer_value == c.data.ptr


def test_torch_tensors_as_kernel_arguments(torch, rng):
    x = rng.standard_normal(2048).astype(np.float32)
    y = rng.standard_normal(2048).astype(np.float32)
    tx = torch.from_numpy(x).cuda()
    ty = torch.from_numpy(y).cuda()
    tout = torch.full((2048,), float("nan"), device="cuda")
    axpy_strided[16, 128](np.float32(-1), tx, ty, tout)
    cuda.synchronize()
    np.testing.assert_allclose(tout.cpu().numpy(), -x + y, rtol=1e-6)
    # a transposed (non-contiguous) tensor
    m = rng.standard_normal((50, 70)).astype(np.float32)
    tm = torch.from_numpy(m).cuda().t()
    tres = torch.full((70, 50), float("nan"), device="cuda")
    scale2d[(5, 4), (16, 16)](tm, tres, np.float32(0.5))
    cuda.synchronize()
    np.testing.assert_allclose(tres.cpu().numpy(), m.T * 0.5 + np.arange(50), rtol=1e-6)
    # through DLPack only
    tout.zero_()
    axpy_strided[16, 128](np.float32(2), _DlpackOnly(tx), _DlpackOnly(ty), _DlpackOnly(tout))
    cuda.synchronize()
    np.testing.assert_allclose(tout.cpu().numpy(), 2 * x + y, rtol=1e-6)


def test_our_arrays_in_torch(torch, rng):
    x = rng.standard_normal((16, 8)).astype(np.float32)
    d = cuda.to_device(x)
    t = torch.from_dlpack(d)
    assert t.data_ptr() == d.device_ctypes_pointer_value and t.is_cuda
    t.mul_(3)
    torch.cuda.synchronize()
    np.testing.assert_allclose(d.copy_to_host(), 3 * x, rtol=1e-6)
    t2 = torch.as_tensor(d, device="cuda")  # __cuda_array_interface__
    assert t2.data_ptr() == d.device_ctypes_pointer_value
    e = cuda.from_dlpack(torch.arange(10, device="cuda", dtype=torch.int64))
    np.testing.assert_array_equal(e.copy_to_host(), np.arange(10))


def test_torch_bfloat16_tensor_through_dlpack(backend, rng):
    torch = pytest.importorskip("torch")
    ml_dtypes = pytest.importorskip("ml_dtypes")
    bf16 = ml_dtypes.bfloat16

    def bits(x):
        return np.asarray(x).view(np.uint16)

    def reference(a, b):
        prod = (a.astype(np.float64) * b.astype(np.float64)).astype(bf16)
        return (prod.astype(np.float64) + a.astype(np.float64)).astype(bf16)

    @cuda.jit
    def axpy(a, b, out):
        i = cuda.grid(1)
        if i < a.size:
            out[i] = a[i] * b[i] + a[i]

    dev = "cuda" if backend == "cuda" else "cpu"
    a = rng.standard_normal(500).astype(np.float32)
    b = rng.standard_normal(500).astype(np.float32)
    ta = torch.tensor(a, device=dev).to(torch.bfloat16)
    tb = torch.tensor(b, device=dev).to(torch.bfloat16)
    tout = torch.full((500,), float("nan"), device=dev, dtype=torch.bfloat16)
    axpy[4, 128](ta, tb, tout)
    got = tout.cpu().view(torch.int16).numpy().view(np.uint16)
    ab = a.astype(bf16)
    bb = b.astype(bf16)
    np.testing.assert_array_equal(got, bits(reference(ab, bb)))
    d = cuda.from_dlpack(tout)
    assert d.dtype == bf16
    np.testing.assert_array_equal(bits(d.copy_to_host()), got)


# ---- the torch / CuPy fast path reads what the interface says ------------------------------
# (ForeignArrays.cpp; stand-ins on both executors: tests/python/test_foreign_arrays.py)


class _InterfaceOnly:
    """The object's interface and nothing else: what the generic path reads."""

    def __init__(self, obj):
        self.__cuda_array_interface__ = obj.__cuda_array_interface__


def _fast_equals_interface(x):
    got = core().arg_view(x)
    want = core().arg_view(_InterfaceOnly(x))
    assert got.pop("path") == "foreign", type(x)
    assert want.pop("path") == "other"
    assert got == want
    return got


def test_torch_fast_path_agrees_with_the_interface(torch, rng):
    m = torch.from_numpy(rng.standard_normal((6, 8)).astype(np.float32)).cuda()
    i = torch.arange(24, device="cuda", dtype=torch.int64)
    for t in [m, m.t(), m[::2, 1::3], m[2:3], m[:, None, :], m.unsqueeze(0),
              m[3:3], i[5], i.expand(4, 24), i.view(4, 6)[:, ::2],
              torch.zeros(5, device="cuda", dtype=torch.bool),
              torch.ones((2, 3), device="cuda", dtype=torch.float16),
              torch.ones(3, device="cuda", dtype=torch.complex64),
              torch.ones((3, 4), device="cuda", dtype=torch.uint8).t()]:
        try:
            t.__cuda_array_interface__
        except (KeyError, TypeError):
            continue  # an older torch's interface lacks the dtype (bool): DLPack takes it
        got = _fast_equals_interface(t)
        assert got["stream"] is None  # torch's interface (v2) has no stream
        assert got["ptr"] == (t.data_ptr() if t.numel() else 0)


def test_cupy_fast_path_agrees_with_the_interface(cupy, rng):
    m = cupy.asarray(rng.standard_normal((6, 8)))
    i = cupy.arange(24, dtype=cupy.int32)
    views = [m, m.T, m[::-1, ::2], m[2:3], m[:, None, :], m[3:3], i[5],
             cupy.broadcast_to(i, (4, 24)), i.reshape(4, 6)[:, ::-2],
             cupy.zeros(5, dtype=cupy.bool_), cupy.ones((2, 3), dtype=cupy.float16)]
    for c in views:
        _fast_equals_interface(c)
    s = cupy.cuda.Stream(non_blocking=True)
    with s:
        got = _fast_equals_interface(m)
        assert got["stream"] == s.ptr
    assert _fast_equals_interface(m)["stream"] in (1, 2)


def test_torch_tensor_requiring_grad_is_refused(torch):
    t = torch.ones(8, device="cuda", requires_grad=True)
    # torch refuses it itself: RuntimeError from its __cuda_array_interface__
    # or, where the launch reads the tensor through DLPack, BufferError
    # ("Can't export tensors that require gradient", the H200 run).
    with pytest.raises((RuntimeError, BufferError), match="grad"):
        axpy_strided[1, 8](np.float32(1), t, t, t)
    u = torch.zeros(8, device="cuda")
    axpy_strided[1, 8](np.float32(1), t.detach(), t.detach(), u)
    cuda.synchronize()
    np.testing.assert_array_equal(u.cpu().numpy(), 2)


def test_cupy_negative_and_zero_strides_compute_right(cupy, rng):
    m = rng.standard_normal((64, 96))
    cm = cupy.asarray(m)
    cres = cupy.full((32, 48), cupy.nan)
    scale2d[(2, 3), (16, 16)](cm[::-2, ::-2], cres, 3.0)
    cuda.synchronize()
    np.testing.assert_allclose(cupy.asnumpy(cres), m[::-2, ::-2] * 3 + np.arange(48))
    row = cupy.asarray(m[0])
    cres2 = cupy.full((32, 96), cupy.nan)
    scale2d[(2, 6), (16, 16)](cupy.broadcast_to(row, (32, 96)), cres2, 2.0)
    cuda.synchronize()
    np.testing.assert_allclose(cupy.asnumpy(cres2),
                               np.broadcast_to(m[0], (32, 96)) * 2 + np.arange(96))
