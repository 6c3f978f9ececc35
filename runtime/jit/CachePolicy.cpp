// The disk-cache policy (see CachePolicy.h).
#include "runtime/jit/CachePolicy.h"

#include <cstdlib>
#include <sys/stat.h>

namespace pcj::jit {

rt::CacheEntry makeCacheEntry(const std::string &Key,
                              const rt::KernelMeta &Meta, Backend B,
                              const std::string &Code,
                              const std::string *Cubin) {
  rt::CacheEntry E;
  E.key = Key;
  E.sections[kMetaSection] = rt::encodeKernelMeta(Meta);
  if (B == Backend::CUDA) {
    E.sections[kPtxSection] = Code;
    if (Cubin)
      E.sections[kCubinSection] = *Cubin;
  } else {
    E.sections[kHostObjectSection] = Code;
  }
  return E;
}

std::optional<CachedCode> readCacheEntry(const rt::CacheEntry &E, Backend B) {
  auto Section = [&](const char *Name) -> const std::string * {
    auto It = E.sections.find(Name);
    return It == E.sections.end() ? nullptr : &It->second;
  };
  CachedCode C;
  const std::string *Meta = Section(kMetaSection);
  std::optional<rt::KernelMeta> M =
      Meta ? rt::decodeKernelMeta(*Meta) : std::nullopt;
  if (!M)
    return std::nullopt;
  C.meta = std::move(*M);
  if (B == Backend::CPU) {
    C.kind = CachedCode::HostObject;
    C.code = Section(kHostObjectSection);
    return C.code ? std::optional(C) : std::nullopt;
  }
  C.ptx = Section(kPtxSection);
  if (!C.ptx)
    return std::nullopt;
  const std::string *Cubin = Section(kCubinSection);
  C.kind = Cubin ? CachedCode::Cubin : CachedCode::Ptx;
  C.code = Cubin ? Cubin : C.ptx;
  return C;
}

std::string toolchainFingerprint(
    const std::vector<std::pair<std::string, std::string>> &NamedFiles) {
  std::string S;
  for (const auto &[Name, Path] : NamedFiles) {
    S += Name + "=" + Path;
    struct stat St;
    if (!Path.empty() && ::stat(Path.c_str(), &St) == 0)
      S += ":" + std::to_string((long long)St.st_size) + ":" +
           std::to_string((long long)St.st_mtime);
    S += ";";
  }
  return S;
}

std::optional<rt::LockPolicy> cacheLockPolicy(const char *TimeoutSeconds) {
  rt::LockPolicy P;
  double T = 600;
  if (TimeoutSeconds && *TimeoutSeconds) {
    char *End = nullptr;
    T = std::strtod(TimeoutSeconds, &End);
    if (*End != '\0' || !(T > 0))
      return std::nullopt;
  }
  P.staleSeconds = T;
  P.waitSeconds = 2 * T;
  return P;
}

} // namespace pcj::jit
