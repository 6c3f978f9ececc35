"""float16 arithmetic and conversions give NumPy's float16 results bit for
bit on both backends.  On the GPU `+ - *` are native f16 instructions
(`add.f16` where no multiply-add can pair them, `.rn` otherwise), `/` and
sqrt go through float32 and round once (exact: float32 has more than
2*11+2 bits), and the conversions are cvt instructions; the CPU executor
computes through float32.  Inputs are every kind of float16: random bit
patterns (subnormals, infinities and NaNs included) and the extremes."""
import numpy as np
import pytest

from pycuda_jit import cuda
from pycuda_jit.cuda import fp16

from gpu_util import poisoned

ARITH = ["add", "sub", "mul", "div", "neg", "abs", "iadd", "isub", "imul",
         "sum_times", "product_times", "sqrt", "store_and_compare"]


def arith_body(a, b, out, flags):
    i = cuda.grid(1)
    if i >= a.size:
        return
    x = a[i]
    y = b[i]
    out[0, i] = x + y
    out[1, i] = x - y
    out[2, i] = x * y
    out[3, i] = x / y
    out[4, i] = -x
    out[5, i] = abs(x)
    r = x
    r += y
    out[6, i] = r
    r = x
    r -= y
    out[7, i] = r
    r = x
    r *= y
    out[8, i] = r
    out[9, i] = (x + y) * y
    out[10, i] = x * y * y
    out[11, i] = fp16.hsqrt(x)
    p = x * y
    out[12, i] = p
    flags[i] = 1 if p < x else 0


arith = cuda.jit(arith_body)
arith_nofma = cuda.jit(fmad=False)(arith_body)


def float16_inputs(rng, n):
    bits = rng.integers(0, 1 << 16, n, dtype=np.uint64).astype(np.uint16)
    x = bits.view(np.float16).copy()
    special = np.array([0.0, -0.0, 1.0, -1.0, 65504.0, -65504.0, 6.1e-05, 6e-08,
                        -6e-08, 1e-07, np.inf, -np.inf, np.nan, 0.5, 2.0, 3.0],
                       np.float16)
    x[:special.size] = special
    return x


def same(got, want):
    """Bit-equal, any NaN matching any NaN (NaN payloads differ by target)."""
    nan = np.isnan(want)
    return (np.isnan(got) == nan) & (nan | (got.view(np.uint16) == want.view(np.uint16)))


@pytest.mark.parametrize("kernel", [arith, arith_nofma], ids=["fmad", "nofmad"])
def test_float16_arithmetic_is_numpys(backend, rng, kernel):
    n = 4096
    a = float16_inputs(rng, n)
    b = float16_inputs(rng, n)[::-1].copy()
    out = poisoned((len(ARITH), n), np.float16)
    flags = poisoned(n, np.int32)
    kernel[n // 128, 128](a, b, out, flags)
    with np.errstate(all="ignore"):
        p = a * b
        want = [a + b, a - b, p, a / b, -a, np.abs(a), a + b, a - b, p,
                (a + b) * b, p * b, np.sqrt(a), p]
        want_flags = (p < a).astype(np.int32)
    bad = []
    for k, (name, w) in enumerate(zip(ARITH, want)):
        assert w.dtype == np.float16, name
        ok = same(out[k], w)
        if not ok.all():
            j = np.flatnonzero(~ok)[0]
            bad.append(f"{name}: {np.count_nonzero(~ok)} wrong, first {a[j]!r} {b[j]!r}: "
                       f"got {out[k][j]!r}, want {w[j]!r}")
    assert not bad, "\n".join(bad)
    np.testing.assert_array_equal(flags, want_flags)


INT_TYPES = [np.int8, np.uint8, np.int16, np.uint16, np.int32]


def make_to_half(t):
    @cuda.jit
    def to_half(v, out):
        i = cuda.grid(1)
        if i < v.size:
            out[i] = np.float16(v[i]) * np.float16(0.5)
    return to_half


def make_from_half(t):
    @cuda.jit
    def from_half(h, out):
        i = cuda.grid(1)
        if i < h.size:
            out[i] = t(h[i])
    return from_half


@pytest.mark.parametrize("t", INT_TYPES, ids=lambda t: np.dtype(t).name)
def test_int_to_float16(backend, rng, t):
    info = np.iinfo(t)
    v = rng.integers(info.min, info.max, 1000, dtype=t, endpoint=True)
    v[:4] = [info.min, info.max, 0, 1]
    out = poisoned(v.size, np.float16)
    make_to_half(t)[8, 128](v, out)
    with np.errstate(over="ignore"):
        want = v.astype(np.float16) * np.float16(0.5)  # 65535 -> inf
    assert same(out, want).all(), (v[~same(out, want)][:5], out[~same(out, want)][:5])


@pytest.mark.parametrize("t", INT_TYPES, ids=lambda t: np.dtype(t).name)
def test_float16_to_int_truncates_and_saturates(backend, rng, t):
    # int(h) truncates toward zero (NumPy, Python); out of range saturates,
    # NaN is 0 (docs/language.md) -- numba-cuda rounds to nearest here.
    h = float16_inputs(rng, 4000)
    h[16:20] = [2.7, -2.7, 127.5, -128.9]
    out = poisoned(h.size, t)
    make_from_half(t)[32, 128](h, out)
    info = np.iinfo(t)
    f = h.astype(np.float64)
    want = np.where(np.isnan(f), 0, np.clip(np.trunc(np.nan_to_num(f)), info.min, info.max))
    np.testing.assert_array_equal(out, want.astype(t))
