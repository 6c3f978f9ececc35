// The disk-cache policy of compiled kernels, free of CPython: what an entry
// holds for each backend and which code a lookup serves from it, the
// toolchain's part of the key, and the compile lock's timing.  The entry
// file format and its checks are runtime/DiskCache.h's; the key of a kernel
// (its code, globals, device functions, argument types, options and the
// compiler) is driver::cacheKey's, to which the extension adds
// toolchainFingerprint() through the code generator's build id.
//
//   rt::CacheEntry E = makeCacheEntry(Key, Meta, Backend::CUDA, Ptx, Cubin);
//   // E.sections: "meta" (rt::encodeKernelMeta(Meta)), "ptx", "cubin"
//   std::optional<CachedCode> C = readCacheEntry(E, Backend::CUDA);
//   C->kind == CachedCode::Cubin   // the cubin when there is one, else PTX
//
// An entry that lacks what its backend needs, or whose metadata is not a
// record of runtime/CacheMeta.h's version (an older format), is a miss (the
// caller compiles and stores over it), never an error; an entry is found only
// under the key it was stored with (DiskCache checks the key inside the
// file), so an entry of other options, code or toolchain is never served.
#pragma once

#include "runtime/CacheLock.h"
#include "runtime/CacheMeta.h"
#include "runtime/DiskCache.h"
#include "support/Backend.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace pcj::jit {

// The sections of an entry.
// The compile's facts (runtime/CacheMeta.h's record).
inline constexpr const char *kMetaSection = "meta";
inline constexpr const char *kPtxSection = "ptx";     // CUDA: always
inline constexpr const char *kCubinSection = "cubin"; // CUDA: when linked
inline constexpr const char *kHostObjectSection = "hostobj"; // CPU

// The code an entry serves.
struct CachedCode {
  enum Kind { Cubin, Ptx, HostObject } kind = Ptx;
  const std::string *code = nullptr; // the cubin, PTX or host object
  const std::string *ptx = nullptr;  // CUDA: the PTX (also with a cubin)
  rt::KernelMeta meta;               // decoded
};

// The entry of a compile on backend B.  CUDA: Code is the PTX and Cubin
// the linked cubin (null: the PTX is loaded by the driver's JIT); CPU: Code
// is the host object.
rt::CacheEntry makeCacheEntry(const std::string &Key,
                              const rt::KernelMeta &Meta, Backend B,
                              const std::string &Code,
                              const std::string *Cubin = nullptr);

// What E serves on backend B (pointers into E), or nullopt when a section
// B needs is missing (a damaged entry, or one of the other backend) or the
// metadata does not decode (another metadata version, damaged).
std::optional<CachedCode> readCacheEntry(const rt::CacheEntry &E, Backend B);

// The files that shape the machine code besides the compiler itself
// (libdevice, nvJitLink), each named with its path, size and modification
// time ("name=path:size:mtime;"; a missing file: "name=path;"), so that a
// toolkit upgrade or another PYCUDA_JIT_LIBDEVICE changes the key.
std::string toolchainFingerprint(
    const std::vector<std::pair<std::string, std::string>> &NamedFiles);

// The compile lock's policy from PYCUDA_JIT_CACHE_LOCK_TIMEOUT's value
// (null or empty: 600 s): a lock older than that is broken and a waiter
// gives up after twice that.  nullopt when the value is not a positive
// number of seconds (the caller reports it).
std::optional<rt::LockPolicy> cacheLockPolicy(const char *TimeoutSeconds);

} // namespace pcj::jit
