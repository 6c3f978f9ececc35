/* launch_floor: the C floor for host-side kernel launch overhead.
 *
 * Times back-to-back cuLaunchKernel calls of one kernel from a PTX or cubin
 * file with nothing else on the path: dlopen'd libcuda.so.1, a packed
 * argument array prepared once, no checks per launch. pycuda_jit's launch
 * path is measured against this number (GPU-MACHINE.md: 3.24 us on an H200).
 *
 * Build and run on the GPU machine (no toolkit needed):
 *   gcc -O2 launch_floor.c -ldl -o launch_floor
 *   ./launch_floor saxpy.ptx saxpy --args f32,ptr,ptr,ptr
 *   ./launch_floor --builtin empty
 *   ./launch_floor --builtin saxpy --args f32,ptr,ptr,ptr
 *
 * Options:
 *   --args T,T,...   kernel parameter types: f32 f64 i32 i64 u32 u64 ptr;
 *                    a scalar may carry a value (f32=2.5, i32=1024). Scalars
 *                    default to 2.0 for floats and the element count for
 *                    integers; each ptr gets its own zeroed device buffer of
 *                    element-count x 8 bytes.
 *   --grid N --block N   launch shape (default 1 x 256); elements = N*N.
 *   --launches N     launches per repeat (default 10000)
 *   --repeats N      repeats; the median is reported (default 5)
 *   --builtin NAME   use the built-in PTX module (kernels: empty, saxpy)
 *
 * Output, one line: launch_floor kernel=K args=N us_per_launch=X
 * followed by min/max and the launch shape, as key=value pairs.
 */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;

/* The entry points used, with the symbols cuda.h (CUDA 13) selects. */
#define DRIVER_FNS(X)                                                          \
  X(cuInit, "cuInit", (unsigned))                                              \
  X(cuDeviceGet, "cuDeviceGet", (CUdevice *, int))                             \
  X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain",                      \
    (CUcontext *, CUdevice))                                                   \
  X(cuCtxSetCurrent, "cuCtxSetCurrent", (CUcontext))                           \
  X(cuCtxSynchronize, "cuCtxSynchronize", (void))                              \
  X(cuModuleLoadData, "cuModuleLoadData", (CUmodule *, const void *))          \
  X(cuModuleGetFunction, "cuModuleGetFunction",                                \
    (CUfunction *, CUmodule, const char *))                                    \
  X(cuMemAlloc, "cuMemAlloc_v2", (CUdeviceptr *, size_t))                      \
  X(cuMemsetD8, "cuMemsetD8_v2", (CUdeviceptr, unsigned char, size_t))         \
  X(cuGetErrorName, "cuGetErrorName", (CUresult, const char **))               \
  X(cuLaunchKernel, "cuLaunchKernel",                                          \
    (CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,   \
     unsigned, CUstream, void **, void **))

#define DECLARE(Name, Sym, Params) static CUresult(*p_##Name) Params;
DRIVER_FNS(DECLARE)
#undef DECLARE

static const char kBuiltinPtx[] =
    ".version 7.8\n"
    ".target sm_80\n"
    ".address_size 64\n"
    ".visible .entry empty()\n"
    "{\n"
    "    ret;\n"
    "}\n"
    "// out[i] = a * x[i] + y[i]\n"
    ".visible .entry saxpy(.param .f32 a, .param .u64 x, .param .u64 y,\n"
    "                      .param .u64 out)\n"
    "{\n"
    "    .reg .f32 %f<5>;\n"
    "    .reg .b32 %r<5>;\n"
    "    .reg .b64 %rd<8>;\n"
    "    ld.param.f32 %f1, [a];\n"
    "    ld.param.u64 %rd1, [x];\n"
    "    ld.param.u64 %rd2, [y];\n"
    "    ld.param.u64 %rd3, [out];\n"
    "    mov.u32 %r1, %ctaid.x;\n"
    "    mov.u32 %r2, %ntid.x;\n"
    "    mov.u32 %r3, %tid.x;\n"
    "    mad.lo.s32 %r4, %r1, %r2, %r3;\n"
    "    mul.wide.u32 %rd4, %r4, 4;\n"
    "    add.s64 %rd5, %rd1, %rd4;\n"
    "    ld.global.f32 %f2, [%rd5];\n"
    "    add.s64 %rd6, %rd2, %rd4;\n"
    "    ld.global.f32 %f3, [%rd6];\n"
    "    fma.rn.f32 %f4, %f1, %f2, %f3;\n"
    "    add.s64 %rd7, %rd3, %rd4;\n"
    "    st.global.f32 [%rd7], %f4;\n"
    "    ret;\n"
    "}\n";

#define MAX_ARGS 32

static void die(const char *What, const char *Detail) {
  fprintf(stderr, "launch_floor: %s%s%s\n", What, Detail ? ": " : "",
          Detail ? Detail : "");
  exit(1);
}

static void check(CUresult R, const char *Call) {
  const char *Name = NULL;
  if (R == 0)
    return;
  if (p_cuGetErrorName)
    p_cuGetErrorName(R, &Name);
  fprintf(stderr, "launch_floor: %s failed: %s (%d)\n", Call, Name ? Name : "?",
          R);
  exit(1);
}

static void loadDriver(void) {
  void *H = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!H)
    die("cannot load the CUDA driver", dlerror());
#define RESOLVE(Name, Sym, Params)                                             \
  *(void **)(&p_##Name) = dlsym(H, Sym);                                       \
  if (!p_##Name)                                                               \
    die("libcuda.so.1 lacks", Sym);
  DRIVER_FNS(RESOLVE)
#undef RESOLVE
}

/* Reads a whole file, NUL-terminated (PTX must be). */
static char *readFile(const char *Path) {
  FILE *F = fopen(Path, "rb");
  long N;
  char *Buf;
  if (!F)
    die("cannot open", Path);
  fseek(F, 0, SEEK_END);
  N = ftell(F);
  fseek(F, 0, SEEK_SET);
  Buf = malloc((size_t)N + 1);
  if (!Buf || fread(Buf, 1, (size_t)N, F) != (size_t)N)
    die("cannot read", Path);
  Buf[N] = '\0';
  fclose(F);
  return Buf;
}

static double nowUs(void) {
  struct timespec T;
  clock_gettime(CLOCK_MONOTONIC, &T);
  return (double)T.tv_sec * 1e6 + (double)T.tv_nsec / 1e3;
}

static int cmpDouble(const void *A, const void *B) {
  double X = *(const double *)A, Y = *(const double *)B;
  return (X > Y) - (X < Y);
}

/* One kernel argument: storage for its value, pointed at by Params[i]. */
typedef union {
  float F32;
  double F64;
  int32_t I32;
  int64_t I64;
  uint32_t U32;
  uint64_t U64;
  CUdeviceptr Ptr;
} ArgSlot;

/* Parses "--args" into Slots; returns the argument count. */
static int parseArgs(char *Spec, ArgSlot *Slots, size_t Elements) {
  int N = 0;
  char *Save = NULL;
  char *Tok;
  for (Tok = strtok_r(Spec, ",", &Save); Tok;
       Tok = strtok_r(NULL, ",", &Save)) {
    char *Eq = strchr(Tok, '=');
    const char *Val = Eq ? Eq + 1 : NULL;
    ArgSlot *S = &Slots[N];
    if (N == MAX_ARGS)
      die("too many --args", NULL);
    if (Eq)
      *Eq = '\0';
    memset(S, 0, sizeof(*S));
    if (!strcmp(Tok, "f32"))
      S->F32 = Val ? strtof(Val, NULL) : 2.0f;
    else if (!strcmp(Tok, "f64"))
      S->F64 = Val ? strtod(Val, NULL) : 2.0;
    else if (!strcmp(Tok, "i32"))
      S->I32 = Val ? (int32_t)strtol(Val, NULL, 0) : (int32_t)Elements;
    else if (!strcmp(Tok, "i64"))
      S->I64 = Val ? (int64_t)strtoll(Val, NULL, 0) : (int64_t)Elements;
    else if (!strcmp(Tok, "u32"))
      S->U32 = Val ? (uint32_t)strtoul(Val, NULL, 0) : (uint32_t)Elements;
    else if (!strcmp(Tok, "u64"))
      S->U64 = Val ? (uint64_t)strtoull(Val, NULL, 0) : (uint64_t)Elements;
    else if (!strcmp(Tok, "ptr")) {
      check(p_cuMemAlloc(&S->Ptr, Elements * 8), "cuMemAlloc");
      check(p_cuMemsetD8(S->Ptr, 0, Elements * 8), "cuMemsetD8");
    } else
      die("unknown argument type (f32 f64 i32 i64 u32 u64 ptr)", Tok);
    ++N;
  }
  return N;
}

int main(int Argc, char **Argv) {
  const char *ModulePath = NULL, *Kernel = NULL, *Builtin = NULL;
  char *ArgSpec = NULL;
  unsigned Grid = 1, Block = 256;
  int Launches = 10000, Repeats = 5, NArgs = 0, I, R;
  ArgSlot Slots[MAX_ARGS];
  void *Params[MAX_ARGS];
  double *Us;
  CUdevice Dev;
  CUcontext Ctx;
  CUmodule Mod;
  CUfunction Fn;
  char *Image;

  for (I = 1; I < Argc; ++I) {
    const char *A = Argv[I];
    const char *Next = I + 1 < Argc ? Argv[I + 1] : NULL;
    if (!strcmp(A, "--args") && Next)
      ArgSpec = Argv[++I];
    else if (!strcmp(A, "--grid") && Next)
      Grid = (unsigned)strtoul(Argv[++I], NULL, 0);
    else if (!strcmp(A, "--block") && Next)
      Block = (unsigned)strtoul(Argv[++I], NULL, 0);
    else if (!strcmp(A, "--launches") && Next)
      Launches = atoi(Argv[++I]);
    else if (!strcmp(A, "--repeats") && Next)
      Repeats = atoi(Argv[++I]);
    else if (!strcmp(A, "--builtin") && Next)
      Builtin = Argv[++I];
    else if (A[0] == '-') {
      fprintf(stderr, "usage: launch_floor (MODULE.ptx|MODULE.cubin KERNEL | "
                      "--builtin KERNEL) [--args T,...] [--grid N] "
                      "[--block N] [--launches N] [--repeats N]\n");
      return 2;
    } else if (!ModulePath && !Builtin)
      ModulePath = A;
    else
      Kernel = A;
  }
  if (Builtin)
    Kernel = Builtin;
  if ((!ModulePath && !Builtin) || !Kernel || Launches < 1 || Repeats < 1 ||
      Grid < 1 || Block < 1)
    die("need a module and a kernel name (see the top of launch_floor.c)",
        NULL);

  loadDriver();
  check(p_cuInit(0), "cuInit");
  check(p_cuDeviceGet(&Dev, 0), "cuDeviceGet");
  check(p_cuDevicePrimaryCtxRetain(&Ctx, Dev), "cuDevicePrimaryCtxRetain");
  check(p_cuCtxSetCurrent(Ctx), "cuCtxSetCurrent");

  Image = Builtin ? (char *)kBuiltinPtx : readFile(ModulePath);
  check(p_cuModuleLoadData(&Mod, Image), "cuModuleLoadData");
  check(p_cuModuleGetFunction(&Fn, Mod, Kernel), "cuModuleGetFunction");

  if (ArgSpec)
    NArgs = parseArgs(ArgSpec, Slots, (size_t)Grid * Block);
  for (I = 0; I < NArgs; ++I)
    Params[I] = &Slots[I];

  /* Warm up: first launches load the module onto the GPU. */
  for (I = 0; I < 100; ++I)
    check(p_cuLaunchKernel(Fn, Grid, 1, 1, Block, 1, 1, 0, NULL, Params, NULL),
          "cuLaunchKernel");
  check(p_cuCtxSynchronize(), "cuCtxSynchronize");

  Us = malloc(sizeof(double) * (size_t)Repeats);
  for (R = 0; R < Repeats; ++R) {
    double T0 = nowUs(), T1;
    for (I = 0; I < Launches; ++I)
      p_cuLaunchKernel(Fn, Grid, 1, 1, Block, 1, 1, 0, NULL, Params, NULL);
    T1 = nowUs();
    check(p_cuCtxSynchronize(), "cuCtxSynchronize"); /* also catches errors */
    Us[R] = (T1 - T0) / Launches;
  }
  qsort(Us, (size_t)Repeats, sizeof(double), cmpDouble);
  printf("launch_floor kernel=%s args=%d us_per_launch=%.2f us_min=%.2f "
         "us_max=%.2f grid=%u block=%u launches=%d repeats=%d\n",
         Kernel, NArgs, Us[Repeats / 2], Us[0], Us[Repeats - 1], Grid, Block,
         Launches, Repeats);
  return 0;
}
