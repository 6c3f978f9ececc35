// Memory: allocation with an out-of-memory retry, copies, memset, pinned
// host memory. See Memory.h.
#include "runtime/Memory.h"

#include "runtime/Device.h"
#include "runtime/ErrorRecord.h"
#include "runtime/Errors.h"

#include <atomic>
#include <mutex>
#include <string>
#include <vector>

#include <cstddef>

#include <dlfcn.h>
#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

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
bool runFlushHook() {
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

// ---- the deferred-free queue
// --------------------------------------------------

struct Pending {
  int Device;
  uint64_t Generation;
  CUdeviceptr Ptr;
  size_t Bytes;
};

struct DeferredQueue {
  std::mutex Lock;
  std::vector<Pending> Items;
  size_t Bytes = 0;
  size_t MaxCount = 64;
  size_t MaxBytes = 0; // 0: a fifth of the device's memory
  int Deferring = 0;   // deferCleanup nesting
  std::atomic<uint64_t> Flushes{0}, Freed{0}, OomRetries{0};
};

DeferredQueue &queue() {
  static DeferredQueue *Q = new DeferredQueue; // outlives static destructors
  return *Q;
}

// Frees Items, each in its own device's context (restoring the current one).
void freeNow(std::vector<Pending> &Items) {
  if (Items.empty())
    return;
  const CudaApi &Cu = api();
  CUcontext Saved = nullptr;
  Cu.cuCtxGetCurrent(&Saved);
  CUcontext Set = Saved;
  uint64_t N = 0;
  for (const Pending &P : Items) {
    if (contextGeneration(P.Device) != P.Generation)
      continue; // its context was reset: the memory is gone already
    Context &C = primaryContext(P.Device);
    if (C.generation() != P.Generation || !C.handle())
      continue;
    if (Set != C.handle()) {
      Cu.cuCtxSetCurrent(C.handle());
      Set = C.handle();
    }
    Cu.cuMemFree(P.Ptr); // errors (a sticky context) leave nothing to retry
    ++N;
  }
  if (Set != Saved)
    Cu.cuCtxSetCurrent(Saved);
  DeferredQueue &Q = queue();
  Q.Freed += N;
  if (N)
    ++Q.Flushes;
}

// True when any queued allocation may be freed (after an out-of-memory).
bool flushAll() {
  std::vector<Pending> Items;
  {
    DeferredQueue &Q = queue();
    std::lock_guard<std::mutex> Guard(Q.Lock);
    Items.swap(Q.Items);
    Q.Bytes = 0;
  }
  freeNow(Items);
  return !Items.empty();
}

// Flushes + the registered hook, then says whether a retry may help.
bool releaseForRetry() {
  bool Any = flushAll();
  Any |= runFlushHook();
  if (Any)
    ++queue().OomRetries;
  return Any;
}

} // namespace

void deferDeviceFree(int Device, uint64_t Generation, CUdeviceptr Ptr,
                     size_t Bytes) {
  if (Ptr == 0 || forkedAfterInit()) // the parent's memory (deviceFree)
    return;
  DeferredQueue &Q = queue();
  std::vector<Pending> Items;
  {
    std::lock_guard<std::mutex> Guard(Q.Lock);
    Q.Items.push_back({Device, Generation, Ptr, Bytes});
    Q.Bytes += Bytes;
    size_t MaxBytes = Q.MaxBytes;
    if (!MaxBytes) {
      try {
        MaxBytes = deviceInfo(Device).TotalMemory / 5;
      } catch (...) {
        MaxBytes = size_t(1) << 30;
      }
    }
    if (Q.Deferring || (Q.Items.size() <= Q.MaxCount && Q.Bytes <= MaxBytes))
      return;
    Items.swap(Q.Items);
    Q.Bytes = 0;
  }
  freeNow(Items);
}

void flushDeferredFrees() { flushAll(); }

void dropDeferredFrees(int Device) {
  DeferredQueue &Q = queue();
  std::lock_guard<std::mutex> Guard(Q.Lock);
  std::vector<Pending> Keep;
  size_t Bytes = 0;
  for (const Pending &P : Q.Items)
    if (P.Device != Device) {
      Keep.push_back(P);
      Bytes += P.Bytes;
    }
  Q.Items.swap(Keep);
  Q.Bytes = Bytes;
}

DeferredFreeStats deferredFreeStats() {
  DeferredQueue &Q = queue();
  std::lock_guard<std::mutex> Guard(Q.Lock);
  DeferredFreeStats S;
  S.PendingCount = Q.Items.size();
  S.PendingBytes = Q.Bytes;
  S.Flushes = Q.Flushes;
  S.Freed = Q.Freed;
  S.OomRetries = Q.OomRetries;
  return S;
}

void setDeferredFreeLimits(size_t MaxCount, size_t MaxBytes) {
  DeferredQueue &Q = queue();
  std::lock_guard<std::mutex> Guard(Q.Lock);
  Q.MaxCount = MaxCount;
  Q.MaxBytes = MaxBytes;
}

void deferCleanup(bool Enter) {
  DeferredQueue &Q = queue();
  std::lock_guard<std::mutex> Guard(Q.Lock);
  Q.Deferring += Enter ? 1 : (Q.Deferring > 0 ? -1 : 0);
}

void setFlushDeferredFrees(FlushDeferredFreesFn Fn, void *UserData) {
  FlushHook &Hook = flushHook();
  std::lock_guard<std::mutex> Guard(Hook.Lock);
  Hook.Fn = Fn;
  Hook.UserData = UserData;
}

namespace {

// One allocation call with the out-of-memory second chance.
template <typename AllocFn>
CUdeviceptr allocWithRetry(size_t Bytes, const char *Call, AllocFn Alloc) {
  const CudaApi &Cu = currentContext().api();
  CUdeviceptr Ptr = 0;
  CUresult R = Alloc(Cu, &Ptr);
  if (R == CUDA_ERROR_OUT_OF_MEMORY && releaseForRetry())
    R = Alloc(Cu, &Ptr);
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
  throwDriverError(R, Call, std::move(Detail));
}

} // namespace

CUdeviceptr deviceAlloc(size_t Bytes) {
  if (Bytes == 0)
    return 0;
  return allocWithRetry(Bytes, "cuMemAlloc",
                        [&](const CudaApi &Cu, CUdeviceptr *P) {
                          return Cu.cuMemAlloc(P, Bytes);
                        });
}

CUdeviceptr managedAlloc(size_t Bytes, bool AttachGlobal) {
  if (Bytes == 0)
    return 0;
  unsigned Flags = AttachGlobal ? CU_MEM_ATTACH_GLOBAL : CU_MEM_ATTACH_HOST;
  return allocWithRetry(Bytes, "cuMemAllocManaged",
                        [&](const CudaApi &Cu, CUdeviceptr *P) {
                          return Cu.cuMemAllocManaged(P, Bytes, Flags);
                        });
}

void deviceFree(CUdeviceptr Ptr) {
  // In a child forked after cuInit the memory is the parent's: nothing to
  // free here (and the driver would refuse).
  if (Ptr == 0 || forkedAfterInit())
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
  Context &C = currentContext();
  check(C.api().cuMemcpyDtoH(Dst, Src, Bytes), "cuMemcpyDtoH");
  checkErrorRecord(C.device()); // the copy waited for the kernels before it
}

void copyDeviceToDevice(CUdeviceptr Dst, CUdeviceptr Src, size_t Bytes) {
  if (Bytes == 0)
    return;
  check(currentContext().api().cuMemcpyDtoD(Dst, Src, Bytes), "cuMemcpyDtoD");
}

CUipcMemHandle ipcMemHandle(CUdeviceptr Ptr, CUdeviceptr &Base) {
  const CudaApi &Cu = currentContext().api();
  size_t Size = 0;
  check(Cu.cuMemGetAddressRange(&Base, &Size, Ptr), "cuMemGetAddressRange");
  CUipcMemHandle H{};
  check(Cu.cuIpcGetMemHandle(&H, Base), "cuIpcGetMemHandle");
  return H;
}

CUdeviceptr openIpcMemory(const CUipcMemHandle &Handle) {
  CUdeviceptr P = 0;
  check(currentContext().api().cuIpcOpenMemHandle(&P, Handle,
                                                  kIpcMemLazyEnablePeerAccess),
        "cuIpcOpenMemHandle");
  return P;
}

void closeIpcMemory(CUdeviceptr Ptr) {
  check(currentContext().api().cuIpcCloseMemHandle(Ptr), "cuIpcCloseMemHandle");
}

void copyPeer(CUdeviceptr Dst, int DstDevice, CUdeviceptr Src, int SrcDevice,
              size_t Bytes, CUstream Stream, bool Async) {
  if (Bytes == 0)
    return;
  CUcontext To = primaryContext(DstDevice).handle();
  CUcontext From = primaryContext(SrcDevice).handle();
  const CudaApi &Cu = currentContext().api();
  if (Async)
    check(Cu.cuMemcpyPeerAsync(Dst, To, Src, From, Bytes, Stream),
          "cuMemcpyPeerAsync");
  else
    check(Cu.cuMemcpyPeer(Dst, To, Src, From, Bytes), "cuMemcpyPeer");
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

void copyDeviceToDeviceAsync(CUdeviceptr Dst, CUdeviceptr Src, size_t Bytes,
                             CUstream Stream) {
  if (Bytes == 0)
    return;
  check(currentContext().api().cuMemcpyDtoDAsync(Dst, Src, Bytes, Stream),
        "cuMemcpyDtoDAsync");
}

void memsetD8Async(CUdeviceptr Dst, unsigned char Value, size_t Bytes,
                   CUstream Stream) {
  if (Bytes == 0)
    return;
  check(currentContext().api().cuMemsetD8Async(Dst, Value, Bytes, Stream),
        "cuMemsetD8Async");
}

void copy2D(const CUDA_MEMCPY2D &Params, CUstream Stream, bool Async) {
  if (Params.WidthInBytes == 0 || Params.Height == 0)
    return;
  Context &C = currentContext();
  const CudaApi &Cu = C.api();
  if (Async) {
    check(Cu.cuMemcpy2DAsync(&Params, Stream), "cuMemcpy2DAsync");
    return;
  }
  check(Cu.cuMemcpy2D(&Params), "cuMemcpy2D");
  checkErrorRecord(C.device());
}

void *pinnedAlloc(size_t Bytes) {
  return pinnedAlloc(Bytes, kMemHostAllocPortable);
}

void *pinnedAlloc(size_t Bytes, unsigned Flags) {
  if (Bytes == 0)
    return nullptr;
  void *Ptr = nullptr;
  check(currentContext().api().cuMemHostAlloc(&Ptr, Bytes, Flags),
        "cuMemHostAlloc");
  return Ptr;
}

CUdeviceptr hostDevicePointer(void *Host) {
  CUdeviceptr P = 0;
  check(currentContext().api().cuMemHostGetDevicePointer(&P, Host, 0),
        "cuMemHostGetDevicePointer");
  return P;
}

namespace {
// True when the page holding Addr is mapped into the process.
bool pageMapped(uint64_t Addr) {
  long Page = sysconf(_SC_PAGESIZE);
  uint64_t Start = Addr & ~uint64_t(Page > 0 ? Page - 1 : 4095);
  unsigned char Resident = 0;
  return mincore(reinterpret_cast<void *>(Start), 1, &Resident) == 0;
}

// Whether someone loaded the CUDA driver into this process.  dlopen with
// RTLD_NOLOAD searches the library path when it is not loaded (~50 us: most
// of a CPU-executor launch's time per array argument); the answer changes
// only when objects are loaded or unloaded, which glibc counts.
bool driverLoaded() {
  unsigned long long Counts[2] = {0, 0};
  bool Counted =
      dl_iterate_phdr(
          [](dl_phdr_info *I, size_t Size, void *Data) {
            if (Size < offsetof(dl_phdr_info, dlpi_subs) + sizeof(I->dlpi_subs))
              return 0;
            auto *C = static_cast<unsigned long long *>(Data);
            C[0] = I->dlpi_adds;
            C[1] = I->dlpi_subs;
            return 1;
          },
          Counts) == 1;
  static std::mutex M;
  static unsigned long long Seen[2] = {~0ull, ~0ull};
  static bool Loaded = false;
  std::lock_guard<std::mutex> G(M);
  if (Counted && Counts[0] == Seen[0] && Counts[1] == Seen[1])
    return Loaded;
  void *L =
      dlopen(CudaDriver::defaultLibraryPath().c_str(), RTLD_LAZY | RTLD_NOLOAD);
  Loaded = L != nullptr;
  if (L)
    dlclose(L);
  if (Counted) {
    Seen[0] = Counts[0];
    Seen[1] = Counts[1];
  }
  return Loaded;
}

// True when the CUDA driver, loaded by someone into this process, says Ptr
// is device memory the host cannot dereference.
bool gpuOnlyMemory(uint64_t Ptr) {
  if (!driverLoaded())
    return false; // no driver in the process: no device memory either
  if (!driverAvailable())
    return false;
  const CudaApi &A = CudaDriver::process().fns();
  int Type = 0, Managed = 0;
  if (A.cuPointerGetAttribute(&Type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, Ptr) !=
      CUDA_SUCCESS)
    return false; // not memory the driver knows: ordinary host memory
  if (Type == CU_MEMORYTYPE_HOST)
    return false;
  if (A.cuPointerGetAttribute(&Managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, Ptr) ==
          CUDA_SUCCESS &&
      Managed)
    return false;
  return true;
}
} // namespace

std::string hostAccessProblem(uint64_t Ptr, uint64_t Bytes) {
  if (Bytes == 0)
    return "";
  if (Ptr == 0)
    return "its data pointer is null";
  if (Ptr + Bytes < Ptr)
    return "its extent wraps around the address space";
  if (gpuOnlyMemory(Ptr))
    return "it is GPU memory, which the CPU executor cannot read";
  if (!pageMapped(Ptr) || !pageMapped(Ptr + Bytes - 1))
    return "its data pointer does not point at mapped host memory";
  return "";
}

void hostRegister(void *Ptr, size_t Bytes, unsigned Flags) {
  if (!Ptr || Bytes == 0)
    return;
  check(currentContext().api().cuMemHostRegister(Ptr, Bytes, Flags),
        "cuMemHostRegister");
}

void hostUnregister(void *Ptr) {
  if (!Ptr)
    return;
  check(currentContext().api().cuMemHostUnregister(Ptr), "cuMemHostUnregister");
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
