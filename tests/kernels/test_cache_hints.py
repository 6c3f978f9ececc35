"""Cache-hinted loads and stores: cuda.ldca/ldcg/ldcs/ldlu/ldcv(a, i) and
cuda.stcg/stcs/stwb/stwt(a, i, v).  Values must be the plain a[i] ones
(bit for bit, every integer and float width); the PTX must carry the cache
operator (ld.global.<op>.b<bits>); misuse is a TypingError at the line."""
import numpy as np
import pytest

from pycuda_jit import cuda, errors
from gpu_util import poisoned

LOADS = ["ldca", "ldcg", "ldcs", "ldlu", "ldcv"]
STORES = ["stcg", "stcs", "stwb", "stwt"]
DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
          np.uint32, np.uint64, np.float16, np.float32, np.float64]


def random_bits(rng, shape, dtype):
    """Arbitrary bit patterns of `dtype` (NaNs and infinities included for
    floats: the access moves bits, it does not compute)."""
    dtype = np.dtype(dtype)
    raw = rng.integers(0, 256, int(np.prod(shape)) * dtype.itemsize, dtype=np.uint8)
    return raw.view(dtype).reshape(shape)


def bits(a):
    return a.view(f"u{a.dtype.itemsize}")


def load_kernel_1d(op):
    def k(r, x):
        i = cuda.grid(1)
        if i < r.size:
            # reversed through a negative index: Python's wrap-around applies
            r[i] = op(x, -1 - i)
    return k


def load_kernel_2d(op):
    def k(r, x):
        i, j = cuda.grid(2)
        if i < r.shape[0] and j < r.shape[1]:
            r[i, j] = op(x, (i, j))
    return k


def store_kernel_1d(op):
    def k(r, x):
        i = cuda.grid(1)
        if i < r.size:
            op(r, r.size - 1 - i, x[i])
    return k


def store_kernel_2d(op):
    def k(r, x):
        i, j = cuda.grid(2)
        if i < r.shape[0] and j < r.shape[1]:
            op(r, (i, j), x[i, j])
    return k


@pytest.mark.parametrize("name", LOADS)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_loads(backend, rng, name, dtype):
    op = getattr(cuda, name)
    x = random_bits(rng, 200, dtype)
    r = poisoned(200, dtype)
    cuda.jit(load_kernel_1d(op))[4, 64](r, x)
    np.testing.assert_array_equal(bits(r), bits(x[::-1]))

    x2 = random_bits(rng, (9, 13), dtype)
    r2 = poisoned((9, 13), dtype)
    cuda.jit(load_kernel_2d(op))[(3, 4), (4, 4)](r2, x2)
    np.testing.assert_array_equal(bits(r2), bits(x2))


@pytest.mark.parametrize("name", STORES)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_stores(backend, rng, name, dtype):
    op = getattr(cuda, name)
    x = random_bits(rng, 200, dtype)
    r = poisoned(200, dtype)
    cuda.jit(store_kernel_1d(op))[4, 64](r, x)
    np.testing.assert_array_equal(bits(r), bits(x[::-1]))

    x2 = random_bits(rng, (9, 13), dtype)
    r2 = poisoned((9, 13), dtype)
    cuda.jit(store_kernel_2d(op))[(3, 4), (4, 4)](r2, x2)
    np.testing.assert_array_equal(bits(r2), bits(x2))


@cuda.jit
def k_store_converts(r, x):
    i = cuda.grid(1)
    if i < r.size:
        cuda.stcs(r, i, x[i] * 2.5)  # float64 value into an int32 array


def test_store_converts_to_dtype(backend, rng):
    x = rng.integers(-1000, 1000, 50).astype(np.int32)
    r = poisoned(50, np.int32)
    k_store_converts[1, 64](r, x)
    np.testing.assert_array_equal(r, np.trunc(x * 2.5).astype(np.int32))


@cuda.jit
def k_hint_order(a, out):
    # a store then a load of the same element in one thread: the hinted
    # accesses keep their order with each other and with plain ones
    i = cuda.grid(1)
    if i < a.size:
        cuda.stwt(a, i, a[i] + 1)
        v = cuda.ldcv(a, i)
        a[i] = v * 3
        out[i] = cuda.ldcg(a, i)


def test_hinted_accesses_keep_program_order(backend, rng):
    a = rng.integers(-100, 100, 70).astype(np.int64)
    want = (a + 1) * 3
    out = poisoned(70, np.int64)
    k_hint_order[2, 64](a, out)
    np.testing.assert_array_equal(out, want)
    np.testing.assert_array_equal(a, want)


# ---- PTX: the cache operator is in the instruction -------------------------------------

@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_ptx_carries_cache_operator(dtype):
    ty = cuda.from_dtype(np.dtype(dtype))
    bitwidth = np.dtype(dtype).itemsize * 8
    for name in LOADS:
        ptx, _ = cuda.compile_ptx(load_kernel_2d(getattr(cuda, name)),
                                  (ty[:, ::1], ty[:, ::1]), cc=(9, 0))
        assert f"ld.global.{name[2:]}.b{bitwidth} " in ptx
    for name in STORES:
        ptx, _ = cuda.compile_ptx(store_kernel_1d(getattr(cuda, name)),
                                  (ty[::1], ty[::1]), cc=(9, 0))
        assert f"st.global.{name[2:]}.b{bitwidth} " in ptx


# ---- misuse ------------------------------------------------------------------------------

def _ldcs_float_index(x):
    cuda.ldcs(x, 1.0)


def _ldcs_two_indices(x):
    cuda.ldcs(x, (1, 2))


def _ldcs_scalar_index(x):
    cuda.ldcs(x, 1)


def _ldcs_one_index(x):
    cuda.ldcs(x, (1,))


def _ldcs_complex(r, x):
    r[0] = cuda.ldcs(x, 0)


def _stcg_shared(x):
    s = cuda.shared.array(8, np.float32)
    cuda.stcg(s, 0, x[0])


@pytest.mark.parametrize("fn, sig, match", [
    (_ldcs_float_index, "void(float32[::1])", "float64 is not a valid index"),
    (_ldcs_two_indices, "void(float32[::1])", "Expected 1 indices, got 2"),
    (_ldcs_scalar_index, "void(float32[:, ::1])", "Expected 2 indices, got a scalar"),
    (_ldcs_one_index, "void(float32[:, ::1])", "Expected 2 indices, got 1"),
    (_ldcs_complex, "void(complex64[::1], complex64[::1])",
     "cuda.ldcs requires array of integer or float type"),
    (_stcg_shared, "void(float32[::1])", "works on global memory"),
])
def test_misuse_is_a_typing_error(fn, sig, match):
    with pytest.raises(errors.TypingError, match=match) as info:
        cuda.compile_ptx(fn, sig)
    assert "test_cache_hints.py" in str(info.value)


# ---- the element address is a[i]'s: views, wrap-around, bounds checks ---------------------

@cuda.jit
def k_hints_on_views(out, x):
    i, j = cuda.grid(2)
    if i < out.shape[0] and j < out.shape[1]:
        # x is a transposed, strided view: the strides decide the address
        cuda.stcg(out, (i, j), cuda.ldcs(x, (i, -1 - j)))


def test_hints_on_strided_views(backend, rng):
    base = rng.standard_normal((12, 10))
    x = base[::2, 1::3].T  # shape (3, 6), non-contiguous
    out_base = poisoned((3, 12), np.float64)
    out = out_base[:, ::2]
    k_hints_on_views[(1, 1), (8, 8)](out, x)
    np.testing.assert_array_equal(out, x[:, ::-1])
    assert np.isnan(out_base[:, 1::2]).all()  # the gaps stay untouched


@cuda.jit
def k_hint_read_n(out, x, n):
    i = cuda.grid(1)
    if i < n:
        out[0] = cuda.ldca(x, i)


@cuda.jit
def k_hint_write_n(x, n):
    i = cuda.grid(1)
    if i < n:
        cuda.stwt(x, i, 1.0)


def test_out_of_bounds_hinted_access_raises(backend):
    if backend != "cpu":
        pytest.skip("on the GPU an out-of-bounds access is unchecked by default "
                    "(a checked one traps the context)")
    x = np.zeros(10, np.float32)
    out = poisoned(1, np.float32)
    with pytest.raises(errors.KernelIndexError, match="index 10 is out of bounds"):
        k_hint_read_n[1, 32](out, x, 11)
    with pytest.raises(errors.KernelIndexError, match="cuda.stwt"):
        k_hint_write_n[1, 32](x, 11)
    k_hint_write_n[1, 32](x, 10)
    np.testing.assert_array_equal(x, 1.0)


# ---- CPointer arguments (ffi.from_buffer, CPointer signatures) ---------------------------

def _addr(devary):
    return devary.__cuda_array_interface__["data"][0]


def ptr_copy_kernel(load, store):
    def k(r, x, n):
        i = cuda.grid(1)
        if i < n:
            # reversed: p[i] is the address p + i (no wrap-around on pointers)
            store(r, i, load(x, n - 1 - i))
    return k


@pytest.mark.parametrize("load, store", list(zip(LOADS, STORES + ["stcg"])))
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_hints_through_cpointers(rng, load, store, dtype):
    from pycuda_jit import types
    ty = cuda.from_dtype(np.dtype(dtype))
    ptr = types.CPointer(ty)
    k = cuda.jit(types.void(ptr, ptr, types.int64))(
        ptr_copy_kernel(getattr(cuda, load), getattr(cuda, store)))
    x = random_bits(rng, 150, dtype)
    dx = cuda.to_device(x)
    dr = cuda.to_device(poisoned(150, dtype))
    k[2, 128](_addr(dr), _addr(dx), 150)
    np.testing.assert_array_equal(bits(dr.copy_to_host()), bits(x[::-1]))


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_cpointer_ptx_carries_cache_operator(dtype):
    from pycuda_jit import types
    ty = cuda.from_dtype(np.dtype(dtype))
    bitwidth = np.dtype(dtype).itemsize * 8
    sig = (types.CPointer(ty), types.CPointer(ty), types.int64)
    for load, store in zip(LOADS, STORES + ["stcg"]):
        ptx, _ = cuda.compile_ptx(
            ptr_copy_kernel(getattr(cuda, load), getattr(cuda, store)), sig, cc=(9, 0))
        assert f"ld.global.{load[2:]}.b{bitwidth} " in ptx
        assert f"st.global.{store[2:]}.b{bitwidth} " in ptx
        # the generic pointer is made a global address first
        assert "cvta.to.global.u64" in ptx


def _ldcs_ptr_tuple_index(p):
    cuda.ldcs(p, (1, 2))


def _ldcs_ptr_complex(p):
    cuda.ldcs(p, 0)


def _stcg_voidptr(p):
    cuda.stcg(p, 0, 1)


@pytest.mark.parametrize("fn, sig, match", [
    (_ldcs_ptr_tuple_index, "void(CPointer(float32))", "Expected 1 indices, got 2"),
    (_ldcs_ptr_complex, "void(CPointer(complex64))",
     "requires a pointer to an integer or float type"),
    (_stcg_voidptr, "void(voidptr)", "requires a pointer to an integer or float type"),
])
def test_cpointer_misuse_is_a_typing_error(fn, sig, match):
    with pytest.raises(errors.TypingError, match=match) as info:
        cuda.compile_ptx(fn, sig)
    assert "test_cache_hints.py" in str(info.value)
