"""Type objects (pycuda_jit.types) and the signature spellings cuda.jit,
compile_ptx, compile_stages and Kernel.compile accept (no GPU needed)."""
import collections
import os
import subprocess
import sys

import numpy as np
import pytest

import pycuda_jit
from pycuda_jit import cuda, errors, types
from pycuda_jit import (boolean, float16, float32, float64, int8, int32, int64,
                        uint32, uint64, complex64, complex128, void, typeof, from_dtype)


# ---- the objects --------------------------------------------------------------------

def test_names_are_numbas():
    assert [str(t) for t in (boolean, int8, uint64, float16, float32, complex128, void)] == [
        "bool", "int8", "uint64", "float16", "float32", "complex128", "none"]
    assert repr(float32[:]) == "array(float32, 1d, A)"
    assert str(float32[::1]) == "array(float32, 1d, C)"
    assert str(float32[:, ::1]) == "array(float32, 2d, C)"
    assert str(float32[::1, :, :]) == "array(float32, 3d, F)"
    assert str(types.Array(int8, 2, "A", readonly=True)) == "readonly array(int8, 2d, A)"
    assert str(types.UniTuple(int32, 3)) == "UniTuple(int32 x 3)"
    assert str(types.Tuple((int32, float64))) == "Tuple(int32, float64)"
    assert repr(void(float32[:], int32)) == "(array(float32, 1d, A), int32) -> none"
    assert repr(float32(float32, float32)) == "(float32, float32) -> float32"


def test_domains_are_numbas():
    assert types.signed_domain == {int8, types.int16, int32, int64}
    assert types.unsigned_domain == {types.uint8, types.uint16, types.uint32, uint64}
    assert types.integer_domain == types.signed_domain | types.unsigned_domain
    assert types.real_domain == {float32, float64}
    assert types.complex_domain == {types.complex64, complex128}
    assert types.number_domain == (types.integer_domain | types.real_domain
                                   | types.complex_domain)
    assert float16 not in types.number_domain and boolean not in types.number_domain


def test_aliases_are_the_same_objects():
    assert types.intp is types.int64 and types.uintp is types.uint64
    assert types.void is types.none and types.b1 is types.boolean is types.bool_
    assert types.f4 is float32 and types.f8 is types.double is float64
    assert types.float_ is float32  # numba's float_ is C's float
    assert types.c8 is complex64 and types.i4 is int32 and types.u4 is uint32
    assert pycuda_jit.float32 is cuda.float32 is types.float32
    assert cuda.types is types and pycuda_jit.types is types


def test_equal_however_built_and_usable_as_keys():
    pairs = [
        (types.Array(types.float32, 2, "C"), float32[:, ::1]),
        (types.Array(float32, 1, "A"), float32[:]),
        (types.Array(np.float32, 1, "C"), float32[::1]),
        (types.Tuple((int32, int32)), types.UniTuple(int32, 2)),
        (void(float32[::1], int32), types.signature(types.none, float32[::1], int32)),
    ]
    for a, b in pairs:
        assert a == b and not a != b and hash(a) == hash(b), (a, b)
    assert float32[:, ::1] != float32[::1, :] != float32[:, :]
    assert types.Array(float32, 1, "C") != types.Array(float32, 1, "C", readonly=True)
    assert int32 != uint32 and float32 != "float32"
    d = {float32[:, ::1]: "c", float32[:, :]: "a", int32: "i"}
    assert d[types.Array(types.float32, 2, "C")] == "c" and d[types.i4] == "i"
    assert void(float32[:]).args == (float32[:],) and void(float32[:]).return_type is void


def test_type_classes():
    assert isinstance(int32, types.Integer) and isinstance(int32, types.Number)
    assert int32.signed and not uint32.signed and int32.bitwidth == 32
    assert isinstance(float16, types.Float) and float16.bitwidth == 16
    assert isinstance(complex64, types.Complex) and complex64.underlying_float is float32
    assert isinstance(void, types.NoneType) and isinstance(boolean, types.Boolean)
    a = float32[:, ::1]
    assert (a.dtype, a.ndim, a.layout, a.mutable) == (float32, 2, "C", True)
    assert a.is_c_contig and not a.is_f_contig
    assert a.copy(layout="A") == float32[:, :]
    assert len(types.UniTuple(int8, 4)) == 4 and list(types.Tuple((int8, float32))) == [int8, float32]


def test_the_package_imports_without_numpy():
    # The conformance suite runs under interpreters that have no NumPy.
    code = ("import sys; sys.modules['numpy'] = None; import pycuda_jit; "
            "from pycuda_jit import types; "
            "print(types.intp, types.void(types.float32[:, ::1], types.int32))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=os.path.dirname(os.path.dirname(pycuda_jit.__file__)))
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "int64 (array(float32, 2d, C), int32) -> none"


def test_host_calls_cast_values():
    x = float32(1.1)
    assert type(x) is np.float32 and x == np.float32(1.1)
    assert type(uint64(2 ** 64 - 1)) is np.uint64 and int(uint64(2 ** 64 - 1)) == 2 ** 64 - 1
    assert type(int8(-3)) is np.int8 and type(boolean(1)) is np.bool_


def test_bad_spellings_are_errors():
    with pytest.raises(KeyError, match="':' and '::1'"):
        float32[1:3]
    with pytest.raises(KeyError):
        float32[0]
    with pytest.raises(ValueError, match="layout"):
        types.Array(float32, 2, "K")
    with pytest.raises(TypeError, match="type objects"):
        void(float32[:], 3, 4)  # not a cast: more than one value
    with pytest.raises(TypeError, match="0-d arrays"):
        types.signature_text(void(types.Array(float32, 0, "C")))


def test_from_dtype():
    assert from_dtype(np.float32) is float32
    assert from_dtype(np.dtype("int64")) is int64
    assert from_dtype("c16") is complex128 and from_dtype(np.bool_) is boolean
    with pytest.raises(TypeError):
        from_dtype(np.dtype(">f8"))
    rec = from_dtype(np.dtype([("x", np.float64), ("n", np.int8), ("z", np.complex64)],
                              align=True))
    assert isinstance(rec, types.Record)
    assert rec.fields == {"x": (float64, 0), "n": (int8, 8), "z": (complex64, 12)}
    assert rec.size == 24 and rec.alignment == 8
    assert rec == from_dtype(np.dtype([("x", "f8"), ("n", "i1"), ("z", "c8")], align=True))
    packed = from_dtype(np.dtype([("x", np.float64), ("n", np.int8)]))
    assert packed.size == 9 and packed.alignment == 1 and packed != rec
    sub = from_dtype(np.dtype([("n", np.int8), ("a", np.float32, (3, 2))], align=True))
    assert sub.fields["a"] == (types.NestedArray(float32, (3, 2)), 4)
    assert sub.fields["a"][0].ndim == 2 and sub.size == 28
    assert types.as_dtype(sub).fields["a"][0] == np.dtype((np.float32, (3, 2)))
    with pytest.raises(TypeError, match="arrays of nested structures"):
        from_dtype(np.dtype([("p", np.dtype([("x", "f4")]), (2,))]))


def test_as_dtype_inverts_from_dtype():
    for dt in ("f2", "f4", "f8", "c8", "c16", "i1", "u2", "i4", "u8", "?"):
        assert types.as_dtype(from_dtype(np.dtype(dt))) == np.dtype(dt)
    rec_dt = np.dtype([("x", np.float64), ("n", np.int8)], align=True)
    assert types.as_dtype(from_dtype(rec_dt)) == rec_dt
    with pytest.raises(TypeError):
        types.as_dtype(float32[:])


Point = collections.namedtuple("Point", "x y")


def test_typeof_is_the_argument_type():
    assert typeof(1) is int64 and typeof(1.5) is float64 and typeof(True) is boolean
    assert typeof(1j) is complex128 and typeof(np.float32(2)) is float32
    assert typeof(np.uint32(7)) is uint32
    c = np.zeros((3, 4), np.float32)
    assert typeof(c) == float32[:, ::1]
    assert typeof(np.asfortranarray(c)) == float32[::1, :]
    assert typeof(c[:, ::2]) == float32[:, :]
    assert typeof(np.zeros(5, np.int8)) == int8[::1]
    assert typeof((1, 2.0)) == types.Tuple((int64, float64))
    assert typeof((np.int32(1), np.int32(2))) == types.UniTuple(int32, 2)
    p = typeof(Point(1.0, 2.0))
    assert isinstance(p, types.NamedUniTuple) and str(p) == "Point(float64 x 2)"
    rec_dt = np.dtype([("x", np.float64), ("n", np.int8)], align=True)
    assert typeof(np.zeros(4, rec_dt)) == from_dtype(rec_dt)[::1]
    d = cuda.to_device(np.zeros((2, 3), np.float64))
    assert typeof(d) == float64[:, ::1]
    assert typeof(d[:, 1]) == float64[:]
    with pytest.raises(ValueError, match="cannot determine the kernel type of a str"):
        typeof("hello")


# ---- signatures -------------------------------------------------------------------

def saxpy(a, x, y, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = a * x[i] + y[i]


def ptx_of(sig):
    return cuda.compile_ptx(saxpy, sig)[0]


def test_every_spelling_gives_the_same_ptx():
    want = ptx_of("void(float32, float32[::1], float32[:], float32[::1])")
    arr = types.Array(types.float32, 1, "C")
    for sig in [void(float32, float32[::1], float32[:], float32[::1]),
                (float32, float32[::1], float32[:], float32[::1]),
                [float32, arr, types.Array(float32, 1, "A"), types.Array(float32, 1, "F")],
                types.none(types.f4, arr, float32[:], arr),
                "(float32, float32[::1], float32[:], float32[::1])"]:
        assert ptx_of(sig) == want, sig
    other = ptx_of(void(float64, float64[::1], float64[:], float64[::1]))
    assert other != want and "f64" in other
    assert ptx_of(void(float32, float32[:], float32[:], float32[::1])) != want


def test_compile_ptx_returns_the_return_type():
    _, resty = cuda.compile_ptx(saxpy, void(float32, float32[:], float32[:], float32[:]))
    assert resty is types.none and isinstance(resty, types.NoneType)


def test_compile_stages_accepts_type_objects():
    d = cuda.compile_stages(saxpy, (float32, float32[:], float32[:], float32[:]),
                            stages=("typed",))
    assert "a: float32" in d["typed"] and "x: array(float32, 1d, A)" in d["typed"]


def test_eager_kernels_from_type_objects():
    k1 = cuda.jit(void(float32, float32[::1], float32[::1], float32[::1]))(saxpy)
    k2 = cuda.jit((float32, float32[::1], float32[::1], float32[::1]))(saxpy)
    k3 = cuda.jit(["void(float64, float64[:], float64[:], float64[:])",
                   void(float32, float32[::1], float32[::1], float32[::1])])(saxpy)
    sig32 = "(array(float32, 1d, C), array(float32, 1d, C), array(float32, 1d, C))"
    assert k1.signatures == k2.signatures == ["(float32, " + sig32[1:] + " -> none"]
    assert len(k3.signatures) == 2
    k4 = cuda.jit(saxpy)
    assert k4.compile(types.void(float64, float64[:], float64[:], float64[:])) == \
        "(float64, array(float64, 1d, A), array(float64, 1d, A), array(float64, 1d, A)) -> none"
    assert k4.compile((float32,) + (float32[::1],) * 3) == k1.signatures[0]
    # inspect_* name a specialization by a signature object or argument types
    typed = k3.inspect_types(void(float32, float32[::1], float32[::1], float32[::1]))
    assert "a: float32" in typed
    assert k3.inspect_types((float64, float64[:], float64[:], float64[:])) == \
        k3.inspect_types(k3.signatures[0])
    with pytest.raises(TypeError, match="signature"):
        cuda.jit(3.5)
    with pytest.raises(TypeError, match="signature"):
        cuda.jit([void(float32), 7])
    with pytest.raises(TypeError, match="kernels must return void"):
        cuda.jit(float32(float32))(lambda a: None)


def record_kernel(r, out):
    i = cuda.grid(1)
    if i < r.size:
        out[i] = r[i].x * r[i].n


def test_record_signatures_match_the_argument_type():
    dt = np.dtype([("x", np.float64), ("n", np.int8)], align=True)
    rec = from_dtype(dt)
    text = "none(Record(x: float64 @0, n: int8 @8; 16 bytes, align 8)[::1], float64[::1])"
    assert types.signature_text(void(rec[::1], float64[::1])) == text
    assert cuda.compile_ptx(record_kernel, (rec[::1], float64[::1]))[0] == \
        cuda.compile_ptx(record_kernel, text)[0]
    # The eager specialization is the one a launch with such an array picks.
    k = cuda.jit(void(rec[::1], float64[::1]))(record_kernel)
    assert k.signatures == [cuda.jit(record_kernel).compile(
        (typeof(np.zeros(2, dt)), typeof(np.zeros(2))))]


@pytest.mark.parametrize("text, message", [
    ("void(Record(x: float64 @0; 8 bytes, align 3)[:])", "power of two"),
    ("void(Record(x: float64 @4; 8 bytes, align 8)[:])", "does not fit"),
])
def test_bad_record_signatures(text, message):
    with pytest.raises(errors.CompileError, match=message):
        cuda.compile_ptx(record_kernel, text)


def test_signature_objects_for_device_functions_and_inline_checked():
    # A signature object is callable: it must not be taken for the function.
    @cuda.jit(float32(float32, float32), device=True)
    def add(a, b):
        return a + b

    def k(x, out):
        out[0] = add(x[0], x[1])

    ptx, _ = cuda.compile_ptx(k, "void(float32[::1], float32[::1])")
    assert "add.rn.f32" in ptx or "add.f32" in ptx
    # inline= is checked for kernels as for device functions.
    with pytest.raises(ValueError, match="inline must be"):
        cuda.jit(inline="sometimes")
    with pytest.raises(ValueError, match="inline must be"):
        cuda.jit(device=True, inline=2)
