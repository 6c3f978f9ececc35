"""Floating-point contraction (docs/language.md, "Floating-point contraction").

With the default (fmad=True) every multiply-add the rule names is ONE fused
multiply-add, rounded once; everything else rounds per operation.  The
references below are computed in Python from the rule, with exact rational
arithmetic rounded to the kernel's float type (`fma` / `rnd`), and compared
bit for bit: on the CPU executor and on a GPU the kernel must give exactly
these values (GPU == rule == CPU executor).  With fmad=False every
operation rounds separately, exactly like NumPy.
"""
from fractions import Fraction

import numpy as np
import pytest

from gpu_util import poisoned
from pycuda_jit import cuda
from pycuda_jit.cuda import fp16

FLOATS = [np.float16, np.float32, np.float64]

# ---- exact reference arithmetic --------------------------------------------------

# precision (bits, hidden bit included), minimum and maximum normal exponent
_FORMAT = {np.float16: (11, -14, 15), np.float32: (24, -126, 127), np.float64: (53, -1022, 1023)}


def rnd(q, dt):
    """The rational q rounded to nearest-even in dt (subnormals, overflow to inf)."""
    if q == 0:
        return dt(0.0)
    p, emin, emax = _FORMAT[dt]
    neg, q = q < 0, abs(q)
    e = q.numerator.bit_length() - q.denominator.bit_length()  # 2**e <= q < 2**(e+2)
    if q < Fraction(2) ** e:
        e -= 1
    quantum = Fraction(2) ** (max(e, emin) - (p - 1))
    scaled = q / quantum
    m = scaled.numerator // scaled.denominator
    rest = scaled - m
    if rest > Fraction(1, 2) or (rest == Fraction(1, 2) and m % 2):
        m += 1
    v = m * quantum
    big = (2 - Fraction(2) ** (1 - p)) * Fraction(2) ** emax
    f = np.inf if v > big else float(v)
    return dt(-f if neg else f)


def fma(a, b, c):
    """a*b + c rounded once, in the type of a (numpy scalars, finite)."""
    dt = type(a)
    q = Fraction(float(a)) * Fraction(float(b)) + Fraction(float(c))
    if q == 0:
        # an exact zero is -0 only when both the product and c are -0
        prod_neg = np.signbit(a) != np.signbit(b)
        zero_prod = a == 0 or b == 0
        return dt(-0.0) if zero_prod and c == 0 and prod_neg and np.signbit(c) else dt(0.0)
    return rnd(q, dt)


def elementwise(f, *arrays):
    dt = arrays[0].dtype.type
    return np.array([f(*vals) for vals in zip(*arrays)], dtype=dt)


def assert_bits_equal(got, want, what):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    u = {2: np.uint16, 4: np.uint32, 8: np.uint64}[got.dtype.itemsize]
    bad = np.flatnonzero(got.view(u) != want.view(u))
    assert bad.size == 0, (f"{what}: {bad.size} of {got.size} differ, e.g. index {bad[0]}: "
                           f"got {got.flat[bad[0]]!r}, want {want.flat[bad[0]]!r}")


def inputs(rng, dt, n, k=4):
    """k arrays of n values of dt whose fused and unfused multiply-adds differ
    often (the first elements hold cases chosen on purpose)."""
    arrs = [(rng.standard_normal(n) * 2.0 ** rng.integers(-3, 4, n)).astype(dt) for _ in range(k)]
    # 683/512 * 3/4 = 1 + 2**-11 exactly; + 2**-24 lies just above the half-way
    # point between two float16 values (a float32 fma rounded again to half
    # gives 1.0; the one rounding gives 1 + 2**-10).
    special = [(683 / 512, 0.75, 2.0 ** -24, 1.0), (1.5, -2.0, 3.0, -0.0),
               (-0.0, 5.0, -0.0, 2.0), (0.1, 10.0, -1.0, 0.3)]
    for j, row in enumerate(special):
        for arr, v in zip(arrs, row):
            arr[j] = dt(v)
    return arrs


# ---- one kernel body, compiled with and without contraction ---------------------------

def expressions(x, y, z, w, out):
    i = cuda.grid(1)
    if i < x.size:
        a = x[i]
        b = y[i]
        c = z[i]
        d = w[i]
        out[0, i] = a * b + c
        out[1, i] = c + a * b
        out[2, i] = a * b - c
        out[3, i] = c - a * b
        out[4, i] = -(a * b) + c
        out[5, i] = a * b + c * d          # both products: the left one fuses
        out[6, i] = a * b - c * d
        out[7, i] = a * b + c * d + a * d  # a fused sum is no product
        p = a * b                          # one product, several uses
        out[8, i] = p + c
        out[9, i] = p - d
        out[10, i] = p
        out[11, i] = a ** 2 + b            # a constant power is a product
        out[12, i] = (a + b) * c + d
        out[13, i] = a * b * c + d
        out[14, i] = d - (a * b + c)
        t = (a * b, c)                     # tuples are transparent
        out[15, i] = t[0] + t[1]
        out[16, i] = a * 2.5 + c           # a weak literal takes a's type
        if a > 0:                          # the product reaches both branches
            r = p + c
        else:
            r = p - c
        out[17, i] = r
        q = a * b if a > 0 else c * d      # a product through a branch merge
        out[18, i] = q + d


ROWS = 19


def reference_fused(x, y, z, w):
    dt = x.dtype.type
    rows = [[] for _ in range(ROWS)]
    for a, b, c, d in zip(x, y, z, w):
        ab, cd = a * b, c * d                       # numpy scalars round once
        fab = fma(a, b, c)
        vals = [fab, fab, fma(a, b, -c), fma(-a, b, c), fma(-a, b, c),
                fma(a, b, cd), fma(a, b, -cd), fma(a, d, fma(a, b, cd)),
                fab, fma(a, b, -d), ab, fma(a, a, b), fma(a + b, c, d),
                fma(ab, c, d), d - fab, fab, fma(a, dt(2.5), c),
                fab if a > 0 else fma(a, b, -c),
                (ab if a > 0 else cd) + d]
        for r, v in zip(rows, vals):
            r.append(v)
    return np.array(rows, dtype=dt)


def reference_separate(x, y, z, w):
    dt = x.dtype.type
    a, b, c, d = x, y, z, w
    ab, cd = a * b, c * d
    return np.array([ab + c, c + ab, ab - c, c - ab, -ab + c, ab + cd, ab - cd, ab + cd + a * d,
                     ab + c, ab - d, ab, a * a + b, (a + b) * c + d, ab * c + d, d - (ab + c),
                     ab + c, a * dt(2.5) + c, np.where(a > 0, ab + c, ab - c),
                     np.where(a > 0, ab, cd) + d], dtype=dt)


k_fused = cuda.jit(expressions)
k_separate = cuda.jit(fmad=False)(expressions)
# opt=False implies fmad=False (numba-cuda's unoptimized code has no fma);
# fmad=True given with it still fuses.
k_unoptimized = cuda.jit(opt=False)(expressions)
k_unoptimized_fmad = cuda.jit(opt=False, fmad=True)(expressions)


def run(kernel, arrays, rows):
    n = arrays[0].size
    out = poisoned((rows, n), arrays[0].dtype)
    kernel[(n + 127) // 128, 128](*arrays, out)
    return out


@pytest.mark.parametrize("dt", FLOATS, ids=lambda d: np.dtype(d).name)
def test_default_fuses_by_the_rule(backend, rng, dt):
    args = inputs(rng, dt, 600)
    got = run(k_fused, args, ROWS)
    want = reference_fused(*args)
    separate = reference_separate(*args)
    # The test can fail: fusing changes many of these results.
    differs = np.count_nonzero(want[0] != separate[0])
    assert differs >= 30, f"only {differs} fused results differ from separate rounding"
    for r in range(ROWS):
        assert_bits_equal(got[r], want[r], f"row {r}")


@pytest.mark.parametrize("dt", FLOATS, ids=lambda d: np.dtype(d).name)
def test_fmad_false_rounds_every_operation_like_numpy(backend, rng, dt):
    args = inputs(rng, dt, 600)
    got = run(k_separate, args, ROWS)
    want = reference_separate(*args)
    for r in range(ROWS):
        assert_bits_equal(got[r], want[r], f"row {r}")


@pytest.mark.parametrize("dt", [np.float32, np.float64], ids=lambda d: np.dtype(d).name)
def test_opt_false_implies_fmad_false(backend, rng, dt):
    args = inputs(rng, dt, 600)
    got = run(k_unoptimized, args, ROWS)
    want = reference_separate(*args)
    for r in range(ROWS):
        assert_bits_equal(got[r], want[r], f"row {r}")
    got = run(k_unoptimized_fmad, args, ROWS)
    want = reference_fused(*args)
    for r in range(ROWS):
        assert_bits_equal(got[r], want[r], f"row {r} (fmad=True)")


# ---- complex numbers are built from real multiplies and adds ---------------------------

def complex_muladd(a, b, c, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = a[i] * b[i] + c[i]


k_complex_fused = cuda.jit(complex_muladd)
k_complex_separate = cuda.jit(fmad=False)(complex_muladd)


@pytest.mark.parametrize("ct", [np.complex64, np.complex128], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("fmad", [True, False])
def test_complex_multiply_add(backend, rng, ct, fmad):
    n = 500
    ft = np.float32 if ct == np.complex64 else np.float64
    parts = inputs(rng, ft, n, k=6)
    a, b, c = (parts[k] + 1j * parts[k + 1] for k in (0, 2, 4))
    a, b, c = a.astype(ct), b.astype(ct), c.astype(ct)
    out = np.full(n, complex(np.nan, np.nan), ct)  # poisoned
    (k_complex_fused if fmad else k_complex_separate)[(n + 127) // 128, 128](a, b, c, out)
    ar, ai, br, bi, cr, ci = (v.astype(ft) for v in (a.real, a.imag, b.real, b.imag, c.real, c.imag))
    if fmad:
        # (ar + i ai)(br + i bi): re = ar*br - ai*bi, im = ar*bi + ai*br, left product fused
        re = elementwise(lambda p, q, r, s: fma(p, q, -(r * s)), ar, br, ai, bi) + cr
        im = elementwise(lambda p, q, r, s: fma(p, q, r * s), ar, bi, ai, br) + ci
    else:
        re = (ar * br - ai * bi) + cr
        im = (ar * bi + ai * br) + ci
    assert_bits_equal(out.real.copy(), re, "real part")
    assert_bits_equal(out.imag.copy(), im, "imaginary part")


# ---- device functions, loops, mixed precision, float16 intrinsics -----------------------

@cuda.jit(device=True)
def mul(a, b):
    return a * b


@cuda.jit(device=True, inline="always")
def mul_inline(a, b):
    return a * b


@cuda.jit(device=True)
def muladd(a, b, c):
    return a * b + c


@cuda.jit
def k_functions(x, y, z, out):
    i = cuda.grid(1)
    if i < x.size:
        out[0, i] = mul(x[i], y[i]) + z[i]         # across a call: not fused
        out[1, i] = mul_inline(x[i], y[i]) + z[i]  # inline="always": fused
        out[2, i] = muladd(x[i], y[i], z[i])       # inside the function: fused


@pytest.mark.parametrize("dt", [np.float32, np.float64], ids=lambda d: np.dtype(d).name)
def test_device_functions(backend, rng, dt):
    x, y, z = inputs(rng, dt, 300, k=3)
    out = poisoned((3, x.size), dt)
    k_functions[3, 128](x, y, z, out)
    fused = elementwise(fma, x, y, z)
    assert np.count_nonzero(fused != x * y + z) >= 10
    assert_bits_equal(out[0], x * y + z, "mul(x, y) + z")
    assert_bits_equal(out[1], fused, "mul_inline(x, y) + z")
    assert_bits_equal(out[2], fused, "muladd(x, y, z)")


@cuda.jit
def k_dot(x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        acc = 0.0
        for k in range(x.shape[1]):
            acc += x[i, k] * y[i, k]
        out[i] = acc


@pytest.mark.parametrize("dt", FLOATS, ids=lambda d: np.dtype(d).name)
def test_dot_product_accumulates_with_fma(backend, rng, dt):
    n, m = 64, 17
    x = (rng.standard_normal((n, m)) * 0.5).astype(dt)
    y = (rng.standard_normal((n, m)) * 0.5).astype(dt)
    out = poisoned(n, dt)
    k_dot[1, 64](x, y, out)
    want = np.empty(n, dt)
    for i in range(n):
        acc = dt(0.0)
        for k in range(m):
            acc = fma(x[i, k], y[i, k], acc)
        want[i] = acc
    assert_bits_equal(out, want, "dot products")


@cuda.jit
def k_mixed(x32, y32, z64, out):
    i = cuda.grid(1)
    if i < x32.size:
        out[0, i] = x32[i] * y32[i] + z64[i]              # float32 product, then widened
        out[1, i] = np.float64(x32[i]) * y32[i] + z64[i]  # a float64 product


def test_mixed_precision(backend, rng):
    x, y = inputs(rng, np.float32, 300, k=2)
    z = rng.standard_normal(300)
    out = poisoned((2, 300), np.float64)
    k_mixed[3, 128](x, y, z, out)
    assert_bits_equal(out[0], (x * y).astype(np.float64) + z, "float32 product + float64")
    want = elementwise(fma, x.astype(np.float64), y.astype(np.float64), z)
    assert_bits_equal(out[1], want, "float64 product + float64")


@cuda.jit
def k_half_intrinsics(x, y, z, out):
    i = cuda.grid(1)
    if i < x.size:
        out[0, i] = fp16.hfma(x[i], y[i], z[i])
        out[1, i] = fp16.hadd(fp16.hmul(x[i], y[i]), z[i])  # contracts like CUDA's __hmul/__hadd


def test_float16_fma_rounds_once(backend, rng):
    x, y, z = inputs(rng, np.float16, 400, k=3)
    out = poisoned((2, 400), np.float16)
    k_half_intrinsics[4, 128](x, y, z, out)
    want = elementwise(fma, x, y, z)
    assert want[0] == np.float16(1 + 2 ** -10)  # the double-rounding trap, rounded once
    assert_bits_equal(out[0], want, "hfma")
    assert_bits_equal(out[1], want, "hadd(hmul)")


# ---- the steps of other operations never fuse --------------------------------------

def internal_steps(x, y, z, w, e, out, cout):
    i = cuda.grid(1)
    if i < x.size:
        p = x[i] * y[i]                  # a product, used by operations that are no sums
        out[0, i] = x[i] % p
        out[1, i] = p // x[i]
        q, r = divmod(p, y[i])
        out[2, i] = q
        out[3, i] = r
        c = z[i] * w[i]
        cout[0, i] = z[i] / w[i]         # complex division
        cout[1, i] = c / z[i]
        cout[2, i] = z[i] ** e[i]        # run-time power with an integral exponent
        cout[3, i] = z[i] ** -3          # negative constant power: 1 / (z*z*z)


k_internal_fused = cuda.jit(internal_steps)
k_internal_separate = cuda.jit(fmad=False)(internal_steps)


@pytest.mark.parametrize("fmad", [True, False])
def test_steps_of_other_operations_never_fuse(backend, rng, fmad):
    # Python's float %, //, divmod and complex /, ** (Smith's division, the
    # squaring loop for integral exponents) round every step; so must ours,
    # with contraction on or off: only source-level sums of products fuse.
    n = 512
    x, y = inputs(rng, np.float64, n, k=2)
    x[x == 0] = 1.5
    y[y == 0] = -0.75
    zr, zi, wr, wi = inputs(rng, np.float64, n, k=4)
    z, w = zr + 1j * zi, wr + 1j * wi
    z[z == 0], w[w == 0] = 1 + 1j, 2 - 1j
    e = (rng.integers(-9, 10, n) + 0j).astype(np.complex128)
    out = poisoned((4, n), np.float64)
    cout = np.full((4, n), complex(np.nan, np.nan))  # poisoned
    kern = k_internal_fused if fmad else k_internal_separate
    kern[(n + 127) // 128, 128](x, y, z, w, e, out, cout)
    xs, ys, zs, ws, es = x.tolist(), y.tolist(), z.tolist(), w.tolist(), e.tolist()
    ps = [a * b for a, b in zip(xs, ys)]
    cs = [a * b for a, b in zip(zs, ws)]
    if fmad:  # the complex product itself fuses (the left product of each part)
        f = np.float64
        cs = [complex(fma(f(a.real), f(b.real), -f(a.imag * b.imag)),
                      fma(f(a.real), f(b.imag), f(a.imag * b.real))) for a, b in zip(zs, ws)]
    want = np.array([[a % p for a, p in zip(xs, ps)],
                     [p // a for a, p in zip(xs, ps)],
                     [divmod(p, b)[0] for p, b in zip(ps, ys)],
                     [divmod(p, b)[1] for p, b in zip(ps, ys)]])
    cwant = np.array([[a / b for a, b in zip(zs, ws)],
                      [c / a for c, a in zip(cs, zs)],
                      [a ** int(k.real) for a, k in zip(zs, es)],
                      [a ** -3 for a in zs]])
    names = ["x % (x*y)", "(x*y) // x", "divmod(x*y, y)[0]", "divmod(x*y, y)[1]"]
    for row, what in enumerate(names):
        assert_bits_equal(out[row], want[row], what)
    cnames = ["z / w", "(z*w) / z", "z ** e", "z ** -3"]
    for row, what in enumerate(cnames):
        assert_bits_equal(cout[row].real.copy(), cwant[row].real.copy(), what + " (real)")
        assert_bits_equal(cout[row].imag.copy(), cwant[row].imag.copy(), what + " (imag)")
