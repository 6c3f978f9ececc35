// Lowering rules for math functions (registry/math.def): libm on the host,
// libdevice on NVPTX (TargetHooks::mathFunction), LLVM intrinsics where both
// targets have exact instructions (sqrt, fabs, floor, ...).
#include "stdlib/lowering/Rules.h"

#include "lower/Arith.h"
#include "support/Diagnostics.h"
#include "types/BFloat16.h"

#include <llvm/IR/Intrinsics.h>

#include <cstdlib>

namespace pcj::stdlib::lowering {

using namespace types;

namespace {

bool single(TypeRef T) { return T->bits() <= 32; }

// The function computing Name for T: under fastmath's `afn` (fastmath=True
// included) float32 takes the target's approximate variant where it has one.
llvm::FunctionCallee mathCallee(lower::LowerContext &Cx,
                                const std::string &Name, TypeRef T,
                                unsigned Arity) {
  bool Approx =
      Cx.opts.fastMath || (Cx.opts.fastMathFlags & lower::fastmath::Afn);
  if (Approx && single(T))
    if (llvm::FunctionCallee F =
            Cx.target.approxMathFunction(Cx.module, Name, Arity))
      return F;
  return Cx.target.mathFunction(Cx.module, Name, T, Arity);
}

llvm::Intrinsic::ID roundingIntrinsic(const std::string &Name) {
  if (Name == "floor")
    return llvm::Intrinsic::floor;
  if (Name == "ceil")
    return llvm::Intrinsic::ceil;
  if (Name == "trunc")
    return llvm::Intrinsic::trunc;
  return llvm::Intrinsic::rint;
}

// math.NAME(x) of a bfloat16 x is the row cuda.bf16.hNAME (the typing
// chose it: typing/Bf16Rules.cpp): its lowering, or null for other types.
llvm::Value *bf16Variant(const LoweringRequest &R) {
  if (R.argTypes.size() != 1 || !isBFloat16(R.argTypes[0]))
    return nullptr;
  std::string Key = std::string("cuda.bf16.h") + (R.info.key + 5);
  const IntrinsicInfo *V = lookupIntrinsic(Key);
  PCJ_ASSERT(V, "no row " + Key);
  return loweringRule(V->id)(
      LoweringRequest{R.cx, R.instr, *V, R.args, R.argTypes, R.argInstrs});
}

} // namespace

llvm::Value *lowerFloatMath(const LoweringRequest &R) {
  if (llvm::Value *V = bf16Variant(R))
    return V;
  auto &Cx = R.cx;
  if (!R.argTypes.empty() &&
      R.argTypes[0]->isComplex()) { // np.sin(z): cmath's row
    const IntrinsicInfo *C =
        lookupIntrinsic(std::string("cmath.") + R.info.sdata);
    PCJ_ASSERT(C, std::string("no cmath row for ") + R.info.key);
    return loweringRule(C->id)(
        LoweringRequest{Cx, R.instr, *C, R.args, R.argTypes, R.argInstrs});
  }
  TypeRef T = R.instr.type;
  std::string Name = R.info.sdata;
  // Exact on both targets (and vectorizable on the host) as LLVM intrinsics.
  if (Name == "sqrt")
    return Cx.b.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, R.args[0]);
  if (Name == "fabs")
    return Cx.b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, R.args[0]);
  if (Name == "copysign")
    return Cx.b.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, R.args[0],
                                      R.args[1]);
  llvm::FunctionCallee Fn = mathCallee(Cx, Name, T, unsigned(R.args.size()));
  return Cx.b.CreateCall(Fn, R.args);
}

llvm::Value *lowerLog(const LoweringRequest &R) {
  if (llvm::Value *V = bf16Variant(R))
    return V;
  auto &Cx = R.cx;
  TypeRef T = R.instr.type;
  llvm::FunctionCallee Log = mathCallee(Cx, "log", T, 1);
  llvm::Value *L = Cx.b.CreateCall(Log, {R.args[0]});
  if (R.args.size() == 1)
    return L;
  return Cx.b.CreateFDiv(L, Cx.b.CreateCall(Log, {R.args[1]}));
}

llvm::Value *lowerRoundToInt(const LoweringRequest &R) {
  if (llvm::Value *V = bf16Variant(R))
    return V;
  auto &Cx = R.cx;
  TypeRef A = R.argTypes[0];
  if (A->isIntegral())
    return Cx.cast(R.args[0], A, R.instr.type);
  llvm::Value *F =
      Cx.b.CreateUnaryIntrinsic(roundingIntrinsic(R.info.sdata), R.args[0]);
  return Cx.cast(F, A, R.instr.type); // saturating, NaN -> 0
}

llvm::Value *lowerRound(const LoweringRequest &R) {
  return R.cx.b.CreateUnaryIntrinsic(roundingIntrinsic(R.info.sdata),
                                     R.args[0]);
}

// isnan / isinf / isfinite (IData 0 / 1 / 2); integers are always finite.
llvm::Value *lowerFloatClass(const LoweringRequest &R) {
  auto &B = R.cx.b;
  TypeRef A = R.argTypes[0];
  int Which = R.info.idata;
  if (!A->isFloat())
    return B.getInt1(Which == 2);
  llvm::Value *X = R.args[0];
  if (Which == 0)
    return B.CreateFCmpUNO(X, X);
  llvm::Value *Abs = B.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, X);
  llvm::Value *Inf = llvm::ConstantFP::getInfinity(X->getType());
  return Which == 1 ? B.CreateFCmpOEQ(Abs, Inf) : B.CreateFCmpOLT(Abs, Inf);
}

// degrees / radians: multiply by the constant in SData.
llvm::Value *lowerScale(const LoweringRequest &R) {
  llvm::Value *C = llvm::ConstantFP::get(R.args[0]->getType(),
                                         std::strtod(R.info.sdata, nullptr));
  lower::SourceArithmetic Source(R.cx); // a product (docs/language.md)
  return R.cx.b.CreateFMul(R.args[0], C);
}

llvm::Value *lowerFrexp(const LoweringRequest &R) {
  auto &Cx = R.cx;
  auto &B = Cx.b;
  TypeRef F = R.argTypes[0];
  llvm::Type *FT = Cx.valueType(F);
  auto *Sig = llvm::FunctionType::get(FT, {FT, B.getPtrTy()}, false);
  llvm::Value *Exp = Cx.entryAlloca(B.getInt32Ty(), "frexp.exp");
  llvm::Value *M = B.CreateCall(
      Cx.target.mathFunctionOfType(Cx.module, "frexp", single(F), Sig),
      {R.args[0], Exp});
  llvm::Value *E =
      B.CreateSExt(B.CreateLoad(B.getInt32Ty(), Exp), B.getInt64Ty());
  llvm::Value *T = llvm::UndefValue::get(Cx.valueType(R.instr.type));
  T = B.CreateInsertValue(T, M, {0});
  return B.CreateInsertValue(T, E, {1});
}

llvm::Value *lowerLdexp(const LoweringRequest &R) {
  auto &Cx = R.cx;
  auto &B = Cx.b;
  TypeRef F = R.instr.type;
  llvm::Type *FT = Cx.valueType(F);
  auto *Sig = llvm::FunctionType::get(FT, {FT, B.getInt32Ty()}, false);
  return B.CreateCall(
      Cx.target.mathFunctionOfType(Cx.module, "ldexp", single(F), Sig),
      {R.args[0], R.args[1]});
}

llvm::Value *lowerModf(const LoweringRequest &R) {
  auto &Cx = R.cx;
  auto &B = Cx.b;
  TypeRef F = R.argTypes[0];
  llvm::Type *FT = Cx.valueType(F);
  auto *Sig = llvm::FunctionType::get(FT, {FT, B.getPtrTy()}, false);
  llvm::Value *IntPart = Cx.entryAlloca(FT, "modf.int");
  llvm::Value *Frac = B.CreateCall(
      Cx.target.mathFunctionOfType(Cx.module, "modf", single(F), Sig),
      {R.args[0], IntPart});
  llvm::Value *T = llvm::UndefValue::get(Cx.valueType(R.instr.type));
  T = B.CreateInsertValue(T, Frac, {0});
  return B.CreateInsertValue(T, B.CreateLoad(FT, IntPart), {1});
}

// np.minimum/maximum propagate NaN; np.fmin/fmax ignore it.
// NumPy's complex minimum / maximum / fmin / fmax: lexicographic order
// (real parts, then imaginary parts, where both imaginary parts are
// numbers); minimum and maximum keep A if A has a NaN, fmin and fmax keep A
// if C has one.
//   np.minimum(1+2j, 1+1j) == 1+1j;  np.fmin(nan+0j, 1j) == 1j
static llvm::Value *complexMinMax(const LoweringRequest &R, bool Max) {
  auto &Cx = R.cx;
  auto &B = Cx.b;
  llvm::Value *A = R.args[0], *C = R.args[1];
  llvm::Value *Ar = lower::complexRe(Cx, A), *Ai = lower::complexIm(Cx, A);
  llvm::Value *Cr = lower::complexRe(Cx, C), *Ci = lower::complexIm(Cx, C);
  auto HasNan = [&](llvm::Value *Re, llvm::Value *Im) {
    return B.CreateOr(B.CreateFCmpUNO(Re, Re), B.CreateFCmpUNO(Im, Im));
  };
  llvm::Value *ImOrdered = B.CreateFCmpORD(Ai, Ci);
  llvm::Value *RealWins = B.CreateAnd(
      Max ? B.CreateFCmpOGT(Ar, Cr) : B.CreateFCmpOLT(Ar, Cr), ImOrdered);
  llvm::Value *ImagWins =
      B.CreateAnd(B.CreateFCmpOEQ(Ar, Cr),
                  Max ? B.CreateFCmpOGE(Ai, Ci) : B.CreateFCmpOLE(Ai, Ci));
  llvm::Value *KeepA = B.CreateOr(RealWins, ImagWins);
  bool Propagate = R.info.idata < 2; // minimum / maximum, not fmin / fmax
  KeepA = B.CreateOr(KeepA, Propagate ? HasNan(Ar, Ai) : HasNan(Cr, Ci));
  return B.CreateSelect(KeepA, A, C);
}

llvm::Value *lowerNpMinMax(const LoweringRequest &R) {
  auto &B = R.cx.b;
  TypeRef T = R.instr.type;
  llvm::Value *A = R.args[0], *C = R.args[1];
  bool Max = R.info.idata % 2 == 1;
  if (T->isComplex())
    return complexMinMax(R, Max);
  if (T->isFloat()) {
    llvm::Intrinsic::ID Id =
        R.info.idata < 2
            ? (Max ? llvm::Intrinsic::maximum : llvm::Intrinsic::minimum)
            : (Max ? llvm::Intrinsic::maxnum : llvm::Intrinsic::minnum);
    return B.CreateBinaryIntrinsic(Id, A, C);
  }
  bool S = T->isInt() && T->isSigned();
  llvm::Value *Pick = Max ? (S ? B.CreateICmpSGT(A, C) : B.CreateICmpUGT(A, C))
                          : (S ? B.CreateICmpSLT(A, C) : B.CreateICmpULT(A, C));
  return B.CreateSelect(Pick, A, C);
}

llvm::Value *lowerNpSign(const LoweringRequest &R) {
  auto &B = R.cx.b;
  TypeRef T = R.instr.type;
  llvm::Value *X = R.args[0];
  llvm::Type *LT = X->getType();
  if (T->isFloat()) {
    llvm::Value *One = llvm::ConstantFP::get(LT, 1.0),
                *MOne = llvm::ConstantFP::get(LT, -1.0),
                *Zero = llvm::ConstantFP::get(LT, 0.0);
    llvm::Value *S =
        B.CreateSelect(B.CreateFCmpOGT(X, Zero), One,
                       B.CreateSelect(B.CreateFCmpOLT(X, Zero), MOne, Zero));
    return B.CreateSelect(B.CreateFCmpUNO(X, X), X, S); // NaN stays NaN
  }
  llvm::Value *Zero = llvm::ConstantInt::get(LT, 0);
  llvm::Value *Pos = B.CreateZExt(
      T->isSigned() ? B.CreateICmpSGT(X, Zero) : B.CreateICmpNE(X, Zero), LT);
  if (!T->isSigned())
    return Pos;
  return B.CreateSub(Pos, B.CreateZExt(B.CreateICmpSLT(X, Zero), LT));
}

llvm::Value *lowerNpSquare(const LoweringRequest &R) {
  auto &B = R.cx.b;
  llvm::Value *X = R.args[0];
  lower::SourceArithmetic Source(R.cx); // a product (docs/language.md)
  return R.instr.type->isFloat() ? B.CreateFMul(X, X) : B.CreateMul(X, X);
}

} // namespace pcj::stdlib::lowering
