"""Integer widths, float16, complex numbers."""
import cmath

from harness import case


@case("i1", "i1", where=lambda a, b: -128 <= a * 2 + b <= 127 and -128 <= a * 2 <= 127)
def int8_ops(a, b):
    # int8 * 2 stays int8 (NEP 50); inputs avoid overflow, where NumPy-style
    # wrap-around and Python's unbounded ints differ.
    return a * 2 + b


@case("i2", "u1")
def int16_uint8(a, b):
    return a - b


@case("u8", "u8", where=lambda a, b: b != 0)
def uint64_div(a, b):
    return (a // b, a % b)


@case("f2", "f2")
def float16_arith(a, b):
    return a * b + a - b


@case("f2")
def float16_to_f32(a):
    return float(a) * 0.5


@case("c16", "c16")
def complex_arith(a, b):
    return a * b + a - b * 2


@case("c16", "c16", where=lambda a, b: b != 0)
def complex_div(a, b):
    return a / b


@case("c16")
def complex_parts(z):
    return (z.real, z.imag, abs(z), z.conjugate().imag)


@case("f8", "f8")
def complex_ctor(re, im):
    z = complex(re, im)
    return z * 1j


@case("c16")
def complex_pow(z):
    return z ** 2 + z ** 3


@case("c16", "c16")
def complex_compare(a, b):
    return (a == b, a != b, not a)


@case("c16", where=lambda z: abs(z) < 5)
def cmath_exp_log(z):
    return cmath.exp(z) + (cmath.log(z) if z != 0 else 0j)


@case("c16")
def cmath_sqrt(z):
    return cmath.sqrt(z)


@case("c16", where=lambda z: abs(z) < 5)
def cmath_trig(z):
    return (cmath.sin(z), cmath.cos(z), cmath.sinh(z), cmath.cosh(z))


@case("c16", where=lambda z: abs(z) < 3)
def cmath_tan(z):
    return (cmath.tan(z), cmath.tanh(z))


@case("c16")
def cmath_polar(z):
    r, phi = cmath.polar(z)
    return (r, phi, cmath.phase(z))


@case("f8", "f8", where=lambda r, p: abs(p) < 10)
def cmath_rect(r, phi):
    return cmath.rect(r, phi)


@case("c8", "c8")
def complex64_mul(a, b):
    return a * b


@case("f8", "c16")
def mixed_float_complex(x, z):
    return x * z + x


@case("i8")
def mandelbrot_escape(n):
    c = complex(-0.75 + 0.01 * n, 0.1)
    z = 0j
    for i in range(100):
        z = z * z + c
        if abs(z) > 2.0:
            return i
    return 100
