"""Structured dtypes (records), namedtuples and global NumPy arrays as
constant data -- as kernel arguments, built in kernels, and frozen globals."""
import inspect
from collections import namedtuple

import numpy as np
import pytest

from pycuda_jit import cuda, errors
from gpu_util import poisoned

# ---- structured dtypes -------------------------------------------------------------

PARTICLE = [("x", np.float64), ("n", np.int8), ("y", np.float32), ("ok", np.bool_),
            ("z", np.complex64)]


def particles(rng, n, align):
    dt = np.dtype(PARTICLE, align=align)
    a = np.zeros(n, dt)
    a["x"] = rng.standard_normal(n)
    a["n"] = rng.integers(-9, 9, n)
    a["y"] = rng.standard_normal(n).astype(np.float32)
    a["ok"] = rng.integers(0, 2, n).astype(bool)
    a["z"] = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(np.complex64)
    return a


@cuda.jit
def update(a, out):
    i = cuda.grid(1)
    if i < a.size:
        r = a[i]
        s = r.x + a[i]["y"] * r.n
        if r.ok:
            s += r.z.real
        out[i] = s
        a[i].n = i % 100 - 5    # attribute store
        a[i]["y"] = 0.5 * i     # item store
        r.z = complex(r.x, i)   # through the record reference


@pytest.mark.parametrize("align", [True, False], ids=["aligned", "packed"])
@pytest.mark.parametrize("where", ["device", "host"])
def test_structured_array_fields(rng, align, where):
    n = 300
    a = particles(rng, n, align)
    x = a["x"].copy()
    # float32 * int8 stays float32 (NumPy rules), then adds to float64
    expect = a["x"] + (a["y"] * a["n"]).astype(np.float64)
    expect += np.where(a["ok"], a["z"].real.astype(np.float64), 0)
    out = poisoned(n, np.float64)
    if where == "device":
        d = cuda.to_device(a)
        update[3, 128](d, out)
        a = d.copy_to_host()
    else:
        update[3, 128](a, out)
    np.testing.assert_allclose(out, expect, rtol=1e-6)
    np.testing.assert_array_equal(a["n"], np.arange(n) % 100 - 5)
    np.testing.assert_array_equal(a["y"], 0.5 * np.arange(n, dtype=np.float32))
    np.testing.assert_allclose(a["z"], (x + 1j * np.arange(n)).astype(np.complex64))
    np.testing.assert_array_equal(a["x"], x)  # untouched field


@cuda.jit
def copy_records(src, dst):
    i = cuda.grid(1)
    if i < src.size:
        dst[src.size - 1 - i] = src[i]


def test_whole_record_copy(rng):
    n = 100
    a = particles(rng, n, True)
    d = cuda.to_device(particles(rng, n, True))  # other values: poisoned
    copy_records[1, 128](cuda.to_device(a), d)
    np.testing.assert_array_equal(d.copy_to_host(), a[::-1])


def test_structured_device_array_interface(rng):
    a = particles(rng, 4, True)
    d = cuda.to_device(a)
    cai = d.__cuda_array_interface__
    assert cai["typestr"] == a.dtype.str
    assert cai["descr"] == a.dtype.descr
    assert d[2] == a[2]


def test_arrays_of_nested_structures_are_a_clear_error():
    # (nested structures themselves work: tests/kernels/test_record_arrays.py)
    inner = np.dtype([("a", np.float32), ("b", np.float32)])
    a = np.zeros(4, np.dtype([("p", inner, (2,)), ("q", np.int32)]))
    with pytest.raises(TypeError, match="arrays of nested structures \\(field 'p'\\)"):
        update[1, 4](a, np.zeros(4))


def test_unknown_field_names_the_line():
    @cuda.jit
    def bad(a, out):
        out[0] = a[0].nope
    line = inspect.getsourcelines(bad.py_func)[1] + 2
    a = np.zeros(2, np.dtype(PARTICLE))
    with pytest.raises(errors.CompileError) as e:
        bad[1, 1](a, np.zeros(1))
    assert e.value.line == line
    assert "nope" in str(e.value)


# ---- namedtuples ----------------------------------------------------------------------

Point = namedtuple("Point", "x y")
Box = namedtuple("Box", ["lo", "hi", "label"])
ORIGIN = Point(1.5, -2)


@cuda.jit(device=True)
def make_point(a, b):
    return Point(a, y=b)  # keyword construction, returned from a device function


@cuda.jit
def use_points(p, box, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        q = make_point(p.x * i, p[1] + i)
        out[i, 0] = q.x + q.y
        out[i, 1] = ORIGIN.x * ORIGIN[1]
        lo, hi, label = box
        out[i, 2] = (box.hi.x - lo.x) * label + hi.y
        out[i, 3] = len(box)


def test_namedtuple_arguments_and_construction(rng):
    n = 64
    p = Point(float(rng.standard_normal()), int(rng.integers(-50, 50)))
    box = Box(Point(0.25, 1.0), Point(np.float32(2.5), 3.5), 7)
    out = poisoned((n, 4), np.float64)
    use_points[1, 64](p, box, out)
    i = np.arange(n)
    np.testing.assert_allclose(out[:, 0], p.x * i + p.y + i)
    np.testing.assert_array_equal(out[:, 1], 1.5 * -2)
    np.testing.assert_allclose(out[:, 2], (2.5 - 0.25) * 7 + 3.5)
    np.testing.assert_array_equal(out[:, 3], 3)


def test_namedtuple_signature_is_per_field_types():
    @cuda.jit
    def k(p, out):
        out[0] = p.x + p.y
    out = poisoned(1, np.float64)
    k[1, 1](Point(1, 2), out)
    k[1, 1](Point(1.5, 2), out)
    assert out[0] == 3.5
    assert len(k.signatures) == 2


def test_namedtuples_are_immutable():
    @cuda.jit
    def bad(p, out):
        p.x = 1.0
        out[0] = p.x
    line = inspect.getsourcelines(bad.py_func)[1] + 2
    with pytest.raises(errors.CompileError) as e:
        bad[1, 1](Point(0.0, 0.0), np.zeros(1))
    assert e.value.line == line
    assert "immutable" in str(e.value)


# ---- global NumPy arrays as constant data ---------------------------------------------

TABLE = np.array([3, 1, 4, 1, 5, 9, 2, 6], dtype=np.int32)
MATRIX = np.arange(12, dtype=np.float32).reshape(3, 4) / 7
ROOTS = np.array([1 + 2j, 3 - 1j, -0.5j])
CONST_RECORDS = np.array([(1.0, 2), (3.0, 4)], dtype=[("w", np.float64), ("k", np.int16)])


@cuda.jit
def use_tables(out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i, 0] = TABLE[i % TABLE.size] + TABLE.shape[0]
        out[i, 1] = MATRIX[i % 3, i % 4]
        out[i, 2] = ROOTS[i % 3].imag
        out[i, 3] = CONST_RECORDS[i % 2].w * CONST_RECORDS[i % 2]["k"]


def test_global_arrays_are_constant_data():
    n = 50
    out = poisoned((n, 4), np.float64)
    use_tables[1, 64](out)
    i = np.arange(n)
    np.testing.assert_array_equal(out[:, 0], TABLE[i % 8] + 8)
    np.testing.assert_array_equal(out[:, 1], MATRIX[i % 3, i % 4].astype(np.float64))
    np.testing.assert_array_equal(out[:, 2], ROOTS[i % 3].imag)
    np.testing.assert_array_equal(out[:, 3], np.where(i % 2, 12.0, 2.0))


def test_global_arrays_are_read_only():
    @cuda.jit
    def bad(out):
        TABLE[0] = 5
        out[0] = TABLE[0]
    line = inspect.getsourcelines(bad.py_func)[1] + 2
    with pytest.raises(errors.TypingError) as e:
        bad[1, 1](np.zeros(1))
    assert e.value.line == line
    assert "read-only" in str(e.value)


BIG = np.zeros(70_000, np.uint8)


def test_global_array_too_large_for_constant_memory():
    @cuda.jit
    def bad(out):
        out[0] = BIG[0]
    with pytest.raises(errors.CompileError, match="constant memory holds at most 65536"):
        bad[1, 1](np.zeros(1))
