// Toolkit: where the CUDA toolkit pieces pycuda_jit uses are looked for --
// the ONE search shared by nvJitLink (runtime/NvJitLink.cpp), libdevice
// (compiler/codegen/Libdevice.cpp), NVRTC, nvdisasm/cuobjdump
// (kernel.inspect_sass()) and `python -m pycuda_jit info`.
//
// Every piece is searched in the same order, first hit wins:
//   1. its own override variable (PYCUDA_JIT_NVJITLINK, PYCUDA_JIT_LIBDEVICE,
//      PYCUDA_JIT_NVRTC, PYCUDA_JIT_NVDISASM, PYCUDA_JIT_CUOBJDUMP): a file,
//      or a directory holding it.  When set it is the only place tried, so a
//      wrong value is an error, never a silent fallback;
//   2. $CUDA_HOME, then $CUDA_PATH (a toolkit root);
//   3. NVIDIA's pip wheels under each site-packages directory: the ones
//      Python reported (setSitePackages, from sys.path), $PYCUDA_JIT_SITE_-
//      PACKAGES (os.pathsep separated), the one holding this binary, and
//      lib/python3*/site-packages under $VIRTUAL_ENV and $CONDA_PREFIX.
//      CUDA 13 wheels put everything under nvidia/cu13/ (lib/, bin/,
//      nvvm/libdevice/); CUDA 12 wheels under nvidia/<component>/;
//   4. the system, unless PYCUDA_JIT_SYSTEM_CUDA=0: the dynamic loader's
//      search path (libraries, by soname), /usr/local/cuda, /usr/local/cuda-13*
//      and the toolkit holding the nvcc found on $PATH.
//
//   ToolkitSearch S = searchToolkit(ToolkitPiece::Libdevice);
//   S.Candidates -> {"/opt/cuda/nvvm/libdevice/libdevice.10.bc", "CUDA_HOME"},
//                   {".../site-packages/nvidia/cu13/nvvm/libdevice/...",
//                    "pip nvidia-nvvm"}, ...
//   findToolkitFile(ToolkitPiece::Libdevice) -> the first that exists.
//
// Libraries (nvJitLink, NVRTC) are dlopen-ed by their users, trying the
// candidates in order (a bare soname goes to the dynamic loader); files
// (libdevice, the disassemblers) are taken where they exist.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace pcj {

#define PCJ_TOOLKIT_PIECES(X)                                                  \
  X(NvJitLink, "nvJitLink")                                                    \
  X(Libdevice, "libdevice")                                                    \
  X(Nvrtc, "NVRTC")                                                            \
  X(Nvvm, "libNVVM")                                                           \
  X(Nvdisasm, "nvdisasm")                                                      \
  X(Cuobjdump, "cuobjdump")

enum class ToolkitPiece {
#define PCJ_X(Name, Display) Name,
  PCJ_TOOLKIT_PIECES(PCJ_X)
#undef PCJ_X
};

/// Every piece, in declaration order (for reports).
std::vector<ToolkitPiece> allToolkitPieces();
/// "nvJitLink", "libdevice", ...
const char *toolkitPieceName(ToolkitPiece P);
/// The override variable, e.g. "PYCUDA_JIT_NVJITLINK".
const char *toolkitOverrideEnv(ToolkitPiece P);
/// What to install when the piece is missing: the pip wheel and the package
/// of NVIDIA's apt repository, as one sentence.
std::string toolkitInstallHint(ToolkitPiece P);

struct ToolkitCandidate {
  std::string Path;   // a file path, or a bare soname for the loader
  std::string Origin; // "PYCUDA_JIT_NVJITLINK", "CUDA_HOME", "pip nvidia-nvvm",
                      // "system", "loader"
};

struct ToolkitSearch {
  std::vector<ToolkitCandidate> Candidates;
  bool Overridden = false; // the override variable decided alone
};

/// The candidates for P in the current environment (no file is opened).
ToolkitSearch searchToolkit(ToolkitPiece P);

/// For pieces that are files: the first candidate that is a regular file
/// ("" if none); `Searched`, when given, receives every path looked at.
std::string findToolkitFile(ToolkitPiece P,
                            std::vector<std::string> *Searched = nullptr,
                            std::string *Origin = nullptr);

/// The major.minor version a library file's name states, after following
/// symlinks ("libnvJitLink.so.13" -> "libnvJitLink.so.13.0.88": 13, 0);
/// false when the name states no minor version (NVIDIA's pip wheels ship
/// "libnvJitLink.so.13" itself).  No file is opened.
bool toolkitVersionFromFileName(const std::string &Path, int &Major,
                                int &Minor);

/// For a library piece: whether File (a candidate path) is what dlopen-ing
/// the candidates in order would load, as far as can be told without
/// loading: false when a bare soname tried before it names a file in an
/// LD_LIBRARY_PATH directory that is another file.
bool toolkitFileLoadsFirst(ToolkitPiece P, const std::string &File);

/// For pieces that are libraries: dlopen-s the candidates in order and
/// reports the first that loads (then closes it).  For `info`.
struct ToolkitProbe {
  std::string Path;    // "" if none loaded
  std::string Origin;  // the candidate's origin
  std::string Version; // "13.0" when the library reports it
  std::string Error;   // every candidate tried and why it failed
};
ToolkitProbe probeToolkitLibrary(ToolkitPiece P);

/// dlopen-s (RTLD_NOW) the first of `Paths` that loads and has every symbol
/// it must: `Resolve(Handle)` reads them and returns the names it lacks, ""
/// when complete.  Returns the handle (nullptr if none; a candidate that
/// lacks symbols is closed again); `Loaded` gets the path that loaded and
/// `Tried` one line per candidate that failed, with why.
void *openToolkitLibrary(const std::vector<std::string> &Paths,
                         const std::function<std::string(void *)> &Resolve,
                         std::string &Loaded, std::string &Tried);
/// The same over searchToolkit(P)'s candidates.
void *openToolkitLibrary(ToolkitPiece P,
                         const std::function<std::string(void *)> &Resolve,
                         std::string &Loaded, std::string &Tried);

/// The site-packages directories the Python interpreter knows (sys.path),
/// set by the extension when it is loaded.  Thread-safe.
void setToolkitSitePackages(std::vector<std::string> Dirs);

/// False when PYCUDA_JIT_SYSTEM_CUDA=0: only overrides, CUDA_HOME/CUDA_PATH
/// and pip wheels are searched.
bool toolkitSystemSearchEnabled();

} // namespace pcj
