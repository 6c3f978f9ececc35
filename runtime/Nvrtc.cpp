// Nvrtc: finding and dlopen-ing libnvrtc, and CUDA C++ -> PTX.  See Nvrtc.h.
#include "runtime/Nvrtc.h"

#include "support/Toolkit.h"

#include <cstdlib>
#include <dlfcn.h>
#include <memory>
#include <mutex>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace pcj::rt {

namespace {

using nvrtcProgram = struct _nvrtcProgram *;

// X(Name, (Params)): the entry points we call, all returning nvrtcResult.
#define PCJ_NVRTC_FNS(X)                                                       \
  X(nvrtcCreateProgram, (nvrtcProgram *, const char *, const char *, int,      \
                         const char *const *, const char *const *))            \
  X(nvrtcDestroyProgram, (nvrtcProgram *))                                     \
  X(nvrtcCompileProgram, (nvrtcProgram, int, const char *const *))             \
  X(nvrtcGetPTXSize, (nvrtcProgram, size_t *))                                 \
  X(nvrtcGetPTX, (nvrtcProgram, char *))                                       \
  X(nvrtcGetProgramLogSize, (nvrtcProgram, size_t *))                          \
  X(nvrtcGetProgramLog, (nvrtcProgram, char *))

struct Api {
#define PCJ_X(Name, Params) int(*Name) Params = nullptr;
  PCJ_NVRTC_FNS(PCJ_X)
#undef PCJ_X
  // NVRTC 12.0+ (-dlto output); null in older libraries.
  int (*nvrtcGetLTOIRSize)(nvrtcProgram, size_t *) = nullptr;
  int (*nvrtcGetLTOIR)(nvrtcProgram, char *) = nullptr;
  std::string path;    // the library loaded
  std::string include; // the toolkit's include directory, if found
  // include/cccl (CUDA 13 moved libcu++, CUB and Thrust there; the
  // toolkit's own headers, e.g. <cooperative_groups.h>, include them).
  std::string cccl;
  std::string error; // why none loaded
};

bool isDir(const std::string &P) {
  struct stat St;
  return stat(P.c_str(), &St) == 0 && S_ISDIR(St.st_mode);
}

// <toolkit>/lib64/libnvrtc.so.13 -> <toolkit>/include (also lib/, and the
// pip wheels' nvidia/cu13/lib -> nvidia/cu13/include).
std::string includeDirBeside(void *Handle, const std::string &Fallback) {
  std::string Lib = Fallback;
  Dl_info Info;
  void *Sym = dlsym(Handle, "nvrtcCompileProgram");
  if (Sym && dladdr(Sym, &Info) && Info.dli_fname)
    Lib = Info.dli_fname;
  char *Real = realpath(Lib.c_str(), nullptr);
  if (Real) {
    Lib = Real;
    std::free(Real);
  }
  size_t Slash = Lib.rfind('/');
  if (Slash == std::string::npos)
    return "";
  std::string Dir = Lib.substr(0, Slash);
  Slash = Dir.rfind('/');
  std::string Include =
      (Slash == std::string::npos ? "." : Dir.substr(0, Slash)) + "/include";
  return isDir(Include) ? Include : "";
}

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
      PCJ_NVRTC_FNS(PCJ_X)
#undef PCJ_X
      return Missing;
    };
    if (void *H =
            openToolkitLibrary(ToolkitPiece::Nvrtc, Resolve, A->path, Tried)) {
      A->include = includeDirBeside(H, A->path);
      A->nvrtcGetLTOIRSize = reinterpret_cast<decltype(A->nvrtcGetLTOIRSize)>(
          dlsym(H, "nvrtcGetLTOIRSize"));
      A->nvrtcGetLTOIR = reinterpret_cast<decltype(A->nvrtcGetLTOIR)>(
          dlsym(H, "nvrtcGetLTOIR"));
      if (!A->include.empty() && isDir(A->include + "/cccl"))
        A->cccl = A->include + "/cccl";
      return A;
    }
    A->error = "NVRTC not found; tried:" +
               (Tried.empty() ? std::string(" nothing") : Tried) + "\n" +
               toolkitInstallHint(ToolkitPiece::Nvrtc);
    return A;
  }();
  return *Lib;
}

struct ProgramGuard {
  const Api &Fns;
  nvrtcProgram P = nullptr;
  ~ProgramGuard() {
    if (P)
      Fns.nvrtcDestroyProgram(&P);
  }
};

} // namespace

namespace {

// Source -> PTX, or LTO-IR (Lto: -dlto).
std::string compileCuda(const std::string &Source, const std::string &Name,
                        int CcMajor, int CcMinor, bool Lto) {
  const Api &Fns = library();
  if (Fns.path.empty())
    throw NvrtcError(-1, "cannot compile CUDA C++ '" + Name + "': " + Fns.error,
                     "");
  ProgramGuard G{Fns};
  if (int R = Fns.nvrtcCreateProgram(&G.P, Source.c_str(), Name.c_str(), 0,
                                     nullptr, nullptr))
    throw NvrtcError(R,
                     "NVRTC could not create a program for '" + Name +
                         "' (nvrtcResult " + std::to_string(R) + ")",
                     "");
  std::string Arch = "--gpu-architecture=compute_" + std::to_string(CcMajor) +
                     std::to_string(CcMinor);
  std::string Include = "-I" + Fns.include;
  std::string Cccl = "-I" + Fns.cccl;
  std::vector<const char *> Opts = {Arch.c_str(), "-rdc=true", "--std=c++17",
                                    "-default-device"};
  if (!Fns.include.empty())
    Opts.push_back(Include.c_str());
  if (Lto && !Fns.nvrtcGetLTOIR)
    throw NvrtcError(-1,
                     "cannot compile CUDA C++ '" + Name +
                         "' to LTO-IR: this NVRTC (" + Fns.path +
                         ") lacks nvrtcGetLTOIR (CUDA 12.0+)",
                     "");
  if (Lto)
    Opts.push_back("-dlto");
  if (!Fns.cccl.empty())
    Opts.push_back(Cccl.c_str());
  int R = Fns.nvrtcCompileProgram(G.P, int(Opts.size()), Opts.data());
  std::string Log;
  size_t N = 0;
  if (Fns.nvrtcGetProgramLogSize(G.P, &N) == 0 && N > 1) {
    Log.resize(N);
    if (Fns.nvrtcGetProgramLog(G.P, Log.data()) == 0)
      Log.resize(std::char_traits<char>::length(Log.c_str()));
    else
      Log.clear();
    while (!Log.empty() && (Log.back() == '\n' || Log.back() == ' '))
      Log.pop_back();
  }
  if (R)
    throw NvrtcError(R,
                     "NVRTC failed to compile '" + Name + "' for " +
                         Arch.substr(Arch.find('=') + 1),
                     Log);
  if (Lto) {
    if (int E = Fns.nvrtcGetLTOIRSize(G.P, &N))
      throw NvrtcError(E, "nvrtcGetLTOIRSize failed for '" + Name + "'", Log);
    std::string Ir(N, '\0');
    if (int E = Fns.nvrtcGetLTOIR(G.P, Ir.data()))
      throw NvrtcError(E, "nvrtcGetLTOIR failed for '" + Name + "'", Log);
    return Ir;
  }
  if (int E = Fns.nvrtcGetPTXSize(G.P, &N))
    throw NvrtcError(E, "nvrtcGetPTXSize failed for '" + Name + "'", Log);
  std::string Ptx(N, '\0');
  if (int E = Fns.nvrtcGetPTX(G.P, Ptx.data()))
    throw NvrtcError(E, "nvrtcGetPTX failed for '" + Name + "'", Log);
  Ptx.resize(std::char_traits<char>::length(Ptx.c_str()));
  return Ptx;
}

} // namespace

std::string compileCudaToPtx(const std::string &Source, const std::string &Name,
                             int CcMajor, int CcMinor) {
  return compileCuda(Source, Name, CcMajor, CcMinor, /*Lto=*/false);
}

std::string compileCudaToLtoIr(const std::string &Source,
                               const std::string &Name, int CcMajor,
                               int CcMinor) {
  return compileCuda(Source, Name, CcMajor, CcMinor, /*Lto=*/true);
}

} // namespace pcj::rt
