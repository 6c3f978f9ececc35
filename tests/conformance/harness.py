"""Conformance harness: the kernel body *is* Python, so CPython is the
reference.  Each case is a scalar function; the harness compiles it as a
device function called element-wise by a kernel, runs it (GPU or CPU
executor) on deterministic inputs, and compares with CPython calling the
same function on the same values.

Needs no numpy: arrays are ``array.array`` buffers exposed through
``__array_interface__``, so the suite runs under every supported Python
(3.10-3.13), including interpreters without numpy.
"""
import array
import cmath
import math
import random
import struct
import unittest

from pycuda_jit import cuda

# kind -> (array typecode, numpy typestr, struct format)
KINDS = {
    "f8": ("d", "<f8", "d"), "f4": ("f", "<f4", "f"), "f2": ("H", "<f2", "e"),
    "i8": ("q", "<i8", "q"), "i4": ("i", "<i4", "i"), "i2": ("h", "<i2", "h"),
    "i1": ("b", "|i1", "b"), "u8": ("Q", "<u8", "Q"), "u4": ("I", "<u4", "I"),
    "u2": ("H", "<u2", "H"), "u1": ("B", "|u1", "B"), "b1": ("B", "|b1", "?"),
    "c16": ("d", "<c16", "dd"), "c8": ("f", "<c8", "ff"),
}


def as_kind(value, kind):
    """The value a kernel sees after storing `value` into a `kind` array."""
    fmt = KINDS[kind][2]
    if kind in ("c16", "c8"):
        value = complex(value)
        return complex(*struct.unpack(fmt, struct.pack(fmt, value.real, value.imag)))
    if kind == "b1":
        return bool(value)
    return struct.unpack(fmt, struct.pack(fmt, value))[0]


class HostArray:
    """A 1-D or 2-D host array backed by array.array (no numpy needed)."""

    def __init__(self, kind, values, cols=None):
        self.kind = kind
        code, self.typestr, fmt = KINDS[kind]
        self.cols = cols
        flat = []
        for v in values:
            for x in (v if cols else [v]):
                if kind == "f2":
                    flat.append(struct.unpack("H", struct.pack("e", x))[0])
                elif kind in ("c16", "c8"):
                    x = complex(x)
                    flat.extend([x.real, x.imag])
                else:
                    flat.append(int(x) if kind == "b1" else x)
        self.buf = array.array(code, flat)
        self.n = len(values)

    @property
    def __array_interface__(self):
        shape = (self.n, self.cols) if self.cols else (self.n,)
        return {"shape": shape, "typestr": self.typestr, "strides": None,
                "data": (self.buf.buffer_info()[0], False), "version": 3}

    def tolist(self):
        if self.kind == "f2":
            flat = [struct.unpack("e", struct.pack("H", h))[0] for h in self.buf]
        elif self.kind in ("c16", "c8"):
            flat = [complex(self.buf[k], self.buf[k + 1]) for k in range(0, len(self.buf), 2)]
        elif self.kind == "b1":
            flat = [bool(b) for b in self.buf]
        else:
            flat = list(self.buf)
        if not self.cols:
            return flat
        return [tuple(flat[r * self.cols:(r + 1) * self.cols]) for r in range(self.n)]


# ---- cases ---------------------------------------------------------------------------

CASES = []

POOLS = {
    "i8": [-1000003, -77, -8, -3, -2, -1, 0, 1, 2, 3, 7, 64, 999, 123456789],
    "i4": [-70000, -9, -5, -1, 0, 1, 4, 9, 31, 65535],
    "i2": [-300, -5, -1, 0, 1, 3, 127, 3000],
    "i1": [-128, -7, -1, 0, 1, 5, 100, 127],
    "u8": [0, 1, 2, 5, 63, 64, 1000, 2 ** 40],
    "u4": [0, 1, 3, 31, 32, 255, 100000],
    "u2": [0, 1, 7, 255, 1000, 65535],
    "u1": [0, 1, 2, 7, 128, 255],
    "f8": [-1e10, -3.75, -2.5, -1.0, -0.5, -0.0, 0.0, 0.25, 0.5, 1.0, 1.5, 2.5, 3.0, 7.125, 1e-300, 1e10],
    "f4": [-1e6, -3.75, -2.5, -1.0, -0.5, 0.0, 0.25, 0.5, 1.0, 1.5, 2.5, 3.0, 7.125, 1e6],
    "f2": [-8.0, -2.5, -1.0, -0.5, 0.0, 0.25, 0.5, 1.0, 1.5, 2.0, 3.0, 6.5],
    "b1": [False, True],
    "c16": [0j, 1 + 0j, -1.5 + 2j, 0.5 - 0.25j, 3j, -2 - 2j],
    "c8": [0j, 1 + 0j, -1.5 + 2j, 0.5 - 0.25j, 3j, -2 - 2j],
}


def case(*kinds, inputs=None, tol=None, where=None, n=40):
    """Register a conformance case: argument kinds ('i8', 'f4', ...), an
    optional explicit list of input tuples, a relative tolerance for float
    results, and a filter `where(*args) -> bool` for inputs outside the
    function's domain."""
    def deco(fn):
        CASES.append((fn, kinds, inputs, tol, where, n))
        return fn
    return deco


def gen_inputs(fn, kinds, inputs, where, n):
    if inputs is not None:
        rows = [tuple(r) if isinstance(r, (tuple, list)) else (r,) for r in inputs]
    else:
        rng = random.Random(fn.__name__)
        rows = []
        if kinds:
            for _ in range(n * 4):
                rows.append(tuple(rng.choice(POOLS[k]) for k in kinds))
        else:
            rows = [()] * 4
    rows = [tuple(as_kind(v, k) for v, k in zip(r, kinds)) for r in rows]
    if where:
        rows = [r for r in rows if where(*r)]
    seen, out = set(), []
    for r in rows:
        key = repr(r)
        if key not in seen:
            seen.add(key)
            out.append(r)
    return out[:n]


# ---- kernels: one per arity, calling the case's device function -----------------------

def make_kernel(dev, arity):
    # The device function is a closure variable (frozen at compile time).
    if arity == 0:
        def k(out):
            i = cuda.grid(1)
            if i < out.shape[0]:
                out[i] = dev()
    elif arity == 1:
        def k(a, out):
            i = cuda.grid(1)
            if i < out.shape[0]:
                out[i] = dev(a[i])
    elif arity == 2:
        def k(a, b, out):
            i = cuda.grid(1)
            if i < out.shape[0]:
                out[i] = dev(a[i], b[i])
    elif arity == 3:
        def k(a, b, c, out):
            i = cuda.grid(1)
            if i < out.shape[0]:
                out[i] = dev(a[i], b[i], c[i])
    else:
        raise ValueError("arity")
    return cuda.jit(k)


def make_tuple_kernel(dev, arity, width):
    """Kernels storing a returned tuple into row i of a 2-D output."""
    if arity == 0:
        def k(out):
            i = cuda.grid(1)
            if i < out.shape[0]:
                t = dev()
                for j in range(width):
                    out[i, j] = t[j]
    elif arity == 1:
        def k(a, out):
            i = cuda.grid(1)
            if i < out.shape[0]:
                t = dev(a[i])
                for j in range(width):
                    out[i, j] = t[j]
    elif arity == 2:
        def k(a, b, out):
            i = cuda.grid(1)
            if i < out.shape[0]:
                t = dev(a[i], b[i])
                for j in range(width):
                    out[i, j] = t[j]
    elif arity == 3:
        def k(a, b, c, out):
            i = cuda.grid(1)
            if i < out.shape[0]:
                t = dev(a[i], b[i], c[i])
                for j in range(width):
                    out[i, j] = t[j]
    else:
        raise ValueError("arity")
    return cuda.jit(k)


def result_kind(values):
    flat = [x for v in values for x in (v if isinstance(v, tuple) else (v,))]
    if any(isinstance(x, complex) for x in flat):
        return "c16"
    if any(isinstance(x, float) for x in flat):
        return "f8"
    if all(isinstance(x, bool) for x in flat):
        return "b1"
    return "i8"


def close(got, want, tol):
    if isinstance(want, complex) or isinstance(got, complex):
        return close(complex(got).real, complex(want).real, tol) and close(
            complex(got).imag, complex(want).imag, tol)
    if isinstance(want, float) or isinstance(got, float):
        got, want = float(got), float(want)
        if math.isnan(want):
            return math.isnan(got)
        if math.isinf(want):
            return got == want
        return abs(got - want) <= tol * max(1.0, abs(want))
    return got == want


def run_case(fn, kinds, inputs, tol, where, n):
    rows = gen_inputs(fn, kinds, inputs, where, n)
    assert rows, f"{fn.__name__}: no inputs"
    expect = [fn(*r) for r in rows]
    width = len(expect[0]) if isinstance(expect[0], tuple) else None
    rk = result_kind(expect)
    if tol is None:
        tol = 1e-5 if any(k in ("f4", "c8") for k in kinds) else 1e-12
        if "f2" in kinds:
            tol = 2e-3
    dev = cuda.jit(device=True)(fn)
    args = [HostArray(k, [r[j] for r in rows]) for j, k in enumerate(kinds)]
    out = HostArray(rk, [tuple([0] * width) if width else 0 for _ in rows], cols=width)
    if width:
        kernel = make_tuple_kernel(dev, len(kinds), width)
    else:
        kernel = make_kernel(dev, len(kinds))
    kernel[(len(rows) + 63) // 64, 64](*args, out)
    got = out.tolist()
    bad = [(r, g, e) for r, g, e in zip(rows, got, expect)
           if not (all(close(x, y, tol) for x, y in zip(g, e)) if width else close(g, e, tol))]
    return bad, kernel


def load_all():
    """Import every cases_*.py module (registers CASES)."""
    import importlib
    import os
    import sys
    here = os.path.dirname(os.path.abspath(__file__))
    if here not in sys.path:
        sys.path.insert(0, here)
    for f in sorted(os.listdir(here)):
        if f.startswith("cases_") and f.endswith(".py"):
            importlib.import_module(f[:-3])
    return CASES


def make_testcase():
    class Conformance(unittest.TestCase):
        pass

    names = set()
    for fn, kinds, inputs, tol, where, n in load_all():
        name = "test_" + fn.__module__.replace("cases_", "") + "_" + fn.__name__
        assert name not in names, name
        names.add(name)

        def test(self, fn=fn, kinds=kinds, inputs=inputs, tol=tol, where=where, n=n):
            bad, _ = run_case(fn, kinds, inputs, tol, where, n)
            if bad:
                lines = [f"{fn.__name__}{r}: kernel {g!r}, CPython {e!r}" for r, g, e in bad[:8]]
                self.fail(f"{len(bad)} mismatches:\n" + "\n".join(lines))

        setattr(Conformance, name, test)
    return Conformance
