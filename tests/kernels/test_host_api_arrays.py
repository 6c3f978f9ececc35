"""numba-cuda host API around device arrays, checked by computed values:
cuda.transpose, DeviceNDArray.split / bind, mapped and managed arrays seen
through __cuda_array_interface__, and device arrays from a memory-manager
plug-in (cuda.set_memory_manager) used by kernels."""
import numpy as np
import pytest

from pycuda_jit import cuda

RECORD = np.dtype([("i", np.int32), ("j", np.float32, (3, 2))])


def _random_bytes(rng, shape, dtype):
    a = np.zeros(shape, dtype)
    raw = a.view(np.uint8)
    if np.dtype(dtype) == np.bool_:
        raw[...] = rng.integers(0, 2, raw.shape)
    else:
        raw[...] = rng.integers(0, 256, raw.shape)
    return a


@pytest.mark.parametrize("dtype", [np.float64, np.complex128, np.bool_, np.int16, np.int8,
                                   RECORD], ids=str)
@pytest.mark.parametrize("shape", [(2, 3), (16, 17), (33, 5), (1, 40)])
def test_transpose_any_dtype(rng, shape, dtype):
    a = _random_bytes(rng, shape, dtype)
    # Poisoned output: every byte 0x5A, which no input byte pattern here
    # transposes into everywhere.
    nbytes = a.nbytes
    out = cuda.to_device(np.full(nbytes, 0x5A, np.uint8).view(a.dtype).reshape(shape[::-1]))
    got = cuda.transpose(cuda.to_device(a), out)
    assert got is out
    assert got.copy_to_host().tobytes() == np.ascontiguousarray(a.T).tobytes()


def test_transpose_of_view_allocates_output(rng):
    a = rng.standard_normal((40, 30)).astype(np.float32)
    d = cuda.to_device(a)[3:37:2, ::3]  # strided, not contiguous
    got = cuda.transpose(d)
    assert got.shape == (10, 17)
    np.testing.assert_array_equal(got.copy_to_host(), a[3:37:2, ::3].T)


def test_transpose_checks_output():
    d = cuda.device_array((3, 4), np.float32)
    with pytest.raises(ValueError, match="shape"):
        cuda.transpose(d, cuda.device_array((3, 4), np.float32))
    with pytest.raises(TypeError, match="dtype"):
        cuda.transpose(d, cuda.device_array((4, 3), np.float64))


@cuda.jit
def _add_index(x):
    i = cuda.grid(1)
    if i < x.size:
        x[i] += i


def test_split_views_share_memory(rng):
    a = rng.integers(-100, 100, 23).astype(np.int64)
    d = cuda.to_device(a)
    parts = d.split(5)
    assert [p.shape[0] for p in parts] == [5, 5, 5, 5, 3]
    for p in parts:
        _add_index[1, 32](p)
    expect = a + np.concatenate([np.arange(n) for n in (5, 5, 5, 5, 3)])
    np.testing.assert_array_equal(d.copy_to_host(), expect)
    with pytest.raises(ValueError):
        cuda.device_array((4, 4)).split(2)
    with pytest.raises(ValueError):
        d[::2].split(2)


def test_bind_gives_stream_view(rng):
    s = cuda.stream()
    a = rng.standard_normal(64)
    d = cuda.to_device(a)
    bound = d.bind(s)
    assert bound.stream == s and d.stream == 0
    _add_index[2, 32, s](bound)
    s.synchronize()
    np.testing.assert_array_equal(d.copy_to_host(), a + np.arange(64))


@pytest.mark.parametrize("kind", ["mapped", "managed"])
def test_host_device_arrays_interface(rng, kind, backend):
    s = cuda.stream()
    make = cuda.mapped_array if kind == "mapped" else cuda.managed_array
    m = make(50, dtype=np.float64, stream=s)
    m[:] = rng.standard_normal(50)
    before = m.copy()
    cai = m.__cuda_array_interface__
    assert cai["shape"] == (50,) and cai["typestr"] == "<f8"
    # The stream, as device arrays give it: None on the CPU executor.
    assert cai["stream"] == (s.handle if backend == "cuda" else None)
    assert cai["stream"] == cuda.device_array(3, stream=s).__cuda_array_interface__["stream"]
    assert make(3).__cuda_array_interface__["stream"] is None
    # A consumer (cuda.as_cuda_array) sees the same memory: a kernel writing
    # through it changes the host array in place.
    view = cuda.as_cuda_array(m[10:])
    assert view.shape == (40,)
    _add_index[2, 32, s](view)
    s.synchronize()
    np.testing.assert_array_equal(m, before + np.concatenate([np.zeros(10), np.arange(40)]))


class _CountingManager(cuda.GetIpcHandleMixin, cuda.HostOnlyCUDAMemoryManager):
    """A plug-in that takes its memory from pycuda_jit's allocator and
    counts its allocations and frees."""

    allocs = 0
    frees = 0

    def initialize(self):
        self.initialized = True

    def memalloc(self, size):
        from pycuda_jit import _lazy
        alloc = _lazy.core().Allocation(size)
        type(self).allocs += 1

        def finalizer(alloc=alloc):
            type(self).frees += 1
        return cuda.MemoryPointer(self.context, alloc.ptr, size, owner=alloc,
                                  finalizer=finalizer)

    def get_memory_info(self):
        return cuda.MemoryInfo(free=123, total=456)

    @property
    def interface_version(self):
        return 1


@pytest.fixture
def counting_manager():
    from pycuda_jit import memory_manager
    cuda.set_memory_manager(_CountingManager)
    _CountingManager.allocs = _CountingManager.frees = 0
    try:
        yield _CountingManager
    finally:
        memory_manager.set_memory_manager(memory_manager._DefaultMemoryManager)


def test_memory_manager_plugin_supplies_arrays(rng, counting_manager):
    ctx = cuda.current_context()
    assert isinstance(ctx.memory_manager, counting_manager)
    assert ctx.memory_manager.initialized
    assert ctx.get_memory_info() == (123, 456)
    a = rng.standard_normal(40)
    d = cuda.to_device(a)
    e = cuda.device_array_like(d)
    assert counting_manager.allocs == 2
    assert d.gpu_data.device_pointer_value == d.device_ctypes_pointer_value
    _add_index[2, 32](d)
    np.testing.assert_array_equal(d.copy_to_host(), a + np.arange(40))
    del d, e
    import gc
    gc.collect()
    assert counting_manager.frees == 2


def test_set_memory_manager_refuses_other_classes():
    with pytest.raises(TypeError):
        cuda.set_memory_manager(object)


def test_mapped_context_manager_zero_copy(rng):
    a = rng.standard_normal(50)
    b = rng.integers(0, 100, (4, 8)).astype(np.int32)
    before_a, before_b = a.copy(), b.copy()
    with cuda.mapped(a, b) as (da, db):
        assert da.shape == (50,) and db.shape == (4, 8) and db.dtype == np.int32
        _add_index[2, 32](da)
        _add_index[1, 32](db.reshape(32))
        cuda.synchronize()
    np.testing.assert_array_equal(a, before_a + np.arange(50))
    np.testing.assert_array_equal(b, before_b + np.arange(32).reshape(4, 8))
    with cuda.mapped(a) as one:  # unregistered at the end: maps again
        assert one.shape == (50,)
    with pytest.raises(TypeError):
        with cuda.mapped([1, 2]):
            pass
