// Module: cuModuleLoadData / cuModuleLoadDataEx with JIT logs, lookup,
// unload. See Module.h.
#include "runtime/Module.h"

#include "runtime/Device.h"
#include "runtime/Errors.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace pcj::rt {

namespace {

constexpr size_t kJitLogBytes = 16 * 1024;

std::string trimLog(const std::vector<char> &Buf, uintptr_t Written) {
  size_t N = std::min<size_t>(Written, Buf.size());
  std::string S(Buf.data(), N);
  // The driver reports the size including the terminator; trust the NUL.
  S.resize(std::char_traits<char>::length(S.c_str()));
  while (!S.empty() && (S.back() == '\n' || S.back() == ' '))
    S.pop_back();
  return S;
}

} // namespace

Module::Module(Context &Ctx, CUmodule Handle, std::string JitInfoLog,
               CUlibrary Library)
    : Ctx(Ctx), Generation(Ctx.generation()), Handle(Handle),
      JitInfoLog(std::move(JitInfoLog)), Library(Library) {}

Module::~Module() {
  // Never throws; at process exit the driver may already be deinitialized
  // (CUDA_ERROR_DEINITIALIZED), which is fine to ignore. A module of a
  // context that was reset is gone with it; a library is not (it belongs to
  // no context), so it is unloaded either way.
  const CudaApi &Cu = Ctx.api();
  if (Library) {
    Cu.cuLibraryUnload(Library);
    return;
  }
  if (!alive())
    return;
  CUcontext Current = nullptr;
  if (Cu.cuCtxGetCurrent(&Current) == CUDA_SUCCESS && Current != Ctx.handle())
    Cu.cuCtxSetCurrent(Ctx.handle()); // restored below
  Cu.cuModuleUnload(Handle);
  if (Current && Current != Ctx.handle())
    Cu.cuCtxSetCurrent(Current);
}

int Module::device() const { return Ctx.device(); }

bool Module::alive() const { return Ctx.generation() == Generation; }

std::shared_ptr<Module> Module::loadCubin(const void *Image, size_t Size,
                                          bool AsLibrary) {
  Context &Ctx = currentContext();
  if (!Image || Size == 0)
    throwDriverError(CUDA_ERROR_INVALID_IMAGE,
                     AsLibrary ? "cuLibraryLoadData" : "cuModuleLoadData",
                     "the module image is empty");
  CUmodule Handle = nullptr;
  if (AsLibrary) {
    const CudaApi &Cu = Ctx.api();
    CUlibrary Lib = nullptr;
    check(Cu.cuLibraryLoadData(&Lib, Image, nullptr, nullptr, 0, nullptr,
                               nullptr, 0),
          "cuLibraryLoadData");
    CUresult R = Cu.cuLibraryGetModule(&Handle, Lib);
    if (R != CUDA_SUCCESS) {
      Cu.cuLibraryUnload(Lib);
      check(R, "cuLibraryGetModule");
    }
    return std::shared_ptr<Module>(new Module(Ctx, Handle, {}, Lib));
  }
  check(Ctx.api().cuModuleLoadData(&Handle, Image), "cuModuleLoadData");
  return std::shared_ptr<Module>(new Module(Ctx, Handle, {}));
}

std::shared_ptr<Module> Module::loadPtx(const std::string &Ptx, bool LineInfo,
                                        bool Debug) {
  Context &Ctx = currentContext();
  std::vector<char> InfoLog(kJitLogBytes, '\0');
  std::vector<char> ErrorLog(kJitLogBytes, '\0');
  CUjit_option Options[] = {
      CU_JIT_INFO_LOG_BUFFER,    CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
      CU_JIT_ERROR_LOG_BUFFER,   CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
      CU_JIT_GENERATE_LINE_INFO, CU_JIT_GENERATE_DEBUG_INFO,
      CU_JIT_OPTIMIZATION_LEVEL};
  void *Values[] = {InfoLog.data(),
                    reinterpret_cast<void *>(uintptr_t(InfoLog.size())),
                    ErrorLog.data(),
                    reinterpret_cast<void *>(uintptr_t(ErrorLog.size())),
                    reinterpret_cast<void *>(uintptr_t(LineInfo ? 1 : 0)),
                    reinterpret_cast<void *>(uintptr_t(Debug ? 1 : 0)),
                    reinterpret_cast<void *>(uintptr_t(Debug ? 0 : 4))};
  CUmodule Handle = nullptr;
  // Ptx.c_str() is NUL-terminated, as the driver requires for PTX.
  CUresult R = Ctx.api().cuModuleLoadDataEx(
      &Handle, Ptx.c_str(), sizeof(Options) / sizeof(Options[0]), Options,
      Values);
  std::string Info = trimLog(InfoLog, reinterpret_cast<uintptr_t>(Values[1]));
  if (R != CUDA_SUCCESS) {
    std::string Err = trimLog(ErrorLog, reinterpret_cast<uintptr_t>(Values[3]));
    throwDriverError(R, "cuModuleLoadDataEx",
                     Err.empty() ? "PTX JIT failed (no error log)"
                                 : "PTX JIT error log:\n" + Err);
  }
  return std::shared_ptr<Module>(new Module(Ctx, Handle, std::move(Info)));
}

CUfunction Module::function(const std::string &Name) const {
  CUfunction F = nullptr;
  CUresult R = Ctx.api().cuModuleGetFunction(&F, Handle, Name.c_str());
  if (R == CUDA_ERROR_NOT_FOUND)
    throwDriverError(R, "cuModuleGetFunction",
                     "the module has no kernel named '" + Name + "'");
  check(R, "cuModuleGetFunction");
  return F;
}

Module::Global Module::global(const std::string &Name) const {
  Global G;
  CUresult R =
      Ctx.api().cuModuleGetGlobal(&G.Ptr, &G.Bytes, Handle, Name.c_str());
  if (R == CUDA_ERROR_NOT_FOUND)
    throwDriverError(R, "cuModuleGetGlobal",
                     "the module has no global named '" + Name + "'");
  check(R, "cuModuleGetGlobal");
  return G;
}

} // namespace pcj::rt
