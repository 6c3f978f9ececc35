// HostCuda: foreign CUDA C (cuda.declare_device with link= .cu files or
// cuda.CUSource) compiled for the CPU executor with the system C++
// compiler, as a shared object loaded into this process.
//
//   Library L = buildForHost({{"times2.cu", "extern \"C\" __device__ int
//                               times2(int *r, int a) {...}"}});
//   void *Fn = L.symbol("times2");   // the kernel's host code calls it
//
// Every source of one list is a translation unit of one shared object (so
// they may call each other), compiled as C++17 with HostCudaHeader.h
// force-included, -O2, and floating-point contraction like CUDA's default
// (-ffp-contract=fast, with -mfma where the CPU has FMA).  The compiler is
// $CXX, else c++, g++ or clang++ on $PATH.
//
// Built objects are cached on disk under <disk cache dir>/host-cu/<key>.so,
// the key hashing the sources (names and text), the header, the compiler
// (its path and `--version` text) and the flags; and in the process by the
// same key, so a list is built and loaded once.  Objects stay loaded until
// the process ends.
//
// The executor calls enterForeign(ctx) before each call into foreign code
// (the host target's foreign-call hook): threadIdx and friends in the
// foreign code read the calling CUDA thread's context through it.
#pragma once

#include <string>
#include <vector>

namespace pcj::hostcu {

struct Source {
  std::string name; // what messages call it (a path, "<CUSource>")
  std::string text;
};

// A loaded shared object (never unloaded), or the reason there is none.
struct Library {
  void *handle = nullptr;
  // Set when the build or load failed: the compiler's messages with the
  // sources' own names, or what is missing.
  std::string error;
  // The address of an exported symbol, or nullptr.
  void *symbol(const std::string &Name) const;
};

// Compiles and loads Sources (cached); thread-safe.  `cacheDir` is the disk
// cache's directory ("" : a temporary directory, nothing kept).
Library buildForHost(const std::vector<Source> &Sources,
                     const std::string &cacheDir);

// The compiler that buildForHost runs ("" when none is found) and the flags,
// for messages and the README.
std::string hostCompiler();

// Called by generated host code before every call of a foreign function:
// `ctx` (a pcj_thread_ctx) becomes what the foreign code's threadIdx,
// blockIdx, blockDim and gridDim read on this host thread.
extern "C" void pcj_cpu_foreign_enter(const void *ctx);

} // namespace pcj::hostcu
