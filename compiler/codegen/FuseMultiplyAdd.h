// FuseMultiplyAdd: floating-point contraction decided once, in target-neutral
// LLVM IR, for both backends (see FuseMultiplyAdd.cpp for the rule).
//
// The driver runs it on the lowered module before the module reaches
// emitPtx or jitForHost.  Afterwards every fused multiply-add is an explicit
// llvm.fma call and, in the Rule mode, no instruction carries LLVM's
// `contract` flag, so neither the NVPTX backend (which then emits add.rn /
// mul.rn, which ptxas does not fuse) nor the host's x86 backend fuses
// anything else: the GPU and the CPU executor round every operation alike.
#pragma once

#include <cstdint>

namespace llvm {
class Module;
} // namespace llvm

namespace pcj::codegen {

enum class Contraction : uint8_t {
  Off,           // fmad=False: no fusion; every `contract` flag is removed
  Rule,          // the default: fuse by the rule, then remove `contract`
  RuleKeepFlags, // fastmath: fuse by the rule; `contract` flags stay, so
                 // the backends may fuse more (targets may then differ)
};

struct FuseStats {
  unsigned fused = 0; // fadd/fsub instructions that became llvm.fma
};

// Applies the rule to every function defined in M.  Functions marked
// alwaysinline (inline="always" device functions) are inlined first, so
// their products meet their callers' sums as they would after any
// pipeline's first inlining step.
FuseStats fuseMultiplyAdds(llvm::Module &M, Contraction Mode);

} // namespace pcj::codegen
