// Executor: what runs kernels and holds their memory, behind one interface
// -- the GPUs through the CUDA driver (CudaExecutor.cpp) or the CPU executor
// (runtime/cpu/CpuExecutor.cpp: "device memory" is host memory, pinned,
// mapped and managed memory are ordinary host memory, copies are memcpy).
// One is chosen per process from PYCUDA_JIT_BACKEND (cuda | cpu | auto;
// auto: the GPU when a CUDA device is present, else the CPU; none with
// PYCUDA_JIT_DISABLE_CUDA=1 or numba's NUMBA_DISABLE_CUDA=1); the glue calls
// it instead of branching on the backend.  No CPython here.
//
//   rt::Executor &E = rt::executor();       // chosen once
//   rt::DeviceBlock B = E.allocDevice(64);  // on E.currentDevice()
//   E.copyToDevice(B.ptr, Host, 64);
//   E.releaseDevice(B, 64);
#pragma once

#include "runtime/CudaTypes.h"
#include "runtime/Launch.h"
#include "runtime/StridedCopy.h"
#include "support/Backend.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace pcj::rt {

namespace cpu {
struct KernelInfo; // runtime/cpu/GridRunner.h
}
struct DeviceInfo;    // runtime/Device.h
struct LoadableImage; // runtime/LoadImage.h
class Module;         // runtime/Module.h

// PYCUDA_JIT_BACKEND=cuda without a usable GPU, or a bad value.
class BackendUnavailable : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// A device ordinal that does not exist (the message names the count).
class NoSuchDevice : public std::out_of_range {
public:
  using std::out_of_range::out_of_range;
};

// A bad environment value the executor reads (PYCUDA_JIT_CPU_DEVICES).
class ExecutorSettingError : public std::invalid_argument {
public:
  using std::invalid_argument::invalid_argument;
};

// The CPU executor's allocation failure (the message names the size).
struct HostOutOfMemory : std::bad_alloc {
  std::string message;
  explicit HostOutOfMemory(size_t Bytes)
      : message("out of memory: requested " + std::to_string(Bytes) +
                " bytes of host memory (CPU executor)") {}
  const char *what() const noexcept override { return message.c_str(); }
};

// An allocation and the context it belongs to (device: the GPU, or the CPU
// executor's virtual device; gen: the context's generation).
struct DeviceBlock {
  uint64_t ptr = 0;
  int device = 0;
  uint64_t gen = 0;
};

enum class HostKind : uint8_t { Pinned, Mapped, Managed };

// Host memory a kernel may use: Pinned (page-locked), Mapped (page-locked
// and mapped into the device's address space: devPtr), Managed (unified).
struct HostBlock {
  uint64_t ptr = 0;    // host address
  uint64_t devPtr = 0; // device address (Mapped, Managed), else 0
  HostKind kind = HostKind::Pinned;
  int device = 0;
  uint64_t gen = 0;
  size_t bytes = 0;
};

// ---- streams and events.  On CUDA they are the driver's.  The CPU
// executor runs every operation (a launch, a copy, a host callback) on the
// calling thread, in the order it is issued, and returns once it is
// complete: its streams are ids with no queue (every stream handle is its one
// queue), synchronizing or querying a stream returns at once (complete), a
// wait orders nothing that is not already ordered, a host callback runs
// before launchHostFunc returns, and events record a host timestamp (the
// steady clock) for elapsedMs.

// A stream the executor created (createStream); deleting it destroys it
// (nothing when its context was reset since).  Not copyable.
class ExecutorStream {
public:
  virtual ~ExecutorStream() = default;
  ExecutorStream(const ExecutorStream &) = delete;
  ExecutorStream &operator=(const ExecutorStream &) = delete;
  // What the stream operations take (the CPU executor: nullptr).
  CUstream handle() const { return Handle; }
  // The handle as an int (the CPU executor: an id unique in the process).
  uint64_t value() const { return Value; }
  int device() const { return Device; }
  uint64_t generation() const { return Generation; }
  // False once its context was reset (cuda.close()).  No virtual call: the
  // launch path asks it.
  bool alive() const {
    return Live && Live->load(std::memory_order_acquire) == Generation;
  }

protected:
  ExecutorStream(CUstream H, uint64_t V, int D, uint64_t G,
                 const std::atomic<uint64_t> *L)
      : Handle(H), Value(V), Device(D), Generation(G), Live(L) {}

private:
  CUstream Handle;
  uint64_t Value;
  int Device;
  uint64_t Generation;
  const std::atomic<uint64_t> *Live; // the context's current generation
};

// An event the executor created (createEvent); deleting it destroys it.
class ExecutorEvent {
public:
  virtual ~ExecutorEvent() = default;
  ExecutorEvent(const ExecutorEvent &) = delete;
  ExecutorEvent &operator=(const ExecutorEvent &) = delete;
  // The CUevent as an int (the CPU executor: the object's address).
  virtual uint64_t handle() const = 0;
  bool timing() const { return Timing; }
  // Records the event on Stream (nullptr: the legacy default stream).
  virtual void record(CUstream Stream) = 0;
  // Waits until the work before the last record() has completed.
  virtual void synchronize() = 0;
  // True when that work has completed.
  virtual bool query() = 0;
  // Makes later work on Stream wait for this event.
  virtual void waitOn(CUstream Stream) = 0;
  // False once its context was reset (cuda.close()).
  virtual bool alive() const = 0;

protected:
  explicit ExecutorEvent(bool T) : Timing(T) {}

private:
  bool Timing;
};

// ---- launches.

// A kernel loaded for one device.  gen: the context generation it was
// loaded in (0: not loaded); fn: the CUDA function (the CPU executor runs
// KernelSlots::host instead); setUp: its owner's setup for this load ran
// (the glue's link= callbacks): launch() runs only loaded, set-up slots.
struct LoadedKernel {
  uint64_t gen = 0;
  CUfunction fn = nullptr;
  bool setUp = false;
};

// A kernel's slots, one per device ordinal: the slot of device d is at
// first + d * stride bytes (so that the owner's per-device record may
// extend LoadedKernel), count of them.
struct KernelSlots {
  const char *first = nullptr;
  size_t count = 0;
  size_t stride = sizeof(LoadedKernel);
  const cpu::KernelInfo *host = nullptr; // the CPU executor's entry (every
                                         // device runs it)

  // The slots of a vector of T (LoadedKernel or a struct derived from it).
  template <typename Vec>
  static KernelSlots of(const Vec &V, const cpu::KernelInfo *Host = nullptr) {
    using T = typename Vec::value_type;
    static_assert(std::is_base_of_v<LoadedKernel, T>);
    KernelSlots K;
    K.first = reinterpret_cast<const char *>(
        static_cast<const LoadedKernel *>(V.data()));
    K.count = V.size();
    K.stride = sizeof(T);
    K.host = Host;
    return K;
  }
  const LoadedKernel *at(size_t Device) const {
    return Device < count
               ? reinterpret_cast<const LoadedKernel *>(first + Device * stride)
               : nullptr;
  }
};

// One launch: the configuration (validated by the caller: see
// validateLaunchConfig), the stream, one pointer per kernel parameter, and
// for the CPU executor how the launch may be stopped (GridRunner.h's
// LaunchControl: Ctrl-C, a time limit in seconds, <= 0: none).
struct LaunchArgs {
  Dim3 grid, block;
  unsigned shared = 0; // dynamic shared memory, bytes
  CUstream stream = nullptr;
  void **params = nullptr;
  bool cooperative = false; // grid-wide sync (cuLaunchCooperativeKernel)
  bool interruptible = false;
  double timeoutSeconds = 0;
  // A launch that runs the grid here (launchRunsGrid) calls beforeRun once
  // it has read K's slot, and afterRun with its result when the grid has
  // run or thrown (the glue: release the GIL, take it back).  Both or
  // neither; plain functions, so that a launch allocates nothing.
  void *(*beforeRun)() = nullptr;
  void (*afterRun)(void *) = nullptr;
};

// Where a launch found no loaded, set-up kernel: the calling thread's
// device and its context's generation.
struct LaunchSite {
  int device = 0;
  uint64_t generation = 0;
};

// How loadKernel loads an image (CUDA; the CPU executor has nothing to
// load): lineInfo: the driver's JIT keeps the PTX's line table;
// asLibrary: as a CUlibrary (cuLibraryLoadData; Module::library()), as
// kernels with link= code are, whose module-load callbacks get the
// library; carveout: the kernel's preferred shared-memory carveout
// (CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, percent or -1).
struct LoadSettings {
  bool lineInfo = false;
  bool asLibrary = false;
  std::optional<int> carveout;
};

class Executor {
public:
  // True when a launch runs the whole grid on the calling thread before it
  // returns (the CPU executor), false when it only queues it (CUDA).  Data,
  // not a virtual call: the launch path reads it.
  const bool launchRunsGrid;
  // True when device memory is ordinary host memory, one address space for
  // the host and every device (the CPU executor): kernels use host arrays
  // in place (no staging copy) and can use nothing but host memory, and a
  // copy between two devices' arrays is a plain copy.  Data, as above.
  const bool deviceMemoryIsHost;

  Executor(bool LaunchRunsGrid, bool DeviceMemoryIsHost)
      : launchRunsGrid(LaunchRunsGrid), deviceMemoryIsHost(DeviceMemoryIsHost) {
  }
  virtual ~Executor() = default;
  virtual Backend backend() const = 0;
  // The launch limits that validateLaunchConfig checks (the current
  // device's; the CPU executor: those of current NVIDIA GPUs).
  virtual LaunchLimits launchLimits() = 0;

  // ---- devices: the GPUs, or the CPU executor's PYCUDA_JIT_CPU_DEVICES
  // virtual devices (default 1, at most 64; ExecutorSettingError otherwise).
  virtual int deviceCount() = 0;
  // The calling thread's device (0 until selected).
  virtual int currentDevice() = 0;
  // NoSuchDevice for an ordinal that does not exist.
  virtual void selectDevice(long Ordinal) = 0;
  // The generation of Device's context: changes when the context is reset
  // (cuda.close()), which makes the memory of older generations gone.
  virtual uint64_t contextGeneration(int Device) = 0;
  // cuda.close(): destroys every context (the CPU executor: a new
  // generation), so that older memory, modules and streams are refused.
  virtual void closeContexts() = 0;
  // cuda.select_device(n).reset(): destroys Device's context (no-op on the
  // CPU executor).
  virtual void resetDevice(int Device) = 0;
  // (free, total) bytes of the current device's memory (the host's on the
  // CPU executor).
  struct MemoryInfo {
    uint64_t free = 0, total = 0;
  };
  virtual MemoryInfo memoryInfo() = 0;
  // The heap of arrays made in kernels (np.empty...): the current device's
  // CU_LIMIT_MALLOC_HEAP_SIZE (set it before the context's first kernel
  // that allocates: CUDA refuses it later); the CPU executor's limit
  // (runtime/cpu/Heap.cpp).
  virtual size_t mallocHeapSize() = 0;
  virtual void setMallocHeapSize(size_t Bytes) = 0;
  // The description of device Ordinal: its name, memory and the
  // PCJ_DEVICE_ATTRS values (Device.h).  The CPU executor's virtual devices
  // are one pseudo device: "pycuda_jit CPU executor", compute capability
  // 9.0, the host's memory, the limits it enforces (kCpuLaunchLimits) and
  // its threads as multiprocessors.  A bad ordinal: NoSuchDevice (the CPU
  // executor), std::out_of_range (CUDA).
  virtual DeviceInfo deviceInfo(int Ordinal) = 0;
  // The CU_DEVICE_ATTRIBUTE_<Name> value of device Ordinal ("WARP_SIZE");
  // false for a name that is no device attribute.  The CPU executor: 0 for
  // a GPU property its pseudo device does not have.
  virtual bool deviceAttribute(int Ordinal, const std::string &Name,
                               long &Out) = 0;
  // cuProfilerStart / Stop (no-ops on the CPU executor: no CUDA profiler).
  virtual void profilerStart() = 0;
  virtual void profilerStop() = 0;

  // ---- device memory.  At least one byte is allocated, so that every
  // array has a distinct address.
  virtual DeviceBlock allocDevice(size_t Bytes, bool Managed = false,
                                  bool AttachGlobal = true) = 0;
  // Releases a block of allocDevice (deferred on CUDA, runtime/Memory.h; a
  // block of a context reset since is dropped).
  virtual void releaseDevice(const DeviceBlock &B, size_t Bytes) = 0;
  // Immediate allocation and free (the staging buffers of one launch).
  virtual uint64_t alloc(size_t Bytes) = 0;
  virtual void free(uint64_t Ptr) = 0;
  virtual void copyToDevice(uint64_t Dst, const void *Src, size_t Bytes) = 0;
  virtual void copyToHost(void *Dst, uint64_t Src, size_t Bytes) = 0;
  virtual void copyDeviceToDevice(uint64_t Dst, uint64_t Src, size_t Bytes) = 0;
  virtual void memset(uint64_t Dst, unsigned char Value, size_t Bytes) = 0;
  // Context synchronize, then flush the deferred frees.
  virtual void synchronize() = 0;
  // Releases the deferred frees whose work has completed (the CPU
  // executor frees at once: nothing).
  virtual void flushDeferredFrees() = 0;
  // Strided copy between regions (see rt::copyStrided; on the CPU every
  // region is host memory and the copy is synchronous).
  virtual void copyStrided(const StridedRegion &Dst, const StridedRegion &Src,
                           size_t Item, CUstream Stream, bool Async) = 0;

  // ---- host memory
  virtual HostBlock allocHost(size_t Bytes, HostKind Kind,
                              bool Portable = false, bool WriteCombined = false,
                              bool AttachGlobal = true) = 0;
  virtual void releaseHost(const HostBlock &B) = 0;
  // cuMemHostRegister / cuMemHostUnregister (no-ops on the CPU).
  virtual void pinHost(void *Ptr, size_t Bytes) = 0;
  virtual void unpinHost(void *Ptr) = 0;

  // ---- streams and events (see ExecutorStream above)
  // A stream in the current device's context (NonBlocking: does not
  // synchronize with the legacy default stream).
  virtual std::unique_ptr<ExecutorStream> createStream(bool NonBlocking) = 0;
  // Timing: the event records a timestamp (needed by elapsedMs).
  virtual std::unique_ptr<ExecutorEvent> createEvent(bool Timing) = 0;
  // Milliseconds between two completed, timing-enabled events (both of this
  // executor).  DriverError (CUDA_ERROR_INVALID_HANDLE) when one has no
  // timestamp (timing=False, or never recorded).
  virtual float elapsedMs(const ExecutorEvent &Start,
                          const ExecutorEvent &End) = 0;
  // What a stream handle given as an int (a default stream 0, 1, 2, another
  // library's stream) is to the stream operations: itself on CUDA, nullptr
  // (the one queue) on the CPU executor.
  virtual CUstream streamOfHandle(uint64_t Handle) = 0;
  // cuStreamSynchronize / cuStreamQuery on any stream handle.
  virtual void synchronizeStream(CUstream Stream) = 0;
  virtual bool queryStream(CUstream Stream) = 0;
  // Fn(Data) once the work queued on Stream before it has completed (CUDA:
  // on a driver thread, and Fn may not call CUDA; the CPU executor: now, on
  // the calling thread).
  virtual void launchHostFunc(CUstream Stream, CUhostFn Fn, void *Data) = 0;
  // Orders Consumer after the work queued so far on Producer, without
  // blocking the host (rt::streamWaitStream).
  virtual void streamWaitStream(CUstream Consumer, CUstream Producer) = 0;

  // ---- CUDA IPC.  The handle of the allocation that holds Ptr (Base:
  // where that allocation starts); another process's allocation mapped
  // into the current context (a process cannot open its own handles);
  // unmapping it.  The CPU executor: BackendUnavailable, naming what to do
  // instead.
  virtual CUipcMemHandle ipcHandle(uint64_t Ptr, uint64_t &Base) = 0;
  virtual uint64_t openIpc(const CUipcMemHandle &Handle) = 0;
  virtual void closeIpc(uint64_t Ptr) = 0;

  // ---- loading kernels.  The calling thread's device and its context's
  // current generation (CUDA: the device's context made current, created
  // on first use): where loadKernel loads, and the generation a slot must
  // have for launch to run it.
  virtual LaunchSite currentSite() = 0;
  // Loads the kernel Name for the calling thread's device in its current
  // context: fills Out (gen: that generation; fn; setUp: false) and
  // returns what keeps the code loaded.  CUDA: Image (required) is loaded
  // as S says (a cubin with cuModuleLoadData or, asLibrary,
  // cuLibraryLoadData; PTX through the driver's JIT), fn is Name's
  // function; DriverError.  The CPU executor: no Image (its code is
  // KernelSlots::host, one entry for every device), so nothing is loaded:
  // Out records the generation, fn is null, the result is null.  The other
  // kind of code: std::invalid_argument.  Which image (the device's
  // architecture) is the caller's choice.
  virtual std::shared_ptr<Module> loadKernel(const LoadableImage *Image,
                                             const std::string &Name,
                                             const LoadSettings &S,
                                             LoadedKernel &Out) = 0;

  // ---- launches.  Runs the kernel of K's slot for the calling thread's
  // device when that slot is loaded in the device's current context
  // generation and set up, and returns true; otherwise fills Site and
  // returns false (the caller loads the kernel for Site, sets it up, and
  // calls again).  One virtual call per launch; no allocation.  CUDA: the
  // launch is queued on A.stream (LaunchConfigError, DriverError); the CPU
  // executor: runs the grid (launchRunsGrid) and throws GridRunner.h's
  // KernelFault or std::invalid_argument.
  virtual bool launch(const KernelSlots &K, const LaunchArgs &A,
                      LaunchSite &Site) = 0;
};

// The process's executor, chosen on first call; throws BackendUnavailable
// (every later call too).
Executor &executor();
// The executor if executor() has chosen one already (never chooses).
Executor *executorIfChosen();
// Why auto chose the CPU ("" if it did not).
const std::string &executorFallbackReason();

// The two executors (selected by executor(); tests use them directly).
Executor &cudaExecutor();
Executor &cpuExecutor();

} // namespace pcj::rt
