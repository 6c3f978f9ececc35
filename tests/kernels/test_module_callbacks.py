"""Module-load callbacks of link= code: LinkableCode(setup_callback=...,
teardown_callback=...).  A setup runs once per loaded module (one per
specialization and device context) before the module's first launch, also
when threads launch it concurrently; the teardowns run when the context is
reset.  The kernels read what a setup wrote, so a setup that ran late (or
not at all) gives a wrong value.  On the CPU executor the module is a
number per load; on a GPU it is the CUmodule (the hardware test reads a
__device__ global of the linked CUDA C through cuModuleGetGlobal)."""
import ctypes
import threading

import numpy as np
import pytest

from gpu_util import poisoned
from pycuda_jit import _module_callbacks, cuda


class Recorder:
    """Callbacks that log (event, handle) and, at setup, write `value` into
    the device array that the kernels read."""

    def __init__(self, cell=None, value=0):
        self.events = []
        self.cell = cell
        self.value = value
        self.lock = threading.Lock()

    def setup(self, mod):
        assert isinstance(mod, _module_callbacks.LoadedModule)
        with self.lock:
            self.events.append(("setup", mod.handle))
        if self.cell is not None:
            self.cell.copy_to_device(np.array([self.value], self.cell.dtype))

    def teardown(self, mod):
        with self.lock:
            self.events.append(("teardown", mod.handle))

    def handles(self, event):
        return [h for e, h in self.events if e == event]


def empty_source(rec):
    return cuda.CUSource("", name="empty.cu", setup_callback=rec.setup,
                         teardown_callback=rec.teardown)


@pytest.fixture(autouse=True)
def fresh_context():
    cuda.close()  # no module of another test's kernels is torn down here
    yield
    cuda.close()


def test_setup_runs_before_the_first_launch_once(rng):
    cell = cuda.to_device(np.zeros(1, np.int64))
    value = int(rng.integers(1, 1 << 40))
    rec = Recorder(cell, value)

    @cuda.jit(link=[empty_source(rec)])
    def k(out, c):
        out[0] = c[0]

    out = poisoned(1, np.int64)
    k[1, 1](out, cell)
    assert out[0] == value  # the setup wrote before the launch read
    k[1, 1](out, cell)
    assert len(rec.handles("setup")) == 1
    assert rec.handles("teardown") == []


def test_one_module_per_specialization_and_teardown_at_reset():
    rec = Recorder()

    @cuda.jit(link=[empty_source(rec)])
    def k(out, x):
        out[0] = x * 2

    out = poisoned(1, np.float64)
    k[1, 1](out, 21)
    k[1, 1](out, 4)
    k[1, 1](out, 1.25)
    assert out[0] == 2.5
    setups = rec.handles("setup")
    assert len(setups) == 2 and len(set(setups)) == 2
    cuda.close()
    assert sorted(rec.handles("teardown")) == sorted(setups)
    # The next launch loads (and sets up) a new module.
    k[1, 1](out, 3)
    assert out[0] == 6
    again = rec.handles("setup")[2:]
    assert len(again) == 1 and again[0] not in setups


def test_two_kernels_sharing_the_code_get_a_setup_each():
    rec = Recorder()
    lib = empty_source(rec)

    @cuda.jit(link=[lib])
    def k1(out):
        out[0] = 1

    @cuda.jit(link=[lib])
    def k2(out):
        out[0] = 2

    out = poisoned(1, np.int32)
    k1[1, 1](out)
    k2[1, 1](out)
    assert out[0] == 2
    assert len(set(rec.handles("setup"))) == 2
    cuda.current_context().reset()
    assert sorted(rec.handles("teardown")) == sorted(rec.handles("setup"))


def test_concurrent_first_launches_run_one_setup(rng):
    cell = cuda.to_device(np.zeros(1, np.int32))
    value = int(rng.integers(1, 1 << 30))
    rec = Recorder(cell, value)

    @cuda.jit(link=[empty_source(rec)])
    def k(out, c):
        out[cuda.grid(1)] = c[0]

    outs = [poisoned(32, np.int32) for _ in range(6)]
    errors = []

    def run(out):
        try:
            k[1, 32](out, cell)
        except BaseException as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=run, args=(o,)) for o in outs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len(rec.handles("setup")) == 1
    for o in outs:
        assert (o == value).all()


def test_only_setup_or_only_teardown_or_neither():
    rec = Recorder()
    libs = [cuda.CUSource("", setup_callback=rec.setup),
            cuda.CUSource("", teardown_callback=rec.teardown),
            cuda.CUSource("")]
    for lib in libs:
        @cuda.jit(link=[lib])
        def k(out):
            out[0] = 7

        out = poisoned(1, np.int32)
        k[1, 1](out)
        assert out[0] == 7
    cuda.close()
    assert [e for e, _ in rec.events] == ["setup", "teardown"]


def test_a_failing_setup_stops_the_launch_and_runs_again_next_time():
    calls = []

    def setup(mod):
        calls.append(mod.handle)
        if len(calls) == 1:
            raise RuntimeError("setup failed once")

    @cuda.jit(link=[cuda.CUSource("", setup_callback=setup)])
    def k(out):
        out[0] = 5

    out = poisoned(1, np.int32)
    with pytest.raises(RuntimeError, match="setup failed once"):
        k[1, 1](out)
    assert out[0] != 5  # the kernel did not run
    k[1, 1](out)
    assert out[0] == 5 and len(calls) == 2 and calls[0] == calls[1]


def test_callbacks_must_be_callable():
    with pytest.raises(TypeError, match="setup_callback"):
        cuda.CUSource("", setup_callback=3)
    with pytest.raises(TypeError, match="teardown_callback"):
        cuda.PTXSource("", teardown_callback="x")


NUM_SOURCE = """
__device__ int num = 0;
extern "C" __device__ int get_num(int *retval) { *retval = num; return 0; }
"""


def writes_num(value):
    """A setup callback that sets NUM_SOURCE's `num` to value through the
    driver API: on a GPU the handle is the CUlibrary, as numba-cuda's."""
    libcuda = ctypes.CDLL("libcuda.so.1")

    def setup(mod):
        ptr, size = ctypes.c_uint64(), ctypes.c_size_t()
        assert libcuda.cuLibraryGetGlobal(ctypes.byref(ptr), ctypes.byref(size),
                                          ctypes.c_void_p(mod.handle), b"num") == 0
        src = np.array([value], np.int32)
        assert libcuda.cuMemcpyHtoD_v2(ptr, src.ctypes.data, size) == 0
    return setup


def test_setup_writes_a_device_global_of_the_module(hardware, rng):
    # The setup writes the linked CUDA C's global (cuLibraryGetGlobal), and
    # the kernel reads it back.
    value = int(rng.integers(1, 1 << 30))
    setup = writes_num(value)

    get_num = cuda.declare_device("get_num", "int32()")

    @cuda.jit(link=[cuda.CUSource(NUM_SOURCE, setup_callback=setup)])
    def k(out):
        out[0] = get_num()

    out = poisoned(1, np.int32)
    k[1, 1](out)
    assert out[0] == value


# cuda.declare_device(..., link=[...]): the callbacks of the foreign
# function's own link items run for the modules of every kernel that calls
# it, directly or through a device function, also after a disk-cache hit.
SEVEN_SOURCE = 'extern "C" __device__ int seven(int *r) { *r = 7; return 0; }'


def seven_source(rec):
    return cuda.CUSource(SEVEN_SOURCE, name="seven.cu", setup_callback=rec.setup,
                         teardown_callback=rec.teardown)


def test_declare_device_link_runs_its_callbacks(rng):
    cell = cuda.to_device(np.zeros(1, np.int64))
    value = int(rng.integers(1, 1 << 40))
    rec = Recorder(cell, value)
    seven = cuda.declare_device("seven", "int32()", link=[seven_source(rec)])

    @cuda.jit
    def k(out, c):
        out[0] = c[0] + seven()

    out = poisoned(1, np.int64)
    k[1, 1](out, cell)
    assert out[0] == value + 7  # the foreign code's setup ran before the launch
    k[1, 1](out, cell)
    setups = rec.handles("setup")
    assert len(setups) == 1
    cuda.close()
    assert rec.handles("teardown") == setups


def test_declare_device_link_callbacks_through_a_device_function(rng):
    cell = cuda.to_device(np.zeros(1, np.int32))
    value = int(rng.integers(1, 1 << 30))
    rec = Recorder(cell, value)
    seven = cuda.declare_device("seven", "int32()", link=[seven_source(rec)])

    @cuda.jit(device=True)
    def plus_seven(x):
        return x + seven()

    @cuda.jit
    def k(out, c):
        out[0] = plus_seven(c[0])

    @cuda.jit
    def other(out, c):  # calls no foreign function: no setup for its module
        out[0] = c[0] * 2

    out = poisoned(1, np.int32)
    k[1, 1](out, cell)
    assert out[0] == value + 7
    assert len(rec.handles("setup")) == 1
    other[1, 1](out, cell)
    assert out[0] == 2 * value
    assert len(rec.handles("setup")) == 1


def test_an_item_in_both_link_lists_is_set_up_once_per_module():
    rec = Recorder()
    lib = seven_source(rec)
    seven = cuda.declare_device("seven", "int32()", link=[lib])

    @cuda.jit(link=[lib])
    def k(out):
        out[0] = seven() * 3

    out = poisoned(1, np.int32)
    k[1, 1](out)
    assert out[0] == 21
    assert len(rec.handles("setup")) == 1
    cuda.close()
    assert rec.handles("teardown") == rec.handles("setup")


def test_declare_device_link_callbacks_after_a_cache_hit(tmp_path, monkeypatch, rng):
    monkeypatch.setenv("PYCUDA_JIT_CACHE_DIR", str(tmp_path / "cache"))
    cell = cuda.to_device(np.zeros(1, np.int64))
    value = int(rng.integers(1, 1 << 40))
    rec = Recorder(cell, value)
    seven = cuda.declare_device("seven", "int32()", link=[seven_source(rec)])

    def run():
        @cuda.jit(cache=True)
        def k(out, c):
            out[0] = c[0] - seven()
        out = poisoned(1, np.int64)
        k[1, 1](out, cell)
        return out[0], k.stats["cache"]

    assert run() == (value - 7, "miss")
    assert run() == (value - 7, "hit")
    assert len(set(rec.handles("setup"))) == 2  # a module per dispatcher


def test_declare_device_setup_writes_a_device_global(hardware, rng):
    # numba-cuda's test_decldevice_arg: a kernel whose only link= code is
    # its foreign function's is loaded as a CUlibrary too.
    value = int(rng.integers(1, 1 << 30))
    setup = writes_num(value)

    get_num = cuda.declare_device(
        "get_num", "int32()", link=[cuda.CUSource(NUM_SOURCE, setup_callback=setup)])

    @cuda.jit
    def k(out):
        out[0] = get_num()

    out = poisoned(1, np.int32)
    k[1, 1](out)
    assert out[0] == value
