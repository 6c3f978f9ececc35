// GpuTarget: the toolchain the target choice sees, and its compile options
// (GpuTarget.h).
#include "GpuTarget.h"

#include "runtime/CudaDriver.h"
#include "runtime/NvJitLink.h"
#include "support/Diagnostics.h"
#include "support/Toolkit.h"

namespace pcj::py {

// nvJitLink's version as CUDA_VERSION counts (13000), 0 without it: from
// its file's name when that states it (libnvJitLink.so.13.0.88), so that a
// disk-cache hit, whose key holds the target choice, never loads the
// library (~9 ms on the H200 machine's host); else nvJitLink is loaded and
// asked.  Once per process, as NvJitLink::process() loads once.
static int linkerVersion() {
  static const int V = [] {
    // The name is trusted only for the file the library would be loaded
    // from: the first candidate that is a file (as the cache key's toolkit
    // fingerprint), unless a bare soname tried before it would find another
    // file through LD_LIBRARY_PATH.
    int Major = 0, Minor = 0;
    std::string File = findToolkitFile(ToolkitPiece::NvJitLink);
    if (!File.empty() && toolkitFileLoadsFirst(ToolkitPiece::NvJitLink, File) &&
        toolkitVersionFromFileName(File, Major, Minor))
      return Major * 1000 + Minor * 10;
    const rt::NvJitLink &Linker = rt::NvJitLink::process();
    if (Linker.available() && Linker.versionMajor())
      return int(Linker.versionMajor() * 1000 + Linker.versionMinor() * 10);
    return 0;
  }();
  return V;
}

GpuToolchain currentToolchain() {
  GpuToolchain T;
  const rt::CudaDriver &Driver = rt::CudaDriver::process();
  if (Driver.libraryLoaded())
    T.driverVersion = Driver.version();
  T.linkerVersion = linkerVersion();
  T.newestCc = newestCcFromEnv();
  return T;
}

GpuTargetChoice gpuTargetFor(int Major, int Minor) {
  return chooseGpuTarget(GpuArch{Major, Minor, 0}, currentToolchain());
}

GpuTargetChoice gpuTargetForArch(int Major, int Minor, const char *Suffix) {
  std::string S = Suffix ? Suffix : "";
  if (S.size() > 1 || (S.size() == 1 && S != "a" && S != "f"))
    throw CompileError(ErrorKind::Backend, SourceLoc{},
                       "the architecture suffix must be 'a' or 'f', not '" + S +
                           "'");
  if (Major < 1 || Minor < 0 || Minor > 9)
    throw CompileError(ErrorKind::Backend, SourceLoc{},
                       "cc must be a compute capability such as (9, 0), not (" +
                           std::to_string(Major) + ", " +
                           std::to_string(Minor) + ")");
  return chooseGpuTarget(GpuArch{Major, Minor, S.empty() ? char(0) : S[0]},
                         currentToolchain());
}

PyObject *pyGpuTarget(PyObject *, PyObject *Args) {
  return guard([&]() -> PyObject * {
    int Major = 0, Minor = 0;
    const char *Suffix = "";
    if (!PyArg_ParseTuple(Args, "ii|s", &Major, &Minor, &Suffix))
      return nullptr;
    GpuTargetChoice C = gpuTargetForArch(Major, Minor, Suffix);
    return Py_BuildValue("(s,s,O,i)", C.ptxArch.name().c_str(),
                         C.describe().c_str(), C.jit ? Py_True : Py_False,
                         C.maxPtxIsa);
  });
}

void applyGpuTarget(driver::CompileOptions &CO, const GpuTargetChoice &C) {
  CO.ccMajor = C.ptxArch.major;
  CO.ccMinor = C.ptxArch.minor;
  CO.ccSuffix = C.ptxArch.suffix;
  CO.gpuTarget = C.keyText();
}

} // namespace pcj::py
