// Memory: device and pinned host allocations, copies and memset.
//
// All calls act in the calling thread's current context (currentContext())
// and are synchronous, except the *Async copies, which need pinned host
// memory to overlap with other work.
//
// Allocation failure gets one second chance: the Python layer defers frees
// of arrays released while kernels may still use them (like numba's
// deallocation queue) and registers a callback that flushes that queue. On
// CUDA_ERROR_OUT_OF_MEMORY, deviceAlloc calls it once and retries, then
// throws a DriverError whose isOutOfMemory() is true.
//
//   CUdeviceptr P = deviceAlloc(N * sizeof(float));
//   copyHostToDevice(P, Host.data(), N * sizeof(float));
//   deviceFree(P);
#pragma once

#include "runtime/CudaTypes.h"

#include <cstddef>

namespace pcj::rt {

/// Called (from the allocating thread) when an allocation runs out of
/// memory; it should release whatever device memory is pending release.
using FlushDeferredFreesFn = void (*)(void *UserData);

/// Registers the flush callback (nullptr: none). Thread-safe.
void setFlushDeferredFrees(FlushDeferredFreesFn Fn, void *UserData);

/// Allocates Bytes of device memory; 0 bytes gives 0 without a driver call.
CUdeviceptr deviceAlloc(size_t Bytes);
/// Frees an allocation from deviceAlloc; 0 is ignored.
void deviceFree(CUdeviceptr Ptr);

void copyHostToDevice(CUdeviceptr Dst, const void *Src, size_t Bytes);
void copyDeviceToHost(void *Dst, CUdeviceptr Src, size_t Bytes);
void copyDeviceToDevice(CUdeviceptr Dst, CUdeviceptr Src, size_t Bytes);
void memsetD8(CUdeviceptr Dst, unsigned char Value, size_t Bytes);

/// Asynchronous copies on Stream; Host should be pinned (pinnedAlloc).
void copyHostToDeviceAsync(CUdeviceptr Dst, const void *Src, size_t Bytes,
                           CUstream Stream);
void copyDeviceToHostAsync(void *Dst, CUdeviceptr Src, size_t Bytes,
                           CUstream Stream);

/// Page-locked host memory (cuMemHostAlloc, portable across contexts).
void *pinnedAlloc(size_t Bytes);
void pinnedFree(void *Ptr);

struct MemInfo {
  size_t Free = 0;
  size_t Total = 0;
};
/// Free and total memory of the current device (cuMemGetInfo).
MemInfo memInfo();

} // namespace pcj::rt
