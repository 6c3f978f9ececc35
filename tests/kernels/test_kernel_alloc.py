"""Arrays made in kernels: np.empty/zeros/ones/full and their *_like forms,
np.arange, a.copy() / np.copy(a), on the device heap (docs/language.md,
"Arrays made in kernels").

Each test checks the computed values against NumPy.  The loop tests
allocate far more in total than the heap holds (8 MiB by default), so they
fail with MemoryError unless each iteration's array is freed; the view and
device-function tests read arrays after the function that made them
returned, so a block freed too early shows up as wrong values (the CPU
executor's blocks are host memory that the next allocation reuses)."""
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from pycuda_jit import cuda, errors
from gpu_util import poisoned


@pytest.fixture
def heap_bytes(backend):
    """The heap size the loop tests must outgrow: on the CPU executor a
    1 MiB heap for the test (cheaper loops, also under the sanitizer); on
    a GPU the default 8 MiB (CUDA fixes it at the first allocating kernel)."""
    if backend != "cpu":
        yield cuda.get_malloc_heap_size()
        return
    before = cuda.get_malloc_heap_size()
    cuda.set_malloc_heap_size(1 << 20)
    try:
        yield 1 << 20
    finally:
        cuda.set_malloc_heap_size(before)


# ---- np.empty / zeros / ones / full -------------------------------------------


@cuda.jit
def fill_kinds(n, val, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        z = np.zeros(n + i, np.float32)
        o = np.ones((2, n), dtype=np.int32)
        f = np.full(n, val)
        e = np.empty(n, np.float64)
        for k in range(n):
            e[k] = k * 0.5 + i
        s = 0.0
        for k in range(n + i):
            s += z[k]
        for r in range(2):
            for k in range(n):
                s += o[r, k]
        for k in range(n):
            s += f[k] + e[k]
        out[i, 0] = s
        out[i, 1] = z.size
        out[i, 2] = o.shape[0] * 100 + o.shape[1]
        out[i, 3] = f[n - 1]


def test_empty_zeros_ones_full(rng):
    n = int(rng.integers(3, 9))
    val = float(rng.uniform(-2, 2))
    out = poisoned((40, 4), np.float64)
    fill_kinds[2, 32](n, val, out)
    for i in range(40):
        e = np.arange(n) * 0.5 + i
        assert out[i, 0] == pytest.approx(0 + 2 * n + n * val + e.sum())
        assert out[i, 1] == n + i
        assert out[i, 2] == 200 + n
        assert out[i, 3] == val


@cuda.jit
def full_dtypes(n, out_i, out_b, out_c):
    i = cuda.grid(1)
    if i < out_i.shape[0]:
        a = np.full((n,), i * 3 - 7)                # int64 from the fill value
        b = np.full(n, 2.75, dtype=np.int16)        # converted like NumPy
        c = np.ones(n, np.bool_)
        d = np.zeros(n, np.complex128)
        out_i[i] = a[n - 1] + b[0]
        out_b[i] = c[n - 1]
        d[1] = complex(i, -i)
        out_c[i] = d[0] + d[1]


def test_full_dtypes(rng):
    n = int(rng.integers(2, 6))
    out_i = poisoned(33, np.int64)
    out_b = poisoned(33, np.bool_)
    out_c = poisoned(33, np.complex128)
    full_dtypes[2, 32](n, out_i, out_b, out_c)
    idx = np.arange(33)
    np.testing.assert_array_equal(out_i, idx * 3 - 7 + np.int16(2.75))
    assert out_b.all()
    np.testing.assert_array_equal(out_c, idx - 1j * idx)


@cuda.jit
def like_kinds(a, out):
    i = cuda.grid(1)
    if i < 1:
        e = np.empty_like(a)
        z = np.zeros_like(a)
        o = np.ones_like(a, dtype=np.int8)
        f = np.full_like(a, 1.5)
        for r in range(a.shape[0]):
            for c in range(a.shape[1]):
                e[r, c] = a[r, c] * 2
                out[0, r, c] = e[r, c]
                out[1, r, c] = z[r, c]
                out[2, r, c] = o[r, c]
                out[3, r, c] = f[r, c]


def test_like_forms(rng):
    a = rng.standard_normal((3, 5))[:, ::2]  # a strided argument
    out = poisoned((4,) + a.shape, np.float64)
    like_kinds[1, 1](a, out)
    np.testing.assert_array_equal(out[0], a * 2)
    np.testing.assert_array_equal(out[1], np.zeros_like(a))
    np.testing.assert_array_equal(out[2], np.ones_like(a, dtype=np.int8))
    np.testing.assert_array_equal(out[3], np.full_like(a, 1.5))


# ---- np.arange ------------------------------------------------------------------


@cuda.jit
def arange_ints(start, stop, step, out, lens):
    i = cuda.grid(1)
    if i < 1:
        x = np.arange(stop)
        y = np.arange(start, stop)
        z = np.arange(start, stop, step)
        lens[0] = x.size
        lens[1] = y.size
        lens[2] = z.size
        for k in range(x.size):
            out[0, k] = x[k]
        for k in range(y.size):
            out[1, k] = y[k]
        for k in range(z.size):
            out[2, k] = z[k]


@pytest.mark.parametrize("start,stop,step", [(2, 11, 3), (9, -4, -2), (5, 5, 1),
                                             (7, 3, 1), (-3, 8, 4)])
def test_arange_ints(start, stop, step):
    out = poisoned((3, 32), np.int64)
    lens = poisoned(3, np.int64)
    arange_ints[1, 1](start, stop, step, out, lens)
    for k, want in enumerate([np.arange(max(stop, 0)), np.arange(start, stop),
                              np.arange(start, stop, step)]):
        assert lens[k] == want.size
        np.testing.assert_array_equal(out[k, :want.size], want)


@cuda.jit
def arange_floats(start, stop, step, out, lens):
    i = cuda.grid(1)
    if i < 1:
        x = np.arange(start, stop, step)
        y = np.arange(stop, dtype=np.float32)
        lens[0] = x.size
        lens[1] = y.size
        for k in range(x.size):
            out[0, k] = x[k]
        for k in range(y.size):
            out[1, k] = y[k]


def test_arange_floats(rng):
    start = float(rng.uniform(-3, 0))
    stop = float(rng.uniform(4, 9))
    step = float(rng.uniform(0.3, 0.9))
    out = poisoned((2, 64), np.float64)
    lens = poisoned(2, np.int64)
    arange_floats[1, 1](start, stop, step, out, lens)
    want = np.arange(start, stop, step)
    assert lens[0] == want.size
    np.testing.assert_allclose(out[0, :want.size], want, rtol=1e-12)
    want = np.arange(stop, dtype=np.float32)
    assert lens[1] == want.size
    np.testing.assert_array_equal(out[1, :want.size], want)


@cuda.jit
def arange_zero_step(step, out):
    out[0] = np.arange(0, 5, step).size


def test_arange_zero_step_raises():
    with pytest.raises(ValueError, match="step is zero"):
        arange_zero_step[1, 1](0, np.zeros(1, np.int64))


# ---- copies -----------------------------------------------------------------


@cuda.jit
def copy_views(a, out, orig):
    i = cuda.grid(1)
    if i < 1:
        v = a[::2, 1:]          # a strided view of the argument
        c = v.copy()
        d = np.copy(a)
        for r in range(c.shape[0]):
            for k in range(c.shape[1]):
                c[r, k] += 100.0      # changes the copy only
        flat = d.reshape(a.size)     # reshape of a copy (C-contiguous)
        for r in range(c.shape[0]):
            for k in range(c.shape[1]):
                out[r, k] = c[r, k]
        for k in range(flat.size):
            orig[k] = flat[k] + a[k // a.shape[1], k % a.shape[1]]


def test_copy_of_views(rng):
    a = rng.standard_normal((5, 4))
    want_c = a[::2, 1:] + 100.0
    out = poisoned(want_c.shape, np.float64)
    orig = poisoned(a.size, np.float64)
    before = a.copy()
    copy_views[1, 1](a, out, orig)
    np.testing.assert_array_equal(out, want_c)
    np.testing.assert_array_equal(orig, 2 * before.ravel())
    np.testing.assert_array_equal(a, before)


TABLE = np.array([1, 2, 3])[::-1]


@cuda.jit
def copy_global(out):
    q = TABLE.copy()                 # constant memory -> heap
    q[0] += 10
    for k in range(len(out)):
        out[k] = q[k]


def test_copy_of_global_constant():
    out = poisoned(3, np.float64)
    copy_global[1, 1](out)
    np.testing.assert_array_equal(out, [13, 2, 1])


# ---- lifetimes ------------------------------------------------------------------


@cuda.jit
def loop_alloc(n, iters, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        acc = 0.0
        for it in range(iters):
            t = np.empty(n, np.float64)        # freed when the next one is made
            for k in range(n):
                t[k] = k + it + i
            acc += t[n - 1]
        out[i] = acc


def test_allocation_in_a_loop_is_freed_each_iteration(heap_bytes):
    # Each thread makes arrays of 8 KiB, 1.5 times the heap in total; 8 KiB
    # at a time.
    n = 1024
    iters = 3 * heap_bytes // (2 * 8 * n)
    out = poisoned(32, np.float64)
    loop_alloc[1, 32](n, iters, out)
    i = np.arange(32)
    want = iters * (n - 1 + i) + iters * (iters - 1) / 2
    np.testing.assert_array_equal(out, want)


@cuda.jit
def double_buffer(n, iters, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        a = np.zeros(n, np.int64)
        for it in range(iters):
            b = np.empty(n, np.int64)      # a phi keeps a and b alive
            for k in range(n):
                b[k] = a[k] + k + i
            a = b
        for k in range(n):
            out[i, k] = a[k]


def test_arrays_merged_by_a_phi_stay_alive():
    n, iters = 7, 20
    out = poisoned((40, n), np.int64)
    double_buffer[2, 32](n, iters, out)
    want = iters * (np.arange(n)[None, :] + np.arange(40)[:, None])
    np.testing.assert_array_equal(out, want)


@cuda.jit(device=True)
def make_ramp(n, base):
    a = np.empty(n, np.float32)
    for k in range(n):
        a[k] = base + k
    return a


@cuda.jit(device=True)
def tail_of_copy(a):
    b = a.copy()
    v = b[1:]            # a view of the copy, returned: the caller owns b
    return v


@cuda.jit(device=True)
def pair(n):
    return np.zeros(n, np.int32), np.arange(n)


@cuda.jit
def device_functions(n, iters, x, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        s = 0.0
        for it in range(iters):
            r = make_ramp(n, i + it)       # the callee's block comes back
            s += r[n - 1]
        t = tail_of_copy(x)
        junk = np.full(x.size, -1.0)       # would reuse t's block if freed
        z, ar = pair(n)
        out[i, 0] = s
        out[i, 1] = t[0] + t[t.size - 1] + junk[0] * 0
        out[i, 2] = t.size
        out[i, 3] = z[n - 1] + ar[n - 1]


def test_device_functions_returning_arrays(rng, heap_bytes):
    # make_ramp's blocks of 4 KiB: 1.5 times the heap per thread in total.
    n = 1024
    iters = 3 * heap_bytes // (2 * 4 * n)
    x = rng.standard_normal(9)
    out = poisoned((32, 4), np.float64)
    device_functions[1, 32](n, iters, x, out)
    i = np.arange(32)
    np.testing.assert_allclose(out[:, 0], iters * (i + n - 1) + iters * (iters - 1) / 2)
    np.testing.assert_array_equal(out[:, 1], x[1] + x[-1])
    np.testing.assert_array_equal(out[:, 2], x.size - 1)
    np.testing.assert_array_equal(out[:, 3], n - 1)


# ---- errors -------------------------------------------------------------------------


@cuda.jit
def huge(n, out):
    a = np.empty(n, np.float64)
    out[0] = a.size


def test_heap_exhaustion_raises_memory_error(backend):
    if backend == "cuda":
        pytest.skip("the GPU case runs in test_heap_exhaustion_on_gpu")
    out = np.zeros(1, np.int64)
    with pytest.raises(MemoryError, match="device heap") as e:
        huge[1, 1](1 << 40, out)
    assert isinstance(e.value, errors.KernelError)
    huge[1, 1](100, out)          # the heap is usable afterwards
    assert out[0] == 100


def test_heap_exhaustion_on_gpu(hardware):
    out = np.zeros(1, np.int64)
    with pytest.raises(MemoryError, match="device heap"):
        huge[1, 1](1 << 40, out)
    huge[1, 1](100, out)
    assert out[0] == 100


def test_negative_dimension_raises():
    with pytest.raises(ValueError, match="negative dimensions"):
        huge[1, 1](-3, np.zeros(1, np.int64))


def test_heap_size_setting_runs_in_its_own_process():
    # CUDA takes a new heap size only before the context's first kernel that
    # allocates, so this runs in a fresh process (on either backend).
    code = textwrap.dedent("""
        import numpy as np
        from pycuda_jit import cuda

        @cuda.jit
        def k(n, out):
            a = np.ones(n, np.float64)
            out[0] = a[n - 1]

        cuda.set_malloc_heap_size(1 << 20)
        assert cuda.get_malloc_heap_size() >= 1 << 20
        out = np.zeros(1)
        k[1, 1](1000, out)          # 8 KB fits
        assert out[0] == 1.0
        # The driver may round the size up (the H200 kept 2 MiB of a 1 MiB
        # request fitting): four times what it reports once the heap exists
        # cannot fit.
        heap = max(cuda.get_malloc_heap_size(), 1 << 20)
        try:
            k[1, 1](4 * heap // 8, out)
        except MemoryError:
            print("raised")
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "raised"


def test_shape_must_be_integers():
    @cuda.jit
    def k(out):
        a = np.zeros(2.5)
        out[0] = a[0]

    with pytest.raises(errors.TypingError, match="shape must be an integer"):
        k[1, 1](np.zeros(1))


def test_exported_device_function_cannot_return_heap_array():
    def f(n):
        return np.zeros(n)

    with pytest.raises(errors.UnsupportedError, match="returns an array made in it"):
        cuda.compile_ptx(f, "float64[::1](int64)", device=True)


def test_sanitized_launch_sees_no_false_findings(backend):
    # Blocks freed and made again at the same addresses by other threads
    # must not look like races or reads of uninitialized memory.
    if backend != "cpu":
        pytest.skip("the sanitizer is the CPU executor's")

    @cuda.jit(sanitize=True)
    def k(n, iters, out):
        i = cuda.grid(1)
        if i < out.shape[0]:
            acc = 0
            for it in range(iters):
                t = np.zeros(n, np.int64)
                for j in range(n):
                    t[j] += j + it
                acc += t[n - 1]
            out[i] = acc

    out = poisoned(64, np.int64)
    k[2, 32](16, 50, out)
    assert out.tolist() == [50 * 15 + 50 * 49 // 2] * 64
