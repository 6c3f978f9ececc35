// Lowering rules for the cuda namespace (registry/cuda.def).  They emit LLVM IR
// through LowerContext and reach target differences only via its TargetHooks.
#include "stdlib/lowering/CudaHelpers.h"

#include "support/Diagnostics.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/Intrinsics.h>

#include <cstdio>

namespace pcj::stdlib::lowering {

using namespace types;
using lower::SReg;

llvm::Value *lowerNone(const LoweringRequest &R) { return nullptr; }

llvm::Value *lowerSpecialReg(const LoweringRequest &R) {
  int Reg = R.info.idata / 3, Dim = R.info.idata % 3;
  static const SReg Order[4] = {SReg::Tid, SReg::NTid, SReg::CtaId,
                                SReg::NCtaId};
  // The 32-bit register as an int64 (typing: CudaRules.cpp).
  return R.cx.b.CreateZExt(R.cx.target.specialReg(R.cx.b, Order[Reg], Dim),
                           R.cx.b.getInt64Ty(), "", /*IsNonNeg=*/true);
}

// grid(n): ctaid * ntid + tid per dimension; gridsize(n): ntid * nctaid.
static llvm::Value *gridLike(const LoweringRequest &R, bool Size) {
  auto &B = R.cx.b;
  bc::ConstValue N;
  ArgInfo{R.argTypes[0], false, R.argInstrs[0]}.constant(N);
  std::vector<llvm::Value *> Dims;
  for (int D = 0; D < N.i; ++D) {
    auto Reg = [&](SReg S) {
      return B.CreateZExt(R.cx.target.specialReg(B, S, D), B.getInt64Ty());
    };
    llvm::Value *V =
        Size ? B.CreateMul(Reg(SReg::NTid), Reg(SReg::NCtaId), "", true, true)
             : B.CreateAdd(B.CreateMul(Reg(SReg::CtaId), Reg(SReg::NTid), "",
                                       true, true),
                           Reg(SReg::Tid), "", true, true);
    Dims.push_back(V);
  }
  if (Dims.size() == 1)
    return Dims[0];
  llvm::Value *T = llvm::UndefValue::get(R.cx.valueType(R.instr.type));
  for (unsigned D = 0; D < Dims.size(); ++D)
    T = B.CreateInsertValue(T, Dims[D], {D});
  return T;
}

llvm::Value *lowerGrid(const LoweringRequest &R) { return gridLike(R, false); }
llvm::Value *lowerGridsize(const LoweringRequest &R) {
  return gridLike(R, true);
}

// Shared and local arrays: storage plus constant shape and C strides.
static llvm::Value *fixedArray(const LoweringRequest &R, bool Shared) {
  auto &Cx = R.cx;
  TypeRef T = R.instr.type;
  bc::ConstValue Shape;
  int S = cudahelp::findArg(R, 0, "shape");
  ArgInfo{R.argTypes[S], false, R.argInstrs[S]}.constant(Shape);
  std::vector<int64_t> Dims;
  if (Shape.kind == bc::ConstValue::Kind::Tuple)
    for (const auto &E : Shape.elems)
      Dims.push_back(E.i);
  else
    Dims.push_back(Shape.i);
  uint64_t Count = 1;
  for (int64_t D : Dims)
    Count *= uint64_t(D);
  llvm::Type *ET = Cx.memoryType(T->dtype());
  if (Shared && Count == 0) {
    // Dynamic shared memory: 1-D, as many elements as the launch's bytes hold.
    llvm::Value *Data = Cx.target.dynamicSharedArray(Cx.module, Cx.b);
    llvm::Value *Size = Cx.b.CreateUDiv(Cx.target.dynamicSharedBytes(Cx.b),
                                        Cx.b.getInt64(T->dtype()->byteSize()));
    return Cx.makeArray(T, Data, {Size},
                        {Cx.b.getInt64(T->dtype()->byteSize())});
  }
  // alignment= (checked by the typing rule), never below 16 bytes.
  unsigned Align = 16;
  bc::ConstValue AlignArg;
  int A = cudahelp::findArg(R, 2, "alignment");
  if (A >= 0 &&
      ArgInfo{R.argTypes[A], false, R.argInstrs[A]}.constant(AlignArg) &&
      AlignArg.kind == bc::ConstValue::Kind::Int)
    Align = std::max<unsigned>(Align, unsigned(AlignArg.i));
  std::string Name =
      (Shared ? "shared.L" : "local.L") + std::to_string(R.instr.loc.line);
  llvm::Value *Data =
      Shared ? Cx.target.sharedArray(Cx.module, Cx.b, ET, Count, Name, Align)
             : Cx.entryAlloca(ET, Name, Count);
  if (Shared && Cx.target.staticSharedBytes > lower::kMaxStaticSharedBytes)
    throw CompileError(
        ErrorKind::Unsupported, R.instr.loc,
        "the kernel's static shared arrays (cuda.shared.array) take " +
            std::to_string(Cx.target.staticSharedBytes) +
            " bytes with this one; a block may have at most " +
            std::to_string(lower::kMaxStaticSharedBytes) +
            " bytes (48 KiB) of static shared memory",
        "for more, use dynamic shared memory: cuda.shared.array(0, dtype), "
        "sized by the launch's fourth parameter (kernel[grid, block, stream, "
        "bytes])");
  if (!Shared)
    llvm::cast<llvm::AllocaInst>(Data)->setAlignment(llvm::Align(Align));
  std::vector<llvm::Value *> ShapeV, StrideV;
  int64_t Stride = T->dtype()->byteSize();
  StrideV.resize(Dims.size());
  for (int D = int(Dims.size()) - 1; D >= 0; --D) {
    StrideV[D] = Cx.b.getInt64(Stride);
    Stride *= Dims[D];
  }
  for (int64_t D : Dims)
    ShapeV.push_back(Cx.b.getInt64(D));
  return Cx.makeArray(T, Data, ShapeV, StrideV);
}

llvm::Value *lowerSharedArray(const LoweringRequest &R) {
  return fixedArray(R, true);
}
llvm::Value *lowerLocalArray(const LoweringRequest &R) {
  return fixedArray(R, false);
}

// cuda.const.array_like(host_array): the array itself (a global NumPy array
// already lives in constant memory; LowerContext::constArray).
llvm::Value *lowerConstArrayLike(const LoweringRequest &R) {
  return R.cx.constArray(R.argInstrs[0]->ct, R.instr.type);
}

llvm::Value *lowerSyncthreads(const LoweringRequest &R) {
  R.cx.sanitizeSync(&R.instr);
  R.cx.target.barrier(R.cx.b, R.instr.loc.line);
  return R.cx.none();
}

} // namespace pcj::stdlib::lowering
