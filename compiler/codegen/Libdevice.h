// Libdevice: finding, caching and lazily linking NVIDIA's libdevice.10.bc,
// the bitcode library behind every `__nv_*` math function (__nv_expf,
// __nv_sin, ...).
//
// Where it is looked for: support/Toolkit.h (PYCUDA_JIT_LIBDEVICE alone if
// set; else CUDA_HOME/CUDA_PATH, the nvidia-nvvm pip wheel (CUDA 13:
// nvidia/cu13/nvvm/libdevice; CUDA 12: nvidia/cuda_nvcc/nvvm/libdevice),
// then /usr/local/cuda* and the toolkit of the nvcc on $PATH).
//
// The file is read at most once per process (per path) and kept in memory.
// The first compile that needs a set of functions parses libdevice LAZILY
// and links what it uses (llvm::Linker::LinkOnlyNeeded: the declared names
// and everything they call); the second extracts them once per process, from
// a lazy parse in a private LLVMContext, into a small bitcode module
// (immutable, shared by every thread); each later compile that needs the
// same set parses and links only that.  Modules that declare no
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
// os.pathsep-separated site-packages directories to search for pip wheels
// (read by support/Toolkit.cpp).
inline constexpr const char *kSitePackagesEnv = "PYCUDA_JIT_SITE_PACKAGES";

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
  uint64_t extracts = 0;  // sets of functions extracted (once per set)
};
LibdeviceStats libdeviceStats();

} // namespace pcj::codegen
