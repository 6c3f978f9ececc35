// The GPUs' executor (Executor.h): every operation is the CUDA driver's,
// through runtime/Device.h, Memory.h and StridedCopy.h.
#include "runtime/CudaDriver.h"
#include "runtime/Device.h"
#include "runtime/ErrorRecord.h"
#include "runtime/Errors.h"
#include "runtime/Executor.h"
#include "runtime/LoadImage.h"
#include "runtime/Memory.h"
#include "runtime/Stream.h"

namespace pcj::rt {

namespace {

// A driver stream (rt::Stream: blocking or not), alive while its context's
// generation is the one it was made in.
class CudaStream final : public ExecutorStream {
public:
  explicit CudaStream(std::unique_ptr<Stream> S)
      : ExecutorStream(S->handle(),
                       uint64_t(reinterpret_cast<uintptr_t>(S->handle())),
                       S->device(), rt::contextGeneration(S->device()),
                       contextGenerationWord(S->device())),
        Owned(std::move(S)) {}

private:
  std::unique_ptr<Stream> Owned; // destroyed unless its context was reset
};

class CudaEvent final : public ExecutorEvent {
public:
  explicit CudaEvent(bool Timing) : ExecutorEvent(Timing), Ev(Timing) {}
  uint64_t handle() const override {
    return uint64_t(reinterpret_cast<uintptr_t>(Ev.handle()));
  }
  void record(CUstream S) override { Ev.record(S); }
  void synchronize() override { Ev.synchronize(); }
  bool query() override { return Ev.query(); }
  void waitOn(CUstream S) override { Ev.waitOn(S); }
  bool alive() const override { return Ev.alive(); }
  const Event &event() const { return Ev; }

private:
  Event Ev;
};

class CudaExecutor final : public Executor {
public:
  CudaExecutor()
      : Executor(/*LaunchRunsGrid=*/false, /*DeviceMemoryIsHost=*/false) {}
  Backend backend() const override { return Backend::CUDA; }
  LaunchLimits launchLimits() override { return currentContext().limits(); }

  int deviceCount() override { return rt::deviceCount(); }
  int currentDevice() override { return rt::currentDevice(); }
  void selectDevice(long Ordinal) override {
    int N = deviceCount();
    if (Ordinal < 0 || Ordinal >= N)
      throw NoSuchDevice("CUDA device " + std::to_string(Ordinal) +
                         " does not exist; this machine has " +
                         std::to_string(N) + " device(s)");
    setCurrentDevice(int(Ordinal));
    currentContext(); // make it current now
  }
  uint64_t contextGeneration(int Device) override {
    return rt::contextGeneration(Device);
  }
  void closeContexts() override { resetAllDevices(); }
  void resetDevice(int Device) override { rt::resetDevice(Device); }
  MemoryInfo memoryInfo() override {
    MemInfo M = memInfo();
    return {uint64_t(M.Free), uint64_t(M.Total)};
  }
  size_t mallocHeapSize() override {
    size_t N = 0;
    check(currentContext().api().cuCtxGetLimit(&N, CU_LIMIT_MALLOC_HEAP_SIZE),
          "cuCtxGetLimit");
    return N;
  }
  void setMallocHeapSize(size_t Bytes) override {
    check(
        currentContext().api().cuCtxSetLimit(CU_LIMIT_MALLOC_HEAP_SIZE, Bytes),
        "cuCtxSetLimit");
  }
  DeviceInfo deviceInfo(int Ordinal) override {
    return rt::deviceInfo(Ordinal);
  }
  bool deviceAttribute(int Ordinal, const std::string &Name,
                       long &Out) override {
    CUdevice_attribute A;
    if (!deviceAttributeByName(Name, A))
      return false;
    Out = rt::deviceAttribute(Ordinal, A);
    return true;
  }
  void profilerStart() override { rt::profilerStart(); }
  void profilerStop() override { rt::profilerStop(); }

  DeviceBlock allocDevice(size_t Bytes, bool Managed,
                          bool AttachGlobal) override {
    size_t N = Bytes ? Bytes : 1;
    Context &C = currentContext();
    DeviceBlock B;
    B.ptr = Managed ? managedAlloc(N, AttachGlobal) : rt::deviceAlloc(N);
    B.device = C.device();
    B.gen = C.generation();
    return B;
  }
  void releaseDevice(const DeviceBlock &B, size_t Bytes) override {
    deferDeviceFree(B.device, B.gen, B.ptr, Bytes ? Bytes : 1);
  }
  uint64_t alloc(size_t Bytes) override {
    return rt::deviceAlloc(Bytes ? Bytes : 1);
  }
  void free(uint64_t Ptr) override { rt::deviceFree(Ptr); }
  void copyToDevice(uint64_t Dst, const void *Src, size_t Bytes) override {
    copyHostToDevice(Dst, Src, Bytes);
  }
  void copyToHost(void *Dst, uint64_t Src, size_t Bytes) override {
    copyDeviceToHost(Dst, Src, Bytes);
  }
  void copyDeviceToDevice(uint64_t Dst, uint64_t Src, size_t Bytes) override {
    rt::copyDeviceToDevice(Dst, Src, Bytes);
  }
  void memset(uint64_t Dst, unsigned char Value, size_t Bytes) override {
    memsetD8(Dst, Value, Bytes);
  }
  void synchronize() override {
    try {
      rt::synchronize();
    } catch (const KernelRaised &) {
      // A kernel's raise: the work is done, its memory may go.
      rt::flushDeferredFrees();
      throw;
    }
    rt::flushDeferredFrees();
  }
  void flushDeferredFrees() override { rt::flushDeferredFrees(); }
  void copyStrided(const StridedRegion &Dst, const StridedRegion &Src,
                   size_t Item, CUstream Stream, bool Async) override {
    rt::copyStrided(Dst, Src, Item, Stream, Async);
  }

  HostBlock allocHost(size_t Bytes, HostKind Kind, bool Portable,
                      bool WriteCombined, bool AttachGlobal) override {
    HostBlock B;
    B.kind = Kind;
    B.bytes = Bytes ? Bytes : 1;
    Context &C = currentContext();
    B.device = C.device();
    B.gen = C.generation();
    switch (Kind) {
    case HostKind::Pinned:
      B.ptr = uint64_t(pinnedAlloc(B.bytes, kMemHostAllocPortable));
      break;
    case HostKind::Mapped: {
      unsigned Flags = kMemHostAllocDeviceMap;
      if (Portable)
        Flags |= kMemHostAllocPortable;
      if (WriteCombined)
        Flags |= kMemHostAllocWriteCombined;
      B.ptr = uint64_t(pinnedAlloc(B.bytes, Flags));
      try {
        B.devPtr = hostDevicePointer(reinterpret_cast<void *>(B.ptr));
      } catch (...) {
        pinnedFree(reinterpret_cast<void *>(B.ptr));
        throw;
      }
      break;
    }
    case HostKind::Managed:
      B.ptr = managedAlloc(B.bytes, AttachGlobal);
      B.devPtr = B.ptr;
      break;
    }
    return B;
  }
  void releaseHost(const HostBlock &B) override {
    if (B.gen && rt::contextGeneration(B.device) != B.gen)
      return; // gone with its context
    if (B.kind == HostKind::Managed)
      deferDeviceFree(B.device, B.gen, B.ptr, B.bytes);
    else
      pinnedFree(reinterpret_cast<void *>(B.ptr));
  }
  void pinHost(void *Ptr, size_t Bytes) override {
    hostRegister(Ptr, Bytes, kMemHostRegisterPortable);
  }
  void unpinHost(void *Ptr) override { hostUnregister(Ptr); }

  std::unique_ptr<ExecutorStream> createStream(bool NonBlocking) override {
    return std::make_unique<CudaStream>(std::make_unique<Stream>(NonBlocking));
  }
  std::unique_ptr<ExecutorEvent> createEvent(bool Timing) override {
    return std::make_unique<CudaEvent>(Timing);
  }
  float elapsedMs(const ExecutorEvent &Start,
                  const ExecutorEvent &End) override {
    return rt::elapsedMs(static_cast<const CudaEvent &>(Start).event(),
                         static_cast<const CudaEvent &>(End).event());
  }
  CUstream streamOfHandle(uint64_t Handle) override {
    return reinterpret_cast<CUstream>(uintptr_t(Handle));
  }
  void synchronizeStream(CUstream S) override { rt::synchronizeStream(S); }
  bool queryStream(CUstream S) override { return rt::queryStream(S); }
  void launchHostFunc(CUstream S, CUhostFn Fn, void *Data) override {
    rt::launchHostFunc(S, Fn, Data);
  }
  void streamWaitStream(CUstream Consumer, CUstream Producer) override {
    rt::streamWaitStream(Consumer, Producer);
  }

  CUipcMemHandle ipcHandle(uint64_t Ptr, uint64_t &Base) override {
    CUdeviceptr B = 0;
    CUipcMemHandle H = ipcMemHandle(Ptr, B);
    Base = B;
    return H;
  }
  uint64_t openIpc(const CUipcMemHandle &H) override {
    return openIpcMemory(H);
  }
  void closeIpc(uint64_t Ptr) override { closeIpcMemory(Ptr); }

  LaunchSite currentSite() override {
    Context &C = currentContext();
    return {C.device(), C.generation()};
  }
  std::shared_ptr<Module> loadKernel(const LoadableImage *Image,
                                     const std::string &Name,
                                     const LoadSettings &S,
                                     LoadedKernel &Out) override {
    if (!Image)
      throw std::invalid_argument(
          "kernel '" + Name +
          "' has no image (PTX or cubin) to load on a GPU: host code runs on "
          "the CPU executor");
    uint64_t Gen = currentContext().generation();
    LinkOptions LO;
    LO.LineInfo = S.lineInfo;
    std::shared_ptr<Module> M = loadModule(*Image, LO, S.asLibrary);
    CUfunction Fn = M->function(Name);
    if (S.carveout)
      setFunctionAttribute(
          Fn, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, *S.carveout);
    Out.gen = Gen;
    Out.fn = Fn;
    Out.setUp = false;
    return M;
  }

  bool launch(const KernelSlots &K, const LaunchArgs &A,
              LaunchSite &Site) override {
    Context &C = currentContext();
    const LoadedKernel *L = K.at(size_t(C.device()));
    if (!L || L->gen != C.generation() || !L->setUp) [[unlikely]] {
      Site.device = C.device();
      Site.generation = C.generation();
      return false;
    }
    if (A.cooperative)
      launchCooperativeKernel(L->fn, A.grid, A.block, A.shared, A.stream,
                              A.params);
    else
      launchKernel(L->fn, A.grid, A.block, A.shared, A.stream, A.params);
    return true;
  }
};

} // namespace

Executor &cudaExecutor() {
  static auto *E = new CudaExecutor(); // outlives static destructors
  return *E;
}

} // namespace pcj::rt
