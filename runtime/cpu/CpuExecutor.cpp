// The CPU executor's side of Executor.h: "device memory" is host memory
// (256-byte aligned, as cudaMalloc's), copies are memcpy, and the
// sanitizer (Sanitizer.h) hears of every allocation, free and host write.
// PYCUDA_JIT_CPU_DEVICES virtual devices (default 1, at most 64): each
// allocation remembers the device it was made on, so that multi-GPU code
// runs without GPUs; the compiled host code is shared.  cuda.close() starts
// a new context generation, which makes older memory gone, as on a GPU.
#include "runtime/Executor.h"
#include "runtime/cpu/Sanitizer.h"
#include "support/Env.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

namespace pcj::rt {

namespace {

constexpr int kMaxCpuDevices = 64;
thread_local int CpuDevice = 0;

// PYCUDA_JIT_CPU_DEVICES, read once.
int cpuDeviceCount() {
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
  if (Count == 0)
    throw ExecutorSettingError(Problem);
  return Count;
}

void *hostAlloc(size_t Bytes) {
  void *P = Bytes > (size_t(1) << 62)
                ? nullptr
                : std::aligned_alloc(256, (Bytes + 255) / 256 * 256 + 256);
  if (!P)
    throw HostOutOfMemory(Bytes);
  return P;
}

void *at(uint64_t Ptr) { return reinterpret_cast<void *>(Ptr); }

class CpuExecutor final : public Executor {
  std::atomic<uint64_t> Generation{1};

public:
  Backend backend() const override { return Backend::CPU; }
  LaunchLimits launchLimits() override { return kCpuLaunchLimits; }

  int deviceCount() override { return cpuDeviceCount(); }
  int currentDevice() override { return CpuDevice; }
  void selectDevice(long Ordinal) override {
    int N = deviceCount();
    if (Ordinal < 0 || Ordinal >= N)
      throw NoSuchDevice("device " + std::to_string(Ordinal) +
                         " does not exist; the CPU executor has " +
                         std::to_string(N) +
                         " device(s) (PYCUDA_JIT_CPU_DEVICES)");
    CpuDevice = int(Ordinal);
  }
  uint64_t contextGeneration(int) override {
    return Generation.load(std::memory_order_acquire);
  }
  void closeContexts() override {
    Generation.fetch_add(1, std::memory_order_acq_rel);
  }
  void resetDevice(int) override {}
  MemoryInfo memoryInfo() override {
    long Page = sysconf(_SC_PAGESIZE);
    return {uint64_t(sysconf(_SC_AVPHYS_PAGES)) * uint64_t(Page),
            uint64_t(sysconf(_SC_PHYS_PAGES)) * uint64_t(Page)};
  }
  size_t mallocHeapSize() override { return cpu::heapLimit(); }
  void setMallocHeapSize(size_t Bytes) override { cpu::setHeapLimit(Bytes); }
  void profilerStart() override {}
  void profilerStop() override {}

  DeviceBlock allocDevice(size_t Bytes, bool Managed, bool) override {
    size_t N = Bytes ? Bytes : 1;
    DeviceBlock B;
    B.ptr = uint64_t(hostAlloc(N));
    B.gen = contextGeneration(CpuDevice);
    B.device = CpuDevice;
    // The sanitizer's initcheck: a device_array's elements are
    // uninitialized until written (managed memory is written through NumPy
    // views the sanitizer cannot see).
    cpu::san::noteAlloc(at(B.ptr), N, Managed);
    return B;
  }
  void releaseDevice(const DeviceBlock &B, size_t Bytes) override {
    // (else kept in the sanitizer's quarantine)
    if (!cpu::san::noteFree(at(B.ptr), Bytes ? Bytes : 1, &std::free))
      std::free(at(B.ptr));
  }
  uint64_t alloc(size_t Bytes) override { return uint64_t(hostAlloc(Bytes)); }
  void free(uint64_t Ptr) override { std::free(at(Ptr)); }
  void copyToDevice(uint64_t Dst, const void *Src, size_t Bytes) override {
    std::memcpy(at(Dst), Src, Bytes);
    cpu::san::noteHostWrite(at(Dst), Bytes);
  }
  void copyToHost(void *Dst, uint64_t Src, size_t Bytes) override {
    std::memcpy(Dst, at(Src), Bytes);
  }
  void copyDeviceToDevice(uint64_t Dst, uint64_t Src, size_t Bytes) override {
    std::memmove(at(Dst), at(Src), Bytes);
    cpu::san::noteHostWrite(at(Dst), Bytes);
  }
  void memset(uint64_t Dst, unsigned char Value, size_t Bytes) override {
    std::memset(at(Dst), Value, Bytes);
    cpu::san::noteHostWrite(at(Dst), Bytes);
  }
  void synchronize() override {}
  void copyStrided(const StridedRegion &Dst, const StridedRegion &Src,
                   size_t Item, CUstream, bool) override {
    hostStridedCopy(reinterpret_cast<char *>(Dst.Ptr), Dst.Strides,
                    reinterpret_cast<const char *>(Src.Ptr), Src.Strides,
                    Src.Shape, Src.NDim, Item);
    cpu::san::noteHostWrite(at(Dst.Ptr), Item);
  }

  HostBlock allocHost(size_t Bytes, HostKind Kind, bool, bool, bool) override {
    HostBlock B;
    B.kind = Kind;
    B.bytes = Bytes ? Bytes : 1;
    B.ptr = uint64_t(hostAlloc(B.bytes));
    B.devPtr = Kind == HostKind::Pinned ? 0 : B.ptr;
    B.device = CpuDevice;
    return B;
  }
  void releaseHost(const HostBlock &B) override { std::free(at(B.ptr)); }
  void pinHost(void *, size_t) override {}
  void unpinHost(void *) override {}
};

} // namespace

Executor &cpuExecutor() {
  static auto *E = new CpuExecutor(); // outlives static destructors
  return *E;
}

} // namespace pcj::rt
