"""Link-time optimization (cuda.jit(lto=True)): the kernel reaches nvJitLink
as libNVVM's LTO-IR (through the NVVM IR writer) and is optimized together
with the foreign code, CUDA C++ compiled by NVRTC with -dlto and LTO-IR from
cuda.compile(output="ltoir").  Values here; the inlining itself (no CALL in
the SASS) is checked compile-only in tests/python/test_lto.py.  CUDA C runs
on the CPU executor too (lto=True changes nothing there); LTO-IR inputs and
the timing check are GPU only (`hardware`)."""
import numpy as np

from gpu_util import poisoned
from pycuda_jit import cuda, float32, int32

STEP = cuda.CUSource("""
extern "C" __device__ int lto_step(float *out, float v, float a, float b)
{
  *out = v * a + b;
  return 0;
}
""", name="lto_step.cu")

lto_step = cuda.declare_device("lto_step", "float32(float32, float32, float32)", link=STEP)


def chain_kernel(fn, **options):
    @cuda.jit(**options)
    def chain(out, iters, a, b):
        i = cuda.grid(1)
        if i < out.size:
            v = out[i]
            for _ in range(iters):
                v = fn(v, a, b)
            out[i] = v
    return chain


def reference(x, iters, a, b):
    v = x.astype(np.float64)
    for _ in range(iters):
        v = v * a + b
    return v


def test_lto_kernel_calling_cuda_source_computes_the_same(rng):
    x = rng.uniform(-1, 1, 1000).astype(np.float32)
    a, b = np.float32(0.75), np.float32(0.125)
    outs = {}
    for lto in (False, True):
        k = chain_kernel(lto_step, lto=lto)
        r = poisoned(1000, np.float32)
        r[:] = x
        k[8, 128](r, 7, a, b)
        outs[lto] = r
    np.testing.assert_allclose(outs[True], reference(x, 7, a, b), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(outs[True], outs[False], rtol=1e-6, atol=1e-7)


def test_lto_kernel_reports_the_nvvm_stage(hardware):
    # lto=True goes through the writer and libNVVM (its timing lap).
    k = chain_kernel(lto_step, lto=True)
    r = np.ones(32, np.float32)
    k[1, 32](r, 2, np.float32(2), np.float32(1))
    np.testing.assert_array_equal(r, np.full(32, 7, np.float32))
    timings = k.stats["timings_ms"]
    assert "codegen.nvvm" in timings, timings


def py_axpb(v, a, b):
    return v * a + b


def test_ltoir_of_a_python_function_links_into_an_lto_kernel(hardware, rng):
    # cuda.compile(output="ltoir") -> LTOIRSource -> declare_device: our own
    # LTO-IR as foreign code, inlined by nvJitLink.
    ltoir, resty = cuda.compile(py_axpb, float32(float32, float32, float32),
                                device=True, abi="c", output="ltoir")
    assert resty == float32
    axpb = cuda.declare_device("py_axpb", "float32(float32, float32, float32)",
                               link=cuda.LTOIRSource(ltoir, name="axpb.ltoir"), abi="c")
    x = rng.uniform(-1, 1, 256).astype(np.float32)
    for lto in (False, True):
        k = chain_kernel(axpb, lto=lto)
        r = poisoned(256, np.float32)
        r[:] = x
        k[2, 128](r, 5, np.float32(0.5), np.float32(-0.25))
        np.testing.assert_allclose(r, reference(x, 5, 0.5, -0.25), rtol=1e-5, atol=1e-6)


def count_kernel(fn, **options):
    @cuda.jit(**options)
    def count(out, x):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = fn(x[i])
    return count


TWICE = cuda.CUSource("""
extern "C" __device__ int lto_twice(int *out, int v) { *out = 2 * v + 1; return 0; }
""", name="lto_twice.cu")
lto_twice = cuda.declare_device("lto_twice", int32(int32), link=TWICE)


def test_lto_integer_function(rng):
    x = rng.integers(-1000, 1000, 300).astype(np.int32)
    r = poisoned(300, np.int32)
    count_kernel(lto_twice, lto=True)[3, 128](r, x)
    np.testing.assert_array_equal(r, 2 * x + 1)
