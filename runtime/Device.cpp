// Device: device enumeration, cached attributes, primary contexts.
// See Device.h.
#include "runtime/Device.h"

#include "runtime/ErrorRecord.h"
#include "runtime/Errors.h"
#include "runtime/Memory.h"

#include <algorithm>
#include <atomic>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <vector>

namespace pcj::rt {

namespace {

// The lazily built per-device tables. Deliberately leaked, like the driver:
// contexts must outlive every static destructor that might free GPU memory.
struct DeviceTable {
  std::mutex Lock;
  std::vector<std::unique_ptr<DeviceInfo>> Infos;
  std::vector<std::unique_ptr<Context>> Contexts;
};

DeviceTable &table() {
  static DeviceTable *T = [] {
    auto *New = new DeviceTable;
    int N = deviceCount();
    New->Infos.resize(N);
    New->Contexts.resize(N);
    return New;
  }();
  return *T;
}

void checkOrdinal(int Ordinal) {
  int N = deviceCount();
  if (Ordinal >= 0 && Ordinal < N)
    return;
  if (N == 0)
    api(); // throws the "no CUDA driver / no device" DriverError
  throw std::out_of_range("CUDA device " + std::to_string(Ordinal) +
                          " does not exist; this machine has " +
                          std::to_string(N) + " device(s)");
}

std::unique_ptr<DeviceInfo> queryDevice(int Ordinal) {
  const CudaApi &Cu = api();
  CUdevice Dev = 0;
  check(Cu.cuDeviceGet(&Dev, Ordinal), "cuDeviceGet");
  auto Info = std::make_unique<DeviceInfo>();
  Info->Ordinal = Ordinal;
  char Name[256] = {};
  check(Cu.cuDeviceGetName(Name, sizeof(Name) - 1, Dev), "cuDeviceGetName");
  Info->Name = Name;
  check(Cu.cuDeviceTotalMem(&Info->TotalMemory, Dev), "cuDeviceTotalMem");
#define PCJ_X(Field, Attr)                                                     \
  check(Cu.cuDeviceGetAttribute(&Info->Field, Attr, Dev),                      \
        "cuDeviceGetAttribute(" #Attr ")");
  PCJ_DEVICE_ATTRS(PCJ_X)
#undef PCJ_X
  return Info;
}

thread_local int TlsDevice = 0;
thread_local Context *TlsContext = nullptr; // current on this thread
thread_local uint64_t TlsEpoch = 0;         // Epoch when TlsContext was set

// Bumped by every resetDevice(), so that each thread's cached context is
// re-made current (with the new driver handle) on its next use.
std::atomic<uint64_t> Epoch{1};

// Generation of each device's context, readable without the table's lock.
constexpr int kMaxTrackedDevices = 64;
std::atomic<uint64_t> Generations[kMaxTrackedDevices];

bool cachedHere(const Context *C) {
  return TlsContext == C && TlsEpoch == Epoch.load(std::memory_order_acquire);
}

} // namespace

LaunchLimits DeviceInfo::launchLimits() const {
  LaunchLimits L;
  L.MaxThreadsPerBlock = static_cast<unsigned>(MaxThreadsPerBlock);
  L.MaxBlockDim[0] = static_cast<unsigned>(MaxBlockDimX);
  L.MaxBlockDim[1] = static_cast<unsigned>(MaxBlockDimY);
  L.MaxBlockDim[2] = static_cast<unsigned>(MaxBlockDimZ);
  L.MaxGridDim[0] = static_cast<unsigned>(MaxGridDimX);
  L.MaxGridDim[1] = static_cast<unsigned>(MaxGridDimY);
  L.MaxGridDim[2] = static_cast<unsigned>(MaxGridDimZ);
  L.MaxSharedBytesPerBlock = static_cast<size_t>(MaxSharedMemoryPerBlock);
  L.MaxSharedBytesPerBlockOptin =
      std::max(L.MaxSharedBytesPerBlock,
               static_cast<size_t>(MaxSharedMemoryPerBlockOptin));
  return L;
}

int deviceCount() {
  static const int Count = [] {
    const CudaDriver &Driver = CudaDriver::process();
    int N = 0;
    if (!Driver.available() ||
        Driver.fns().cuDeviceGetCount(&N) != CUDA_SUCCESS)
      return 0;
    return N;
  }();
  return Count;
}

const DeviceInfo &deviceInfo(int Ordinal) {
  checkOrdinal(Ordinal);
  DeviceTable &T = table();
  std::lock_guard<std::mutex> Guard(T.Lock);
  std::unique_ptr<DeviceInfo> &Slot = T.Infos[Ordinal];
  if (!Slot)
    Slot = queryDevice(Ordinal);
  return *Slot;
}

Context::Context(const DeviceInfo &Info, CUcontext Ctx)
    : Info(Info), Limits(Info.launchLimits()), Ctx(Ctx), Api(&rt::api()) {}

void Context::makeCurrent() {
  if (!Ctx) // reset since; retain a fresh primary context
    primaryContext(Info.Ordinal);
  check(Api->cuCtxSetCurrent(Ctx), "cuCtxSetCurrent");
  TlsDevice = Info.Ordinal;
  TlsContext = this;
  TlsEpoch = Epoch.load(std::memory_order_acquire);
}

void Context::synchronize() {
  if (!cachedHere(this))
    makeCurrent();
  check(Api->cuCtxSynchronize(), "cuCtxSynchronize");
  checkErrorRecord(Info.Ordinal);
}

CUevent Context::orderingEvent() {
  if (!OrderingEvent) {
    if (!cachedHere(this))
      makeCurrent();
    check(Api->cuEventCreate(&OrderingEvent, CU_EVENT_DISABLE_TIMING),
          "cuEventCreate");
  }
  return OrderingEvent;
}

Context &primaryContext(int Ordinal) {
  const DeviceInfo &Info = deviceInfo(Ordinal);
  DeviceTable &T = table();
  std::lock_guard<std::mutex> Guard(T.Lock);
  std::unique_ptr<Context> &Slot = T.Contexts[Ordinal];
  if (Slot && Slot->Ctx)
    return *Slot;
  const CudaApi &Cu = api();
  CUdevice Dev = 0;
  check(Cu.cuDeviceGet(&Dev, Ordinal), "cuDeviceGet");
  CUcontext Ctx = nullptr;
  check(Cu.cuDevicePrimaryCtxRetain(&Ctx, Dev), "cuDevicePrimaryCtxRetain");
  if (Slot) { // after resetDevice: same object, new driver context
    Slot->Ctx = Ctx;
    return *Slot;
  }
  Slot.reset(new Context(Info, Ctx));
  if (Ordinal < kMaxTrackedDevices)
    Generations[Ordinal].store(Slot->Generation, std::memory_order_release);
  return *Slot;
}

uint64_t contextGeneration(int Ordinal) {
  if (Ordinal < 0 || Ordinal >= kMaxTrackedDevices)
    return 0;
  return Generations[Ordinal].load(std::memory_order_acquire);
}

const std::atomic<uint64_t> *contextGenerationWord(int Ordinal) {
  if (Ordinal < 0 || Ordinal >= kMaxTrackedDevices)
    return nullptr;
  return &Generations[Ordinal];
}

void resetDevice(int Ordinal) {
  checkOrdinal(Ordinal);
  // Memory queued for release belonged to the context we are destroying;
  // the reset frees it all.
  dropDeferredFrees(Ordinal);
  DeviceTable &T = table();
  std::lock_guard<std::mutex> Guard(T.Lock);
  Context *C = T.Contexts[Ordinal].get();
  if (!C || !C->Ctx)
    return;
  const CudaApi &Cu = api();
  CUdevice Dev = 0;
  check(Cu.cuDeviceGet(&Dev, Ordinal), "cuDeviceGet");
  CUcontext Current = nullptr;
  if (Cu.cuCtxGetCurrent(&Current) == CUDA_SUCCESS && Current == C->Ctx)
    Cu.cuCtxSetCurrent(nullptr);
  Cu.cuDevicePrimaryCtxRelease(Dev); // fails harmlessly in a dead context
  CUresult R = Cu.cuDevicePrimaryCtxReset(Dev);
  C->Ctx = nullptr;
  C->OrderingEvent = nullptr;
  ++C->Generation;
  if (Ordinal < kMaxTrackedDevices)
    Generations[Ordinal].store(C->Generation, std::memory_order_release);
  Epoch.fetch_add(1, std::memory_order_acq_rel);
  if (TlsContext == C)
    TlsContext = nullptr;
  check(R, "cuDevicePrimaryCtxReset");
}

void resetAllDevices() {
  for (int I = 0, N = deviceCount(); I < N; ++I)
    if (contextGeneration(I) != 0)
      resetDevice(I);
}

int deviceAttribute(int Ordinal, CUdevice_attribute Attr) {
  checkOrdinal(Ordinal);
  const CudaApi &Cu = api();
  CUdevice Dev = 0;
  check(Cu.cuDeviceGet(&Dev, Ordinal), "cuDeviceGet");
  int V = 0;
  check(Cu.cuDeviceGetAttribute(&V, Attr, Dev), "cuDeviceGetAttribute");
  return V;
}

bool deviceAttributeByName(const std::string &Name, CUdevice_attribute &Out) {
#define PCJ_X(N, Value)                                                        \
  if (Name == #N) {                                                            \
    Out = CU_DEVICE_ATTRIBUTE_##N;                                             \
    return true;                                                               \
  }
  PCJ_CU_DEVICE_ATTRIBUTES(PCJ_X)
#undef PCJ_X
  return false;
}

int currentDevice() { return TlsDevice; }

void setCurrentDevice(int Ordinal) {
  checkOrdinal(Ordinal);
  if (Ordinal == TlsDevice)
    return;
  TlsDevice = Ordinal;
  TlsContext = nullptr;
}

Context &currentContext() {
  if (Context *C = TlsContext;
      C && TlsEpoch == Epoch.load(std::memory_order_acquire) &&
      !forkedAfterInit()) [[likely]]
    return *C;
  if (forkedAfterInit()) [[unlikely]]
    throwForkedAfterInit();
  Context &C = primaryContext(TlsDevice);
  C.makeCurrent();
  return C;
}

void synchronize() { currentContext().synchronize(); }

void profilerStart() {
  Context &C = currentContext();
  check(C.api().cuProfilerStart(), "cuProfilerStart");
}

void profilerStop() {
  Context &C = currentContext();
  check(C.api().cuProfilerStop(), "cuProfilerStop");
}

} // namespace pcj::rt
