// The disk cache seen from the dispatcher: a compiled kernel -- its
// CompileResult and its machine code (a cubin, the PTX, or a host object)
// -- stored under its cache key and loaded back without compiling.
// Anything wrong with an entry makes it a miss, which the caller compiles
// and stores over: the file checks are runtime/DiskCache.h's, the metadata
// must agree with the analysis (driver::restoreFromCache), and a host object
// the JIT refuses counts as damaged.
#pragma once

#include "driver/Compile.h"
#include "runtime/LoadImage.h"
#include "runtime/jit/CachedCompile.h"

#include <memory>
#include <optional>
#include <string>

namespace pcj::driver {
struct Analysis;
}
namespace pcj::rt {
class CacheLock;
}

namespace pcj::py {

struct CachedKernel {
  driver::CompileResult result; // the analysis' result completed from the entry
  rt::LoadableImage image; // CUDA: the cubin, or the PTX for the driver JIT
};

// The entry for Key (Cuda: for sm_<CcMajor><CcMinor>; else a host object,
// loaded into the host JIT).  Found becomes Hit, Miss or Off (OffWhy says
// why the directory cannot be used).  The result's timings are the
// analysis' and cache.load.
std::optional<CachedKernel> loadCachedKernel(const std::string &Key,
                                             const driver::Analysis &A,
                                             bool Cuda, int CcMajor,
                                             int CcMinor, jit::CacheFind &Found,
                                             std::string &OffWhy);

// Stores R under Key (Cuda: its PTX, and Image's bytes when Image is a
// cubin; else its host object).  Returns "" or why it was not stored.
std::string storeCachedKernel(const std::string &Key,
                              const driver::CompileResult &R, bool Cuda,
                              const rt::LoadableImage *Image);

// Compile once per machine (runtime/CacheLock.h), after a miss of Key:
// waits, with the GIL released, until another process publishes the entry
// (true: load it again) or this process holds the entry's lock (false, Lock
// set: compile, store, then drop Lock).  False without a lock when waiting
// timed out or no lock can be made (compile anyway).  Note gets what
// happened for the kernel's cache status (" (waited 12 ms for ...)").
// PYCUDA_JIT_CACHE_LOCK_TIMEOUT: the age in seconds of a stale lock, which
// is broken (default 600; a waiter gives up after twice that).  A signal
// (Ctrl-C) stops the wait: PythonError.
bool awaitCacheEntry(const std::string &Key,
                     std::unique_ptr<rt::CacheLock> &Lock, std::string &Note);

} // namespace pcj::py
