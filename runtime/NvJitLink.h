// NvJitLink: PTX -> cubin with NVIDIA's nvJitLink library, loaded with dlopen.
//
// Linking PTX to a cubin ahead of the module load needs no GPU, lets us
// cache the cubin on disk, and reports ptxas errors with a log. nvJitLink is
// optional: without it, the driver JIT-compiles the PTX at load time (see
// LoadImage.h).
//
// The process-wide library (NvJitLink::process()) is found on first use by
// trying the candidates of support/Toolkit.h (PYCUDA_JIT_NVJITLINK alone if
// set; else CUDA_HOME/CUDA_PATH, NVIDIA's pip wheels, then the system) in
// order, libnvJitLink.so.13 before libnvJitLink.so in each place.
// We call the plain exported names (nvJitLinkCreate...), not the versioned
// __nvJitLinkCreate_13_0 that nvJitLink.h's inline wrappers use, so that any
// 12.x/13.x library works.
//
//   std::string Cubin = linkPtxToCubin(Ptx, 9, 0);   // sm_90; LinkError
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace pcj::rt {

/// More code to link with the kernel's PTX (foreign functions): Kind is
/// "ptx", "ltoir", "cubin", "fatbin", "o" or "a" for nvJitLink, or "cu"
/// (CUDA C++ source, compiled to PTX by NVRTC first: Nvrtc.h).  Name is
/// what error logs call it.
struct LinkInput {
  std::string Kind, Name, Data;
};

struct LinkOptions {
  bool Optimize = true;  // -O3
  bool LineInfo = false; // -lineinfo
  std::vector<LinkInput> Inputs;
  /// The kernel as libNVVM's LTO-IR (lto=True): linked instead of its PTX,
  /// with -lto, so nvJitLink optimizes it together with the LTO-IR inputs
  /// (CUDA C++ inputs are then compiled to LTO-IR too: Nvrtc.h).
  std::string KernelLtoIr;
};

/// Whether PTX carries DWARF (`.target sm_XX, debug`, from debug=True):
/// ptxas then refuses -O3 ("Optimized debugging not supported"), so
/// linking and the driver's JIT compile it with -g, unoptimized.
bool ptxHasDebugInfo(const std::string &Ptx);

/// nvJitLink could not produce a cubin (or is not available); log() is
/// nvJitLink's error log (ptxas messages with line numbers).
class LinkError : public std::runtime_error {
public:
  LinkError(int Code, const std::string &Message, std::string Log);
  /// The nvJitLinkResult, or -1 when nvJitLink is not available.
  int code() const { return Code; }
  const std::string &log() const { return Log; }

private:
  int Code;
  std::string Log;
};

/// Linking with foreign code (LinkOptions::Inputs) failed: a missing or
/// mismatched symbol, bad PTX, an input nvJitLink does not take.
class ForeignLinkError : public LinkError {
public:
  using LinkError::LinkError;
};

class NvJitLink {
public:
  /// Tries each candidate (a path, or a bare name for the dynamic loader)
  /// until one loads with every entry point. Never throws.
  explicit NvJitLink(const std::vector<std::string> &Candidates);
  ~NvJitLink();
  NvJitLink(const NvJitLink &) = delete;
  NvJitLink &operator=(const NvJitLink &) = delete;

  /// The process-wide library, searched for on first use (thread-safe).
  static const NvJitLink &process();
  /// The documented search list (see the top of this file), for the
  /// current environment.
  static std::vector<std::string> defaultCandidates();

  bool available() const { return Handle != nullptr; }
  /// Why it is unavailable: every place tried and what went wrong.
  const std::string &loadError() const { return Error; }
  /// The library that was loaded.
  const std::string &path() const { return Path; }
  /// nvJitLinkVersion, e.g. {13, 0}; {0, 0} when unknown.
  unsigned versionMajor() const { return Major; }
  unsigned versionMinor() const { return Minor; }

  /// Links one PTX module into a cubin for sm_<CcMajor><CcMinor>. Stores
  /// nvJitLink's info log in *InfoLog when given. Throws LinkError.
  std::string linkPtxToCubin(const std::string &Ptx, int CcMajor, int CcMinor,
                             std::string *InfoLog = nullptr,
                             const LinkOptions &Options = {}) const;

  struct Api; // the resolved entry points (NvJitLink.cpp)

private:
  void *Handle = nullptr;
  Api *Fns = nullptr;
  std::string Path;
  std::string Error;
  unsigned Major = 0, Minor = 0;
};

/// The process-wide library's state.
bool nvJitLinkAvailable();
const std::string &nvJitLinkLoadError();

/// NvJitLink::process().linkPtxToCubin; throws LinkError (code() -1) when
/// nvJitLink is not available.
std::string linkPtxToCubin(const std::string &Ptx, int CcMajor, int CcMinor,
                           std::string *InfoLog = nullptr,
                           const LinkOptions &Options = {});

} // namespace pcj::rt
