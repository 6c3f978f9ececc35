// LoadImage: PTX -> an image the driver can load, and loading it (not
// to be confused with driver/Compile.h, the compiler pipeline).
//
// The last step of the compiler's output path. With nvJitLink available we
// link the PTX to a cubin for the exact device (no GPU needed, cacheable,
// errors come with ptxas's log). Without it we hand the PTX itself to the
// driver, whose JIT compiles it at load time (cuModuleLoadDataEx). The
// result records which path was taken, and why, for kernel.inspect_*() and
// the disk cache.
//
//   LoadableImage Img = ptxToLoadable(Ptx, 9, 0);
//   std::shared_ptr<Module> M = loadModule(Img);
#pragma once

#include "runtime/Module.h"
#include "runtime/NvJitLink.h"

#include <memory>
#include <string>

namespace pcj::rt {

enum class LoadPath {
  NvJitLinkCubin, // Bytes is an sm_XY cubin linked by nvJitLink
  DriverJitPtx,   // Bytes is the PTX; the driver JIT compiles it on load
};

/// "nvjitlink-cubin" / "driver-jit-ptx".
const char *loadPathName(LoadPath Path);

struct LoadableImage {
  LoadPath Path = LoadPath::DriverJitPtx;
  std::string Bytes;
  int CcMajor = 0, CcMinor = 0;
  /// nvJitLink's info log (NvJitLinkCubin only).
  std::string InfoLog;
  /// Why nvJitLink was not used (DriverJitPtx only).
  std::string FallbackReason;

  bool isCubin() const { return Path == LoadPath::NvJitLinkCubin; }
};

/// Links Ptx for sm_<CcMajor><CcMinor> with Linker when it is available
/// (LinkError on a link failure: bad PTX is not retried through the driver),
/// else returns the PTX for the driver JIT.
LoadableImage ptxToLoadable(const NvJitLink &Linker, const std::string &Ptx,
                            int CcMajor, int CcMinor,
                            const LinkOptions &Options = {});

/// The same with the process-wide nvJitLink.
LoadableImage ptxToLoadable(const std::string &Ptx, int CcMajor, int CcMinor,
                            const LinkOptions &Options = {});

/// Loads Image into the current context (Module::loadCubin or loadPtx) and
/// binds it to the context's error record (attachErrorRecord). AsLibrary: a
/// cubin is loaded as a CUlibrary (Module::library()); PTX for the driver's
/// JIT is always loaded as a plain module.
std::shared_ptr<Module> loadModule(const LoadableImage &Image,
                                   const LinkOptions &Options = {},
                                   bool AsLibrary = false);

} // namespace pcj::rt
