"""Float -> int conversion is defined for every value (docs/language.md):
truncation toward zero, saturated to the destination's range, NaN -> 0 --
what PTX's cvt.rzi does -- on the GPU and on the CPU executor alike, for
every spelling of the conversion (np.int8(x), int(x), a store into an
integer array, math.floor/ceil/trunc, round(x))."""
import math

import numpy as np
import pytest

from pycuda_jit import cuda, errors
from gpu_util import poisoned

INT_TYPES = [np.int8, np.int16, np.int32, np.int64,
             np.uint8, np.uint16, np.uint32, np.uint64]
FLOAT_TYPES = [np.float16, np.float32, np.float64]


def saturate(v, it):
    """The defined result of converting the float v to the integer type it."""
    if math.isnan(v):
        return 0
    info = np.iinfo(it)
    if math.isinf(v):
        return info.max if v > 0 else info.min
    return min(max(math.trunc(v), info.min), info.max)


def float_inputs(rng, ft):
    """Random values over the whole range of ft, integers near every int
    type's limits, and the special values."""
    fi = np.finfo(ft)
    special = [np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 0.5, -0.5, -0.99,
               0.99, 1.0, -1.0, 127.5, 128.0, -128.5, -129.0, 255.5, 256.0,
               32767.5, 32768.0, -32769.0, 65535.5, 65536.0, 2.0 ** 31 - 0.5,
               2.0 ** 31, -2.0 ** 31 - 1, 2.0 ** 32, 2.0 ** 63, -2.0 ** 63,
               -2.0 ** 63 * 1.5, 2.0 ** 64, 2.0 ** 64 * 3, 1e30, -1e30,
               float(fi.max), float(-fi.max), float(fi.tiny), float(fi.smallest_subnormal)]
    for it in INT_TYPES:
        info = np.iinfo(it)
        for edge in (info.min, info.max):
            special += [float(edge) - 1.0, float(edge), float(edge) + 1.0]
    with np.errstate(over="ignore"):
        special = np.array(special, dtype=np.float64).astype(ft)
        # Magnitudes from 2**-4 to the type's largest exponent, both signs.
        mag = np.exp2(rng.uniform(-4, math.log2(float(fi.max)), 3000))
        rand = (mag * rng.choice([-1.0, 1.0], mag.size)).astype(ft)
    return np.concatenate([special, rand])


def make_converters(it):
    @cuda.jit
    def conv(x, by_type, by_store):
        i = cuda.grid(1)
        if i < x.size:
            by_type[i] = it(x[i])   # np.int8(x) etc.
            by_store[i] = x[i]      # implicit conversion on the store
    return conv


@pytest.mark.parametrize("ft", FLOAT_TYPES, ids=lambda t: t.__name__)
@pytest.mark.parametrize("it", INT_TYPES, ids=lambda t: t.__name__)
def test_float_to_int_saturates(rng, ft, it):
    x = float_inputs(rng, ft)
    want = np.array([saturate(float(v), it) for v in x], dtype=it)
    by_type = poisoned(x.size, it)
    by_store = poisoned(x.size, it)
    make_converters(it)[(x.size + 127) // 128, 128](x, by_type, by_store)
    bad = np.nonzero(by_type != want)[0]
    assert bad.size == 0, [(x[k], by_type[k], want[k]) for k in bad[:8]]
    bad = np.nonzero(by_store != want)[0]
    assert bad.size == 0, [(x[k], by_store[k], want[k]) for k in bad[:8]]


@cuda.jit
def builtin_conversions(x, as_int, fl, ce, tr, rd, flag):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        as_int[i] = int(v)
        fl[i] = math.floor(v)
        ce[i] = math.ceil(v)
        tr[i] = math.trunc(v)
        rd[i] = round(v)
        # A bool made from a converted value is exactly 0 or 1.
        flag[i] = np.bool_(int(v))


@pytest.mark.parametrize("ft", FLOAT_TYPES, ids=lambda t: t.__name__)
def test_builtin_float_to_int(rng, ft):
    x = float_inputs(rng, ft)
    outs = [poisoned(x.size, np.int64) for _ in range(5)]
    flag = np.full(x.size, 7, np.uint8).view(np.bool_)
    builtin_conversions[(x.size + 127) // 128, 128](x, *outs, flag)
    xs = [float(v) for v in x]

    def rounded(v, fn):
        return v if not math.isfinite(v) else float(fn(v))

    wants = [[saturate(v, np.int64) for v in xs],
             [saturate(rounded(v, math.floor), np.int64) for v in xs],
             [saturate(rounded(v, math.ceil), np.int64) for v in xs],
             [saturate(v, np.int64) for v in xs],
             [saturate(rounded(v, round), np.int64) for v in xs]]
    for name, got, want in zip(["int", "floor", "ceil", "trunc", "round"], outs, wants):
        want = np.array(want, np.int64)
        bad = np.nonzero(got != want)[0]
        assert bad.size == 0, (name, [(x[k], got[k], want[k]) for k in bad[:8]])
    raw = flag.view(np.uint8)
    np.testing.assert_array_equal(raw, (np.array(wants[0]) != 0).astype(np.uint8))


@cuda.jit
def constant_conversions(out):
    out[0] = np.int8(300.5)
    out[1] = np.uint8(-3.0)
    out[2] = np.int32(1e20)
    out[3] = np.int64(-1e300)
    out[4] = int(math.nan)
    out[5] = np.uint64(math.inf)
    out[6] = np.int16(-40000.0)


def test_constant_float_to_int_saturates():
    # Constants fold at compile time: the same definition applies.
    out = poisoned(7, np.int64)
    constant_conversions[1, 1](out)
    np.testing.assert_array_equal(out, [127, 0, 2**31 - 1, -2**63, 0, -1, -32768])


def test_float_of_a_constant_string():
    # float("nan") & co. as CPython parses them (numba-cuda's kernels use them)
    @cuda.jit
    def k(out):
        out[0] = float("nan")
        out[1] = float(" -Inf ")
        out[2] = float("infinity")
        out[3] = float("1_0.5e1")
        out[4] = float("+.25")
        out[5] = float("-NaN")

    out = poisoned(6, np.float64)
    out[0] = 0.0
    out[5] = 0.0
    k[1, 1](out)
    want = [float("nan"), float(" -Inf "), float("infinity"), float("1_0.5e1"),
            float("+.25"), float("-NaN")]
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("text", ["abc", "1__0", "0x10", "", "1e", "_1"])
def test_float_of_a_bad_string_is_a_typing_error(text):
    @cuda.jit
    def k(out):
        out[0] = float(text)

    with pytest.raises(errors.TypingError, match="could not convert string to float"):
        k[1, 1](np.zeros(1))
