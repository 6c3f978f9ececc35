// Backend selection and memory operations (see Backend.h).
#include "Backend.h"

#include "Glue.h"

#include "runtime/Device.h"
#include "runtime/Memory.h"
#include "runtime/CudaDriver.h"

#include <cstdlib>
#include <cstring>
#include <mutex>

namespace pcj::py {

namespace {
BackendKind Chosen = BackendKind::CPU;
std::string FallbackReason;
std::once_flag Once;
std::string Failure; // set when PYCUDA_JIT_BACKEND=cuda cannot work
} // namespace

const char *backendName(BackendKind K) {
  return K == BackendKind::CUDA ? "cuda" : "cpu";
}

const std::string &backendFallbackReason() { return FallbackReason; }

BackendKind backend() {
  std::call_once(Once, [] {
    const char *Env = std::getenv("PYCUDA_JIT_BACKEND");
    std::string Want = Env && *Env ? Env : "auto";
    if (Want == "cpu") {
      Chosen = BackendKind::CPU;
      return;
    }
    if (Want != "cuda" && Want != "auto") {
      Failure = "PYCUDA_JIT_BACKEND must be cuda, cpu or auto, not '" + Want + "'";
      return;
    }
    std::string Why;
    int Count = 0;
    try {
      Count = rt::deviceCount();
      if (Count == 0)
        Why = rt::CudaDriver::process().available()
                  ? "no CUDA device found"
                  : rt::CudaDriver::process().loadError();
    } catch (const std::exception &E) {
      Why = E.what();
    }
    if (Count > 0) {
      Chosen = BackendKind::CUDA;
      return;
    }
    if (Want == "cuda") {
      Failure = "PYCUDA_JIT_BACKEND=cuda but " + Why;
      return;
    }
    Chosen = BackendKind::CPU;
    FallbackReason = Why;
  });
  if (!Failure.empty())
    throw std::runtime_error(Failure);
  return Chosen;
}

uint64_t deviceAlloc(size_t Bytes) {
  if (backend() == BackendKind::CUDA)
    return rt::deviceAlloc(Bytes ? Bytes : 1);
  void *P = std::aligned_alloc(256, (Bytes + 255) / 256 * 256 + 256);
  if (!P)
    throw std::bad_alloc();
  return uint64_t(P);
}

void deviceFree(uint64_t Ptr) {
  if (!Ptr)
    return;
  if (backend() == BackendKind::CUDA)
    rt::deviceFree(Ptr);
  else
    std::free(reinterpret_cast<void *>(Ptr));
}

void copyToDevice(uint64_t Dst, const void *Src, size_t Bytes) {
  if (!Bytes)
    return;
  if (backend() == BackendKind::CUDA)
    rt::copyHostToDevice(Dst, Src, Bytes);
  else
    std::memcpy(reinterpret_cast<void *>(Dst), Src, Bytes);
}

void copyToHost(void *Dst, uint64_t Src, size_t Bytes) {
  if (!Bytes)
    return;
  if (backend() == BackendKind::CUDA)
    rt::copyDeviceToHost(Dst, Src, Bytes);
  else
    std::memcpy(Dst, reinterpret_cast<const void *>(Src), Bytes);
}

void copyDeviceToDevice(uint64_t Dst, uint64_t Src, size_t Bytes) {
  if (!Bytes)
    return;
  if (backend() == BackendKind::CUDA)
    rt::copyDeviceToDevice(Dst, Src, Bytes);
  else
    std::memmove(reinterpret_cast<void *>(Dst),
                 reinterpret_cast<const void *>(Src), Bytes);
}

void deviceMemset(uint64_t Dst, unsigned char Value, size_t Bytes) {
  if (!Bytes)
    return;
  if (backend() == BackendKind::CUDA)
    rt::memsetD8(Dst, Value, Bytes);
  else
    std::memset(reinterpret_cast<void *>(Dst), Value, Bytes);
}

void deviceSynchronize() {
  if (backend() == BackendKind::CUDA)
    rt::synchronize();
}

} // namespace pcj::py
