"""numba-cuda's host API surface that needs no kernel values: the warnings
numba-cuda gives for conflicting cuda.jit options, kernel.stats's cache
counters, inspect_types(file=), Context.memory_manager and the EMM plug-in
interface's checks, DeviceRecord's type, empty arrays keeping strides."""
import io
import warnings

import numpy as np
import pytest

from pycuda_jit import cuda, errors, types


def _caught(make):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        make()
    return [x for x in w if issubclass(x.category, errors.PycudaJitWarning)]


def test_debug_with_optimization_warns():
    for make in (lambda: cuda.jit(debug=True), lambda: cuda.jit(debug=True, opt=True),
                 lambda: cuda.jit(debug=True, opt=2)):
        w = _caught(make)
        assert len(w) == 1 and w[0].category is errors.InvalidConfigWarning
        assert "not supported by CUDA" in str(w[0].message)
        assert w[0].filename == __file__  # the user's line, not the package's


def test_debug_and_lineinfo_warn():
    w = _caught(lambda: cuda.jit(debug=True, opt=False, lineinfo=True))
    assert [x.category for x in w] == [errors.InvalidConfigWarning]
    assert "debug and lineinfo are mutually exclusive" in str(w[0].message)


def test_consistent_options_do_not_warn():
    assert _caught(lambda: cuda.jit(debug=True, opt=False)) == []
    assert _caught(lambda: cuda.jit()) == []
    assert _caught(lambda: cuda.jit(lineinfo=True)) == []


def test_warning_classes():
    for cls in (errors.PerformanceWarning, errors.InvalidConfigWarning,
                errors.DebugInfoWarning):
        assert issubclass(cls, errors.PycudaJitWarning) and issubclass(cls, Warning)


def _kernel():
    @cuda.jit
    def add_one(x):
        i = cuda.grid(1)
        if i < x.size:
            x[i] += 1
    return add_one


def test_stats_cache_counters_without_cache():
    k = _kernel()
    assert k.stats.cache_hits == {} and k.stats.cache_misses == {}
    k[1, 4](np.zeros(4, np.float32))
    st = k.stats
    assert st["name"]  # still the last specialization's facts
    assert sum(st.cache_hits.values()) == 0 and sum(st.cache_misses.values()) == 0


def test_stats_cache_counters_with_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("PYCUDA_JIT_CACHE_DIR", str(tmp_path))
    src = tmp_path / "cached_kernel_mod.py"
    src.write_text("from pycuda_jit import cuda\n\n"
                   "@cuda.jit(cache=True)\n"
                   "def twice(x):\n"
                   "    i = cuda.grid(1)\n"
                   "    if i < x.size:\n"
                   "        x[i] *= 2\n")
    import importlib
    import sys
    monkeypatch.syspath_prepend(str(tmp_path))
    mod = importlib.import_module("cached_kernel_mod")
    mod.twice[1, 4](np.ones(4, np.float32))
    assert sum(mod.twice.stats.cache_misses.values()) == 1
    assert sum(mod.twice.stats.cache_hits.values()) == 0
    del sys.modules["cached_kernel_mod"]
    mod = importlib.import_module("cached_kernel_mod")
    x = np.ones(4, np.float32)
    mod.twice[1, 4](x)
    np.testing.assert_array_equal(x, 2)
    assert sum(mod.twice.stats.cache_hits.values()) == 1
    assert sum(mod.twice.stats.cache_misses.values()) == 0
    del sys.modules["cached_kernel_mod"]


def test_inspect_types_to_file():
    @cuda.jit("void(float32, int32)")
    def foo(x, y):
        pass
    f = io.StringIO()
    assert foo.inspect_types(file=f) is None
    text = f.getvalue()
    assert "foo" in text and "(float32, int32)" in text
    assert foo.inspect_types(foo.signatures[0]) in text


def test_context_memory_manager():
    ctx = cuda.current_context()
    mgr = ctx.memory_manager
    assert mgr is cuda.current_context().memory_manager
    assert isinstance(mgr, cuda.BaseCUDAMemoryManager)
    assert mgr.interface_version == 1
    info = ctx.get_memory_info()
    assert isinstance(info, cuda.MemoryInfo) and 0 < info.free <= info.total
    mem = ctx.memalloc(256)
    assert isinstance(mem, cuda.MemoryPointer) and mem.size == 256
    assert mem.device_pointer_value != 0
    assert len(ctx.deallocations) >= 0 and len(mgr.deallocations) == len(ctx.deallocations)
    with ctx.defer_cleanup():
        pass


def test_memory_manager_interface_version_checked():
    class Future(cuda.GetIpcHandleMixin, cuda.HostOnlyCUDAMemoryManager):
        def memalloc(self, size):
            raise AssertionError("not called")

        def initialize(self):
            pass

        def get_memory_info(self):
            return cuda.MemoryInfo(0, 0)

        @property
        def interface_version(self):
            return 2

    with pytest.raises(RuntimeError, match="interface version 2"):
        cuda.set_memory_manager(Future)
    assert cuda.current_context().memory_manager.interface_version == 1
    with pytest.raises(RuntimeError, match="requires a context"):
        Future()


def test_memory_pointer_finalizer_runs_once():
    calls = []
    mp = cuda.MemoryPointer(None, 0x1000, 16, finalizer=lambda: calls.append(1))
    assert mp.device_pointer_value == 0x1000 and mp.owner is mp
    mp.free()
    mp.free()
    del mp
    assert calls == [1]


def test_device_record_type():
    from pycuda_jit.devicearray import DeviceRecord
    dtype = np.dtype([("a", np.int32), ("b", np.float32)], align=True)
    rec = DeviceRecord(dtype)
    assert rec._numba_type_ == types.from_dtype(dtype)
    assert rec.gpu_data.size == dtype.itemsize
    assert rec.gpu_data.device_pointer_value == rec.device_ctypes_pointer_value


def test_empty_array_keeps_strides():
    host = np.ndarray(shape=(0,), strides=(0,), dtype=np.int8)
    d = cuda.to_device(host)
    assert d.shape == (0,) and d.strides == (0,)
    d.copy_to_host(host)
    from pycuda_jit.devicearray import DeviceNDArray
    other = DeviceNDArray(shape=(0,), strides=(8,), dtype=np.int8)
    other.copy_to_device(d)
    d.copy_to_device(other)


def test_inspect_sass_without_nvdisasm_is_a_runtime_error(monkeypatch):
    from pycuda_jit._lazy import core

    def missing(name):
        raise FileNotFoundError(f"{name} was not found; looked in: /nowhere")
    monkeypatch.setattr(core(), "toolkit_file", missing)

    @cuda.jit("void(float32[::1])")
    def f(x):
        x[0] = 0

    with pytest.raises(RuntimeError, match="nvdisasm was not found") as info:
        f.inspect_sass()
    assert isinstance(info.value, FileNotFoundError)  # as before, for existing callers
    assert isinstance(info.value, errors.ToolNotFoundError)


def _debug_kernel_from_exec(debug):
    scope = {"cuda": cuda}
    exec("def no_source(x):\n    x[0] = 1\n", scope)  # no file: linecache has nothing
    return cuda.jit(debug=debug, opt=False)(scope["no_source"])


def test_debug_kernel_without_source_warns_once():
    k = _debug_kernel_from_exec(True)
    x = np.zeros(1, np.int32)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        k[1, 1](x)
        k[1, 1](x)  # compiled once: one warning
    found = [m for m in w if m.category is errors.DebugInfoWarning]
    assert len(found) == 1, [str(m.message) for m in w]
    assert "Could not find source for function" in str(found[0].message)
    assert str(k.py_func) in str(found[0].message)
    assert x[0] == 1


def test_no_debug_info_warning_with_source_or_without_debug():
    @cuda.jit(debug=True, opt=False)
    def has_source(x):
        x[0] = 2

    x = np.zeros(1, np.int32)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        has_source[1, 1](x)
        _debug_kernel_from_exec(False)[1, 1](x)
    assert [m for m in w if issubclass(m.category, errors.PycudaJitWarning)] == []
    assert x[0] == 1
