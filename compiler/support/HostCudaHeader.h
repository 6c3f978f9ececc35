// HostCudaHeader: the text of the header that foreign CUDA C (.cu files,
// cuda.CUSource) is compiled with for the CPU executor (HostCuda.cpp).  It
// is force-included before the user's source and gives the host compiler
// what CUDA device code may use and the host can run: the qualifiers, the
// built-in vector types, threadIdx/blockIdx/blockDim/gridDim/warpSize of the
// CUDA thread that called into the code, CUDA's math and bit intrinsics,
// and atomics on global memory.  What only the GPU can do (shared memory,
// barriers, warp intrinsics) is refused at compile time with a message.
// The text is part of every built object's cache key.
#pragma once

namespace pcj::hostcu {

inline constexpr const char *kHostCudaHeader = R"PCJ_HDR(
// pycuda_jit: CUDA device code compiled for the CPU executor.
#pragma once
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <limits.h>
#include <utility>
#include <algorithm>

#define __device__
#define __host__
#define __global__ _Pragma("GCC error \"__global__ kernels need the GPU: the CPU executor runs foreign __device__ functions only\"")
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __align__(n) __attribute__((aligned(n)))
#define __launch_bounds__(...)
#define __constant__
#define __managed__
#define __CUDACC__ 1
#define __CUDA_ARCH__ 700
#define __PCJ_CPU_EXECUTOR__ 1
#define __shared__ _Pragma("GCC error \"__shared__ memory needs the GPU: the CPU executor compiles foreign CUDA C without shared memory\"")

#define __PCJ_VEC2(T, N, A) struct __attribute__((aligned(A))) N##2 { T x, y; }; \
  static inline N##2 make_##N##2(T x, T y) { return N##2{x, y}; }
#define __PCJ_VEC3(T, N) struct N##3 { T x, y, z; }; \
  static inline N##3 make_##N##3(T x, T y, T z) { return N##3{x, y, z}; }
#define __PCJ_VEC4(T, N, A) struct __attribute__((aligned(A))) N##4 { T x, y, z, w; }; \
  static inline N##4 make_##N##4(T x, T y, T z, T w) { return N##4{x, y, z, w}; }
#define __PCJ_VECS(T, N, A2, A4) \
  struct N##1 { T x; }; static inline N##1 make_##N##1(T x) { return N##1{x}; } \
  __PCJ_VEC2(T, N, A2) __PCJ_VEC3(T, N) __PCJ_VEC4(T, N, A4)
__PCJ_VECS(signed char, char, 2, 4)
__PCJ_VECS(unsigned char, uchar, 2, 4)
__PCJ_VECS(short, short, 4, 8)
__PCJ_VECS(unsigned short, ushort, 4, 8)
__PCJ_VECS(int, int, 8, 16)
__PCJ_VECS(unsigned int, uint, 8, 16)
__PCJ_VECS(long, long, 16, 16)
__PCJ_VECS(unsigned long, ulong, 16, 16)
__PCJ_VECS(long long, longlong, 16, 16)
__PCJ_VECS(unsigned long long, ulonglong, 16, 16)
__PCJ_VECS(float, float, 8, 16)
__PCJ_VECS(double, double, 16, 16)
#undef __PCJ_VECS
#undef __PCJ_VEC2
#undef __PCJ_VEC3
#undef __PCJ_VEC4

struct dim3 {
  unsigned int x, y, z;
  constexpr dim3(unsigned int x = 1, unsigned int y = 1, unsigned int z = 1)
      : x(x), y(y), z(z) {}
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  constexpr operator uint3() const { return uint3{x, y, z}; }
};

// The calling CUDA thread's registers, laid out as the executor's thread
// context; the executor hands its address to __pcj_cu_ctx_getter's target
// before every call into this code.
struct __pcj_cu_ctx_t {
  uint3 tid, ntid, ctaid, nctaid;
  unsigned int laneid, warpid;
};
inline const __pcj_cu_ctx_t *(*__pcj_cu_ctx_getter)(void) = nullptr;
static inline const __pcj_cu_ctx_t *__pcj_cu_ctx() { return __pcj_cu_ctx_getter(); }
#define threadIdx (__pcj_cu_ctx()->tid)
#define blockIdx (__pcj_cu_ctx()->ctaid)
#define blockDim (__pcj_cu_ctx()->ntid)
#define gridDim (__pcj_cu_ctx()->nctaid)
#define warpSize 32

// GPU-only operations: a compile error that names them.
template <class... T> struct __pcj_false { static constexpr bool value = false; };
#define __PCJ_GPU_ONLY(name, what) \
  template <class... T> static inline unsigned long long name(T...) { \
    static_assert(__pcj_false<T...>::value, #name ": " what " needs the GPU; the CPU " \
                  "executor compiles foreign CUDA C without it"); return 0; }
__PCJ_GPU_ONLY(__syncthreads, "a block barrier")
__PCJ_GPU_ONLY(__syncthreads_count, "a block barrier")
__PCJ_GPU_ONLY(__syncthreads_and, "a block barrier")
__PCJ_GPU_ONLY(__syncthreads_or, "a block barrier")
__PCJ_GPU_ONLY(__syncwarp, "a warp barrier")
__PCJ_GPU_ONLY(__threadfence_block, "a memory fence")
__PCJ_GPU_ONLY(__shfl_sync, "a warp shuffle")
__PCJ_GPU_ONLY(__shfl_up_sync, "a warp shuffle")
__PCJ_GPU_ONLY(__shfl_down_sync, "a warp shuffle")
__PCJ_GPU_ONLY(__shfl_xor_sync, "a warp shuffle")
__PCJ_GPU_ONLY(__ballot_sync, "a warp vote")
__PCJ_GPU_ONLY(__all_sync, "a warp vote")
__PCJ_GPU_ONLY(__any_sync, "a warp vote")
__PCJ_GPU_ONLY(__uni_sync, "a warp vote")
__PCJ_GPU_ONLY(__activemask, "a warp's active mask")
__PCJ_GPU_ONLY(__match_any_sync, "a warp match")
__PCJ_GPU_ONLY(__match_all_sync, "a warp match")
__PCJ_GPU_ONLY(__reduce_add_sync, "a warp reduction")
__PCJ_GPU_ONLY(__nanosleep, "nanosleep")
__PCJ_GPU_ONLY(clock, "a GPU clock")
__PCJ_GPU_ONLY(clock64, "a GPU clock")
__PCJ_GPU_ONLY(__ldg, "a read-only cache load")
#undef __PCJ_GPU_ONLY
static inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
static inline void __threadfence_system() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

// Reinterpretations and bit operations.
template <class To, class From> static inline To __pcj_bits(From v) {
  static_assert(sizeof(To) == sizeof(From), "size");
  To r; memcpy(&r, &v, sizeof r); return r;
}
static inline float __int_as_float(int v) { return __pcj_bits<float>(v); }
static inline float __uint_as_float(unsigned int v) { return __pcj_bits<float>(v); }
static inline int __float_as_int(float v) { return __pcj_bits<int>(v); }
static inline unsigned int __float_as_uint(float v) { return __pcj_bits<unsigned int>(v); }
static inline double __longlong_as_double(long long v) { return __pcj_bits<double>(v); }
static inline long long __double_as_longlong(double v) { return __pcj_bits<long long>(v); }
static inline int __popc(unsigned int v) { return __builtin_popcount(v); }
static inline int __popcll(unsigned long long v) { return __builtin_popcountll(v); }
static inline int __clz(int v) { return v ? __builtin_clz((unsigned)v) : 32; }
static inline int __clzll(long long v) { return v ? __builtin_clzll((unsigned long long)v) : 64; }
static inline int __ffs(int v) { return __builtin_ffs(v); }
static inline int __ffsll(long long v) { return __builtin_ffsll(v); }
static inline unsigned int __brev(unsigned int v) {
  unsigned int r = 0;
  for (int i = 0; i < 32; ++i, v >>= 1) r = (r << 1) | (v & 1u);
  return r;
}
static inline unsigned long long __brevll(unsigned long long v) {
  return ((unsigned long long)__brev((unsigned)v) << 32) | __brev((unsigned)(v >> 32));
}
static inline int __mulhi(int a, int b) { return (int)(((long long)a * b) >> 32); }
static inline unsigned int __umulhi(unsigned int a, unsigned int b) {
  return (unsigned int)(((unsigned long long)a * b) >> 32);
}
static inline long long __mul64hi(long long a, long long b) {
  return (long long)(((__int128)a * b) >> 64);
}
static inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
  return (unsigned long long)(((unsigned __int128)a * b) >> 64);
}
static inline int __mul24(int a, int b) {
  return (int)((long long)((a << 8) >> 8) * ((b << 8) >> 8));
}
static inline unsigned int __umul24(unsigned int a, unsigned int b) {
  return (a & 0xffffffu) * (b & 0xffffffu);
}
static inline int __sad(int a, int b, unsigned int c) { return (a > b ? a - b : b - a) + c; }
static inline unsigned int __usad(unsigned int a, unsigned int b, unsigned int c) {
  return (a > b ? a - b : b - a) + c;
}

// min/max as CUDA overloads them.
using std::min;
using std::max;
static inline int min(int a, unsigned int b) { return std::min<int>(a, (int)b); }
static inline unsigned int min(unsigned int a, int b) { return std::min<unsigned>(a, (unsigned)b); }
static inline int max(int a, unsigned int b) { return std::max<int>(a, (int)b); }
static inline unsigned int max(unsigned int a, int b) { return std::max<unsigned>(a, (unsigned)b); }
static inline float min(float a, double b) { return fminf(a, (float)b); }
static inline float max(float a, double b) { return fmaxf(a, (float)b); }
static inline int umin(unsigned a, unsigned b) { return a < b ? a : b; }

// Math: the C library's functions (same names as CUDA's) plus CUDA's own.
static inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
static inline double rsqrt(double x) { return 1.0 / sqrt(x); }
static inline float rcbrtf(float x) { return 1.0f / cbrtf(x); }
static inline double rcbrt(double x) { return 1.0 / cbrt(x); }
static inline float sinpif(float x) { return sinf((float)M_PI * x); }
static inline double sinpi(double x) { return sin(M_PI * x); }
static inline float cospif(float x) { return cosf((float)M_PI * x); }
static inline double cospi(double x) { return cos(M_PI * x); }
static inline float normcdff(float x) { return 0.5f * erfcf(-x * (float)M_SQRT1_2); }
static inline double normcdf(double x) { return 0.5 * erfc(-x * M_SQRT1_2); }
static inline float __saturatef(float x) { return x != x ? 0.0f : x < 0.0f ? 0.0f : x > 1.0f ? 1.0f : x; }
static inline float __fdividef(float a, float b) { return a / b; }
static inline float fdividef(float a, float b) { return a / b; }
// The fast intrinsics (glibc declares functions of these names itself):
// the accurate functions here.
#define __expf expf
#define __exp10f exp10f
#define __logf logf
#define __log2f log2f
#define __log10f log10f
#define __sinf sinf
#define __cosf cosf
#define __tanf tanf
#define __powf powf
#define __sincosf sincosf
// Correctly rounded operations (round to nearest even): the host's.
static inline float __fadd_rn(float a, float b) { return a + b; }
static inline float __fsub_rn(float a, float b) { return a - b; }
static inline float __fmul_rn(float a, float b) { return a * b; }
static inline float __fdiv_rn(float a, float b) { return a / b; }
static inline float __fmaf_rn(float a, float b, float c) { return fmaf(a, b, c); }
static inline float __fsqrt_rn(float a) { return sqrtf(a); }
static inline float __frcp_rn(float a) { return 1.0f / a; }
static inline double __dadd_rn(double a, double b) { return a + b; }
static inline double __dsub_rn(double a, double b) { return a - b; }
static inline double __dmul_rn(double a, double b) { return a * b; }
static inline double __ddiv_rn(double a, double b) { return a / b; }
static inline double __fma_rn(double a, double b, double c) { return fma(a, b, c); }
static inline double __dsqrt_rn(double a) { return sqrt(a); }
static inline float __int2float_rn(int v) { return (float)v; }
static inline int __float2int_rz(float v) { return (int)v; }
static inline int __float2int_rn(float v) { return (int)nearbyintf(v); }
static inline double __int2double_rn(int v) { return (double)v; }
static inline int __double2int_rz(double v) { return (int)v; }
static inline float __double2float_rn(double v) { return (float)v; }

// Atomics on memory the executor's threads share (every block may run on
// its own host thread): sequentially consistent host atomics.
template <class T> static inline T __pcj_atomic_update(T *p, T (*f)(T, T), T v) {
  T old, next;
  __atomic_load(p, &old, __ATOMIC_RELAXED);
  do {
    next = f(old, v);
  } while (!__atomic_compare_exchange(p, &old, &next, true, __ATOMIC_SEQ_CST,
                                      __ATOMIC_RELAXED));
  return old;
}
template <class T> static inline T __pcj_add(T a, T b) { return a + b; }
template <class T> static inline T __pcj_min(T a, T b) { return b < a ? b : a; }
template <class T> static inline T __pcj_max(T a, T b) { return a < b ? b : a; }
#define __PCJ_INT_ATOMICS(T) \
  static inline T atomicAdd(T *p, T v) { return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); } \
  static inline T atomicSub(T *p, T v) { return __atomic_fetch_sub(p, v, __ATOMIC_SEQ_CST); } \
  static inline T atomicAnd(T *p, T v) { return __atomic_fetch_and(p, v, __ATOMIC_SEQ_CST); } \
  static inline T atomicOr(T *p, T v) { return __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST); } \
  static inline T atomicXor(T *p, T v) { return __atomic_fetch_xor(p, v, __ATOMIC_SEQ_CST); } \
  static inline T atomicExch(T *p, T v) { return __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST); } \
  static inline T atomicMin(T *p, T v) { return __pcj_atomic_update<T>(p, __pcj_min<T>, v); } \
  static inline T atomicMax(T *p, T v) { return __pcj_atomic_update<T>(p, __pcj_max<T>, v); } \
  static inline T atomicCAS(T *p, T cmp, T v) { \
    __atomic_compare_exchange_n(p, &cmp, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); \
    return cmp; }
__PCJ_INT_ATOMICS(int)
__PCJ_INT_ATOMICS(unsigned int)
__PCJ_INT_ATOMICS(long long)
__PCJ_INT_ATOMICS(unsigned long long)
#undef __PCJ_INT_ATOMICS
static inline float atomicAdd(float *p, float v) { return __pcj_atomic_update<float>(p, __pcj_add<float>, v); }
static inline double atomicAdd(double *p, double v) { return __pcj_atomic_update<double>(p, __pcj_add<double>, v); }
static inline float atomicExch(float *p, float v) {
  float old;
  __atomic_exchange(p, &v, &old, __ATOMIC_SEQ_CST);
  return old;
}
static inline unsigned int __pcj_inc(unsigned int old, unsigned int lim) { return old >= lim ? 0 : old + 1; }
static inline unsigned int __pcj_dec(unsigned int old, unsigned int lim) { return (old == 0 || old > lim) ? lim : old - 1; }
static inline unsigned int atomicInc(unsigned int *p, unsigned int v) { return __pcj_atomic_update<unsigned int>(p, __pcj_inc, v); }
static inline unsigned int atomicDec(unsigned int *p, unsigned int v) { return __pcj_atomic_update<unsigned int>(p, __pcj_dec, v); }
)PCJ_HDR";

// <cuda_fp16.h> for the host: __half is the C++ compiler's _Float16.
// Each operation is computed in float and rounded once to half, which is
// the correctly rounded result for + - * / and sqrt (float has more than
// twice half's precision); the fma rounds once through double.
inline constexpr const char *kHostCudaFp16Header = R"PCJ_HDR(
#pragma once
#include "pcj_cuda_host.h"
typedef _Float16 __half;
typedef __half half;
struct __align__(4) __half2 { __half x, y; };
typedef __half2 half2;
static inline __half __float2half(float f) { return (__half)f; }
static inline __half __float2half_rn(float f) { return (__half)f; }
static inline __half __double2half(double d) { return (__half)d; }
static inline float __half2float(__half h) { return (float)h; }
static inline __half __int2half_rn(int v) { return (__half)(float)v; }
static inline int __half2int_rz(__half h) { return (int)(float)h; }
static inline __half2 __halves2half2(__half a, __half b) { return __half2{a, b}; }
static inline __half2 __half2half2(__half a) { return __half2{a, a}; }
static inline __half2 __floats2half2_rn(float a, float b) { return __half2{(__half)a, (__half)b}; }
static inline __half __low2half(__half2 v) { return v.x; }
static inline __half __high2half(__half2 v) { return v.y; }
static inline float __low2float(__half2 v) { return (float)v.x; }
static inline float __high2float(__half2 v) { return (float)v.y; }
static inline __half __hadd(__half a, __half b) { return (__half)((float)a + (float)b); }
static inline __half __hsub(__half a, __half b) { return (__half)((float)a - (float)b); }
static inline __half __hmul(__half a, __half b) { return (__half)((float)a * (float)b); }
static inline __half __hdiv(__half a, __half b) { return (__half)((float)a / (float)b); }
static inline __half __hneg(__half a) { return -a; }
static inline __half __habs(__half a) { return (__half)fabsf((float)a); }
static inline __half __hfma(__half a, __half b, __half c) {
  return (__half)fma((double)a, (double)b, (double)c);
}
static inline __half hsqrt(__half a) { return (__half)sqrtf((float)a); }
static inline __half __hmax(__half a, __half b) { return (__half)fmaxf((float)a, (float)b); }
static inline __half __hmin(__half a, __half b) { return (__half)fminf((float)a, (float)b); }
static inline bool __heq(__half a, __half b) { return (float)a == (float)b; }
static inline bool __hne(__half a, __half b) { return (float)a != (float)b; }
static inline bool __hlt(__half a, __half b) { return (float)a < (float)b; }
static inline bool __hle(__half a, __half b) { return (float)a <= (float)b; }
static inline bool __hgt(__half a, __half b) { return (float)a > (float)b; }
static inline bool __hge(__half a, __half b) { return (float)a >= (float)b; }
static inline bool __hisnan(__half a) { return a != a; }
static inline __half2 __hadd2(__half2 a, __half2 b) { return __half2{__hadd(a.x, b.x), __hadd(a.y, b.y)}; }
static inline __half2 __hsub2(__half2 a, __half2 b) { return __half2{__hsub(a.x, b.x), __hsub(a.y, b.y)}; }
static inline __half2 __hmul2(__half2 a, __half2 b) { return __half2{__hmul(a.x, b.x), __hmul(a.y, b.y)}; }
static inline __half2 __hfma2(__half2 a, __half2 b, __half2 c) {
  return __half2{__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y)};
}
)PCJ_HDR";

} // namespace pcj::hostcu
