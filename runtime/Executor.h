// Executor: what runs kernels and holds their memory, behind one interface
// -- the GPUs through the CUDA driver (CudaExecutor.cpp) or the CPU executor
// (runtime/cpu/CpuExecutor.cpp: "device memory" is host memory, pinned,
// mapped and managed memory are ordinary host memory, copies are memcpy).
// One is chosen per process from PYCUDA_JIT_BACKEND (cuda | cpu | auto;
// auto: the GPU when a CUDA device is present, else the CPU; none with
// PYCUDA_JIT_DISABLE_CUDA=1 or numba's NUMBA_DISABLE_CUDA=1); the glue calls
// it instead of branching on the backend.  No CPython here.
//
//   rt::Executor &E = rt::executor();       // chosen once
//   rt::DeviceBlock B = E.allocDevice(64);  // on E.currentDevice()
//   E.copyToDevice(B.ptr, Host, 64);
//   E.releaseDevice(B, 64);
#pragma once

#include "runtime/CudaTypes.h"
#include "runtime/Launch.h"
#include "runtime/StridedCopy.h"
#include "support/Backend.h"

#include <cstddef>
#include <cstdint>
#include <new>
#include <stdexcept>
#include <string>

namespace pcj::rt {

// PYCUDA_JIT_BACKEND=cuda without a usable GPU, or a bad value.
class BackendUnavailable : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// A device ordinal that does not exist (the message names the count).
class NoSuchDevice : public std::out_of_range {
public:
  using std::out_of_range::out_of_range;
};

// A bad environment value the executor reads (PYCUDA_JIT_CPU_DEVICES).
class ExecutorSettingError : public std::invalid_argument {
public:
  using std::invalid_argument::invalid_argument;
};

// The CPU executor's allocation failure (the message names the size).
struct HostOutOfMemory : std::bad_alloc {
  std::string message;
  explicit HostOutOfMemory(size_t Bytes)
      : message("out of memory: requested " + std::to_string(Bytes) +
                " bytes of host memory (CPU executor)") {}
  const char *what() const noexcept override { return message.c_str(); }
};

// An allocation and the context it belongs to (device: the GPU, or the CPU
// executor's virtual device; gen: the context's generation).
struct DeviceBlock {
  uint64_t ptr = 0;
  int device = 0;
  uint64_t gen = 0;
};

enum class HostKind : uint8_t { Pinned, Mapped, Managed };

// Host memory a kernel may use: Pinned (page-locked), Mapped (page-locked
// and mapped into the device's address space: devPtr), Managed (unified).
struct HostBlock {
  uint64_t ptr = 0;    // host address
  uint64_t devPtr = 0; // device address (Mapped, Managed), else 0
  HostKind kind = HostKind::Pinned;
  int device = 0;
  uint64_t gen = 0;
  size_t bytes = 0;
};

class Executor {
public:
  virtual ~Executor() = default;
  virtual Backend backend() const = 0;
  // The launch limits that validateLaunchConfig checks (the current
  // device's; the CPU executor: those of current NVIDIA GPUs).
  virtual LaunchLimits launchLimits() = 0;

  // ---- devices: the GPUs, or the CPU executor's PYCUDA_JIT_CPU_DEVICES
  // virtual devices (default 1, at most 64; ExecutorSettingError otherwise).
  virtual int deviceCount() = 0;
  // The calling thread's device (0 until selected).
  virtual int currentDevice() = 0;
  // NoSuchDevice for an ordinal that does not exist.
  virtual void selectDevice(long Ordinal) = 0;
  // The generation of Device's context: changes when the context is reset
  // (cuda.close()), which makes the memory of older generations gone.
  virtual uint64_t contextGeneration(int Device) = 0;
  // cuda.close(): destroys every context (the CPU executor: a new
  // generation), so that older memory, modules and streams are refused.
  virtual void closeContexts() = 0;
  // cuda.select_device(n).reset(): destroys Device's context (no-op on the
  // CPU executor).
  virtual void resetDevice(int Device) = 0;
  // (free, total) bytes of the current device's memory (the host's on the
  // CPU executor).
  struct MemoryInfo {
    uint64_t free = 0, total = 0;
  };
  virtual MemoryInfo memoryInfo() = 0;
  // The heap of arrays made in kernels (np.empty...): the current device's
  // CU_LIMIT_MALLOC_HEAP_SIZE (set it before the context's first kernel
  // that allocates: CUDA refuses it later); the CPU executor's limit
  // (runtime/cpu/Heap.cpp).
  virtual size_t mallocHeapSize() = 0;
  virtual void setMallocHeapSize(size_t Bytes) = 0;
  // cuProfilerStart / Stop (no-ops on the CPU executor: no CUDA profiler).
  virtual void profilerStart() = 0;
  virtual void profilerStop() = 0;

  // ---- device memory.  At least one byte is allocated, so that every
  // array has a distinct address.
  virtual DeviceBlock allocDevice(size_t Bytes, bool Managed = false,
                                  bool AttachGlobal = true) = 0;
  // Releases a block of allocDevice (deferred on CUDA, runtime/Memory.h; a
  // block of a context reset since is dropped).
  virtual void releaseDevice(const DeviceBlock &B, size_t Bytes) = 0;
  // Immediate allocation and free (the staging buffers of one launch).
  virtual uint64_t alloc(size_t Bytes) = 0;
  virtual void free(uint64_t Ptr) = 0;
  virtual void copyToDevice(uint64_t Dst, const void *Src, size_t Bytes) = 0;
  virtual void copyToHost(void *Dst, uint64_t Src, size_t Bytes) = 0;
  virtual void copyDeviceToDevice(uint64_t Dst, uint64_t Src, size_t Bytes) = 0;
  virtual void memset(uint64_t Dst, unsigned char Value, size_t Bytes) = 0;
  // Context synchronize, then flush the deferred frees.
  virtual void synchronize() = 0;
  // Strided copy between regions (see rt::copyStrided; on the CPU every
  // region is host memory and the copy is synchronous).
  virtual void copyStrided(const StridedRegion &Dst, const StridedRegion &Src,
                           size_t Item, CUstream Stream, bool Async) = 0;

  // ---- host memory
  virtual HostBlock allocHost(size_t Bytes, HostKind Kind,
                              bool Portable = false, bool WriteCombined = false,
                              bool AttachGlobal = true) = 0;
  virtual void releaseHost(const HostBlock &B) = 0;
  // cuMemHostRegister / cuMemHostUnregister (no-ops on the CPU).
  virtual void pinHost(void *Ptr, size_t Bytes) = 0;
  virtual void unpinHost(void *Ptr) = 0;
};

// The process's executor, chosen on first call; throws BackendUnavailable
// (every later call too).
Executor &executor();
// The executor if executor() has chosen one already (never chooses).
Executor *executorIfChosen();
// Why auto chose the CPU ("" if it did not).
const std::string &executorFallbackReason();

// The two executors (selected by executor(); tests use them directly).
Executor &cudaExecutor();
Executor &cpuExecutor();

} // namespace pcj::rt
