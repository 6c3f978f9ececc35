"""Compile-time constants keep their exact values: unsigned 64-bit values at
and above 2**63 (globals, closure variables, tuples, literals in
np.uint64(...) calls), and Python ints too large for any integer type where
they are used as floats (NEP 50: a Python int converts to the other
operand's type, here a float)."""
import numpy as np
import pytest

from pycuda_jit import cuda, errors
from gpu_util import poisoned

GOLDEN = np.uint64(0x9E3779B97F4A7C15)      # numpy scalar >= 2**63
ALL_ONES = 0xFFFFFFFFFFFFFFFF               # Python int >= 2**63
HALF = 2**63                                # exactly 2**63
PAIR = (np.uint64(0xC2B2AE3D27D4EB4F), 2**63 + 5)
uint64 = np.uint64                          # as benchmarks/kernels.py spells it

MASK64 = (1 << 64) - 1


def make_closure_kernel(c):
    @cuda.jit
    def k(x, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = x[i] ^ c
    return k


@cuda.jit
def u64_globals(x, out, flags):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        out[i, 0] = v ^ GOLDEN
        out[i, 1] = v * np.uint64(0x9E3779B97F4A7C15)   # a literal in a call
        out[i, 2] = ALL_ONES - v
        out[i, 3] = v + PAIR[0]
        out[i, 4] = v ^ PAIR[1]
        out[i, 5] = HALF | v
        out[i, 6] = GOLDEN                                 # a plain store
        out[i, 7] = uint64(0xFFFFFFFFFFFFFFFE) & v
        flags[i, 0] = v < GOLDEN
        flags[i, 1] = v >= HALF
        flags[i, 2] = v == ALL_ONES


def test_uint64_constants_round_trip(backend, rng):
    n = 200
    x = rng.integers(0, 2**64, n, dtype=np.uint64, endpoint=False)
    x[:4] = [0, 2**63, 2**64 - 1, int(GOLDEN)]
    out = poisoned((n, 8), np.uint64)
    flags = poisoned((n, 3), np.bool_)
    u64_globals[2, 128](x, out, flags)
    xs = [int(v) for v in x]
    g = int(GOLDEN)
    expect = np.array([[v ^ g, (v * g) & MASK64, MASK64 - v, (v + int(PAIR[0])) & MASK64,
                        v ^ PAIR[1], 2**63 | v, g, (2**64 - 2) & v] for v in xs], dtype=np.uint64)
    np.testing.assert_array_equal(out, expect)
    np.testing.assert_array_equal(
        flags, np.array([[v < g, v >= 2**63, v == MASK64] for v in xs]))


def test_uint64_closure_variables_are_distinct(backend, rng):
    # Two kernels that differ only in a closure value: each keeps its own.
    x = rng.integers(0, 2**64, 64, dtype=np.uint64, endpoint=False)
    for c in (np.uint64(2**63), np.uint64(2**63 + 1), 2**64 - 1, np.uint64(2**64 - 1)):
        out = poisoned(64, np.uint64)
        make_closure_kernel(c)[1, 64](x, out)
        np.testing.assert_array_equal(out, x ^ np.uint64(c))


@cuda.jit
def big_into_floats(a, b):
    a[0] = 10**100
    a[1] = -(10**300)
    a[2] = 2**64 + 1        # rounds to 2**64
    a[3] = 2**53 + 1        # rounds to even: 2**53
    a[4] = 0xFFFFFFFFFFFFFFFF
    a[5] = 10**100 * a[6]  # the Python int becomes float64 first
    b[0] = 10**100          # beyond float32: inf, as NumPy
    b[1] = 2**64 - 1        # float32: 2**64
    b[2] = 16777217         # float32 rounds to even: 16777216


def test_big_python_ints_convert_to_floats_exactly(backend):
    a = poisoned(7, np.float64)
    a[6] = 0.5
    b = poisoned(3, np.float32)
    with np.errstate(over="ignore"):
        big_into_floats[1, 1](a, b)
    np.testing.assert_array_equal(
        a[:6], [1e100, -1e300, float(2**64 + 1), float(2**53 + 1), float(2**64 - 1), 5e99])
    np.testing.assert_array_equal(b, np.array([np.inf, 2.0**64, 16777216.0], np.float32))


@cuda.jit
def index_from_registers(out):
    i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    # Products that do not fit 32 bits must not wrap (numba computes these
    # in int64; so do we, with the special registers typed int64).
    out[i, 0] = cuda.threadIdx.x * 1000000000 + 7
    out[i, 1] = (cuda.blockIdx.x + 2147483647) * cuda.blockDim.x
    out[i, 2] = cuda.gridDim.x * cuda.blockDim.x * 1073741824 + i
    out[i, 3] = cuda.laneid * 3000000000 + cuda.warpsize


def test_index_arithmetic_from_registers_does_not_wrap(backend):
    blocks, threads = 3, 64
    out = poisoned((blocks * threads, 4), np.int64)
    index_from_registers[blocks, threads](out)
    for i in range(blocks * threads):
        b, t = divmod(i, threads)
        assert list(out[i]) == [t * 10**9 + 7, (b + 2147483647) * threads,
                                blocks * threads * 2**30 + i, (t % 32) * 3 * 10**9 + 32], i


def test_more_than_2_31_threads(hardware):
    # A 1-D grid of 2**31 + 2048 threads: the last 2048 have indices that do
    # not fit in int32 and write out[i - 2**31] = i.  With 32-bit index
    # arithmetic they would compute negative indices and write nothing.
    @cuda.jit
    def tail(out, base):
        i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
        if i >= base:
            out[i - base] = i
        g = cuda.grid(1)
        if g >= base:
            out[g - base + 2048] = g

    threads = 1024
    blocks = 2**31 // threads + 2
    out = poisoned(4096, np.int64)
    tail[blocks, threads](out, 2**31)
    want = np.arange(2**31, 2**31 + 2048, dtype=np.int64)
    np.testing.assert_array_equal(out[:2048], want)
    np.testing.assert_array_equal(out[2048:], want)


@cuda.jit
def pow_big_exponent(a, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i, 0] = a[i] ** 2**70          # a float64 exponent, not 0
        out[i, 1] = a[i] ** 18446744073709551615


def test_big_int_exponent(backend):
    a = np.array([0.5, 1.0, 1.0000001, -1.0, 2.0])
    out = poisoned((5, 2), np.float64)
    pow_big_exponent[1, 8](a, out)
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(out[:, 0], [v ** float(2**70) for v in a])
        np.testing.assert_array_equal(out[:, 1], [v ** float(2**64 - 1) for v in a])


@cuda.jit(boundscheck=False)
def range_counts(starts, stops, steps, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        n = 0
        last = -1
        for v in range(starts[i], stops[i], steps[i]):
            n += 1
            last = v
        out[i, 0] = n
        out[i, 1] = last
        m = 0
        for v in range(np.uint32(starts[i] + 8), np.uint32(stops[i] + 8), np.uint32(steps[i] + 8)):
            m += 1
        out[i, 2] = m


def test_range_with_a_run_time_zero_step_is_empty(backend):
    # Python raises ValueError for range(a, b, 0); unchecked, a kernel does
    # not raise: the range is empty (a constant zero step is a compile error).
    starts = np.array([0, 5, 0, -3, 0, 7, -8])
    stops = np.array([10, 0, 10, 3, 0, 7, 2])
    steps = np.array([0, 0, 3, 2, -1, 0, -8])
    out = poisoned((7, 3), np.int64)
    range_counts[1, 8](starts, stops, steps, out)
    for k in range(7):
        r = range(starts[k], stops[k], steps[k]) if steps[k] else range(0)
        ru = range(starts[k] + 8, stops[k] + 8, steps[k] + 8) if steps[k] + 8 else range(0)
        assert list(out[k]) == [len(r), r[-1] if len(r) else -1, len(ru)], k


SCALARS = (np.int8(100), np.float32(0.1), 3, (np.uint16(65535), 2.5))


@cuda.jit
def tuple_of_numpy_scalars(out):
    # Read into int64 / float64 outputs: the arithmetic's own type shows.
    out[0] = SCALARS[0] + SCALARS[0]        # int8 arithmetic wraps: -56
    out[1] = SCALARS[1] * SCALARS[1]        # float32 multiplication
    out[2] = SCALARS[3][0] + 1              # uint16 wraps: 0
    out[3] = SCALARS[1] + SCALARS[2]        # float32 + int64 (tuple element): float64


def test_numpy_scalars_in_tuples_keep_their_dtypes(backend):
    out = poisoned(4, np.float64)
    tuple_of_numpy_scalars[1, 1](out)
    with np.errstate(over="ignore"):
        want = [np.int8(100) + np.int8(100), np.float32(0.1) * np.float32(0.1),
                np.uint16(65535) + np.uint16(1), np.float64(np.float32(0.1)) + 3.0]
    np.testing.assert_array_equal(out, np.array(want, dtype=np.float64))


TENTH64 = np.float64(0.1)          # subclasses of Python float / complex,
ROT64 = np.complex128(0.6 + 0.8j)  # but strong numpy scalars (NEP 50)


@cuda.jit
def strong_float64_globals(x, z, out, outz):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = x[i] * TENTH64      # float32 * float64 scalar: float64
        outz[i] = z[i] * ROT64       # complex64 * complex128 scalar: complex128
        out[i + x.size] = x[i] * (TENTH64, 1)[0]


def test_numpy_float64_and_complex128_globals_are_strong(backend, rng):
    # np.float64 and np.complex128 are subclasses of Python's float and
    # complex: they were frozen as weak Python scalars, so x * TENTH64 was
    # computed in float32 (with 0.1 rounded to float32).  Seen as
    # cuda.random's normal_float64 differing from numba-cuda on the H200.
    n = 64
    x = rng.standard_normal(n).astype(np.float32)
    z = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(np.complex64)
    out, outz = poisoned(2 * n, np.float64), poisoned(n, np.complex128)
    strong_float64_globals[1, n](x, z, out, outz)
    # NumPy 2 promotes to float64 / complex128 (NumPy 1's value-based
    # casting would not: spelled out).
    want = x.astype(np.float64) * TENTH64
    np.testing.assert_array_equal(out, np.concatenate([want, want]))
    np.testing.assert_allclose(outz, z.astype(np.complex128) * ROT64,
                               rtol=1e-15)  # complex64 would be 1e-7 off


@cuda.jit(device=True)
def scaled_default(x, by=TENTH64):
    return x * by


@cuda.jit(device=True)
def scaled_by(x, by):
    return x * by


@cuda.jit
def strong_scalars_into_device_functions(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = scaled_default(x[i])                    # a np.float64 default
        out[i + x.size] = scaled_by(x[i], TENTH64)       # a np.float64 global passed on
        out[i + 2 * x.size] = scaled_by(x[i], np.float64(0.1))


def test_numpy_scalar_defaults_and_arguments_of_device_functions_stay_strong(backend, rng):
    # The same rule through device functions: a default value and a
    # compile-time argument (the callee is specialized on the value) keep
    # their dtype; they were rebuilt as weak Python floats.
    n = 32
    x = rng.standard_normal(n).astype(np.float32)
    out = poisoned(3 * n, np.float64)
    strong_scalars_into_device_functions[1, n](x, out)
    want = x.astype(np.float64) * TENTH64
    np.testing.assert_array_equal(out, np.concatenate([want, want, want]))


def range_checked_body(steps, out):
    i = cuda.grid(1)
    if i < steps.size:
        n = 0
        for v in range(0, 10, steps[i]):
            n += 1
        out[i] = n


@pytest.mark.parametrize("options", [{"debug": True}, {"boundscheck": True}, {}])
def test_range_zero_step_raises_in_checked_mode(backend, options):
    if backend != "cpu" and not options:
        pytest.skip("the GPU checks only with debug=True or boundscheck=True")
    k = cuda.jit(**options)(range_checked_body)  # the CPU checks by default
    steps = np.array([1, 3, 2, 5])
    out = poisoned(4, np.int64)
    k[1, 4](steps, out)
    np.testing.assert_array_equal(out, [10, 4, 5, 2])
    steps[2] = 0
    with pytest.raises(errors.KernelValueError, match=r"range\(\) arg 3 must not be zero"
                       r" in kernel 'range_checked_body' \(.*test_constants.py:\d+\)"):
        k[1, 4](steps, out)
