// Memory: device and pinned host allocations, copies and memset.
//
// All calls act in the calling thread's current context (currentContext())
// and are synchronous, except the *Async copies, which need pinned host
// memory to overlap with other work.
//
// Frees are deferred and batched (like numba's deallocation queue):
// deferDeviceFree() queues an allocation that its owner released, and the
// queue is flushed (cuMemFree for each) when it holds more than a count or a
// byte threshold, on flushDeferredFrees() (cuda.synchronize()), and before an
// out-of-memory retry. Each entry carries its context's generation: entries
// of a context that was reset since are dropped, never freed (the address may
// belong to a new allocation by then).
//
// Allocation failure gets one second chance: on CUDA_ERROR_OUT_OF_MEMORY,
// deviceAlloc flushes the queue, calls the callback registered with
// setFlushDeferredFrees (if any) once, and retries, then throws a
// DriverError whose isOutOfMemory() is true.
//
//   CUdeviceptr P = deviceAlloc(N * sizeof(float));
//   copyHostToDevice(P, Host.data(), N * sizeof(float));
//   deviceFree(P);
#pragma once

#include "runtime/CudaTypes.h"

#include <cstddef>
#include <cstdint>
#include <string>

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

/// Managed (unified) memory, accessible from the host and every device
/// (cuMemAllocManaged; AttachGlobal: any stream may use it, else only the
/// host until attached). Out-of-memory retries like deviceAlloc. Freed with
/// deviceFree / deferDeviceFree.
CUdeviceptr managedAlloc(size_t Bytes, bool AttachGlobal = true);

// ---- deferred frees
// ----------------------------------------------------------

/// Queues Ptr (Bytes long, allocated in device Device's context of
/// generation Generation) for release; may flush the queue.
void deferDeviceFree(int Device, uint64_t Generation, CUdeviceptr Ptr,
                     size_t Bytes);
/// Frees every queued allocation whose context is still alive.
void flushDeferredFrees();
/// Forgets the queued allocations of Device (its context is being reset).
void dropDeferredFrees(int Device);

struct DeferredFreeStats {
  size_t PendingCount = 0;
  size_t PendingBytes = 0;
  uint64_t Flushes = 0;    // flushes that freed something
  uint64_t Freed = 0;      // allocations freed through the queue
  uint64_t OomRetries = 0; // allocations retried after an out-of-memory flush
};
DeferredFreeStats deferredFreeStats();

/// Flush thresholds: more than MaxCount queued allocations, or more than
/// MaxBytes queued bytes (0: a fifth of the device's memory). Defaults:
/// 64 allocations, a fifth of the device's memory.
void setDeferredFreeLimits(size_t MaxCount, size_t MaxBytes);

/// Nestable: while any deferCleanup(true) is not matched by
/// deferCleanup(false), the thresholds do not flush the queue (an
/// out-of-memory retry still does).
void deferCleanup(bool Enter);

void copyHostToDevice(CUdeviceptr Dst, const void *Src, size_t Bytes);
void copyDeviceToHost(void *Dst, CUdeviceptr Src, size_t Bytes);
void copyDeviceToDevice(CUdeviceptr Dst, CUdeviceptr Src, size_t Bytes);
void memsetD8(CUdeviceptr Dst, unsigned char Value, size_t Bytes);
/// CUDA IPC: the handle another process of this node opens to use the
/// cuMemAlloc allocation that contains Ptr (whoever made it: another
/// library's memory too), whose start it stores in Base; opening maps the
/// allocation into the current context (peer access enabled as needed)
/// until closeIpcMemory.  A process cannot open its own handles.
CUipcMemHandle ipcMemHandle(CUdeviceptr Ptr, CUdeviceptr &Base);
CUdeviceptr openIpcMemory(const CUipcMemHandle &Handle);
void closeIpcMemory(CUdeviceptr Ptr);

/// Copies between the memories of two devices (cuMemcpyPeer; no peer access
/// needed: the driver stages the copy when the devices cannot reach each
/// other), on Stream (of either device) when Async.
void copyPeer(CUdeviceptr Dst, int DstDevice, CUdeviceptr Src, int SrcDevice,
              size_t Bytes, CUstream Stream, bool Async);

/// Asynchronous copies on Stream; Host should be pinned (pinnedAlloc).
void copyHostToDeviceAsync(CUdeviceptr Dst, const void *Src, size_t Bytes,
                           CUstream Stream);
void copyDeviceToHostAsync(void *Dst, CUdeviceptr Src, size_t Bytes,
                           CUstream Stream);
void copyDeviceToDeviceAsync(CUdeviceptr Dst, CUdeviceptr Src, size_t Bytes,
                             CUstream Stream);
void memsetD8Async(CUdeviceptr Dst, unsigned char Value, size_t Bytes,
                   CUstream Stream);

/// cuMemcpy2D, or cuMemcpy2DAsync on Stream when Async.
void copy2D(const CUDA_MEMCPY2D &Params, CUstream Stream, bool Async);

/// Page-locked host memory (cuMemHostAlloc, portable across contexts).
void *pinnedAlloc(size_t Bytes);
/// The same with explicit cuMemHostAlloc flags (kMemHostAlloc*).
void *pinnedAlloc(size_t Bytes, unsigned Flags);
void pinnedFree(void *Ptr);
/// The device address of mapped pinned memory (cuMemHostGetDevicePointer).
CUdeviceptr hostDevicePointer(void *Host);

/// Why the host CPU cannot access [Ptr, Ptr + Bytes) in place, or "" when it
/// can (the CPU executor's check of foreign data pointers): a null pointer,
/// GPU memory (asked of the CUDA driver when some library loaded it into
/// the process; managed memory is fine), or an unmapped first or last page.
/// Never throws.
std::string hostAccessProblem(uint64_t Ptr, uint64_t Bytes);

/// Page-locks existing host memory (cuMemHostRegister, kMemHostRegister*
/// flags) and undoes it.
void hostRegister(void *Ptr, size_t Bytes, unsigned Flags);
void hostUnregister(void *Ptr);

struct MemInfo {
  size_t Free = 0;
  size_t Total = 0;
};
/// Free and total memory of the current device (cuMemGetInfo).
MemInfo memInfo();

} // namespace pcj::rt
