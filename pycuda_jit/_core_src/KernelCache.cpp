// Kernels in the disk cache (see KernelCache.h).
#include "KernelCache.h"
#include "support/Env.h"

#include "CodegenPlugin.h"
#include "Glue.h"

#include "codegen/HostBackend.h" // HostResult::object
#include "runtime/CacheLock.h"
#include "runtime/DiskCache.h"
#include "runtime/jit/CachePolicy.h"
#include "support/Diagnostics.h"

#include <chrono>
#include <cstdlib>
#include <sys/stat.h>
#include <thread>

namespace pcj::py {

std::optional<CachedKernel> loadCachedKernel(const std::string &Key,
                                             const driver::Analysis &A,
                                             bool Cuda, int CcMajor,
                                             int CcMinor, jit::CacheFind &Found,
                                             std::string &OffWhy) {
  rt::DiskCache C(rt::DiskCache::defaultDir());
  if (!C.ensureDir(&OffWhy)) {
    Found = jit::CacheFind::Off;
    return std::nullopt;
  }
  Found = jit::CacheFind::Miss;
  auto T0 = std::chrono::steady_clock::now();
  auto E = C.load(Key);
  if (!E)
    return std::nullopt;
  CachedKernel K;
  driver::CompileResult &R = K.result;
  R = driver::analysisResult(A);
  R.timings = driver::analysisTimings(A);
  std::optional<jit::CachedCode> Code =
      jit::readCacheEntry(*E, Cuda ? Backend::CUDA : Backend::CPU);
  if (!Code || !driver::restoreFromCache(Code->meta, R))
    return std::nullopt;
  if (Cuda) {
    K.image.CcMajor = CcMajor;
    K.image.CcMinor = CcMinor;
    K.image.Path = Code->kind == jit::CachedCode::Cubin
                       ? rt::LoadPath::NvJitLinkCubin
                       : rt::LoadPath::DriverJitPtx;
    K.image.Bytes = *Code->code;
    R.ptx = *Code->ptx;
    R.dumps["ptx"] =
        R.ptx; // the other stages are compiled again on demand (inspect_*)
  } else {
    const driver::CodegenApi &Api = codegenPlugin();
    try { // a damaged or forged object is a miss (rebuilt), not an error
      R.host = Api.loadHostObject(*Code->code, {R.kernelName}, R.hostSymbols);
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
  Found = jit::CacheFind::Hit;
  return K;
}

std::string storeCachedKernel(const std::string &Key,
                              const driver::CompileResult &R, bool Cuda,
                              const rt::LoadableImage *Image) {
  const std::string *Cubin =
      Image && Image->isCubin() ? &Image->Bytes : nullptr;
  rt::CacheEntry E = jit::makeCacheEntry(Key, driver::cacheMeta(R),
                                         Cuda ? Backend::CUDA : Backend::CPU,
                                         Cuda ? R.ptx : R.host->object, Cubin);
  rt::DiskCache C(rt::DiskCache::defaultDir());
  std::string Why;
  return C.store(E, &Why) ? "" : Why;
}

namespace {

// PYCUDA_JIT_CACHE_LOCK_TIMEOUT's policy (jit::cacheLockPolicy).
rt::LockPolicy lockPolicy() {
  const char *Env = env::raw(env::Var::CacheLockTimeout);
  std::optional<rt::LockPolicy> P = jit::cacheLockPolicy(Env);
  if (!P) {
    PyErr_Format(PyExc_ValueError,
                 "PYCUDA_JIT_CACHE_LOCK_TIMEOUT must be a positive number of "
                 "seconds, not '%s'",
                 Env);
    throw PythonError{};
  }
  return *P;
}

} // namespace

bool awaitCacheEntry(const std::string &Key,
                     std::unique_ptr<rt::CacheLock> &Lock, std::string &Note) {
  rt::DiskCache C(rt::DiskCache::defaultDir());
  rt::LockPolicy P = lockPolicy();
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
