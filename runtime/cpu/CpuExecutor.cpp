// The CPU executor's side of Executor.h: "device memory" is host memory
// (256-byte aligned, as cudaMalloc's), copies are memcpy, and the
// sanitizer (Sanitizer.h) hears of every allocation, free and host write.
// PYCUDA_JIT_CPU_DEVICES virtual devices (default 1, at most 64): each
// allocation remembers the device it was made on, so that multi-GPU code
// runs without GPUs; the compiled host code is shared.  cuda.close() starts
// a new context generation, which makes older memory gone, as on a GPU.
#include "runtime/Device.h"
#include "runtime/Errors.h"
#include "runtime/Executor.h"
#include "runtime/cpu/GridRunner.h"
#include "runtime/cpu/Sanitizer.h"
#include "support/Env.h"

#include <atomic>
#include <chrono>
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

// The pseudo device's attributes: the limits the CPU executor enforces
// (kCpuLaunchLimits, those of current NVIDIA GPUs) and its threads.
bool cpuAttribute(const std::string &Name, long &Out) {
  const LaunchLimits &L = kCpuLaunchLimits;
  struct Row {
    const char *Name;
    long long Value;
  };
  const Row Rows[] = {
      {"MAX_THREADS_PER_BLOCK", L.MaxThreadsPerBlock},
      {"MAX_BLOCK_DIM_X", L.MaxBlockDim[0]},
      {"MAX_BLOCK_DIM_Y", L.MaxBlockDim[1]},
      {"MAX_BLOCK_DIM_Z", L.MaxBlockDim[2]},
      {"MAX_GRID_DIM_X", L.MaxGridDim[0]},
      {"MAX_GRID_DIM_Y", L.MaxGridDim[1]},
      {"MAX_GRID_DIM_Z", L.MaxGridDim[2]},
      {"MAX_SHARED_MEMORY_PER_BLOCK", (long long)L.MaxSharedBytesPerBlock},
      {"MAX_SHARED_MEMORY_PER_BLOCK_OPTIN",
       (long long)L.MaxSharedBytesPerBlockOptin},
      {"WARP_SIZE", 32},
      {"MULTIPROCESSOR_COUNT", (long long)cpu::executorThreads()},
      {"MAX_THREADS_PER_MULTIPROCESSOR", L.MaxThreadsPerBlock},
      {"COMPUTE_CAPABILITY_MAJOR", 9},
      {"COMPUTE_CAPABILITY_MINOR", 0},
      {"UNIFIED_ADDRESSING", 1},
      {"MANAGED_MEMORY", 1},
      {"CAN_MAP_HOST_MEMORY", 1},
      {"CONCURRENT_MANAGED_ACCESS", 1},
      {"CONCURRENT_KERNELS", 1},
      {"INTEGRATED", 1},
  };
  for (const Row &R : Rows)
    if (Name == R.Name) {
      Out = long(R.Value);
      return true;
    }
  CUdevice_attribute A;
  if (deviceAttributeByName(Name, A)) {
    Out = 0; // a GPU property the CPU executor does not have
    return true;
  }
  return false;
}

// Ids of the CPU executor's streams (0, 1, 2 are the default streams).
std::atomic<uint64_t> NextStreamId{16};

// A stream of the CPU executor: an id (the work runs when issued).
class CpuStream final : public ExecutorStream {
public:
  CpuStream(uint64_t Gen, const std::atomic<uint64_t> *Live)
      : ExecutorStream(nullptr, NextStreamId++, 0, Gen, Live) {}
};

double nowMs() {
  using namespace std::chrono;
  return duration<double, std::milli>(steady_clock::now().time_since_epoch())
      .count();
}

// An event of the CPU executor: the host time of its last record().
class CpuEvent final : public ExecutorEvent {
public:
  CpuEvent(bool Timing, uint64_t Gen, const std::atomic<uint64_t> *Live)
      : ExecutorEvent(Timing), Gen(Gen), Live(Live) {}
  uint64_t handle() const override {
    return uint64_t(reinterpret_cast<uintptr_t>(this));
  }
  void record(CUstream) override {
    HostMs = nowMs();
    Recorded = true;
  }
  void synchronize() override {}
  bool query() override { return true; }
  void waitOn(CUstream) override {}
  bool alive() const override {
    return Live->load(std::memory_order_acquire) == Gen;
  }
  // The same errors the driver gives.
  double stamp() const {
    if (!timing())
      throwDriverError(CUDA_ERROR_INVALID_HANDLE, "cuEventElapsedTime",
                       "an event created with timing=False has no "
                       "timestamp");
    if (!Recorded)
      throwDriverError(CUDA_ERROR_INVALID_HANDLE, "cuEventElapsedTime",
                       "the event has not been recorded");
    return HostMs;
  }
  bool recorded() const { return Recorded; }

private:
  uint64_t Gen;
  const std::atomic<uint64_t> *Live;
  bool Recorded = false;
  double HostMs = 0;
};

class CpuExecutor final : public Executor {
  std::atomic<uint64_t> Generation{1};

public:
  CpuExecutor()
      : Executor(/*LaunchRunsGrid=*/true, /*DeviceMemoryIsHost=*/true) {}
  Backend backend() const override { return Backend::CPU; }
  LaunchLimits launchLimits() override { return kCpuLaunchLimits; }

  int deviceCount() override { return cpuDeviceCount(); }
  int currentDevice() override { return CpuDevice; }
  // NoSuchDevice unless Ordinal is one of the virtual devices.
  void checkOrdinal(long Ordinal) {
    int N = deviceCount();
    if (Ordinal < 0 || Ordinal >= N)
      throw NoSuchDevice("device " + std::to_string(Ordinal) +
                         " does not exist; the CPU executor has " +
                         std::to_string(N) +
                         " device(s) (PYCUDA_JIT_CPU_DEVICES)");
  }
  void selectDevice(long Ordinal) override {
    checkOrdinal(Ordinal);
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
  DeviceInfo deviceInfo(int Ordinal) override {
    checkOrdinal(Ordinal);
    DeviceInfo I;
    I.Ordinal = Ordinal;
    I.Name = "pycuda_jit CPU executor";
    I.TotalMemory =
        size_t(sysconf(_SC_PHYS_PAGES)) * size_t(sysconf(_SC_PAGESIZE));
    long V = 0;
#define PCJ_X(Field, Attr)                                                     \
  V = 0;                                                                       \
  cpuAttribute(std::string(#Attr).substr(20), V);                              \
  I.Field = int(V);
    PCJ_DEVICE_ATTRS(PCJ_X)
#undef PCJ_X
    return I;
  }
  bool deviceAttribute(int, const std::string &Name, long &Out) override {
    return cpuAttribute(Name, Out);
  }
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
  void flushDeferredFrees() override {}
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

  std::unique_ptr<ExecutorStream> createStream(bool) override {
    return std::make_unique<CpuStream>(
        Generation.load(std::memory_order_acquire), &Generation);
  }
  std::unique_ptr<ExecutorEvent> createEvent(bool Timing) override {
    return std::make_unique<CpuEvent>(
        Timing, Generation.load(std::memory_order_acquire), &Generation);
  }
  float elapsedMs(const ExecutorEvent &Start,
                  const ExecutorEvent &End) override {
    auto &A = static_cast<const CpuEvent &>(Start);
    auto &B = static_cast<const CpuEvent &>(End);
    // Both timing checks before the recorded checks, as before.
    if (!A.timing() || !B.timing())
      (A.timing() ? B : A).stamp();
    double From = A.stamp();
    return float(B.stamp() - From);
  }
  CUstream streamOfHandle(uint64_t) override { return nullptr; }
  void synchronizeStream(CUstream) override {}
  bool queryStream(CUstream) override { return true; }
  void launchHostFunc(CUstream, CUhostFn Fn, void *Data) override { Fn(Data); }
  void streamWaitStream(CUstream, CUstream) override {}

  [[noreturn]] static void noIpc() {
    throw BackendUnavailable(
        "CUDA IPC handles need a GPU; on the CPU executor pickle the array "
        "(a copy) or share host memory (multiprocessing.shared_memory)");
  }
  CUipcMemHandle ipcHandle(uint64_t, uint64_t &) override { noIpc(); }
  uint64_t openIpc(const CUipcMemHandle &) override { noIpc(); }
  void closeIpc(uint64_t) override { noIpc(); }

  LaunchSite currentSite() override {
    return {CpuDevice, Generation.load(std::memory_order_acquire)};
  }
  std::shared_ptr<Module> loadKernel(const LoadableImage *Image,
                                     const std::string &Name,
                                     const LoadSettings &,
                                     LoadedKernel &Out) override {
    if (Image)
      throw std::invalid_argument(
          "kernel '" + Name +
          "': the CPU executor runs host code, not a GPU image");
    Out.gen = Generation.load(std::memory_order_acquire);
    Out.fn = nullptr;
    Out.setUp = false;
    return nullptr;
  }

  bool launch(const KernelSlots &K, const LaunchArgs &A,
              LaunchSite &Site) override {
    int Device = CpuDevice;
    uint64_t Gen = Generation.load(std::memory_order_acquire);
    const LoadedKernel *L = K.at(size_t(Device));
    if (!L || L->gen != Gen || !L->setUp) [[unlikely]] {
      Site.device = Device;
      Site.generation = Gen;
      return false;
    }
    cpu::LaunchControl Control;
    Control.interruptible = A.interruptible;
    Control.timeoutSeconds = A.timeoutSeconds;
    struct AfterRun {
      void (*Fn)(void *);
      void *State;
      ~AfterRun() {
        if (Fn)
          Fn(State);
      }
    } After{A.afterRun, A.beforeRun ? A.beforeRun() : nullptr};
    cpu::launch(*K.host, cpu::Dims{A.grid.x, A.grid.y, A.grid.z},
                cpu::Dims{A.block.x, A.block.y, A.block.z}, A.shared, A.params,
                Control);
    return true;
  }
};

} // namespace

Executor &cpuExecutor() {
  static auto *E = new CpuExecutor(); // outlives static destructors
  return *E;
}

} // namespace pcj::rt
