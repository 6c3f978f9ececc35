"""cuda.shared.array / cuda.local.array with alignment= (numba-cuda's
keyword): the PTX declares the alignment, arrays of several alignments in
one kernel keep their own values, and invalid alignments are compile
errors."""
import re

import numpy as np
import pytest

from pycuda_jit import cuda, errors, types
from gpu_util import poisoned

ALIGNMENTS = [16, 64, 256, 1024]


def _shared_kernel(align):
    @cuda.jit
    def k(x, out):
        t = cuda.threadIdx.x
        a = cuda.shared.array(3, np.uint8, alignment=align)
        b = cuda.shared.array((2, 5), np.float64, alignment=align)
        c = cuda.shared.array(7, np.int32)
        if t < 3:
            a[t] = t + 1
        if t < 10:
            b[t // 5, t % 5] = x[t]
        if t < 7:
            c[t] = -t
        cuda.syncthreads()
        if t < 10:
            out[t] = b[t // 5, t % 5] * a[t % 3] + c[t % 7]
    return k


def _local_kernel(align):
    @cuda.jit
    def k(x, out):
        i = cuda.grid(1)
        if i < out.shape[0]:
            a = cuda.local.array(5, np.float32, alignment=align)
            b = cuda.local.array((2, 2), np.int64, align)
            for j in range(5):  # run-time indices: the arrays stay in memory
                a[(j + i) % 5] = x[i] + j
            for j in range(4):
                b[(j + i) % 4 // 2, (j + i) % 2] = j * i
            s = 0.0
            for j in range(5):
                s += a[j] * b[j % 2, (j + 1) % 2]
            out[i] = s
    return k


def _local_reference(x):
    out = np.empty(x.shape, np.float32)
    for i in range(x.shape[0]):
        a = np.empty(5, np.float32)
        b = np.empty((2, 2), np.int64)
        for j in range(5):
            a[(j + i) % 5] = x[i] + np.float32(j)
        for j in range(4):
            b[(j + i) % 4 // 2, (j + i) % 2] = j * i
        s = 0.0
        for j in range(5):
            s += float(a[j]) * float(b[j % 2, (j + 1) % 2])
        out[i] = s
    return out


@pytest.mark.parametrize("align", ALIGNMENTS + [None])
def test_shared_arrays_of_several_alignments_keep_their_values(backend, rng, align):
    x = rng.integers(-1000, 1000, 10).astype(np.float64)  # exact with or without fma
    out = poisoned(10, np.float64)
    _shared_kernel(align)[1, 32](x, out)
    t = np.arange(10)
    np.testing.assert_array_equal(out, x * (t % 3 + 1) - (t % 7))


@pytest.mark.parametrize("align", ALIGNMENTS + [None])
def test_local_arrays_with_alignment(backend, rng, align):
    n = 70
    x = rng.standard_normal(n).astype(np.float32)
    out = poisoned(n, np.float32)
    _local_kernel(align)[2, 64](x, out)
    np.testing.assert_allclose(out, _local_reference(x), rtol=1e-6)


@pytest.mark.parametrize("align", ALIGNMENTS)
def test_ptx_declares_the_alignment(align):
    sig = (types.float64[::1], types.float64[::1])
    ptx, _ = cuda.compile_ptx(_shared_kernel(align).py_func, sig, cc=(9, 0))
    decls = re.findall(r"\.shared \.align (\d+) \.b8 [^\[\s]+\[(\d+)\]", ptx)
    # the uint8 and float64 arrays with the alignment, the int32 one 16
    assert sorted(int(a) for a, _ in decls) == sorted([align, align, 16])
    sig = (types.float32[::1], types.float32[::1])
    ptx, _ = cuda.compile_ptx(_local_kernel(align).py_func, sig, cc=(9, 0))
    depot = re.search(r"\.local \.align (\d+) \.b8\s+__local_depot", ptx)
    assert depot and int(depot.group(1)) >= align


@pytest.mark.parametrize("align", [-1, 0, 3, 17, 33, 4])
@pytest.mark.parametrize("where", ["shared", "local"])
def test_invalid_alignment_values(backend, where, align):
    space = getattr(cuda, where)

    @cuda.jit
    def k(out):
        a = space.array(4, np.float32, alignment=align)
        a[0] = 1.0
        out[0] = a[0]

    with pytest.raises(errors.ConstantValueError, match="Alignment must be"):
        k[1, 1](np.zeros(1, np.float32))


@pytest.mark.parametrize("align", [1.0, "16", 16.5])
def test_alignment_must_be_a_constant_integer(backend, align):
    @cuda.jit
    def k(out):
        a = cuda.local.array(4, np.float32, alignment=align)
        a[0] = 1.0
        out[0] = a[0]

    with pytest.raises(errors.TypingError, match="constant integer"):
        k[1, 1](np.zeros(1, np.float32))


def test_run_time_alignment_is_a_typing_error(backend):
    @cuda.jit
    def k(out, align):
        a = cuda.shared.array(4, np.float32, alignment=align)
        a[0] = 1.0
        out[0] = a[0]

    with pytest.raises(errors.TypingError, match="constant integer"):
        k[1, 1](np.zeros(1, np.float32), 16)
