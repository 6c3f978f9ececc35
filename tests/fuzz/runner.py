"""Compile, run and compare generated kernels; shrink a failure into a
small reproducer.

Kernel k of seed s is generated from numpy's default_rng([s, k]) alone, so
`python -m tests.fuzz --seed s --kernel k` rebuilds exactly that kernel.
"""
import linecache
import math
import warnings

import numpy as np

from . import scalars as S
from .program import Generator, Stop, Stmt, VarInfo, evaluate, expr_src, source, tname
from .topics import skipped

ROWS = 32
ULPS = 8  # tolerance of inexact results (libm / libdevice differ by a few ulps)


def _cuda():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from pycuda_jit import cuda
        cuda.backend()
    return cuda


class Failure:
    """What went wrong with one kernel."""

    def __init__(self, kind, detail, key=None, row=None, expected=None, got=None):
        self.kind = kind          # "mismatch", "compile", "error", "reference"
        self.detail = detail
        self.key, self.row, self.expected, self.got = key, row, expected, got

    def same_kind(self, other):
        return other is not None and self.kind == other.kind and (
            self.kind != "mismatch" or self.key == other.key)

    def __str__(self):
        if self.kind != "mismatch":
            return f"{self.kind}: {self.detail}"
        t, slot = self.key
        return (f"out_{tname(t)}[{self.row}, {slot}]: expected {self.expected!r}, "
                f"got {self.got!r} ({self.detail})")


def weak_int_out_of_range(prog, inputs):
    """Whether some row converts a Python int to a type it does not fit.

    docs/language.md makes that a compile error (NEP 50's "Python integer
    ... out of bounds"); the generator does not emit such programs, so every
    kernel it makes must compile and every row is compared."""
    rows = next(iter(inputs.values())).shape[0]
    for r in range(rows):
        for all_paths in (False, True):  # rejected in dead code too
            try:
                _out, topics = evaluate(prog, inputs, r, all_paths)
            except Stop:
                # test_one reports the reference's own failure on a path
                # taken; one on a path not taken is no finding
                if not all_paths:
                    return False
                continue
            if "weak-int-range" in topics:
                return True
    return False


def make(seed, index, rows=ROWS):
    """Kernel `index` of `seed` and its inputs: the first program drawn from
    default_rng([seed, index]) that converts no out-of-range Python int."""
    rng = np.random.default_rng([seed, index])
    while True:
        gen = Generator(rng)
        prog = gen.program()
        inputs = gen.inputs(prog, rows)
        if not weak_int_out_of_range(prog, inputs):
            return prog, inputs


def kernel_name(seed, index):
    return f"fuzz_s{seed}_k{index}"


def compile_source(prog, name):
    """The kernel function (a plain Python function) from the program."""
    src = source(prog, name)
    filename = f"<{name}>"
    # Registered with linecache so compile errors can show the source line.
    linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)
    cuda = _cuda()
    g = {"cuda": cuda, "np": np, "math": math}
    exec(compile(src, filename, "exec"), g)
    return g[name], src


def run(prog, inputs, name):
    """Run the kernel on the current backend: {dtype: output array} or a
    Failure."""
    cuda = _cuda()
    from pycuda_jit import errors
    fn, _src = compile_source(prog, name)
    rows = next(iter(inputs.values())).shape[0]
    outs = {}
    for t, n in prog.outputs.items():
        if t.kind == "f":
            outs[t] = np.full((rows, n), np.nan, t)
        elif t.kind == "c":
            outs[t] = np.full((rows, n), complex(np.nan, np.nan), t)
        elif t.kind == "b":
            outs[t] = np.zeros((rows, n), t)
        else:
            outs[t] = np.full((rows, n), np.iinfo(t).min + 7, t)
    args = [inputs[t] for t in prog.inputs] + [outs[t] for t in prog.outputs]
    try:
        cuda.jit(fn)[1, rows](*args)
    except errors.CompileError as e:
        return Failure("compile", f"{type(e).__name__}: {e}")
    except Exception as e:  # noqa: BLE001 - any other exception is a finding
        return Failure("error", f"{type(e).__name__}: {e}")
    return outs


def _same(exp, got, t, eps):
    """eps None: bit-exact; else the tolerance's machine epsilon."""
    if t.kind == "b" or S.is_int(t):
        return int(exp) == int(got)
    if eps is None:
        if t.kind == "c":
            return S.same_float(exp.real, got.real) and S.same_float(exp.imag, got.imag)
        return S.same_float(exp, got)
    return S.close(exp, got, t, ULPS, ULPS * eps)


def tolerance(e):
    """None for an exact expression; else the epsilon of the least precise
    float type the expression computes in (a complex64 product stored as
    complex128 is only as good as complex64)."""
    if e.exact:
        return None
    eps = 0.0

    def walk(x):
        nonlocal eps
        if x.t.kind in "fc":
            eps = max(eps, float(np.finfo(x.t).eps))
        for a in x.args:
            walk(a)
    walk(e)
    return eps


def check(prog, inputs, outs, only=None):
    """(first Failure or None, rows compared, rows skipped for open topics)."""
    rows = next(iter(inputs.values())).shape[0]
    eps = {st.name: tolerance(st.expr) for st in prog.body if st.kind == "store"}
    compared = skipped_rows = 0
    for r in range(rows) if only is None else [only[1]]:
        try:
            want, topics = evaluate(prog, inputs, r)
        except Stop as e:
            return Failure("reference", str(e)), compared, skipped_rows
        if skipped(topics):
            skipped_rows += 1
            continue
        compared += 1
        for key, v in want.items():
            if only is not None and key != only[0]:
                continue
            t, slot = key
            got = outs[t][r, slot]
            if not _same(v.v, got, t, eps[key]):
                kind = "exact" if eps[key] is None else f"within {ULPS} ulps of {eps[key]:.3g}"
                return Failure("mismatch", kind, key, r, _show(v.v, t), _show(got, t)), \
                    compared, skipped_rows
    return None, compared, skipped_rows


def _show(v, t):
    if t.kind == "b":
        return bool(v)
    if S.is_int(t):
        return int(v)
    return t.type(v)


def test_one(prog, inputs, name):
    """Failure or None (and the row counts) for one program."""
    try:
        outs = run(prog, inputs, name)
    except Stop as e:
        return Failure("reference", str(e)), 0, 0
    if isinstance(outs, Failure):
        return outs, 0, 0
    return check(prog, inputs, outs)


# ---- shrinking ---------------------------------------------------------------------------

def _defined_ok(prog):
    """Every variable read is assigned before on every path (so shrinking
    never produces a program outside the generator's language)."""
    ok = True

    def uses(e, acc):
        if e.kind == "var":
            acc.add(e.op)
        for a in e.args:
            uses(a, acc)
        return acc

    def walk(stmts, defined):
        nonlocal ok
        d = set(defined)
        for st in stmts:
            if st.kind in ("assign", "aug", "store", "if"):
                need = uses(st.expr, set())
                if st.kind == "aug":
                    need.add(st.name)
                if not need <= d:
                    ok = False
            if st.kind in ("assign", "load"):
                d.add(st.name)
            elif st.kind == "if":
                a = walk(st.body, d)
                b = walk(st.orelse or [], d)
                d = a & b
            elif st.kind == "for":
                walk(st.body, d | {st.name})
        return d
    walk(prog.body, set())
    return ok


def _statement_lists(prog):
    """Every statement list in the program (the body and nested bodies)."""
    out = [prog.body]

    def walk(stmts):
        for st in stmts:
            for sub in (st.body, st.orelse):
                if sub:
                    out.append(sub)
                    walk(sub)
    walk(prog.body)
    return out


def _candidates(prog, key):
    """Smaller programs, biggest cuts first (the failing store stays)."""
    # 1. drop one statement
    for li, stmts in enumerate(_statement_lists(prog)):
        for k in range(len(stmts)):
            p = prog.copy()
            lst = _statement_lists(p)[li]
            if lst[k].kind == "store" and (key is None or lst[k].name == key):
                continue
            del lst[k]
            yield p
    # 2. an if becomes one of its branches; a loop runs once or its body inline
    for li, stmts in enumerate(_statement_lists(prog)):
        for k, st in enumerate(stmts):
            if st.kind == "if":
                for branch in ("body", "orelse"):
                    p = prog.copy()
                    lst = _statement_lists(p)[li]
                    lst[k:k + 1] = getattr(lst[k], branch) or []
                    yield p
            if st.kind == "for" and st.n > 1:
                p = prog.copy()
                _statement_lists(p)[li][k].n = 1
                yield p
    # 3. an expression becomes one of its operands of the same type
    for li, stmts in enumerate(_statement_lists(prog)):
        for k, st in enumerate(stmts):
            if st.kind not in ("assign", "aug", "store", "if"):
                continue
            for path, sub in _subexprs(st.expr, ()):
                for a in sub.args:
                    if a.t == sub.t and a.weak == sub.weak and a.kind != "lit" or \
                            (a.kind == "lit" and sub.weak and a.t == sub.t):
                        p = prog.copy()
                        st2 = _statement_lists(p)[li][k]
                        st2.expr = _replace(st2.expr, path, a)
                        yield p


def _subexprs(e, path):
    yield path, e
    for k, a in enumerate(e.args):
        yield from _subexprs(a, path + (k,))


def _replace(e, path, new):
    if not path:
        return new
    c = e.copy()
    c.args[path[0]] = _replace(e.args[path[0]], path[1:], new)
    return c


def _keep_only(prog, inputs, failure):
    """Only the failing output, the failing row, the inputs still read."""
    p = prog.copy()
    t, slot = failure.key if failure.key else (None, None)
    body = []
    for st in p.body:
        if st.kind == "store":
            if failure.key is None:  # a compile failure: keep the expression
                name = f"s{len(p.vars)}"
                e = st.expr
                p.vars[name] = VarInfo(e.t, e.weak, e.lit, e.exact, e.prod)
                st = Stmt("assign", name, expr=e)
            elif st.name != failure.key:
                continue
            else:
                st = Stmt("store", (t, 0), expr=st.expr)
        body.append(st)
    p.body = body
    p.outputs = {t: 1} if failure.key is not None else {}
    r = failure.row or 0
    ins = {k: v[r:r + 1].copy() for k, v in inputs.items()}
    return p, ins


def _prune_inputs(prog, inputs):
    """Drop loads nobody reads and input arrays nobody loads."""
    used = set()

    def uses(e):
        if e.kind == "var":
            used.add(e.op)
        for a in e.args:
            uses(a)

    def walk(stmts):
        for st in stmts:
            if st.kind in ("assign", "aug", "store", "if"):
                uses(st.expr)
            if st.kind == "aug":
                used.add(st.name)
            walk(st.body or [])
            walk(st.orelse or [])
    walk(prog.body)
    p = prog.copy()
    p.body = [st for st in p.body if st.kind != "load" or st.name in used]
    live = {st.expr[0] for st in p.body if st.kind == "load"}
    if not live:  # keep one input array: the kernel reads its shape
        live = {next(iter(p.inputs))}
    p.inputs = {t: n for t, n in p.inputs.items() if t in live}
    return p, {t: a for t, a in inputs.items() if t in live}


def shrink(prog, inputs, failure, name, budget=400):
    """A smaller (program, inputs, failure) that fails the same way."""
    def still(p, ins, want):
        if weak_int_out_of_range(p, ins):  # a compile error by the rules
            return None
        f = test_one(p, ins, name)[0]
        return f if want.same_kind(f) else None

    # The failing output alone (slot 0 of row 0 now) if it still fails so;
    # else the failing row with every output (the others are dropped one by
    # one below, as long as the failure stays).
    p1, ins1 = _keep_only(prog, inputs, failure)
    want1 = failure if failure.key is None else Failure(
        failure.kind, failure.detail, (failure.key[0], 0), 0, failure.expected, failure.got)
    f = still(p1, ins1, want1)
    if f is None and failure.key is not None:
        r = failure.row or 0
        p1, ins1 = prog.copy(), {k: v[r:r + 1].copy() for k, v in inputs.items()}
        f = still(p1, ins1, failure)
    if f is None:  # the failure needs the other rows
        return prog, inputs, failure
    prog, inputs, failure = p1, ins1, f
    tries = 0
    progress = True
    while progress and tries < budget:
        progress = False
        for cand in _candidates(prog, failure.key):
            if not _defined_ok(cand):
                continue
            tries += 1
            f = still(cand, inputs, failure)
            if f is not None:
                prog, failure, progress = cand, f, True
                break
            if tries >= budget:
                break
    prog, inputs = _prune_inputs(prog, inputs)
    f = still(prog, inputs, failure)
    return prog, inputs, f or failure


def reproducer(prog, inputs, failure, name):
    """Python source that rebuilds the failing kernel and its inputs."""
    lines = ["import math", "import numpy as np", "from pycuda_jit import cuda", "",
             "", "@cuda.jit"]
    lines += source(prog, name).rstrip("\n").splitlines()
    lines.append("")
    lines.append("")
    args = []
    for t in prog.inputs:
        a = inputs[t]
        vals = ", ".join(_py(x, t) for x in a.ravel())
        lines.append(f"in_{tname(t)} = np.array([{vals}], np.{tname(t)}).reshape({a.shape})")
        args.append(f"in_{tname(t)}")
    for t, n in prog.outputs.items():
        lines.append(f"out_{tname(t)} = np.zeros((1, {n}), np.{tname(t)})")
        args.append(f"out_{tname(t)}")
    lines.append(f"{name}[1, 1]({', '.join(args)})")
    lines.append(f"print({', '.join(a for a in args if a.startswith('out_'))})")
    lines.append(f"# {failure}")
    return "\n".join(lines) + "\n"


def _py(x, t):
    """Source text of one input value."""
    if t.kind == "b":
        return repr(bool(x))
    if S.is_int(t):
        return repr(int(x))
    if t.kind == "c":
        return f"complex({_py(x.real, S.F64)}, {_py(x.imag, S.F64)})"
    f = float(x)
    return repr(f) if math.isfinite(f) else f"float('{f}')"


__all__ = ["make", "test_one", "shrink", "reproducer", "kernel_name", "expr_src", "Failure"]
