// NvptxBackend: LLVM module -> PTX text for NVIDIA GPUs.
//
//   verify -> mark kernels -> link libdevice (lazily, only if __nv_* used;
//   with fmad its plain mul/add/sub may fuse, as NVVM compiles it)
//   -> fast-math attributes + nvvm-reflect-ftz -> internalize non-kernels
//   -> new-PM O0..O3 with the NVPTX TargetMachine's passes (NVVMReflect...)
//   -> drop dead functions -> legacy codegen (AsmPrinter) -> PTX
//
// Kernel convention for the lowering: give each kernel the `ptx_kernel`
// calling convention (llvm::CallingConv::PTX_Kernel) and list it in
// NvptxOptions::kernelNames.  emitPtx also accepts the older
// `!nvvm.annotations !{ptr @f, !"kernel", i32 1}` and canonicalises it to
// the calling convention (LLVM 20+ reads only that), and turns annotated
// limits into the "nvvm.maxnreg" / "nvvm.maxntid" / "nvvm.minctasm"
// function attributes.
// Every function named in kernelNames becomes a kernel; any other function
// marked as a kernel is a lowering bug (CompileError(Internal)).
//
// Contraction: without fastMath the backend fuses nothing the module does
// not ask for (mul/add/sub carry .rn, so ptxas does not fuse them either):
// the caller decides fusion beforehand (FuseMultiplyAdd.h) and leaves
// llvm.fma calls or `contract` flags.  fastMath lets LLVM and ptxas fuse
// freely.
//
// Line info: with lineInfo the module's debug info is kept and becomes
// .loc/.file directives -- emit a DICompileUnit with
// `emissionKind: DebugDirectivesOnly` for nvcc -lineinfo style output.
// Without lineInfo all debug info is stripped.
//
// Thread safety: emitPtx may run concurrently in several threads on modules
// in different LLVMContexts.  Output is deterministic.
#pragma once

#include <string>
#include <vector>

namespace llvm {
class Module;
} // namespace llvm

namespace pcj::codegen {

struct NvptxOptions {
  // The rows of driver/CompileOptions.def the NVPTX backend reads, with
  // their names, types and defaults: ccMajor / ccMinor / ccSuffix ('a' /
  // 'f': arch- / family-specific PTX, sm_90a), optLevel (0..3), fastMath
  // (ftz, approximate div/sqrt, free fusion), fmad (contraction allowed:
  // libdevice's own multiply-adds may be fused, as NVVM compiles libdevice
  // by default, -fma=1), maxRegisters (> 0: .maxnreg on every kernel), the
  // launch bounds maxThreadsPerBlock / minBlocksPerSM (> 0: .maxntid and
  // .minnctapersm) and maxClusterRank (> 0: .maxclusterrank, sm_90+).
#define PCJ_COMPILE_OPTION(Type, Field, Default, Doc)
#define PCJ_NVPTX_OPTION(Type, Field, Default, Doc) Type Field = Default;
#define PCJ_LOWER_NVPTX_OPTION PCJ_NVPTX_OPTION
#define PCJ_CODEGEN_OPTION PCJ_NVPTX_OPTION
#define PCJ_ALL_STAGES_OPTION PCJ_NVPTX_OPTION
#include "driver/CompileOptions.def"

  bool lineInfo = false; // keep debug locations as .loc
  std::vector<std::string> kernelNames;
  // Non-kernel symbols to keep externally visible (e.g. __device__
  // globals the runtime looks up with cuModuleGetGlobal).
  std::vector<std::string> exportedSymbols;
  bool keepOptimizedIR = false; // NvptxResult::optimizedIR as text (a dump)
  // i8/i16 add, sub, mul and shl done in 32 bits and re-sign-extended
  // (WidenNarrowInts.cpp; abs always is).  Off unless
  // PYCUDA_JIT_NVPTX_WIDEN_NARROW=1: only abs.s16 has been seen
  // miscompiled by ptxas.
  bool widenNarrowArithmetic = false;
};

struct NvptxResult {
  std::string ptx;
  std::string optimizedIR; // when NvptxOptions::keepOptimizedIR
  bool linkedLibdevice = false;
  double msLinkLibdevice = 0, msOptimize = 0, msEmit = 0;
};

// Compiles M (consumed: it is modified in place) to PTX.  Throws
// CompileError: Internal for a broken module or inconsistent kernel marks,
// Backend for a missing libdevice, an unsupported compute capability or an
// LLVM error.
NvptxResult emitPtx(llvm::Module &M, const NvptxOptions &O);

} // namespace pcj::codegen
