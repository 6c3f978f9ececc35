"""Random scalar kernels: the program tree, its Python source, and its
reference evaluation.

A program reads one row of typed inputs (one 2-D input array per dtype,
`in_int8[i, k]`), computes with every operator, builtins, math functions,
casts, ternaries, if/else and bounded loops, and stores results into one
2-D output array per dtype (`out_float32[i, k]`).  Thread i handles row i.

Every expression node knows its static type (dtype, weak, literal) and two
flags the generator keeps invariant:
  exact  the value is bit-exact on every target; inexact values (math
         transcendental functions, complex products...) only flow into
         outputs through `-`, `*` and `/` by exact values, never into a
         comparison, a branch or an integer conversion;
  prod   a floating-point product: never an operand of + or -, so FMA
         contraction cannot change an exact result (contraction is
         compared separately, by W7's tests).
"""
import numpy as np

from . import scalars as S
from .functions import ALL_FNS, EXACT, INEXACT, math_type
from .scalars import BOOL, I64, Val

# ---- nodes ------------------------------------------------------------------------------


class Expr:
    __slots__ = ("kind", "op", "args", "t", "weak", "lit", "exact", "prod", "fn")

    def __init__(self, kind, op, args, t, weak=False, lit=False, exact=True, prod=False, fn=None):
        self.kind, self.op, self.args = kind, op, args
        self.t, self.weak, self.lit, self.exact, self.prod, self.fn = t, weak, lit, exact, prod, fn

    def info(self):
        return Val(self.t, 0, self.weak, self.lit)

    def copy(self):
        return Expr(self.kind, self.op, list(self.args), self.t, self.weak, self.lit,
                    self.exact, self.prod, self.fn)


class Stmt:
    __slots__ = ("kind", "name", "op", "expr", "body", "orelse", "n")

    def __init__(self, kind, name=None, op=None, expr=None, body=None, orelse=None, n=0):
        self.kind, self.name, self.op, self.expr = kind, name, op, expr
        self.body, self.orelse, self.n = body, orelse, n


class VarInfo:
    __slots__ = ("t", "weak", "lit", "exact", "prod")

    def __init__(self, t, weak, lit, exact, prod):
        self.t, self.weak, self.lit, self.exact, self.prod = t, weak, lit, exact, prod


class Program:
    def __init__(self, inputs, body, outputs, variables):
        self.inputs = inputs        # dtype -> number of slots
        self.body = body            # statements
        self.outputs = outputs      # dtype -> number of slots
        self.vars = variables       # name -> VarInfo

    def copy(self):
        def cs(st):
            return Stmt(st.kind, st.name, st.op, st.expr,
                        [cs(s) for s in st.body] if st.body is not None else None,
                        [cs(s) for s in st.orelse] if st.orelse is not None else None, st.n)
        return Program(dict(self.inputs), [cs(s) for s in self.body], dict(self.outputs),
                       dict(self.vars))


def tname(t):
    return "bool_" if t.kind == "b" else t.name


# ---- static typing of a node -------------------------------------------------------------


def is_literal(e):
    """A constant once CPython has folded it (-3, 2 + 3, not True)."""
    if e.kind == "lit":
        return True
    if e.kind in ("un", "bin"):
        return all(is_literal(a) for a in e.args)
    return e.kind == "var" and e.lit


def folded(e):
    """For an expression of literals only (CPython folds it into one
    constant): True if the value is an int64, float or complex, False if
    it is an int outside int64; None for anything else."""
    def pure(x):
        return x.kind == "lit" or (x.kind in ("un", "bin") and all(pure(a) for a in x.args))
    if not pure(e):
        return None
    try:
        v = eval(expr_src(e), {})  # noqa: S307 - literals and operators only
    except (ArithmeticError, ValueError):
        return True  # not folded: CPython leaves the operation in the code
    if isinstance(v, int) != S.is_integral(e.t):
        return False  # 2 ** -1 folds into a float
    if isinstance(v, complex) and e.t.kind != "c":
        return False  # (-1.0) ** 1.5 folds into a complex
    return not isinstance(v, int) or -2 ** 63 <= v < 2 ** 63


def var_expr(name, vi):
    return Expr("var", name, [], vi.t, vi.weak, vi.lit, vi.exact, vi.prod)


def lit_expr(v):
    x = S.weak_literal(v)
    return Expr("lit", v, [], x.t, True, True)


def const_expr(t, v):
    """np.int8(5): a typed constant (a call in the kernel, not a literal)."""
    return Expr("conv", t, [lit_expr(v)], t)


def conv_expr(t, e):
    return Expr("conv", t, [e], t, exact=e.exact,
                prod=e.prod and e.t.kind in "fc" and t.kind in "fc")


def bin_expr(op, a, b):
    rt = S.binop_type(op, a.info(), b.info())
    if rt is None:
        return None
    t = rt[0]
    fl = t.kind in "fc"
    exact = a.exact and b.exact and not (t.kind == "c" and op in ("*", "/", "**")) \
        and not (fl and op == "**")
    prod = fl and (op == "*" or op == "**")
    return Expr("bin", op, [a, b], t, a.weak and b.weak, lit=a.lit and b.lit and a.kind != "var"
                and b.kind != "var", exact=exact, prod=prod)


def cmp_expr(ops, operands):
    for k, op in enumerate(ops):
        a, b = operands[k], operands[k + 1]
        t = S.promote(Val(a.t, 0, a.weak and a.lit), Val(b.t, 0, b.weak and b.lit))
        if t.kind == "c" and op not in ("==", "!="):
            return None
    return Expr("cmp", ops, operands, BOOL)


def unary_expr(op, a):
    if op == "not":  # CPython folds `not <constant>` into a constant
        return Expr("un", op, [a], BOOL, weak=is_literal(a), lit=is_literal(a))
    if a.t.kind == "b" or (op == "~" and not S.is_int(a.t)):
        return None
    return Expr("un", op, [a], a.t, a.weak, lit=is_literal(a) and a.kind != "var",
                exact=a.exact, prod=a.prod)


def unify(a, b):
    """The type a phi (ternary, and/or, if/else) gives two values."""
    if a.t == b.t:
        return a.t, a.weak and b.weak
    return S.promote(a.info(), b.info()), a.weak and b.weak


def ifexp_expr(c, a, b):
    t, weak = unify(a, b)
    return Expr("ifexp", None, [c, a, b], t, weak, prod=a.prod or b.prod)


def logic_expr(op, a, b):
    t, weak = unify(a, b)
    return Expr("logic", op, [a, b], t, weak, prod=a.prod or b.prod)


def call_expr(fn, args):
    t, weak = fn.typing([a.info() for a in args])
    return Expr("call", fn.name, args, t, weak, exact=fn.exact, prod=fn.prod and t.kind == "f", fn=fn)


# ---- source ------------------------------------------------------------------------------


def lit_src(v):
    if isinstance(v, bool):
        return repr(v)
    if isinstance(v, complex):
        return f"({v.real!r}{v.imag:+}j)" if v.real else f"{v.imag!r}j"
    s = repr(v)
    return f"({s})" if s.startswith("-") else s


def expr_src(e):
    k = e.kind
    if k == "var":
        return e.op
    if k == "lit":
        return lit_src(e.op)
    if k == "conv":
        return f"np.{tname(e.op)}({expr_src(e.args[0])})"
    if k == "bin":
        return f"({expr_src(e.args[0])} {e.op} {expr_src(e.args[1])})"
    if k == "un":
        sep = " " if e.op == "not" else ""
        return f"({e.op}{sep}{expr_src(e.args[0])})"
    if k == "cmp":
        parts = [expr_src(e.args[0])]
        for op, x in zip(e.op, e.args[1:]):
            parts += [op, expr_src(x)]
        return "(" + " ".join(parts) + ")"
    if k == "logic":
        return f"({expr_src(e.args[0])} {e.op} {expr_src(e.args[1])})"
    if k == "ifexp":
        c, a, b = e.args
        return f"({expr_src(a)} if {expr_src(c)} else {expr_src(b)})"
    if k == "call":
        return f"{e.op}({', '.join(expr_src(a) for a in e.args)})"
    if k == "elem":
        return f"in_{tname(e.op)}[i, {expr_src(e.args[0])}]"
    if k == "attr":
        base = expr_src(e.args[0])
        if e.args[0].kind == "lit" and not base.startswith("("):
            base = f"({base})"  # 127.real is a syntax error
        return f"{base}.{e.op}" + ("()" if e.op == "conjugate" else "")
    if k == "item":
        return f"divmod({expr_src(e.args[0])}, {expr_src(e.args[1])})[{e.op}]"
    raise AssertionError(k)


def source(prog, name="fuzz_kernel"):
    params = [f"in_{tname(t)}" for t in prog.inputs] + [f"out_{tname(t)}" for t in prog.outputs]
    first = params[0]
    lines = [f"def {name}({', '.join(params)}):",
             "    i = cuda.grid(1)",
             f"    if i < {first}.shape[0]:"]

    def emit(stmts, ind):
        pad = " " * ind
        if not stmts:
            lines.append(pad + "pass")
        for st in stmts:
            if st.kind == "assign":
                lines.append(f"{pad}{st.name} = {expr_src(st.expr)}")
            elif st.kind == "load":
                t, slot = st.expr
                lines.append(f"{pad}{st.name} = in_{tname(t)}[i, {slot}]")
            elif st.kind == "aug":
                lines.append(f"{pad}{st.name} {st.op}= {expr_src(st.expr)}")
            elif st.kind == "store":
                t, slot = st.name
                lines.append(f"{pad}out_{tname(t)}[i, {slot}] = {expr_src(st.expr)}")
            elif st.kind == "if":
                lines.append(f"{pad}if {expr_src(st.expr)}:")
                emit(st.body, ind + 4)
                if st.orelse:
                    lines.append(f"{pad}else:")
                    emit(st.orelse, ind + 4)
            elif st.kind == "for":
                lines.append(f"{pad}for {st.name} in range({st.n}):")
                emit(st.body, ind + 4)
            elif st.kind in ("break", "continue"):
                lines.append(pad + st.kind)
            else:
                raise AssertionError(st.kind)
    emit(prog.body, 8)
    return "\n".join(lines) + "\n"


# ---- reference evaluation ----------------------------------------------------------------


class Stop(Exception):
    """The reference cannot evaluate this row (a generator invariant broke)."""


class _Pow:
    """pow(a, n): the same as a ** n."""
    name = "pow"
    exact = True

    @staticmethod
    def evaluate(args, row):
        return S.binop("**", args[0], args[1], row)


POW = _Pow()


def evaluate_expr(e, env, row):
    v = _evaluate(e, env, row)
    if v.t != e.t:
        raise Stop(f"reference typed {expr_src(e)} as {v.t}, the generator as {e.t}")
    return Val(v.t, v.v, e.weak, e.lit)


def _evaluate(e, env, row):
    k = e.kind
    if k == "var":
        v = env[e.op]
        return Val(v.t, v.v, v.weak, e.lit)
    if k == "lit":
        return S.weak_literal(e.op)
    if k == "conv":
        x = evaluate_expr(e.args[0], env, row)
        return S.convert(Val(x.t, x.v), e.op, row, explicit=True) if not x.weak else \
            S.convert(x, e.op, row, explicit=True)
    if k == "bin":
        a = evaluate_expr(e.args[0], env, row)
        b = evaluate_expr(e.args[1], env, row)
        r = S.binop(e.op, a, b, row)
        if r is None:
            raise Stop(f"{e.op} of {a} and {b}")
        return r
    if k == "un":
        r = S.unary(e.op, evaluate_expr(e.args[0], env, row), row)
        if r is None:
            raise Stop(e.op)
        return r
    if k == "cmp":
        left = evaluate_expr(e.args[0], env, row)
        first_false = None
        for op, x in zip(e.op, e.args[1:]):
            right = evaluate_expr(x, env, row)
            r = S.compare(op, left, right, row)
            if r is None:
                raise Stop(op)
            if not r.v:
                if not env.get("$all_paths"):
                    return r
                first_false = first_false or r
            left = right
        return first_false or r
    if k == "logic":
        a = evaluate_expr(e.args[0], env, row)
        short = S.truth(a) if e.op == "or" else not S.truth(a)
        if env.get("$all_paths"):
            _untaken(e.args[1], env, row)
        pick = a if short else evaluate_expr(e.args[1], env, row)
        return _to_phi(pick, e, row)
    if k == "ifexp":
        c = evaluate_expr(e.args[0], env, row)
        if env.get("$all_paths"):
            _untaken(e.args[2 if S.truth(c) else 1], env, row)
        pick = evaluate_expr(e.args[1] if S.truth(c) else e.args[2], env, row)
        return _to_phi(pick, e, row)
    if k == "call":
        args = [evaluate_expr(a, env, row) for a in e.args]
        return e.fn.evaluate(args, row)
    if k == "elem":
        j = evaluate_expr(e.args[0], env, row).v
        return S.typed(e.op, env["$inputs"][e.op][env["$row"], j])
    if k == "attr":
        x = evaluate_expr(e.args[0], env, row)
        return S.attribute(e.op, x)
    if k == "item":  # divmod(a, b)[k]
        a = evaluate_expr(e.args[0], env, row)
        b = evaluate_expr(e.args[1], env, row)
        return S.binop("//" if e.op == 0 else "%", a, b, row)
    raise AssertionError(k)


def _untaken(e, env, row):
    """Evaluates e for its topics only (all_paths: an operand not taken)."""
    try:
        evaluate_expr(e, env, row)
    except Stop:
        pass


def _to_phi(v, e, row):
    """A value arriving at a phi of type e.t."""
    if v.t == e.t:
        return Val(v.t, v.v, e.weak)
    r = S.convert(v, e.t, row)
    return Val(e.t, r.v, e.weak)


def evaluate(prog, inputs, r, all_paths=False):
    """Outputs of row r: {(dtype, slot): Val}, and the row's topics.

    all_paths: also walk the branches and loop bodies row r does not take
    (each if both ways, each loop at least once): the topics of everything
    the compiler sees, for weak ints it rejects even in dead code; the
    outputs are then meaningless."""
    row = S.Row()
    env = {"$inputs": inputs, "$row": r, "$all_paths": all_paths}
    out = {}

    class Break(Exception):
        pass

    class Continue(Exception):
        pass

    def run(stmts):
        for st in stmts:
            if st.kind == "load":
                t, slot = st.expr
                env[st.name] = S.typed(t, inputs[t][r, slot])
            elif st.kind == "assign":
                v = evaluate_expr(st.expr, env, row)
                vi = prog.vars[st.name]
                env[st.name] = v if v.t == vi.t else Val(vi.t, S.convert(v, vi.t, row).v, vi.weak)
            elif st.kind == "aug":
                cur = env[st.name]
                vi = prog.vars[st.name]
                v = S.binop(st.op, Val(cur.t, cur.v, cur.weak, vi.lit),
                            evaluate_expr(st.expr, env, row), row)
                env[st.name] = v if v.t == vi.t else Val(vi.t, S.convert(v, vi.t, row).v, vi.weak)
            elif st.kind == "store":
                t, slot = st.name
                v = evaluate_expr(st.expr, env, row)
                out[(t, slot)] = S.convert(Val(v.t, v.v), t, row) if v.t != t else v
            elif st.kind == "if" and all_paths:
                evaluate_expr(st.expr, env, row)
                for arm in (st.body, st.orelse or []):
                    try:
                        run(arm)
                    except (Break, Continue):
                        pass
            elif st.kind == "if":
                c = evaluate_expr(st.expr, env, row)
                run(st.body if S.truth(c) else (st.orelse or []))
            elif st.kind == "for":
                for j in range(max(st.n, 1) if all_paths else st.n):
                    env[st.name] = Val(I64, j, True)
                    try:
                        run(st.body)
                    except Continue:
                        continue
                    except Break:
                        break
            elif st.kind == "break":
                raise Break
            elif st.kind == "continue":
                raise Continue
            else:
                raise AssertionError(st.kind)
    run(prog.body)
    return out, row.topics


# ---- generator ---------------------------------------------------------------------------

INT_POOL_EXTRA = [0, 1, -1, 2, 3, 5, 7, 8, 15, 16, 31, 32, 63, 64, 100, -100, 127, -128]


def input_pool(t, rng):
    """Interesting values of dtype t, edge cases first."""
    if t.kind == "b":
        return [False, True]
    if S.is_int(t):
        lo, hi = S.int_range(t)
        vals = {lo, lo + 1, hi, hi - 1, 0, 1, 2, 3, 7}
        if lo < 0:
            vals |= {-1, -2, -3, -7}
        for _ in range(8):
            vals.add(int(rng.integers(-40, 41)) if lo < 0 else int(rng.integers(0, 41)))
            bits = int(rng.integers(1, t.itemsize * 8))
            vals.add(int(rng.integers(lo >> (t.itemsize * 8 - bits), (hi >> (t.itemsize * 8 - bits)) + 1)))
        return sorted(v for v in vals if lo <= v <= hi)
    if t.kind == "f":
        fi = np.finfo(t)
        vals = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, -2.5, 2.5, 3.0, -3.0, 7.0, 0.1, -0.75,
                float("inf"), float("-inf"), float("nan"), float(fi.max), float(-fi.max),
                float(fi.tiny), float(fi.smallest_subnormal), 1e3, -65.5, 255.0, 256.0, 1024.5]
        if t.itemsize >= 4:
            vals += [2.0 ** 31, -2.0 ** 31, 2.0 ** 63, 1e10, -1e10, 3e38 if t.itemsize == 4 else 1e300]
        for _ in range(6):
            vals.append(float(rng.standard_normal() * 10.0 ** int(rng.integers(-3, 4))))
            vals.append(float(rng.integers(-300, 300)) / 4)
        return [float(t.type(v)) for v in vals]
    parts = input_pool(np.dtype(np.float32 if t.itemsize == 8 else np.float64), rng)
    finite = [p for p in parts if np.isfinite(p) and abs(p) < 1e6]
    return [complex(finite[k % len(finite)], finite[(k * 7 + 3) % len(finite)])
            for k in range(24)] + [complex(float("nan"), 0.0), complex(float("inf"), 1.0)]


class Generator:
    """One random program per seed (numpy Generator rng)."""

    def __init__(self, rng, max_depth=3, stmts=(4, 9)):
        self.rng = rng
        self.max_depth = max_depth
        self.stmts = stmts

    # -- helpers
    def chance(self, p):
        return self.rng.random() < p

    def pick(self, seq):
        return seq[int(self.rng.integers(len(seq)))]

    def literal_for(self, t):
        """A weak literal that fits dtype t (and stays small)."""
        rng = self.rng
        if t.kind == "b":
            return bool(rng.integers(2))
        if S.is_int(t):
            lo, hi = S.int_range(t)
            v = self.pick(INT_POOL_EXTRA + [int(rng.integers(-9, 10))])
            return max(lo, min(hi, v))
        if t.kind == "f":
            return self.pick([0.0, 1.0, -1.0, 0.5, 2.0, -2.5, 3.0, 0.1, 1e3, 255.0, 1.5, -0.0])
        return self.pick([1j, 2j, (1 + 1j), (-0.5 + 2j), (3 - 0.25j)])

    # -- expressions
    def leaf(self, want=None):
        """A variable (or literal) usable in exact expressions."""
        names = [n for n, vi in self.scope.items() if vi.exact and (want is None or vi.t == want)]
        if names and not self.chance(0.12):
            n = self.pick(names)
            return var_expr(n, self.scope[n])
        t = want if want is not None else self.pick(self.types)
        if self.chance(0.5) or t.kind == "b":
            return lit_expr(self.literal_for(t))
        return const_expr(t, self.literal_for(t))

    def expr(self, depth=0):
        """A random exact expression."""
        if depth >= self.max_depth or self.chance(0.18 + 0.12 * depth):
            return self.leaf()
        r = self.rng.random()
        for _ in range(12):
            e = None
            if r < 0.42:
                e = self.binary(depth)
            elif r < 0.52:
                e = self.comparison(depth)
            elif r < 0.60:
                op = self.pick(["-", "-", "+", "~", "~", "not"])
                e = unary_expr(op, self.expr(depth + 1))
            elif r < 0.68:
                e = self.conversion(depth)
            elif r < 0.84:
                e = self.call(depth)
            elif r < 0.87:
                e = self.special(depth)
            elif r < 0.94:
                a, b = self.expr(depth + 1), self.expr(depth + 1)
                b = self.match(b, a)
                e = ifexp_expr(self.cond(depth + 1), a, b)
            else:
                a = self.expr(depth + 1)
                b = self.match(self.expr(depth + 1), a)
                e = logic_expr(self.pick(["and", "or"]), a, b)
            if e is not None and self.ok(e):
                return e
            r = self.rng.random()
        return self.leaf()

    @staticmethod
    def ok(e):
        """May e be part of an exact expression?"""
        if not e.exact:
            return False
        # No product into + or -: FMA contraction would change the result.
        if e.kind == "bin" and e.op in ("+", "-") and e.t.kind in "fc":
            return not (e.args[0].prod or e.args[1].prod)
        # Nor into float // and % (their lowering adds and subtracts: see
        # test_contraction_stays_out_of_floor_division_and_modulo).
        if e.kind in ("bin", "item") and (e.kind == "item" or e.op in ("//", "%")) \
                and e.t.kind == "f" and (e.args[0].prod or e.args[1].prod):
            return False
        # A phi-free literal condition would be folded away by CPython.
        if e.kind == "logic" and is_literal(e.args[0]):
            return False
        # CPython folds constant expressions: keep them within int64.
        if e.kind in ("un", "bin") and folded(e) is False:
            return False
        return True

    def match(self, b, a):
        """b converted to a's type, so a phi of the two keeps one type."""
        if b.t == a.t and b.weak == a.weak:
            return b
        if a.weak:
            return b if b.weak and b.t == a.t else self.leaf_weak(a.t)
        return conv_expr(a.t, b) if self.convertible(b.t, a.t) else self.leaf(a.t)

    def leaf_weak(self, t):
        return lit_expr(self.literal_for(t))

    @staticmethod
    def convertible(f, t):
        return not (f.kind == "c" and t.kind != "c")

    def binary(self, depth):
        op = self.pick(["+", "-", "*", "//", "%", "/", "**", "<<", ">>", "&", "|", "^",
                        "+", "-", "*", "&", "//", "%"])
        a = self.expr(depth + 1)
        if op in ("<<", ">>"):
            if not S.is_integral(a.t) or a.t.kind == "b":
                a = conv_expr(self.pick(S.INTS), a) if self.convertible(a.t, I64) else self.leaf(I64)
            # the count: a small non-negative literal, or (x & mask)
            if self.chance(0.5):
                b = lit_expr(int(self.rng.integers(0, min(a.t.itemsize * 8 + 3, 70))))
            else:
                x = self.leaf(self.pick([t for t in S.INTS]))
                b = bin_expr("&", x, lit_expr(self.pick([7, 15, 31, 63])))
            if b is None:
                return None
            return bin_expr(op, a, b)
        if op == "**":
            if self.chance(0.7):
                b = lit_expr(int(self.rng.integers(-1 if S.is_int(a.t) else 0, 6)))
            else:
                b = self.expr(depth + 1)
                if S.is_int(b.t):
                    b = bin_expr("&", b, lit_expr(7))
                if b is None:
                    return None
            return bin_expr(op, a, b)
        if self.chance(0.3):
            b = lit_expr(self.literal_for(a.t)) if not a.weak else self.leaf()
        else:
            b = self.expr(depth + 1)
        if self.chance(0.5):
            a, b = b, a
        return bin_expr(op, a, b)

    def comparison(self, depth):
        n = 2 if self.chance(0.8) else 3
        xs = [self.expr(depth + 1) for _ in range(n)]
        if self.chance(0.3):
            xs[-1] = lit_expr(self.literal_for(xs[0].t)) if not xs[0].weak else xs[-1]
        ops = [self.pick(S.COMPARE) for _ in range(n - 1)]
        return cmp_expr(ops, xs)

    def cond(self, depth):
        if self.chance(0.6):
            c = self.comparison(depth)
            if c is not None and not is_literal(c.args[0]):
                return c
        for _ in range(5):
            c = self.expr(depth)
            if not is_literal(c):
                return c
        return self.leaf_var()

    def leaf_var(self):
        names = [n for n, vi in self.scope.items() if vi.exact and not vi.lit]
        n = self.pick(names)
        return var_expr(n, self.scope[n])

    def conversion(self, depth):
        a = self.expr(depth + 1)
        t = self.pick(S.ALL)
        if a.t.kind == "f" and S.is_int(t) and self.chance(0.5):
            t = self.pick(S.FLOATS)  # fewer rows with out-of-range conversions
        if not self.convertible(a.t, t):
            return None
        return conv_expr(t, a)

    def call(self, depth):
        fn = self.pick(EXACT)
        n = fn.arity if isinstance(fn.arity, int) else int(self.rng.integers(fn.arity[0], fn.arity[1] + 1))
        args = [self.expr(depth + 1) for _ in range(n)]
        if n > 1 and self.chance(0.3):
            args[1] = lit_expr(self.literal_for(args[0].t)) if not args[0].weak else args[1]
        if not fn.accepts([a.t for a in args]):
            return None
        return call_expr(fn, args)

    def special(self, depth):
        """x.real, x.imag, x.conjugate(), divmod(a, b)[k], pow(a, n)."""
        a = self.expr(depth + 1)
        r = self.rng.random()
        if r < 0.5:
            attr = self.pick(["real", "imag", "conjugate"])
            t, weak = S.attribute_type(attr, a.t, a.weak)
            return Expr("attr", attr, [a], t, weak, exact=a.exact, prod=a.prod and attr != "imag")
        if r < 0.8:
            b = self.match(self.expr(depth + 1), a) if self.chance(0.6) else lit_expr(self.literal_for(a.t))
            q = bin_expr("//", a, b)
            if q is None or not self.ok(q) or q.weak:
                return None  # divmod of Python numbers: see test_divmod_of_python_ints
            k = int(self.rng.integers(2))
            return Expr("item", k, [a, b], q.t, q.weak)
        e = bin_expr("**", a, lit_expr(int(self.rng.integers(0, 5))))
        if e is None:
            return None
        return Expr("call", "pow", [e.args[0], e.args[1]], e.t, e.weak, exact=e.exact,
                    prod=e.prod, fn=POW)

    def inexact(self):
        """A value compared within a tolerance: f(exact...) [* or / exact]."""
        r = self.rng.random()
        if r < 0.5:
            fn = self.pick(INEXACT)
            n = fn.arity
            args = [self.expr(1) for _ in range(n)]
            if not fn.accepts([a.t for a in args]):
                return None
            e = call_expr(fn, args)
        elif r < 0.8:
            cs = [n for n, vi in self.scope.items() if vi.t.kind == "c" and vi.exact]
            a = var_expr(cs[0], self.scope[cs[0]]) if cs and self.chance(0.7) else self.expr(1)
            b = self.expr(1)
            op = self.pick(["*", "/", "*", "**"])
            if op == "**":
                b = lit_expr(int(self.rng.integers(0, 4)))
            e = bin_expr(op, a, b)
            if e is None or e.exact:
                return None
        else:  # float ** float (libm pow: within an ulp; a complex exponent would
            # amplify rounding errors by its size)
            a, b = self.expr(1), self.expr(1)
            if a.t.kind != "f" or b.t.kind == "c" or self.chance(0.5):
                b = lit_expr(self.pick([0.5, 2.0, 3.0, -1.0, 1.5]))
            if a.t.kind != "f":
                return None
            e = bin_expr("**", a, b)
            if e is None or e.exact or folded(e) is False:  # (-1.0) ** 1.5 is complex
                return None
        if e.t.kind in "fc" and self.chance(0.4):
            f = bin_expr(self.pick(["*", "/"]), e, self.leaf())
            if f is not None and f.t.kind in "fc":
                f.exact = False
                e = f
        return e

    # -- statements
    def new_var(self, e, scope):
        name = f"v{self.counter}"
        self.counter += 1
        vi = VarInfo(e.t, e.weak, e.lit, e.exact, e.prod)
        self.vars[name] = vi
        scope[name] = vi
        return name

    def reassign(self, depth):
        """v = <expr of v's exact type> (or v op= e keeping v's type)."""
        names = [n for n, vi in self.scope.items() if not vi.weak and vi.exact and n in self.mutable]
        if not names:
            return None
        n = self.pick(names)
        vi = self.scope[n]
        if self.chance(0.5):
            op = self.pick(["+", "-", "*", "//", "%", "&", "|", "^", "+", "-"])
            e = self.expr(depth + 1)
            if self.chance(0.4):
                e = lit_expr(self.literal_for(vi.t))
            r = bin_expr(op, var_expr(n, vi), e)
            if r is None or r.t != vi.t or not self.ok(r) or (r.prod and not vi.prod):
                return None
            return Stmt("aug", n, op, e)
        e = self.expr(depth + 1)
        if e.t != vi.t or e.weak:
            if not self.convertible(e.t, vi.t):
                return None
            e = conv_expr(vi.t, e)
        if e.prod and not vi.prod:
            return None
        return Stmt("assign", n, expr=e)

    def block(self, depth, count):
        out = []
        for _ in range(count):
            r = self.rng.random()
            st = None
            if r < 0.42 or depth >= 2:
                if depth > 0 and self.chance(0.6):
                    st = self.reassign(depth)
                if st is None:
                    e = self.expr(0)
                    st = Stmt("assign", None, expr=e)
                    st.name = self.new_var(e, self.scope)
                    if depth == 0:
                        self.mutable.add(st.name)
            elif r < 0.62:
                st = self.reassign(depth)
            elif r < 0.82:
                saved = dict(self.scope)
                body = self.block(depth + 1, int(self.rng.integers(1, 4)))
                self.scope = dict(saved)
                orelse = self.block(depth + 1, int(self.rng.integers(1, 3))) if self.chance(0.6) else None
                self.scope = saved
                st = Stmt("if", expr=self.cond(0), body=body, orelse=orelse)
            elif r < 0.90 or depth > 0:
                saved = dict(self.scope)
                j = f"j{self.counter}"
                self.counter += 1
                self.scope[j] = VarInfo(I64, True, False, True, False)
                jump = Stmt("if", expr=self.cond(1), body=[Stmt(self.pick(["break", "continue"]))])
                body = self.block(depth + 1, int(self.rng.integers(1, 4)))
                if self.chance(0.3):  # if <cond>: break / continue (cond: the loop's entry scope)
                    body.insert(int(self.rng.integers(len(body) + 1)), jump)
                self.scope = saved
                st = Stmt("for", j, body=body, n=int(self.rng.integers(0, 4)))
            else:
                out.extend(self.accumulate())
            if st is not None:
                out.append(st)
        return out

    def accumulate(self):
        """acc = <literal>; for j in range(n): acc op= <value>

        The docs' weak accumulator: acc takes the type the loop gives it
        (acc = 0; acc += x[i] with x float32 makes acc float32)."""
        j = f"j{self.counter}"
        self.counter += 1
        t = self.pick(self.types)
        slots = self.n_inputs[t]
        if self.chance(0.5):  # the row's inputs: in_T[i, j]
            e = Expr("elem", t, [var_expr(j, VarInfo(I64, True, False, True, False))], t)
            n = slots
        else:
            saved = dict(self.scope)
            self.scope[j] = VarInfo(I64, True, False, True, False)
            e = self.expr(1)
            self.scope = saved
            n = int(self.rng.integers(0, 5))
        if e.weak or e.prod:
            return []
        lit = lit_expr(self.literal_for(e.t) if e.t.kind != "c" else self.pick([0, 1, 0.0, 1.5]))
        op = self.pick(["+", "-", "*", "+", "+"] + (["&", "|", "^"] if S.is_integral(e.t) else []))
        # The fixed point of acc's type: unify(literal, acc op e).
        t_acc, weak = lit.t, True
        for _ in range(4):
            r = S.binop_type(op, Val(t_acc, 0, weak), e.info())
            if r is None:
                return []
            nt = r[0] if r[0] == lit.t else S.promote(lit.info(), Val(r[0], 0, False))
            if nt == t_acc and not weak:
                break
            t_acc, weak = nt, False
        r = S.binop_type(op, Val(t_acc, 0, False), e.info())
        if r is None or r[0] != t_acc or (t_acc.kind in "fc" and op == "*"):
            return []
        acc = Expr("lit", lit.op, [], t_acc, True, True)
        name = self.new_var(acc, self.scope)
        vi = self.vars[name]
        vi.weak, vi.lit = False, False
        self.mutable.add(name)
        return [Stmt("assign", name, expr=lit),
                Stmt("for", j, body=[Stmt("aug", name, op, e)], n=n)]

    def program(self):
        rng = self.rng
        k = int(rng.integers(1, 5))
        weights = np.array([1.0 if t.kind != "c" else 0.5 for t in S.ALL])
        idx = rng.choice(len(S.ALL), size=k, replace=False, p=weights / weights.sum())
        self.types = [S.ALL[i] for i in sorted(idx)]
        self.counter = 0
        self.vars = {}
        self.scope = {}
        self.mutable = set()
        inputs = self.n_inputs = {}
        body = []
        for t in self.types:
            inputs[t] = int(rng.integers(1, 4))
            for slot in range(inputs[t]):
                name = f"a{self.counter}"
                self.counter += 1
                vi = VarInfo(t, False, False, True, False)
                self.vars[name] = vi
                self.scope[name] = vi
                self.mutable.add(name)
                body.append(Stmt("load", name, expr=(t, slot)))
        if self.chance(0.4):  # a weak variable (a Python number)
            v = self.literal_for(self.pick(self.types))
            e = lit_expr(v)
            name = self.new_var(e, self.scope)
            body.append(Stmt("assign", name, expr=e))
        body += self.block(0, int(rng.integers(*self.stmts)))
        # Outputs: every top-level variable (a sample), and a few inexact values.
        outputs = {}
        stores = []
        names = [n for n in self.scope if not n.startswith("a") or self.chance(0.2)]
        for n in names:
            vi = self.scope[n]
            slot = outputs.get(vi.t, 0)
            outputs[vi.t] = slot + 1
            stores.append(Stmt("store", (vi.t, slot), expr=var_expr(n, vi)))
        for _ in range(int(rng.integers(0, 3))):
            e = self.inexact()
            if e is None:
                continue
            slot = outputs.get(e.t, 0)
            outputs[e.t] = slot + 1
            stores.append(Stmt("store", (e.t, slot), expr=e))
        for _ in range(int(rng.integers(1, 3))):
            e = self.expr(0)
            slot = outputs.get(e.t, 0)
            outputs[e.t] = slot + 1
            stores.append(Stmt("store", (e.t, slot), expr=e))
        return Program(inputs, body + stores, outputs, self.vars)

    def inputs(self, prog, rows):
        """Input arrays: edge values and random ones, every row different."""
        arrays = {}
        for t, slots in prog.inputs.items():
            pool = input_pool(t, self.rng)
            a = np.empty((rows, slots), t)
            for s in range(slots):
                # Each column cycles through the pool at a different stride.
                start = int(self.rng.integers(len(pool)))
                step = int(self.rng.integers(1, len(pool))) if len(pool) > 1 else 1
                for r in range(rows):
                    a[r, s] = pool[(start + r * step) % len(pool)] if self.chance(0.8) \
                        else self.pick(pool)
            arrays[t] = a
        return arrays
