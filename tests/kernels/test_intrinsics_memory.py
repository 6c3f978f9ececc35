"""Memory spaces: dynamic shared memory (sized at launch, every dynamic
array aliasing the same bytes), local arrays, constant memory
(cuda.const.array_like of module globals and closure variables), and the
ways to name a dtype."""
import numpy as np
import pytest

from pycuda_jit import cuda
from gpu_util import poisoned


# ---- dynamic shared memory ------------------------------------------------------------

@cuda.jit
def k_dyn_reverse(x, out, sizes):
    buf = cuda.shared.array(0, np.float32)
    t = cuda.threadIdx.x
    base = cuda.blockIdx.x * cuda.blockDim.x
    buf[t] = x[base + t]
    cuda.syncthreads()
    out[base + t] = buf[cuda.blockDim.x - 1 - t]
    if t == 0:
        sizes[cuda.blockIdx.x] = buf.size


@pytest.mark.parametrize("tpb", [32, 128, 256])
def test_dynamic_shared_sized_at_launch(backend, rng, tpb):
    nb = 7
    x = rng.random(nb * tpb).astype(np.float32)
    out = poisoned(nb * tpb, np.float32)
    sizes = poisoned(nb, np.int64)
    extra = 3  # bytes beyond the last whole element do not count
    k_dyn_reverse[nb, tpb, 0, tpb * 4 + extra](x, out, sizes)
    np.testing.assert_array_equal(out, x.reshape(nb, tpb)[:, ::-1].reshape(-1))
    np.testing.assert_array_equal(sizes, tpb)


@cuda.jit
def k_dyn_alias(x, as_float, size_i, size_d):
    ints = cuda.shared.array(0, np.int32)
    floats = cuda.shared.array(0, np.float32)
    doubles = cuda.shared.array(0, np.float64)
    t = cuda.threadIdx.x
    ints[t] = x[t]
    cuda.syncthreads()
    as_float[t] = floats[t]  # the same bytes, read as float32
    if t == 0:
        size_i[0] = len(ints)
        size_d[0] = len(doubles)


def test_dynamic_shared_arrays_alias(backend, rng):
    n = 64
    x = rng.integers(-2**31, 2**31, n).astype(np.int32)
    out = poisoned(n, np.float32)
    size_i = poisoned(1, np.int64)
    size_d = poisoned(1, np.int64)
    k_dyn_alias[1, n, 0, n * 4](x, out, size_i, size_d)
    np.testing.assert_array_equal(out.view(np.int32), x)
    assert size_i[0] == n and size_d[0] == n // 2


@cuda.jit
def k_dyn_with_static(x, out):
    stat = cuda.shared.array(32, np.float64)
    dyn = cuda.shared.array(0, np.float64)
    t = cuda.threadIdx.x
    stat[t] = x[t]
    dyn[t] = 2.0 * x[t]
    cuda.syncthreads()
    out[t] = stat[31 - t] + dyn[(t + 1) % 32]


def test_dynamic_and_static_shared_do_not_overlap(backend, rng):
    x = rng.random(32)
    out = poisoned(32, np.float64)
    k_dyn_with_static[1, 32, 0, 32 * 8](x, out)
    np.testing.assert_allclose(out, x[::-1] + 2 * np.roll(x, -1))


# ---- local arrays -----------------------------------------------------------------

K = 16


@cuda.jit
def k_local_sort(x, out):
    i = cuda.grid(1)
    if i < x.shape[0]:
        a = cuda.local.array(K, np.float32)
        for j in range(K):
            a[j] = x[i, j]
        for j in range(1, K):  # insertion sort
            v = a[j]
            k = j - 1
            while k >= 0 and a[k] > v:
                a[k + 1] = a[k]
                k -= 1
            a[k + 1] = v
        for j in range(K):
            out[i, j] = a[j]


def test_local_array_sort(backend, rng):
    x = rng.standard_normal((300, K)).astype(np.float32)
    out = poisoned((300, K), np.float32)
    k_local_sort[3, 128](x, out)
    np.testing.assert_array_equal(out, np.sort(x, axis=1))


@cuda.jit
def k_local_2d(out):
    i = cuda.grid(1)
    m = cuda.local.array((3, 4), dtype=np.int64)
    for r in range(3):
        for c in range(4):
            m[r, c] = i * 100 + r * 10 + c
    acc = 0
    for r in range(3):
        for c in range(4):
            acc += m[r, c] * (r + 1)
    out[i] = acc


def test_local_array_2d(backend):
    out = poisoned(64, np.int64)
    k_local_2d[2, 32](out)
    i = np.arange(64)[:, None, None]
    r = np.arange(3)[None, :, None]
    c = np.arange(4)[None, None, :]
    np.testing.assert_array_equal(out, ((i * 100 + r * 10 + c) * (r + 1)).sum(axis=(1, 2)))


# ---- constant memory -------------------------------------------------------------------

COEFFS = np.array([1.5, -2.0, 0.25, 4.0, -0.5], dtype=np.float64)
LUT = (np.arange(48, dtype=np.int32).reshape(6, 8) * 7) % 23
LUT_F = np.asfortranarray(np.arange(12, dtype=np.float32).reshape(3, 4))


@cuda.jit
def k_const_poly(x, out):
    c = cuda.const.array_like(COEFFS)
    i = cuda.grid(1)
    if i < x.size:
        acc = 0.0
        for k in range(c.size - 1, -1, -1):
            acc = acc * x[i] + c[k]
        out[i] = acc


def test_const_array_module_global(backend, rng):
    x = rng.standard_normal(1000)
    out = poisoned(1000, np.float64)
    k_const_poly[8, 128](x, out)
    # Horner's rule in float64 (fused or not): error within a few ulps of
    # the sum of the terms' magnitudes, which near a root exceeds any rtol.
    bound = 8 * np.finfo(np.float64).eps * np.polynomial.polynomial.polyval(np.abs(x), np.abs(COEFFS))
    np.testing.assert_array_less(np.abs(out - np.polynomial.polynomial.polyval(x, COEFFS)), bound)


@cuda.jit
def k_const_2d(rows, cols, out, shape):
    t = cuda.const.array_like(LUT)
    f = cuda.const.array_like(LUT_F)  # Fortran order on the host: copied in C order
    i = cuda.grid(1)
    if i < rows.size:
        out[i] = t[rows[i], cols[i]] + f[rows[i] % 3, cols[i] % 4]
    if i == 0:
        shape[0] = t.shape[0]
        shape[1] = t.shape[1]


def test_const_array_2d(backend, rng):
    n = 500
    rows = rng.integers(0, 6, n)
    cols = rng.integers(0, 8, n)
    out = poisoned(n, np.float64)
    shape = poisoned(2, np.int64)
    k_const_2d[4, 128](rows, cols, out, shape)
    np.testing.assert_array_equal(out, LUT[rows, cols] + LUT_F[rows % 3, cols % 4])
    np.testing.assert_array_equal(shape, LUT.shape)


def make_closure_kernel(table):
    @cuda.jit
    def k(idx, out):
        t = cuda.const.array_like(table)
        i = cuda.grid(1)
        if i < idx.size:
            out[i] = t[idx[i]]
    return k


def test_const_array_closure_and_frozen_at_compile(backend, rng):
    table = rng.integers(0, 1000, 50).astype(np.uint16)
    k = make_closure_kernel(table)
    idx = rng.integers(0, 50, 300)
    out = poisoned(300, np.int64)
    k[3, 128](idx, out)
    np.testing.assert_array_equal(out, table[idx])
    expect = table[idx].copy()
    table[:] = 0  # compiled already: the constant data is frozen
    k[3, 128](idx, out)
    np.testing.assert_array_equal(out, expect)


# ---- dtypes by name -------------------------------------------------------------------------

I16 = np.dtype(np.int16)  # a dtype object

@cuda.jit
def k_dtype_spellings(out):
    a = cuda.shared.array(4, "float64")
    b = cuda.local.array(2, dtype=I16)
    c = cuda.shared.array(shape=(2, 2), dtype=np.uint8)
    t = cuda.threadIdx.x
    if t == 0:
        b[0] = 40000 - 65536
        b[1] = 7
        c[1, 1] = 300 - 256
        a[3] = 0.5
        out[0] = a[3] + b[0] + b[1] + c[1, 1]


def test_dtype_spellings(backend):
    out = poisoned(1, np.float64)
    k_dtype_spellings[1, 1](out)
    assert out[0] == 0.5 + (40000 - 65536) + 7 + 44


@cuda.jit
def k_shared_48k(x, out):
    s = cuda.shared.array(6144, np.float64)  # 49152 bytes: the limit exactly
    t = cuda.threadIdx.x
    for j in range(t, 6144, cuda.blockDim.x):
        s[j] = x[j] * 2.0
    cuda.syncthreads()
    for j in range(t, 6144, cuda.blockDim.x):
        out[j] = s[6143 - j]


@cuda.jit(device=True)
def stage_in_shared(x):
    s = cuda.shared.array(1024, np.float32)  # +4096 bytes: past the limit
    s[cuda.threadIdx.x] = x
    return s[0]


def k_shared_over(x, out):
    s = cuda.shared.array(6000, np.float64)  # 48000 bytes: fits alone
    s[cuda.threadIdx.x] = x[0]
    out[0] = stage_in_shared(s[0])


def test_static_shared_memory_limit(backend, rng):
    # 48 KiB of static shared memory per block, as CUDA allows: the CPU
    # executor refuses more at compile time like the GPU path (which ptxas
    # refused with "uses too much shared data", reported as a compiler bug).
    x = rng.standard_normal(6144)
    out = poisoned(6144, np.float64)
    k_shared_48k[1, 256](x, out)
    np.testing.assert_array_equal(out, (x * 2.0)[::-1])
    from pycuda_jit import errors
    with pytest.raises(errors.UnsupportedError, match=r"take 52096 bytes.*at most 49152") as e:
        cuda.jit(k_shared_over)[1, 32](np.ones(1), np.zeros(1))
    # it points at the array that crossed the limit (in lowering order)
    assert e.value.file == __file__ and e.value.line > 0, str(e.value)
    assert "cuda.shared.array(" in str(e.value), str(e.value)
