// The disk-cache key of a kernel: SHA-256 over what determines its machine
// code, each part a length-prefixed field (so that no two part lists hash
// alike by moving bytes between parts).  The driver gathers the parts from
// its analysis (driver::analyzeKernel); the composition and its order are
// here, free of CPython and the compiler.
//
//   KernelKeyParts P;
//   P.compiler = driver::compilerBuildId(...); // + toolchain (GPU)
//   P.options = driver::optionsKeyText(O);
//   P.code = driver::codeFingerprint(Raw, ...);
//   P.signature = "(float64[::1],) -> none";
//   P.resolutions = {{"SCALE: global", "2.0"}, ...};
//   std::string Key = composeCacheKey(P); // 64 hex digits
//
// A change of any part (the compiler or toolchain, an option, the bytecode,
// the argument types, a resolved global or device function) is another key,
// so an entry made before the change is never found (runtime/DiskCache.h
// checks the key inside the file too).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace pcj::jit {

struct KernelKeyParts {
  // The compiler's build ids, the CPU ABI, LLVM's version and the registry
  // (driver::compilerBuildId; on a GPU the toolchain's files too:
  // toolchainFingerprint).
  std::string compiler;
  std::string options;   // every compile option's key text
  std::string code;      // the kernel's bytecode, constants and names
  std::string signature; // the argument types
  // What each global and device function resolved to: (what, value).
  std::vector<std::pair<std::string, std::string>> resolutions;
};

// The key's format; a change of what the key covers bumps it.
inline constexpr const char *kCacheKeyFormat = "pycuda_jit-cache-key/2";

std::string composeCacheKey(const KernelKeyParts &P);

} // namespace pcj::jit
