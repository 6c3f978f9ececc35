// Device: device enumeration, cached attributes, primary contexts.
// See Device.h.
#include "runtime/Device.h"

#include "runtime/Errors.h"

#include <algorithm>
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
  check(Api->cuCtxSetCurrent(Ctx), "cuCtxSetCurrent");
  TlsDevice = Info.Ordinal;
  TlsContext = this;
}

void Context::synchronize() {
  if (TlsContext != this)
    makeCurrent();
  check(Api->cuCtxSynchronize(), "cuCtxSynchronize");
}

Context &primaryContext(int Ordinal) {
  const DeviceInfo &Info = deviceInfo(Ordinal);
  DeviceTable &T = table();
  std::lock_guard<std::mutex> Guard(T.Lock);
  std::unique_ptr<Context> &Slot = T.Contexts[Ordinal];
  if (Slot)
    return *Slot;
  const CudaApi &Cu = api();
  CUdevice Dev = 0;
  check(Cu.cuDeviceGet(&Dev, Ordinal), "cuDeviceGet");
  CUcontext Ctx = nullptr;
  check(Cu.cuDevicePrimaryCtxRetain(&Ctx, Dev), "cuDevicePrimaryCtxRetain");
  Slot.reset(new Context(Info, Ctx));
  return *Slot;
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
  if (Context *C = TlsContext) [[likely]]
    return *C;
  Context &C = primaryContext(TlsDevice);
  C.makeCurrent();
  return C;
}

void synchronize() { currentContext().synchronize(); }

} // namespace pcj::rt
