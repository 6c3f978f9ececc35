// Kernels in the disk cache (see KernelCache.h).
#include "KernelCache.h"

#include "CodegenPlugin.h"

#include "codegen/HostBackend.h" // HostResult::object
#include "runtime/DiskCache.h"
#include "support/Diagnostics.h"

#include <chrono>

namespace pcj::py {

std::optional<CachedKernel> loadCachedKernel(const std::string &Key,
                                             const driver::Analysis &A, bool Cuda,
                                             int CcMajor, int CcMinor,
                                             std::string &Status) {
  rt::DiskCache C(rt::DiskCache::defaultDir());
  std::string Why;
  if (!C.ensureDir(&Why)) {
    Status = "off (" + Why + ")";
    return std::nullopt;
  }
  Status = "miss";
  auto T0 = std::chrono::steady_clock::now();
  auto E = C.load(Key);
  if (!E)
    return std::nullopt;
  CachedKernel K;
  driver::CompileResult &R = K.result;
  R = driver::analysisResult(A);
  R.timings = driver::analysisTimings(A);
  auto Meta = E->sections.find("meta");
  if (Meta == E->sections.end() || !driver::restoreFromCache(Meta->second, R))
    return std::nullopt;
  if (Cuda) {
    auto Cubin = E->sections.find("cubin");
    auto Ptx = E->sections.find("ptx");
    if (Ptx == E->sections.end())
      return std::nullopt;
    K.image.CcMajor = CcMajor;
    K.image.CcMinor = CcMinor;
    if (Cubin != E->sections.end()) {
      K.image.Path = rt::LoadPath::NvJitLinkCubin;
      K.image.Bytes = Cubin->second;
    } else {
      K.image.Path = rt::LoadPath::DriverJitPtx;
      K.image.Bytes = Ptx->second;
    }
    R.ptx = Ptx->second;
    R.dumps["ptx"] = R.ptx; // the other stages are compiled again on demand (inspect_*)
  } else {
    auto Obj = E->sections.find("hostobj");
    if (Obj == E->sections.end())
      return std::nullopt;
    const driver::CodegenApi &Api = codegenPlugin();
    try { // a damaged or forged object is a miss (rebuilt), not an error
      R.host = Api.loadHostObject(Obj->second, {R.kernelName});
      R.hostEntry = Api.hostEntry(*R.host, R.kernelName);
    } catch (const CompileError &) {
      return std::nullopt;
    }
    if (!R.hostEntry)
      return std::nullopt;
  }
  R.timings.push_back({"cache.load", std::chrono::duration<double, std::milli>(
                                         std::chrono::steady_clock::now() - T0)
                                         .count()});
  Status = "hit";
  return K;
}

std::string storeCachedKernel(const std::string &Key, const driver::CompileResult &R,
                              bool Cuda, const rt::LoadableImage *Image) {
  rt::CacheEntry E;
  E.key = Key;
  E.sections["meta"] = driver::describeForCache(R);
  if (Cuda) {
    E.sections["ptx"] = R.ptx;
    if (Image && Image->isCubin())
      E.sections["cubin"] = Image->Bytes;
  } else {
    E.sections["hostobj"] = R.host->object;
  }
  rt::DiskCache C(rt::DiskCache::defaultDir());
  std::string Why;
  return C.store(E, &Why) ? "" : Why;
}

} // namespace pcj::py
