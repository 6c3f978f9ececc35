"""Tuple arguments larger than the flat limit (types/KernelABI.h:
kMaxFlatTupleSlots) are passed as one aggregate parameter and read in
place; every way of using a tuple gives the same values as for a small one.
"""
import re
import collections

import numpy as np
import pytest

from pycuda_jit import cuda, errors
from gpu_util import poisoned


@cuda.jit
def index_all_ways(t, idx, out):
    i = cuda.grid(1)
    if i < idx.size:
        j = idx[i]
        out[i, 0] = t[j]          # run-time index (negative too)
        out[i, 1] = t[3] + t[-1]  # constant indices
        s = t[0] * 0
        for v in t:               # iteration
            s += v
        out[i, 2] = s
        out[i, 3] = len(t)


@pytest.mark.parametrize("n, dtype", [(40, np.float64), (1000, np.int32),
                                      (5000, np.float32)])
def test_index_iterate_len(backend, rng, n, dtype):
    vals = rng.integers(-1000, 1000, n).astype(dtype)
    t = tuple(vals)  # numpy scalars keep their dtype
    idx = rng.integers(-n, n, 64)
    out = poisoned((64, 4), np.float64)
    index_all_ways[2, 32](t, idx, out)
    np.testing.assert_array_equal(out[:, 0], vals[idx])
    np.testing.assert_array_equal(out[:, 1], vals[3] + vals[-1])
    np.testing.assert_array_equal(out[:, 2], vals.sum(dtype=np.float64))
    np.testing.assert_array_equal(out[:, 3], n)


@cuda.jit(device=True)
def weighted(t, k):
    return t[k] * (k + 1)


@cuda.jit
def mixed(t, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        a, flags, scale, pair = t[0], t[1], t[2], t[3]
        out[i, 0] = a[i] * scale
        out[i, 1] = 1.0 if flags[i % 40] else -1.0
        out[i, 2] = pair[0] + pair[1]
        out[i, 3] = weighted(flags, i % 40)  # the tuple as a value
        for k, f in enumerate(flags):
            if f:
                out[i, 4] += k


def test_arrays_bools_and_nesting(backend, rng):
    a = rng.standard_normal(32)
    flags = tuple(bool(x) for x in rng.integers(0, 2, 40))
    out = np.zeros((32, 5))
    # Arrays inside tuples are device arrays (on the GPU a host array there
    # is refused: nothing would copy it).
    mixed[1, 32](((cuda.to_device(a), flags, 2.5, (3, 4.5))), out)
    f = np.array(flags)
    np.testing.assert_array_equal(out[:, 0], a * 2.5)
    np.testing.assert_array_equal(out[:, 1], np.where(f[np.arange(32) % 40], 1.0, -1.0))
    np.testing.assert_array_equal(out[:, 2], 7.5)
    np.testing.assert_array_equal(out[:, 3], [f[i % 40] * (i % 40 + 1) for i in range(32)])
    np.testing.assert_array_equal(out[:, 4], np.flatnonzero(f).sum())


Wide = collections.namedtuple("Wide", [f"f{k}" for k in range(50)])


@cuda.jit
def fields(w, arrays, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = w.f0 + w.f49 * 2 + arrays[11][i] + arrays[0][i]


def test_namedtuple_and_tuple_of_arrays(backend, rng):
    w = Wide(*rng.standard_normal(50))
    arrays = tuple(rng.standard_normal(16) for _ in range(12))  # 36 slots
    out = poisoned(16, np.float64)
    fields[1, 16](w, tuple(cuda.to_device(x) for x in arrays), out)
    np.testing.assert_array_equal(out, w.f0 + w.f49 * 2 + arrays[11] + arrays[0])


def test_parameter_space_limit_is_a_compile_error():
    # 5000 int64 values need 40000 bytes; CUDA allows 32764.
    sig = "void((" + ", ".join(["int64"] * 5000) + "), int64[:])"

    def k(t, out):
        out[0] = t[0]

    with pytest.raises(errors.UnsupportedError, match="parameter space") as info:
        cuda.compile_ptx(k, sig)
    assert info.value.file == __file__
    assert "device array" in info.value.hint


def test_large_parameters_assemble(backend):
    # 20000 bytes: PTX ISA 8.1, read in place from the parameter space.
    sig = "void((" + ", ".join(["float32"] * 5000) + "), float32[:], int64)"

    def k(t, out, j):
        out[0] = t[j]

    ptx, _ = cuda.compile_ptx(k, sig)
    assert ".version 8.1" in ptx
    assert ".b8 " in ptx and "[20000]" in ptx
    params = [ln for ln in ptx.splitlines() if ln.strip().startswith(".param ")]
    assert len(params) == 5, params  # the tuple is one parameter
    # indexed in place: a 32-bit load from the parameter space at a run-time
    # offset (LLVM 22 types it .b32, LLVM 19 wrote .f32)
    assert re.search(r"ld\.param\.[bf]32\s+%r\d+, \[%rd\d+\]", ptx), ptx[-600:]
    assert len(cuda.link_ptx(ptx)) > 0


@cuda.jit(device=True)
def mul_add(a, b, c):
    return a * b + c


@cuda.jit
def complex_scalars(x, out, c, t, big):
    i = cuda.grid(1)
    if i < x.size:
        # c (a complex scalar: a struct, but passed by value) reaches a
        # device function as it is, as do the elements of a small tuple and
        # of a large one (passed as one aggregate, by reference).
        out[i] = mul_add(x[i], c, t[1]) + big[i % len(big)] - c


def test_complex_scalar_arguments_are_values_not_aggregates(rng):
    n = 64
    x = rng.standard_normal(n) + 1j * rng.standard_normal(n)
    c = np.complex128(rng.standard_normal() + 1j * rng.standard_normal())
    t = (np.complex128(0.5 - 2j), np.complex128(-1.25 + 0.75j))
    big = tuple(np.complex128(k - 0.5j * k) for k in range(40))  # > 32 slots
    out = poisoned(n, np.complex128)
    complex_scalars[1, n](x, out, c, t, big)
    want = x * c + t[1] + np.array(big)[np.arange(n) % len(big)] - c
    np.testing.assert_allclose(out, want, rtol=1e-15, atol=1e-14)
