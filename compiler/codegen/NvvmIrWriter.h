// NvvmIrWriter: an LLVM module from our lowering -> NVVM IR text, the LLVM
// 7.0.1 dialect that NVIDIA's libNVVM reads (typed pointers).
//
// Our LLVM (22) has only opaque pointers (`ptr addrspace(1)`) and newer
// instructions and intrinsics; libNVVM parses neither.  The writer prints
// the module itself, instruction by instruction, with one simple, sound
// pointer scheme: every pointer VALUE is `i8 addrspace(N)*`, and each use
// that needs a pointee type gets a bitcast right before it.
//
//   before (LLVM 22)                      after (NVVM IR)
//   %p = getelementptr float, ptr         %t0 = bitcast i8 addrspace(1)* %a0
//        addrspace(1) %a, i64 %i               to float addrspace(1)*
//   %x = load float, ptr addrspace(1) %p  %t1 = getelementptr float, float
//                                              addrspace(1)* %t0, i64 %v0
//                                         %v1 = bitcast float addrspace(1)*
//                                              %t1 to i8 addrspace(1)*
//                                         %t2 = bitcast i8 addrspace(1)* %v1
//                                              to float addrspace(1)*
//                                         %v2 = load float, float
//                                              addrspace(1)* %t2, align 4
//
// What is rewritten to LLVM 7's vocabulary: freeze (the value itself), fneg
// (fsub -0.0), poison (undef), llvm.abs / smax / smin / umax / umin (icmp +
// select), llvm.roundeven (llvm.rint), llvm.fpto[su]i.sat to i32/i64
// (NVVM's cvt.rzi intrinsics, which saturate the same way), atomicrmw fadd
// (llvm.nvvm.atomic.load.add), float xchg (through integers), the newer
// barrier / activemask / nanosleep / exit / tanh.approx spellings (NVVM's
// barrier intrinsics or inline PTX), pointer manglings of intrinsic names
// (.p0 -> .p0i8), the `ptx_kernel` calling convention (!nvvm.annotations
// "kernel"), the data layout and triple (NVVM's); the kernels and the
// externally visible globals (the error record the host reads) go into
// @llvm.used, without which nvJitLink's LTO drops them.  Atomics with no
// scope or the "device" scope print without one (NVVM's atomics are PTX's
// default .gpu scope, CUDA's); other scopes are refused.  Dropped: debug info
// and debug records (no line info through NVVM yet), instruction metadata (loop
// hints, !invariant.load...), flags LLVM 7 lacks (nneg, disjoint, samesign, nuw
// on GEPs...), attributes other than noalias / readonly on parameters and
// alwaysinline / noinline / convergent / nounwind on functions; llvm.lifetime /
// assume / noalias.scope.decl calls.
//
// Anything else the writer cannot express (an indirect call, a scoped
// atomic, llvm.minimum, bfloat, a vector of pointers...) is a
// CompileError(Unsupported) naming the construct: never wrong IR.  libNVVM's
// verifier (nvvmVerifyProgram) checks the rest.
#pragma once

#include <string>
#include <vector>

namespace llvm {
class Module;
} // namespace llvm

namespace pcj::codegen {

struct NvvmIrOptions {
  // Functions that become kernels (also those with the ptx_kernel
  // calling convention).
  std::vector<std::string> kernelNames;
  // Per-kernel limits written as !nvvm.annotations (0: none).
  int maxThreadsPerBlock = 0, minBlocksPerSM = 0, maxRegisters = 0;
};

// M is read, not changed.  Throws CompileError(Unsupported) for a construct
// NVVM IR cannot express.
std::string writeNvvmIr(const llvm::Module &M, const NvvmIrOptions &O);

} // namespace pcj::codegen
