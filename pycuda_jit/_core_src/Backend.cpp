// Backend selection and memory operations (see Backend.h).
#include "Backend.h"
#include "support/Env.h"

#include "Glue.h"

#include "runtime/CudaDriver.h"
#include "runtime/Device.h"
#include "runtime/ErrorRecord.h"
#include "runtime/Errors.h"
#include "runtime/Memory.h"
#include "runtime/cpu/Sanitizer.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>

namespace pcj::py {

namespace {
Backend Chosen = Backend::CPU;
std::string FallbackReason;
std::once_flag Once;
std::string Failure; // set when PYCUDA_JIT_BACKEND=cuda cannot work

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

void *cpuAlloc(size_t Bytes) {
  void *P = Bytes > (size_t(1) << 62)
                ? nullptr
                : std::aligned_alloc(256, (Bytes + 255) / 256 * 256 + 256);
  if (!P)
    throw HostOutOfMemory(Bytes);
  return P;
}

// PYCUDA_JIT_SANITIZE: freed device memory is quarantined from the start
// (a kernel created with sanitize= arms it later, Dispatcher.cpp).
void armSanitizerFromEnvironment() {
  const char *Env = env::raw(env::Var::Sanitize);
  if (Env && rt::cpu::san::parseChecks(Env) > 0)
    rt::cpu::san::arm();
}

} // namespace

const char *backendName(Backend K) {
  return K == Backend::CUDA ? "cuda" : "cpu";
}

const std::string &backendFallbackReason() { return FallbackReason; }

// The variable that turns the device side off (PYCUDA_JIT_DISABLE_CUDA,
// else numba's NUMBA_DISABLE_CUDA), or null.
static const char *disabledBy() {
  if (env::isSet(env::Var::DisableCuda))
    return env::flag(env::Var::DisableCuda) ? env::name(env::Var::DisableCuda)
                                            : nullptr;
  return env::flag(env::Var::NumbaDisableCuda)
             ? env::name(env::Var::NumbaDisableCuda)
             : nullptr;
}

namespace {
// Set once backend() has resolved (chosen or failed).
std::atomic<bool> Resolved{false};
} // namespace

std::optional<Backend> backendIfChosen() {
  if (!Resolved.load(std::memory_order_acquire) || !Failure.empty())
    return std::nullopt;
  return Chosen;
}

Backend backend() {
  std::call_once(Once, [] {
    if (const char *Var = disabledBy()) {
      Failure = std::string("CUDA is disabled due to setting ") + Var +
                "=1 in the environment";
      return;
    }
    const char *Env = env::raw(env::Var::Backend);
    std::string Want = Env && *Env ? Env : "auto";
    if (Want == "cpu") {
      Chosen = Backend::CPU;
      armSanitizerFromEnvironment();
      return;
    }
    if (Want != "cuda" && Want != "auto") {
      Failure =
          "PYCUDA_JIT_BACKEND must be cuda, cpu or auto, not '" + Want + "'";
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
      Chosen = Backend::CUDA;
      return;
    }
    if (Want == "cuda") {
      Failure = "PYCUDA_JIT_BACKEND=cuda but " + Why;
      return;
    }
    Chosen = Backend::CPU;
    FallbackReason = Why;
    armSanitizerFromEnvironment();
  });
  Resolved.store(true, std::memory_order_release);
  if (!Failure.empty())
    throw BackendUnavailable(Failure);
  return Chosen;
}

void warnOnFallback() {
  static std::atomic<bool> Done{false};
  if (Done.load(std::memory_order_relaxed) || backend() != Backend::CPU ||
      FallbackReason.empty() || Done.exchange(true))
    return;
  Ref Cuda(PyImport_ImportModule("pycuda_jit.cuda"));
  Ref R(Cuda ? PyObject_CallMethod(Cuda.get(), "backend", nullptr) : nullptr);
  if (!R)
    throw PythonError{};
}

// ---- devices
// -------------------------------------------------------------------

namespace {
constexpr int kMaxCpuDevices = 64;
thread_local int CpuDevice = 0;

// PYCUDA_JIT_CPU_DEVICES, read once: the count, or 0 with Bad set.
int cpuDeviceCount(std::string &Bad) {
  static std::string Problem;
  static const int Count = [] {
    const char *Env = env::raw(env::Var::CpuDevices);
    if (!Env || !*Env)
      return 1;
    char *End = nullptr;
    long N = std::strtol(Env, &End, 10);
    if (*End != '\0' || N < 1 || N > kMaxCpuDevices) {
      Problem =
          std::string("PYCUDA_JIT_CPU_DEVICES must be a number of devices "
                      "from 1 to 64, not '") +
          Env + "'";
      return 0;
    }
    return int(N);
  }();
  Bad = Problem;
  return Count;
}

int cpuDevices() {
  std::string Bad;
  int N = cpuDeviceCount(Bad);
  if (N == 0) {
    PyErr_SetString(PyExc_ValueError, Bad.c_str());
    throw PythonError{};
  }
  return N;
}
} // namespace

int backendDeviceCount() {
  return backend() == Backend::CUDA ? rt::deviceCount() : cpuDevices();
}

int backendCurrentDevice() {
  return backend() == Backend::CUDA ? rt::currentDevice() : CpuDevice;
}

void backendSelectDevice(long Ordinal) {
  int N = backendDeviceCount();
  if (Ordinal < 0 || Ordinal >= N) {
    if (backend() == Backend::CUDA)
      PyErr_Format(
          PyExc_IndexError,
          "CUDA device %ld does not exist; this machine has %d device(s)",
          Ordinal, N);
    else
      PyErr_Format(
          PyExc_IndexError,
          "device %ld does not exist; the CPU executor has %d device(s) "
          "(PYCUDA_JIT_CPU_DEVICES)",
          Ordinal, N);
    throw PythonError{};
  }
  if (backend() != Backend::CUDA) {
    CpuDevice = int(Ordinal);
    return;
  }
  rt::setCurrentDevice(int(Ordinal));
  rt::currentContext(); // make it current now
}

// ---- device memory
// -------------------------------------------------------------

DeviceBlock allocDevice(size_t Bytes, bool Managed, bool AttachGlobal) {
  DeviceBlock B;
  size_t N = Bytes ? Bytes : 1;
  if (backend() == Backend::CUDA) {
    rt::Context &C = rt::currentContext();
    B.ptr = Managed ? rt::managedAlloc(N, AttachGlobal) : rt::deviceAlloc(N);
    B.device = C.device();
    B.gen = C.generation();
  } else {
    B.ptr = uint64_t(cpuAlloc(N));
    B.gen = cpuGeneration();
    B.device = CpuDevice;
    // The sanitizer's initcheck: a device_array's elements are
    // uninitialized until written (managed memory is written through NumPy
    // views the sanitizer cannot see).
    rt::cpu::san::noteAlloc(reinterpret_cast<void *>(B.ptr), N, Managed);
  }
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
  if (backend() == Backend::CUDA)
    rt::deferDeviceFree(B.device, B.gen, B.ptr, Bytes ? Bytes : 1);
  else if (!rt::cpu::san::noteFree(reinterpret_cast<void *>(B.ptr),
                                   Bytes ? Bytes : 1, &std::free))
    std::free(reinterpret_cast<void *>(B.ptr)); // (else kept in quarantine)
}

namespace {
std::atomic<uint64_t> CpuGeneration{1};
} // namespace

uint64_t cpuGeneration() {
  return CpuGeneration.load(std::memory_order_acquire);
}

void closeCpuContext() {
  CpuGeneration.fetch_add(1, std::memory_order_acq_rel);
}

bool blockAlive(int Device, uint64_t Gen) {
  if (Gen == 0)
    return true;
  return (backend() == Backend::CUDA ? rt::contextGeneration(Device)
                                     : cpuGeneration()) == Gen;
}

void requireAlive(int Device, uint64_t Gen, const char *What) {
  if (blockAlive(Device, Gen)) [[likely]]
    return;
  rt::throwDriverError(rt::CUDA_ERROR_CONTEXT_IS_DESTROYED, "pycuda_jit",
                       std::string(What) +
                           " belongs to a CUDA context that cuda.close() "
                           "destroyed; its memory is gone");
}

uint64_t deviceAlloc(size_t Bytes) {
  if (backend() == Backend::CUDA)
    return rt::deviceAlloc(Bytes ? Bytes : 1);
  return uint64_t(cpuAlloc(Bytes));
}

void deviceFree(uint64_t Ptr) {
  if (!Ptr)
    return;
  if (backend() == Backend::CUDA)
    rt::deviceFree(Ptr);
  else
    std::free(reinterpret_cast<void *>(Ptr));
}

void copyToDevice(uint64_t Dst, const void *Src, size_t Bytes) {
  if (!Bytes)
    return;
  if (backend() == Backend::CUDA) {
    rt::copyHostToDevice(Dst, Src, Bytes);
    return;
  }
  std::memcpy(reinterpret_cast<void *>(Dst), Src, Bytes);
  rt::cpu::san::noteHostWrite(reinterpret_cast<void *>(Dst), Bytes);
}

void copyToHost(void *Dst, uint64_t Src, size_t Bytes) {
  if (!Bytes)
    return;
  if (backend() == Backend::CUDA)
    rt::copyDeviceToHost(Dst, Src, Bytes);
  else
    std::memcpy(Dst, reinterpret_cast<const void *>(Src), Bytes);
}

void copyDeviceToDevice(uint64_t Dst, uint64_t Src, size_t Bytes) {
  if (!Bytes)
    return;
  if (backend() == Backend::CUDA) {
    rt::copyDeviceToDevice(Dst, Src, Bytes);
    return;
  }
  std::memmove(reinterpret_cast<void *>(Dst),
               reinterpret_cast<const void *>(Src), Bytes);
  rt::cpu::san::noteHostWrite(reinterpret_cast<void *>(Dst), Bytes);
}

void deviceMemset(uint64_t Dst, unsigned char Value, size_t Bytes) {
  if (!Bytes)
    return;
  if (backend() == Backend::CUDA) {
    rt::memsetD8(Dst, Value, Bytes);
    return;
  }
  std::memset(reinterpret_cast<void *>(Dst), Value, Bytes);
  rt::cpu::san::noteHostWrite(reinterpret_cast<void *>(Dst), Bytes);
}

void deviceSynchronize() {
  if (backend() != Backend::CUDA)
    return;
  try {
    rt::synchronize();
  } catch (const rt::KernelRaised &) { // a kernel's raise: the work is done
    rt::flushDeferredFrees();
    throw;
  }
  rt::flushDeferredFrees();
}

void copyRegion(const rt::StridedRegion &Dst, const rt::StridedRegion &Src,
                size_t Item, rt::CUstream Stream, bool Async) {
  if (backend() == Backend::CUDA) {
    rt::copyStrided(Dst, Src, Item, Stream, Async);
    return;
  }
  rt::hostStridedCopy(reinterpret_cast<char *>(Dst.Ptr), Dst.Strides,
                      reinterpret_cast<const char *>(Src.Ptr), Src.Strides,
                      Src.Shape, Src.NDim, Item);
  rt::cpu::san::noteHostWrite(reinterpret_cast<void *>(Dst.Ptr), Item);
}

// ---- host memory
// -------------------------------------------------------------------

HostBlock allocHost(size_t Bytes, HostKind Kind, bool Portable,
                    bool WriteCombined, bool AttachGlobal) {
  HostBlock B;
  B.kind = Kind;
  B.bytes = Bytes ? Bytes : 1;
  if (backend() == Backend::CUDA) {
    rt::Context &C = rt::currentContext();
    B.device = C.device();
    B.gen = C.generation();
    switch (Kind) {
    case HostKind::Pinned:
      B.ptr = uint64_t(rt::pinnedAlloc(B.bytes, rt::kMemHostAllocPortable));
      break;
    case HostKind::Mapped: {
      unsigned Flags = rt::kMemHostAllocDeviceMap;
      if (Portable)
        Flags |= rt::kMemHostAllocPortable;
      if (WriteCombined)
        Flags |= rt::kMemHostAllocWriteCombined;
      B.ptr = uint64_t(rt::pinnedAlloc(B.bytes, Flags));
      try {
        B.devPtr = rt::hostDevicePointer(reinterpret_cast<void *>(B.ptr));
      } catch (...) {
        rt::pinnedFree(reinterpret_cast<void *>(B.ptr));
        throw;
      }
      break;
    }
    case HostKind::Managed:
      B.ptr = rt::managedAlloc(B.bytes, AttachGlobal);
      B.devPtr = B.ptr;
      break;
    }
  } else {
    B.ptr = uint64_t(cpuAlloc(B.bytes));
    B.devPtr = Kind == HostKind::Pinned ? 0 : B.ptr;
    B.device = CpuDevice;
  }
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
  if (backend() != Backend::CUDA) {
    std::free(reinterpret_cast<void *>(B.ptr));
    return;
  }
  if (!blockAlive(B.device, B.gen))
    return; // gone with its context
  if (B.kind == HostKind::Managed)
    rt::deferDeviceFree(B.device, B.gen, B.ptr, B.bytes);
  else
    rt::pinnedFree(reinterpret_cast<void *>(B.ptr));
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

void pinHostRange(void *Ptr, size_t Bytes) {
  if (backend() == Backend::CUDA)
    rt::hostRegister(Ptr, Bytes, rt::kMemHostRegisterPortable);
}

void unpinHostRange(void *Ptr) {
  if (backend() == Backend::CUDA)
    rt::hostUnregister(Ptr);
}

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
