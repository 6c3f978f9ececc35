"""Foreign CUDA C device functions (cuda.declare_device with .cu code)
called from kernels.  The same tests run on the GPU (NVRTC + nvJitLink) and
on the CPU executor, which compiles the CUDA C for the host with the
system's C++ compiler (compiler/support/HostCuda.h): thread and block
indices read inside the C code, CUDA's multiply-add contraction, atomics
across blocks, math and bit intrinsics, vector types, and the disk cache.
The refusals (barriers, shared memory, PTX...) are in
tests/corpus/lang_foreign.py."""
import platform

import numpy as np
import pytest

from gpu_util import poisoned
from pycuda_jit import cuda, types

LINEAR_ID = cuda.CUSource("""
extern "C" __device__ int linear_id(int *out, int scale)
{
  int block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  int per_block = blockDim.x * blockDim.y * blockDim.z;
  int in_block = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  *out = (block * per_block + in_block) * scale + warpSize;
  return 0;
}
""", name="linear_id.cu")
linear_id = cuda.declare_device("linear_id", "int32(int32)", link=LINEAR_ID)


@cuda.jit(device=True)
def _flat_index():
    b = cuda.blockIdx.x + cuda.gridDim.x * (cuda.blockIdx.y + cuda.gridDim.y * cuda.blockIdx.z)
    n = cuda.blockDim.x * cuda.blockDim.y * cuda.blockDim.z
    t = cuda.threadIdx.x + cuda.blockDim.x * (
        cuda.threadIdx.y + cuda.blockDim.y * cuda.threadIdx.z)
    return b * n + t


def test_thread_and_block_indices_read_in_cuda_c(rng):
    @cuda.jit
    def k(r, scale):
        r[_flat_index()] = linear_id(scale)

    grid, block = (3, 2, 2), (4, 2, 3)
    n = 12 * 24
    scale = int(rng.integers(2, 9))
    r = poisoned(n, np.int32)
    k[grid, block](r, scale)
    np.testing.assert_array_equal(r, np.arange(n, dtype=np.int32) * scale + 32)


def test_indices_stay_right_across_barriers(rng):
    # The CPU executor runs a block with barriers as one fiber per thread,
    # switched at each barrier: every call must see its own thread.
    @cuda.jit
    def k(r, s, scale):
        i = _flat_index()
        a = linear_id(scale)
        s[i] = a
        cuda.syncthreads()
        b = linear_id(1)
        r[i] = a + b + s[i ^ 1]

    n = 4 * 64
    scale = int(rng.integers(2, 9))
    r = poisoned(n, np.int32)
    s = poisoned(n, np.int32)
    k[4, 64](r, s, scale)
    idx = np.arange(n, dtype=np.int32)
    np.testing.assert_array_equal(r, (idx * scale + 32) + (idx + 32) + ((idx ^ 1) * scale + 32))


MULADD = cuda.CUSource("""
extern "C" __device__ float muladd(float a, float b, float c) { return a * b + c; }
""", name="muladd.cu")
muladd = cuda.declare_device("muladd", "float32(float32, float32, float32)", link=MULADD,
                             abi="c")


def _host_has_fma():
    if platform.machine() in ("aarch64", "arm64"):
        return True
    try:
        with open("/proc/cpuinfo") as f:
            return " fma" in f.read()
    except OSError:
        return False


def test_multiply_add_contracts_into_fma_like_cuda(rng, backend):
    # nvcc and NVRTC contract a*b+c into one fma by default (-fmad=true);
    # the host build does too (-ffp-contract=fast, -mfma where the CPU has
    # the instruction).
    if backend == "cpu" and not _host_has_fma():
        pytest.skip("this CPU has no fma instruction: foreign CUDA C rounds a*b+c twice")

    @cuda.jit
    def k(r, a, b, c):
        i = cuda.grid(1)
        if i < r.size:
            r[i] = muladd(a[i], b[i], c[i])

    n = 4096
    a = rng.uniform(1, 2, n).astype(np.float32)
    b = rng.uniform(1, 2, n).astype(np.float32)
    c = -rng.uniform(1, 4, n).astype(np.float32)
    # In float64 a*b+c is exact here (at most 48 significant bits), so one
    # rounding to float32 is the fused result.
    fused = (a.astype(np.float64) * b + c).astype(np.float32)
    unfused = a * b + c
    assert (fused != unfused).sum() > 100  # the inputs tell the two apart
    r = poisoned(n, np.float32)
    k[16, 256](r, a, b, c)
    np.testing.assert_array_equal(r, fused)


ACCUMULATE = cuda.CUSource("""
extern "C" __device__ void accumulate(int *total, float *ftotal, unsigned long long *count,
                                      int v)
{
  atomicAdd(total, v);
  atomicMax(total + 1, v);
  atomicMin(total + 2, v);
  atomicAdd(ftotal, (float)v);
  atomicAdd(count, 1ull);
}
""", name="accumulate.cu")
accumulate = cuda.declare_device(
    "accumulate",
    types.void(types.CPointer(types.int32), types.CPointer(types.float32),
               types.CPointer(types.uint64), types.int32),
    link=ACCUMULATE, abi="c")


def test_atomics_in_cuda_c_across_blocks(rng):
    @cuda.jit
    def k(tot, ftot, count, x):
        i = cuda.grid(1)
        if i < x.size:
            accumulate(tot, ftot, count, x[i])

    n = 64 * 128
    x = rng.integers(-1000, 1000, n).astype(np.int32)
    tot = np.array([0, np.iinfo(np.int32).min, np.iinfo(np.int32).max], np.int32)
    ftot = np.zeros(1, np.float32)
    count = np.zeros(1, np.uint64)
    k[64, 128](tot, ftot, count, x)
    assert tot.tolist() == [int(x.sum()), int(x.max()), int(x.min())]
    assert ftot[0] == x.sum()  # every partial sum is an exact float32 integer
    assert count[0] == n


MATHS = cuda.CUSource("""
extern "C" __device__ float bump(float x, float y)
{
  float3 v = make_float3(x, y, 1.0f);
  float len = sqrtf(v.x * v.x + v.y * v.y + v.z * v.z);
  return expf(-x * x) * sinf(y) + len + fmaxf(x, y) + rsqrtf(len);
}
extern "C" __device__ void bit_ops(unsigned int *o, unsigned int u)
{
  o[0] = __popc(u);
  o[1] = __clz((int)u);
  o[2] = __brev(u);
  o[3] = __umulhi(u, 0x9E3779B9u);
  o[4] = min(u, 1000000000u);
  o[5] = __ffs((int)u);
  o[6] = __float_as_uint((float)(u & 0xffff));
}
""", name="maths.cu")
bump = cuda.declare_device("bump", "float32(float32, float32)", link=MATHS, abi="c")
bit_ops = cuda.declare_device("bit_ops", types.void(types.CPointer(types.uint32), types.uint32),
                              link=MATHS, abi="c")


def test_math_functions_and_vector_types(rng):
    @cuda.jit
    def k(r, x, y):
        i = cuda.grid(1)
        if i < r.size:
            r[i] = bump(x[i], y[i])

    n = 1000
    x = rng.uniform(-3, 3, n).astype(np.float32)
    y = rng.uniform(-3, 3, n).astype(np.float32)
    r = poisoned(n, np.float32)
    k[4, 256](r, x, y)
    xd, yd = x.astype(np.float64), y.astype(np.float64)
    ln = np.sqrt(xd * xd + yd * yd + 1)
    expect = np.exp(-xd * xd) * np.sin(yd) + ln + np.maximum(xd, yd) + 1 / np.sqrt(ln)
    np.testing.assert_allclose(r, expect, rtol=2e-6, atol=2e-6)


def test_bit_intrinsics(rng):
    @cuda.jit
    def k(out, u):
        i = cuda.grid(1)
        if i < u.size:
            bit_ops(out[i], u[i])

    u = rng.integers(0, 2**32, 500, dtype=np.uint64).astype(np.uint32)
    u[:3] = [0, 1, 0xFFFFFFFF]
    out = poisoned((500, 7), np.uint32)
    k[2, 256](out, u)
    for v, row in zip(u.tolist(), out.tolist()):
        expect = [bin(v).count("1"), 32 - v.bit_length(), int(f"{v:032b}"[::-1], 2),
                  (v * 0x9E3779B9) >> 32, min(v, 1000000000),
                  (v & -v).bit_length(),
                  int(np.float32(v & 0xFFFF).view(np.uint32))]
        assert row == expect, hex(v)


def test_cached_kernel_links_the_foreign_code_again(tmp_path, monkeypatch, rng):
    # A disk-cache hit loads the kernel's machine code; the foreign function
    # it calls must be resolved again (on the CPU: the host-built object).
    monkeypatch.setenv("PYCUDA_JIT_CACHE_DIR", str(tmp_path / "cache"))
    cu = tmp_path / "affine.cu"
    body = 'extern "C" __device__ int affine(int *o, int a) {{ *o = {} * a + 1; return 0; }}'
    cu.write_text(body.format(5))
    affine = cuda.declare_device("affine", "int32(int32)", link=str(cu))

    def run():
        @cuda.jit(cache=True)
        def k(r):
            i = cuda.grid(1)
            if i < r.size:
                r[i] = affine(i)
        r = poisoned(100, np.int32)
        k[1, 128](r)
        return r, k.stats["cache"]

    idx = np.arange(100)
    r, status = run()
    assert status == "miss"
    np.testing.assert_array_equal(r, 5 * idx + 1)
    r, status = run()
    assert status == "hit"
    np.testing.assert_array_equal(r, 5 * idx + 1)
    cu.write_text(body.format(-3))  # an edit is a new key, never a stale object
    r, status = run()
    assert status == "miss"
    np.testing.assert_array_equal(r, -3 * idx + 1)


HALF = cuda.CUSource("""
#include <cuda_fp16.h>
extern "C" __device__ __half half_fma(__half a, __half b, __half c) { return __hfma(a, b, c); }
extern "C" __device__ int half_square(__half *o, __half a) { *o = __hmul(a, a); return 0; }
""", name="half.cu")
half_fma = cuda.declare_device("half_fma", "float16(float16, float16, float16)", link=HALF,
                               abi="c")
half_square = cuda.declare_device("half_square", "float16(float16)", link=HALF)


def test_cuda_fp16_values_in_and_out(rng):
    # float16 arguments and results by value (C ABI) and through the result
    # pointer (numba ABI); __hfma rounds once, __hmul once.
    @cuda.jit
    def k(r, s, a, b, c):
        i = cuda.grid(1)
        if i < r.size:
            r[i] = half_fma(a[i], b[i], c[i])
            s[i] = half_square(a[i])

    n = 512
    a, b, c = (rng.standard_normal(n).astype(np.float16) for _ in range(3))
    r = poisoned(n, np.float16)
    s = poisoned(n, np.float16)
    k[2, 256](r, s, a, b, c)
    np.testing.assert_array_equal(r, (a.astype(np.float64) * b + c).astype(np.float16))
    np.testing.assert_array_equal(s, (a.astype(np.float32) * a).astype(np.float16))
