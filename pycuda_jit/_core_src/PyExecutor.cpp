// The executor's operations for the Python objects (see PyExecutor.h).
#include "PyExecutor.h"

#include "Glue.h"

#include "runtime/Device.h"
#include "runtime/Errors.h"

#include <atomic>
#include <map>
#include <mutex>

namespace pcj::py {

namespace {

struct Counters {
  std::atomic<int64_t> live{0}, liveBytes{0}, hostLive{0}, hostBytes{0};
  std::atomic<uint64_t> allocs{0}, releases{0}, staged{0};
};
Counters &counters() {
  static auto *C = new Counters(); // outlives static destructors
  return *C;
}

// Mapped and managed host ranges: start -> (end, device address of start).
struct HostRanges {
  std::mutex mu;
  std::map<uint64_t, std::pair<uint64_t, uint64_t>> ranges;
  std::atomic<size_t> count{0};
};
HostRanges &hostRanges() {
  static auto *R = new HostRanges();
  return *R;
}

} // namespace

const char *backendName(Backend K) {
  return K == Backend::CUDA ? "cuda" : "cpu";
}

const std::string &backendFallbackReason() {
  return rt::executorFallbackReason();
}

void warnOnFallback() {
  static std::atomic<bool> Done{false};
  if (Done.load(std::memory_order_relaxed) || backend() != Backend::CPU ||
      backendFallbackReason().empty() || Done.exchange(true))
    return;
  Ref Cuda(PyImport_ImportModule("pycuda_jit.cuda"));
  Ref R(Cuda ? PyObject_CallMethod(Cuda.get(), "backend", nullptr) : nullptr);
  if (!R)
    throw PythonError{};
}

// ---- devices
// -------------------------------------------------------------------

int backendDeviceCount() {
  try {
    return executor().deviceCount();
  } catch (const rt::ExecutorSettingError &E) {
    PyErr_SetString(PyExc_ValueError, E.what());
    throw PythonError{};
  }
}

int backendCurrentDevice() { return executor().currentDevice(); }

rt::DeviceInfo backendDeviceInfo(int Ordinal) {
  backendDeviceCount(); // a bad PYCUDA_JIT_CPU_DEVICES: ValueError
  try {
    return executor().deviceInfo(Ordinal);
  } catch (const rt::NoSuchDevice &E) {
    PyErr_SetString(PyExc_IndexError, E.what());
    throw PythonError{};
  }
}

void backendSelectDevice(long Ordinal) {
  backendDeviceCount(); // a bad PYCUDA_JIT_CPU_DEVICES: ValueError
  try {
    executor().selectDevice(Ordinal);
  } catch (const rt::NoSuchDevice &E) {
    PyErr_SetString(PyExc_IndexError, E.what());
    throw PythonError{};
  }
}

// ---- device memory
// -------------------------------------------------------------

DeviceBlock allocDevice(size_t Bytes, bool Managed, bool AttachGlobal) {
  DeviceBlock B = executor().allocDevice(Bytes, Managed, AttachGlobal);
  Counters &K = counters();
  ++K.live;
  K.liveBytes += int64_t(Bytes);
  ++K.allocs;
  return B;
}

void releaseDevice(const DeviceBlock &B, size_t Bytes) {
  if (!B.ptr)
    return;
  Counters &K = counters();
  --K.live;
  K.liveBytes -= int64_t(Bytes);
  ++K.releases;
  executor().releaseDevice(B, Bytes);
}

bool blockAlive(int Device, uint64_t Gen) {
  return Gen == 0 || executor().contextGeneration(Device) == Gen;
}

void requireAlive(int Device, uint64_t Gen, const char *What) {
  if (blockAlive(Device, Gen)) [[likely]]
    return;
  rt::throwDriverError(rt::CUDA_ERROR_CONTEXT_IS_DESTROYED, "pycuda_jit",
                       std::string(What) +
                           " belongs to a CUDA context that cuda.close() "
                           "destroyed; its memory is gone");
}

uint64_t deviceAlloc(size_t Bytes) { return executor().alloc(Bytes); }

void deviceFree(uint64_t Ptr) {
  if (Ptr)
    executor().free(Ptr);
}

void copyToDevice(uint64_t Dst, const void *Src, size_t Bytes) {
  if (Bytes)
    executor().copyToDevice(Dst, Src, Bytes);
}

void copyToHost(void *Dst, uint64_t Src, size_t Bytes) {
  if (Bytes)
    executor().copyToHost(Dst, Src, Bytes);
}

void copyDeviceToDevice(uint64_t Dst, uint64_t Src, size_t Bytes) {
  if (Bytes)
    executor().copyDeviceToDevice(Dst, Src, Bytes);
}

void deviceMemset(uint64_t Dst, unsigned char Value, size_t Bytes) {
  if (Bytes)
    executor().memset(Dst, Value, Bytes);
}

void deviceSynchronize() { executor().synchronize(); }

void copyRegion(const rt::StridedRegion &Dst, const rt::StridedRegion &Src,
                size_t Item, rt::CUstream Stream, bool Async) {
  executor().copyStrided(Dst, Src, Item, Stream, Async);
}

// ---- host memory
// -------------------------------------------------------------------

HostBlock allocHost(size_t Bytes, HostKind Kind, bool Portable,
                    bool WriteCombined, bool AttachGlobal) {
  HostBlock B =
      executor().allocHost(Bytes, Kind, Portable, WriteCombined, AttachGlobal);
  if (B.devPtr) {
    HostRanges &R = hostRanges();
    std::lock_guard<std::mutex> L(R.mu);
    R.ranges[B.ptr] = {B.ptr + B.bytes, B.devPtr};
    R.count = R.ranges.size();
  }
  Counters &K = counters();
  ++K.hostLive;
  K.hostBytes += int64_t(B.bytes);
  return B;
}

void releaseHost(const HostBlock &B) {
  if (!B.ptr)
    return;
  if (B.devPtr) {
    HostRanges &R = hostRanges();
    std::lock_guard<std::mutex> L(R.mu);
    R.ranges.erase(B.ptr);
    R.count = R.ranges.size();
  }
  Counters &K = counters();
  --K.hostLive;
  K.hostBytes -= int64_t(B.bytes);
  executor().releaseHost(B);
}

uint64_t deviceAddressOfHost(uint64_t HostPtr, size_t Bytes) {
  HostRanges &R = hostRanges();
  if (R.count.load(std::memory_order_relaxed) == 0)
    return 0;
  std::lock_guard<std::mutex> L(R.mu);
  auto It = R.ranges.upper_bound(HostPtr);
  if (It == R.ranges.begin())
    return 0;
  --It;
  uint64_t Start = It->first, End = It->second.first;
  if (HostPtr < Start || HostPtr + Bytes > End)
    return 0;
  return It->second.second + (HostPtr - Start);
}

void pinHostRange(void *Ptr, size_t Bytes) { executor().pinHost(Ptr, Bytes); }

void unpinHostRange(void *Ptr) { executor().unpinHost(Ptr); }

MemoryStats memoryStats() {
  Counters &K = counters();
  MemoryStats S;
  S.liveAllocations = K.live;
  S.liveBytes = K.liveBytes;
  S.totalAllocations = K.allocs;
  S.totalReleases = K.releases;
  S.liveHostAllocations = K.hostLive;
  S.liveHostBytes = K.hostBytes;
  S.stagedArguments = K.staged;
  return S;
}

void noteStagedArgument() { ++counters().staged; }

} // namespace pcj::py
