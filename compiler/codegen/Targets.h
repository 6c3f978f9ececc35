// Targets: LLVM target initialisation and TargetMachine construction for the
// two backends (NVPTX for GPUs, the native target for the CPU executor).
//
// The lowering calls configureForNvptx / configureForHost on a fresh module
// BEFORE it emits IR, so that it can query the module's DataLayout (type
// sizes, alignments, pointer width).  The backends then build matching
// TargetMachines from the same place.
//
// Thread safety: initializeTargets() is idempotent and thread-safe.  An
// llvm::TargetMachine is NOT thread-safe (codegen mutates its options per
// function), so every TargetMachine returned here belongs to one thread:
// either a fresh one (create*) or one from the calling thread's private
// cache (*ForThread).  The backends use the per-thread cache; see
// NvptxBackend.cpp for the measured cost that motivates it.
#pragma once

#include <memory>
#include <string>

namespace llvm {
class Module;
class TargetMachine;
} // namespace llvm

namespace pcj::codegen {

// The triple of every GPU module.
inline constexpr const char *kNvptxTriple = "nvptx64-nvidia-cuda";

// Registers the NVPTX and native targets with LLVM (once per process).
void initializeTargets();

// "sm_90" for (9, 0); "sm_90a" with suffix 'a' (arch-specific), "sm_100f"
// with 'f' (family-specific).
std::string nvptxArchName(int ccMajor, int ccMinor, char suffix = 0);

// Whether this LLVM's NVPTX backend knows sm_<major><minor><suffix>.  LLVM
// 22 knows up to sm_121 (support/GpuTargets.h: the table the dispatcher
// chooses from, checked against this in tests/unit/codegen_test.cpp).
bool nvptxSupportsArch(int ccMajor, int ccMinor, char suffix = 0);
// Throws CompileError(Backend) with advice unless nvptxSupportsArch().
void requireNvptxArch(int ccMajor, int ccMinor, char suffix = 0);

// Sets the NVPTX triple and data layout on M.  Throws CompileError(Backend)
// if the compute capability is unknown to this LLVM.
void configureForNvptx(llvm::Module &M, int ccMajor, int ccMinor);

// Sets the host process triple and the host data layout on M.
void configureForHost(llvm::Module &M);

// The host CPU name and feature string the host backend compiles for (host
// code is CPU-specific: put both in any cache key for host code).
const std::string &hostCpuName();
const std::string &hostCpuFeatures();
// Both in one string ("<cpu> <features>"): driver::CompileOptions::hostTarget.
std::string hostTarget();

// Fresh TargetMachines, owned by the caller (one thread at a time).
// optLevel is 0..3.  fastMath enables approximate division/square root
// (TargetOptions::UnsafeFPMath) and, on NVPTX, free fusion of multiplies and
// adds (FPOpFusion::Fast); otherwise only operations marked `contract` fuse
// (FPOpFusion::Standard; see FuseMultiplyAdd.h).  Flush-to-zero is a
// per-function attribute.
// Throw CompileError(Backend) if LLVM cannot build one.  ptxVersion is the
// PTX ISA version times ten: 78 (CUDA 11.8) unless a kernel needs more (81:
// kernel parameters beyond 4352 bytes); LLVM raises it to what the
// architecture needs (e.g. 8.6 for sm_100).
std::unique_ptr<llvm::TargetMachine>
createNvptxTargetMachine(int ccMajor, int ccMinor, int optLevel, bool fastMath,
                         int ptxVersion = 78, char suffix = 0);
std::unique_ptr<llvm::TargetMachine> createHostTargetMachine(int optLevel,
                                                             bool fastMath);

// The calling thread's cached TargetMachine for these parameters (created
// on first use, destroyed when the thread exits).  Never share the returned
// reference with another thread.
llvm::TargetMachine &nvptxTargetMachineForThread(int ccMajor, int ccMinor,
                                                 int optLevel, bool fastMath,
                                                 int ptxVersion = 78,
                                                 char suffix = 0);
llvm::TargetMachine &hostTargetMachineForThread(int optLevel, bool fastMath);

} // namespace pcj::codegen
