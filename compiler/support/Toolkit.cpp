// Toolkit: the one search for CUDA toolkit pieces (see Toolkit.h).
#include "support/Toolkit.h"
#include "support/Diagnostics.h"
#include "support/Env.h"

#include <algorithm>
#include <cstdlib>
#include <dlfcn.h>
#include <filesystem>
#include <glob.h>
#include <mutex>
#include <set>

namespace pcj {

namespace fs = std::filesystem;

namespace {

// One row per piece: how it is named and where each kind of place keeps it.
struct PieceInfo {
  const char *Env;                    // override variable
  std::vector<const char *> Names;    // file names, preferred first
  std::vector<const char *> RootDirs; // under a toolkit root
  std::vector<const char *> PipDirs;  // under site-packages
  const char *PipPackage;             // the CUDA 13 wheel holding it
  const char *AptPackage;             // NVIDIA's apt repository package
  bool IsLibrary;                     // dlopen-ed: bare names go to ld.so
  const char *VersionFn = nullptr;    // int f(int *major, int *minor)
};

const PieceInfo &info(ToolkitPiece P) {
  static const PieceInfo NvJitLink{"PYCUDA_JIT_NVJITLINK",
                                   {"libnvJitLink.so.13", "libnvJitLink.so"},
                                   {"lib64", "lib"},
                                   {"nvidia/cu13/lib", "nvidia/nvjitlink/lib"},
                                   "nvidia-nvjitlink",
                                   "libnvjitlink-13-0",
                                   true,
                                   "nvJitLinkVersion"};
  static const PieceInfo Libdevice{
      "PYCUDA_JIT_LIBDEVICE",
      {"libdevice.10.bc"},
      {"nvvm/libdevice"},
      {"nvidia/cu13/nvvm/libdevice", "nvidia/cuda_nvcc/nvvm/libdevice"},
      "nvidia-nvvm",
      "cuda-nvvm-13-0",
      false};
  static const PieceInfo Nvrtc{"PYCUDA_JIT_NVRTC",
                               {"libnvrtc.so.13", "libnvrtc.so"},
                               {"lib64", "lib"},
                               {"nvidia/cu13/lib", "nvidia/cuda_nvrtc/lib"},
                               "nvidia-cuda-nvrtc",
                               "cuda-nvrtc-13-0",
                               true,
                               "nvrtcVersion"};
  // libNVVM (lto=True, PYCUDA_JIT_VIA_NVVM): a toolkit keeps it under
  // nvvm/lib64, CUDA 13's packages also under lib.
  static const PieceInfo Nvvm{
      "PYCUDA_JIT_NVVM",
      {"libnvvm.so.4", "libnvvm.so"},
      {"nvvm/lib64", "lib64", "lib"},
      {"nvidia/cu13/lib", "nvidia/cuda_nvcc/nvvm/lib64"},
      "nvidia-nvvm",
      "cuda-nvvm-13-0",
      true,
      "nvvmVersion"};
  static const PieceInfo Nvdisasm{
      "PYCUDA_JIT_NVDISASM",
      {"nvdisasm"},
      {"bin"},
      {"nvidia/cu13/bin", "nvidia/cuda_nvdisasm/bin"},
      "nvidia-cuda-nvdisasm",
      "cuda-nvdisasm-13-0",
      false};
  static const PieceInfo Cuobjdump{
      "PYCUDA_JIT_CUOBJDUMP",
      {"cuobjdump"},
      {"bin"},
      {"nvidia/cu13/bin", "nvidia/cuda_cuobjdump/bin"},
      "nvidia-cuda-cuobjdump",
      "cuda-cuobjdump-13-0",
      false};
  switch (P) {
  case ToolkitPiece::NvJitLink:
    return NvJitLink;
  case ToolkitPiece::Libdevice:
    return Libdevice;
  case ToolkitPiece::Nvrtc:
    return Nvrtc;
  case ToolkitPiece::Nvvm:
    return Nvvm;
  case ToolkitPiece::Nvdisasm:
    return Nvdisasm;
  case ToolkitPiece::Cuobjdump:
    return Cuobjdump;
  }
  return NvJitLink;
}

// A variable of support/Env.def by name (a piece's override variable).
std::string getEnv(const char *Name) {
  std::optional<env::Var> V = env::named(Name);
  PCJ_ASSERT(V, std::string(Name) + " is missing from support/Env.def");
  return env::text(*V);
}

std::mutex &siteMutex() {
  static std::mutex *M = new std::mutex(); // immortal: used at exit too
  return *M;
}

std::vector<std::string> &pythonSites() {
  static auto *V = new std::vector<std::string>();
  return *V;
}

bool isDirectory(const std::string &P) {
  std::error_code EC;
  return fs::is_directory(P, EC);
}

bool isFile(const std::string &P) {
  std::error_code EC;
  return fs::is_regular_file(P, EC);
}

std::vector<std::string> globDirs(const std::string &Pattern) {
  std::vector<std::string> Out;
  glob_t G;
  if (glob(Pattern.c_str(), 0, nullptr, &G) == 0)
    for (size_t I = 0; I < G.gl_pathc; ++I)
      Out.push_back(G.gl_pathv[I]);
  globfree(&G);
  return Out; // glob sorts
}

std::vector<std::string> splitPathList(const std::string &List) {
  std::vector<std::string> Out;
  size_t Start = 0;
  while (Start <= List.size()) {
    size_t End = List.find(':', Start);
    if (End == std::string::npos)
      End = List.size();
    if (End > Start)
      Out.push_back(List.substr(Start, End - Start));
    Start = End + 1;
  }
  return Out;
}

// The directory holding the binary this code is linked into (the _core
// extension, or a test executable).
std::string ownDirectory() {
  Dl_info Info;
  if (!dladdr(reinterpret_cast<void *>(&ownDirectory), &Info) ||
      !Info.dli_fname)
    return "";
  std::string P = Info.dli_fname;
  size_t Slash = P.rfind('/');
  return Slash == std::string::npos ? "." : P.substr(0, Slash);
}

// Every site-packages directory to look for NVIDIA's wheels in, in order,
// without duplicates.
std::vector<std::string> sitePackages() {
  std::vector<std::string> Out;
  {
    std::lock_guard<std::mutex> Lock(siteMutex());
    Out = pythonSites();
  }
  for (std::string &D : splitPathList(env::text(env::Var::SitePackages)))
    Out.push_back(std::move(D));
  if (std::string Own = ownDirectory(); !Own.empty())
    Out.push_back(Own + "/..");
  for (const char *Var : {"VIRTUAL_ENV", "CONDA_PREFIX"}) {
    std::string Prefix = getEnv(Var);
    if (Prefix.empty())
      continue;
    for (const char *Kind : {"site-packages", "dist-packages"})
      for (std::string &D : globDirs(Prefix + "/lib/python3*/" + Kind))
        Out.push_back(std::move(D));
  }
  std::vector<std::string> Unique;
  std::set<std::string> Seen;
  for (std::string &D : Out) {
    std::string Key = fs::path(D).lexically_normal().string();
    if (Seen.insert(Key).second)
      Unique.push_back(std::move(D));
  }
  return Unique;
}

std::string pipOrigin(const PieceInfo &I, const std::string &Dir) {
  // CUDA 12 wheels are named by component (nvidia/nvjitlink ->
  // nvidia-nvjitlink-cu12).
  if (Dir.find("/cu13/") != std::string::npos)
    return std::string("pip ") + I.PipPackage;
  return std::string("pip ") + I.PipPackage + "-cu12";
}

} // namespace

std::vector<ToolkitPiece> allToolkitPieces() {
  return {
#define PCJ_X(Name, Display) ToolkitPiece::Name,
      PCJ_TOOLKIT_PIECES(PCJ_X)
#undef PCJ_X
  };
}

const char *toolkitPieceName(ToolkitPiece P) {
  switch (P) {
#define PCJ_X(Name, Display)                                                   \
  case ToolkitPiece::Name:                                                     \
    return Display;
    PCJ_TOOLKIT_PIECES(PCJ_X)
#undef PCJ_X
  }
  return "?";
}

const char *toolkitOverrideEnv(ToolkitPiece P) { return info(P).Env; }

std::string toolkitInstallHint(ToolkitPiece P) {
  const PieceInfo &I = info(P);
  return std::string("install it with `pip install ") + I.PipPackage +
         "` (every piece: `pip install pycuda_jit[cu13]`) or from "
         "NVIDIA's CUDA apt repository (`apt install " +
         I.AptPackage + "`), set CUDA_HOME to a CUDA 13 toolkit, or " + I.Env +
         " to the file";
}

bool toolkitSystemSearchEnabled() {
  return env::text(env::Var::SystemCuda) != "0";
}

void setToolkitSitePackages(std::vector<std::string> Dirs) {
  std::lock_guard<std::mutex> Lock(siteMutex());
  pythonSites() = std::move(Dirs);
}

ToolkitSearch searchToolkit(ToolkitPiece P) {
  const PieceInfo &I = info(P);
  ToolkitSearch S;
  auto AddDir = [&](const std::string &Dir, const std::string &Origin) {
    for (const char *Name : I.Names)
      S.Candidates.push_back({Dir + "/" + Name, Origin});
  };

  // 1. The override, alone.
  if (std::string Env = getEnv(I.Env); !Env.empty()) {
    S.Overridden = true;
    if (isDirectory(Env))
      AddDir(Env, I.Env);
    else
      S.Candidates.push_back({Env, I.Env});
    return S;
  }

  // 2. Toolkit roots named by the user.
  for (const char *Var : {"CUDA_HOME", "CUDA_PATH"})
    if (std::string Root = getEnv(Var); !Root.empty())
      for (const char *Sub : I.RootDirs)
        AddDir(Root + "/" + Sub, Var);

  // 3. pip wheels.
  for (const std::string &Site : sitePackages())
    for (const char *Sub : I.PipDirs) {
      std::string Dir = Site + "/" + Sub;
      AddDir(Dir, pipOrigin(I, Dir + "/"));
    }

  // 4. The system.
  if (!toolkitSystemSearchEnabled())
    return S;
  if (I.IsLibrary)
    S.Candidates.push_back({I.Names[0], "loader"});
  std::vector<std::string> Roots = {"/usr/local/cuda"};
  for (std::string &R : globDirs("/usr/local/cuda-13*"))
    Roots.push_back(std::move(R));
  if (!I.IsLibrary) {
    // The toolkit that holds the nvcc on $PATH.
    for (const std::string &Dir : splitPathList(env::text(env::Var::Path))) {
      std::error_code EC;
      fs::path Nvcc = fs::path(Dir) / "nvcc";
      if (!isFile(Nvcc.string()))
        continue;
      fs::path Real = fs::canonical(Nvcc, EC);
      if (EC)
        Real = Nvcc;
      Roots.push_back(Real.parent_path().parent_path().string());
      break;
    }
  }
  for (const std::string &Root : Roots)
    for (const char *Sub : I.RootDirs)
      AddDir(Root + "/" + Sub, "system");
  if (I.IsLibrary)
    for (size_t N = 1; N < I.Names.size(); ++N)
      S.Candidates.push_back({I.Names[N], "loader"});
  // /usr/local/cuda usually links to one of /usr/local/cuda-13*: once each.
  std::set<std::string> Seen;
  std::erase_if(S.Candidates, [&](const ToolkitCandidate &C) {
    return !Seen.insert(C.Path).second;
  });
  return S;
}

std::string findToolkitFile(ToolkitPiece P, std::vector<std::string> *Searched,
                            std::string *Origin) {
  ToolkitSearch S = searchToolkit(P);
  for (const ToolkitCandidate &C : S.Candidates) {
    if (C.Path.find('/') == std::string::npos)
      continue; // a soname: only the dynamic loader can find it
    if (Searched)
      Searched->push_back(C.Path);
    if (isFile(C.Path)) {
      if (Origin)
        *Origin = C.Origin;
      return C.Path;
    }
  }
  return "";
}

bool toolkitVersionFromFileName(const std::string &Path, int &Major,
                                int &Minor) {
  std::error_code EC;
  fs::path Real = fs::canonical(Path, EC);
  if (EC)
    return false;
  std::string Name = Real.filename().string();
  size_t At = Name.find(".so.");
  if (At == std::string::npos)
    return false;
  // "13.0.88" or "13.0": two leading numbers separated by a dot.
  const char *P = Name.c_str() + At + 4;
  char *End = nullptr;
  long A = std::strtol(P, &End, 10);
  if (End == P || *End != '.')
    return false;
  const char *Q = End + 1;
  long B = std::strtol(Q, &End, 10);
  if (End == Q || (*End != '.' && *End != '\0') || A <= 0 || A > 999 || B < 0 ||
      B > 999)
    return false;
  Major = int(A);
  Minor = int(B);
  return true;
}

bool toolkitFileLoadsFirst(ToolkitPiece P, const std::string &File) {
  std::error_code EC;
  fs::path Real = fs::canonical(File, EC);
  for (const ToolkitCandidate &C : searchToolkit(P).Candidates) {
    if (C.Path == File)
      return true;
    if (C.Path.find('/') != std::string::npos)
      continue; // a path tried before File: findToolkitFile skipped it
    for (const std::string &Dir :
         splitPathList(env::text(env::Var::LdLibraryPath))) {
      fs::path Other = fs::canonical(fs::path(Dir) / C.Path, EC);
      if (!EC)
        return Other == Real;
    }
  }
  return true;
}

ToolkitProbe probeToolkitLibrary(ToolkitPiece P) {
  const PieceInfo &I = info(P);
  ToolkitProbe R;
  for (const ToolkitCandidate &C : searchToolkit(P).Candidates) {
    bool IsPath = C.Path.find('/') != std::string::npos;
    if (IsPath && !isFile(C.Path)) {
      R.Error += "\n  " + C.Path + ": no such file";
      continue;
    }
    void *H = dlopen(C.Path.c_str(), RTLD_LAZY | RTLD_LOCAL);
    if (!H) {
      const char *E = dlerror();
      R.Error += "\n  " + C.Path + ": " + (E ? E : "dlopen failed");
      continue;
    }
    Dl_info Where{};
    R.Path = C.Path;
    if (I.VersionFn)
      if (void *Fn = dlsym(H, I.VersionFn)) {
        // Real path of a soname found by the loader.
        if (!IsPath && dladdr(Fn, &Where) && Where.dli_fname)
          R.Path = Where.dli_fname;
        int Major = 0, Minor = 0;
        if (reinterpret_cast<int (*)(int *, int *)>(Fn)(&Major, &Minor) == 0)
          R.Version = std::to_string(Major) + "." + std::to_string(Minor);
      }
    R.Origin = C.Origin;
    R.Error.clear();
    dlclose(H);
    return R;
  }
  return R;
}

void *openToolkitLibrary(const std::vector<std::string> &Paths,
                         const std::function<std::string(void *)> &Resolve,
                         std::string &Loaded, std::string &Tried) {
  for (const std::string &C : Paths) {
    bool IsPath = C.find('/') != std::string::npos;
    if (IsPath && !isFile(C)) {
      Tried += "\n  " + C + ": no such file";
      continue;
    }
    void *H = dlopen(C.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!H) {
      const char *E = dlerror();
      Tried += "\n  " + C + ": " + (E ? E : "dlopen failed");
      continue;
    }
    std::string Missing = Resolve(H);
    if (!Missing.empty()) {
      Tried += "\n  " + C + ": lacks" + Missing;
      dlclose(H);
      continue;
    }
    Loaded = C;
    return H;
  }
  return nullptr;
}

void *openToolkitLibrary(ToolkitPiece P,
                         const std::function<std::string(void *)> &Resolve,
                         std::string &Loaded, std::string &Tried) {
  std::vector<std::string> Paths;
  for (ToolkitCandidate &C : searchToolkit(P).Candidates)
    Paths.push_back(std::move(C.Path));
  return openToolkitLibrary(Paths, Resolve, Loaded, Tried);
}

} // namespace pcj
