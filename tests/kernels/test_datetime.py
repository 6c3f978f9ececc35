"""datetime64[unit] and timedelta64[unit] in kernels: arrays and scalars as
arguments, NumPy's arithmetic and comparisons (NaT propagates; a comparison
with NaT is False except !=), unit conversion to the finer unit, stores,
@vectorize / @guvectorize with datetime signatures, and refusals of what
NumPy refuses.  Every result is compared with NumPy's."""
import numpy as np
import pytest

from pycuda_jit import cuda, errors, guvectorize, vectorize
from pycuda_jit import types
from gpu_util import poisoned

N = 300
NAT = np.iinfo(np.int64).min


def counts(rng, n, unit, lo=-10**6, hi=10**6, nat=True):
    """Random counts as timedelta64[unit], with some NaTs."""
    c = rng.integers(lo, hi, n)
    if nat:
        c[rng.random(n) < 0.1] = NAT
    return c.view(f"m8[{unit}]")


def dates(rng, n, unit, nat=True):
    return counts(rng, n, unit, nat=nat).view(f"M8[{unit}]")


def test_datetime_minus_datetime(rng):
    @cuda.jit
    def k(start, end, out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = end[i] - start[i]

    a, b = dates(rng, N, "D"), dates(rng, N, "D")
    out = poisoned(N, "m8[D]")
    k[3, 128](a, b, out)
    np.testing.assert_array_equal(out.view(np.int64), (b - a).view(np.int64))


def test_mixed_units_take_the_finer(rng):
    # datetime64[D] + timedelta64[h] -> datetime64[h]; s + ms -> ms
    @cuda.jit
    def k(d, h, s, ms, out_dt, out_td):
        i = cuda.grid(1)
        if i < out_dt.size:
            out_dt[i] = d[i] + h[i]
            out_td[i] = s[i] + ms[i]

    d = dates(rng, N, "D", nat=True)
    h = counts(rng, N, "h", -1000, 1000)
    s = counts(rng, N, "s", -1000, 1000)
    ms = counts(rng, N, "ms")
    out_dt, out_td = poisoned(N, "M8[h]"), poisoned(N, "m8[ms]")
    k[3, 128](d, h, s, ms, out_dt, out_td)
    assert (d + h).dtype == out_dt.dtype and (s + ms).dtype == out_td.dtype
    np.testing.assert_array_equal(out_dt.view(np.int64), (d + h).view(np.int64))
    np.testing.assert_array_equal(out_td.view(np.int64), (s + ms).view(np.int64))


def test_timedelta_arithmetic(rng):
    @cuda.jit
    def k(a, b, n, add, sub, mul, rmul, fdiv, tdiv, mod, idiv, itdiv):
        i = cuda.grid(1)
        if i < a.size:
            add[i] = a[i] + b[i]
            sub[i] = a[i] - b[i]
            mul[i] = a[i] * n[i]
            rmul[i] = n[i] * a[i]
            fdiv[i] = a[i] // b[i]
            tdiv[i] = a[i] / b[i]
            mod[i] = a[i] % b[i]
            idiv[i] = a[i] // n[i]
            itdiv[i] = a[i] / n[i]

    a = counts(rng, N, "s")
    b = counts(rng, N, "s", -50, 50)  # zeros too
    n = rng.integers(-5, 6, N)
    outs = [poisoned(N, "m8[s]"), poisoned(N, "m8[s]"), poisoned(N, "m8[s]"),
            poisoned(N, "m8[s]"), poisoned(N, np.int64), poisoned(N, np.float64),
            poisoned(N, "m8[s]"), poisoned(N, "m8[s]"), poisoned(N, "m8[s]")]
    k[3, 128](a, b, n, *outs)
    with np.errstate(all="ignore"):
        want = [a + b, a - b, a * n, n * a, a // b, a / b, a % b, a // n, a / n]
    for got, exp in zip(outs, want):
        assert got.dtype == exp.dtype
        if exp.dtype.kind == "m":
            np.testing.assert_array_equal(got.view(np.int64), exp.view(np.int64))
        else:
            np.testing.assert_array_equal(got, exp)


def test_comparisons_and_nat(rng):
    @cuda.jit
    def k(a, b, out):
        i = cuda.grid(1)
        if i < a.size:
            out[i, 0] = a[i] < b[i]
            out[i, 1] = a[i] <= b[i]
            out[i, 2] = a[i] == b[i]
            out[i, 3] = a[i] != b[i]
            out[i, 4] = a[i] > b[i]
            out[i, 5] = a[i] >= b[i]

    a = dates(rng, N, "m", nat=True)
    b = a.copy()
    b[::2] = dates(rng, N, "m", nat=True)[::2]
    out = poisoned((N, 6), np.bool_)
    k[3, 128](a, b, out)
    want = np.stack([a < b, a <= b, a == b, a != b, a > b, a >= b], axis=1)
    np.testing.assert_array_equal(out, want)
    assert out[np.isnat(a), 3].all() and not out[np.isnat(a), 2].any()


def test_scalar_arguments(rng):
    # numpy datetime64/timedelta64 scalars as kernel arguments
    @cuda.jit
    def k(d, target, delta, match, shifted):
        i = cuda.grid(1)
        if i < d.size:
            match[i] = d[i] == target
            shifted[i] = d[i] - delta

    d = dates(rng, N, "D", nat=False)
    target = d[17]
    delta = np.timedelta64(int(rng.integers(1, 1000)), "D")
    match, shifted = poisoned(N, np.bool_), poisoned(N, "M8[D]")
    k[3, 128](d, target, delta, match, shifted)
    np.testing.assert_array_equal(match, d == target)
    np.testing.assert_array_equal(shifted.view(np.int64), (d - delta).view(np.int64))


def test_store_converts_to_the_array_unit(rng):
    # a timedelta64[s] stored into a timedelta64[us] array: exact
    @cuda.jit
    def k(s, out):
        i = cuda.grid(1)
        if i < s.size:
            out[i] = s[i]

    s = counts(rng, N, "s")
    out = poisoned(N, "m8[us]")
    k[3, 128](s, out)
    np.testing.assert_array_equal(out.view(np.int64), s.astype("m8[us]").view(np.int64))


def test_record_fields(rng):
    dt = np.dtype([("t", "M8[s]"), ("d", "m8[s]"), ("x", np.int32)])

    @cuda.jit
    def k(recs, out):
        i = cuda.grid(1)
        if i < recs.size:
            out[i] = recs[i].t + recs[i].d
            recs[i].d = recs[i].d + recs[i].d

    recs = np.zeros(N, dt)
    recs["t"] = dates(rng, N, "s")
    recs["d"] = counts(rng, N, "s", -1000, 1000)
    before = recs.copy()
    out = poisoned(N, "M8[s]")
    k[3, 128](recs, out)
    np.testing.assert_array_equal(out.view(np.int64),
                                  (before["t"] + before["d"]).view(np.int64))
    np.testing.assert_array_equal(recs["d"].view(np.int64),
                                  (before["d"] * 2).view(np.int64))


def test_device_array_view_as_int64(rng):
    a = dates(rng, N, "D")
    d = cuda.to_device(a)
    v = d.view(np.int64)
    np.testing.assert_array_equal(v.copy_to_host(), a.view(np.int64))
    np.testing.assert_array_equal(d.copy_to_host().view(np.int64), a.view(np.int64))
    assert v.gpu_data == d.gpu_data  # the same memory


def test_vectorize_infers_the_result(rng):
    dt = types.from_dtype(np.dtype("datetime64[D]"))
    assert str(dt) == "datetime64[D]"

    @vectorize([(dt, dt)], target="cuda")
    def diff(start, end):
        return end - start

    a, b = dates(rng, N, "D"), dates(rng, N, "D")
    got = diff(a, b)
    assert got.dtype == np.dtype("m8[D]")
    np.testing.assert_array_equal(got.view(np.int64), (b - a).view(np.int64))


def test_guvectorize(rng):
    dt = types.from_dtype(np.dtype("datetime64[D]"))
    td = types.from_dtype(np.dtype("timedelta64[D]"))

    @guvectorize([(dt, dt, td[:])], "(),()->()", target="cuda")
    def diff(start, end, out):
        out[0] = end - start

    a, b = dates(rng, N, "D"), dates(rng, N, "D")
    got = diff(a, b)
    np.testing.assert_array_equal(got.view(np.int64), (b - a).view(np.int64))


def test_signature_with_datetime_types(rng):
    @cuda.jit("void(datetime64[s][::1], timedelta64[ms][::1], datetime64[ms][::1])")
    def k(t, d, out):
        i = cuda.grid(1)
        if i < t.size:
            out[i] = t[i] + d[i]

    t, d = dates(rng, N, "s"), counts(rng, N, "ms")
    out = poisoned(N, "M8[ms]")
    k[3, 128](t, d, out)
    np.testing.assert_array_equal(out.view(np.int64), (t + d).view(np.int64))


def _launch(k, *args):
    k[1, 1](*args)


def test_refusals():
    m = np.zeros(4, "m8[M]")
    d = np.zeros(4, "m8[D]")
    t = np.zeros(4, "M8[D]")
    i = np.zeros(4, np.int64)

    @cuda.jit
    def months_and_days(a, b):
        a[0] = a[1] + b[0]

    with pytest.raises(errors.TypingError, match=r"time units \[M\] and \[D\]"):
        _launch(months_and_days, m, d)

    @cuda.jit
    def add_dates(a):
        a[0] = a[1] + a[2]

    with pytest.raises(errors.TypingError, match=r"unsupported operand types for \+"):
        _launch(add_dates, t)

    @cuda.jit
    def date_into_int(a, b):
        b[0] = a[0]

    with pytest.raises(errors.TypingError, match="cannot store"):
        _launch(date_into_int, t, i)

    @cuda.jit
    def finer_into_coarser(a, b):
        b[0] = a[0]

    with pytest.raises(errors.TypingError, match="cannot store"):
        _launch(finer_into_coarser, np.zeros(4, "m8[s]"), d)

    @cuda.jit
    def date_vs_delta(a, b, out):
        out[0] = a[0] < b[0]

    with pytest.raises(errors.TypingError, match="cannot compare"):
        _launch(date_vs_delta, t, d, np.zeros(1, np.bool_))
