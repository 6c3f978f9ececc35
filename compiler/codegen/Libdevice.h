// Libdevice: finding, caching and lazily linking NVIDIA's libdevice.10.bc,
// the bitcode library behind every `__nv_*` math function (__nv_expf,
// __nv_sin, ...).
//
// Search order (first hit wins):
//   1. $PYCUDA_JIT_LIBDEVICE: the .bc file or a directory holding it.  When
//      set, nothing else is searched (a wrong override is an error, never a
//      silent fallback).
//   2. $CUDA_HOME/nvvm/libdevice, $CUDA_PATH/nvvm/libdevice
//   3. /usr/local/cuda/nvvm/libdevice
//   4. <dir of nvcc on $PATH>/../nvvm/libdevice
//   5. pip wheels, nvidia/cuda_nvcc/nvvm/libdevice (CUDA 12) or
//      nvidia/cu13/nvvm/libdevice (CUDA 13), under each site-packages
//      directory in $PYCUDA_JIT_SITE_PACKAGES (os.pathsep separated), given
//      to setLibdeviceSitePackages(), or derived from the prefix given to
//      setLibdevicePythonPrefix() (<prefix>/lib/python3.*/site-packages).
//
// The file is read at most once per process (per path) and kept in memory;
// each compile that needs it parses it LAZILY and links only the functions
// the module uses (llvm::Linker::LinkOnlyNeeded).  Modules that declare no
// `__nv_*` function never touch libdevice at all.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace llvm {
class Module;
} // namespace llvm

namespace pcj::codegen {

// The environment variable that names libdevice explicitly.
inline constexpr const char *kLibdeviceEnv = "PYCUDA_JIT_LIBDEVICE";
// os.pathsep-separated site-packages directories to search for pip wheels.
inline constexpr const char *kSitePackagesEnv = "PYCUDA_JIT_SITE_PACKAGES";

// Extra places to look, set once by the Python glue (thread-safe).
void setLibdeviceSitePackages(std::vector<std::string> Dirs);
void setLibdevicePythonPrefix(std::string SysPrefix);

struct LibdeviceSearch {
  std::string path;                  // empty if not found
  std::vector<std::string> searched; // every candidate looked at, in order
};

// Runs the search above (a few stat() calls; no caching, no reading).
LibdeviceSearch findLibdevice();

// Whether M declares any `__nv_*` function.
bool moduleNeedsLibdevice(const llvm::Module &M);

// If M declares `__nv_*` functions, links the used part of libdevice into M
// (with M's triple and data layout) and returns true; otherwise returns
// false without looking for the file.  Throws CompileError(Backend) if
// libdevice is needed but missing or unreadable, or linking fails.
bool linkLibdeviceIfNeeded(llvm::Module &M);

// Process-wide counters, for tests and the compile-time report.
struct LibdeviceStats {
  uint64_t fileReads = 0; // files read from disk
  uint64_t links = 0;     // modules libdevice was linked into
};
LibdeviceStats libdeviceStats();

} // namespace pcj::codegen
