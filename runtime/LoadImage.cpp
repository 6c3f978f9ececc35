// LoadImage: choosing between nvJitLink and the driver's PTX JIT.
// See LoadImage.h.
#include "runtime/LoadImage.h"

#include "runtime/ErrorRecord.h"
#include "runtime/Nvrtc.h"

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
  if (!Options.Inputs.empty()) {
    // Foreign code: only nvJitLink links several inputs; CUDA C++ is
    // compiled to PTX first, for this architecture.
    if (!Linker.available())
      throw LinkError(
          -1, "linking foreign code needs nvJitLink: " + Linker.loadError(),
          "");
    LinkOptions WithPtx = Options;
    // With the kernel as LTO-IR, CUDA C++ becomes LTO-IR too (inlined).
    bool Lto = !Options.KernelLtoIr.empty();
    for (LinkInput &In : WithPtx.Inputs)
      if (In.Kind == "cu") {
        In.Data = Lto ? compileCudaToLtoIr(In.Data, In.Name, CcMajor, CcMinor)
                      : compileCudaToPtx(In.Data, In.Name, CcMajor, CcMinor);
        In.Kind = Lto ? "ltoir" : "ptx";
      }
    Img.Path = LoadPath::NvJitLinkCubin;
    try {
      Img.Bytes =
          Linker.linkPtxToCubin(Ptx, CcMajor, CcMinor, &Img.InfoLog, WithPtx);
    } catch (const NvrtcError &) {
      throw;
    } catch (const LinkError &E) {
      std::string Names;
      for (const LinkInput &In : Options.Inputs)
        Names += (Names.empty() ? "" : ", ") + In.Name;
      std::string Message = E.what();
      Message.resize(Message.size() - E.log().size());
      while (!Message.empty() && Message.back() == '\n')
        Message.pop_back();
      throw ForeignLinkError(
          E.code(), Message + " (linking with " + Names + ")", E.log());
    }
    return Img;
  }
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
                                   const LinkOptions &Options, bool AsLibrary) {
  std::shared_ptr<Module> M =
      Image.isCubin() ? Module::loadCubin(Image.Bytes, AsLibrary)
                      : Module::loadPtx(Image.Bytes, Options.LineInfo,
                                        ptxHasDebugInfo(Image.Bytes));
  attachErrorRecord(*M); // a kernel's raise/assert: runtime/ErrorRecord.h
  return M;
}

} // namespace pcj::rt
