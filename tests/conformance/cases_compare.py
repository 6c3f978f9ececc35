"""Comparisons, boolean logic and value-producing and/or."""
from harness import case


@case("i8", "i8")
def compare_all(a, b):
    return (a < b, a <= b, a == b, a != b, a > b, a >= b)


@case("f8", "f8")
def compare_f(a, b):
    return (a < b, a <= b, a == b, a != b, a > b, a >= b)


@case("i8", "f8")
def compare_mixed(a, b):
    return (a < b, a == b, a >= b)


@case("i8", "i8", "i8")
def chained(a, b, c):
    return a < b < c


@case("i8", "i8", "i8")
def chained_long(a, b, c):
    return a <= b != c > a


@case("i8", "i8")
def and_or_values(a, b):
    return (a and b) + (a or b) * 2


@case("f8", "f8")
def or_default(a, b):
    return a or b


@case("i8", "i8")
def not_ops(a, b):
    return (not a, not (a and b), not a or b)


@case("b1", "b1")
def bool_logic(a, b):
    return (a and not b) or (b and not a)


@case("i8", "i8")
def truthiness(a, b):
    r = 0
    if a:
        r += 1
    if not b:
        r += 10
    if a and b:
        r += 100
    if a or b:
        r += 1000
    return r


@case("f8")
def float_truthiness(a):
    return 1 if a else 2


@case("u8", "i8")
def unsigned_vs_signed(a, b):
    return (a > 3, b < 2)
