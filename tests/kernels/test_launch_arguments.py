"""Launch-time argument checks: a read-only array where the kernel may
write (numba types such arrays read-only: a TypingError naming the
parameter and the write), host arrays inside tuples (staged through device
memory on the GPU like top-level ones), and a compile that fails while the dispatcher's
lock is released (the aliasing variant) leaving the kernel usable."""
import inspect

import numpy as np
import pytest

from pycuda_jit import cuda, errors
from pycuda_jit._lazy import core
from gpu_util import poisoned


def line_of(func, needle):
    lines, start = inspect.getsourcelines(func)
    return start + next(k for k, text in enumerate(lines) if needle in text)


def readonly(a):
    a = np.array(a)
    a.flags.writeable = False
    return a


@cuda.jit
def axpy(a, x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = a * x[i] + i


@cuda.jit(device=True)
def store(arr, i, v):
    arr[i] = v


@cuda.jit(device=True)
def load(arr, i):
    return arr[i]


@cuda.jit
def copy_through_device_functions(x, out):
    i = cuda.grid(1)
    if i < x.size:
        store(out, i, load(x, i) * 2.0)


@cuda.jit
def count_into(hist, x):
    i = cuda.grid(1)
    if i < x.size:
        cuda.atomic.add(hist, int(x[i]) % hist.size, 1)


@cuda.jit
def write_first_of_pair(pair):
    i = cuda.grid(1)
    if i < pair[0].size:
        pair[0][i] = pair[1][i] + 1.0


def test_a_kernel_reading_a_read_only_array_runs(backend, rng):
    x = readonly(rng.standard_normal(300))
    before = x.copy()
    out = poisoned(300, np.float64)
    axpy[2, 256](2.0, x, out)
    np.testing.assert_array_equal(out, 2.0 * before + np.arange(300))
    np.testing.assert_array_equal(x, before)
    out2 = poisoned(300, np.float64)
    copy_through_device_functions[2, 256](x, out2)  # read in a device function
    np.testing.assert_array_equal(out2, before * 2.0)


@pytest.mark.parametrize("case", ["direct", "device_function", "atomic", "tuple"])
def test_writing_a_read_only_array_is_refused(backend, rng, case):
    x = rng.standard_normal(300)
    if case == "direct":
        kernel, write = axpy, "out[i] = a * x[i] + i"
        out = readonly(poisoned(300, np.float64))
        args, name, pos = (2.0, x, out), "out", 3
    elif case == "device_function":
        kernel, write = copy_through_device_functions, "store(out, i, load(x, i) * 2.0)"
        out = readonly(poisoned(300, np.float64))
        args, name, pos = (x, out), "out", 2
    elif case == "atomic":
        kernel, write = count_into, "cuda.atomic.add(hist"
        out = readonly(np.zeros(16, np.int64))
        args, name, pos = (out, x), "hist", 1
    else:
        kernel, write = write_first_of_pair, "pair[0][i] = pair[1][i] + 1.0"
        out = readonly(poisoned(300, np.float64))
        args, name, pos = ((out, x),), "pair", 1
        if backend == "cuda":
            pytest.skip("host arrays in tuples are refused on the GPU (test below)")
    before = out.copy()
    with pytest.raises(errors.TypingError) as info:
        kernel[2, 256](*args)
    err = info.value
    assert isinstance(err, errors.TypingError), err
    assert err.message == (f"kernel argument {pos} ('{name}') is a read-only array, "
                           "but the kernel writes to it")
    assert err.file == __file__ and err.line == line_of(kernel.py_func, write), str(err)
    assert "arr.copy()" in err.hint
    np.testing.assert_array_equal(out, before)  # nothing ran, nothing copied back
    # The same kernel with a writable array runs.
    writable = tuple(tuple(e.copy() for e in a) if isinstance(a, tuple)
                     else a.copy() if isinstance(a, np.ndarray) else a for a in args)
    kernel[2, 256](*writable)


def test_read_only_array_interface_objects_are_refused_too(backend, rng):
    base = poisoned(300, np.float64)

    class ReadOnlyView:
        __array_interface__ = {**base.__array_interface__, "data": (base.ctypes.data, True)}

    with pytest.raises(errors.TypingError, match=r"argument 3 \('out'\) is a read-only array"):
        axpy[2, 256](2.0, rng.standard_normal(300), ReadOnlyView())
    assert np.isnan(base).all()


@cuda.jit
def scale_pair_into(pair, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = pair[0][i] * pair[1]


@cuda.jit
def write_through_pair(pair, scale):
    i = cuda.grid(1)
    src, dst = pair
    if i < dst.size:
        dst[i] = src[i] * scale


def test_host_arrays_in_tuples_are_staged_and_written_back(backend, rng):
    # numba-cuda copies NumPy arrays inside tuples to the device and back
    # like top-level ones; the CPU executor uses them in place.
    x = rng.standard_normal(64)
    out = poisoned(64, np.float64)
    staged = core().memory_stats()["staged_arguments"]
    scale_pair_into[1, 64]((x, 2.0), out)
    np.testing.assert_array_equal(out, x * 2.0)
    dst = poisoned(64, np.float64)
    write_through_pair[1, 64]((x, dst), 3.0)
    np.testing.assert_array_equal(dst, x * 3.0)
    if backend == "cuda":
        assert core().memory_stats()["staged_arguments"] == staged + 4


def test_read_only_array_in_a_tuple_is_not_written(backend, rng):
    x = rng.standard_normal(64)
    ro = poisoned(64, np.float64)
    ro.flags.writeable = False
    with pytest.raises(errors.TypingError, match=r"argument 1 \('pair'\) is a read-only array"):
        write_through_pair[1, 64]((x, ro), 3.0)
    assert np.isnan(ro).all()


FACTOR = 3.0


@cuda.jit
def scaled_copy(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = x[i] * FACTOR


def test_failed_compile_of_the_aliasing_variant_leaves_the_kernel_usable(hardware, rng):
    # On the GPU a kernel whose read-only array overlaps a written one runs a
    # variant compiled without noalias, outside the dispatcher's lock.  Here
    # that compile fails (FACTOR no longer types), with the lock released.
    global FACTOR
    x = cuda.to_device(rng.standard_normal(256))
    out = cuda.device_array(256)
    scaled_copy[1, 256](x, out)  # the noalias specialization
    np.testing.assert_array_equal(out.copy_to_host(), x.copy_to_host() * 3.0)
    FACTOR = "three"
    try:
        with pytest.raises(errors.TypingError):
            scaled_copy[1, 256](x, x)  # overlapping: compiles the plain variant
        with pytest.raises(errors.TypingError):
            scaled_copy[1, 256](x, x)  # and again: nothing half-done was kept
    finally:
        FACTOR = 3.0
    scaled_copy[1, 256](x, out)  # the lock and the specialization still work
    np.testing.assert_array_equal(out.copy_to_host(), x.copy_to_host() * 3.0)
    assert len(scaled_copy.signatures) == 1


@cuda.jit
def complex_args(z, t, big, out):
    i = cuda.grid(1)
    if i < out.shape[1]:
        out[0, i] = z * i
        out[1, i] = t[0] * t[1] + i
        out[2, i] = big[i % 40] + big[-1]


@pytest.mark.parametrize("kind", ["complex", "complex64", "complex128"])
def test_complex_scalars_as_arguments(backend, rng, kind):
    # Python complex numbers and NumPy's complex64/complex128 scalars pass
    # by value, alone, in a tuple, and in a tuple large enough to be passed
    # by reference (a complex scalar parameter was once taken for such a
    # tuple and read from a wrong address: garbage, or a crash).
    ct = {"complex": complex, "complex64": np.complex64, "complex128": np.complex128}[kind]
    parts = rng.uniform(-4, 4, (42, 2))
    vals = [ct(complex(re, im)) for re, im in parts]
    z, t, big = vals[0], (vals[1], np.float32(2.5)), tuple(vals[2:42])
    out = np.full((3, 64), complex(np.nan, np.nan), np.complex128)
    complex_args[1, 64](z, t, big, out)
    i = np.arange(64)
    w = np.complex64 if ct is np.complex64 else np.complex128
    bigw = np.array(big, w)
    want = [w(z) * i.astype(w), w(t[0]) * w(t[1]) + i, bigw[i % 40] + bigw[-1]]
    tol = 1e-5 if w is np.complex64 else 1e-12
    for row in range(3):
        np.testing.assert_allclose(out[row], want[row], rtol=tol, atol=tol)


def test_read_only_cuda_array_interface_objects_are_refused(backend):
    # A __cuda_array_interface__ whose data tuple says read-only, for a
    # parameter the kernel writes: refused like a read-only NumPy array.
    d = cuda.to_device(poisoned(300, np.float64))

    class ReadOnlyDeviceView:
        def __init__(self, arr):
            cai = dict(arr.__cuda_array_interface__)
            cai["data"] = (cai["data"][0], True)
            self.__cuda_array_interface__ = cai

    with pytest.raises(errors.TypingError, match=r"argument 3 \('out'\) is a read-only array"):
        axpy[2, 256](2.0, np.ones(300), ReadOnlyDeviceView(d))
    assert np.isnan(d.copy_to_host()).all()
    axpy[2, 256](2.0, np.ones(300), d)  # the same memory, writable
    np.testing.assert_array_equal(d.copy_to_host(), 2.0 + np.arange(300))
