"""Foreign functions (cuda.declare_device + link=): values computed by
CUDA C++ and PTX device functions, both ABIs, calls through device
functions, and a .cu edit between two runs of a cached kernel.  CUDA C runs
on the GPU (NVRTC) and on the CPU executor (compiled for the host); PTX and
the linker's own error are GPU only (`hardware`)."""
import numpy as np
import pytest

from gpu_util import poisoned
from pycuda_jit import cuda

SCALE = cuda.CUSource("""
extern "C" __device__ int scale_add(float *out, float x, float a, int k)
{
  *out = a * x + (float)k;
  return 0;
}
""", name="scale_add.cu")

HYPOT_C = cuda.CUSource("""
#include <cuda_fp16.h>
extern "C" __device__ double hyp(double x, double y) { return hypot(x, y); }
extern "C" __device__ void bump(int k) { asm volatile("" : : "r"(k) : "memory"); }
""", name="hyp.cu")

scale_add = cuda.declare_device("scale_add", "float32(float32, float32, int32)", link=SCALE)
hyp = cuda.declare_device("hyp", "float64(float64, float64)", link=HYPOT_C, abi="c")
bump = cuda.declare_device("bump", "void(int32)", link=HYPOT_C, abi="c")


def test_numba_abi_function_from_cuda_source(rng):
    @cuda.jit
    def k(r, x):
        i = cuda.grid(1)
        if i < r.size:
            r[i] = scale_add(x[i], 1.5, i)

    x = rng.standard_normal(1000).astype(np.float32)
    r = poisoned(1000, np.float32)
    k[8, 128](r, x)
    np.testing.assert_allclose(r, np.float32(1.5) * x + np.arange(1000, dtype=np.float32),
                               rtol=1e-6)


def test_c_abi_functions_and_void_result(rng):
    @cuda.jit
    def k(r, x, y):
        i = cuda.grid(1)
        if i < r.size:
            bump(i)
            r[i] = hyp(x[i], y[i])

    x, y = rng.standard_normal((2, 500))
    r = poisoned(500, np.float64)
    k[4, 128](r, x, y)
    np.testing.assert_allclose(r, np.hypot(x, y), rtol=1e-15)


def test_called_through_device_functions_and_twice(rng):
    @cuda.jit(device=True)
    def inner(v, i):
        return scale_add(v, 2.0, i)

    @cuda.jit(device=True)
    def outer(v, i):
        return inner(v, i) + scale_add(v, 0.5, 0)

    @cuda.jit
    def k(r, x):
        i = cuda.grid(1)
        if i < r.size:
            r[i] = outer(x[i], i)

    x = rng.standard_normal(300).astype(np.float32)
    r = poisoned(300, np.float32)
    k[3, 128](r, x)
    expect = 2 * x + np.arange(300, dtype=np.float32) + np.float32(0.5) * x
    np.testing.assert_allclose(r, expect, rtol=1e-5)


def test_ptx_file_and_several_sources(hardware, rng, tmp_path):
    # PTX written by NVRTC from one source, linked as a .ptx file, with a
    # CUSource that calls it.
    from pycuda_jit._lazy import core  # noqa: F401
    times3_ptx = tmp_path / "times3.ptx"
    src = 'extern "C" __device__ int times3(int *o, int a) { *o = 3 * a; return 0; }'
    times3_ptx.write_text(_nvrtc_ptx(src))
    times6 = cuda.declare_device(
        "times6", "int32(int32)",
        link=[str(times3_ptx), cuda.CUSource(
            'extern "C" __device__ int times3(int *, int);\n'
            'extern "C" __device__ int times6(int *o, int a)'
            ' { int t; times3(&t, a); *o = 2 * t; return 0; }')])

    @cuda.jit
    def k(r, x):
        i = cuda.grid(1)
        if i < r.size:
            r[i] = times6(x[i])

    x = rng.integers(-1000, 1000, 256).astype(np.int32)
    r = poisoned(256, np.int32)
    k[2, 128](r, x)
    np.testing.assert_array_equal(r, 6 * x)


def test_edited_cu_file_is_recompiled_with_the_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("PYCUDA_JIT_CACHE_DIR", str(tmp_path / "cache"))
    cu = tmp_path / "mul.cu"
    body = 'extern "C" __device__ int mul(int *o, int a) {{ *o = {} * a; return 0; }}'
    cu.write_text(body.format(5))
    mul = cuda.declare_device("mul", "int32(int32)", link=str(cu))

    def run():
        @cuda.jit(cache=True)
        def k(r):
            i = cuda.grid(1)
            if i < r.size:
                r[i] = mul(i)
        r = poisoned(64, np.int32)
        k[1, 64](r)
        return r

    np.testing.assert_array_equal(run(), 5 * np.arange(64))
    cu.write_text(body.format(7))
    np.testing.assert_array_equal(run(), 7 * np.arange(64))


def _nvrtc_ptx(src):
    """PTX for sm_90-compatible GPUs from CUDA C++, through the same NVRTC
    path as link= (a kernel-less relocatable module)."""
    import ctypes
    import ctypes.util
    name = None
    for cand in ("libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"):
        try:
            lib = ctypes.CDLL(cand)
            name = cand
            break
        except OSError:
            continue
    if name is None:
        pytest.skip("libnvrtc not found by the loader for this test's PTX")
    prog = ctypes.c_void_p()
    assert lib.nvrtcCreateProgram(ctypes.byref(prog), src.encode(), b"t.cu", 0, None, None) == 0
    opts = (ctypes.c_char_p * 2)(b"--gpu-architecture=compute_80", b"-rdc=true")
    assert lib.nvrtcCompileProgram(prog, 2, opts) == 0
    n = ctypes.c_size_t()
    lib.nvrtcGetPTXSize(prog, ctypes.byref(n))
    buf = ctypes.create_string_buffer(n.value)
    lib.nvrtcGetPTX(prog, buf)
    lib.nvrtcDestroyProgram(ctypes.byref(prog))
    return buf.value.decode()


def test_kernel_link_option_defines_a_declared_function(rng):
    # numba-cuda's documented pattern: the declaration without link=, the
    # code on the kernel's cuda.jit(link=...).
    cube = cuda.declare_device("cube_f", "float32(float32)")
    src = cuda.CUSource('extern "C" __device__ int cube_f(float *o, float x)'
                        ' { *o = x * x * x; return 0; }', name="cube.cu")

    @cuda.jit(link=[src])
    def k(r, x):
        i = cuda.grid(1)
        if i < r.size:
            r[i] = cube(x[i])

    x = rng.standard_normal(200).astype(np.float32)
    r = poisoned(200, np.float32)
    k[2, 128](r, x)
    np.testing.assert_allclose(r, x * x * x, rtol=1e-6)


def test_undefined_name_at_launch_is_a_linker_error(hardware):
    from pycuda_jit import errors
    missing = cuda.declare_device("not_defined_anywhere", "int32(int32)",
                                  link=cuda.CUSource("// nothing"))

    @cuda.jit
    def k(r):
        r[0] = missing(1)

    with pytest.raises(errors.LinkerError, match="not_defined_anywhere"):
        k[1, 1](np.zeros(1, np.int32))


def test_arrays_passed_as_cpointer_and_voidptr(rng):
    from pycuda_jit import types
    src = cuda.CUSource("""
extern "C" __device__ void axpy_at(float *y, const float *x, int i, float a)
{ y[i] += a * x[i]; }
extern "C" __device__ int sum4(const void *p)
{ const int *q = (const int *)p; return q[0] + q[1] + q[2] + q[3]; }
""", name="ptr.cu")
    axpy_at = cuda.declare_device(
        "axpy_at", types.void(types.CPointer(types.float32), types.CPointer(types.float32),
                              types.int32, types.float32), link=src, abi="c")
    sum4 = cuda.declare_device("sum4", "int32(voidptr)", link=src, abi="c")

    @cuda.jit
    def k(y, x, q, s):
        i = cuda.grid(1)
        if i < y.size:
            axpy_at(y, x, i, 3.0)
        if i == 0:
            s[0] = sum4(q)

    x = rng.standard_normal(300).astype(np.float32)
    y0 = rng.standard_normal(300).astype(np.float32)
    y = y0.copy()
    q = rng.integers(-100, 100, 4).astype(np.int32)
    s = poisoned(1, np.int32)
    k[3, 128](y, x, q, s)
    # NVRTC contracts y[i] += a * x[i] into one fma (nvcc's default): the
    # reference rounds once too (the float64 sum of exact float32 products).
    want = (y0.astype(np.float64) + 3.0 * x.astype(np.float64)).astype(np.float32)
    np.testing.assert_allclose(y, want, rtol=1e-6, atol=1e-7)
    assert s[0] == q.sum()
