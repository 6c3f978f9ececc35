// CUDA C++ twins of benchmarks/kernels.py: the same algorithms, written the
// way a CUDA programmer would (int indices where sizes fit, const __restrict__
// inputs, float literals with the f suffix; no fast-math, no vector loads, no
// manual unrolling).  Built by benchmarks/run.py:
//
//   nvcc -O3 -arch=sm_90 -shared -Xcompiler -fPIC -o libbench_twins.so kernels.cu
//
// and loaded with ctypes.  Every launcher takes raw device pointers, launches
// on the legacy default stream (stream 0, the stream pycuda_jit and numba-cuda
// launch on) and returns cudaGetLastError().  Event and copy helpers at the
// end let run.py time the twins with CUDA events.
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>

#define EXPORT extern "C" __attribute__((visibility("default")))

// ---- triad -----------------------------------------------------------------------

__global__ void triad_k(float *__restrict__ a, const float *__restrict__ b,
                        const float *__restrict__ c, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    a[i] = b[i] + s * c[i];
}

__global__ void triad_gs_k(float *__restrict__ a, const float *__restrict__ b,
                           const float *__restrict__ c, float s, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    a[i] = b[i] + s * c[i];
}

EXPORT int launch_triad(float *a, const float *b, const float *c, float s, long long n,
                        int blocks, int threads) {
  triad_k<<<blocks, threads>>>(a, b, c, s, (int)n);
  return (int)cudaGetLastError();
}

EXPORT int launch_triad_gs(float *a, const float *b, const float *c, float s, long long n,
                           int blocks, int threads) {
  triad_gs_k<<<blocks, threads>>>(a, b, c, s, (int)n);
  return (int)cudaGetLastError();
}

// ---- warp / block reductions ----------------------------------------------------------

#define FULL_MASK 0xffffffffu

__device__ __forceinline__ float warp_sum_down(float v) {
  for (int off = 16; off > 0; off /= 2)
    v += __shfl_down_sync(FULL_MASK, v, off);
  return v;
}

__device__ __forceinline__ float warp_max_all(float v) {
  for (int off = 16; off > 0; off /= 2)
    v = fmaxf(v, __shfl_xor_sync(FULL_MASK, v, off));
  return v;
}

__device__ __forceinline__ float warp_sum_all(float v) {
  for (int off = 16; off > 0; off /= 2)
    v += __shfl_xor_sync(FULL_MASK, v, off);
  return v;
}

__device__ __forceinline__ float block_max(float v, float *red) {
  int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  v = warp_max_all(v);
  if (lane == 0)
    red[warp] = v;
  __syncthreads();
  v = lane < (int)(blockDim.x / 32) ? red[lane] : -INFINITY;
  v = warp_max_all(v);
  __syncthreads();
  return v;
}

__device__ __forceinline__ float block_sum(float v, float *red) {
  int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  v = warp_sum_all(v);
  if (lane == 0)
    red[warp] = v;
  __syncthreads();
  v = lane < (int)(blockDim.x / 32) ? red[lane] : 0.0f;
  v = warp_sum_all(v);
  __syncthreads();
  return v;
}

// ---- block reduction: shuffles + shared memory + one atomic per block -------------------

__global__ void reduce_sum_k(const float *__restrict__ x, float *out, int n) {
  __shared__ float partial[32];
  int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  float acc = 0.0f;
  for (int i = blockIdx.x * blockDim.x + tid; i < n; i += gridDim.x * blockDim.x)
    acc += x[i];
  acc = warp_sum_down(acc);
  if (lane == 0)
    partial[warp] = acc;
  __syncthreads();
  if (warp == 0) {
    acc = lane < (int)(blockDim.x / 32) ? partial[lane] : 0.0f;
    acc = warp_sum_down(acc);
    if (lane == 0)
      atomicAdd(out, acc);
  }
}

EXPORT int launch_reduce_sum(const float *x, float *out, long long n, int blocks, int threads) {
  reduce_sum_k<<<blocks, threads>>>(x, out, (int)n);
  return (int)cudaGetLastError();
}

// ---- tiled SGEMM (row-major) ---------------------------------------------------------------

#define SGEMM_TILE 32

__global__ void sgemm_k(const float *__restrict__ A, const float *__restrict__ B,
                        float *__restrict__ C, int M, int N, int K) {
  __shared__ float sA[SGEMM_TILE][SGEMM_TILE];
  __shared__ float sB[SGEMM_TILE][SGEMM_TILE];
  int tx = threadIdx.x, ty = threadIdx.y;
  int col = blockIdx.x * SGEMM_TILE + tx;
  int row = blockIdx.y * SGEMM_TILE + ty;
  float acc = 0.0f;
  for (int t = 0; t < (K + SGEMM_TILE - 1) / SGEMM_TILE; ++t) {
    int k0 = t * SGEMM_TILE;
    sA[ty][tx] = (row < M && k0 + tx < K) ? A[(size_t)row * K + k0 + tx] : 0.0f;
    sB[ty][tx] = (k0 + ty < K && col < N) ? B[(size_t)(k0 + ty) * N + col] : 0.0f;
    __syncthreads();
    for (int k = 0; k < SGEMM_TILE; ++k)
      acc += sA[ty][k] * sB[k][tx];
    __syncthreads();
  }
  if (row < M && col < N)
    C[(size_t)row * N + col] = acc;
}

EXPORT int launch_sgemm(const float *A, const float *B, float *C, int M, int N, int K) {
  dim3 block(SGEMM_TILE, SGEMM_TILE);
  dim3 grid((N + SGEMM_TILE - 1) / SGEMM_TILE, (M + SGEMM_TILE - 1) / SGEMM_TILE);
  sgemm_k<<<grid, block>>>(A, B, C, M, N, K);
  return (int)cudaGetLastError();
}

// ---- 2-D 5-point stencil --------------------------------------------------------------------

__global__ void stencil5_k(const float *__restrict__ u, float *__restrict__ out, int ny, int nx,
                           float c0, float c1) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < ny && j < nx) {
    size_t p = (size_t)i * nx + j;
    if (i == 0 || j == 0 || i == ny - 1 || j == nx - 1)
      out[p] = u[p];
    else
      out[p] = c0 * u[p] + c1 * (u[p - nx] + u[p + nx] + u[p - 1] + u[p + 1]);
  }
}

EXPORT int launch_stencil5(const float *u, float *out, int ny, int nx, float c0, float c1, int bx,
                           int by) {
  dim3 block(bx, by);
  dim3 grid((nx + bx - 1) / bx, (ny + by - 1) / by);
  stencil5_k<<<grid, block>>>(u, out, ny, nx, c0, c1);
  return (int)cudaGetLastError();
}

// ---- tiled n-body: pos (N, 4) = x, y, z, m; acc (N, 4) ----------------------------------------

#define NBODY_TILE 256

__global__ void nbody_k(const float *__restrict__ pos, float *__restrict__ acc, int n,
                        float eps2) {
  __shared__ float sx[NBODY_TILE], sy[NBODY_TILE], sz[NBODY_TILE], sm[NBODY_TILE];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int tid = threadIdx.x;
  float xi = pos[4 * i + 0], yi = pos[4 * i + 1], zi = pos[4 * i + 2];
  float ax = 0.0f, ay = 0.0f, az = 0.0f;
  for (int tile = 0; tile < n / NBODY_TILE; ++tile) {
    int j = tile * NBODY_TILE + tid;
    sx[tid] = pos[4 * j + 0];
    sy[tid] = pos[4 * j + 1];
    sz[tid] = pos[4 * j + 2];
    sm[tid] = pos[4 * j + 3];
    __syncthreads();
    for (int k = 0; k < NBODY_TILE; ++k) {
      float dx = sx[k] - xi, dy = sy[k] - yi, dz = sz[k] - zi;
      float r2 = dx * dx + dy * dy + dz * dz + eps2;
      float inv = 1.0f / sqrtf(r2);
      float s = sm[k] * inv * inv * inv;
      ax += s * dx;
      ay += s * dy;
      az += s * dz;
    }
    __syncthreads();
  }
  acc[4 * i + 0] = ax;
  acc[4 * i + 1] = ay;
  acc[4 * i + 2] = az;
  acc[4 * i + 3] = 0.0f;
}

EXPORT int launch_nbody(const float *pos, float *acc, int n, float eps2) {
  nbody_k<<<n / NBODY_TILE, NBODY_TILE>>>(pos, acc, n, eps2);
  return (int)cudaGetLastError();
}

// ---- Black-Scholes (float32) ----------------------------------------------------------------------

__device__ __forceinline__ float cnd(float d) {
  const float A1 = 0.31938153f, A2 = -0.356563782f, A3 = 1.781477937f, A4 = -1.821255978f,
              A5 = 1.330274429f, KK = 0.2316419f, RSQRT2PI = 0.39894228040143267793994605993438f;
  float k = 1.0f / (1.0f + KK * fabsf(d));
  float c = RSQRT2PI * expf(-0.5f * d * d) * (k * (A1 + k * (A2 + k * (A3 + k * (A4 + k * A5)))));
  if (d > 0.0f)
    c = 1.0f - c;
  return c;
}

__global__ void black_scholes_k(float *__restrict__ call, float *__restrict__ put,
                                const float *__restrict__ S, const float *__restrict__ X,
                                const float *__restrict__ T, float R, float V, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float s = S[i], x = X[i], t = T[i];
    float sqrt_t = sqrtf(t);
    float d1 = (logf(s / x) + (R + 0.5f * V * V) * t) / (V * sqrt_t);
    float d2 = d1 - V * sqrt_t;
    float cnd1 = cnd(d1), cnd2 = cnd(d2);
    float e = expf(-R * t);
    call[i] = s * cnd1 - x * e * cnd2;
    put[i] = x * e * (1.0f - cnd2) - s * (1.0f - cnd1);
  }
}

EXPORT int launch_black_scholes(float *call, float *put, const float *S, const float *X,
                                const float *T, float R, float V, long long n, int threads) {
  int blocks = (int)((n + threads - 1) / threads);
  black_scholes_k<<<blocks, threads>>>(call, put, S, X, T, R, V, (int)n);
  return (int)cudaGetLastError();
}

// ---- row softmax ----------------------------------------------------------------------------------

__global__ void softmax_small_k(const float *__restrict__ x, float *__restrict__ out, int rows) {
  // rows of 128: one warp per row, 4 values per lane
  int lane = threadIdx.x % 32;
  int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  if (row < rows) {
    const float *xr = x + (size_t)row * 128;
    float *outr = out + (size_t)row * 128;
    float v0 = xr[lane], v1 = xr[lane + 32], v2 = xr[lane + 64], v3 = xr[lane + 96];
    float m = warp_max_all(fmaxf(fmaxf(v0, v1), fmaxf(v2, v3)));
    float e0 = expf(v0 - m), e1 = expf(v1 - m), e2 = expf(v2 - m), e3 = expf(v3 - m);
    float inv = 1.0f / warp_sum_all(e0 + e1 + e2 + e3);
    outr[lane] = e0 * inv;
    outr[lane + 32] = e1 * inv;
    outr[lane + 64] = e2 * inv;
    outr[lane + 96] = e3 * inv;
  }
}

EXPORT int launch_softmax_small(const float *x, float *out, int rows, int threads) {
  int blocks = (int)(((long long)rows * 32 + threads - 1) / threads);
  softmax_small_k<<<blocks, threads>>>(x, out, rows);
  return (int)cudaGetLastError();
}

__global__ void softmax_large_k(const float *__restrict__ x, float *__restrict__ out, int n) {
  __shared__ float red[32];
  const float *xr = x + (size_t)blockIdx.x * n;
  float *outr = out + (size_t)blockIdx.x * n;
  int tid = threadIdx.x, nt = blockDim.x;
  float m = -INFINITY;
  for (int j = tid; j < n; j += nt)
    m = fmaxf(m, xr[j]);
  m = block_max(m, red);
  float s = 0.0f;
  for (int j = tid; j < n; j += nt)
    s += expf(xr[j] - m);
  float inv = 1.0f / block_sum(s, red);
  for (int j = tid; j < n; j += nt)
    outr[j] = expf(xr[j] - m) * inv;
}

EXPORT int launch_softmax_large(const float *x, float *out, int rows, int cols, int threads) {
  softmax_large_k<<<rows, threads>>>(x, out, cols);
  return (int)cudaGetLastError();
}

// ---- histogram with shared-memory atomics ----------------------------------------------------------

#define NBINS 256

__global__ void histogram_k(const uint8_t *__restrict__ data, int *hist, long long n) {
  __shared__ int sh[NBINS];
  int tid = threadIdx.x;
  for (int b = tid; b < NBINS; b += blockDim.x)
    sh[b] = 0;
  __syncthreads();
  for (long long i = (long long)blockIdx.x * blockDim.x + tid; i < n;
       i += (long long)gridDim.x * blockDim.x)
    atomicAdd(&sh[data[i]], 1);
  __syncthreads();
  for (int b = tid; b < NBINS; b += blockDim.x)
    atomicAdd(&hist[b], sh[b]);
}

EXPORT int launch_histogram(const uint8_t *data, int *hist, long long n, int blocks, int threads) {
  histogram_k<<<blocks, threads>>>(data, hist, n);
  return (int)cudaGetLastError();
}

// ---- Mandelbrot (double; Python's complex multiply and abs() = hypot) ---------------------------

__global__ void mandelbrot_k(int *__restrict__ out, int h, int w, double x0, double y0, double dx,
                             double dy, int maxit) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < h && j < w) {
    double cr = x0 + j * dx, ci = y0 + i * dy;
    double zr = 0.0, zi = 0.0;
    int n = 0;
    while (n < maxit && hypot(zr, zi) <= 2.0) {
      double r = zr * zr - zi * zi + cr;
      double im = zr * zi + zi * zr + ci;
      zr = r;
      zi = im;
      ++n;
    }
    out[(size_t)i * w + j] = n;
  }
}

EXPORT int launch_mandelbrot(int *out, int h, int w, double x0, double y0, double dx, double dy,
                             int maxit, int bx, int by) {
  dim3 block(bx, by);
  dim3 grid((w + bx - 1) / bx, (h + by - 1) / by);
  mandelbrot_k<<<grid, block>>>(out, h, w, x0, y0, dx, dy, maxit);
  return (int)cudaGetLastError();
}

// ---- dense FP32 FMA loop ----------------------------------------------------------------------------

__global__ void fma_loop_k(const float *__restrict__ x, float *__restrict__ out, int n, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float a0 = x[i];
    float a1 = a0 + 0.125f, a2 = a0 + 0.25f, a3 = a0 + 0.375f, a4 = a0 + 0.5f;
    float a5 = a0 + 0.625f, a6 = a0 + 0.75f, a7 = a0 + 0.875f;
    for (int k = 0; k < iters; ++k) {
      a0 = a0 * 0.9999f + 0.0001f;
      a1 = a1 * 0.9999f + 0.0002f;
      a2 = a2 * 0.9999f + 0.0003f;
      a3 = a3 * 0.9999f + 0.0004f;
      a4 = a4 * 0.9999f + 0.0005f;
      a5 = a5 * 0.9999f + 0.0006f;
      a6 = a6 * 0.9999f + 0.0007f;
      a7 = a7 * 0.9999f + 0.0008f;
    }
    out[i] = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
  }
}

EXPORT int launch_fma_loop(const float *x, float *out, long long n, int iters, int threads) {
  int blocks = (int)((n + threads - 1) / threads);
  fma_loop_k<<<blocks, threads>>>(x, out, (int)n, iters);
  return (int)cudaGetLastError();
}

// ---- helpers: events, copies, device facts ---------------------------------------------------------

EXPORT void *bench_event_create(void) {
  cudaEvent_t e = nullptr;
  if (cudaEventCreate(&e) != cudaSuccess)
    return nullptr;
  return (void *)e;
}
EXPORT int bench_event_record(void *e) { return (int)cudaEventRecord((cudaEvent_t)e, 0); }
EXPORT int bench_event_synchronize(void *e) { return (int)cudaEventSynchronize((cudaEvent_t)e); }
EXPORT float bench_event_elapsed_ms(void *start, void *end) {
  float ms = -1.0f;
  if (cudaEventElapsedTime(&ms, (cudaEvent_t)start, (cudaEvent_t)end) != cudaSuccess)
    return -1.0f;
  return ms;
}
EXPORT int bench_event_destroy(void *e) { return (int)cudaEventDestroy((cudaEvent_t)e); }
EXPORT int bench_synchronize(void) { return (int)cudaDeviceSynchronize(); }
EXPORT int bench_memcpy_d2d(void *dst, const void *src, size_t bytes) {
  return (int)cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, 0);
}
EXPORT int bench_memset(void *dst, int value, size_t bytes) {
  return (int)cudaMemsetAsync(dst, value, bytes, 0);
}
EXPORT const char *bench_error_string(int err) { return cudaGetErrorString((cudaError_t)err); }
EXPORT int bench_sm_count(void) {
  int dev = 0, v = 0;
  if (cudaGetDevice(&dev) != cudaSuccess)
    return -1;
  if (cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess)
    return -1;
  return v;
}
EXPORT int bench_runtime_version(void) {
  int v = 0;
  cudaRuntimeGetVersion(&v);
  return v;
}
EXPORT int bench_driver_version(void) {
  int v = 0;
  cudaDriverGetVersion(&v);
  return v;
}
