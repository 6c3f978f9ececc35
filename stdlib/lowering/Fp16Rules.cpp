// Lowering rules for cuda.fp16 (registry/cuda.def) on LLVM `half` values.
// Arithmetic, fma, abs, max/min, rounding and comparisons are half
// operations (NVPTX: add.f16, fma.rn.f16, ... on sm_53+; the host promotes
// to float).  sqrt, rsqrt, rcp and the transcendental functions compute in
// float32 (libdevice / libm) and round once to half, like cuda_fp16.h.
#include "stdlib/lowering/CudaHelpers.h"

#include <llvm/IR/Intrinsics.h>

#include <optional>

namespace pcj::stdlib::lowering {

using namespace types;

llvm::Value *lowerFp16(const LoweringRequest &R) {
  auto &Cx = R.cx;
  auto &B = Cx.b;
  const std::string Op = R.info.sdata;
  const std::vector<llvm::Value *> &A = R.args;
  using llvm::Intrinsic::ID;
  // hadd/hsub/hmul may contract, like CUDA's __hadd/__hsub/__hmul.
  std::optional<lower::SourceArithmetic> Source;
  if (Op == "add" || Op == "sub" || Op == "mul")
    Source.emplace(Cx);
  if (Op == "add")
    return B.CreateFAdd(A[0], A[1]);
  if (Op == "sub")
    return B.CreateFSub(A[0], A[1]);
  if (Op == "mul")
    return B.CreateFMul(A[0], A[1]);
  if (Op == "div")
    return B.CreateFDiv(A[0], A[1]);
  if (Op == "fma")
    return B.CreateIntrinsic(llvm::Intrinsic::fma, {A[0]->getType()}, A);
  if (Op == "neg")
    return B.CreateFNeg(A[0]);
  if (Op == "abs")
    return B.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, A[0]);
  if (Op == "max") // the other operand when one is NaN (CUDA's __hmax)
    return B.CreateBinaryIntrinsic(llvm::Intrinsic::maxnum, A[0], A[1]);
  if (Op == "min")
    return B.CreateBinaryIntrinsic(llvm::Intrinsic::minnum, A[0], A[1]);
  static const std::pair<const char *, ID> Rounding[] = {
      {"floor", llvm::Intrinsic::floor},
      {"ceil", llvm::Intrinsic::ceil},
      {"trunc", llvm::Intrinsic::trunc},
      {"rint", llvm::Intrinsic::rint}};
  for (auto [Name, Id] : Rounding)
    if (Op == Name)
      return B.CreateUnaryIntrinsic(Id, A[0]);
  static const std::pair<const char *, llvm::CmpInst::Predicate> Cmp[] = {
      {"eq", llvm::CmpInst::FCMP_OEQ}, {"ne", llvm::CmpInst::FCMP_ONE},
      {"lt", llvm::CmpInst::FCMP_OLT}, {"le", llvm::CmpInst::FCMP_OLE},
      {"gt", llvm::CmpInst::FCMP_OGT}, {"ge", llvm::CmpInst::FCMP_OGE}};
  for (auto [Name, Pred] : Cmp)
    if (Op == Name)
      return B.CreateFCmp(Pred, A[0], A[1]);
  // In float32, rounded once to half.
  llvm::Value *X = B.CreateFPExt(A[0], B.getFloatTy());
  llvm::Value *Y;
  if (Op == "sqrt" || Op == "rsqrt") {
    Y = B.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, X);
    if (Op == "rsqrt")
      Y = B.CreateFDiv(llvm::ConstantFP::get(B.getFloatTy(), 1.0), Y);
  } else if (Op == "rcp") {
    Y = B.CreateFDiv(llvm::ConstantFP::get(B.getFloatTy(), 1.0), X);
  } else {
    llvm::FunctionCallee Fn =
        Cx.target.mathFunction(Cx.module, Op, float32Ty(), 1);
    Y = B.CreateCall(Fn, {X});
  }
  return B.CreateFPTrunc(Y, B.getHalfTy());
}

} // namespace pcj::stdlib::lowering
