"""NumPy reductions over whole arrays inside kernels: np.sum, np.prod,
np.all, np.any, np.min/amin, np.max/amax, np.mean, np.var, np.std, the nan
forms, np.count_nonzero and the array methods a.sum() ... a.any().

Each thread computes the whole reduction serially, visiting the elements in
C order (any ndim, layout and view).  Sums, products and means accumulate
left to right in NumPy's result type (numba-cuda's order; NumPy itself sums
floats pairwise), so the exact reference is the same left-to-right loop,
computed with np.cumsum / np.cumprod (sequential accumulations); NumPy's
own result is checked too, within the error bound of a sum of n terms."""
import math

import numpy as np
import pytest

from pycuda_jit import cuda, errors

from gpu_util import poisoned

SHAPE = (4, 5, 6)

# The views each kernel reduces, as the kernel writes them (a is SHAPE,
# C-contiguous): 3-d C, 2-d C, 3-d strided, 2-d with a negative stride,
# 1-d strided, 1-d C, empty.
VIEWS = [
    lambda a: a,
    lambda a: a[2],
    lambda a: a[:, 1::2, ::3],
    lambda a: a[::-1, 3],
    lambda a: a[1, :, 4],
    lambda a: a[3, 2],
]
NVIEWS = len(VIEWS)
THREADS = 3


def views_kernel(op):
    """A kernel in which every thread t writes op(view) of each view of a
    into out[t, :] (op is a closure variable: np.sum, np.nanmax, ...)."""

    @cuda.jit
    def k(a, out):
        t = cuda.grid(1)
        if t < out.shape[0]:
            out[t, 0] = op(a)
            out[t, 1] = op(a[2])
            out[t, 2] = op(a[:, 1::2, ::3])
            out[t, 3] = op(a[::-1, 3])
            out[t, 4] = op(a[1, :, 4])
            out[t, 5] = op(a[3, 2])

    return k


KERNELS = {}


def run_views(op, a, out_dtype):
    k = KERNELS.setdefault(op, views_kernel(op))
    out = poisoned((THREADS, NVIEWS), out_dtype)
    k[1, THREADS](a, out)
    for t in range(1, THREADS):
        np.testing.assert_array_equal(out[t], out[0])
    return out[0]


def make_input(rng, dtype, nan=False):
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, SHAPE).astype(dtype)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        lo, hi = max(info.min, -100), min(info.max, 100)
        return rng.integers(lo, hi, SHAPE, endpoint=True).astype(dtype)
    if dtype.kind == "c":
        a = rng.uniform(-2, 2, SHAPE) + 1j * rng.uniform(-2, 2, SHAPE)
    else:
        a = rng.uniform(-2, 2, SHAPE)
    a = a.astype(dtype)
    if nan:
        a[rng.random(SHAPE) < 0.1] = np.nan
    return a


def result_dtype(fn, dtype):
    """NumPy's own result type of the reduction fn of a dtype array."""
    return np.asarray(fn(np.ones(3, dtype))).dtype


def left_fold(x, dt, product=False):
    """x (any shape) folded left to right in C order in dtype dt."""
    x = np.ascontiguousarray(x).ravel().astype(dt)
    if x.size == 0:
        return dt.type(1 if product else 0)
    return (np.cumprod if product else np.cumsum)(x, dtype=dt)[-1]


def left_mean(x, dt):
    return dt.type(left_fold(x, dt) / dt.type(x.size)) if x.size else dt.type(np.nan)


def left_var(x, dt):
    """NumPy's two-pass formula with left-to-right sums, in dtype dt (the
    mean's type; a complex mean gives a real variance)."""
    m = left_mean(x, dt)
    d = np.ascontiguousarray(x).ravel().astype(dt) - m
    sq = (d.real * d.real + d.imag * d.imag) if dt.kind == "c" else d * d
    return left_mean(sq, sq.dtype)


SUM_DTYPES = [np.int8, np.int32, np.uint16, np.int64, np.bool_,
              np.float32, np.float64, np.complex64, np.complex128]


@pytest.mark.parametrize("dtype", SUM_DTYPES)
def test_sum_left_to_right_in_numpys_result_type(rng, dtype):
    a = make_input(rng, dtype)
    if np.dtype(dtype).kind in "iu" and np.dtype(dtype).itemsize == 1:
        a[:] = rng.integers(60, 127, SHAPE)  # int8 sums overflow int8
    rt = result_dtype(np.sum, dtype)
    got = run_views(np.sum, a, rt)
    for k, view in enumerate(VIEWS):
        v = view(a)
        assert got[k] == left_fold(v, rt), (k, got[k], left_fold(v, rt))
        if rt.kind in "fc":
            # NumPy's pairwise sum differs from the loop by at most the
            # bound of a sum of n terms: (n - 1) eps sum(|x|).
            bound = (v.size - 1) * np.finfo(rt).eps * np.abs(v).sum(dtype=np.float64)
            assert abs(complex(got[k]) - complex(np.sum(v))) <= bound
        else:
            assert got[k] == np.sum(v)


@pytest.mark.parametrize("dtype", [np.int16, np.uint8, np.int64, np.float32,
                                   np.float64, np.complex64])
def test_prod(rng, dtype):
    dt = np.dtype(dtype)
    if dt.kind in "fc":
        a = rng.uniform(0.6, 1.4, SHAPE).astype(dtype)
        if dt.kind == "c":
            a = (a * np.exp(1j * rng.uniform(-0.3, 0.3, SHAPE))).astype(dtype)
    else:
        a = rng.integers(1, 4, SHAPE).astype(dtype)  # int64 products wrap as NumPy's
    rt = result_dtype(np.prod, dtype)
    got = run_views(np.prod, a, rt)
    for k, view in enumerate(VIEWS):
        assert got[k] == left_fold(view(a), rt, product=True), k
        if dt.kind in "iu":
            assert got[k] == np.prod(view(a))


@pytest.mark.parametrize("dtype", [np.int32, np.uint8, np.bool_, np.float32,
                                   np.float64, np.complex128])
def test_mean_var_std(rng, dtype):
    a = make_input(rng, dtype)
    for fn in (np.mean, np.var, np.std):
        rt = result_dtype(fn, dtype)
        got = run_views(fn, a, rt)
        mean_t = result_dtype(np.mean, dtype)
        for k, view in enumerate(VIEWS):
            v = view(a)
            if fn is np.mean:
                want = left_mean(v, mean_t)
            else:
                want = left_var(v, mean_t)
                if fn is np.std:
                    want = np.sqrt(want)
            assert got[k] == want, (fn.__name__, k, got[k], want)
            # and NumPy's pairwise result, within a sum's error bound
            tol = 4 * (v.size + 2) * np.finfo(rt).eps
            np.testing.assert_allclose(got[k], fn(v), rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", [np.int8, np.uint32, np.int64, np.bool_,
                                   np.float32, np.float64])
def test_min_max_propagate_nan(rng, dtype):
    a = make_input(rng, dtype, nan=True)
    for fn in (np.min, np.max, np.amin, np.amax):
        got = run_views(fn, a, dtype)
        for k, view in enumerate(VIEWS):
            want = fn(view(a))
            assert got[k] == want or (np.isnan(want) and np.isnan(got[k])), (fn, k)
    if np.dtype(dtype).kind == "f":
        assert np.isnan(a).any() and not np.isnan(a[3, 2]).all()


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int16])
def test_nan_reductions_skip_nan(rng, dtype):
    a = make_input(rng, dtype, nan=True)
    if np.dtype(dtype).kind == "f":
        a[3, 2, :] = np.nan  # an all-NaN row: nanmin/nanmax/nanmean give NaN
        a[2, 1, 1:5] = 0.75
    with np.errstate(all="ignore"), _quiet():
        for fn in (np.nanmin, np.nanmax, np.nansum, np.nanprod, np.nanmean):
            rt = result_dtype(fn, dtype)
            got = run_views(fn, a, rt)
            for k, view in enumerate(VIEWS):
                v = view(a)
                clean = np.where(np.isnan(v), 0, v) if rt.kind == "f" else v
                if fn is np.nansum:
                    want = left_fold(clean, rt)
                elif fn is np.nanprod:
                    want = left_fold(np.where(np.isnan(v), 1, v) if rt.kind == "f" else v,
                                     rt, product=True)
                elif fn is np.nanmean:
                    n = v.size - np.isnan(v).sum() if rt.kind == "f" else v.size
                    want = rt.type(left_fold(clean, rt) / rt.type(n)) if n else rt.type(np.nan)
                else:
                    want = fn(v)
                assert got[k] == want or (np.isnan(want) and np.isnan(got[k])), \
                    (fn.__name__, k, got[k], want)


class _quiet:
    """NumPy warns for all-NaN slices; the references are checked anyway."""

    def __enter__(self):
        import warnings
        self._w = warnings.catch_warnings()
        self._w.__enter__()
        warnings.simplefilter("ignore", RuntimeWarning)

    def __exit__(self, *exc):
        return self._w.__exit__(*exc)


@pytest.mark.parametrize("dtype", [np.int32, np.bool_, np.float64, np.complex64])
def test_all_any_count_nonzero(rng, dtype):
    a = make_input(rng, dtype)
    a[rng.random(SHAPE) < 0.4] = 0
    a[3, 2] = 0                      # a view of zeros only
    a[2, :, :] = 1                   # and one of no zeros
    if np.dtype(dtype).kind in "fc":
        a[0, 0, 0] = np.nan          # NaN is true
        a[1, 2, 4] = -0.0            # -0.0 is false
    for fn, rt in ((np.all, np.bool_), (np.any, np.bool_),
                   (np.count_nonzero, np.int64)):
        got = run_views(fn, a, rt)
        for k, view in enumerate(VIEWS):
            assert got[k] == fn(view(a)), (fn.__name__, k)


def test_array_methods(rng):
    @cuda.jit
    def k(a, f, b):
        v = a[1:, ::-2]
        f[0] = v.sum()
        f[1] = v.prod()
        f[2] = v.min()
        f[3] = v.max()
        f[4] = v.mean()
        f[5] = v.var()
        f[6] = v.std()
        b[0] = v.all()
        b[1] = v.any()
        b[2] = a[0].all()

    a = rng.uniform(0.5, 1.5, (5, 7))
    a[0, 3] = 0.0
    f = poisoned(7, np.float64)
    b = np.array([False, False, True])
    k[1, 1](a, f, b)
    v = a[1:, ::-2]
    assert f[0] == left_fold(v, np.dtype(np.float64))
    assert f[1] == left_fold(v, np.dtype(np.float64), product=True)
    assert (f[2], f[3]) == (v.min(), v.max())
    assert f[4] == left_mean(v, np.dtype(np.float64))
    assert f[5] == left_var(v, np.dtype(np.float64))
    assert f[6] == np.sqrt(left_var(v, np.dtype(np.float64)))
    assert list(b) == [True, True, False]


def test_empty_arrays_give_numpys_identities():
    @cuda.jit
    def k(a, i, f, b):
        e = a[2:2]
        i[0] = np.sum(e)
        i[1] = e.prod()
        i[2] = np.count_nonzero(e)
        f[0] = np.mean(e)
        f[1] = e.var()
        f[2] = np.nanmean(e)
        f[3] = np.nansum(e)
        b[0] = np.all(e)
        b[1] = e.any()

    i = poisoned(3, np.int64)
    f = poisoned(4, np.float64)
    b = np.array([False, True])
    k[1, 1](np.arange(5, dtype=np.int32), i, f, b)
    assert list(i) == [0, 1, 0]
    assert np.isnan(f[:3]).all() and f[3] == 0.0
    assert list(b) == [True, False]


@pytest.mark.parametrize("fn, name", [(np.min, "minimum"), (np.amax, "maximum"),
                                      (np.nanmin, "fmin"), (np.nanmax, "fmax")])
def test_min_max_of_an_empty_array_raise_value_error(fn, name):
    @cuda.jit
    def k(a, out):
        out[0] = fn(a[a.size:])

    out = poisoned(1, np.float64)
    with pytest.raises(ValueError, match=f"zero-size array to reduction operation {name}"):
        k[1, 1](np.ones(4), out)
    with pytest.raises(ValueError, match=name):  # as NumPy
        fn(np.ones(0))


def test_reductions_in_a_device_function_per_thread(rng):
    @cuda.jit(device=True)
    def spread(row):
        return np.max(row) - np.min(row)

    @cuda.jit
    def k(a, out):
        i = cuda.grid(1)
        if i < a.shape[0]:
            out[i] = spread(a[i]) + np.sum(a[i, ::2])

    a = rng.standard_normal((70, 9))
    out = poisoned(70, np.float64)
    k[3, 32](a, out)
    want = [(r.max() - r.min()) + left_fold(r[::2], np.dtype(np.float64)) for r in a]
    np.testing.assert_array_equal(out, want)


def here():
    import inspect
    return inspect.currentframe().f_back.f_lineno


def test_unsupported_forms_are_typing_errors_naming_the_line():
    def compile_error(kern, *args):
        with pytest.raises(errors.TypingError) as e:
            kern[1, 1](*args)
        return e.value

    @cuda.jit
    def axis0(a, out):
        out[0] = np.sum(a, axis=0)

    line = here() - 2
    err = compile_error(axis0, np.ones((2, 2)), np.zeros(2))
    assert "along an axis" in str(err) and err.line == line
    assert err.file.endswith("test_array_reductions.py")
    assert "np.sum(a, axis=0)" in str(err)  # the source line

    @cuda.jit
    def with_dtype(a, out):
        out[0] = a.sum(dtype=np.float32)

    err = compile_error(with_dtype, np.ones(2), np.zeros(1))
    assert "takes only the array" in str(err) and "dtype=" in str(err)

    @cuda.jit
    def complex_min(a, out):
        out[0] = np.min(a).real

    err = compile_error(complex_min, np.ones(2, np.complex64), np.zeros(1))
    assert "np.min() of an array of complex64" in str(err)

    @cuda.jit
    def scalar(a, out):
        out[0] = np.sum(a[0])

    err = compile_error(scalar, np.ones(2), np.zeros(1))
    assert "takes an array, not float64" in str(err)


def test_axis_none_is_the_whole_array(rng):
    @cuda.jit
    def k(a, out):
        out[0] = np.sum(a, axis=None)
        out[1] = a.max(None)

    a = rng.standard_normal((3, 4))
    out = poisoned(2, np.float64)
    k[1, 1](a, out)
    assert out[0] == left_fold(a, np.dtype(np.float64)) and out[1] == a.max()


def test_local_shared_and_0d_arrays(rng):
    @cuda.jit
    def k(z, out):
        t = cuda.threadIdx.x
        loc = cuda.local.array((3, 4), np.int32)
        for i in range(3):
            for j in range(4):
                loc[i, j] = (t + 1) * (i * 4 + j)
        sh = cuda.shared.array(16, np.float32)
        sh[t] = z[()] * t
        cuda.syncthreads()
        out[t, 0] = np.sum(loc)
        out[t, 1] = np.max(sh)
        out[t, 2] = np.mean(z) + z.min() + np.count_nonzero(z)

    z = np.array(rng.uniform(1, 2))
    out = poisoned((16, 3), np.float64)
    k[1, 16](z, out)
    np.testing.assert_array_equal(out[:, 0], (np.arange(16) + 1) * 66)
    assert (out[:, 1] == np.float32(float(z) * 15)).all()  # rounded when stored
    np.testing.assert_array_equal(out[:, 2], 2 * z + 1)
