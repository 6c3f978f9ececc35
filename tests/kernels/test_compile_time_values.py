"""Compile-time values passed into device functions (constants, dtypes,
intrinsics, builtins, operator and math functions, device functions,
kernels): the callee is specialized on the value."""
import math
import operator

import numpy as np
import pytest

from pycuda_jit import cuda, errors
from pycuda_jit import float32, uint32
from gpu_util import poisoned


# ---- compile-time values passed into device functions -------------------------------

@cuda.jit(device=True)
def apply(op, a, b):
    return op(a, b)


@cuda.jit(device=True)
def twice(f, x):
    return f(f(x))


@cuda.jit(device=True)
def inc(x):
    return x + 1


@cuda.jit(device=True)
def sq(x):
    return x * x


@cuda.jit(device=True)
def scratch_sum(x, n, dtype):
    buf = cuda.local.array(n, dtype)   # n and dtype are known at compile time
    for k in range(n):
        buf[k] = x + k
    s = 0
    for k in range(n):
        s += buf[k]
    return s


@cuda.jit(device=True)
def atomic_into(arr, i, v, fn):
    fn(arr, i, v)


@cuda.jit
def uses_values(a, b, out, counts):
    i = cuda.grid(1)
    if i < a.size:
        out[i, 0] = apply(operator.add, a[i], b[i])
        out[i, 1] = apply(operator.mul, a[i], b[i])
        out[i, 2] = apply(min, a[i], b[i])
        out[i, 3] = apply(math.atan2, a[i], b[i])
        out[i, 4] = twice(inc, a[i])
        out[i, 5] = twice(sq, a[i])
        out[i, 6] = scratch_sum(a[i], 4, np.int32)
        out[i, 7] = scratch_sum(a[i], 3, float32)
        atomic_into(counts, 0, 1, cuda.atomic.add)
        atomic_into(counts, 1, i, cuda.atomic.max)


def test_compile_time_arguments(rng):
    n = 100
    a = rng.uniform(-30, 30, n)
    b = rng.uniform(-30, 30, n)
    out = poisoned((n, 8), np.float64)
    counts = np.zeros(2, np.int64)
    uses_values[2, 64](a, b, out, counts)
    np.testing.assert_array_equal(out[:, 0], a + b)
    np.testing.assert_array_equal(out[:, 1], a * b)
    np.testing.assert_array_equal(out[:, 2], np.minimum(a, b))
    np.testing.assert_allclose(out[:, 3], np.arctan2(a, b), rtol=1e-15)
    np.testing.assert_array_equal(out[:, 4], (a + 1) + 1)
    np.testing.assert_allclose(out[:, 5], a ** 4, rtol=1e-15)
    np.testing.assert_array_equal(
        out[:, 6], sum(np.trunc(a + k).astype(np.int32) for k in range(4)))
    want32 = np.zeros(n, np.float32)
    for k in range(3):
        want32 = want32 + (a + k).astype(np.float32)
    np.testing.assert_array_equal(out[:, 7], want32)
    assert list(counts) == [n, n - 1]
    # One specialization per value: apply four times, scratch_sum twice.
    res = uses_values.stats["resolutions"]
    specs = [r for r in res if r.startswith("device function apply(")]
    assert len(specs) == 4, specs
    assert any("intrinsic(operator.add)" in r for r in specs)
    assert any("intrinsic(math.atan2)" in r for r in specs)
    sums = [r for r in res if r.startswith("device function scratch_sum(")]
    assert len(sums) == 2 and all("int64 = 4" in r or "int64 = 3" in r for r in sums), sums


def make_adder(k):
    @cuda.jit(device=True)
    def add_k(x):
        return x + k
    return add_k


add_one, add_ten = make_adder(1), make_adder(10)


@cuda.jit(device=True)
def call1(f, x):
    return f(x)


@cuda.jit
def same_names(a, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i, 0] = call1(add_one, a[i])
        out[i, 1] = call1(add_ten, a[i])


def test_device_functions_with_one_name_stay_apart(rng):
    # Both closures are '<locals>.add_k': the specialization of call1 must
    # tell them apart by identity, not by name.
    a = rng.integers(-1000, 1000, 50)
    out = poisoned((50, 2), np.int64)
    same_names[1, 64](a, out)
    np.testing.assert_array_equal(out[:, 0], a + 1)
    np.testing.assert_array_equal(out[:, 1], a + 10)


@cuda.jit
def triple(x):  # a kernel, called from other kernels as a device function
    return x * 3


@cuda.jit
def calls_a_kernel(a, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = call1(triple, a[i]) + triple(a[i] + 1)


def test_kernels_are_device_functions_inside_kernels(rng):
    a = rng.uniform(-5, 5, 40)
    out = poisoned(40, np.float64)
    calls_a_kernel[1, 64](a, out)
    np.testing.assert_array_equal(out, a * 3 + (a + 1) * 3)


@cuda.jit(device=True)
def block_hist(vals, out, shape, dtype, op):
    sm = cuda.shared.array(shape, dtype)   # a shape passed in as a constant
    t = cuda.threadIdx.x
    if t < shape[0] * shape[1]:
        sm[t // shape[1], t % shape[1]] = 0
    cuda.syncthreads()
    v = vals[cuda.grid(1)]
    op(sm, (v // shape[1] % shape[0], v % shape[1]), 1)
    cuda.syncthreads()
    if t < shape[0] * shape[1]:
        out[cuda.blockIdx.x, t] = sm[t // shape[1], t % shape[1]]


@cuda.jit
def histograms(vals, out_u, out_f):
    block_hist(vals, out_u, (2, 8), uint32, cuda.atomic.add)
    block_hist(vals, out_f, (4, 2), np.float64, cuda.atomic.sub)


def test_shapes_dtypes_and_atomics_passed_in(rng):
    blocks, threads = 3, 64
    vals = rng.integers(0, 1000, blocks * threads)
    out_u = poisoned((blocks, 16), np.uint32)
    out_f = poisoned((blocks, 8), np.float64)
    histograms[blocks, threads](vals, out_u, out_f)
    for blk in range(blocks):
        v = vals[blk * threads:(blk + 1) * threads]
        np.testing.assert_array_equal(out_u[blk], np.bincount(v % 16, minlength=16))
        np.testing.assert_array_equal(out_f[blk], -np.bincount(v % 8, minlength=8))


@cuda.jit(device=True)
def fact(n):
    if n <= 1:
        return 1
    return n * fact(n - 1)


@cuda.jit
def recursion_from_constants(out):
    out[0] = fact(5)
    out[1] = fact(cuda.threadIdx.x + 6)


def test_recursion_called_with_a_constant():
    # fact(5) is specialized on 5; its recursive call fact(n - 1) is the
    # ordinary specialization, which recurses as before.
    out = poisoned(2, np.int64)
    recursion_from_constants[1, 1](out)
    assert list(out) == [120, 720]


def test_what_cannot_be_passed_is_a_clear_error():
    @cuda.jit(device=True)
    def first(t):
        return t[1]

    @cuda.jit
    def k(a):
        a[0] = first((cuda.atomic.add, 1))

    with pytest.raises(errors.TypingError, match="cannot pass a Tuple\\(intrinsic"):
        k[1, 1](np.zeros(1))


def test_distinct_values_give_distinct_cache_keys():
    def make(op):
        @cuda.jit
        def k(a, b, out):
            out[0] = apply(op, a[0], b[0])
        return k

    a, b = np.array([6.0]), np.array([3.0])
    keys, results = set(), []
    for op in (operator.add, operator.sub, operator.truediv):
        k, out = make(op), poisoned(1, np.float64)
        k[1, 1](a, b, out)
        keys.add(k.stats["cache_key"])
        results.append(out[0])
    assert results == [9.0, 3.0, 2.0] and len(keys) == 3


# ---- branches on values known at compile time ---------------------------------------

@cuda.jit(device=True)
def put(out, v, wrap, scale):
    t = cuda.threadIdx.x
    idx = (np.int32(t), np.int32(1))
    if wrap:  # (int64, float64): does not unify with (int32, int32)
        idx = (t % out.shape[0], 0.5)
    if scale is None:
        out[idx[0], 0] = v
    else:
        out[idx[0], 0] = v * scale
    out[idx[0], 1] = idx[1]


@cuda.jit
def flags(out1, out2, out3):
    put(out1, 1.5, False, None)
    put(out2, 1.5, False, 4.0)
    put(out3, 2.5, True, None)


def test_branches_on_constant_arguments_are_pruned():
    # numba-cuda's idiom (atomic_binary_2dim_shared(..., neg_idx=False)): a
    # flag passed in selects code, and the code not taken is never typed.
    outs = [poisoned((8, 2), np.float64) for _ in range(3)]
    flags[1, 8](*outs)
    np.testing.assert_array_equal(outs[0], [[1.5, 1.0]] * 8)
    np.testing.assert_array_equal(outs[1], [[6.0, 1.0]] * 8)
    np.testing.assert_array_equal(outs[2], [[2.5, 0.5]] * 8)


CHECKS = False


@cuda.jit
def dead_debug_code(out):
    if CHECKS:
        out[0] = "checks on"   # not a number: only an error if compiled
    if not CHECKS:
        out[0] = 7.0


def test_code_under_a_false_global_is_not_compiled():
    out = poisoned(1, np.float64)
    dead_debug_code[1, 1](out)
    assert out[0] == 7.0
