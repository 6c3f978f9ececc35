// Device: the GPUs the driver sees, their limits, and primary contexts.
//
// deviceCount() is 0 without a driver, so callers can ask before deciding on
// a backend. deviceInfo(N) queries a device's name, compute capability and
// the attributes in PCJ_DEVICE_ATTRS once, and caches them. Each device's
// primary context (the one CuPy, PyTorch and the CUDA runtime share) is
// retained on first use and kept for the life of the process.
//
// currentContext() is what every GPU operation calls first: it returns the
// calling thread's device's context, making it current on this thread the
// first time (the hot path is one thread_local load and one compare). The
// cache assumes that nobody else switches this thread's current context to
// another device's; call Context::makeCurrent() after code that might.
//
// resetDevice() (cuda.close()) destroys a device's primary context: the
// Context object stays (everything keeps its reference) but gets a fresh
// driver context on its next use, and its generation() changes. (After a
// sticky error the driver refuses the fresh context too: see CudaTypes.h.)
// Whatever was made in the old context (memory, modules, streams, events)
// records the generation it was made in and is dropped, never freed through the
// driver, when the generation has changed: a stale handle could name something
// new.
//
//   Context &Ctx = currentContext();              // device 0 unless selected
//   Ctx.info().MultiprocessorCount;               // e.g. 132 on an H200
#pragma once

#include "runtime/CudaDriver.h"
#include "runtime/Launch.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

namespace pcj::rt {

// X(Field, CU_DEVICE_ATTRIBUTE_...): the integer attributes DeviceInfo holds.
#define PCJ_DEVICE_ATTRS(X)                                                    \
  X(ComputeCapabilityMajor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)      \
  X(ComputeCapabilityMinor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)      \
  X(MaxThreadsPerBlock, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)             \
  X(MaxBlockDimX, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X)                         \
  X(MaxBlockDimY, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y)                         \
  X(MaxBlockDimZ, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z)                         \
  X(MaxGridDimX, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X)                           \
  X(MaxGridDimY, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y)                           \
  X(MaxGridDimZ, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z)                           \
  X(MaxSharedMemoryPerBlock, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK)  \
  X(MaxSharedMemoryPerBlockOptin,                                              \
    CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)                     \
  X(MultiprocessorCount, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)             \
  X(WarpSize, CU_DEVICE_ATTRIBUTE_WARP_SIZE)                                   \
  X(MaxThreadsPerMultiprocessor,                                               \
    CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR)                        \
  X(L2CacheSize, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)                            \
  X(CooperativeLaunch, CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH)

struct DeviceInfo {
  int Ordinal = 0;
  std::string Name;
  size_t TotalMemory = 0;
#define PCJ_X(Field, Attr) int Field = 0;
  PCJ_DEVICE_ATTRS(PCJ_X)
#undef PCJ_X

  /// The launch limits these attributes imply (for validateLaunchConfig).
  LaunchLimits launchLimits() const;
};

/// Number of CUDA devices; 0 when there is no usable driver.
int deviceCount();

/// The cached description of device Ordinal. Throws DriverError without a
/// driver and std::out_of_range for a bad ordinal.
const DeviceInfo &deviceInfo(int Ordinal);

class Context {
public:
  int device() const { return Info.Ordinal; }
  CUcontext handle() const { return Ctx; }
  /// Changes every time the device is reset (starts at 1). Objects made in
  /// the context compare it with the generation they were made in.
  uint64_t generation() const { return Generation; }
  const DeviceInfo &info() const { return Info; }
  const LaunchLimits &limits() const { return Limits; }
  const CudaApi &api() const { return *Api; }

  /// Makes this context current on the calling thread (always calls the
  /// driver; resynchronizes the thread-local cache).
  void makeCurrent();
  /// Waits for all work in this context (cuCtxSynchronize).
  void synchronize();

  /// An event (timing disabled) for ordering one stream after another
  /// (streamWaitStream); created on first use, per generation.
  CUevent orderingEvent();

private:
  friend Context &primaryContext(int Ordinal);
  friend void resetDevice(int Ordinal);
  Context(const DeviceInfo &Info, CUcontext Ctx);

  const DeviceInfo &Info;
  LaunchLimits Limits;
  CUcontext Ctx;
  const CudaApi *Api;
  uint64_t Generation = 1;
  CUevent OrderingEvent = nullptr;
};

/// Device Ordinal's primary context, retained on first use (thread-safe).
/// Does not make it current.
Context &primaryContext(int Ordinal);

/// The calling thread's device (0 unless setCurrentDevice was called).
int currentDevice();
/// Selects the device later calls on this thread use. Checks the ordinal.
void setCurrentDevice(int Ordinal);

/// The context of the calling thread's device, current on this thread.
Context &currentContext();

/// currentContext().synchronize().
void synchronize();

/// cuProfilerStart / cuProfilerStop in the current context: what a profiler
/// started with collection off (nsys --capture-range=cudaProfilerApi) records.
void profilerStart();
void profilerStop();

/// The generation of device Ordinal's context (see Context::generation());
/// 0 when it has never been created. No driver call, no lock.
uint64_t contextGeneration(int Ordinal);
/// The word contextGeneration(Ordinal) reads, for checks that make no call
/// (ExecutorStream::alive); nullptr past the 64 tracked devices.
const std::atomic<uint64_t> *contextGenerationWord(int Ordinal);

/// Destroys device Ordinal's primary context (cuDevicePrimaryCtxRelease +
/// cuDevicePrimaryCtxReset) if we retained it; the next use creates a fresh
/// one. Pending deferred frees of the device are dropped first. Errors of the
/// dead context are ignored; a failing reset throws DriverError.
void resetDevice(int Ordinal);
/// resetDevice() for every device whose context was created.
void resetAllDevices();

/// cuDeviceGetAttribute, uncached (for attributes DeviceInfo does not hold).
int deviceAttribute(int Ordinal, CUdevice_attribute Attr);

/// CU_DEVICE_ATTRIBUTE_<Name> for a name of PCJ_CU_DEVICE_ATTRIBUTES
/// ("MAX_THREADS_PER_BLOCK"); false when the table has no such name.
bool deviceAttributeByName(const std::string &Name, CUdevice_attribute &Out);

} // namespace pcj::rt
