"""The fuzzer's reference semantics checked against NumPy, Python and the
examples of docs/language.md (a wrong reference would hide bugs or invent
them).  No kernels run here."""
import itertools
import operator

import numpy as np
import pytest

from tests.fuzz import scalars as S
from tests.fuzz.program import Generator, evaluate, source
from tests.fuzz.runner import make
from tests.fuzz.scalars import Val

OPS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "//": np.floor_divide,
       "%": np.remainder, "&": operator.and_, "|": operator.or_, "^": operator.xor}


def strong(t, v):
    return S.typed(t, v)


def draw(rng, t):
    if S.is_int(t):
        lo, hi = S.int_range(t)
        return t.type(lo + int(rng.integers(0, 2 ** 62)) * 4 % (hi - lo + 1))
    return t.type(rng.uniform(-1e4, 1e4))


@pytest.mark.parametrize("op", sorted(OPS))
def test_typed_arithmetic_matches_numpy_arrays(op):
    # Two typed operands behave like NumPy arrays of their dtypes (ints
    # wrap, floor semantics, division by zero 0 for integers).
    rng = np.random.default_rng(sum(map(ord, op)))
    types = [t for t in S.INTS + S.FLOATS if not (op in "&|^" and t.kind == "f")]
    for ta, tb in itertools.product(types, repeat=2):
        rt = S.binop_type(op, Val(ta, 0), Val(tb, 0))
        if rt is None:
            continue
        for _ in range(20):
            a, b = draw(rng, ta), draw(rng, tb)
            if op in ("//", "%") and b == 0 and tb.kind == "f":
                continue  # x // 0.0 is W2's
            row = S.Row()
            got = S.binop(op, strong(ta, a), strong(tb, b), row)
            with np.errstate(all="ignore"):
                want = OPS[op](np.array([a], ta), np.array([b], tb))[0]
            assert got.t == np.asarray(want).dtype, (op, ta, tb)
            if got.t.kind == "f":
                assert S.same_float(got.v, want), (op, a, b, got.v, want)
            else:
                assert got.v == int(want), (op, a, b, got.v, want)


def test_weak_promotion_follows_the_docs_examples():
    f32, i32 = np.dtype(np.float32), np.dtype(np.int32)
    x, i = Val(f32, 1.0), Val(i32, 1)
    lit = S.weak_literal
    assert S.promote(x, lit(2.0)) == f32          # x * 2.0 stays float32
    assert S.promote(i, lit(1)) == i32            # i + 1 stays int32
    assert S.promote(x, lit(2)) == f32
    assert S.promote(i, lit(2.5)) == np.float64   # int32 * 2.5
    assert S.promote(x, lit(1j)) == np.complex64
    assert S.promote(lit(1), lit(2.5)) == np.float64
    assert S.binop_type("/", i, i)[0] == np.float64
    assert S.binop_type("/", x, lit(2))[0] == f32


def test_integer_rules_from_the_docs():
    i8, u8 = np.dtype(np.int8), np.dtype(np.uint8)
    row = S.Row()
    b = S.binop
    assert b("//", Val(i8, 7), Val(i8, 0), row).v == 0          # division by zero gives 0
    assert b("%", Val(i8, 7), Val(i8, 0), row).v == 0
    assert b("//", Val(i8, -128), Val(i8, -1), row).v == -128    # INT_MIN // -1 wraps
    assert b("//", Val(i8, -7), Val(i8, 2), row).v == -4         # floor
    assert b("%", Val(i8, -7), Val(i8, 2), row).v == 1           # divisor's sign
    assert b("<<", Val(u8, 1), Val(u8, 8), row).v == 0           # shift >= width
    assert b(">>", Val(i8, -5), Val(i8, 9), row).v == -1
    assert b("**", Val(i8, 2), Val(i8, -1), row).v == 0          # negative exponent
    assert b("**", Val(i8, -1), Val(i8, -3), row).v == -1
    assert b("+", Val(i8, 127), Val(i8, 1), row).v == -128       # wraps
    assert not row.topics


def test_out_of_range_conversions_are_noted():
    row = S.Row()
    v = S.convert(Val(np.dtype(np.float32), np.float32("inf")), np.dtype(np.int16), row, explicit=True)
    assert v.v == 32767 and "float-to-int" in row.topics
    row = S.Row()
    S.binop("+", Val(np.dtype(np.int8), 1), S.weak_literal(300), row)
    assert "weak-int-range" in row.topics


def test_generated_programs_evaluate_and_are_deterministic():
    for k in range(40):
        prog, inputs = make(99, k, rows=4)
        again, inputs2 = make(99, k, rows=4)
        assert source(prog, "k") == source(again, "k")
        for t in inputs:
            assert inputs[t].tobytes() == inputs2[t].tobytes()
        for r in range(4):
            out, _topics = evaluate(prog, inputs, r)
            assert set(out) == {st.name for st in prog.body if st.kind == "store"}


def test_generator_keeps_products_out_of_additions():
    # The exact family must be contraction-free: no float product feeds + or -.
    rng = np.random.default_rng(5)
    for _ in range(30):
        g = Generator(rng)
        g.program()
        for _ in range(50):
            e = g.expr(0)
            stack = [e]
            while stack:
                x = stack.pop()
                if x.kind == "bin" and x.op in "+-" and x.t.kind in "fc":
                    assert not (x.args[0].prod or x.args[1].prod)
                stack.extend(x.args)


def test_generated_programs_convert_no_out_of_range_python_int():
    # An out-of-range Python int is a compile error (docs/language.md, NEP
    # 50): make() draws again rather than emit one, so no row is skipped.
    from tests.fuzz.runner import weak_int_out_of_range
    redrawn = 0
    for k in range(60):
        prog, inputs = make(3, k, rows=4)
        assert not weak_int_out_of_range(prog, inputs)
        rng = np.random.default_rng([3, k])
        first = Generator(rng)
        p0 = first.program()
        redrawn += weak_int_out_of_range(p0, first.inputs(p0, 4))
    assert redrawn > 0  # the generator does emit them, make() redraws
