"""Builtins and numeric conversions."""
from harness import case


@case("f8", where=lambda a: abs(a) < 1e9)
def int_of_float(a):
    return int(a)


@case("i8")
def float_of_int(a):
    return float(a) / 2


@case("i8", "f8")
def bool_of(a, b):
    return (bool(a), bool(b))


@case("i8", "i8")
def min_max_int(a, b):
    return (min(a, b), max(a, b), abs(a), abs(b - a))


@case("i8", "i8", "i8")
def min_max3(a, b, c):
    return min(a, b, c) * 100 + max(a, b, c)


@case("i8")
def abs_int(a):
    return abs(a) + abs(-a)


@case("f4")
def abs_f32(a):
    return abs(a)


@case("i8", "i8", where=lambda a, b: b != 0)
def divmod_int(a, b):
    return divmod(a, b)


@case("f8", "f8", where=lambda a, b: b != 0)
def divmod_float(a, b):
    q, r = divmod(a, b)
    return q * 10 + r


@case("i8", "i8", inputs=[(2, 10), (3, 4), (-2, 5), (7, 0), (-3, 3)])
def pow_builtin(a, b):
    return pow(a, b)


@case("i8", "i8", "i8", inputs=[(2, 10, 7), (3, 200, 13), (-2, 5, 9), (7, 0, 5), (5, 3, -7), (123456, 789, 1000003)])
def pow_modular(a, b, m):
    return pow(a, b, m)


@case("f8", inputs=[0.5, 1.5, 2.5, -0.5, -1.5, 2.4, 2.6, -2.6, 1e10 + 0.5])
def round_half_even(x):
    return round(x)


@case("f8", inputs=[1.234567, -2.5, 0.125, 1e-3, 123.456])
def round_ndigits(x):
    return (round(x, 2), round(x, 0), round(x, -1))


@case("i8", inputs=[1234, -1255, 15, 0])
def round_int(x):
    return (round(x), round(x, 1), round(x, -1), round(x, -2))
