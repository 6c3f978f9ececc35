"""Arithmetic operators with Python semantics."""
from harness import case

nz = lambda a, b: b != 0  # noqa: E731


@case("i8", "i8")
def add_i(a, b):
    return a + b


@case("i8", "i8")
def sub_i(a, b):
    return a - b


@case("i8", "i8")
def mul_i(a, b):
    return a * b


@case("i8", "i8", where=nz)
def truediv_i(a, b):
    return a / b


@case("i8", "i8", where=nz)
def floordiv_i(a, b):
    return a // b


@case("i8", "i8", where=nz)
def mod_i(a, b):
    return a % b


@case("f8", "f8", where=nz)
def floordiv_f(a, b):
    return a // b


@case("f8", "f8", where=nz)
def mod_f(a, b):
    return a % b


@case("f8", "f8")
def add_f(a, b):
    return a + b


@case("f8", "f8", where=nz)
def div_f(a, b):
    return a / b


@case("f4", "f4")
def mul_f32(a, b):
    return a * b


@case("i8", inputs=[-5, -2, -1, 0, 1, 2, 3, 10, 1000])
def pow_const2(a):
    return a ** 2


@case("i8", inputs=[-5, -2, -1, 0, 1, 2, 3, 10])
def pow_const5(a):
    return a ** 5


@case("i8", "i8", inputs=[(2, 10), (3, 5), (-2, 3), (7, 0), (1, 40), (-1, 7), (0, 3), (5, 1)])
def pow_runtime(a, b):
    return a ** b


@case("f8", "f8", inputs=[(2.0, 10.0), (1.5, 2.5), (9.0, 0.5), (2.0, -1.0), (0.5, 3.0)])
def pow_float(a, b):
    return a ** b


@case("f8", inputs=[-2.0, -0.5, 0.0, 1.5, 3.0])
def pow_float_const(a):
    return a ** 3 + a ** 2.0


@case("i8", "i8", where=lambda a, b: 0 <= b < 64)
def lshift(a, b):
    return (a << b) if -1000 < a < 1000 and b < 40 else a


@case("i8", "i8", where=lambda a, b: 0 <= b < 64)
def rshift(a, b):
    return a >> b


@case("i8", "i8")
def bitwise(a, b):
    return (a & b) ^ (a | b) ^ (a & ~b)


@case("i8")
def unary(a):
    return -a + (+a) - ~a


@case("f8")
def unary_f(a):
    return -a * 2 + (+a)


@case("i8", "f8")
def mixed_int_float(a, b):
    return a * b + a - b


@case("b1", "b1")
def bool_arith(a, b):
    return a + b + a * 2


@case("b1", "b1")
def bool_bitwise(a, b):
    return (a & b, a | b, a ^ b)


@case("i8", "i8")
def augmented(a, b):
    x = a
    x += b
    x *= 3
    x -= a
    x //= 2
    x %= 1000
    x <<= 2
    x >>= 1
    x |= 5
    x &= 0xFFFF
    x ^= 3
    return x


@case("f8", "f8")
def augmented_f(a, b):
    x = a
    x += b
    x *= 0.5
    x -= 1.25
    x /= 4.0
    return x


@case("i8", "i8", where=nz)
def divmod_parts(a, b):
    return (a // b) * b + a % b


@case("i4", "i4")
def int32_arith(a, b):
    return a * 3 + b - 7


@case("i4")
def int32_plus_literal_stays_int32(a):
    # int32 + 1 stays int32 (NEP 50): 2**31 - 1 + 1 wraps in both.
    return (a + 1) * 2


@case("u4", "u4")
def uint32_arith(a, b):
    return (a + b) * 3


@case("i8", "i8", where=nz)
def neg_floor(a, b):
    return -a // b + -a % b


@case("f8", "f8", where=lambda a, b: b != 0)
def float_mod_signs(a, b):
    return (a % b, a // b, -a % b)


@case("i8", "i8")
def precedence(a, b):
    return a + b * 2 - (a - b) // 3 + a % 7 * b


@case("f8")
def literal_mix(a):
    return a * 2 + 1 - 0.5 * a / 4


@case("i8", "f8")
def int_times_float_literal(a, b):
    return a * 1.5 + b * 2


# ---- Python int constants: exact (folded at compile time), then converted ----

BIG = 2**100 + 12345
NEG_BIG = -(10**30) - 7


@case()
def big_int_to_float():
    return (10**100 * 1.0, float(2**64 + 1), (2**70 - 1) * 0.5, BIG + 0.0,
            float(NEG_BIG), float(2**53 + 1))


@case()
def big_int_expressions():
    # Exact intermediate values beyond 64 bits, results that fit.
    return (BIG // 2**90, BIG % 1000, (BIG >> 64) & 0xFFFF, -BIG // 3 % 1000,
            NEG_BIG % 97, (NEG_BIG | 0xFF) & 0xFFF, ~BIG % 10**9, 3**40 // 3**38,
            (1 << 100) >> 98, (2**64 - 1) ^ (2**64 - 2))


@case()
def big_int_compares():
    return (BIG > 2**63, NEG_BIG < -(2**63), 2**64 == 2**64 + 0, BIG != BIG - 1)


@case("i8", inputs=[0, 1, -5, 2**62, -(2**63)])
def int_vs_big_constants(a):
    # A comparison with a Python int outside int64 compares the values.
    return (a < 2**64, a > -(2**70), a == 2**63, a != BIG, a <= 2**63 - 1)
