// Lowering rules for cuda.bf16 (registry/bf16.def) on LLVM `bfloat` values.
//
// + - * and fma are bfloat operations, rounded once to nearest even (NVPTX:
// add.rn.bf16 / fma.rn.bf16 on sm_90, fma.rn.bf16 on sm_80; the host
// computes in float32 -- double for fma -- and rounds once: for + - * / and
// sqrt of 8-bit significands float32 is wide enough that the two roundings
// are one).  Division, sqrt, rsqrt, rcp and the transcendental functions
// compute in float32 (IEEE division and sqrt; libdevice / libm) and round
// once to bfloat16.  The _sat forms clamp to [+0, 1] (NaN: +0), fma_relu
// clamps below at +0 (NaN stays NaN); max/min take the other operand of a
// NaN and order -0 below +0 (llvm.maximumnum: PTX max.bf16), the _nan forms
// return NaN.  Conversions to bfloat16 round by their mode in the same IR
// on both targets (lower/BFloat16.cpp); conversions to integers round by
// their mode in float32, then convert like every float -> int
// (saturating, NaN -> 0).
//
//   before:  cuda.bf16.hfma_sat(a, b, c)
//   after:   %f = call bfloat @llvm.fma.bf16(a, b, c)
//            select(%f > 1, 1, select(%f > 0, %f, +0))
#include "stdlib/lowering/CudaHelpers.h"

#include "lower/BFloat16.h"

#include <llvm/IR/Intrinsics.h>

#include <sstream>

namespace pcj::stdlib::lowering {

using namespace types;

namespace {

lower::BF16Round roundingMode(const std::string &M) {
  if (M == "rz")
    return lower::BF16Round::Zero;
  if (M == "rd")
    return lower::BF16Round::Down;
  if (M == "ru")
    return lower::BF16Round::Up;
  return lower::BF16Round::Nearest;
}

llvm::Value *bf16Const(llvm::IRBuilder<> &B, double V) {
  return llvm::ConstantFP::get(B.getBFloatTy(), V);
}

// Clamped to [+0, 1]; NaN -> +0.
llvm::Value *saturate(llvm::IRBuilder<> &B, llvm::Value *X) {
  llvm::Value *Low = B.CreateSelect(B.CreateFCmpOGT(X, bf16Const(B, 0.0)), X,
                                    bf16Const(B, 0.0));
  return B.CreateSelect(B.CreateFCmpOGT(X, bf16Const(B, 1.0)),
                        bf16Const(B, 1.0), Low);
}

// bfloat16 -> the integer or float type T, rounding by Mode.
llvm::Value *fromBf16(const LoweringRequest &R, llvm::Value *X, TypeRef T,
                      const std::string &Mode) {
  auto &B = R.cx.b;
  llvm::Value *F = B.CreateFPExt(X, B.getFloatTy()); // exact
  if (T->isFloat())
    return F;
  llvm::Intrinsic::ID Round = Mode == "rn"   ? llvm::Intrinsic::rint
                              : Mode == "rd" ? llvm::Intrinsic::floor
                              : Mode == "ru" ? llvm::Intrinsic::ceil
                                             : llvm::Intrinsic::trunc;
  F = B.CreateUnaryIntrinsic(Round, F);
  return R.cx.target.floatToInt(B, F, B.getIntNTy(T->bits()), T->isSigned());
}

// sqrt, rsqrt, rcp and the math functions: in float32, rounded once.
llvm::Value *viaFloat32(const LoweringRequest &R, const std::string &Op,
                        llvm::Value *A) {
  auto &Cx = R.cx;
  auto &B = Cx.b;
  llvm::Value *X = B.CreateFPExt(A, B.getFloatTy());
  llvm::Value *One = llvm::ConstantFP::get(B.getFloatTy(), 1.0);
  llvm::Value *Y;
  if (Op == "sqrt" || Op == "rsqrt") {
    Y = B.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, X);
    if (Op == "rsqrt")
      Y = B.CreateFDiv(One, Y);
  } else if (Op == "rcp") {
    Y = B.CreateFDiv(One, X);
  } else {
    llvm::FunctionCallee Fn =
        Cx.target.mathFunction(Cx.module, Op, float32Ty(), 1);
    Y = B.CreateCall(Fn, {X});
  }
  return B.CreateFPTrunc(Y, B.getBFloatTy());
}

} // namespace

llvm::Value *lowerBf16(const LoweringRequest &R) {
  auto &B = R.cx.b;
  const std::vector<llvm::Value *> &A = R.args;
  std::istringstream Words(R.info.sdata);
  std::string Op, Other, Mode;
  Words >> Op >> Other >> Mode;
  if (Op == "from")
    return lower::toBFloat16(B, A[0], scalarFromName(Other),
                             roundingMode(Mode));
  if (Op == "to")
    return fromBf16(R, A[0], scalarFromName(Other), Mode);
  if (Op == "as")
    return B.CreateBitCast(A[0], B.getInt16Ty());
  if (Op == "bits")
    return B.CreateBitCast(A[0], B.getBFloatTy());
  if (Op == "abs")
    return B.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, A[0]);
  if (Op == "neg")
    return B.CreateFNeg(A[0]);
  std::string Base = Op.substr(0, Op.find('_'));
  llvm::Value *V = nullptr;
  if (Base == "add")
    V = B.CreateFAdd(A[0], A[1]);
  else if (Base == "sub")
    V = B.CreateFSub(A[0], A[1]);
  else if (Base == "mul")
    V = B.CreateFMul(A[0], A[1]);
  else if (Base == "fma")
    V = B.CreateIntrinsic(llvm::Intrinsic::fma, {B.getBFloatTy()}, A);
  if (V) {
    if (Op.size() > 4 && Op.compare(Op.size() - 4, 4, "_sat") == 0)
      return saturate(B, V);
    if (Op == "fma_relu")
      return B.CreateSelect(B.CreateFCmpOLT(V, bf16Const(B, 0.0)),
                            bf16Const(B, 0.0), V);
    return V;
  }
  if (Op == "div") // float32 division (div.rn.f32), rounded once
    return B.CreateFDiv(A[0], A[1]);
  static const std::pair<const char *, llvm::CmpInst::Predicate> Cmp[] = {
      {"eq", llvm::CmpInst::FCMP_OEQ},  {"ne", llvm::CmpInst::FCMP_ONE},
      {"lt", llvm::CmpInst::FCMP_OLT},  {"le", llvm::CmpInst::FCMP_OLE},
      {"gt", llvm::CmpInst::FCMP_OGT},  {"ge", llvm::CmpInst::FCMP_OGE},
      {"equ", llvm::CmpInst::FCMP_UEQ}, {"neu", llvm::CmpInst::FCMP_UNE},
      {"ltu", llvm::CmpInst::FCMP_ULT}, {"leu", llvm::CmpInst::FCMP_ULE},
      {"gtu", llvm::CmpInst::FCMP_UGT}, {"geu", llvm::CmpInst::FCMP_UGE}};
  for (auto [Name, Pred] : Cmp)
    if (Op == Name)
      return B.CreateFCmp(Pred, A[0], A[1]);
  static const std::pair<const char *, llvm::Intrinsic::ID> MinMax[] = {
      {"max", llvm::Intrinsic::maximumnum},
      {"min", llvm::Intrinsic::minimumnum},
      {"max_nan", llvm::Intrinsic::maximum},
      {"min_nan", llvm::Intrinsic::minimum}};
  for (auto [Name, Id] : MinMax)
    if (Op == Name)
      return B.CreateBinaryIntrinsic(Id, A[0], A[1]);
  if (Op == "isnan")
    return B.CreateFCmpUNO(A[0], A[0]);
  if (Op == "isinf") { // -1, 1 or 0, as CUDA's __hisinf
    llvm::Value *Inf =
        B.CreateFCmpOEQ(B.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, A[0]),
                        llvm::ConstantFP::getInfinity(B.getBFloatTy()));
    llvm::Value *Sign = B.CreateSelect(
        B.CreateICmpSLT(B.CreateBitCast(A[0], B.getInt16Ty()), B.getInt16(0)),
        B.getInt32(-1), B.getInt32(1));
    return B.CreateSelect(Inf, Sign, B.getInt32(0));
  }
  static const std::pair<const char *, llvm::Intrinsic::ID> Rounding[] = {
      {"floor", llvm::Intrinsic::floor},
      {"ceil", llvm::Intrinsic::ceil},
      {"trunc", llvm::Intrinsic::trunc},
      {"rint", llvm::Intrinsic::rint}};
  for (auto [Name, Id] : Rounding)
    if (Op == Name) // exact: the result is a bfloat16
      return B.CreateUnaryIntrinsic(Id, A[0]);
  return viaFloat32(R, Op, A[0]);
}

} // namespace pcj::stdlib::lowering
