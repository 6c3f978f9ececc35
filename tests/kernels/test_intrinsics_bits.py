"""Bit operations (popc, brev, clz, ffs), fma, cbrt, selp, and cuda.fp16:
elementwise float16 kernels against numpy's float16 arithmetic."""
import numpy as np
import pytest

from pycuda_jit import cuda
from pycuda_jit.cuda import fp16
from gpu_util import poisoned

INTS = [np.int32, np.uint32, np.int64, np.uint64]


@cuda.jit
def k_bits(x, popc, brev, clz, ffs):
    i = cuda.grid(1)
    if i < x.size:
        popc[i] = cuda.popc(x[i])
        brev[i] = cuda.brev(x[i])
        clz[i] = cuda.clz(x[i])
        ffs[i] = cuda.ffs(x[i])


def ref_bits(x):
    bits = x.dtype.itemsize * 8
    u = x.astype(np.uint64) & np.uint64((1 << bits) - 1) if bits == 32 else x.view(np.uint64)
    vals = [int(v) for v in u]
    popc = [bin(v).count("1") for v in vals]
    brev = [int(format(v, f"0{bits}b")[::-1], 2) for v in vals]
    clz = [bits - v.bit_length() for v in vals]
    ffs = [(v & -v).bit_length() for v in vals]
    return popc, brev, clz, ffs


@pytest.mark.parametrize("dt", INTS, ids=lambda d: np.dtype(d).name)
def test_bit_operations(backend, rng, dt):
    info = np.iinfo(dt)
    x = rng.integers(info.min, info.max, 500, dtype=dt, endpoint=True)
    x[:6] = [dt(v) for v in (0, 1, 2, info.max, info.min, 1 << 20)]
    popc, brev, clz = poisoned(500, dt), poisoned(500, dt), poisoned(500, dt)
    ffs = poisoned(500, np.uint32)
    k_bits[4, 128](x, popc, brev, clz, ffs)
    e_popc, e_brev, e_clz, e_ffs = ref_bits(x)
    np.testing.assert_array_equal(popc, np.array(e_popc).astype(dt))
    np.testing.assert_array_equal(brev.view(np.dtype(dt).str.replace("i", "u")),
                                  np.array(e_brev, np.uint64).astype(np.dtype(dt).str.replace("i", "u")))
    np.testing.assert_array_equal(clz, np.array(e_clz).astype(dt))
    np.testing.assert_array_equal(ffs, np.array(e_ffs, np.uint32))


@cuda.jit
def k_arith(a, b, c, fma_out, cbrt_out, sel_out):
    i = cuda.grid(1)
    if i < a.size:
        fma_out[i] = cuda.fma(a[i], b[i], c[i])
        cbrt_out[i] = cuda.cbrt(a[i])
        sel_out[i] = cuda.selp(a[i] > b[i], a[i], c[i])


@pytest.mark.parametrize("dt", [np.float32, np.float64], ids=lambda d: np.dtype(d).name)
def test_fma_cbrt_selp(backend, rng, dt):
    n = 400
    a, b, c = (rng.standard_normal(n).astype(dt) * 10 for _ in range(3))
    outs = [poisoned(n, dt) for _ in range(3)]
    k_arith[4, 128](a, b, c, *outs)
    # fma rounds once: compare with the exactly rounded result.
    exact = (a.astype(np.longdouble) * b + c).astype(dt)
    np.testing.assert_array_equal(outs[0], exact) if dt == np.float32 else \
        np.testing.assert_allclose(outs[0], exact, rtol=1e-15, atol=1e-13)
    np.testing.assert_allclose(outs[1], np.cbrt(a), rtol=4e-7 if dt == np.float32 else 1e-15)
    np.testing.assert_array_equal(outs[2], np.where(a > b, a, c))


# ---- cuda.fp16 ------------------------------------------------------------------------

@cuda.jit
def k_fp16_binary(a, b, c, out):
    i = cuda.grid(1)
    if i < a.size:
        x = a[i]
        y = b[i]
        out[0, i] = fp16.hadd(x, y)
        out[1, i] = fp16.hsub(x, y)
        out[2, i] = fp16.hmul(x, y)
        out[3, i] = fp16.hdiv(x, y)
        out[4, i] = fp16.hfma(x, y, c[i])
        out[5, i] = fp16.hmax(x, y)
        out[6, i] = fp16.hmin(x, y)
        out[7, i] = fp16.hneg(x)
        out[8, i] = fp16.habs(x)
        out[9, i] = fp16.hadd(x, 1.5)  # a literal converts to float16


@cuda.jit
def k_fp16_compare(a, b, out):
    i = cuda.grid(1)
    if i < a.size:
        out[0, i] = fp16.heq(a[i], b[i])
        out[1, i] = fp16.hne(a[i], b[i])
        out[2, i] = fp16.hlt(a[i], b[i])
        out[3, i] = fp16.hle(a[i], b[i])
        out[4, i] = fp16.hgt(a[i], b[i])
        out[5, i] = fp16.hge(a[i], b[i])


@cuda.jit
def k_fp16_unary(a, out):
    i = cuda.grid(1)
    if i < a.size:
        x = a[i]
        out[0, i] = fp16.hsqrt(x)
        out[1, i] = fp16.hexp(x)
        out[2, i] = fp16.hlog(x)
        out[3, i] = fp16.hsin(x)
        out[4, i] = fp16.hcos(x)
        out[5, i] = fp16.hexp2(x)
        out[6, i] = fp16.hexp10(x)
        out[7, i] = fp16.hlog2(x)
        out[8, i] = fp16.hlog10(x)
        out[9, i] = fp16.hrcp(x)
        out[10, i] = fp16.hrsqrt(x)
        out[11, i] = fp16.hfloor(x)
        out[12, i] = fp16.hceil(x)
        out[13, i] = fp16.htrunc(x)
        out[14, i] = fp16.hrint(x)


def test_fp16_arithmetic(backend, rng):
    n = 300
    a = (rng.standard_normal(n) * 4).astype(np.float16)
    b = (rng.standard_normal(n) * 4).astype(np.float16)
    b[b == 0] = 1
    c = (rng.standard_normal(n)).astype(np.float16)
    a[:3] = [np.nan, 2, -0.0]
    b[:3] = [1, np.nan, 0.5]
    out = poisoned((10, n), np.float16)
    k_fp16_binary[3, 128](a, b, c, out)
    f = lambda v: v.astype(np.float64)  # noqa: E731
    h = lambda v: v.astype(np.float16)  # noqa: E731  (one rounding: exact for + - * /)
    expect = [h(f(a) + f(b)), h(f(a) - f(b)), h(f(a) * f(b)), h(f(a) / f(b)),
              h(f(a) * f(b) + f(c)), np.fmax(a, b), np.fmin(a, b), -a, np.abs(a),
              h(f(a) + 1.5)]
    for k, e in enumerate(expect):
        np.testing.assert_array_equal(out[k], e, err_msg=f"row {k}")


def test_fp16_comparisons(backend, rng):
    n = 200
    a = rng.integers(-3, 3, n).astype(np.float16)
    b = rng.integers(-3, 3, n).astype(np.float16)
    a[0], b[1] = np.nan, np.nan
    out = poisoned((6, n), np.bool_)
    k_fp16_compare[2, 128](a, b, out)
    expect = [a == b, (a != b) & ~np.isnan(a) & ~np.isnan(b), a < b, a <= b, a > b, a >= b]
    for k, e in enumerate(expect):
        np.testing.assert_array_equal(out[k], e, err_msg=f"row {k}")


def test_fp16_functions(backend, rng):
    n = 256
    a = (rng.random(n) * 4 + 0.05).astype(np.float16)
    a[:4] = [0.5, 1.0, 2.5, 3.5]  # rint rounds half to even
    out = poisoned((15, n), np.float16)
    k_fp16_unary[2, 128](a, out)
    x = a.astype(np.float64)
    exact = [np.sqrt(x), np.exp(x), np.log(x), np.sin(x), np.cos(x), np.exp2(x),
             10.0 ** x, np.log2(x), np.log10(x), 1 / x, 1 / np.sqrt(x)]
    for k, e in enumerate(exact):
        # computed in float32 and rounded once: within one float16 ulp
        np.testing.assert_allclose(out[k].astype(np.float64), e, rtol=2 ** -10, atol=2 ** -14,
                                   err_msg=f"row {k}")
    for k, e in enumerate([np.floor(a), np.ceil(a), np.trunc(a), np.rint(a)], start=11):
        np.testing.assert_array_equal(out[k], e, err_msg=f"row {k}")


@cuda.jit
def k_fp16_axpy(alpha, x, y, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = fp16.hfma(alpha[0], x[i], y[i])


def test_fp16_elementwise_kernel(backend, rng):
    n = 10_000
    x = rng.standard_normal(n).astype(np.float16)
    y = rng.standard_normal(n).astype(np.float16)
    alpha = np.array([0.75], np.float16)
    out = poisoned(n, np.float16)
    k_fp16_axpy[(n + 255) // 256, 256](alpha, x, y, out)
    exact = (alpha.astype(np.float64) * x.astype(np.float64) + y.astype(np.float64)).astype(np.float16)
    np.testing.assert_array_equal(out, exact)
