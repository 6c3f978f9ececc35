// Kernels in the disk cache (see KernelCache.h).
#include "KernelCache.h"
#include "support/Env.h"

#include "CodegenPlugin.h"
#include "Glue.h"

#include "codegen/HostBackend.h" // HostResult::object
#include "runtime/CacheLock.h"
#include "runtime/DiskCache.h"
#include "support/Diagnostics.h"

#include <chrono>
#include <cstdlib>
#include <sys/stat.h>
#include <thread>

namespace pcj::py {

std::optional<CachedKernel> loadCachedKernel(const std::string &Key,
                                             const driver::Analysis &A,
                                             bool Cuda, int CcMajor,
                                             int CcMinor, std::string &Status) {
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
    R.dumps["ptx"] =
        R.ptx; // the other stages are compiled again on demand (inspect_*)
  } else {
    auto Obj = E->sections.find("hostobj");
    if (Obj == E->sections.end())
      return std::nullopt;
    const driver::CodegenApi &Api = codegenPlugin();
    try { // a damaged or forged object is a miss (rebuilt), not an error
      R.host = Api.loadHostObject(Obj->second, {R.kernelName}, R.hostSymbols);
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

std::string storeCachedKernel(const std::string &Key,
                              const driver::CompileResult &R, bool Cuda,
                              const rt::LoadableImage *Image) {
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

namespace {

// PYCUDA_JIT_CACHE_LOCK_TIMEOUT (seconds > 0), else 600.
double lockTimeout() {
  const char *Env = env::raw(env::Var::CacheLockTimeout);
  if (!Env || !*Env)
    return 600;
  char *End = nullptr;
  double T = std::strtod(Env, &End);
  if (*End != '\0' || !(T > 0)) {
    PyErr_Format(PyExc_ValueError,
                 "PYCUDA_JIT_CACHE_LOCK_TIMEOUT must be a positive number of "
                 "seconds, not '%s'",
                 Env);
    throw PythonError{};
  }
  return T;
}

} // namespace

bool awaitCacheEntry(const std::string &Key,
                     std::unique_ptr<rt::CacheLock> &Lock, std::string &Note) {
  rt::DiskCache C(rt::DiskCache::defaultDir());
  rt::LockPolicy P;
  P.staleSeconds = lockTimeout();
  P.waitSeconds = 2 * P.staleSeconds;
  std::string Entry = C.pathFor(Key);
  auto L = std::make_unique<rt::CacheLock>(Entry.substr(0, Entry.size() - 5) +
                                           ".lock");
  int Sleeps = 0;
  rt::WaitHooks H;
  H.ready = [&] {
    struct stat St;
    return ::stat(Entry.c_str(), &St) == 0;
  };
  H.sleep = [&](double Seconds) {
    ++Sleeps;
    Py_BEGIN_ALLOW_THREADS std::this_thread::sleep_for(
        std::chrono::duration<double>(Seconds));
    Py_END_ALLOW_THREADS if (PyErr_CheckSignals() != 0) throw PythonError{};
  };
  auto T0 = std::chrono::steady_clock::now();
  rt::LockWait W = rt::waitForEntryOrLock(*L, H, P);
  long Ms = long(std::chrono::duration<double, std::milli>(
                     std::chrono::steady_clock::now() - T0)
                     .count());
  std::string Who = L->holder().empty() ? "another process" : L->holder();
  switch (W) {
  case rt::LockWait::Held:
    if (L->brokenStale())
      Note = " (broke a stale compile lock: " + Who + ")";
    Lock = std::move(L);
    return false;
  case rt::LockWait::Ready:
    if (Sleeps)
      Note = " (waited " + std::to_string(Ms) + " ms for the compile of " +
             Who + ")";
    return true;
  case rt::LockWait::TimedOut:
    Note = " (compiled without the lock: waited " + std::to_string(Ms) +
           " ms for " + Who + ")";
    return false;
  case rt::LockWait::Unavailable:
    Note = " (no compile lock: cannot create " + L->path() + ")";
    return false;
  }
  return false;
}

} // namespace pcj::py
