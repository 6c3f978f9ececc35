"""Structured dtypes whose fields are arrays (NumPy subarrays) or records:
in kernels a field such as ``r.b`` is an array view of the record's bytes --
indexed, measured, iterated, written, assigned whole, and passed on -- in
records of global arrays, record arguments, local and shared arrays of
records, and nested records.
Results are checked against NumPy's structured-array semantics."""
import inspect

import numpy as np
import pytest

from pycuda_jit import cuda, errors, types
from gpu_util import poisoned

REC = np.dtype([("a", np.int32), ("b", np.float64, (3,)), ("c", np.float32, (2, 2)),
                ("d", np.uint8, (5,))], align=True)
# Unaligned layout whose array fields are still aligned for their elements.
PACKED = np.dtype([("i", np.int32), ("j", np.float32, (3, 2))])


def records(rng, n, dtype=REC):
    a = np.zeros(n, dtype)
    for name in dtype.names:
        field = a[name]
        if field.dtype.kind == "f":
            field[...] = rng.standard_normal(field.shape)
        else:
            field[...] = rng.integers(0, 100, field.shape)
    return a


@cuda.jit
def read_write_fields(a, out):
    i = cuda.grid(1)
    if i < a.size:
        r = a[i]
        s = 0.0
        for x in r.b:                    # iteration over a field
            s += x
        c = a[i]["c"]                    # item access gives the same view
        s += c[1, 0] * c.shape[1] + len(r.d) + r.d[r.a % 5]
        out[i] = s
        for j in range(len(r.b)):
            r.b[j] = r.b[j] * 2 + j      # element stores through the view
        a[i].c[0, 1] = r.a               # into a 2-d field of a[i]
        a[i]["d"][4] = i % 256


def expect_read_write(a):
    e = a.copy()
    out = e["b"].sum(axis=1) + e["c"][:, 1, 0] * 2 + 5 + \
        e["d"][np.arange(len(e)), e["a"] % 5]
    e["b"] = e["b"] * 2 + np.arange(3)
    e["c"][:, 0, 1] = e["a"]
    e["d"][:, 4] = np.arange(len(e)) % 256
    return out, e


@pytest.mark.parametrize("where", ["device", "host"])
def test_array_fields_read_and_write(rng, where):
    n = 200
    a = records(rng, n)
    expect_out, expect = expect_read_write(a)
    out = poisoned(n, np.float64)
    if where == "device":
        d = cuda.to_device(a)
        read_write_fields[2, 128](d, out)
        a = d.copy_to_host()
    else:
        read_write_fields[2, 128](a, out)
    np.testing.assert_allclose(out, expect_out, rtol=1e-12)
    np.testing.assert_array_equal(a, expect)


@cuda.jit
def packed_fields(a, out):
    i = cuda.grid(1)
    if i < a.size:
        r = a[i]
        out[i, 0] = r.j.shape[0] * 10 + r.j.shape[1]
        out[i, 1] = r.j[2, 1] + r.i
        r.j[1, 0] = -r.j[1, 0]


def test_packed_record_with_aligned_array_field(rng):
    a = records(rng, 50, PACKED)
    assert PACKED.itemsize == 28 and not PACKED.isalignedstruct
    out = poisoned((50, 2), np.float32)
    expect = a.copy()
    expect["j"][:, 1, 0] *= -1
    packed_fields[1, 64](a, out)
    np.testing.assert_array_equal(out[:, 0], 32)
    np.testing.assert_allclose(out[:, 1], (expect["j"][:, 2, 1] + expect["i"]).astype(np.float32))
    np.testing.assert_array_equal(a, expect)


@cuda.jit
def assign_fields(src, dst, grid2d, fill):
    i = cuda.grid(1)
    if i < dst.size:
        dst[i]["b"] = src[i]["b"]       # field to field
        dst[i].c = grid2d[i]            # a 2-d array row into a 2-d field
        dst[i].d = fill                 # a number into every element


def test_assign_whole_array_fields(rng):
    n = 40
    src = records(rng, n)
    dst = records(rng, n)
    grid2d = rng.standard_normal((n, 2, 2)).astype(np.float32)
    expect = dst.copy()
    expect["b"] = src["b"]
    expect["c"] = grid2d
    expect["d"] = 7
    assign_fields[1, 64](src, dst, grid2d, 7)
    np.testing.assert_array_equal(dst, expect)


@cuda.jit
def reverse_fields(recs):
    i = cuda.grid(1)
    if i < recs.size:
        recs[i].b = recs[i].b[::-1]     # the source overlaps the field
        recs[i].c = recs[i].c[::-1]


def test_assign_an_overlapping_view_of_the_same_field(rng):
    # NumPy copies an overlapping source through a temporary: the field
    # gets the reversed (transposed) values, not a half-overwritten mix.
    n = 33
    recs = records(rng, n)
    expect = recs.copy()
    expect["b"] = recs["b"][:, ::-1]
    expect["c"] = recs["c"][:, ::-1]
    reverse_fields[1, 64](recs)
    np.testing.assert_array_equal(recs, expect)


@cuda.jit
def assign_from_array(dst, v):
    dst[0].b = v


def test_assign_wrong_shape_is_a_value_error():
    dst = np.zeros(1, REC)
    with pytest.raises(ValueError, match="record field 'b' does not have its shape \\(3,\\)"):
        assign_from_array[1, 1](dst, np.arange(4.0))
        cuda.synchronize()


@cuda.jit
def record_argument(r, out):
    out[0] = r.b[0] + r.b[2] + r.c[1, 1] + r[0] + r[-1][1]   # r[0] is field 'a'
    r.b[1] = 42.5
    r.a = 9


def test_record_argument_with_array_fields(rng):
    a = records(rng, 2)
    rec = a[1]  # an np.void scalar viewing a[1]: written back after the launch
    expect = (a["b"][1, 0] + a["b"][1, 2] + np.float64(a["c"][1, 1, 1]) + a["a"][1]
              + a["d"][1, 1])
    out = poisoned(1, np.float64)
    record_argument[1, 1](rec, out)
    np.testing.assert_allclose(out[0], expect, rtol=1e-12)
    assert a["b"][1, 1] == 42.5 and a["a"][1] == 9


@cuda.jit(device=True)
def total(v):
    s = 0.0
    for k in range(v.size):
        s += v[k]
    return s


@cuda.jit
def local_and_shared(a, out):
    i = cuda.grid(1)
    t = cuda.threadIdx.x
    loc = cuda.local.array(2, dtype=REC)
    sh = cuda.shared.array(64, dtype=REC)
    if i < a.size:
        loc[0] = a[i]
        loc[1].b = loc[0].b            # copy between local records' fields
        loc[1].b[0] += 1.0
        sh[t] = a[i]
        sh[t].c[1, 1] = total(loc[1].b)  # a field passed to a device function
    cuda.syncthreads()
    if i < a.size:
        u = sh[(t + 1) % a.size]
        out[i] = u.c[1, 1] + total(u.d)


def test_local_and_shared_arrays_of_records(rng):
    n = 64
    a = records(rng, n)
    out = poisoned(n, np.float64)
    local_and_shared[1, n](a, out)
    sums = a["b"].sum(axis=1) + 1.0
    nxt = (np.arange(n) + 1) % n
    expect = sums[nxt].astype(np.float32).astype(np.float64) + a["d"][nxt].sum(axis=1)
    np.testing.assert_allclose(out, expect, rtol=1e-6)


@cuda.jit
def atomic_field(a):
    i = cuda.grid(1)
    if i < 256:
        cuda.atomic.add(a[i % 2].b, i % 3, 1.0)


def test_atomics_on_an_array_field():
    a = np.zeros(2, REC)
    atomic_field[2, 128](a)
    counts = np.array([[np.sum((np.arange(256) % 2 == r) & (np.arange(256) % 3 == k))
                        for k in range(3)] for r in range(2)], dtype=np.float64)
    np.testing.assert_array_equal(a["b"], counts)


INNER = np.dtype([("p", np.float32, (2,)), ("q", np.int16)], align=True)
OUTER = np.dtype([("id", np.int32), ("inner", INNER), ("w", np.float64, (2,))], align=True)


@cuda.jit
def nested_records(a, b, out):
    i = cuda.grid(1)
    if i < a.size:
        r = a[i]
        out[i] = r.inner.p[1] + r["inner"].q + r.w[0]
        r.inner.p[0] = r.id              # through the nested reference
        if i % 2:
            a[i].inner = b[i]            # a whole nested record, copied


def test_nested_records_with_array_fields(rng):
    n = 30
    a = records(rng, n, OUTER)
    a["inner"]["p"] = rng.standard_normal((n, 2))
    a["inner"]["q"] = rng.integers(-50, 50, n)
    b = records(rng, n, INNER)
    out = poisoned(n, np.float64)
    expect = a.copy()
    # float32 + int16 stays float32 (NumPy's rules), then adds to float64
    expect_out = ((expect["inner"]["p"][:, 1] + expect["inner"]["q"]).astype(np.float64)
                  + expect["w"][:, 0])
    expect["inner"]["p"][:, 0] = expect["id"]
    expect["inner"][1::2] = b[1::2]
    d = cuda.to_device(a)
    nested_records[1, 32](d, b, out)
    np.testing.assert_allclose(out, expect_out, rtol=1e-12)
    got = d.copy_to_host()
    np.testing.assert_array_equal(got, expect)
    assert d.__cuda_array_interface__["descr"] == OUTER.descr


def test_record_types_describe_array_fields():
    rec = types.from_dtype(REC)
    assert rec.fields["b"] == (types.NestedArray(types.float64, (3,)), 8)
    assert str(rec.fields["c"][0]) == "nestedarray(float32, (2, 2))"
    sig = types.void(rec[::1], types.float64[::1])

    @cuda.jit(sig)
    def k(a, out):
        out[0] = a[0].b[2]
    a = records(np.random.default_rng(3), 1)
    out = poisoned(1, np.float64)
    k[1, 1](a, out)
    assert out[0] == a["b"][0, 2]
    d = cuda.to_device(a)
    assert d.__cuda_array_interface__["descr"] == REC.descr
    np.testing.assert_array_equal(d.copy_to_host(), a)


def test_misaligned_array_field_names_the_line():
    dt = np.dtype([("flag", np.uint8), ("v", np.float32, (2,))])  # v at byte 1

    @cuda.jit
    def bad(a, out):
        out[0] = a[0].v[0]
    line = inspect.getsourcelines(bad.py_func)[1] + 2
    with pytest.raises(errors.CompileError, match="not aligned") as e:
        bad[1, 1](np.zeros(1, dt), np.zeros(1, np.float32))
    assert e.value.line == line


def test_storing_an_array_of_other_dimensions_names_the_line():
    @cuda.jit
    def bad(a, v):
        a[0].c = v
    line = inspect.getsourcelines(bad.py_func)[1] + 2
    with pytest.raises(errors.CompileError, match="record field 'c'") as e:
        bad[1, 1](np.zeros(1, REC), np.zeros(4, np.float32))
    assert e.value.line == line


def test_record_index_out_of_range_names_the_line():
    @cuda.jit
    def bad(a, out):
        out[0] = a[0][4]
    line = inspect.getsourcelines(bad.py_func)[1] + 2
    with pytest.raises(errors.CompileError, match="record index 4 is out of range") as e:
        bad[1, 1](np.zeros(1, REC), np.zeros(1))
    assert e.value.line == line


def test_explicit_record_signature_takes_a_single_record():
    rec = types.from_dtype(REC)

    @cuda.jit(types.void(rec, types.float64[::1]))
    def k(r, out):
        out[0] = r.b[2] * r.c[1, 0]
        r.b[0] = r.a

    a = records(np.random.default_rng(5), 2)
    expect = a.copy()
    out = poisoned(1, np.float64)
    k[1, 1](a[1], out)
    np.testing.assert_allclose(out[0], expect["b"][1, 2] * np.float64(expect["c"][1, 1, 0]))
    expect["b"][1, 0] = expect["a"][1]
    np.testing.assert_array_equal(a, expect)


def test_kernels_compile_to_ptx_and_link():
    # The NVPTX side of every construct above, assembled without a GPU.
    rec, outer = types.from_dtype(REC), types.from_dtype(OUTER)
    cases = [
        (local_and_shared, (rec[::1], types.float64[::1]), "st.shared"),
        (atomic_field, (rec[::1],), "red.add.f64"),
        (assign_fields, (rec[::1], rec[::1], types.float32[:, :, ::1], types.int64), "st.global"),
        (read_write_fields, (rec[::1], types.float64[::1]), "ld.global"),
        (nested_records, (outer[::1], types.from_dtype(INNER)[::1], types.float64[::1]),
         "ld.global"),
        (record_argument, (rec, types.float64[::1]), "st.global"),
    ]
    for kernel, sig, expect in cases:
        ptx, _ = cuda.compile_ptx(kernel.py_func, sig, cc=(9, 0))
        assert expect in ptx, kernel.py_func.__name__
        assert cuda.link_ptx(ptx, cc=(9, 0))[:4] == b"\x7fELF"


def test_field_view_is_bounds_checked():
    @cuda.jit(debug=True, opt=False)
    def oob(a, k):
        a[0].b[k] = 1.0
    with pytest.raises(IndexError, match="out of bounds for axis 0 with size 3"):
        oob[1, 1](np.zeros(1, REC), 3)
        cuda.synchronize()


def test_inspect_by_a_signature_with_a_record_argument():
    rec = types.from_dtype(REC)

    @cuda.jit((rec, types.float64[::1]))
    def k(r, out):
        out[0] = r.b[1]
    assert "define" in k.inspect_llvm((rec, types.float64[::1]))
    assert k.inspect_llvm()[k.signatures[0]] == k.inspect_llvm((rec, types.float64[::1]))
