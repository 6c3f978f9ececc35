"""Kernels compiled with debug=True (full DWARF: variables, .debug sections,
linked unoptimized with -g on the GPU) compute what they compute without it,
for opt=0 and the default.  Locals that change type, loop-carried locals,
reassigned parameters, tuples, records and device functions exercise every
kind of debug variable (tests/python/test_debuginfo.py checks the metadata)."""
import numpy as np
import pytest

from pycuda_jit import cuda, float64, from_dtype

from gpu_util import poisoned


@cuda.jit(device=True)
def bump(v, k):
    w = v * k
    w = w + 1
    return w


def body(x, n, pair, out):
    i = cuda.grid(1)
    if i >= out.size:
        return
    acc = 0          # int64, then float64: a union variable
    for k in range(n):
        acc = acc + x[i] * k
    n = n + i        # a parameter assigned again
    flag = acc > 2.0
    if flag:
        acc = bump(acc, pair[0])
    else:
        acc = acc - pair[1]
    out[i] = acc + n


def reference(x, n, pair):
    out = np.empty_like(x)
    for i in range(x.size):
        acc = 0.0
        for k in range(n):
            acc = acc + x[i] * k
        acc = acc * pair[0] + 1 if acc > 2.0 else acc - pair[1]
        out[i] = acc + (n + i)
    return out


@pytest.mark.parametrize("opt", [0, 3])
def test_debug_kernels_compute_the_same(rng, opt):
    kernel = cuda.jit(debug=True, opt=opt)(body)
    x = rng.uniform(-1.0, 2.0, 300)
    out = poisoned(x.shape, np.float64)
    kernel[3, 128](x, 4, (1.5, 0.25), out)
    np.testing.assert_allclose(out, reference(x, 4, (1.5, 0.25)), rtol=1e-12)


REC = np.dtype([("a", np.int32), ("b", np.float64)])


def record_body(r, out):
    i = cuda.grid(1)
    if i < out.size:
        rec = r[i]
        s = rec.a * 2
        s = s + rec.b
        out[i] = s


def test_debug_kernels_with_records(rng):
    kernel = cuda.jit((from_dtype(REC)[::1], float64[::1]), debug=True)(record_body)
    r = np.zeros(100, REC)
    r["a"] = rng.integers(-50, 50, 100)
    r["b"] = rng.uniform(-1, 1, 100)
    out = poisoned(100, np.float64)
    kernel[1, 128](r, out)
    np.testing.assert_allclose(out, r["a"] * 2 + r["b"], rtol=1e-15)


def test_debug_cubin_carries_dwarf(hardware):
    # On the GPU the module is linked by nvJitLink with -g (ptxas refuses
    # -O3 on PTX with DWARF): the kernel above loads and runs; its PTX has
    # the sections cuda-gdb reads.
    kernel = cuda.jit(debug=True, opt=0)(body)
    x = np.linspace(0, 1, 64)
    out = poisoned(64, np.float64)
    kernel[1, 64](x, 3, (2.0, 0.5), out)
    np.testing.assert_allclose(out, reference(x, 3, (2.0, 0.5)), rtol=1e-12)
    ptx = kernel.inspect_asm(kernel.signatures[0])
    assert ".section\t.debug_info" in ptx and ", debug" in ptx
