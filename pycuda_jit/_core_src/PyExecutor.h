// Which executor runs kernels (runtime/Executor.h: the CUDA driver or the
// CPU executor, chosen once per process from PYCUDA_JIT_BACKEND) and the
// device memory operations of the Python objects, as calls on it, so that
// device arrays behave the same on both.  What stays here is the glue's
// part: Python exceptions for bad ordinals and settings, and the counters
// of live allocations (memoryStats) that make leaks visible on both
// backends, and the mapped / managed host ranges.
//
// Device memory owned by Python objects (Allocation) is released through
// releaseDevice(): on CUDA it joins the runtime's deferred-free queue
// (runtime/Memory.h), on the CPU it is freed at once.
#pragma once

#include "runtime/CudaTypes.h"
#include "runtime/Executor.h"
#include "runtime/StridedCopy.h"
#include "support/Backend.h"

#include <cstddef>
#include <cstdint>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>

namespace pcj::py {

// The backend is pcj::Backend (support/Backend.h), the compiler's own.

// PYCUDA_JIT_BACKEND=cuda without a usable GPU, or a bad value
// (pycuda_jit.CudaSupportError).
using rt::BackendUnavailable;

// Resolves the backend on first call; throws BackendUnavailable.
inline rt::Executor &executor() { return rt::executor(); }
inline Backend backend() { return rt::executor().backend(); }
// The backend if backend() has chosen one already (never resolves it).
inline std::optional<Backend> backendIfChosen() {
  rt::Executor *E = rt::executorIfChosen();
  return E ? std::optional<Backend>(E->backend()) : std::nullopt;
}
const char *backendName(Backend K);
// Why auto chose the CPU ("" if it did not).
const std::string &backendFallbackReason();
// When auto chose the CPU: the Python layer's one warning about it
// (pycuda_jit.cuda.backend()), for a program whose first use of pycuda_jit
// is a kernel launch.  Throws PythonError if the warning is made an error.
void warnOnFallback();

// ---- devices
// -------------------------------------------------------------------

// The devices kernels run on: the GPUs, or on the CPU executor
// PYCUDA_JIT_CPU_DEVICES virtual devices (default 1, at most 64), so that
// multi-GPU code runs without GPUs.  Each virtual device has its own
// memory in the sense that matters to programs: an allocation remembers the
// device it was made on (DeviceBlock::device), and a launch refuses an
// array of another device as a GPU would need peer access for it; the
// compiled host code is shared.  A bad PYCUDA_JIT_CPU_DEVICES raises
// ValueError (PythonError).
int backendDeviceCount();
// The calling thread's device (0 until selected).
int backendCurrentDevice();
// Selects the calling thread's device; IndexError (PythonError) for an
// ordinal that does not exist.
void backendSelectDevice(long Ordinal);
// The description of device Ordinal (the executor's deviceInfo; the CPU
// executor's pseudo device); IndexError (PythonError) for an ordinal of no
// CPU executor device.
rt::DeviceInfo backendDeviceInfo(int Ordinal);

// ---- device memory
// -------------------------------------------------------------

using rt::DeviceBlock;

// Device memory for an array (Managed: cuMemAllocManaged).  At least one
// byte is allocated, so that every array has a distinct address.
DeviceBlock allocDevice(size_t Bytes, bool Managed = false,
                        bool AttachGlobal = true);
// Releases a block from allocDevice (deferred on CUDA; a block of a context
// reset since is dropped).
void releaseDevice(const DeviceBlock &B, size_t Bytes);
// True when B's context is the live one (generation 0: not ours, not
// checked).
bool blockAlive(int Device, uint64_t Gen);
// Throws a CudaDriverError (CUDA_ERROR_CONTEXT_IS_DESTROYED) naming What
// unless blockAlive(Device, Gen).
void requireAlive(int Device, uint64_t Gen, const char *What);

using rt::HostOutOfMemory;

// Immediate allocation and free (staging buffers of one launch).
uint64_t deviceAlloc(size_t Bytes);
void deviceFree(uint64_t Ptr);

void copyToDevice(uint64_t Dst, const void *Src, size_t Bytes);
void copyToHost(void *Dst, uint64_t Src, size_t Bytes);
void copyDeviceToDevice(uint64_t Dst, uint64_t Src, size_t Bytes);
void deviceMemset(uint64_t Dst, unsigned char Value, size_t Bytes);
// Context synchronize, then flush the deferred frees.
void deviceSynchronize();

// Strided copy between regions (OnDevice marks device memory); on the CPU
// everything is host memory.  Async with a stream: see rt::copyStrided.
void copyRegion(const rt::StridedRegion &Dst, const rt::StridedRegion &Src,
                size_t Item, rt::CUstream Stream, bool Async);

// ---- host memory
// -------------------------------------------------------------------

using rt::HostBlock;
using rt::HostKind;

// Pinned: page-locked (portable); Mapped: page-locked and mapped into the
// device address space (Portable / WriteCombined flags); Managed: unified
// memory.  Mapped and managed memory is used by kernels in place.
HostBlock allocHost(size_t Bytes, HostKind Kind, bool Portable = false,
                    bool WriteCombined = false, bool AttachGlobal = true);
void releaseHost(const HostBlock &B);

// The device address of [HostPtr, HostPtr + Bytes) when it lies in mapped or
// managed memory from allocHost (kernels then use it in place), else 0.
uint64_t deviceAddressOfHost(uint64_t HostPtr, size_t Bytes);

// cuMemHostRegister / cuMemHostUnregister (no-ops on the CPU).
void pinHostRange(void *Ptr, size_t Bytes);
void unpinHostRange(void *Ptr);

// ---- statistics
// --------------------------------------------------------------------

struct MemoryStats {
  int64_t liveAllocations = 0; // device allocations not yet released
  int64_t liveBytes = 0;
  uint64_t totalAllocations = 0;
  uint64_t totalReleases = 0;
  int64_t liveHostAllocations = 0; // pinned / mapped / managed
  int64_t liveHostBytes = 0;
  uint64_t stagedArguments = 0; // host arrays copied in/out around a launch
};
MemoryStats memoryStats();
void noteStagedArgument();

} // namespace pcj::py
