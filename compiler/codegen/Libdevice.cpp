// Libdevice: locate libdevice.10.bc, keep its bytes in memory once per
// process, and link the needed functions into a module lazily (see
// Libdevice.h for the search order).
#include "codegen/Libdevice.h"

#include "codegen/Pipeline.h"
#include "support/Diagnostics.h"

#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/Module.h"
#include "llvm/Linker/Linker.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <map>
#include <mutex>

namespace pcj::codegen {

namespace {

constexpr const char *kFileName = "libdevice.10.bc";

// Process-wide state: the configured Python locations and the cache of
// libdevice bytes by path.  Buffers are never freed: modules being linked
// in other threads may still point into them.
struct LibdeviceState {
  std::mutex Mu;
  std::vector<std::string> SitePackages;
  std::string PythonPrefix;
  std::map<std::string, std::unique_ptr<llvm::MemoryBuffer>> Files;
  std::atomic<uint64_t> FileReads{0};
  std::atomic<uint64_t> Links{0};
};

LibdeviceState &state() {
  static LibdeviceState *S = new LibdeviceState(); // immortal, see above
  return *S;
}

std::string getEnv(const char *Name) {
  const char *V = std::getenv(Name);
  return V ? std::string(V) : std::string();
}

template <typename... Parts>
std::string join(llvm::StringRef Base, const Parts &...Rest) {
  llvm::SmallString<256> P(Base);
  (llvm::sys::path::append(P, llvm::StringRef(Rest)), ...);
  return std::string(P);
}

std::vector<std::string> splitPathList(const std::string &List) {
  std::vector<std::string> Out;
  llvm::SmallVector<llvm::StringRef, 8> Parts;
  llvm::StringRef(List).split(Parts, llvm::sys::EnvPathSeparator, -1, false);
  for (llvm::StringRef P : Parts)
    Out.push_back(P.str());
  return Out;
}

// <prefix>/lib/python3.*/site-packages (sorted, newest last) and the
// Windows layout <prefix>/Lib/site-packages.
std::vector<std::string> sitePackagesUnderPrefix(const std::string &Prefix) {
  std::vector<std::string> Out;
  if (Prefix.empty())
    return Out;
  std::error_code EC;
  std::string Lib = join(Prefix, "lib");
  for (llvm::sys::fs::directory_iterator It(Lib, EC), End; It != End && !EC;
       It.increment(EC)) {
    llvm::StringRef Name = llvm::sys::path::filename(It->path());
    if (Name.starts_with("python3"))
      Out.push_back(join(It->path(), "site-packages"));
  }
  std::sort(Out.begin(), Out.end());
  Out.push_back(join(Prefix, "Lib", "site-packages"));
  return Out;
}

[[noreturn]] void backendError(std::string Msg, std::string Hint = {}) {
  throw CompileError(ErrorKind::Backend, SourceLoc{}, std::move(Msg),
                     std::move(Hint));
}

const llvm::MemoryBuffer &loadLibdevice() {
  LibdeviceSearch Found = findLibdevice();
  if (Found.path.empty()) {
    std::string Msg =
        "libdevice (" + std::string(kFileName) +
        ") is needed for math functions but was not found; looked in:";
    for (const std::string &P : Found.searched)
      Msg += "\n  " + P;
    backendError(std::move(Msg),
                 std::string("set ") + kLibdeviceEnv +
                     " to the path of libdevice.10.bc, or CUDA_HOME to the "
                     "CUDA toolkit root (or pip install nvidia-cuda-nvcc)");
  }

  LibdeviceState &S = state();
  std::lock_guard<std::mutex> Lock(S.Mu);
  auto It = S.Files.find(Found.path);
  if (It != S.Files.end())
    return *It->second;
  auto BufOrErr = llvm::MemoryBuffer::getFile(Found.path, /*IsText=*/false,
                                              /*RequiresNullTerminator=*/false);
  if (!BufOrErr)
    backendError("cannot read libdevice at " + Found.path + ": " +
                 BufOrErr.getError().message());
  if (!llvm::isBitcode(
          reinterpret_cast<const unsigned char *>(
              (*BufOrErr)->getBufferStart()),
          reinterpret_cast<const unsigned char *>((*BufOrErr)->getBufferEnd())))
    backendError(Found.path + " is not an LLVM bitcode file",
                 std::string("point ") + kLibdeviceEnv +
                     " at the toolkit's nvvm/libdevice/libdevice.10.bc");
  S.FileReads.fetch_add(1, std::memory_order_relaxed);
  return *S.Files.emplace(Found.path, std::move(*BufOrErr)).first->second;
}

} // namespace

void setLibdeviceSitePackages(std::vector<std::string> Dirs) {
  LibdeviceState &S = state();
  std::lock_guard<std::mutex> Lock(S.Mu);
  S.SitePackages = std::move(Dirs);
}

void setLibdevicePythonPrefix(std::string SysPrefix) {
  LibdeviceState &S = state();
  std::lock_guard<std::mutex> Lock(S.Mu);
  S.PythonPrefix = std::move(SysPrefix);
}

LibdeviceSearch findLibdevice() {
  LibdeviceSearch R;
  auto Try = [&](const std::string &Candidate) {
    R.searched.push_back(Candidate);
    if (llvm::sys::fs::is_regular_file(Candidate)) {
      R.path = Candidate;
      return true;
    }
    return false;
  };

  // 1. Explicit override: exclusive.
  if (std::string Env = getEnv(kLibdeviceEnv); !Env.empty()) {
    std::string Candidate =
        llvm::sys::fs::is_directory(Env) ? join(Env, kFileName) : Env;
    if (llvm::sys::fs::is_regular_file(Candidate))
      R.path = Candidate;
    R.searched.push_back(Candidate + " (from $" + kLibdeviceEnv + ")");
    return R;
  }

  // 2-3. Toolkit roots.
  for (const char *Var : {"CUDA_HOME", "CUDA_PATH"})
    if (std::string Root = getEnv(Var); !Root.empty())
      if (Try(join(Root, "nvvm", "libdevice", kFileName)))
        return R;
  if (Try(join("/usr/local/cuda", "nvvm", "libdevice", kFileName)))
    return R;

  // 4. Next to nvcc on PATH.
  if (auto Nvcc = llvm::sys::findProgramByName("nvcc")) {
    llvm::SmallString<256> Real;
    if (llvm::sys::fs::real_path(*Nvcc, Real))
      Real = *Nvcc;
    llvm::StringRef Bin = llvm::sys::path::parent_path(Real);
    llvm::StringRef Root = llvm::sys::path::parent_path(Bin);
    if (Try(join(Root, "nvvm", "libdevice", kFileName)))
      return R;
  }

  // 5. pip wheels.
  std::vector<std::string> Sites = splitPathList(getEnv(kSitePackagesEnv));
  {
    LibdeviceState &S = state();
    std::lock_guard<std::mutex> Lock(S.Mu);
    Sites.insert(Sites.end(), S.SitePackages.begin(), S.SitePackages.end());
    for (std::string &D : sitePackagesUnderPrefix(S.PythonPrefix))
      Sites.push_back(std::move(D));
  }
  for (const std::string &Site : Sites) {
    if (Try(join(Site, "nvidia", "cuda_nvcc", "nvvm", "libdevice", kFileName)))
      return R;
    if (Try(join(Site, "nvidia", "cu13", "nvvm", "libdevice", kFileName)))
      return R;
  }
  return R;
}

bool moduleNeedsLibdevice(const llvm::Module &M) {
  for (const llvm::Function &F : M)
    if (F.isDeclaration() && F.getName().starts_with("__nv_"))
      return true;
  return false;
}

bool linkLibdeviceIfNeeded(llvm::Module &M) {
  if (!moduleNeedsLibdevice(M))
    return false;
  const llvm::MemoryBuffer &Bytes = loadLibdevice();

  // Parse lazily: only the function bodies the linker pulls are read.
  auto Lib =
      llvm::getLazyBitcodeModule(Bytes.getMemBufferRef(), M.getContext());
  if (!Lib)
    backendError("cannot parse libdevice: " + llvm::toString(Lib.takeError()));
  // libdevice carries an old generic layout and triple: adopt ours so the
  // linker neither warns nor mixes layouts.
  (*Lib)->setDataLayout(M.getDataLayout());
  (*Lib)->setTargetTriple(M.getTargetTriple());

  bool HadVersionMD = M.getNamedMetadata("nvvmir.version") != nullptr;
  detail::DiagnosticCapture Diags(M.getContext());
  if (llvm::Linker::linkModules(M, std::move(*Lib),
                                llvm::Linker::LinkOnlyNeeded)) {
    Diags.throwIfErrors("linking libdevice failed");
    backendError("linking libdevice failed");
  }
  Diags.throwIfErrors("linking libdevice failed");
  // libdevice's NVVM IR version tag means nothing to the NVPTX backend.
  if (!HadVersionMD)
    if (llvm::NamedMDNode *MD = M.getNamedMetadata("nvvmir.version"))
      M.eraseNamedMetadata(MD);
  state().Links.fetch_add(1, std::memory_order_relaxed);
  return true;
}

LibdeviceStats libdeviceStats() {
  LibdeviceState &S = state();
  return {S.FileReads.load(), S.Links.load()};
}

} // namespace pcj::codegen
