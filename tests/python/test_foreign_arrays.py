"""Torch tensors and CuPy arrays as kernel arguments read through their own
attributes (pycuda_jit/_core_src/ForeignArrays.cpp): the launch sees exactly
what their __cuda_array_interface__ says (pointer, shape, strides, dtype,
read-only flag, stream), and a type whose attributes disagree with its
interface is read through the interface.  Stand-ins from foreign_fakes.py
(the real libraries: tests/kernels/test_host_interop.py on the GPU machine).

The buffers are cuda.mapped_array memory, so the kernels run on either
executor; `_core.arg_view` shows what a launch read and by which path.
"""
import sys

import numpy as np
import pytest

from pycuda_jit import cuda, float32
from pycuda_jit._lazy import core

import foreign_fakes as ff


@pytest.fixture
def cupy_module(monkeypatch):
    mod = ff.fake_cupy_module()
    monkeypatch.setitem(sys.modules, "cupy", mod)
    return mod


def mapped(rng, shape, dtype=np.float32):
    a = cuda.mapped_array(shape, dtype)
    if np.dtype(dtype).kind == "b":
        a[...] = rng.integers(0, 2, size=shape).astype(bool)
    elif np.dtype(dtype).kind in "iu":
        a[...] = rng.integers(-50 if np.dtype(dtype).kind == "i" else 0, 50, size=shape)
    else:
        a[...] = rng.standard_normal(shape)
    return a


def views(rng):
    """(name, view) pairs: the layouts the interface can state."""
    a = mapped(rng, (6, 8))
    b = mapped(rng, 24, np.int64)
    return [
        ("c2d", a),
        ("fortran", a.T),
        ("negative", a[::-1, ::-2]),
        ("step", b[1::3]),
        ("zero_stride", np.lib.stride_tricks.as_strided(b, shape=(4, 5), strides=(8, 0), subok=True)),
        ("size1_dims", a[2:3, :, None]),
        ("empty", a[3:3]),
        ("zero_d", b[5, ...]),
        ("bool", mapped(rng, 7, np.bool_)),
        ("uint8_3d", mapped(rng, (2, 3, 4), np.uint8)),
    ]


def view_of(x):
    return core().arg_view(x)


def same_as_interface(x):
    got = view_of(x)
    want = view_of(ff.InterfaceOnly(x))
    assert want.pop("path") == "other"
    assert got.pop("path") == "foreign"
    assert got == want


def test_cupy_reads_what_the_interface_says(cupy_module):
    rng = np.random.default_rng(1301)
    cls = ff.cupy_type()
    cls.cupy_module = cupy_module
    for name, v in views(rng):
        x = cls(v)
        same_as_interface(x)
        got = view_of(x)
        assert got["shape"] == v.shape, name
        if v.size:
            assert got["ptr"] == ff.device_address(v), name
        else:
            assert got["ptr"] == 0, name


def test_torch_reads_what_the_interface_says():
    rng = np.random.default_rng(1302)
    cls = ff.torch_type()
    for name, v in views(rng):
        x = cls(v)
        same_as_interface(x)
        assert view_of(x)["stream"] is None, name  # torch's interface: v2, no stream


def test_cupy_stream_is_the_interface_stream(cupy_module):
    rng = np.random.default_rng(1303)
    cls = ff.cupy_type()
    cls.cupy_module = cupy_module
    x = cls(mapped(rng, 16))
    assert view_of(x)["stream"] == 1  # the legacy default stream
    cupy_module.cuda.current = 0x5000
    assert view_of(x) == {**view_of(ff.InterfaceOnly(x)), "path": "foreign"}
    assert view_of(x)["stream"] == 0x5000
    cupy_module.cuda.current = 0
    v2 = ff.cupy_type(version=2)
    y = v2(mapped(rng, 16))
    assert view_of(y)["stream"] is None and view_of(y)["path"] == "foreign"


def test_cupy_per_thread_default_stream_falls_back(cupy_module):
    # CuPy's interface says 2 for the per-thread default stream, which its
    # Stream object reports as ptr 0: the attributes disagree, so the
    # interface is read.
    rng = np.random.default_rng(1304)
    cls = ff.cupy_type(ptds=True)
    cls.cupy_module = cupy_module
    x = cls(mapped(rng, 16))
    got = view_of(x)
    assert got["path"] == "other" and got["stream"] == 2
    assert view_of(cls(mapped(rng, 3)))["path"] == "other"


@pytest.mark.parametrize("make", ["cupy", "torch"])
def test_lying_pointer_falls_back_to_the_interface(make, cupy_module):
    rng = np.random.default_rng(1305)
    other = mapped(rng, 64)
    lie = lambda x: {"ptr": ff.device_address(other)}  # noqa: E731
    cls = ff.cupy_type(lie=lie) if make == "cupy" else ff.torch_type(lie=lie)
    cls.cupy_module = cupy_module
    a = mapped(rng, 64)
    out = cuda.mapped_array(64, np.float32)
    out[:] = np.nan

    @cuda.jit
    def twice(x, y):
        i = cuda.grid(1)
        if i < x.size:
            y[i] = 2 * x[i]

    twice[1, 64](cls(a), out)
    cuda.synchronize()
    np.testing.assert_array_equal(out, 2 * a)
    assert view_of(cls(a))["path"] == "other"
    assert view_of(cls(a))["ptr"] == ff.device_address(a)


def test_a_new_layout_is_checked_too(cupy_module):
    # Attributes that agree for 1-D arrays but give 2-D strides reversed:
    # the first 2-D array is compared, disagrees, and the type falls back.
    def lie(x):
        v = x._v
        return {"strides": v.strides[::-1]} if v.ndim == 2 else {}

    rng = np.random.default_rng(1306)
    cls = ff.cupy_type(lie=lie)
    cls.cupy_module = cupy_module
    assert view_of(cls(mapped(rng, 5)))["path"] == "foreign"
    a = mapped(rng, (4, 6))
    out = cuda.mapped_array((4, 6), np.float32)
    out[...] = np.nan

    @cuda.jit
    def plus_one(x, y):
        i, j = cuda.grid(2)
        if i < x.shape[0] and j < x.shape[1]:
            y[i, j] = x[i, j] + 1

    plus_one[1, (4, 6)](cls(a), out)
    cuda.synchronize()
    np.testing.assert_array_equal(out, a + 1)
    assert view_of(cls(a))["path"] == "other"
    assert view_of(cls(mapped(rng, 5)))["path"] == "other"


def test_strided_views_compute_right(cupy_module):
    rng = np.random.default_rng(1307)
    cp, th = ff.cupy_type(), ff.torch_type()
    cp.cupy_module = cupy_module
    a = mapped(rng, (6, 8))
    b = mapped(rng, (6, 8))

    @cuda.jit
    def fma(x, y, out):
        i, j = cuda.grid(2)
        if i < out.shape[0] and j < out.shape[1]:
            out[i, j] = x[i, j] * y[i, j] + x.strides[0] - y.strides[1]

    for xv, yv in [(a, b), (a[::-1, :], b[:, ::-1]), (a.T, b.T[::-1]), (a[:, ::-1], b[::-1, ::-1]),
                   (a[::2, 1::2], np.lib.stride_tricks.as_strided(b, (3, 4), (0, 4), subok=True))]:
        out = cuda.mapped_array(xv.shape, np.float32)
        out[...] = np.nan
        fma[1, xv.shape](cp(xv), th(yv), out)
        cuda.synchronize()
        np.testing.assert_allclose(out, xv * yv + xv.strides[0] - yv.strides[1], rtol=1e-6)


def test_requires_grad_tensor_is_refused_as_the_interface_says():
    rng = np.random.default_rng(1308)
    cls = ff.torch_type()
    x = cls(mapped(rng, 8), requires_grad=True)

    @cuda.jit
    def touch(x):
        x[0] = 1

    # The interface raises; the launch then tries DLPack, which torch refuses
    # as well (RuntimeError): the tensor is not read from its attributes.
    with pytest.raises(RuntimeError, match="require gradient"):
        touch[1, 1](x)
    with pytest.raises(RuntimeError, match="require gradient"):
        view_of(x)
    assert view_of(cls(mapped(rng, 8)))["path"] == "foreign"


def test_unknown_dtype_takes_the_interface_path(cupy_module):
    # A structured dtype: no scalar name; the interface's descr describes it.
    rng = np.random.default_rng(1309)
    cls = ff.cupy_type()
    cls.cupy_module = cupy_module
    rec = cuda.mapped_array(4, np.dtype([("a", np.int32), ("b", np.float32)]))
    rec["a"] = rng.integers(0, 9, 4)
    got = view_of(cls(rec))
    assert got["path"] == "other"
    assert got["type"][0] == "array" and got["type"][1][0] == "record"


def test_cpu_executor_refuses_gpu_memory_on_the_fast_path(cupy_module):
    if cuda.backend() != "cpu":
        pytest.skip("the CPU executor's check")
    rng = np.random.default_rng(1310)
    cls = ff.cupy_type()
    cls.cupy_module = cupy_module
    good = cls(mapped(rng, 8))
    assert view_of(good)["path"] == "foreign"
    bad = cls(mapped(rng, 8))
    # Not host memory; the type was compared with its interface already, so
    # the fast path reads it and must refuse it itself.
    bad.data = ff._Memory(8)
    bad._ptr = 8
    with pytest.raises(ValueError, match="CPU executor"):
        view_of(bad)


def test_a_dtype_that_disagrees_falls_back_alone(cupy_module):
    # The dtype attribute names float32 where the interface says float64: that
    # dtype object is read through the interface from then on; the type's
    # other arrays keep the fast path.  (A dtype object of its own, so other
    # tests' float32 arrays are not touched.)
    wrong = np.dtype(np.float32, copy=True)
    lie = lambda x: {"dtype": wrong} if x._v.dtype == np.float64 else {}  # noqa: E731
    rng = np.random.default_rng(1311)
    cls = ff.cupy_type(lie=lie)
    cls.cupy_module = cupy_module
    a = mapped(rng, 32, np.float64)
    out = cuda.mapped_array(32, np.float64)
    out[:] = np.nan

    @cuda.jit
    def neg(x, y):
        i = cuda.grid(1)
        if i < x.size:
            y[i] = -x[i]

    neg[1, 32](cls(a), out)
    cuda.synchronize()
    np.testing.assert_array_equal(out, -a)
    got = view_of(cls(a))
    assert got["path"] == "other" and got["type"] == ("array", "float64", 1, "C")
    assert view_of(cls(mapped(rng, 8)))["path"] == "foreign"


def test_torch_bfloat16_reads_through_its_interface_typestr():
    # torch's interface gives '<V2' for bfloat16 (as ml_dtypes' arrays do);
    # its dtype, str() 'torch.bfloat16', says which 2-byte type that is.
    rng = np.random.default_rng(1312)
    vals = rng.standard_normal(16).astype(np.float32)
    bits = cuda.mapped_array(16, np.uint16)
    bits[:] = (vals.view(np.uint32) >> 16).astype(np.uint16)  # exact bfloat16 values
    want = (bits.astype(np.uint32) << 16).view(np.float32)
    cls = ff.torch_type()
    x = cls(bits, bfloat16=True)
    got = view_of(x)
    assert got["path"] == "foreign" and got["type"] == ("array", "bfloat16", 1, "C")
    out = cuda.mapped_array(16, np.float32)
    out[:] = np.nan

    @cuda.jit
    def widen(x, y):
        i = cuda.grid(1)
        if i < x.size:
            y[i] = float32(x[i]) * 2

    widen[1, 16](x, out)
    cuda.synchronize()
    np.testing.assert_array_equal(out, want * 2)


def test_an_array_passed_twice_is_read_once_per_launch_only(cupy_module):
    # k(x, x) reads x's attributes once; the next launch reads them again, so
    # an object now viewing other memory is seen there.
    rng = np.random.default_rng(1313)
    cls = ff.cupy_type()
    cls.cupy_module = cupy_module
    a, b = mapped(rng, 40), mapped(rng, 40)
    a0, b0 = a.copy(), b.copy()

    @cuda.jit
    def add_into(x, y):
        i = cuda.grid(1)
        if i < x.size:
            y[i] = x[i] + 1

    x = cls(a)
    add_into[1, 40](x, x)
    cuda.synchronize()
    np.testing.assert_array_equal(a, a0 + 1)
    x.__init__(b)  # the same object, now over b (as torch's set_() can do)
    assert view_of(x)["ptr"] == ff.device_address(b)
    add_into[1, 40](x, x)
    cuda.synchronize()
    np.testing.assert_array_equal(b, b0 + 1)
    np.testing.assert_array_equal(a, a0 + 1)


SYNC_PROBE = r"""
import sys
sys.path.insert(0, sys.argv[1])
import numpy as np
import foreign_fakes as ff
from pycuda_jit import cuda
from pycuda_jit._lazy import core
mod = ff.fake_cupy_module()
sys.modules["cupy"] = mod
mod.cuda.current = 0x7000
cls = ff.cupy_type()
cls.cupy_module = mod
x = cls(cuda.mapped_array(8, np.float32))
print(core().arg_view(x)["stream"], core().arg_view(ff.InterfaceOnly(x))["stream"],
      core().arg_view(x)["path"])
"""


@pytest.mark.parametrize("sync", [None, "1", "0"])
def test_interface_sync_switch(sync):
    # PYCUDA_JIT_CUDA_ARRAY_INTERFACE_SYNC=0 (numba's
    # NUMBA_CUDA_ARRAY_INTERFACE_SYNC): the launch waits on no interface
    # stream, on either path; read once per process, hence a child process.
    import os
    import subprocess
    here = os.path.dirname(os.path.abspath(__file__))
    env = dict(os.environ)
    env.pop("PYCUDA_JIT_CUDA_ARRAY_INTERFACE_SYNC", None)
    if sync is not None:
        env["PYCUDA_JIT_CUDA_ARRAY_INTERFACE_SYNC"] = sync
    env["PYTHONPATH"] = os.path.dirname(os.path.dirname(here))
    r = subprocess.run([sys.executable, "-c", SYNC_PROBE, here], env=env,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    want = "None None foreign" if sync == "0" else f"{0x7000} {0x7000} foreign"
    assert r.stdout.split("\n")[-2] == want


def test_each_combination_is_compared_once(cupy_module):
    # 25 (dtype, ndim) combinations, more than the most-recent ring holds:
    # the second round compares none of them with its interface again.
    rng = np.random.default_rng(1314)
    cls = ff.cupy_type()
    cls.cupy_module = cupy_module
    arrays = [mapped(rng, (2,) * nd, dt) for nd in range(1, 6)
              for dt in (np.float32, np.float64, np.int32, np.int64, np.uint8)]
    for a in arrays:
        got = view_of(cls(a))
        assert got["path"] == "foreign" and got["ptr"] == ff.device_address(a)
    first = cls.interface_reads
    assert first == len(arrays) + 1  # and once to recognize the type
    for a in arrays:
        got = view_of(cls(a))
        assert got["path"] == "foreign" and got["shape"] == a.shape
    assert cls.interface_reads == first
