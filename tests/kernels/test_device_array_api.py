"""numba-cuda's DeviceNDArray and Context API (pycuda_jit/devicearray.py,
devices.py): flags, view, the (shape, strides, dtype) constructor, ravel,
and Context.memalloc / memhostalloc / memallocmanaged / create_stream /
create_event / deallocations -- checked against NumPy and by the values
kernels compute through them."""
import itertools

import numpy as np
import pytest

from pycuda_jit import cuda
from pycuda_jit.devicearray import DeviceNDArray
from gpu_util import poisoned


@cuda.jit
def double(out, x):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = 2 * x[i]


@pytest.mark.parametrize("shape,order", itertools.product(
    [(1, 4), (4, 1), (3, 5), (1, 1), (2, 3, 4)], "CF"))
def test_flags_match_numpy(rng, shape, order):
    a = np.asarray(rng.random(shape), order=order)
    d = cuda.to_device(a)
    for key in ("C_CONTIGUOUS", "F_CONTIGUOUS"):
        assert d.flags[key] == a.flags[key]
        assert getattr(d.flags, key.lower()) == a.flags[key]
    view = a[:, ::2] if a.ndim > 1 and a.shape[1] > 1 else a.T
    dview = d[:, ::2] if a.ndim > 1 and a.shape[1] > 1 else d.T
    assert dview.flags["C_CONTIGUOUS"] == view.flags["C_CONTIGUOUS"]
    assert dview.flags["F_CONTIGUOUS"] == view.flags["F_CONTIGUOUS"]


def test_constructor_allocates_the_layout(rng):
    d = DeviceNDArray((1, 10), (800, 8), np.float64)  # relaxed strides: both
    assert d.flags["C_CONTIGUOUS"] and d.flags["F_CONTIGUOUS"]
    d = DeviceNDArray((4, 6), (48, 8), np.float64)
    x = rng.random((4, 6))
    d.copy_to_device(x)
    np.testing.assert_array_equal(d.copy_to_host(), x)
    empty = DeviceNDArray(shape=(0,), strides=(8,), dtype=np.int8)
    host = np.ndarray(shape=(0,), strides=(0,), dtype=np.int8)
    empty.copy_to_host(host)
    empty.copy_to_device(host)


@pytest.mark.parametrize("dtype", ["i4", "u4", "i8", "f8", "u1", "i2"])
def test_view_reinterprets_like_numpy(rng, dtype):
    original = rng.integers(-30000, 30000, (3, 8)).astype("i2")
    d = cuda.to_device(original)
    v = d.view(dtype)
    expect = original.view(dtype)
    assert v.shape == expect.shape and v.strides == expect.strides
    np.testing.assert_array_equal(v.copy_to_host(), expect)


def test_view_writes_reach_the_original(rng):
    x = rng.random(16).astype(np.float32)
    d = cuda.to_device(x)
    bits = d.view(np.uint32)
    out = cuda.to_device(poisoned(16, np.uint32))
    double[1, 16](out, bits)  # a kernel reads the view
    np.testing.assert_array_equal(out.copy_to_host(), x.view(np.uint32) * np.uint32(2))
    bits[3] = 0  # writes through the view
    assert d.copy_to_host()[3] == 0


def test_view_strided_same_size_and_errors():
    original = np.arange(32, dtype="i2").reshape(4, 8)
    d = cuda.to_device(original)[:, ::2]
    np.testing.assert_array_equal(d.view("u2").copy_to_host(), original[:, ::2].view("u2"))
    with pytest.raises(ValueError, match="last axis must be contiguous"):
        d.view("i4")
    with pytest.raises(ValueError, match="divisor of the total size in bytes of the last"):
        cuda.to_device(np.arange(12, dtype="i2").reshape(4, 3)).view("i4")


def test_ravel_is_a_new_view_object(rng):
    x = rng.random((3, 4))
    d = cuda.to_device(x)
    r = d.ravel()
    assert r.shape == (12,) and r is not d
    one = cuda.to_device(x[0].copy())
    assert one.ravel() is not one
    np.testing.assert_array_equal(r.copy_to_host(), x.ravel())


@pytest.mark.parametrize("shape", [[1.1], (1.1,), np.array([1.1, 2.2]), (2, 2.0)])
def test_device_array_float_shape_is_a_type_error(shape):
    with pytest.raises(TypeError):
        cuda.device_array(shape=shape)


def test_masked_array_interface_is_not_implemented():
    d = cuda.to_device(np.arange(10.0))
    desc = dict(d.__cuda_array_interface__)
    desc["mask"] = cuda.to_device(np.ones(10, np.bool_))
    with pytest.raises(NotImplementedError, match="Masked arrays"):
        cuda.from_cuda_array_interface(desc)


def test_context_memalloc_holds_a_kernels_output(rng):
    ctx = cuda.current_context()
    mem = ctx.memalloc(64 * 4)
    assert mem.size == 256 and mem.device_pointer_value != 0
    assert mem.device_ctypes_pointer.value == mem.device_pointer_value
    out = DeviceNDArray((64,), (4,), np.float32, mem.owner, mem.device_pointer_value)
    x = rng.random(64, dtype=np.float32)
    double[1, 64](out, x)
    np.testing.assert_array_equal(out.copy_to_host(), 2 * x)


@pytest.mark.parametrize("kind", ["pinned", "mapped", "managed"])
def test_context_host_allocations_are_buffers(rng, kind):
    ctx = cuda.current_context()
    if kind == "managed":
        mem = ctx.memallocmanaged(32 * 8)
    else:
        mem = ctx.memhostalloc(32 * 8, mapped=(kind == "mapped"))
    a = np.ndarray(shape=32, dtype=np.float64, buffer=mem)
    a[:] = rng.random(32)
    if kind == "pinned":
        d = cuda.to_device(a)  # pinned memory copies like any host array
    else:
        d = a  # mapped and managed memory is used in place
    out = cuda.to_device(poisoned(32, np.float64))
    double[1, 32](out, d)
    cuda.synchronize()
    np.testing.assert_array_equal(out.copy_to_host(), 2 * a)


def test_context_streams_events_and_deallocations(rng):
    ctx = cuda.current_context()
    s = ctx.create_stream()
    start, end = ctx.create_event(), ctx.create_event()
    x = rng.random(100)
    start.record(s)
    d = cuda.to_device(x, stream=s)
    out = cuda.device_array(100, stream=s)
    double[1, 100, s](out, d)
    end.record(s)
    end.synchronize()
    assert cuda.event_elapsed_time(start, end) >= 0
    np.testing.assert_array_equal(out.copy_to_host(stream=s), 2 * x)
    del d, out
    ctx.deallocations.clear()
    assert len(ctx.deallocations) == 0


def test_device_supports_float16():
    assert cuda.get_current_device().supports_float16


@pytest.mark.parametrize("make", [np.zeros, np.recarray])
def test_device_record_round_trip(rng, make):
    from pycuda_jit.devicearray import DeviceRecord
    dt = np.dtype([("a", np.int32), ("b", np.float32), ("c", np.complex64)], align=True)
    rec = DeviceRecord(dt)
    assert rec.shape == () and rec.strides == () and rec.dtype == dt
    assert rec.alloc_size == dt.itemsize and rec.gpu_data is not None
    assert rec.device_ctypes_pointer.value == rec.device_ctypes_pointer_value != 0
    src = make(1, dt)[0]
    src["a"], src["b"], src["c"] = rng.integers(1, 99), rng.random(), complex(rng.random(), 2)
    rec.copy_to_device(src.copy())
    dst = np.zeros(1, dt)[0].copy()
    got = rec.copy_to_host(dst)  # a record scalar is filled in place
    assert got is dst
    for f in "abc":
        assert dst[f] == src[f]
    np.testing.assert_equal(rec.copy_to_host(), np.array(src, dtype=dt))
    with pytest.raises(TypeError):
        DeviceRecord(np.float32)


@pytest.mark.parametrize("view", [np.s_[::2], np.s_[::-1], np.s_[3:4], np.s_[5:5], np.s_[:]])
def test_alloc_size_is_the_extent_numpy_spans(rng, view):
    x = rng.random(10)
    v = x[view]
    d = cuda.to_device(x)[view]
    if v.size == 0:
        assert d.alloc_size == 0
    else:
        lo, hi = np.lib.array_utils.byte_bounds(v) if hasattr(np.lib, "array_utils") \
            else np.byte_bounds(v)
        assert d.alloc_size == hi - lo
    assert cuda.as_cuda_array(d).alloc_size == d.alloc_size
    assert cuda.as_cuda_array(d).device_ctypes_pointer.value == d.device_ctypes_pointer.value


def test_is_float16_supported_computes_in_float16():
    assert cuda.is_float16_supported() == cuda.get_current_device().supports_float16

    @cuda.jit
    def halve(out, x):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = x[i] * np.float16(0.5)

    x = np.arange(8, dtype=np.float16)
    out = poisoned(8, np.float16)
    halve[1, 8](out, x)
    np.testing.assert_array_equal(out, x * np.float16(0.5))


@pytest.mark.parametrize("index", [np.s_[::-1], np.s_[::-3, 1:], np.s_[7:1:-2, ::-1]])
def test_gpu_data_of_a_negative_stride_view_covers_its_bytes(rng, index):
    # gpu_data once started at the view's first element, which for a
    # negative stride is not its lowest address: the memory it described
    # ran past the view's end and missed its low elements (found by review).
    host = rng.standard_normal((9, 4))
    d = cuda.to_device(host)
    v = d[index]
    first = v.device_ctypes_pointer_value
    lowest = first + sum((n - 1) * s for n, s in zip(v.shape, v.strides) if s < 0)
    highest = first + sum((n - 1) * s for n, s in zip(v.shape, v.strides) if s > 0)
    mem = v.gpu_data
    assert mem.device_pointer_value == lowest
    assert mem.device_pointer_value + mem.size == highest + v.dtype.itemsize
    assert mem.size == v.alloc_size
    # the whole extent lies inside the parent's memory
    base = d.device_ctypes_pointer_value
    assert base <= lowest and highest + 8 <= base + host.nbytes
