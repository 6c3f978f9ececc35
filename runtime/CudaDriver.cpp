// CudaDriver: dlopen libcuda.so.1, resolve the cuda_api.def table, cuInit;
// a child forked after cuInit gets a DriverError from api(). See CudaDriver.h.
#include "runtime/CudaDriver.h"
#include "support/Env.h"

#include "runtime/Errors.h"

#include <atomic>
#include <cstdlib>
#include <dlfcn.h>
#include <pthread.h>

namespace pcj::rt {

namespace {

constexpr const char *kNoDriverHint =
    "install the NVIDIA driver or use PYCUDA_JIT_BACKEND=cpu";

// Set in a child forked after the process driver initialized: the
// driver's state (contexts, memory, modules) belongs to the parent, and the
// CUDA driver does not work in such a child.
std::atomic<bool> ForkedAfterInit{false};

void markForkedChild() {
  ForkedAfterInit.store(true, std::memory_order_relaxed);
}

std::string lastDlError() {
  const char *E = dlerror();
  return E ? E : "unknown dynamic loader error";
}

} // namespace

std::string CudaDriver::defaultLibraryPath() {
  const char *Env = env::raw(env::Var::LibCuda);
  if (Env && *Env)
    return Env;
  return "libcuda.so.1";
}

CudaDriver::CudaDriver(const std::string &Path) : Path(Path) { load(); }

CudaDriver::~CudaDriver() {
  if (Handle)
    dlclose(Handle);
}

const CudaDriver &CudaDriver::process() {
  // Deliberately leaked: kernels, modules and arrays may be released by other
  // static destructors at exit, after which libcuda must still be mapped.
  static const CudaDriver *Driver = [] {
    auto *D = new CudaDriver(defaultLibraryPath());
    if (D->available())
      ::pthread_atfork(nullptr, nullptr, &markForkedChild);
    return D;
  }();
  return *Driver;
}

bool forkedAfterInit() {
  return ForkedAfterInit.load(std::memory_order_relaxed);
}

void throwForkedAfterInit() {
  throw DriverError(
      CUDA_ERROR_NOT_INITIALIZED, "CUDA", "CUDA_ERROR_NOT_INITIALIZED",
      "CUDA initialized before forking: this process is a child forked "
      "after the parent initialized the CUDA driver, whose state does not "
      "carry over; start child processes with multiprocessing's 'spawn' or "
      "'forkserver' method, or fork before the first CUDA call");
}

void CudaDriver::load() {
  Handle = dlopen(Path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!Handle) {
    Error = "no CUDA driver found: " + lastDlError() + "; " + kNoDriverHint;
    return;
  }

  // cuDriverGetVersion works before cuInit; it makes "too old" messages
  // concrete.
  if (auto *GetVersion = reinterpret_cast<CUresult (*)(int *)>(
          dlsym(Handle, "cuDriverGetVersion")))
    if (GetVersion(&Version) != CUDA_SUCCESS)
      Version = 0;

  std::string Missing;
#define PCJ_CU_FN(Name, Symbol, Params)                                        \
  Api.Name = reinterpret_cast<decltype(Api.Name)>(dlsym(Handle, Symbol));      \
  if (!Api.Name)                                                               \
    Missing += Missing.empty() ? Symbol : ", " Symbol;
#include "runtime/cuda_api.def"
  if (!Missing.empty()) {
    Error = "the CUDA driver " + Path + " (driver API version " +
            std::to_string(Version) + ") lacks the entry points " + Missing +
            "; pycuda_jit needs an NVIDIA driver for CUDA " +
            std::to_string(kCudaApiVersion / 1000) +
            ".0 or newer (R580+), or use PYCUDA_JIT_BACKEND=cpu";
    Api = CudaApi{};
    return;
  }
  Loaded = true;

  InitResult = Api.cuInit(0);
  if (InitResult != CUDA_SUCCESS) {
    auto [Name, Text] = describe(InitResult);
    Error = "the CUDA driver " + Path +
            " failed to initialize: cuInit returned " + Name + " (" +
            std::to_string(InitResult) + ")" +
            (Text.empty() ? "" : ": " + Text) +
            "; check that a GPU is visible (nvidia-smi), or use "
            "PYCUDA_JIT_BACKEND=cpu";
    return;
  }
  if (Api.cuDriverGetVersion(&Version) != CUDA_SUCCESS)
    Version = 0;
  Available = true;
}

std::pair<std::string, std::string> CudaDriver::describe(CUresult Code) const {
  std::string Name, Text;
  const char *S = nullptr;
  if (Loaded && Api.cuGetErrorName(Code, &S) == CUDA_SUCCESS && S)
    Name = S;
  S = nullptr;
  if (Loaded && Api.cuGetErrorString(Code, &S) == CUDA_SUCCESS && S)
    Text = S;
  if (Name.empty()) {
    const char *Known = cuResultName(Code);
    Name = Known ? Known : "CUDA_ERROR_" + std::to_string(Code);
  }
  return {Name, Text};
}

void CudaDriver::throwUnavailable() const {
  const char *Stage = Loaded ? "cuInit" : Handle ? "dlsym" : "dlopen";
  throw DriverError::noDriver(Loaded ? InitResult : CUDA_ERROR_NOT_INITIALIZED,
                              Stage, Error);
}

bool driverAvailable() { return CudaDriver::process().available(); }

const std::string &driverLoadError() {
  return CudaDriver::process().loadError();
}

const CudaApi &api() {
  const CudaDriver &Driver = CudaDriver::process();
  if (!Driver.available()) [[unlikely]]
    Driver.throwUnavailable();
  if (forkedAfterInit()) [[unlikely]]
    throwForkedAfterInit();
  return Driver.fns();
}

} // namespace pcj::rt
