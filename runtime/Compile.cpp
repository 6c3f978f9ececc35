// Compile: choosing between nvJitLink and the driver's PTX JIT.
// See Compile.h.
#include "runtime/Compile.h"

#include "runtime/ErrorRecord.h"

namespace pcj::rt {

const char *loadPathName(LoadPath Path) {
  switch (Path) {
  case LoadPath::NvJitLinkCubin:
    return "nvjitlink-cubin";
  case LoadPath::DriverJitPtx:
    return "driver-jit-ptx";
  }
  return "?";
}

LoadableImage ptxToLoadable(const NvJitLink &Linker, const std::string &Ptx,
                            int CcMajor, int CcMinor,
                            const LinkOptions &Options) {
  LoadableImage Img;
  Img.CcMajor = CcMajor;
  Img.CcMinor = CcMinor;
  if (!Linker.available()) {
    Img.Path = LoadPath::DriverJitPtx;
    Img.Bytes = Ptx;
    Img.FallbackReason = Linker.loadError();
    return Img;
  }
  Img.Path = LoadPath::NvJitLinkCubin;
  Img.Bytes =
      Linker.linkPtxToCubin(Ptx, CcMajor, CcMinor, &Img.InfoLog, Options);
  return Img;
}

LoadableImage ptxToLoadable(const std::string &Ptx, int CcMajor, int CcMinor,
                            const LinkOptions &Options) {
  return ptxToLoadable(NvJitLink::process(), Ptx, CcMajor, CcMinor, Options);
}

std::shared_ptr<Module> loadModule(const LoadableImage &Image,
                                   const LinkOptions &Options) {
  std::shared_ptr<Module> M = Image.isCubin()
                                  ? Module::loadCubin(Image.Bytes)
                                  : Module::loadPtx(Image.Bytes, Options.LineInfo);
  attachErrorRecord(*M); // a kernel's raise/assert: runtime/ErrorRecord.h
  return M;
}

} // namespace pcj::rt
