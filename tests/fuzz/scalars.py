"""The reference semantics of kernel scalars, written from docs/language.md.

Every value is a `Val`: a NumPy dtype, whether it is *weak* (a Python
literal, or a value computed only from such values: NEP 50), whether it is
a *literal* in the compiled code (a constant the comparison rule treats as
weak), and the value itself: a Python int for bool and integer types (kept
in range), a NumPy scalar of the dtype for floats and complex numbers (so
IEEE arithmetic rounds exactly as the dtype does).

Where the docs leave a result open, or another workstream is changing it,
the evaluation records a *topic* on the `Row` being evaluated instead of
guessing; the fuzzer's comparison skips rows whose topics are listed as
open (see `topics.py`).
"""
import math
from fractions import Fraction

import numpy as np

BOOL = np.dtype(np.bool_)
INTS = [np.dtype(t) for t in (np.int8, np.int16, np.int32, np.int64,
                              np.uint8, np.uint16, np.uint32, np.uint64)]
FLOATS = [np.dtype(t) for t in (np.float16, np.float32, np.float64)]
COMPLEX = [np.dtype(t) for t in (np.complex64, np.complex128)]
ALL = [BOOL] + INTS + FLOATS + COMPLEX
I64, F64, C128 = np.dtype(np.int64), np.dtype(np.float64), np.dtype(np.complex128)

# Significand bits (with the hidden bit) and largest finite value per float.
_SIG = {np.dtype(np.float16): 11, np.dtype(np.float32): 24, np.dtype(np.float64): 53}


class Row:
    """Evaluation context of one input row: the topics it touched."""

    def __init__(self):
        self.topics = set()

    def note(self, topic):
        self.topics.add(topic)


class Val:
    __slots__ = ("t", "weak", "lit", "v")

    def __init__(self, t, v, weak=False, lit=False):
        self.t, self.v, self.weak, self.lit = t, v, weak, lit

    def __repr__(self):
        return f"Val({self.t}, {self.v!r}{', weak' if self.weak else ''})"


def kind(t):
    """Category order: bool < int < float < complex."""
    return {"b": 0, "i": 1, "u": 1, "f": 2, "c": 3}[t.kind]


def is_int(t):
    return t.kind in "iu"


def is_integral(t):
    return t.kind in "biu"


def int_range(t):
    if t.kind == "b":
        return 0, 1
    info = np.iinfo(t)
    return int(info.min), int(info.max)


def wrap(v, t):
    """A Python int reduced to integer type t (two's complement)."""
    if t.kind == "b":
        return int(v != 0)
    bits = t.itemsize * 8
    v &= (1 << bits) - 1
    if t.kind == "i" and v >= 1 << (bits - 1):
        v -= 1 << bits
    return v


def _round_int_to_float(v, t):
    """A Python int rounded once (nearest, ties to even) to float type t."""
    p = _SIG[t]
    a = abs(v)
    if a.bit_length() > p:
        shift = a.bit_length() - p
        q, r = divmod(a, 1 << shift)
        half = 1 << (shift - 1)
        if r > half or (r == half and q & 1):
            q += 1
        a = q << shift
    with np.errstate(over="ignore"):
        f = t.type(float(a)) if a < 2 ** 1024 else t.type(np.inf)
    return -f if v < 0 else f


# ---- promotion (docs/language.md "Promotion") ---------------------------------------

def promote_strong(a, b):
    """Two typed values promote like NumPy arrays of those dtypes."""
    return np.result_type(a, b)


def promote(a, b):
    """Result type of a binary operation on Vals a and b (NEP 50)."""
    if a.weak == b.weak:
        return promote_strong(a.t, b.t)
    w, s = (a, b) if a.weak else (b, a)
    if kind(w.t) <= kind(s.t):
        return s.t
    if w.t.kind == "f":  # strong bool/int
        return F64
    if w.t.kind == "c":
        if s.t.kind == "f":
            return np.dtype(np.complex64) if s.t.itemsize <= 4 else C128
        return C128
    return w.t  # weak int with strong bool


# ---- conversions ---------------------------------------------------------------------

def convert(x, t, row, explicit=False):
    """Val x converted to dtype t (a new strong Val).

    explicit: a conversion the program asked for (np.int8(x), int(x)):
    float -> int saturates, NaN -> 0 (the documented rule; topic
    'float-to-int' when it had to).  Conversions of weak ints that do not
    fit the integer type, implicit or explicit, are topic 'weak-int-range'
    (a compile error by the rules: runner.make() draws such programs
    again)."""
    f = x.t
    v = x.v
    if t.kind == "b":
        return Val(t, int(bool(v != 0)))
    if is_integral(t):
        if is_integral(f):
            if x.weak:  # explicit too: np.uint8(-1) is an error (NumPy 2)
                lo, hi = int_range(t)
                if not lo <= v <= hi:
                    row.note("weak-int-range")
            return Val(t, wrap(v, t))
        if f.kind == "c":
            raise TypeError("complex -> int")
        fv = float(v)
        lo, hi = int_range(t)
        if math.isnan(fv):
            row.note("float-to-int")
            return Val(t, 0)
        tv = math.trunc(fv) if math.isfinite(fv) else (hi + 1 if fv > 0 else lo - 1)
        if not lo <= tv <= hi:
            row.note("float-to-int")
            tv = max(lo, min(hi, tv))
        return Val(t, tv)
    if t.kind == "f":
        if is_integral(f):
            return Val(t, _round_int_to_float(v, t))
        if f.kind == "c":
            raise TypeError("complex -> float")
        with np.errstate(all="ignore"):
            return Val(t, t.type(v))
    # complex
    with np.errstate(all="ignore"):
        if is_integral(f):
            half = np.dtype(np.float32) if t.itemsize == 8 else F64
            return Val(t, t.type(complex(float(_round_int_to_float(v, half)), 0.0)))
        if f.kind == "f":
            re = t.type(0).real.dtype.type(v)
            return Val(t, t.type(complex(float(re), 0.0)))
        return Val(t, t.type(v))


def weak_literal(pyval):
    """A Python literal as a weak Val (a constant in the kernel)."""
    if isinstance(pyval, bool):
        return Val(BOOL, int(pyval), weak=True, lit=True)
    if isinstance(pyval, int):
        return Val(I64, pyval, weak=True, lit=True)
    if isinstance(pyval, float):
        return Val(F64, np.float64(pyval), weak=True, lit=True)
    return Val(C128, np.complex128(pyval), weak=True, lit=True)


def typed(t, pyval):
    """A strong value of dtype t (an input element, np.int8(3))."""
    if is_integral(t):
        return Val(t, wrap(int(pyval), t))
    return Val(t, t.type(pyval))


# ---- arithmetic ----------------------------------------------------------------------

ARITH = ("+", "-", "*", "/", "//", "%", "**")
BITWISE = ("<<", ">>", "&", "|", "^")
COMPARE = ("<", "<=", "==", "!=", ">", ">=")


def binop_type(op, a, b):
    """(result dtype, operand dtype) of `a op b`, or None where the
    operation is not in the kernel language (or the docs leave it open:
    arithmetic on two bools, shifts of bools)."""
    t = promote(a, b)
    if op in BITWISE:
        if not is_integral(t) or (t.kind == "b" and op in ("<<", ">>")):
            return None
        return t, t
    if op == "/":
        if t.kind == "b":
            return None
        return (F64 if is_int(t) else t), (F64 if is_int(t) else t)
    if t.kind == "b":
        return None
    if op in ("//", "%") and t.kind == "c":
        return None
    return t, t


def _int_floordiv(x, y, t):
    if y == 0:
        return 0
    return wrap(x // y, t)


def _int_mod(x, y, t):
    if y == 0:
        return 0
    return wrap(x % y, t)


def _int_pow(x, e, t):
    if e < 0:
        if x == 1:
            return 1
        if x == -1:
            return -1 if e & 1 else 1
        return 0
    return wrap(pow(x, e, 1 << (t.itemsize * 8)), t)


def _pow_leaves_int64(x, e):
    """Whether x ** e (e >= 0) is outside int64, without computing a huge power."""
    if x in (0, 1, -1) or e == 0:
        return False
    if e >= 64:
        return True
    return not -2 ** 63 <= x ** e < 2 ** 63


def _shift(op, x, n, t):
    bits = t.itemsize * 8
    if op == "<<":
        return 0 if n >= bits else wrap(x << n, t)
    if n >= bits:
        return -1 if x < 0 else 0
    return x >> n


def _float_divmod(x, y, t):
    """NumPy's floor_divide / remainder for float type t (CPython's
    float_divmod algorithm, the dtype's rounding at each step)."""
    T = t.type
    if t.itemsize == 2:  # NumPy computes float16 divmod in float32
        q, m = _float_divmod(np.float32(x), np.float32(y), np.dtype(np.float32))
        return T(q), T(m)
    zero = T(0)
    mod = np.fmod(x, y)
    if y == 0:
        return x / y, mod
    div = (x - mod) / y
    if mod != 0:
        if (y < 0) != (mod < 0):
            mod = mod + y
            div = div - T(1)
    else:
        mod = np.copysign(zero, y)
    if div != 0:
        fl = np.floor(div)
        if div - fl > T(0.5):
            fl = fl + T(1)
        return fl, mod
    return np.copysign(zero, x / y), mod


def binop(op, a, b, row):
    """Val of `a op b` (None if not in the language)."""
    rt = binop_type(op, a, b)
    if rt is None:
        return None
    t, ot = rt
    weak = a.weak and b.weak
    x, y = convert(a, ot, row), convert(b, ot, row)
    x, y = x.v, y.v
    if is_integral(ot):
        if op == "+":
            r = x + y
        elif op == "-":
            r = x - y
        elif op == "*":
            r = x * y
        elif op == "//":
            return Val(t, _int_floordiv(x, y, t), weak)
        elif op == "%":
            return Val(t, _int_mod(x, y, t), weak)
        elif op == "**":
            # Two Python ints the compiler may know as constants: their
            # exact power (docs/language.md), when it leaves int64 the
            # program is redrawn (as for + - * below).
            if weak and y >= 0 and _pow_leaves_int64(x, y):
                row.note("weak-int-range")
            return Val(t, _int_pow(x, y, t), weak)
        elif op in ("<<", ">>"):
            if y < 0:
                return None
            if weak and op == "<<" and x != 0 and (y >= 64 or not -2 ** 63 <= x << y < 2 ** 63):
                row.note("weak-int-range")
            return Val(t, _shift(op, x, y, t), weak)
        elif op == "&":
            r = x & y
        elif op == "|":
            r = x | y
        elif op == "^":
            r = x ^ y
        else:
            raise AssertionError(op)
        if weak and not (-2 ** 63 <= r < 2 ** 63):
            row.note("weak-int-range")
        return Val(t, wrap(r, t), weak)
    with np.errstate(all="ignore"):
        if op == "+":
            r = x + y
        elif op == "-":
            r = x - y
        elif op == "*":
            r = x * y
        elif op == "/":
            r = x / y
        elif op in ("//", "%"):
            q, m = _float_divmod(x, y, t)
            if op == "//" and y == 0:
                row.note("float-floordiv-zero")
            r = q if op == "//" else m
        elif op == "**":
            r = x ** y
        else:
            raise AssertionError(op)
        if t.kind == "c" and op in ("*", "/", "**") and not (
                np.isfinite(x) and np.isfinite(y) and np.isfinite(r) and y != 0):
            row.note("complex-nonfinite")
    return Val(t, t.type(r), weak)


def compare(op, a, b, row):
    """Val (bool) of `a op b`.  A weak operand that is not a literal
    compares at full width: it is promoted like a typed value."""
    wa, wb = a.weak and a.lit, b.weak and b.lit
    t = promote(Val(a.t, a.v, wa), Val(b.t, b.v, wb))
    if t.kind == "c" and op not in ("==", "!="):
        return None
    x, y = convert(Val(a.t, a.v, wa), t, row).v, convert(Val(b.t, b.v, wb), t, row).v
    with np.errstate(all="ignore"):
        r = {"<": x < y, "<=": x <= y, "==": x == y, "!=": x != y,
             ">": x > y, ">=": x >= y}[op]
    return Val(BOOL, int(bool(r)))


def truth(a):
    return bool(a.v != 0)


def unary(op, a, row):
    t = a.t
    if op == "not":
        return Val(BOOL, int(not truth(a)))
    if op == "+":
        if t.kind == "b":
            return None
        return Val(t, a.v, a.weak)
    if op == "-":
        if t.kind == "b":
            return None
        if is_int(t):
            return Val(t, wrap(-a.v, t), a.weak)
        return Val(t, -a.v, a.weak)
    if op == "~":
        if not is_int(t):
            return None
        return Val(t, wrap(~a.v, t), a.weak)
    raise AssertionError(op)


def attribute_type(attr, t, weak):
    """x.real / x.imag / x.conjugate(): the real part type of a complex
    number; ints (bool as int64) and floats keep their type."""
    if t.kind == "c":
        return (np.dtype(np.float32) if t.itemsize == 8 else F64) if attr != "conjugate" else t, weak
    return (I64 if t.kind == "b" else t), weak


def attribute(attr, x):
    t, weak = attribute_type(attr, x.t, x.weak)
    if x.t.kind == "c":
        v = {"real": x.v.real, "imag": x.v.imag, "conjugate": np.conjugate(x.v)}[attr]
        return Val(t, t.type(v), weak)
    if attr == "imag":
        return Val(t, 0 if is_integral(t) else t.type(0), weak)
    return Val(t, x.v, weak)


# ---- equality of results -------------------------------------------------------------

def float_bits(x):
    x = np.asarray(x)
    return int(x.view({2: np.uint16, 4: np.uint32, 8: np.uint64}[x.dtype.itemsize]))


def same_float(x, y):
    """Bitwise equality, except that every NaN equals every NaN."""
    if np.isnan(x) and np.isnan(y):
        return True
    return float_bits(x) == float_bits(y)


def ulps_apart(x, y):
    """Distance in units in the last place between two floats of one type."""
    if np.isnan(x) or np.isnan(y):
        return 0 if np.isnan(x) and np.isnan(y) else float("inf")
    if x == y:
        return 0

    def ordinal(v):
        b = float_bits(v)
        bits = np.asarray(v).dtype.itemsize * 8
        sign = 1 << (bits - 1)
        return -(b & (sign - 1)) if b & sign else b
    return abs(ordinal(x) - ordinal(y))


def close(x, y, t, ulps, rel):
    """Floats / complex numbers equal within `ulps` or relative `rel`."""
    if t.kind == "c":
        return (close(x.real, y.real, np.dtype(type(x.real)), ulps, rel)
                and close(x.imag, y.imag, np.dtype(type(x.imag)), ulps, rel)) or \
            (np.isfinite(x) and np.isfinite(y) and
             abs(complex(x) - complex(y)) <= rel * max(abs(complex(x)), abs(complex(y))))
    if ulps_apart(x, y) <= ulps:
        return True
    if not (np.isfinite(x) and np.isfinite(y)):
        return False
    return abs(Fraction(float(x)) - Fraction(float(y))) <= Fraction(rel) * max(abs(Fraction(float(x))), abs(Fraction(float(y))))
