// The disk-cache key of a kernel (see CacheKey.h).
#include "runtime/jit/CacheKey.h"

#include "support/Sha256.h"

namespace pcj::jit {

std::string composeCacheKey(const KernelKeyParts &P) {
  Sha256 H;
  H.field(kCacheKeyFormat).field(P.compiler);
  H.field(P.options);
  H.field(P.code);
  H.field(P.signature);
  for (const auto &[What, Value] : P.resolutions)
    H.field(What).field(Value);
  return H.hexDigest();
}

} // namespace pcj::jit
