"""bfloat16 kernel arguments: a Python number passed to a bfloat16
parameter (explicit signature) arrives rounded once to nearest even, and
an ml_dtypes.bfloat16 scalar arrives exactly (numba-cuda types it as
bfloat16).  Checked bit for bit against a reference written here from the
format (a bfloat16 is the upper half of a float32) with exact rationals."""
import math
from fractions import Fraction

import numpy as np
import pytest

from pycuda_jit import cuda, types, float32
from pycuda_jit.cuda import bf16
from gpu_util import poisoned


def bf16_bits_exact(q):
    """A Python int or float -> bfloat16 bits, nearest even (NaN 0x7fff)."""
    if isinstance(q, float) and math.isnan(q):
        return 0x7FFF
    neg = q < 0 or (isinstance(q, float) and q == 0 and math.copysign(1, q) < 0)
    a = Fraction(abs(q)) if not (isinstance(q, float) and math.isinf(q)) else None
    sign = 0x8000 if neg else 0
    if a is None or a >= Fraction(2) ** 128 - Fraction(2) ** 119:  # past max + half ulp
        return sign | 0x7F80
    if a == 0:
        return sign
    # the bfloat16 neighbours below/above a: step 2**(e-7), subnormals 2**-133
    e = max(math.floor(math.log2(a)) if a >= Fraction(2) ** -126 else -126, -126)
    while Fraction(2) ** e > a:
        e -= 1
    while Fraction(2) ** (e + 1) <= a:
        e += 1
    e = max(e, -126)
    step = Fraction(2) ** (e - 7)
    n = math.floor(a / step)
    r = a - n * step
    if r > step / 2 or (r == step / 2 and n % 2 == 1):
        n += 1
    value = n * step
    bits = int(np.float32(float(value)).view(np.uint32)) >> 16
    return sign | bits


@cuda.jit(types.void(types.bfloat16, types.uint16[::1]))
def store_bits(x, out):
    out[0] = bf16.bfloat16_as_uint16(x)


def test_python_numbers_round_once_to_nearest_even(rng):
    # halfway points between bfloat16 neighbours, and one float64 ulp off
    base = rng.integers(0x0001, 0x7F7F, 300).astype(np.uint32)
    lo = (base << 16).view(np.float32).astype(np.float64)
    hi = ((base + 1) << 16).view(np.float32).astype(np.float64)
    mid = (lo + hi) / 2
    xs = list(mid) + list(np.nextafter(mid, 0)) + list(np.nextafter(mid, np.inf))
    xs += [0.0, -0.0, 1.0, -2.5, 3.3895313892515355e38, 3.3961775292304e38, 1e39, -1e39,
           math.inf, -math.inf, math.nan, 1e-40, 9.183549615799121e-41, 5e-324]
    ints = [0, 1, 257, 259, -259, (1 << 24) + 1, (1 << 53) + 1, (1 << 62) + (1 << 54) + 1,
            (1 << 63) - 1, -(1 << 63)]
    for x in [float(v) for v in xs] + ints:
        out = poisoned(1, np.uint16)
        store_bits[1, 1](x, out)
        assert int(out[0]) == bf16_bits_exact(x), (x, hex(out[0]), hex(bf16_bits_exact(x)))


@cuda.jit
def widen(x, out):
    out[0] = float32(x)


def test_ml_dtypes_scalars_arrive_exactly(rng):
    ml_dtypes = pytest.importorskip("ml_dtypes")
    bits = np.concatenate([rng.integers(0, 1 << 16, 200), [0x0001, 0x8000, 0x7F80, 0x7F7F]])
    for b in bits.astype(np.uint16):
        x = b.view(ml_dtypes.bfloat16)
        if np.isnan(x):
            continue
        out = poisoned(1, np.float32)
        widen[1, 1](x, out)
        assert out.view(np.uint32)[0] == int(b) << 16, hex(b)
    assert "bfloat16" in str(widen.signatures[0])
