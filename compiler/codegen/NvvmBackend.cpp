// NvvmBackend: libNVVM, dlopen-ed, and NVVM IR -> PTX / LTO-IR.  See
// NvvmBackend.h.
#include "codegen/NvvmBackend.h"

#include "codegen/Libdevice.h"
#include "support/Diagnostics.h"
#include "support/Toolkit.h"

#include <dlfcn.h>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <unistd.h>
#include <vector>

namespace pcj::codegen {

namespace {

using nvvmProgram = struct _nvvmProgram *;

// X(Name, (Params)): the entry points we call, all returning nvvmResult.
#define PCJ_NVVM_FNS(X)                                                        \
  X(nvvmCreateProgram, (nvvmProgram *))                                        \
  X(nvvmDestroyProgram, (nvvmProgram *))                                       \
  X(nvvmAddModuleToProgram, (nvvmProgram, const char *, size_t, const char *)) \
  X(nvvmLazyAddModuleToProgram,                                                \
    (nvvmProgram, const char *, size_t, const char *))                         \
  X(nvvmVerifyProgram, (nvvmProgram, int, const char **))                      \
  X(nvvmCompileProgram, (nvvmProgram, int, const char **))                     \
  X(nvvmGetCompiledResultSize, (nvvmProgram, size_t *))                        \
  X(nvvmGetCompiledResult, (nvvmProgram, char *))                              \
  X(nvvmGetProgramLogSize, (nvvmProgram, size_t *))                            \
  X(nvvmGetProgramLog, (nvvmProgram, char *))

struct Api {
#define PCJ_X(Name, Params) int(*Name) Params = nullptr;
  PCJ_NVVM_FNS(PCJ_X)
#undef PCJ_X
  std::string path;  // the library loaded
  std::string error; // why none loaded
};

// The process-wide library, searched for once; leaked like the driver.
const Api &library() {
  static const Api *Lib = [] {
    auto *A = new Api();
    std::string Tried;
    auto Resolve = [A](void *H) {
      std::string Missing;
#define PCJ_X(Name, Params)                                                    \
  A->Name = reinterpret_cast<decltype(A->Name)>(dlsym(H, #Name));              \
  if (!A->Name)                                                                \
    Missing += " " #Name;
      PCJ_NVVM_FNS(PCJ_X)
#undef PCJ_X
      return Missing;
    };
    if (openToolkitLibrary(ToolkitPiece::Nvvm, Resolve, A->path, Tried))
      return A;
    A->error = "libNVVM not found; tried:" +
               (Tried.empty() ? std::string(" nothing loadable") : Tried) +
               "\n" + toolkitInstallHint(ToolkitPiece::Nvvm);
    return A;
  }();
  return *Lib;
}

// libdevice's bytes, read once per process (per path).
const std::string &libdeviceBytes() {
  static std::mutex Mu;
  static auto *Files = new std::map<std::string, std::string>();
  LibdeviceSearch Found = findLibdevice();
  if (Found.path.empty())
    throw CompileError(ErrorKind::Backend, SourceLoc{},
                       "libdevice (libdevice.10.bc) was not found for libNVVM",
                       toolkitInstallHint(ToolkitPiece::Libdevice));
  std::lock_guard<std::mutex> Lock(Mu);
  auto It = Files->find(Found.path);
  if (It != Files->end())
    return It->second;
  std::ifstream In(Found.path, std::ios::binary);
  std::stringstream SS;
  SS << In.rdbuf();
  return (*Files)[Found.path] = SS.str();
}

struct ProgramGuard {
  const Api &Fns;
  nvvmProgram P = nullptr;
  ~ProgramGuard() {
    if (P)
      Fns.nvvmDestroyProgram(&P);
  }
};

std::string programLog(const Api &Fns, nvvmProgram P) {
  size_t N = 0;
  if (Fns.nvvmGetProgramLogSize(P, &N) != 0 || N <= 1)
    return "";
  std::string Log(N, '\0');
  if (Fns.nvvmGetProgramLog(P, Log.data()) != 0)
    return "";
  Log.resize(std::char_traits<char>::length(Log.c_str()));
  while (!Log.empty() && (Log.back() == '\n' || Log.back() == ' '))
    Log.pop_back();
  return Log;
}

} // namespace

bool libNvvmAvailable(std::string *Why) {
  const Api &Fns = library();
  if (Why)
    *Why = Fns.error;
  return !Fns.path.empty();
}

std::string compileNvvmIr(const std::string &Ir, const NvvmCompileOptions &O) {
  const Api &Fns = library();
  if (Fns.path.empty())
    throw CompileError(ErrorKind::Backend, SourceLoc{}, Fns.error);
  ProgramGuard G{Fns};
  auto fail = [&](int R, const char *Step) {
    std::string Log = G.P ? programLog(Fns, G.P) : "";
    throw CompileError(ErrorKind::Backend, SourceLoc{},
                       std::string("libNVVM: ") + Step +
                           " failed (nvvmResult " + std::to_string(R) + ")" +
                           (Log.empty() ? "" : ":\n" + Log));
  };
  if (int R = Fns.nvvmCreateProgram(&G.P))
    fail(R, "nvvmCreateProgram");
  if (int R = Fns.nvvmAddModuleToProgram(G.P, Ir.data(), Ir.size(), "kernel"))
    fail(R, "nvvmAddModuleToProgram");
  if (Ir.find("@__nv_") != std::string::npos) {
    const std::string &Lib = libdeviceBytes();
    if (int R = Fns.nvvmLazyAddModuleToProgram(G.P, Lib.data(), Lib.size(),
                                               "libdevice"))
      fail(R, "adding libdevice");
  }
  std::string Arch =
      "-arch=compute_" + std::to_string(O.ccMajor) + std::to_string(O.ccMinor);
  std::vector<const char *> Opts = {Arch.c_str(),
                                    O.optLevel ? "-opt=3" : "-opt=0"};
  if (O.fastMath) {
    for (const char *F : {"-ftz=1", "-prec-div=0", "-prec-sqrt=0", "-fma=1"})
      Opts.push_back(F);
  } else {
    Opts.push_back("-fma=0");
  }
  if (O.output == NvvmOutput::LtoIr)
    Opts.push_back("-gen-lto");
  if (int R = Fns.nvvmVerifyProgram(G.P, int(Opts.size()), Opts.data()))
    fail(R, "nvvmVerifyProgram");
  if (int R = Fns.nvvmCompileProgram(G.P, int(Opts.size()), Opts.data()))
    fail(R, "nvvmCompileProgram");
  size_t N = 0;
  if (int R = Fns.nvvmGetCompiledResultSize(G.P, &N))
    fail(R, "nvvmGetCompiledResultSize");
  std::string Out(N, '\0');
  if (int R = Fns.nvvmGetCompiledResult(G.P, Out.data()))
    fail(R, "nvvmGetCompiledResult");
  if (O.output == NvvmOutput::Ptx)
    Out.resize(std::char_traits<char>::length(Out.c_str()));
  return Out;
}

} // namespace pcj::codegen
