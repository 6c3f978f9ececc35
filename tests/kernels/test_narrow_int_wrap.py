"""Arithmetic on int8/int16/uint8/uint16 wraps in the operands' type (NEP 50:
int16 op int16 is int16), and the wrapped value is what every later use sees:
stored widened into an int64 array, used as an array index (a negative one
counts from the end), and compared.  NumPy is the reference.

Why: on the H200, `abs(int16(-32768))` stored into an int64 array gave
+32768 -- LLVM's NVPTX backend emits `abs.s16` and then `cvt.s64.s16`, and
ptxas takes the 16-bit register to hold the already sign-extended 32-bit
absolute value.  Every operation that can leave a 16-bit register outside its
range (+, -, *, unary -, abs, <<, //, %, small powers, augmented forms,
int32 -> int16 conversions) is checked here with random values and the
extremes (MIN // -1, -MIN, MIN * -1, 0 divisors), on both backends."""
import numpy as np
import pytest

from pycuda_jit import cuda

from gpu_util import poisoned

DTYPES = [np.int8, np.int16, np.uint8, np.uint16]

# The operations, in the order the kernel writes them (row k of each output).
OPS = ["add", "sub", "mul", "neg", "abs", "lshift", "rshift", "floordiv", "mod",
       "pow2", "pow3", "iadd", "isub", "imul", "ilshift", "from_int32",
       "array_iadd", "abs_neg"]


@cuda.jit(device=True)
def record(k, i, r, a, m, table, wide, idx, cmp):
    # (i) widened, (ii) as an index, (iii) compared
    wide[k, i] = r
    idx[k, i] = table[r]
    cmp[k, i] = (1 if r < 0 else 0) + (2 if r == m else 0) + (4 if r < a else 0)


def wraps_kernel(narrow):
    # `narrow` (np.int16...) is a closure value: one kernel per dtype.
    @cuda.jit
    def kernel(a, b, s, w32, c, lim, table, wide, idx, cmp):
        wraps(narrow, a, b, s, w32, c, lim, table, wide, idx, cmp)
    return kernel


@cuda.jit(device=True)
def wraps(narrow, a, b, s, w32, c, lim, table, wide, idx, cmp):
    i = cuda.grid(1)
    if i >= a.size:
        return
    x = a[i]
    y = b[i]
    sh = s[i]
    m = lim[0]
    record(0, i, x + y, x, m, table, wide, idx, cmp)
    record(1, i, x - y, x, m, table, wide, idx, cmp)
    record(2, i, x * y, x, m, table, wide, idx, cmp)
    record(3, i, -x, x, m, table, wide, idx, cmp)
    record(4, i, abs(x), x, m, table, wide, idx, cmp)
    record(5, i, x << sh, x, m, table, wide, idx, cmp)
    record(6, i, x >> sh, x, m, table, wide, idx, cmp)
    record(7, i, x // y, x, m, table, wide, idx, cmp)
    record(8, i, x % y, x, m, table, wide, idx, cmp)
    record(9, i, x ** 2, x, m, table, wide, idx, cmp)
    record(10, i, x ** 3, x, m, table, wide, idx, cmp)
    r = x
    r += y
    record(11, i, r, x, m, table, wide, idx, cmp)
    r = x
    r -= y
    record(12, i, r, x, m, table, wide, idx, cmp)
    r = x
    r *= y
    record(13, i, r, x, m, table, wide, idx, cmp)
    r = x
    r <<= sh
    record(14, i, r, x, m, table, wide, idx, cmp)
    record(15, i, narrow(w32[i]), x, m, table, wide, idx, cmp)
    c[i] += y
    record(16, i, c[i], x, m, table, wide, idx, cmp)
    record(17, i, abs(-x), x, m, table, wide, idx, cmp)


def expected(a, b, s, w32):
    with np.errstate(all="ignore"):
        return [a + b, a - b, a * b, -a, np.abs(a), a << s, a >> s,
                np.floor_divide(a, b), np.remainder(a, b), a ** 2, a ** 3,
                a + b, a - b, a * b, a << s, w32.astype(a.dtype), a + b,
                np.abs(-a)]


def inputs(rng, dtype, n):
    info = np.iinfo(dtype)
    lo, hi = int(info.min), int(info.max)
    special = sorted({lo, lo + 1, -1 if lo else 2, 0, 1, hi // 2 + 1, hi - 1, hi})
    pairs = [(p, q) for p in special for q in special]
    a = rng.integers(lo, hi, n, dtype=dtype, endpoint=True)
    b = rng.integers(lo, hi, n, dtype=dtype, endpoint=True)
    for j, (p, q) in enumerate(pairs):
        a[j], b[j] = p, q
    bits = 8 * np.dtype(dtype).itemsize
    s = rng.integers(0, bits, n).astype(dtype)
    s[:bits] = np.arange(bits)
    w32 = rng.integers(-2 ** 31, 2 ** 31, n, dtype=np.int64).astype(np.int32)
    w32[:6] = [lo - 1, hi + 1, 2 ** 31 - 1, -2 ** 31, lo, hi]
    return a, b, s, w32


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_narrow_integer_results_wrap(backend, rng, dtype):
    n = 512
    a, b, s, w32 = inputs(rng, dtype, n)
    c = a.copy()
    lim = np.array([np.iinfo(dtype).min], dtype)
    span = 1 << (8 * np.dtype(dtype).itemsize)
    # Long enough for every value of the type as an index: a negative one
    # counts from the end, like NumPy.
    table = rng.permutation(span + 7).astype(np.int64)
    wide = poisoned((len(OPS), n), np.int64)
    idx = poisoned((len(OPS), n), np.int64)
    cmp = poisoned((len(OPS), n), np.int32)
    wraps_kernel(dtype)[(n + 127) // 128, 128](a, b, s, w32, c, lim, table, wide, idx, cmp)
    bad = []
    for k, (name, want) in enumerate(zip(OPS, expected(a, b, s, w32))):
        assert want.dtype == dtype, name
        w64 = want.astype(np.int64)
        got = {"widened": wide[k], "index": idx[k],
               "compared": cmp[k]}
        ref = {"widened": w64, "index": table[w64],
               "compared": ((w64 < 0) * 1 + (w64 == int(lim[0])) * 2
                            + (w64 < a.astype(np.int64)) * 4)}
        for use in got:
            wrong = np.flatnonzero(got[use] != ref[use])
            if wrong.size:
                j = wrong[0]
                bad.append(f"{name} {use}: {wrong.size} wrong, first a={a[j]} "
                           f"b={b[j]} s={s[j]} w32={w32[j]}: got {got[use][j]}, "
                           f"want {ref[use][j]}")
    np.testing.assert_array_equal(c, expected(a, b, s, w32)[16])
    assert not bad, "\n".join(bad)
