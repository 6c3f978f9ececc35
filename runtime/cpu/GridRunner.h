// GridRunner: runs a kernel compiled for the host CPU over a whole grid with
// CUDA execution semantics (the "CPU executor").
//
// The compiled kernel is one function per CUDA thread with the ABI of
// ThreadCtx.h.  `launch` executes every block of the grid and returns when
// all threads have finished, or throws KernelFault for the first error.
//
//   KernelInfo K{&entry, "saxpy", /*usesBarriers=*/false,
//                /*usesWarpOps=*/false, /*staticSharedBytes=*/0};
//   void *Args[] = {&N, &A, &X, &Y};
//   launch(K, Dims{64}, Dims{256}, /*dynamicSharedBytes=*/0, Args);
//
// Threading: blocks are handed out by an atomic counter to a persistent pool
// of host threads plus the calling thread, which always works on its own
// grid.  Launches from several threads run concurrently, each grid on the
// caller plus the pool workers that are free.  A block runs on one host
// thread: its CUDA threads one after another when the kernel has neither
// barriers nor warp operations, else one fiber (Fiber.h) per CUDA thread,
// switched round-robin at every barrier and warp operation.  A grid
// barrier (pcj_cpu_grid_sync) needs every block alive at once: a block
// waiting in one keeps its host thread, and the blocks not started yet run
// on extra host threads that launch joins before it returns.
//
// Environment: PYCUDA_JIT_CPU_THREADS (host threads running blocks, caller
// included; default std::thread::hardware_concurrency()), and
// PYCUDA_JIT_CPU_STACK_KB (fiber stack size, see Fiber.h).  Both are read
// once, at first use.
#pragma once

#include "runtime/cpu/ThreadCtx.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace pcj::rt::cpu {

namespace san {
struct Finding;
}

using KernelEntry = void (*)(void **args, pcj_thread_ctx *ctx);

struct Dims {
  uint32_t x = 1, y = 1, z = 1;
};

struct KernelInfo {
  KernelEntry entry = nullptr;
  const char *name = nullptr;
  bool usesBarriers = false; // calls pcj_cpu_syncthreads*
  bool usesWarpOps = false;  // calls any warp-level pcj_cpu_* function
  size_t staticSharedBytes = 0;
  // san::Check bits the kernel was compiled with (Sanitizer.h); 0: none.
  uint8_t sanitize = 0;
};

// An error raised while the kernel ran.  The message names the kernel, the
// CUDA thread and block, and for index errors the source file:line.
class KernelFault : public std::runtime_error {
public:
  enum class Kind {
    IndexError,   // out-of-bounds index (a failed bounds check)
    ZeroDivision, // division or modulo by zero in checked mode
    ValueError,   // a value an operation rejects in checked mode (range step 0)
    UnboundLocal, // a read of an unassigned local in checked mode
    Deadlock,     // a barrier or warp operation that can never complete, or a
                  // warp operation used against its contract (mask mismatch)
    Raised,       // the kernel raised an exception (pcj_cpu_raise)
    Interrupted,  // SIGINT arrived during an interruptible launch
    Timeout,      // the launch ran past its time limit
    Recursion,    // a recursive device function ran out of stack
    Sync,         // a barrier or warp operation used against its contract
                  // (divergent barrier, a mask naming a lane that exited or
                  // waits elsewhere): a hang or undefined on the GPU
    Race,         // sanitizer: a data race (Sanitizer.h)
    Uninitialized, // sanitizer: a read of memory nothing wrote
    UseAfterFree,  // sanitizer: an access to freed device memory
    Exception,     // the kernel's raise/assert: exceptionClass() names the
                   // builtin exception class, or a user-defined class's key
                   // (errors.register_kernel_exception)
  };

  KernelFault(Kind K, const std::string &Message, Dims Thread, Dims Block,
              std::string File = "", int Line = 0)
      : std::runtime_error(Message), FaultKind(K), ThreadIdx(Thread),
        BlockIdx(Block), SourceFile(std::move(File)), SourceLine(Line) {}

  Kind kind() const noexcept { return FaultKind; }
  const char *message() const noexcept { return what(); }
  // threadIdx / blockIdx of the thread the error is attributed to.
  Dims thread() const noexcept { return ThreadIdx; }
  Dims block() const noexcept { return BlockIdx; }
  // The kernel source position of the failing access ("" / 0: unknown).
  const std::string &file() const noexcept { return SourceFile; }
  int line() const noexcept { return SourceLine; }
  // Sanitized launches: every finding of the launch (the fault's first),
  // else null.
  const std::shared_ptr<const std::vector<san::Finding>> &findings() const {
    return Findings;
  }
  void setFindings(std::shared_ptr<const std::vector<san::Finding>> F) {
    Findings = std::move(F);
  }
  // Kind::Exception: the builtin exception class the kernel raised.
  const std::string &exceptionClass() const noexcept { return ExceptionClass; }
  void setExceptionClass(std::string Name) { ExceptionClass = std::move(Name); }

private:
  Kind FaultKind;
  Dims ThreadIdx;
  Dims BlockIdx;
  std::string SourceFile;
  int SourceLine;
  std::shared_ptr<const std::vector<san::Finding>> Findings;
  std::string ExceptionClass;
};

const char *kindName(KernelFault::Kind K);

// How a launch may be stopped from outside (runtime/cpu/Cancel.cpp).
struct LaunchControl {
  // SIGINT (Ctrl-C) stops the launch: KernelFault(Interrupted).  The
  // previous SIGINT handler still runs (Python's: KeyboardInterrupt later);
  // ignored or default (fatal) SIGINT stays so.  One launch at a time.
  bool interruptible = false;
  // A time limit in seconds (<= 0: none): KernelFault(Timeout).
  double timeoutSeconds = 0;
};

// Runs the whole grid; returns when every thread has finished.  Throws
// KernelFault on the first error of the launch and std::invalid_argument for
// an invalid configuration (zero or over-limit dimensions, more than 1024
// threads per block, a null entry).  After an error (or an interrupt, or the
// time limit) no block is started and running threads stop at their next
// loop iteration, barrier or warp operation.  Thread-safe.
void launch(const KernelInfo &K, Dims Grid, Dims Block,
            size_t DynamicSharedBytes, void **Args,
            const LaunchControl &Control = {});

// Every byte of a block's shared memory (static and dynamic) holds this
// value when the block starts, in every build type: reads of shared memory
// that no thread wrote show up as 0xCDCDCDCD (int32 -842150451, float
// -4.316e8).
inline constexpr unsigned char kSharedPoisonByte = 0xCD;

// Number of host threads that run blocks (pool workers + the caller).
unsigned executorThreads();

// The runtime functions of ThreadCtx.h by name, for the host JIT to define
// as absolute symbols (the library is built with hidden visibility).
struct RuntimeSymbol {
  const char *name;
  void *address;
};
std::span<const RuntimeSymbol> runtimeSymbols();

// The limit of the kernels' heap (pcj_cpu_heap_alloc; process-wide, all
// virtual devices together) and the bytes in use now (Heap.cpp).
size_t heapLimit();
void setHeapLimit(size_t Bytes);
size_t heapBytesInUse();

} // namespace pcj::rt::cpu
