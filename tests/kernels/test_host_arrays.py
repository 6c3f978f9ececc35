"""Host API, device arrays: attributes, copies, views (indexing, slicing,
reshape, transpose), contiguity, __cuda_array_interface__, DLPack, and the
creation functions (to_device, device_array(_like), pinned/mapped/managed
arrays, pinned(), as_cuda_array, is_cuda_array, from_dlpack).  Every check
compares computed values with numpy's; outputs start poisoned."""
import numpy as np
import pytest

from pycuda_jit import cuda
from pycuda_jit._lazy import core
from gpu_util import poisoned


@cuda.jit
def affine(x, out, a):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = x[i] * a + i


@cuda.jit
def add_ij(x):
    i, j = cuda.grid(2)
    if i < x.shape[0] and j < x.shape[1]:
        x[i, j] += i * 100 + j


@cuda.jit
def increment(x):
    i = cuda.grid(1)
    if i < x.size:
        x[i] += 1


DTYPES = [np.float32, np.float64, np.int32, np.int64, np.uint8, np.int16, np.bool_,
          np.complex64]


def random_array(rng, shape, dtype, order="C"):
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        a = rng.integers(0, 2, shape).astype(bool)
    elif dtype.kind == "c":
        a = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    elif dtype.kind == "f":
        a = rng.standard_normal(shape).astype(dtype)
    else:
        info = np.iinfo(dtype)
        a = rng.integers(max(info.min, -1000), min(info.max, 1000), shape).astype(dtype)
    return np.asarray(a, order=order)


def unlike(a):
    """An array of a's shape and dtype that differs from a everywhere."""
    if a.dtype.kind in "fc":
        return np.full(a.shape, np.nan, a.dtype)
    if a.dtype.kind == "b":
        return ~a
    return (a + 1).astype(a.dtype)


# ---- attributes and whole-array copies -----------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,order", [((7,), "C"), ((5, 6), "C"), ((5, 6), "F"),
                                         ((3, 4, 5), "F"), ((0, 3), "C"), ((), "C")])
def test_attributes_and_round_trip(backend, rng, dtype, shape, order):
    a = random_array(rng, shape, dtype, order)
    d = cuda.to_device(a)
    assert d.shape == a.shape
    if a.size:  # numpy's strides of empty arrays vary
        assert d.strides == a.strides
    assert d.dtype == a.dtype and d.size == a.size and d.ndim == a.ndim
    assert d.nbytes == a.nbytes and d.itemsize == a.itemsize
    assert d.is_c_contiguous() == a.flags.c_contiguous
    assert d.is_f_contiguous() == a.flags.f_contiguous
    if a.ndim:
        assert len(d) == len(a)
    else:
        with pytest.raises(TypeError):
            len(d)
    h = d.copy_to_host()
    assert h.dtype == a.dtype and h.shape == a.shape
    np.testing.assert_array_equal(h, a)
    out = np.asarray(unlike(a), order=order)
    assert d.copy_to_host(out) is out
    np.testing.assert_array_equal(out, a)


def test_copy_to_device_from_host_and_device(backend, rng):
    a = rng.standard_normal((40, 30))
    b = rng.standard_normal((40, 30))
    d = cuda.device_array((40, 30))
    d.copy_to_device(a)
    np.testing.assert_array_equal(d.copy_to_host(), a)
    e = cuda.to_device(b)
    d.copy_to_device(e)  # device -> device
    np.testing.assert_array_equal(d.copy_to_host(), b)
    d.copy_to_device(a[np.newaxis])  # same shape once 1-dims are dropped
    np.testing.assert_array_equal(d.copy_to_host(), a)
    with pytest.raises(ValueError, match="shape"):
        d.copy_to_device(np.zeros((30, 40)))
    with pytest.raises(ValueError, match="shape"):
        d.copy_to_host(np.zeros((30, 40)))
    with pytest.raises(TypeError, match="dtype"):
        d.copy_to_host(np.zeros((40, 30), np.float32))
    # a host array of another dtype is refused too (numba-cuda: TypeError
    # "incompatible dtype"), not converted; the device array keeps its data
    for other in (a.astype(np.float32), a.astype(np.int64), a.astype(np.complex128)):
        with pytest.raises(TypeError, match="dtype"):
            d.copy_to_device(other)
    np.testing.assert_array_equal(d.copy_to_host(), a)
    d[:] = a.astype(np.float32)  # assignment converts, like NumPy's
    np.testing.assert_array_equal(d.copy_to_host(), a.astype(np.float32))
    ro = np.zeros((40, 30))
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        d.copy_to_host(ro)


# ---- views --------------------------------------------------------------------------------

INDICES = [
    np.s_[3], np.s_[-1], np.s_[2:9], np.s_[::3], np.s_[::-1], np.s_[-2:1:-3],
    np.s_[1:, 2], np.s_[..., 4], np.s_[:, ::2], np.s_[3:4, 5:6], np.s_[None, 2:5],
    np.s_[:, None, ::-2], np.s_[..., None], np.s_[2, ...], np.s_[7:2], np.s_[::2, ::-3],
]


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("key", INDICES, ids=[str(i) for i in range(len(INDICES))])
def test_indexing_matches_numpy(backend, rng, key, order):
    a = np.asarray(rng.standard_normal((11, 9)), order=order)
    d = cuda.to_device(a)
    expect = a[key]
    got = d[key]
    if np.isscalar(expect) or isinstance(expect, np.generic):
        assert type(got) is type(expect) and got == expect
        return
    assert got.shape == expect.shape and got.strides == expect.strides
    assert got.is_c_contiguous() == expect.flags.c_contiguous
    assert got.is_f_contiguous() == expect.flags.f_contiguous
    np.testing.assert_array_equal(got.copy_to_host(), expect)


@pytest.mark.parametrize("dtype", [np.float64, np.int32, np.uint8, np.bool_, np.complex64])
def test_scalar_elements(backend, rng, dtype):
    a = random_array(rng, (4, 5, 3), dtype)
    d = cuda.to_device(a)
    for idx in [(0, 0, 0), (3, 4, 2), (-1, 2, -2), (1, -5, 0)]:
        v = d[idx]
        assert type(v) is type(a[idx]) and v == a[idx]
    assert d[2][3][1] == a[2, 3, 1]
    with pytest.raises(IndexError):
        d[4, 0, 0]
    with pytest.raises(IndexError):
        d[0, 0, 0, 0]
    with pytest.raises(IndexError):
        d[[1, 2]]


def test_non_contiguous_copy_to_host_large_and_small_spans(backend, rng):
    a = rng.standard_normal((2000, 500))
    d = cuda.to_device(a)
    for key in [np.s_[::7, 3], np.s_[1:, ::2], np.s_[::-3, 400:1:-9], np.s_[5:1999:13, 7:8]]:
        v = d[key]
        assert not (v.is_c_contiguous() and v.is_f_contiguous())
        h = v.copy_to_host()
        assert h.flags.c_contiguous
        np.testing.assert_array_equal(h, a[key])
        # into a non-contiguous host target too
        target = np.full((v.shape[0] * 2,) + v.shape[1:], np.nan)[::2]
        v.copy_to_host(target)
        np.testing.assert_array_equal(target, a[key])


def test_transpose_views_and_3d(backend, rng):
    a = rng.integers(-9, 9, (6, 5, 4)).astype(np.int64)
    d = cuda.to_device(a)
    np.testing.assert_array_equal(d.T.copy_to_host(), a.T)
    np.testing.assert_array_equal(d.transpose((1, 0, 2)).copy_to_host(), a.transpose(1, 0, 2))
    assert d.T.is_f_contiguous() and not d.T.is_c_contiguous()
    v = d[1::2, ::-1, 1:3]
    np.testing.assert_array_equal(v.copy_to_host(), a[1::2, ::-1, 1:3])
    with pytest.raises(ValueError):
        d.transpose((0, 0, 1))


def test_copy_to_device_into_a_non_contiguous_view_keeps_the_gaps(backend, rng):
    a = rng.standard_normal((300, 200))
    d = cuda.to_device(a)
    src = rng.standard_normal((100, 100))
    d[::3, 1::2].copy_to_device(src)
    expect = a.copy()
    expect[::3, 1::2] = src
    np.testing.assert_array_equal(d.copy_to_host(), expect)
    # reversed, strided, from a non-contiguous host array
    src2 = rng.standard_normal((200, 300)).T[::-2, ::5]
    d[::-2, ::5].copy_to_device(src2)
    expect[::-2, ::5] = src2
    np.testing.assert_array_equal(d.copy_to_host(), expect)


def test_setitem(backend, rng):
    a = rng.standard_normal((8, 6)).astype(np.float32)
    d = cuda.to_device(a)
    d[2] = 7.5
    d[:, 4] = np.arange(8)
    d[5, 1] = -3
    d[6:, :2] = cuda.to_device(np.full((2, 2), 9, np.float32))
    a[2] = 7.5
    a[:, 4] = np.arange(8)
    a[5, 1] = -3
    a[6:, :2] = 9
    np.testing.assert_array_equal(d.copy_to_host(), a)


def test_kernel_writes_through_a_strided_view(backend, rng):
    a = rng.standard_normal((50, 40))
    d = cuda.to_device(a)
    v = d[3:45:2, ::-3]
    add_ij[(4, 4), (16, 16)](v)
    expect = a.copy()
    ii, jj = np.indices(expect[3:45:2, ::-3].shape)
    expect[3:45:2, ::-3] += ii * 100 + jj
    np.testing.assert_array_equal(d.copy_to_host(), expect)


def test_reshape_and_ravel(backend, rng):
    a = rng.standard_normal((6, 10))
    d = cuda.to_device(a)
    r = d.reshape(4, 15)
    assert r.shape == (4, 15) and r.device_ctypes_pointer_value == d.device_ctypes_pointer_value
    np.testing.assert_array_equal(r.copy_to_host(), a.reshape(4, 15))
    np.testing.assert_array_equal(d.reshape((3, -1, 2)).copy_to_host(), a.reshape(3, -1, 2))
    np.testing.assert_array_equal(d.ravel().copy_to_host(), a.ravel())
    f = cuda.to_device(np.asfortranarray(a))
    np.testing.assert_array_equal(f.reshape(12, 5, order="F").copy_to_host(),
                                  np.asfortranarray(a).reshape(12, 5, order="F"))
    np.testing.assert_array_equal(f.ravel(order="F").copy_to_host(), a.ravel(order="F"))
    assert d.reshape(6, 10) is d
    # a write through the reshaped view is seen by the original
    increment[1, 64](d.reshape(60))
    np.testing.assert_array_equal(d.copy_to_host(), a + 1)
    with pytest.raises(NotImplementedError):
        d[:, ::2].reshape(30)
    with pytest.raises(NotImplementedError):
        f.reshape(60)  # F-contiguous, asked for C order
    with pytest.raises(ValueError):
        d.reshape(7, 9)


# ---- interfaces --------------------------------------------------------------------------


def test_cuda_array_interface(backend, rng):
    a = rng.standard_normal((4, 6)).astype(np.float32)
    d = cuda.to_device(a)
    cai = d.__cuda_array_interface__
    assert cai["version"] == 3 and cai["shape"] == (4, 6) and cai["typestr"] == "<f4"
    assert cai["strides"] is None and cai["stream"] is None
    assert cai["data"] == (d.device_ctypes_pointer_value, False)
    v = d[:, 1::2]
    vc = v.__cuda_array_interface__
    assert vc["strides"] == (24, 8) and vc["data"][0] == d.device_ctypes_pointer_value + 4
    assert cuda.is_cuda_array(d) and not cuda.is_cuda_array(a)
    s = cuda.stream()
    ds = cuda.device_array(3, stream=s)
    assert ds.stream is s
    expect = s.handle if backend == "cuda" else None
    assert ds.__cuda_array_interface__["stream"] == expect
    dl = cuda.device_array(3, stream=cuda.legacy_default_stream())
    assert dl.__cuda_array_interface__["stream"] == (1 if backend == "cuda" else None)


class _CaiOnly:
    """A foreign object exposing only the CUDA array interface."""

    def __init__(self, cai, keep):
        self.__cuda_array_interface__ = cai
        self.keep = keep


def test_as_cuda_array_is_zero_copy(backend, rng):
    a = rng.standard_normal(300)
    d = cuda.to_device(a)
    foreign = _CaiOnly(d[::2].__cuda_array_interface__, d)
    assert cuda.is_cuda_array(foreign)
    v = cuda.as_cuda_array(foreign)
    assert v.shape == (150,) and v.strides == (16,) and v._owner is foreign
    increment[2, 128](v)
    expect = a.copy()
    expect[::2] += 1
    np.testing.assert_array_equal(d.copy_to_host(), expect)
    w = cuda.from_cuda_array_interface(d.__cuda_array_interface__, owner=d)
    np.testing.assert_array_equal(w.copy_to_host(), expect)
    with pytest.raises(TypeError, match="__cuda_array_interface__"):
        cuda.as_cuda_array(object())


def test_dlpack_export_and_import(backend, rng):
    a = rng.standard_normal((20, 7)).astype(np.float32)
    d = cuda.to_device(a)
    dev = d.__dlpack_device__()
    assert dev == ((2, 0) if backend == "cuda" else (1, 0))
    for kwargs in [{}, {"max_version": (1, 0)}]:
        e = cuda.from_dlpack(_DlpackOnly(d[::2, 1:], kwargs))
        assert e.shape == (10, 6) and e.strides == (56, 4)
        assert e.device_ctypes_pointer_value == d.device_ctypes_pointer_value + 4
        np.testing.assert_array_equal(e.copy_to_host(), a[::2, 1:])
    e = cuda.from_dlpack(d)
    increment[1, 256](e.reshape(140))
    np.testing.assert_array_equal(d.copy_to_host(), a + 1)
    with pytest.raises(BufferError):
        d.__dlpack__(copy=True)


class _DlpackOnly:
    """A producer with only the DLPack protocol (forwards to `arr`)."""

    def __init__(self, arr, extra=None):
        self.arr = arr
        self.extra = extra or {}

    def __dlpack__(self, **kw):
        kw.pop("max_version", None)
        return self.arr.__dlpack__(**kw, **self.extra)

    def __dlpack_device__(self):
        return self.arr.__dlpack_device__()


def test_numpy_consumes_dlpack_on_the_cpu_executor(backend, rng):
    if backend != "cpu":
        pytest.skip("numpy imports host (kDLCPU) tensors only")
    a = rng.standard_normal(50)
    d = cuda.to_device(a)
    h = np.from_dlpack(d)
    np.testing.assert_array_equal(h, a)
    d[3] = 42.0  # zero-copy: the numpy view sees the write
    assert h[3] == 42.0
    # and a numpy array is a DLPack producer for from_dlpack
    e = cuda.from_dlpack(a)
    assert e.device_ctypes_pointer_value == a.ctypes.data


# ---- creation ----------------------------------------------------------------------------


def test_device_array_and_like(backend, rng):
    s = cuda.stream()
    d = cuda.device_array((3, 4), np.int16, order="F", stream=s)
    assert d.shape == (3, 4) and d.strides == (2, 6) and d.dtype == np.int16
    assert d.stream is s
    assert cuda.device_array(5).dtype == np.float64
    e = cuda.device_array((2, 3), np.float32, strides=(16, 4))
    assert e.strides == (16, 4) and not e.is_c_contiguous()
    fa = np.asfortranarray(rng.standard_normal((5, 2)))
    like = cuda.device_array_like(fa)
    assert like.shape == fa.shape and like.strides == fa.strides and like.dtype == fa.dtype
    like2 = cuda.device_array_like(d)
    assert like2.strides == d.strides and like2.dtype == d.dtype
    like3 = cuda.device_array_like(rng.standard_normal((6, 6))[::2])
    assert like3.shape == (3, 6) and like3.is_c_contiguous()


# name -> (the base array in its memory order, the view taken of it)
LIKE_VIEWS = {
    "f_rows": (np.asfortranarray, lambda x: x[::2, :]),
    "f_block": (np.asfortranarray, lambda x: x[1:5, 1:4]),
    "f_3d": (lambda a: np.asfortranarray(a.reshape(4, 3, 5)), lambda x: x[:, ::2, 1:]),
    "transposed_3d": (lambda a: a.reshape(4, 3, 5), lambda x: x.transpose((1, 2, 0))[:, ::2]),
    "reversed_f": (np.asfortranarray, lambda x: x[::-2, ::-1]),
}


@pytest.mark.parametrize("view", sorted(LIKE_VIEWS))
def test_like_functions_keep_the_memory_order_of_a_view(backend, rng, view):
    # A non-contiguous view gets contiguous strides in the view's own axis
    # order, as numpy.empty_like gives it (an F-ordered view stays F-ordered).
    base, index = LIKE_VIEWS[view]
    host = base(rng.standard_normal((6, 10)))
    v = index(host)
    want = np.empty_like(v).strides
    assert not v.flags.c_contiguous and not v.flags.f_contiguous
    d = cuda.device_array_like(v)
    assert d.shape == v.shape and d.strides == want and d.dtype == v.dtype
    assert cuda.pinned_array_like(v).strides == want
    assert cuda.mapped_array_like(v).strides == want
    # The same for a device array viewing device memory the same way.
    dv = index(cuda.to_device(host))
    assert dv.strides == v.strides
    assert cuda.device_array_like(dv).strides == want
    d.copy_to_device(v)
    np.testing.assert_array_equal(d.copy_to_host(), v)


def test_to_device_options(backend, rng):
    a = rng.standard_normal((33, 5))
    s = cuda.stream()
    d = cuda.to_device(a, stream=s)
    s.synchronize()
    np.testing.assert_array_equal(d.copy_to_host(), a)
    assert d.stream is s
    e = cuda.to_device(a, copy=False)
    assert e.shape == a.shape and e.dtype == a.dtype
    t = cuda.device_array_like(a)
    assert cuda.to_device(a * 2, to=t) is t
    np.testing.assert_array_equal(t.copy_to_host(), a * 2)
    assert cuda.to_device(d) is d
    nc = a[::2, ::-1]  # a non-contiguous host array
    np.testing.assert_array_equal(cuda.to_device(nc).copy_to_host(), nc)
    np.testing.assert_array_equal(cuda.to_device([1, 2, 3]).copy_to_host(), [1, 2, 3])
    assert cuda.to_device(np.float32(2.5)).shape == ()
    assert cuda.to_device(np.float32(2.5))[()] == np.float32(2.5)


def test_pinned_arrays(backend, rng):
    stats = core().memory_stats()
    p = cuda.pinned_array((10, 3), np.float32, order="F")
    assert isinstance(p, np.ndarray) and p.shape == (10, 3) and p.flags.f_contiguous
    like = cuda.pinned_array_like(rng.standard_normal((4, 4)).astype(np.int32))
    assert like.dtype == np.int32 and like.shape == (4, 4)
    assert core().memory_stats()["live_host_allocations"] == stats["live_host_allocations"] + 2
    a = rng.standard_normal((10, 3)).astype(np.float32)
    p[:] = a
    s = cuda.stream()
    d = cuda.to_device(p, stream=s)
    out = cuda.pinned_array_like(p)
    out[:] = np.nan
    d.copy_to_host(out, stream=s)
    s.synchronize()
    np.testing.assert_array_equal(out, a)
    del p, like, out
    assert core().memory_stats()["live_host_allocations"] == stats["live_host_allocations"]


def page_aligned(n, dtype=np.float64):
    """A numpy array that owns whole pages (so that registering it never
    touches a page another array shares)."""
    page = 4096
    item = np.dtype(dtype).itemsize
    nbytes = (n * item + page - 1) // page * page
    raw = np.empty(nbytes + page, np.uint8)
    start = (-raw.ctypes.data) % page
    return raw[start:start + n * item].view(dtype)


def test_pinned_context_manager(backend, rng):
    a = page_aligned(10_000)
    a[:] = rng.standard_normal(10_000)
    out = page_aligned(10_000)
    out[:] = np.nan
    s = cuda.stream()
    with cuda.pinned(a, out):
        d = cuda.to_device(a, stream=s)
        affine[40, 256, s](d, d, 2.0)
        d.copy_to_host(out, stream=s)
        s.synchronize()
    np.testing.assert_array_equal(out, a * 2 + np.arange(a.size))
    with cuda.pinned(out):  # registering again after the release works
        pass


@pytest.mark.parametrize("kind", ["mapped", "managed"])
def test_mapped_and_managed_arrays_are_used_in_place(backend, rng, kind):
    make = cuda.mapped_array if kind == "mapped" else cuda.managed_array
    m = make((64, 5), np.int32)
    assert isinstance(m, np.ndarray) and m.shape == (64, 5)
    a = rng.integers(-50, 50, (64, 5)).astype(np.int32)
    m[:] = a
    before = core().memory_stats()["staged_arguments"]
    increment[2, 256](m.reshape(-1))  # no staging copy
    cuda.synchronize()
    assert core().memory_stats()["staged_arguments"] == before
    np.testing.assert_array_equal(m, a + 1)
    like = cuda.mapped_array_like(m)
    assert like.shape == m.shape and like.dtype == m.dtype
