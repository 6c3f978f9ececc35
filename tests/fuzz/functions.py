"""The builtins and math functions the fuzzer calls, each with its typing
(as docs/language.md states it) and its reference evaluation.

A row: name -> Fn(arity, accepts, typing, evaluate, exact, prod).
  accepts(types)   -> may the function take arguments of these dtypes?
  typing(args)     -> (dtype, weak) of the result from the arguments' Vals
  evaluate(args, row) -> the result Val
  exact: the result is bit-exact on every target (else compared within a
         tolerance, and never fed into anything discontinuous);
  prod:  the result is a floating-point product (FMA contraction would
         fuse it into an addition).
"""
import math

import numpy as np

from . import scalars as S
from .scalars import BOOL, F64, I64, Val


class Fn:
    def __init__(self, name, arity, accepts, typing, evaluate, exact=True, prod=False):
        self.name, self.arity, self.accepts = name, arity, accepts
        self.typing, self.evaluate, self.exact, self.prod = typing, evaluate, exact, prod


F32 = np.dtype(np.float32)


def real(t):
    return t.kind != "c"


def math_type(args):
    """math/numpy float functions: float16/float32 arguments compute in
    float32, ints, bools and float64 in float64; weak if all are weak."""
    strong = [a for a in args if not a.weak]
    single = bool(strong) and all(a.t.kind == "f" and a.t.itemsize <= 4 for a in strong)
    return (F32 if single else F64), all(a.weak for a in args)


def _as(args, t, row):
    return [S.convert(a, t, row).v for a in args]


def _py_minmax(is_max):
    def typing(args):
        acc = args[0]
        for a in args[1:]:
            t = S.promote(acc, a)
            acc = Val(t, 0, acc.weak and a.weak)
        return acc.t, acc.weak

    def evaluate(args, row):
        t, weak = typing(args)
        vals = _as(args, t, row)
        best = vals[0]
        for v in vals[1:]:
            with np.errstate(invalid="ignore"):
                if (v > best) if is_max else (v < best):
                    best = v
        return Val(t, best, weak)
    return typing, evaluate


def _np_minmax(which):
    # which: minimum, maximum (NaN wins), fmin, fmax (NaN loses)
    def typing(args):
        return S.promote(args[0], args[1]), args[0].weak and args[1].weak

    def evaluate(args, row):
        t, weak = typing(args)
        x, y = _as(args, t, row)
        if t.kind == "f" and x == 0 and y == 0 and np.signbit(x) != np.signbit(y):
            row.note("zero-sign-minmax")
        with np.errstate(invalid="ignore"):
            r = getattr(np, which)(t.type(x), t.type(y)) if t.kind == "f" else \
                (max(x, y) if which in ("maximum", "fmax") else min(x, y))
        return Val(t, r, weak)
    return typing, evaluate


def _abs_eval(args, row):
    a = args[0]
    if S.is_int(a.t):
        return Val(a.t, S.wrap(abs(a.v), a.t), a.weak)
    return Val(a.t, abs(a.v), a.weak)


def _conv(t, weak=True):
    def typing(args):
        return t, weak

    def evaluate(args, row):
        v = S.convert(args[0], t, row, explicit=True)
        return Val(t, v.v, weak)
    return typing, evaluate


def _round_typing(args):
    a = args[0]
    if a.t.kind == "f":
        return I64, a.weak
    return (I64 if a.t.kind == "b" else a.t), a.weak


def _rounding(fn):
    """math.floor/ceil/trunc and round(): floats give int64 (saturating)."""
    def evaluate(args, row):
        a = args[0]
        t, weak = _round_typing(args)
        if a.t.kind != "f":
            return Val(t, S.wrap(a.v, t), weak)
        x = float(a.v)
        if math.isfinite(x):
            x = float(fn(x))
        v = S.convert(Val(np.dtype(np.float64), np.float64(x)), I64, row, explicit=True)
        return Val(t, v.v, weak)
    return evaluate


def _math1(fn):
    def evaluate(args, row):
        t, weak = math_type(args)
        (x,) = _as(args, t, row)
        with np.errstate(all="ignore"):
            return Val(t, t.type(fn(t.type(x))), weak)
    return evaluate


def _math2(fn):
    def evaluate(args, row):
        t, weak = math_type(args)
        x, y = _as(args, t, row)
        with np.errstate(all="ignore"):
            return Val(t, t.type(fn(t.type(x), t.type(y))), weak)
    return evaluate


def _copysign(args, row):
    """math.copysign: a NaN's sign bit is unspecified (IEEE 754; x86's
    0.0/0.0 is negative, the GPU's and LLVM's folding positive), so a NaN
    sign source is topic 'nan-sign'."""
    t, _weak = math_type(args)
    if np.isnan(_as(args, t, row)[1]):
        row.note("nan-sign")
    return _math2(np.copysign)(args, row)


def _inexact1(fn):
    """Transcendental functions: evaluated in float64 (float32 arguments
    too) and rounded; the kernel's libm/libdevice is within a few ulps."""
    def evaluate(args, row):
        t, weak = math_type(args)
        (x,) = _as(args, t, row)
        with np.errstate(all="ignore"):
            return Val(t, t.type(fn(np.float64(x))), weak)
    return evaluate


def _inexact2(fn):
    def evaluate(args, row):
        t, weak = math_type(args)
        x, y = _as(args, t, row)
        with np.errstate(all="ignore"):
            return Val(t, t.type(fn(np.float64(x), np.float64(y))), weak)
    return evaluate


def _classify(fn):
    def evaluate(args, row):
        a = args[0]
        if a.t.kind != "f":
            return Val(BOOL, int(fn(0.0)))
        return Val(BOOL, int(bool(fn(a.v))))
    return evaluate


def _sign(args, row):
    a = args[0]
    if a.t.kind == "f":
        x = a.v
        r = x if np.isnan(x) else a.t.type(1 if x > 0 else (-1 if x < 0 else 0))
        return Val(a.t, r, a.weak)
    return Val(a.t, S.wrap((a.v > 0) - (a.v < 0), a.t), a.weak)


def _square(args, row):
    a = args[0]
    if S.is_int(a.t):
        return Val(a.t, S.wrap(a.v * a.v, a.t), a.weak)
    with np.errstate(all="ignore"):
        return Val(a.t, a.t.type(a.v * a.v), a.weak)


def _complex_abs(args, row):
    a = args[0]
    t = np.dtype(np.float32) if a.t.itemsize == 8 else F64
    with np.errstate(all="ignore"):
        return Val(t, t.type(np.hypot(np.float64(a.v.real), np.float64(a.v.imag))), a.weak)


def _same(args):
    return args[0].t, args[0].weak


def _all_real(ts):
    return all(real(t) for t in ts)


def _num(ts):  # non-bool, non-complex
    return all(t.kind in "iuf" for t in ts)


def _floats(ts):
    return all(t.kind == "f" for t in ts)


def _build():
    fns = []
    add = fns.append

    for name, is_max in (("min", False), ("max", True)):
        ty, ev = _py_minmax(is_max)
        add(Fn(name, (2, 3), _all_real, ty, ev))
    add(Fn("abs", 1, _num, _same, _abs_eval))
    add(Fn("int", 1, lambda ts: real(ts[0]) and ts[0] != np.dtype(np.uint64), *_conv(I64)))
    add(Fn("float", 1, _all_real, *_conv(F64)))
    add(Fn("bool", 1, lambda ts: True, *_conv(BOOL)))
    add(Fn("complex", 1, _all_real, *_conv(np.dtype(np.complex128))))
    add(Fn("round", 1, _all_real, _round_typing, _rounding(round)))
    for name, fn in (("floor", math.floor), ("ceil", math.ceil), ("trunc", math.trunc)):
        add(Fn("math." + name, 1, _all_real, _round_typing, _rounding(fn)))
    add(Fn("math.fabs", 1, _all_real, lambda a: math_type(a), _math1(np.fabs)))
    add(Fn("math.sqrt", 1, _all_real, lambda a: math_type(a), _math1(np.sqrt)))
    add(Fn("math.copysign", 2, _all_real, lambda a: math_type(a), _copysign))
    add(Fn("math.fmod", 2, _all_real, lambda a: math_type(a), _math2(np.fmod)))
    for name in ("floor", "ceil", "trunc", "rint"):
        add(Fn("np." + name, 1, _all_real, lambda a: math_type(a), _math1(getattr(np, name))))
    for name, fn in (("isnan", math.isnan), ("isinf", math.isinf), ("isfinite", math.isfinite)):
        add(Fn("math." + name, 1, _all_real, lambda a: (BOOL, False), _classify(fn)))
    for name in ("minimum", "maximum", "fmin", "fmax"):
        ty, ev = _np_minmax(name)
        add(Fn("np." + name, 2, _all_real, ty, ev))
    add(Fn("np.sign", 1, _num, _same, _sign))
    add(Fn("np.square", 1, _num, _same, _square, prod=True))
    # Compared within a tolerance.
    for name, fn in (("sin", np.sin), ("cos", np.cos), ("tan", np.tan), ("exp", np.exp),
                     ("log", np.log), ("log2", np.log2), ("atan", np.arctan),
                     ("tanh", np.tanh), ("cbrt", np.cbrt), ("expm1", np.expm1)):
        add(Fn("math." + name, 1, _all_real, lambda a: math_type(a), _inexact1(fn), exact=False))
    for name, fn in (("atan2", np.arctan2), ("hypot", np.hypot)):
        add(Fn("math." + name, 2, _all_real, lambda a: math_type(a), _inexact2(fn), exact=False))
    add(Fn("abs", 1, lambda ts: ts[0].kind == "c",
           lambda a: (np.dtype(np.float32) if a[0].t.itemsize == 8 else F64, a[0].weak),
           _complex_abs, exact=False))
    return fns



# abs appears twice: exact for real numbers, within a tolerance for complex.
ALL_FNS = _build()
EXACT = [f for f in ALL_FNS if f.exact]
INEXACT = [f for f in ALL_FNS if not f.exact]
