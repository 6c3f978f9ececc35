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
