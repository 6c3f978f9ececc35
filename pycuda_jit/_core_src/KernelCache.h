// The disk cache seen from the dispatcher: a compiled kernel -- its
// CompileResult and its machine code (a cubin, the PTX, or a host object)
// -- stored under its cache key and loaded back without compiling.
// Anything wrong with an entry makes it a miss, which the caller compiles
// and stores over: the file checks are runtime/DiskCache.h's, the metadata
// must agree with the analysis (driver::restoreFromCache), and a host object
// the JIT refuses counts as damaged.
#pragma once

#include "driver/Compile.h"
#include "runtime/Compile.h"

#include <optional>
#include <string>

namespace pcj::driver {
struct Analysis;
}

namespace pcj::py {

struct CachedKernel {
  driver::CompileResult result; // the analysis' result completed from the entry
  rt::LoadableImage image;      // CUDA: the cubin, or the PTX for the driver JIT
};

// The entry for Key (Cuda: for sm_<CcMajor><CcMinor>; else a host object,
// loaded into the host JIT).  Status becomes "hit", "miss" or "off (why)".
// The result's timings are the analysis' and cache.load.
std::optional<CachedKernel> loadCachedKernel(const std::string &Key,
                                             const driver::Analysis &A, bool Cuda,
                                             int CcMajor, int CcMinor,
                                             std::string &Status);

// Stores R under Key (Cuda: its PTX, and Image's bytes when Image is a
// cubin; else its host object).  Returns "" or why it was not stored.
std::string storeCachedKernel(const std::string &Key, const driver::CompileResult &R,
                              bool Cuda, const rt::LoadableImage *Image);

} // namespace pcj::py
