// Memory: allocation with an out-of-memory retry, copies, memset, pinned
// host memory. See Memory.h.
#include "runtime/Memory.h"

#include "runtime/Device.h"
#include "runtime/Errors.h"

#include <mutex>
#include <string>

namespace pcj::rt {

namespace {

struct FlushHook {
  std::mutex Lock;
  FlushDeferredFreesFn Fn = nullptr;
  void *UserData = nullptr;
};

FlushHook &flushHook() {
  static FlushHook Hook;
  return Hook;
}

// Runs the registered flush callback; false when none is registered.
bool flushDeferredFrees() {
  FlushHook &Hook = flushHook();
  FlushDeferredFreesFn Fn;
  void *UserData;
  {
    std::lock_guard<std::mutex> Guard(Hook.Lock);
    Fn = Hook.Fn;
    UserData = Hook.UserData;
  }
  if (!Fn)
    return false;
  Fn(UserData);
  return true;
}

std::string mib(size_t Bytes) {
  return std::to_string((Bytes + (1u << 19)) >> 20) + " MiB";
}

} // namespace

void setFlushDeferredFrees(FlushDeferredFreesFn Fn, void *UserData) {
  FlushHook &Hook = flushHook();
  std::lock_guard<std::mutex> Guard(Hook.Lock);
  Hook.Fn = Fn;
  Hook.UserData = UserData;
}

CUdeviceptr deviceAlloc(size_t Bytes) {
  if (Bytes == 0)
    return 0;
  const CudaApi &Cu = currentContext().api();
  CUdeviceptr Ptr = 0;
  CUresult R = Cu.cuMemAlloc(&Ptr, Bytes);
  if (R == CUDA_ERROR_OUT_OF_MEMORY && flushDeferredFrees())
    R = Cu.cuMemAlloc(&Ptr, Bytes);
  if (R == CUDA_SUCCESS)
    return Ptr;
  std::string Detail;
  if (R == CUDA_ERROR_OUT_OF_MEMORY) {
    size_t Free = 0, Total = 0;
    Detail =
        "requested " + std::to_string(Bytes) + " bytes (" + mib(Bytes) + ")";
    if (Cu.cuMemGetInfo(&Free, &Total) == CUDA_SUCCESS)
      Detail += "; the device has " + mib(Free) + " free of " + mib(Total);
  }
  throwDriverError(R, "cuMemAlloc", std::move(Detail));
}

void deviceFree(CUdeviceptr Ptr) {
  if (Ptr == 0)
    return;
  check(currentContext().api().cuMemFree(Ptr), "cuMemFree");
}

void copyHostToDevice(CUdeviceptr Dst, const void *Src, size_t Bytes) {
  if (Bytes == 0)
    return;
  check(currentContext().api().cuMemcpyHtoD(Dst, Src, Bytes), "cuMemcpyHtoD");
}

void copyDeviceToHost(void *Dst, CUdeviceptr Src, size_t Bytes) {
  if (Bytes == 0)
    return;
  check(currentContext().api().cuMemcpyDtoH(Dst, Src, Bytes), "cuMemcpyDtoH");
}

void copyDeviceToDevice(CUdeviceptr Dst, CUdeviceptr Src, size_t Bytes) {
  if (Bytes == 0)
    return;
  check(currentContext().api().cuMemcpyDtoD(Dst, Src, Bytes), "cuMemcpyDtoD");
}

void memsetD8(CUdeviceptr Dst, unsigned char Value, size_t Bytes) {
  if (Bytes == 0)
    return;
  check(currentContext().api().cuMemsetD8(Dst, Value, Bytes), "cuMemsetD8");
}

void copyHostToDeviceAsync(CUdeviceptr Dst, const void *Src, size_t Bytes,
                           CUstream Stream) {
  if (Bytes == 0)
    return;
  check(currentContext().api().cuMemcpyHtoDAsync(Dst, Src, Bytes, Stream),
        "cuMemcpyHtoDAsync");
}

void copyDeviceToHostAsync(void *Dst, CUdeviceptr Src, size_t Bytes,
                           CUstream Stream) {
  if (Bytes == 0)
    return;
  check(currentContext().api().cuMemcpyDtoHAsync(Dst, Src, Bytes, Stream),
        "cuMemcpyDtoHAsync");
}

void *pinnedAlloc(size_t Bytes) {
  if (Bytes == 0)
    return nullptr;
  void *Ptr = nullptr;
  check(
      currentContext().api().cuMemHostAlloc(&Ptr, Bytes, kMemHostAllocPortable),
      "cuMemHostAlloc");
  return Ptr;
}

void pinnedFree(void *Ptr) {
  if (!Ptr)
    return;
  check(currentContext().api().cuMemFreeHost(Ptr), "cuMemFreeHost");
}

MemInfo memInfo() {
  MemInfo M;
  check(currentContext().api().cuMemGetInfo(&M.Free, &M.Total), "cuMemGetInfo");
  return M;
}

} // namespace pcj::rt
