// GpuTargets: which architecture a kernel's PTX is compiled for, and whether
// the GPU runs it as native code or through a PTX JIT.  One table of the
// architectures the code generator (LLVM 22's NVPTX backend) knows, with the
// first and last CUDA release whose nvJitLink/ptxas/driver accept each, and
// one table of the PTX ISA each CUDA release reads.  No LLVM here: the
// dispatcher decides before it loads the code generator (a disk-cache hit
// never loads LLVM); tests/unit/codegen_test.cpp checks the table against
// LLVM's subtarget list.
//
//   device sm_90, CUDA 13.0               -> native sm_90
//   device sm_125 (newer than the table)  -> sm_121 PTX JIT-compiled for sm_125
//   device sm_90, PYCUDA_JIT_NEWEST_CC=8.0 -> sm_80 PTX JIT-compiled for sm_90
//   device sm_120, CUDA 12.8 driver       -> native sm_120 (PTX ISA 8.7 <= 8.7)
#pragma once

#include <string>

namespace pcj {

// An architecture: compute capability and an optional suffix ('a': only
// that exact GPU, 'f': its family; both only when the user asks for them).
struct GpuArch {
  int major = 9, minor = 0;
  char suffix = 0;
  int cc() const { return major * 10 + minor; }
  // "sm_90", "sm_90a", "compute_100f" (Prefix "compute_").
  std::string name(const char *Prefix = "sm_") const;
};

// What the machine can use; a zero field is not known (no limit from it).
struct GpuToolchain {
  int driverVersion = 0; // cuDriverGetVersion, e.g. 12080
  int linkerVersion = 0; // nvJitLink's CUDA version, e.g. 13000
  int newestCc = 0;      // PYCUDA_JIT_NEWEST_CC as major*10+minor
};

struct GpuTargetChoice {
  GpuArch ptxArch;   // what the PTX is compiled for
  GpuArch device;    // what it runs on (the image is linked for it)
  bool jit = false;  // PTX JIT-compiled for a newer device
  int maxPtxIsa = 0; // the newest PTX ISA the toolchain reads (x10; 0 any)
  // "native sm_90" or "sm_90 PTX JIT-compiled for sm_120".
  std::string describe() const;
  // Part of the cache key: "sm_90" / "sm_90>sm_120 isa87".
  std::string keyText() const;
};

// The PTX ISA version (x10) a CUDA release (e.g. 12080) reads: 0 before
// CUDA 11.8 (too old for pycuda_jit), the newest known beyond the table.
int ptxIsaForCuda(int cudaVersion);

// The lowest PTX ISA (x10) the code generator emits for Arch, 0 when it
// does not know Arch.
int minPtxIsaFor(const GpuArch &Arch);

// Whether Arch is in the table at all (the code generator knows it).
bool codegenKnowsArch(const GpuArch &Arch);

// Every architecture of the table, oldest first ("sm_75 sm_80 ...").
std::string knownArchList();

// The target for Device on Tools: native when the code generator and the
// toolchain both know it (and it is not above newestCc), else the newest
// architecture below it that they know, as PTX to JIT.  An arch-specific
// request (suffix 'a'/'f') is native or an error, never a fallback.
// Throws CompileError(Backend) when no architecture fits (e.g. Volta with
// CUDA 13, which dropped sm_70/72).
GpuTargetChoice chooseGpuTarget(const GpuArch &Device,
                                const GpuToolchain &Tools);

// PYCUDA_JIT_NEWEST_CC ("8.0" -> 80; unset or empty -> 0).  Throws
// CompileError(Backend) when malformed.
int newestCcFromEnv();

} // namespace pcj
