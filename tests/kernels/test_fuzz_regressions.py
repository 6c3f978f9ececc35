"""What the differential fuzzer (tests/fuzz) found, each case shrunk to a
small kernel.  Expected values come from NumPy / Python, following
docs/language.md; the fuzz seed and kernel that found it are named.

Cases in another workstream's area are xfail(strict=True) with the owner
in the reason ("W2: ..."): they start passing when that work lands, and
the strict marker then asks for the marker to go (with the topic in
tests/fuzz/topics.py).
"""
import math

import numpy as np
import pytest

from pycuda_jit import cuda

from gpu_util import poisoned


def f16_specials(rng, n):
    vals = np.array([0.0, -0.0, 1.0, -1.0, 0.5, 2.5, -2.5, 3.0, 7.0, 1024.5, 65504.0, -65504.0,
                     6.1e-05, 6e-08, np.inf, -np.inf, np.nan], np.float16)
    rand = (rng.standard_normal(n) * 10.0 ** rng.integers(-2, 4, n)).astype(np.float16)
    return np.concatenate([vals, rand])


def same_bits(got, want):
    """Equal as bit patterns, any NaN equal to any NaN."""
    got, want = np.asarray(got), np.asarray(want)
    nan = np.isnan(got) & np.isnan(want)
    u = {2: np.uint16, 4: np.uint32, 8: np.uint64}[got.dtype.itemsize]
    return bool(np.all(nan | (got.view(u) == want.view(u))))


def test_float16_floordiv_and_mod(rng):
    # fuzz seed 1 kernel 14: `(-1.0) % x` with x float16 failed to compile
    # (fmodf called with half operands).  NumPy computes float16 // and %
    # in float32 and rounds the results.
    @cuda.jit
    def k(a, b, q, m):
        i = cuda.grid(1)
        if i < a.size:
            q[i] = a[i] // b[i]
            m[i] = a[i] % b[i]

    a = f16_specials(rng, 300)
    b = np.roll(a, 7)
    b[b == 0] = np.float16(0.75)  # x // 0.0 is W2's (below)
    q, m = poisoned(a.size, np.float16), poisoned(a.size, np.float16)
    k[4, 128](a, b, q, m)
    with np.errstate(all="ignore"):
        a32, b32 = a.astype(np.float32), b.astype(np.float32)
        assert same_bits(q, np.floor_divide(a32, b32).astype(np.float16))
        assert same_bits(m, np.remainder(a32, b32).astype(np.float16))


def test_float16_power(rng):
    # Same mechanism: `x ** y` with float16 operands called powf with half.
    @cuda.jit
    def k(a, b, out):
        i = cuda.grid(1)
        if i < a.size:
            out[i] = a[i] ** b[i]

    a = np.abs(f16_specials(rng, 200))
    b = (rng.integers(-8, 9, a.size) / 2).astype(np.float16)
    out = poisoned(a.size, np.float16)
    k[2, 128](a, b, out)
    with np.errstate(all="ignore"):
        want = np.power(a.astype(np.float32), b.astype(np.float32)).astype(np.float16)
    # powf is within an ulp or two of float32; rounded to float16 that is
    # at most one float16 ulp away.
    with np.errstate(all="ignore"):
        ok = np.isnan(out) & np.isnan(want) | (out == want) | \
            (np.abs(out.astype(np.float64) - want) <= np.abs(np.spacing(want)))
    assert ok.all(), (a[~ok], b[~ok], out[~ok], want[~ok])


def test_divmod_of_python_ints_is_weak():
    # fuzz seed 7 kernel 33: divmod(v, 64)[1] >> a with a uint64 failed to
    # compile ("int64 and uint64"); in Python/NumPy 2 divmod(100, 64)[1] is
    # the Python int 36, and 36 >> np.uint64(x) is a uint64.
    @cuda.jit
    def k(a, out):
        i = cuda.grid(1)
        if i < a.size:
            v = 100
            out[i] = divmod(v, 64)[1] >> a[i]

    a = np.arange(8, dtype=np.uint64)
    out = poisoned(8, np.uint64)
    k[1, 8](a, out)
    np.testing.assert_array_equal(out, np.uint64(36) >> a)

    # unpacked, negative operands (Python's floor rules), both elements: each
    # takes the array's type (uint8 / int8 arithmetic wraps; int64 would not)
    @cuda.jit
    def k2(a, b, out):
        i = cuda.grid(1)
        if i < a.size:
            q, r = divmod(-100, 7)  # -15, 5
            t = divmod(100, -7)     # -15, -5
            out[0, i] = q + b[i]
            out[1, i] = r + a[i]
            out[2, i] = t[0] * b[i]
            out[3, i] = t[-1] * b[i]

    a8 = np.array([0, 1, 100, 200, 250, 251, 254, 255], np.uint8)
    b8 = np.array([-128, -100, -9, 0, 9, 100, 120, 127], np.int8)
    out16 = poisoned((4, 8), np.int16)
    k2[1, 8](a8, b8, out16)
    want = np.array([np.int8(-15) + b8, np.uint8(5) + a8, np.int8(-15) * b8,
                     np.int8(-5) * b8]).astype(np.int16)
    np.testing.assert_array_equal(out16, want)


def test_accumulator_type_settles_before_errors(rng):
    # fuzz seed 1 kernel 518: `v = 0; for ...: v |= a[i]` (a uint64) makes v
    # uint64, but typing raised "unsupported operand types for |: uint64 and
    # int64" from its first pass over the code, where v after the loop was
    # still the literal 0.
    @cuda.jit
    def k(a, out):
        i = cuda.grid(1)
        if i < a.size:
            v = 0
            for j in range(3):
                v |= a[i] >> j
            out[i] = a[i] | (v & (a[i] > 5))

    a = rng.integers(0, 2 ** 63, 64, dtype=np.uint64)
    a[:8] = np.arange(8)
    out = poisoned(64, np.uint64)
    k[1, 64](a, out)
    v = a | (a >> np.uint64(1)) | (a >> np.uint64(2))
    np.testing.assert_array_equal(out, a | (v & (a > 5)))


def test_loop_carried_type_is_not_widened_by_a_stale_first_guess(rng):
    # fuzz seed 1 kernel 561: the second loop's phi first saw `v` as int64
    # (its type while the first loop's back edge was untyped) and kept
    # unifying that stale int64 with the settled uint64: float64, which
    # drops the low bits of large values (and made `v ^= 2` an error).
    @cuda.jit
    def k(a, flag, out):
        i = cuda.grid(1)
        if i < a.size:
            v = 31
            for j in range(2):
                v |= a[i]
            v += flag[i]
            for j in range(3):
                v += 2
            out[i] = v

    a = rng.integers(2 ** 60, 2 ** 64 - 1, 64, dtype=np.uint64, endpoint=True)
    flag = rng.integers(0, 2, 64).astype(np.bool_)
    out = poisoned(64, np.uint64)
    k[1, 64](a, flag, out)
    want = (np.uint64(31) | a) + flag.astype(np.uint64) + np.uint64(6)
    np.testing.assert_array_equal(out, want)


def test_contraction_stays_out_of_floor_division_and_modulo(rng):
    # fuzz seed 11 kernel 252: 3 % (-97 * (7 / 21.0)) gave -29.333333333333332,
    # NumPy and Python -29.33333333333333: the lowering of % computes
    # fmod(x, y) + y, and the product y fused into that addition.  The docs
    # fuse a product only into an addition or subtraction of the source.
    @cuda.jit
    def k(x, a, b, m, q):
        i = cuda.grid(1)
        if i < x.size:
            y = a[i] * b[i]
            m[i] = x[i] % y
            q[i] = (a[i] * b[i]) // x[i]

    n = 256
    x = rng.uniform(-50, 50, n)
    a = rng.uniform(-100, 100, n)
    b = rng.uniform(-1, 1, n)
    x[0], a[0], b[0] = 3.0, -97.0, 7.0 / 21.0
    m, q = poisoned(n, np.float64), poisoned(n, np.float64)
    k[1, n](x, a, b, m, q)
    assert same_bits(m, np.remainder(x, a * b))
    assert same_bits(q, np.floor_divide(a * b, x))


def test_float16_chained_comparison_after_a_libm_call():
    # fuzz seed 20250601 kernel 395, shrunk: on a host with AVX512-FP16, LLVM
    # 19 commuted a masked half compare (q >= 0 as `vcmpleph mem, q`) without
    # swapping its predicate when the constant came from memory (LLVM issue
    # 159723), so `a >= q >= False` was True for q = -21.  The CPU executor
    # computes float16 through float32 instead (as the docs say it does).
    @cuda.jit
    def k(flag, ints, u16, f16, out16, out32):
        i = cuda.grid(1)
        if i < flag.shape[0]:
            a0 = flag[i, 0]
            a2 = ints[i, 1]
            a3 = ints[i, 2]
            a4 = u16[i, 0]
            a6 = f16[i, 0]
            a7 = f16[i, 1]
            v19 = (a2 >= (a6 // a3) >= (a0 < a6 == a0)) - a4
            v20 = a4 // a7
            v22 = 1.0
            for j in range(1):
                v22 -= math.fmod(j, a3)
            out16[i, 0] = v19
            out32[i, 0] = v20

    flag = np.array([[True]])
    ints = np.array([[5, 1, -27]], np.int8)
    u16 = np.array([[0, 11]], np.uint16)
    f16 = np.array([[552.0, -2.0, 1.5]], np.float16)
    out16, out32 = poisoned((1, 1), np.uint16), poisoned((1, 1), np.float32)
    k[1, 1](flag, ints, u16, f16, out16, out32)
    q = np.floor_divide(np.float32(552.0), np.float32(-27))  # -21.0
    assert out16[0, 0] == int(bool(1 >= q >= False)) - 0 == 0
    assert same_bits(out32[0, 0], np.floor_divide(np.float32(0), np.float32(-2.0)))


def test_modulo_by_a_nan_known_at_compile_time(rng):
    # fuzz seed 1 kernel 1378, shrunk: `flag % v` with v = 0.0 / 0.0 known to
    # the optimizer.  On the CPU executor LLVM 22's instcombine folded the
    # libm call fmod(select(flag, 1.0, 0.0), NaN) to poison; the branch on
    # the result was then undefined behaviour, the optimizer deleted the rest
    # of the kernel and a valid store raised KernelIndexError.  libm calls
    # are opaque to LLVM's library-call folding now (HostTarget).
    @cuda.jit
    def k(a, out, hits, fm):
        i = cuda.grid(1)
        if i < a.size:
            nan = math.inf - math.inf
            r = (a[i] < 0.0) % nan
            out[i] = r
            if r != r:
                hits[i] = 1
            else:
                hits[i] = 2
            fm[i] = math.fmod(float(a[i] < 0.5), nan) + math.pow(float(a[i] > 0.0), nan)

    n = 200
    a = rng.uniform(-1, 1, n)
    out, hits, fm = poisoned(n, np.float64), poisoned(n, np.int32), poisoned(n, np.float64)
    k[2, 128](a, out, hits, fm)
    assert np.isnan(out).all()
    np.testing.assert_array_equal(hits, np.ones(n, np.int32))
    want = np.fmod((a < 0.5).astype(np.float64), np.nan) + np.power((a > 0).astype(np.float64), np.nan)
    assert same_bits(fm, want)
