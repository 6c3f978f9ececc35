"""CUDA vector types (cuda.float32x4, cuda.int2, ...): construction from
scalars and from smaller vectors of the same element type, the fields
x/y/z/w, the C aliases being the same objects, vectors through device
functions, tuples and branches, and misuse as TypingErrors at the line."""
import numpy as np
import pytest

from pycuda_jit import cuda, errors
from pycuda_jit.cuda.vector_types import vector_types
from gpu_util import poisoned

FIELDS = "xyzw"


def random_values(rng, dtype, n):
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return (rng.standard_normal(n) * 1e3).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, n, endpoint=True, dtype=dtype)


def scalar_kernel(ctor, count):
    # v = ctor(x[0], ..., x[count-1]); out[k] = v.<field k>
    args = ", ".join(f"x[{k}]" for k in range(count))
    reads = "\n".join(f"    out[{k}] = v.{FIELDS[k]}" for k in range(count))
    src = f"def k(out, x):\n    v = ctor({args})\n{reads}\n"
    ns = {"ctor": ctor}
    exec(compile(src, f"<vector {count}>", "exec"), ns)
    return cuda.jit(ns["k"])


@pytest.mark.parametrize("name", sorted(vector_types))
def test_construct_from_scalars(backend, rng, name):
    vt = vector_types[name]
    dtype = np.dtype(str(vt.base_type))
    x = random_values(rng, dtype, vt.num_elements)
    out = poisoned(vt.num_elements, dtype)
    scalar_kernel(vt.user_facing_object, vt.num_elements)[1, 1](out, x)
    np.testing.assert_array_equal(out.view(f"u{dtype.itemsize}"),
                                  x.view(f"u{dtype.itemsize}"))


@cuda.jit
def k_combinations(out, x):
    a, b, c, d = x[0], x[1], x[2], x[3]
    v1 = cuda.float32x1(a)
    v2 = cuda.float2(b, c)
    v3 = cuda.float3(v2, d)
    i = 0
    for v in (cuda.float4(v1, v3), cuda.float4(v3, v1), cuda.float4(v2, v2),
              cuda.float4(a, v2, v1), cuda.float4(cuda.float4(d, c, b, a))):
        out[i] = v.x
        out[i + 1] = v.y
        out[i + 2] = v.z
        out[i + 3] = v.w
        i += 4
    w = cuda.float2(cuda.float1(v1), v1)
    # a float64 value and a Python int, converted to float32 like a cast
    u = cuda.float2(np.float64(a) * 3.0, 7)
    out[20] = w.x + w.y
    out[21] = u.x
    out[22] = u.y


def test_construct_from_vectors(backend, rng):
    x = rng.standard_normal(4).astype(np.float32)
    a, b, c, d = x
    out = poisoned(23, np.float32)
    k_combinations[1, 1](out, x)
    want = [a, b, c, d, b, c, d, a, b, c, b, c, a, b, c, a, d, c, b, a,
            np.float32(a) + np.float32(a), np.float32(np.float64(a) * 3.0), 7]
    np.testing.assert_array_equal(out, np.array(want, np.float32))


@cuda.jit
def k_int_from_float(out, x):
    v = cuda.int2(x[0], x[1])
    w = cuda.uchar4(x[2], 1, 2, 3)
    out[0] = v.x
    out[1] = v.y
    out[2] = w.x


def test_scalars_convert_like_casts(backend):
    x = np.array([2.7, -3.9, 200.5], np.float64)
    out = poisoned(3, np.int64)
    k_int_from_float[1, 1](out, x)
    np.testing.assert_array_equal(out, [2, -3, 200])


def test_aliases_are_the_same_objects():
    assert cuda.float4 is cuda.float32x4
    assert cuda.double2 is cuda.float64x2
    assert cuda.int3 is cuda.int32x3
    assert cuda.uchar1 is cuda.uint8x1
    assert cuda.longlong4 is cuda.int64x4
    assert cuda.long2 is getattr(cuda, f"int{np.dtype(np.int_).itemsize * 8}x2")
    assert "double2" in cuda.float64x2.aliases
    for vt in vector_types.values():
        for alias in vt.user_facing_object.aliases:
            assert getattr(cuda, alias) is getattr(cuda, vt.name)
    assert len(vector_types) == 40
    with pytest.raises(RuntimeError, match="only be used inside"):
        cuda.float4(1, 2, 3, 4)


@cuda.jit(device=True)
def rotate(v):
    return cuda.int32x3(v.y, v.z, v.x)


@cuda.jit
def k_device_and_branches(out, x):
    i = cuda.grid(1)
    if i < x.shape[0]:
        v = rotate(cuda.int3(x[i, 0], x[i, 1], x[i, 2]))
        if x[i, 0] < 0:
            v = rotate(v)
        out[i, 0] = v.x
        out[i, 1] = v.y
        out[i, 2] = v.z


def test_vectors_through_device_functions_and_branches(backend, rng):
    x = rng.integers(-1000, 1000, (100, 3)).astype(np.int32)
    out = poisoned((100, 3), np.int32)
    k_device_and_branches[2, 64](out, x)
    want = np.where(x[:, :1] < 0, np.roll(x, -2, axis=1), np.roll(x, -1, axis=1))
    np.testing.assert_array_equal(out, want)


# ---- misuse --------------------------------------------------------------------------

MISUSE = {
    "add": ("r[0] = (v + v).x", "unsupported operand types"),
    "index": ("r[0] = v[0]", "not subscriptable"),
    "store": ("r[0] = v", "cannot store float32x2"),
    "field": ("r[0] = v.z", "'float32x2' has no attribute 'z'"),
    "other_base": ("w = cuda.int2(v)", "whose elements are not int32"),
    "count": ("w = cuda.float3(v)", "takes 3 float32 values in all, got 2"),
    "complex": ("w = cuda.float2(1j, 2)", "must be a real number or a float32 vector"),
    "keyword": ("w = cuda.float2(x=1, y=2)", "takes no keyword arguments"),
}


@pytest.mark.parametrize("case", sorted(MISUSE))
def test_misuse_is_a_typing_error(case):
    body, match = MISUSE[case]
    src = f"def k(r):\n    v = cuda.float2(1.0, 2.0)\n    {body}\n"
    ns = {"cuda": cuda}
    exec(compile(src, f"<vector misuse {case}>", "exec"), ns)
    with pytest.raises(errors.TypingError, match=match) as info:
        cuda.compile_ptx(ns["k"], "void(float64[::1])")
    assert f"<vector misuse {case}>" in str(info.value)
