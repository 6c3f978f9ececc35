// ThreadCtx: the ABI between kernels compiled for the host CPU and the CPU
// executor (runtime/cpu).  The compiler's host target hooks take the field
// offsets from this struct (compiler/lower/HostTarget.cpp) and compiled
// kernels live on in the disk cache, so the layout is frozen: a change bumps
// kCpuAbiVersion, which every cache key includes (driver::compilerBuildId).
//
// A host kernel entry point has the same parameter convention as a CUDA
// launch: `args[i]` points at the i-th kernel parameter's value.
//
//   extern "C" void entry(void **args, pcj_thread_ctx *ctx);
//
// Runtime functions that generated code may call are declared at the end;
// they are resolved by the host JIT from this process.
#pragma once

#include <cstddef>
#include <cstdint>

extern "C" {

struct pcj_thread_ctx {
  uint32_t tid[3];         // offset  0: threadIdx.x/y/z
  uint32_t ntid[3];        // offset 12: blockDim
  uint32_t ctaid[3];       // offset 24: blockIdx
  uint32_t nctaid[3];      // offset 36: gridDim
  uint32_t laneid;         // offset 48: linear thread index in block % 32
  uint32_t warpid;         // offset 52: linear thread index in block / 32
  char *shared;            // offset 56: this block's static shared memory
  char *dynShared;         // offset 64: this block's dynamic shared memory
  void *sched;             // offset 72: executor-private (block scheduler)
  void *self;              // offset 80: executor-private (this thread's fiber)
  uint64_t dynSharedBytes; // offset 88: bytes of dynamic shared memory
};

// Static description of an array access site, emitted as a constant by the
// compiler for its bounds check.
struct pcj_index_site {
  const char *kernel; // kernel name
  const char *file;   // source file
  int32_t line;       // source line
  int32_t pad;
};

// A Python exception raised by a checked-mode test (debug=True) other than
// an array bounds check: a tuple index out of range, a division by zero, a
// read of a local unassigned on the path taken.
enum pcj_error_kind : int32_t {
  PCJ_ERROR_INDEX = 0,         // IndexError
  PCJ_ERROR_ZERO_DIVISION = 1, // ZeroDivisionError
  PCJ_ERROR_VALUE = 2,         // ValueError (range() step 0)
  PCJ_ERROR_UNBOUND_LOCAL = 3, // UnboundLocalError
  PCJ_ERROR_RECURSION = 4,     // RecursionError (pcj_cpu_check_stack)
  PCJ_ERROR_RAISED = 5,        // the kernel's `raise`/`assert`: `exception`
};
struct pcj_error_site {
  const char *kernel;    // kernel name
  const char *file;      // source file
  const char *message;   // "float division by zero"
  int32_t line;          // source line
  int32_t kind;          // pcj_error_kind
  const char *exception; // PCJ_ERROR_RAISED: the builtin class ("ValueError")
};

// An array element access site of a kernel compiled with `sanitize`
// (runtime/cpu/Sanitizer.h), emitted as a writable private global by the
// compiler; `id` is 0 until the runtime registers the site on first use.
enum pcj_san_flags : uint32_t {
  PCJ_SAN_READ = 0, // bits 0-1: the access
  PCJ_SAN_WRITE = 1,
  PCJ_SAN_ATOMIC = 2,      // read-modify-write (cuda.atomic.*)
  PCJ_SAN_GLOBAL = 0 << 2, // bits 2-3: the array's memory space
  PCJ_SAN_SHARED = 1 << 2,
  PCJ_SAN_LOCAL = 2 << 2,
  // A read of a kernel parameter the kernel never writes and that the
  // launch checked overlaps no array it may write: it cannot race within
  // the launch, only its initialization and lifetime are checked.
  PCJ_SAN_READONLY = 1 << 4,
};
struct pcj_san_site {
  uint32_t id;    // set by the runtime
  uint32_t flags; // pcj_san_flags
  uint32_t bytes; // bytes accessed (the element's size)
  int32_t line;   // source position of the access
  int32_t col;    // -1: unknown
  int32_t endCol;
  const char *kernel;
  const char *file;
  const char *array; // the array's name, "" if unknown
};

// -- called by generated host code -------------------------------------------
// Block-wide barrier (cuda.syncthreads): complete when every thread of the
// block that has not exited arrived.  `site` identifies the call site (a
// number unique in the kernel's module; arrivals from different sites never
// meet), `line` is the call's source line.
void pcj_cpu_syncthreads(pcj_thread_ctx *ctx, int32_t site, int32_t line);
// syncthreads_count/and/or: barrier + reduction of `pred` over the threads
// that arrive (exited threads do not contribute).
int32_t pcj_cpu_syncthreads_count(pcj_thread_ctx *ctx, int32_t pred,
                                  int32_t site, int32_t line);
int32_t pcj_cpu_syncthreads_and(pcj_thread_ctx *ctx, int32_t pred, int32_t site,
                                int32_t line);
int32_t pcj_cpu_syncthreads_or(pcj_thread_ctx *ctx, int32_t pred, int32_t site,
                               int32_t line);
// Warp-level operations over the lanes named by `mask` (like *_sync on sm_70+).
void pcj_cpu_syncwarp(pcj_thread_ctx *ctx, uint32_t mask);
// mode: 0 idx, 1 up, 2 down, 3 xor; `lane` is srcLane / delta / laneMask.
uint64_t pcj_cpu_shfl_sync(pcj_thread_ctx *ctx, uint32_t mask, uint64_t value,
                           int32_t mode, int32_t lane, int32_t width);
// mode: 0 all, 1 any, 2 eq (uni), 3 ballot.  Returns the result word.
uint32_t pcj_cpu_vote_sync(pcj_thread_ctx *ctx, uint32_t mask, int32_t pred,
                           int32_t mode);
uint32_t pcj_cpu_match_any_sync(pcj_thread_ctx *ctx, uint32_t mask,
                                uint64_t value);
// Returns the mask if all lanes in mask hold the same value, else 0; *pred =
// all equal.
uint32_t pcj_cpu_match_all_sync(pcj_thread_ctx *ctx, uint32_t mask,
                                uint64_t value, int32_t *pred);
// The lanes of the caller's warp converged at call site `site`: the caller
// waits until no other lane of its warp can run (each reached an activemask
// call, waits elsewhere or exited); the lanes at the same site form the mask.
uint32_t pcj_cpu_activemask(pcj_thread_ctx *ctx, int32_t site);
// cuda.nanosleep: in fiber mode, lets the block's other threads run first.
void pcj_cpu_nanosleep(pcj_thread_ctx *ctx, uint32_t ns);
// cuda.cg.this_grid().sync(): a barrier of every thread of the grid (exited
// threads count as arrived; a block all of whose threads exited never
// arrives).  The blocks that have not started yet are started on extra
// host threads while the others wait (every block of the grid is alive at
// once).
void pcj_cpu_grid_sync(pcj_thread_ctx *ctx, int32_t line);
// printf-compatible: `args` is packed like CUDA's vprintf argument buffer
// (each argument aligned to its own size; floats promoted to double).
int32_t pcj_cpu_vprintf(const char *fmt, const void *args);
// Bounds check failed: report it and terminate this thread.  `index` and
// `shape` hold `ndim` values (every dimension's index as written, and the
// array's shape); `axis` is the dimension out of bounds.
[[noreturn]] void pcj_cpu_index_error(pcj_thread_ctx *ctx,
                                      const pcj_index_site *site,
                                      const int64_t *index,
                                      const int64_t *shape, int32_t ndim,
                                      int32_t axis);
// Checked mode: raise the site's exception and terminate this thread.
[[noreturn]] void pcj_cpu_error(pcj_thread_ctx *ctx,
                                const pcj_error_site *site);
// At the entry of a device function that calls itself: returns while the
// calling thread's stack (its fiber's, or the OS thread's) has room for a
// few more frames; else records a RecursionError for `site` (kernel: the
// function) and terminates this thread.
void pcj_cpu_check_stack(pcj_thread_ctx *ctx, const pcj_error_site *site);
// Terminate this thread with an error message (e.g. an exception raised in
// the kernel); the launch reports the first one.
[[noreturn]] void pcj_cpu_raise(pcj_thread_ctx *ctx, const char *message);
// Sanitized kernels: before every array element access at `ptr` (`base`
// is the array's data pointer); after an atomic on global memory, done.
void pcj_san_access(pcj_thread_ctx *ctx, pcj_san_site *site, const void *ptr,
                    const void *base);
void pcj_san_atomic_done(pcj_thread_ctx *ctx);
// Sanitized kernels: before every barrier and warp operation (its site,
// with flags 3), so that synchronization errors name the source line.
void pcj_san_sync(pcj_thread_ctx *ctx, pcj_san_site *site);
// Every loop of generated code reads this word (relaxed) once per iteration
// and calls pcj_cpu_poll when it is not 0: some launch is being stopped
// (Ctrl-C, time limit, error); the poll ends the calling thread if it is
// its launch, and returns otherwise.
extern uint32_t pcj_cpu_stop_requests;
void pcj_cpu_poll(void);
// Arrays made in kernels (runtime/cpu/Heap.cpp): `bytes` of memory, 16-byte
// aligned, or null when the heap limit (cuda.set_malloc_heap_size, 8 MiB by
// default, like CUDA's) would be passed; and its release.
void *pcj_cpu_heap_alloc(uint64_t bytes);
void pcj_cpu_heap_free(void *ptr);
}

namespace pcj::rt::cpu {
constexpr int kCpuAbiVersion = 6;
static_assert(offsetof(pcj_thread_ctx, laneid) == 48, "ABI");
static_assert(offsetof(pcj_thread_ctx, shared) == 56, "ABI");
static_assert(offsetof(pcj_thread_ctx, dynShared) == 64, "ABI");
static_assert(offsetof(pcj_thread_ctx, sched) == 72, "ABI");
static_assert(offsetof(pcj_thread_ctx, dynSharedBytes) == 88, "ABI");
static_assert(sizeof(pcj_san_site) == 48 &&
                  offsetof(pcj_san_site, kernel) == 24,
              "ABI");
} // namespace pcj::rt::cpu
