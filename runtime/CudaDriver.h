// CudaDriver: libcuda.so.1, loaded with dlopen on first use.
//
// The CUDA driver is optional at run time: importing pycuda_jit, compiling,
// and the CPU backend all work without it. The process-wide driver
// (CudaDriver::process()) is loaded once, thread-safely, the first time
// anything asks for it: dlopen the library, resolve every entry point listed
// in cuda_api.def with dlsym, then cuInit(0). Any failure is recorded, not
// thrown: available() is false and loadError() says why. Code that needs
// the GPU calls api(), which throws DriverError (noDriver()) with that reason.
//
// A process forked after the driver initialized cannot use it (the CUDA
// driver does not survive fork): in the child, api() throws DriverError
// "CUDA initialized before forking" (numba-cuda's check), and so does
// currentContext() (runtime/Device.h), which otherwise hands out the
// parent's context cached in thread-local storage.
//
// The library is "libcuda.so.1" from the dynamic loader's search path, or the
// exact file named by PYCUDA_JIT_LIBCUDA when that is set.
//
//   const CudaApi &Cu = api();                    // throws if no driver
//   check(Cu.cuMemAlloc(&Ptr, Bytes), "cuMemAlloc");
#pragma once

#include "runtime/CudaTypes.h"

#include <string>
#include <utility>

namespace pcj::rt {

/// One function pointer per cuda_api.def row, named like the API call.
struct CudaApi {
#define PCJ_CU_FN(Name, Symbol, Params) CUresult(*Name) Params = nullptr;
#include "runtime/cuda_api.def"
};

class CudaDriver {
public:
  /// Loads the driver library at Path (a file name for the dynamic loader's
  /// search, or a path) and initializes it. Never throws for a missing or
  /// broken driver; see available() / loadError(). Tests use this directly;
  /// everything else uses process().
  explicit CudaDriver(const std::string &Path);
  ~CudaDriver();
  CudaDriver(const CudaDriver &) = delete;
  CudaDriver &operator=(const CudaDriver &) = delete;

  /// The process-wide driver, loaded on the first call (thread-safe).
  static const CudaDriver &process();

  /// The library name process() loads: $PYCUDA_JIT_LIBCUDA or libcuda.so.1.
  static std::string defaultLibraryPath();

  /// True when the library loaded, every entry point resolved and cuInit
  /// succeeded.
  bool available() const { return Available; }
  /// True when dlopen and every dlsym succeeded (cuInit may still have
  /// failed, e.g. with CUDA_ERROR_NO_DEVICE).
  bool libraryLoaded() const { return Loaded; }
  /// Why the driver is unavailable ("" when it is available).
  const std::string &loadError() const { return Error; }
  /// What cuInit returned; CUDA_ERROR_NOT_INITIALIZED when it was never
  /// reached.
  CUresult initResult() const { return InitResult; }
  /// cuDriverGetVersion (e.g. 13000), 0 when unknown.
  int version() const { return Version; }
  const std::string &path() const { return Path; }

  /// The entry points; all non-null when libraryLoaded().
  const CudaApi &fns() const { return Api; }

  /// The enumerator name and description of Code, from the driver when it
  /// can say, else from our table ("CUDA_ERROR_<code>" / "" if unknown).
  std::pair<std::string, std::string> describe(CUresult Code) const;

  /// Throws the DriverError (noDriver()) explaining why we cannot use it.
  [[noreturn]] void throwUnavailable() const;

private:
  void load();

  std::string Path;
  void *Handle = nullptr;
  CudaApi Api;
  bool Loaded = false;
  bool Available = false;
  CUresult InitResult = CUDA_ERROR_NOT_INITIALIZED;
  int Version = 0;
  std::string Error;
};

/// The process-wide driver's state, without throwing.
bool driverAvailable();
const std::string &driverLoadError();

/// The process-wide driver's entry points; throws DriverError (noDriver())
/// when there is no usable driver, and the fork error (below) in a child
/// forked after cuInit. Cheap after the first call.
const CudaApi &api();

/// True in a child process forked after the process driver initialized.
bool forkedAfterInit();
/// Throws the DriverError "CUDA initialized before forking".
[[noreturn]] void throwForkedAfterInit();

} // namespace pcj::rt
