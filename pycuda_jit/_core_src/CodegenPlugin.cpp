// Loading libpcj_codegen.so (see CodegenPlugin.h).
#include "CodegenPlugin.h"

#include "driver/Analysis.h"
#include "runtime/cpu/GridRunner.h"
#include "support/BuildId.h"
#include "support/HostCuda.h"

#include <atomic>
#include <dlfcn.h>
#include <mutex>
#include <stdexcept>
#include <string>

namespace pcj::py {

namespace {

std::atomic<const driver::CodegenApi *> Loaded{nullptr};

// The plugin sits next to this extension module.
std::string pluginPath() {
  Dl_info Info{};
  if (!dladdr(reinterpret_cast<void *>(&codegenPlugin), &Info) ||
      !Info.dli_fname)
    throw PluginLoadError(
        "pycuda_jit: cannot locate the _core extension on disk");
  std::string Self = Info.dli_fname;
  size_t Slash = Self.rfind('/');
  return (Slash == std::string::npos ? std::string(".")
                                     : Self.substr(0, Slash)) +
         "/libpcj_codegen.so";
}

const driver::CodegenApi *load() {
  std::string Path = pluginPath();
  // RTLD_LOCAL: the plugin's LLVM stays private to it (other LLVMs, such as
  // numba's or triton's, may share the process).
  void *H = dlopen(Path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!H) {
    const char *E = dlerror();
    throw PluginLoadError("pycuda_jit: cannot load the code generator " + Path +
                          ": " + (E ? E : "unknown error") +
                          " (rebuild the extension: cmake --build build)");
  }
  using Entry = const driver::CodegenApi *(*)();
  auto Fn = reinterpret_cast<Entry>(dlsym(H, "pcj_codegen_api"));
  const driver::CodegenApi *Api = Fn ? Fn() : nullptr;
  if (!Api || Api->version != driver::kCodegenApiVersion ||
      std::string(Api->buildStamp) != PCJ_BUILD_STAMP ||
      Api->resultSize != sizeof(driver::CompileResult) ||
      Api->optionsSize != sizeof(driver::CompileOptions) ||
      Api->analysisSize != sizeof(driver::Analysis))
    throw PluginLoadError("pycuda_jit: " + Path +
                          " is from another build of pycuda_jit "
                          "(rebuild the extension: cmake --build build)");
  // The CPU executor's runtime functions, for kernels JIT-compiled for the
  // host.
  for (const auto &S : rt::cpu::runtimeSymbols())
    Api->registerHostSymbol(S.name, S.address);
  // Foreign CUDA C compiled for the host reads the calling thread's context
  // through this one (support/HostCuda.h).
  Api->registerHostSymbol(
      "pcj_cpu_foreign_enter",
      reinterpret_cast<void *>(&hostcu::pcj_cpu_foreign_enter));
  return Api;
}

} // namespace

const driver::CodegenApi &codegenPlugin() {
  if (const driver::CodegenApi *Api = Loaded.load(std::memory_order_acquire))
    return *Api;
  static std::mutex Mu;
  std::lock_guard<std::mutex> L(Mu);
  if (!Loaded.load(std::memory_order_relaxed))
    Loaded.store(load(), std::memory_order_release);
  return *Loaded.load(std::memory_order_relaxed);
}

bool codegenPluginLoaded() {
  return Loaded.load(std::memory_order_acquire) != nullptr;
}

const std::string &codegenPluginBuildId() {
  static const std::string Id = [] {
    try {
      return buildIdOfFile(pluginPath());
    } catch (const PluginLoadError &) {
      return std::string();
    }
  }();
  return Id;
}

} // namespace pcj::py
