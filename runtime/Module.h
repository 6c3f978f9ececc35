// Module: a loaded CUDA module (cubin or PTX) and its kernels, RAII.
//
// A Module belongs to the context that was current when it was loaded and
// is unloaded when the last shared_ptr to it goes away (with its library,
// when it was loaded as one). PTX goes through
// cuModuleLoadDataEx with the JIT's info and error logs captured, so that a
// PTX that the driver rejects raises a DriverError whose detail() is the
// JIT's error log.
//
//   auto M = Module::loadPtx(Ptx);
//   CUfunction F = M->function("saxpy");
#pragma once

#include "runtime/CudaTypes.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace pcj::rt {

class Context;

class Module {
public:
  /// Loads a cubin (ELF) or fatbin image with cuModuleLoadData; AsLibrary:
  /// with cuLibraryLoadData instead, the module being the library's in the
  /// current context (cuLibraryGetModule), so that library() has a handle
  /// for cuLibraryGetGlobal & co.
  static std::shared_ptr<Module> loadCubin(const void *Image, size_t Size,
                                           bool AsLibrary = false);
  static std::shared_ptr<Module> loadCubin(const std::string &Image,
                                           bool AsLibrary = false) {
    return loadCubin(Image.data(), Image.size(), AsLibrary);
  }
  /// JIT-compiles PTX for the current device (cuModuleLoadDataEx). LineInfo
  /// asks the JIT for line tables (profilers, compute-sanitizer); Debug for
  /// the PTX's DWARF, unoptimized (cuda-gdb).
  static std::shared_ptr<Module>
  loadPtx(const std::string &Ptx, bool LineInfo = false, bool Debug = false);

  ~Module();
  Module(const Module &) = delete;
  Module &operator=(const Module &) = delete;

  /// The kernel named Name (its mangled/PTX entry name). Throws DriverError
  /// (CUDA_ERROR_NOT_FOUND) naming the kernel when there is none.
  CUfunction function(const std::string &Name) const;

  struct Global {
    CUdeviceptr Ptr = 0;
    size_t Bytes = 0;
  };
  /// A module-scope __device__/__constant__ variable. Throws like function().
  Global global(const std::string &Name) const;

  CUmodule handle() const { return Handle; }
  /// The library the module belongs to (loadCubin AsLibrary), else null.
  CUlibrary library() const { return Library; }
  /// The device whose context holds the module.
  int device() const;
  /// False once that context has been reset (cuda.close()): the module and
  /// its functions are gone and must be loaded again.
  bool alive() const;
  /// The PTX JIT's info log (empty for cubins).
  const std::string &jitInfoLog() const { return JitInfoLog; }

private:
  Module(Context &Ctx, CUmodule Handle, std::string JitInfoLog,
         CUlibrary Library = nullptr);

  Context &Ctx;
  uint64_t Generation; // of Ctx when loaded; unloaded only if unchanged
  CUmodule Handle;
  std::string JitInfoLog;
  CUlibrary Library; // owns Handle when set
};

} // namespace pcj::rt
