// NvJitLink: finding and dlopen-ing libnvJitLink, and PTX -> cubin linking.
// See NvJitLink.h.
#include "runtime/NvJitLink.h"

#include "support/Toolkit.h"

#include <cstdint>
#include <cstdlib>
#include <dlfcn.h>
#include <memory>
#include <unistd.h>

namespace pcj::rt {

namespace {

// nvJitLink.h's types, declared here so we need no toolkit headers.
using nvJitLinkHandle = struct nvJitLink *;
enum nvJitLinkInputType : int {
  NVJITLINK_INPUT_CUBIN = 1,
  NVJITLINK_INPUT_PTX = 2,
  NVJITLINK_INPUT_LTOIR = 3,
  NVJITLINK_INPUT_FATBIN = 4,
  NVJITLINK_INPUT_OBJECT = 5,
  NVJITLINK_INPUT_LIBRARY = 6,
};

// LinkInput::Kind -> nvJitLink's input type; -1 for an unknown kind.
int inputType(const std::string &Kind) {
  static const std::pair<const char *, int> Kinds[] = {
      {"ptx", NVJITLINK_INPUT_PTX},     {"ltoir", NVJITLINK_INPUT_LTOIR},
      {"cubin", NVJITLINK_INPUT_CUBIN}, {"fatbin", NVJITLINK_INPUT_FATBIN},
      {"o", NVJITLINK_INPUT_OBJECT},    {"a", NVJITLINK_INPUT_LIBRARY}};
  for (const auto &[Name, Type] : Kinds)
    if (Kind == Name)
      return Type;
  return -1;
}

// X(name, value): nvJitLinkResult, from CUDA 13.0's nvJitLink.h.
#define PCJ_NVJITLINK_RESULTS(X)                                               \
  X(NVJITLINK_SUCCESS, 0)                                                      \
  X(NVJITLINK_ERROR_UNRECOGNIZED_OPTION, 1)                                    \
  X(NVJITLINK_ERROR_MISSING_ARCH, 2)                                           \
  X(NVJITLINK_ERROR_INVALID_INPUT, 3)                                          \
  X(NVJITLINK_ERROR_PTX_COMPILE, 4)                                            \
  X(NVJITLINK_ERROR_NVVM_COMPILE, 5)                                           \
  X(NVJITLINK_ERROR_INTERNAL, 6)                                               \
  X(NVJITLINK_ERROR_THREADPOOL, 7)                                             \
  X(NVJITLINK_ERROR_UNRECOGNIZED_INPUT, 8)                                     \
  X(NVJITLINK_ERROR_FINALIZE, 9)                                               \
  X(NVJITLINK_ERROR_NULL_INPUT, 10)                                            \
  X(NVJITLINK_ERROR_INCOMPATIBLE_OPTIONS, 11)                                  \
  X(NVJITLINK_ERROR_INCORRECT_INPUT_TYPE, 12)                                  \
  X(NVJITLINK_ERROR_ARCH_MISMATCH, 13)                                         \
  X(NVJITLINK_ERROR_OUTDATED_LIBRARY, 14)                                      \
  X(NVJITLINK_ERROR_MISSING_FATBIN, 15)                                        \
  X(NVJITLINK_ERROR_UNRECOGNIZED_ARCH, 16)                                     \
  X(NVJITLINK_ERROR_UNSUPPORTED_ARCH, 17)                                      \
  X(NVJITLINK_ERROR_LTO_NOT_ENABLED, 18)

std::string resultName(int Code) {
  switch (Code) {
#define PCJ_X(Name, Value)                                                     \
  case Value:                                                                  \
    return #Name;
    PCJ_NVJITLINK_RESULTS(PCJ_X)
#undef PCJ_X
  }
  return "nvJitLinkResult " + std::to_string(Code);
}

// X(Name, (Params)): the entry points we call, all returning nvJitLinkResult.
#define PCJ_NVJITLINK_FNS(X)                                                   \
  X(nvJitLinkCreate, (nvJitLinkHandle *, uint32_t, const char **))             \
  X(nvJitLinkDestroy, (nvJitLinkHandle *))                                     \
  X(nvJitLinkAddData,                                                          \
    (nvJitLinkHandle, nvJitLinkInputType, const void *, size_t, const char *)) \
  X(nvJitLinkComplete, (nvJitLinkHandle))                                      \
  X(nvJitLinkGetLinkedCubinSize, (nvJitLinkHandle, size_t *))                  \
  X(nvJitLinkGetLinkedCubin, (nvJitLinkHandle, void *))                        \
  X(nvJitLinkGetErrorLogSize, (nvJitLinkHandle, size_t *))                     \
  X(nvJitLinkGetErrorLog, (nvJitLinkHandle, char *))                           \
  X(nvJitLinkGetInfoLogSize, (nvJitLinkHandle, size_t *))                      \
  X(nvJitLinkGetInfoLog, (nvJitLinkHandle, char *))

// Destroys an nvJitLink handle on every exit path.
struct HandleGuard {
  const NvJitLink::Api &Fns;
  nvJitLinkHandle H = nullptr;
  ~HandleGuard();
};

} // namespace

struct NvJitLink::Api {
#define PCJ_X(Name, Params) int(*Name) Params = nullptr;
  PCJ_NVJITLINK_FNS(PCJ_X)
#undef PCJ_X
  int (*nvJitLinkVersion)(unsigned *, unsigned *) = nullptr; // optional
};

HandleGuard::~HandleGuard() {
  if (H)
    Fns.nvJitLinkDestroy(&H);
}

LinkError::LinkError(int Code, const std::string &Message, std::string Log)
    : std::runtime_error(Log.empty() ? Message : Message + "\n" + Log),
      Code(Code), Log(std::move(Log)) {}

std::vector<std::string> NvJitLink::defaultCandidates() {
  std::vector<std::string> Out;
  for (ToolkitCandidate &C : searchToolkit(ToolkitPiece::NvJitLink).Candidates)
    Out.push_back(std::move(C.Path));
  return Out;
}

NvJitLink::NvJitLink(const std::vector<std::string> &Candidates) {
  std::string Tried;
  auto Fns = std::make_unique<Api>();
  auto Resolve = [&Fns](void *H) {
    std::string Missing;
#define PCJ_X(Name, Params)                                                    \
  Fns->Name = reinterpret_cast<decltype(Fns->Name)>(dlsym(H, #Name));          \
  if (!Fns->Name)                                                              \
    Missing += " " #Name;
    PCJ_NVJITLINK_FNS(PCJ_X)
#undef PCJ_X
    return Missing;
  };
  if (void *H = openToolkitLibrary(Candidates, Resolve, Path, Tried)) {
    Fns->nvJitLinkVersion = reinterpret_cast<decltype(Fns->nvJitLinkVersion)>(
        dlsym(H, "nvJitLinkVersion"));
    if (Fns->nvJitLinkVersion && Fns->nvJitLinkVersion(&Major, &Minor) != 0)
      Major = Minor = 0;
    Handle = H;
    this->Fns = Fns.release();
    return;
  }
  Error = "nvJitLink not found; tried:" +
          (Tried.empty() ? std::string(" nothing") : Tried) + "\n" +
          toolkitInstallHint(ToolkitPiece::NvJitLink) +
          " (PTX is JIT-compiled by the driver meanwhile)";
}

NvJitLink::~NvJitLink() {
  delete Fns;
  if (Handle)
    dlclose(Handle);
}

const NvJitLink &NvJitLink::process() {
  // Leaked on purpose, like the CUDA driver.
  static const NvJitLink *Lib = new NvJitLink(defaultCandidates());
  return *Lib;
}

bool ptxHasDebugInfo(const std::string &Ptx) {
  size_t At = Ptx.find(".target");
  if (At == std::string::npos)
    return false;
  size_t End = Ptx.find('\n', At);
  std::string Line = Ptx.substr(At, End == std::string::npos ? End : End - At);
  size_t Comment = Line.find("//");
  return Line.substr(0, Comment).find("debug") != std::string::npos;
}

std::string NvJitLink::linkPtxToCubin(const std::string &Ptx, int CcMajor,
                                      int CcMinor, std::string *InfoLog,
                                      const LinkOptions &Options) const {
  std::string Arch = "sm_" + std::to_string(CcMajor) + std::to_string(CcMinor);
  if (!available())
    throw LinkError(-1, "cannot link PTX for " + Arch + ": " + Error, "");

  std::string ArchOpt = "-arch=" + Arch;
  std::vector<const char *> Opts = {ArchOpt.c_str()};
  if (ptxHasDebugInfo(Ptx))
    Opts.push_back("-g");
  else if (Options.Optimize)
    Opts.push_back("-O3");
  if (Options.LineInfo)
    Opts.push_back("-lineinfo");
  bool Lto = !Options.KernelLtoIr.empty();
  for (const LinkInput &In : Options.Inputs)
    Lto |= In.Kind == "ltoir"; // LTO-IR inputs are optimized together
  if (Lto)
    Opts.push_back("-lto");

  HandleGuard Guard{*Fns};
  auto getLog = [&](auto SizeFn, auto LogFn) {
    size_t N = 0;
    if (SizeFn(Guard.H, &N) != 0 || N == 0)
      return std::string();
    std::string S(N, '\0');
    if (LogFn(Guard.H, S.data()) != 0)
      return std::string();
    S.resize(std::char_traits<char>::length(S.c_str()));
    while (!S.empty() && (S.back() == '\n' || S.back() == ' '))
      S.pop_back();
    return S;
  };
  auto fail = [&](int Code, const char *Step) {
    std::string Log = Guard.H ? getLog(Fns->nvJitLinkGetErrorLogSize,
                                       Fns->nvJitLinkGetErrorLog)
                              : "";
    throw LinkError(Code,
                    "nvJitLink failed to link PTX for " + Arch + ": " + Step +
                        " returned " + resultName(Code),
                    std::move(Log));
  };

  if (int R =
          Fns->nvJitLinkCreate(&Guard.H, uint32_t(Opts.size()), Opts.data()))
    fail(R, "nvJitLinkCreate");
  if (!Options.KernelLtoIr.empty()) {
    const std::string &L = Options.KernelLtoIr;
    if (int R = Fns->nvJitLinkAddData(Guard.H, NVJITLINK_INPUT_LTOIR, L.data(),
                                      L.size(), "kernel.ltoir"))
      fail(R, "nvJitLinkAddData");
  } else if (int R =
                 Fns->nvJitLinkAddData(Guard.H, NVJITLINK_INPUT_PTX, Ptx.data(),
                                       Ptx.size(), "kernel.ptx")) {
    fail(R, "nvJitLinkAddData");
  }
  for (const LinkInput &In : Options.Inputs) {
    int Type = inputType(In.Kind);
    if (Type < 0)
      throw LinkError(-1,
                      "cannot link '" + In.Name + "': unknown input kind '" +
                          In.Kind + "'",
                      "");
    if (int R = Fns->nvJitLinkAddData(Guard.H, nvJitLinkInputType(Type),
                                      In.Data.data(), In.Data.size(),
                                      In.Name.c_str()))
      fail(R, ("nvJitLinkAddData(" + In.Name + ")").c_str());
  }
  if (int R = Fns->nvJitLinkComplete(Guard.H))
    fail(R, "nvJitLinkComplete");
  size_t Size = 0;
  if (int R = Fns->nvJitLinkGetLinkedCubinSize(Guard.H, &Size))
    fail(R, "nvJitLinkGetLinkedCubinSize");
  std::string Cubin(Size, '\0');
  if (int R = Fns->nvJitLinkGetLinkedCubin(Guard.H, Cubin.data()))
    fail(R, "nvJitLinkGetLinkedCubin");
  if (InfoLog)
    *InfoLog = getLog(Fns->nvJitLinkGetInfoLogSize, Fns->nvJitLinkGetInfoLog);
  return Cubin;
}

bool nvJitLinkAvailable() { return NvJitLink::process().available(); }

const std::string &nvJitLinkLoadError() {
  return NvJitLink::process().loadError();
}

std::string linkPtxToCubin(const std::string &Ptx, int CcMajor, int CcMinor,
                           std::string *InfoLog, const LinkOptions &Options) {
  return NvJitLink::process().linkPtxToCubin(Ptx, CcMajor, CcMinor, InfoLog,
                                             Options);
}

} // namespace pcj::rt
